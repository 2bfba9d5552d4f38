//! Public value types of the physical board: moves, rules, classifications, errors.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::san::SanPlus;
use shakmaty::{Color, Piece, Role, Square};

use super::serde_impl;

/// A move as it happens on a physical board: a piece is lifted from `from` and put on `to`.
///
/// UCI-like text form: `e2e4`, `e7e8q` (promotion), `e7e8` (a pawn put on the last rank
/// and left unpromoted), `e1g1` (castling by the king's two-square step) or `e1h1`
/// (castling written as the king going onto its own rook).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhysicalMove {
    /// Square the piece leaves.
    pub from: Square,
    /// Square the piece is put on.
    pub to: Square,
    /// The piece a pawn is exchanged for, if a letter was given. `k` and `p` parse (a
    /// player can physically do that) and are classified illegal.
    pub promotion: Option<Role>,
}

impl PhysicalMove {
    /// A move without promotion letter.
    pub fn new(from: Square, to: Square) -> Self {
        Self {
            from,
            to,
            promotion: None,
        }
    }

    /// A move with a promotion letter.
    pub fn promoting(from: Square, to: Square, role: Role) -> Self {
        Self {
            from,
            to,
            promotion: Some(role),
        }
    }
}

/// Why a move string could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveParseError {
    /// Wrong length: a move is 4 or 5 ASCII characters.
    #[error("move {text:?}: expected 4 or 5 characters like e2e4 or e7e8q")]
    Length {
        /// The text (shortened to 24 characters).
        text: String,
    },
    /// The first two characters are not a square.
    #[error("move {text:?}: {found:?} is not a square (a1..h8) for the from-square")]
    From {
        /// The text.
        text: String,
        /// The offending part.
        found: String,
    },
    /// Characters 3 and 4 are not a square.
    #[error("move {text:?}: {found:?} is not a square (a1..h8) for the to-square")]
    To {
        /// The text.
        text: String,
        /// The offending part.
        found: String,
    },
    /// The fifth character is not a piece letter.
    #[error("move {text:?}: promotion letter {found:?} is not one of q, r, b, n (or k, p)")]
    Promotion {
        /// The text.
        text: String,
        /// The offending character.
        found: char,
    },
}

fn shorten(s: &str) -> String {
    s.chars().take(24).collect()
}

impl FromStr for PhysicalMove {
    type Err = MoveParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let chars: Vec<char> = s.chars().take(6).collect();
        if !(chars.len() == 4 || chars.len() == 5) || !s.is_ascii() {
            return Err(MoveParseError::Length { text: shorten(s) });
        }
        let b = s.as_bytes();
        let from = Square::from_ascii(&b[0..2]).map_err(|_| MoveParseError::From {
            text: s.to_string(),
            found: s[0..2].to_string(),
        })?;
        let to = Square::from_ascii(&b[2..4]).map_err(|_| MoveParseError::To {
            text: s.to_string(),
            found: s[2..4].to_string(),
        })?;
        let promotion = match chars.get(4) {
            None => None,
            Some(&c) => Some(Role::from_char(c.to_ascii_lowercase()).ok_or(
                MoveParseError::Promotion {
                    text: s.to_string(),
                    found: c,
                },
            )?),
        };
        Ok(Self {
            from,
            to,
            promotion,
        })
    }
}

impl fmt::Display for PhysicalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(role) = self.promotion {
            write!(f, "{}", role.char())?;
        }
        Ok(())
    }
}

impl Serialize for PhysicalMove {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PhysicalMove {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What castling a wrongly set-up start position allows (docs/rules.md §6).
///
/// A set-up is "wrong" for a colour when the castling field of the starting FEN gives that
/// colour rights while its king is not on the e-file, or one of its castling rooks is not on
/// the a- or h-file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CastlingSetupRule {
    /// uscf-2020 3a, blitz-2006 19: with king and queen swapped (king on d1/d8) castling is
    /// the mirror image of ordinary castling (**interpretation**, docs/rules.md §6.2): "short" on the
    /// queen side d1→b1 with the a1 rook to c1, "long" on the king side d1→f1 with the h1
    /// rook to e1. A misplaced rook cannot castle (the rule only covers the K/Q swap;
    /// **interpretation**: the laws' castling needs the rook on its original square).
    Mirror,
    /// uscf-classic 3: king or rook set up wrong, no castling at all for that player.
    None,
    /// fide-b3 A.5.1.2: king set up wrong, no castling; a rook set up wrong, no castling with
    /// that rook (castling with the correctly placed one stays possible). This is also what
    /// the ordinary laws give, hence the default.
    #[default]
    Fide,
}

/// Ruleset-dependent knobs of move classification.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BoardRules {
    /// Castling after a wrong set-up.
    pub setup_castling: CastlingSetupRule,
}

/// Which castling a move was (or attempted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CastlingKind {
    /// Ordinary short castling, king towards the h-file (`O-O`).
    KingSide,
    /// Ordinary long castling, king towards the a-file (`O-O-O`).
    QueenSide,
    /// Mirror short castling with king and queen swapped: king d→b, a-rook to c (`O-O`).
    MirrorQueenSide,
    /// Mirror long castling with king and queen swapped: king d→f, h-rook to e (`O-O-O`).
    MirrorKingSide,
}

impl CastlingKind {
    /// `O-O` for the short castlings, `O-O-O` for the long ones.
    pub fn san(self) -> &'static str {
        match self {
            CastlingKind::KingSide | CastlingKind::MirrorQueenSide => "O-O",
            CastlingKind::QueenSide | CastlingKind::MirrorKingSide => "O-O-O",
        }
    }
}

/// Why a completed move is illegal. A move may have several reasons; see [`Legality`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalReason {
    /// The player moved when it was the opponent's turn (alternation, laws: moves alternate).
    WrongTurn,
    /// The piece cannot move that way at all (laws piece movement), e.g. a bishop moved
    /// like a knight, a pawn moved backwards or straight onto a piece, a king moved two
    /// squares without castling.
    WrongMovement,
    /// The piece moves along that line, but a piece stands between (laws piece movement;
    /// also a pawn's double step over an occupied square).
    PathBlocked,
    /// A pawn put on the last rank and left a pawn (laws promotion; blitz-2006 17 speaks of
    /// the case).
    PawnNotPromoted,
    /// A pawn exchanged for another piece before reaching the last rank (laws promotion).
    PromotionNotOnLastRank,
    /// A pawn exchanged for a king or a pawn (laws promotion: queen, rook, bishop or
    /// knight).
    PromotionToKingOrPawn,
    /// An en-passant-shaped capture (pawn diagonally onto the empty square behind an enemy
    /// pawn) when the right to capture en passant does not exist (laws en passant: only on
    /// the move right after the double step). **Interpretation:** the pawn behind is taken off the board, as the
    /// player evidently intended.
    EnPassantInvalid,
    /// Castling while the right is gone (laws castling: king or rook has moved) or the
    /// set-up rule ([`CastlingSetupRule`]) forbids it.
    CastlingNotAllowed,
    /// A piece stands between king and rook or on their destination squares (laws
    /// castling).
    CastlingBlocked,
    /// Castling while in check (laws castling).
    CastlingOutOfCheck,
    /// Castling across a square attacked by the opponent (laws castling).
    CastlingThroughCheck,
    /// Castling onto a square attacked by the opponent (laws castling).
    CastlingIntoCheck,
    /// The enemy king was captured. Never legal; whether it is a claim (uscf-2020 7d,
    /// blitz-2006 7a4) is for the arbiter to decide.
    CapturesKing,
    /// The mover's king ends next to the enemy king (blitz-2006 16, uscf-2020 7d). Reported
    /// when the king itself moved there, before [`IllegalReason::OwnKingPutInCheck`].
    KingAdjacentToKing,
    /// The mover's king was in check and still is after the move (laws check).
    OwnKingLeftInCheck,
    /// The move exposes the mover's king to check, or the king moves into check (laws
    /// check).
    OwnKingPutInCheck,
}

/// The classification of a completed move.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Legality {
    /// Legal under the laws of chess (and the set-up castling rule).
    Legal,
    /// Illegal; reasons ordered most important first: wrong turn, then how the piece moved
    /// (movement, path, en passant, castling conditions), then promotion, then king capture,
    /// then king safety (adjacent kings, left in check, put in check).
    Illegal(Vec<IllegalReason>),
}

impl Legality {
    /// `true` for [`Legality::Legal`].
    pub fn is_legal(&self) -> bool {
        matches!(self, Legality::Legal)
    }

    /// The reasons (empty when legal).
    pub fn reasons(&self) -> &[IllegalReason] {
        match self {
            Legality::Legal => &[],
            Legality::Illegal(r) => r,
        }
    }
}

/// A move that cannot physically be made, so it is not played at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// `from` and `to` are the same square.
    #[error("move {mv}: from and to are the same square")]
    SameSquare {
        /// The move.
        mv: PhysicalMove,
    },
    /// Nothing stands on `from`.
    #[error("move {mv}: there is no piece on {}", mv.from)]
    NoPiece {
        /// The move.
        mv: PhysicalMove,
    },
    /// The piece on `from` belongs to the other player.
    #[error("move {mv}: the piece on {} is not {}'s", mv.from, crate::colour::name(*mover))]
    NotYourPiece {
        /// The move.
        mv: PhysicalMove,
        /// Who tried to move.
        mover: Color,
    },
    /// `to` holds a piece of the mover (and it is not a castling onto the own rook).
    #[error("move {mv}: {} holds {}'s own piece", mv.to, crate::colour::name(*mover))]
    OwnPieceOnTarget {
        /// The move.
        mv: PhysicalMove,
        /// Who tried to move.
        mover: Color,
    },
    /// A promotion letter on a piece that is not a pawn.
    #[error("move {mv}: promotion letter on a piece that is not a pawn")]
    PromotionByNonPawn {
        /// The move.
        mv: PhysicalMove,
    },
    /// King onto own rook (castling) while the squares king and rook must go to are taken.
    #[error("move {mv}: castling cannot be carried out, {square} is occupied")]
    CastlingSquareOccupied {
        /// The move.
        mv: PhysicalMove,
        /// The occupied destination square.
        square: Square,
    },
}

/// Why a FEN could not be read. Every variant names the FEN field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// Nothing but whitespace.
    #[error("FEN is empty")]
    Empty,
    /// More than six space-separated fields.
    #[error(
        "FEN has {0} fields; expected at most 6 (placement, side, castling, en passant, halfmove clock, fullmove number)"
    )]
    TooManyFields(usize),
    /// The placement field does not have eight ranks.
    #[error("FEN placement field: expected 8 ranks separated by '/', found {0}")]
    RankCount(usize),
    /// A rank of the placement field is wrong.
    #[error("FEN placement field, rank {rank}: {problem}")]
    Placement {
        /// Rank number 1..8 as printed on a board.
        rank: u8,
        /// What is wrong.
        problem: String,
    },
    /// The side-to-move field is not `w` or `b`.
    #[error("FEN side-to-move field: expected 'w' or 'b', found {0:?}")]
    Turn(String),
    /// The castling field is wrong.
    #[error("FEN castling field: {0}")]
    Castling(String),
    /// The en passant field is wrong.
    #[error("FEN en passant field: {0}")]
    EnPassant(String),
    /// The halfmove clock is not a number.
    #[error("FEN halfmove clock field: expected a non-negative integer, found {0:?}")]
    Halfmoves(String),
    /// The fullmove number is not a number.
    #[error("FEN fullmove number field: expected a positive integer, found {0:?}")]
    Fullmoves(String),
}

/// Why the position on the board could not arise in a legal game (only the kinds the
/// arbiter acts on, see fide-b3 A.5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalPositionReason {
    /// A colour has no king.
    MissingKing(#[serde(with = "crate::colour::serde")] Color),
    /// A colour has more than one king.
    TooManyKings(#[serde(with = "crate::colour::serde")] Color),
    /// A pawn stands on the first or eighth rank (fide-b3 A.5.4).
    PawnOnBackRank(#[serde(with = "serde_impl::square")] Square),
    /// Both kings are in check (fide-b3 A.5.4). Reported instead of
    /// [`IllegalPositionReason::SideNotToMoveInCheck`].
    BothKingsInCheck,
    /// The side that just moved is in check (its king can be taken).
    SideNotToMoveInCheck,
    /// The two kings stand next to each other.
    KingsAdjacent,
}

/// Game state of the position on the board.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The side to move is checkmated (laws checkmate).
    Checkmate,
    /// The side to move is stalemated (laws stalemate).
    Stalemate,
    /// Play goes on.
    Ongoing,
    /// The position is illegal; no mate or stalemate is judged.
    IllegalPosition(Vec<IllegalPositionReason>),
}

/// What happened when a move was played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// The move.
    pub mv: PhysicalMove,
    /// Who made it.
    #[serde(with = "crate::colour::serde")]
    pub mover: Color,
    /// Legal, or illegal with reasons.
    pub legality: Legality,
    /// The piece taken off the board, if any (en passant included).
    #[serde(with = "serde_impl::opt_piece")]
    pub captured: Option<Piece>,
    /// Set if the move was (or attempted) castling; the rook moved too.
    pub castling: Option<CastlingKind>,
    /// SAN with check/mate suffix, for legal moves only. Kept as shakmaty's `SanPlus`
    /// (`Copy`, formatted with `to_string()` when needed) so that playing a move does not
    /// format or allocate; serialised as the SAN string.
    #[serde(with = "serde_impl::opt_san")]
    pub san: Option<SanPlus>,
}
