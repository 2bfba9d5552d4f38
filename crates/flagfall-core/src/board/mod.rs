//! The physical board and the classification of completed moves.
//!
//! A [`PhysicalPosition`] holds whatever stands on the board (docs/rules.md §2.1): any piece of the mover's
//! colour may be put on any square that does not hold one of the mover's own pieces, and
//! the result stands even when it breaks the laws. Every move is classified
//! ([`Legality`]): legal, or illegal with [`IllegalReason`]s, most important first.
//!
//! Legality follows the laws of chess (laws piece movement, check, castling, en passant,
//! promotion), judged on the position actually on the board, also when that position is
//! already illegal: the side to move may then take a king left in check (classified
//! [`IllegalReason::CapturesKing`], for the arbiter to rule on), and its own king safety
//! still counts. Castling after a wrong set-up follows [`CastlingSetupRule`] (docs/rules.md §6).
//!
//! Whenever the position is a legal chess position, classification and play go through
//! shakmaty's `Chess` (fast path); the generic path handles everything else, and both agree
//! on legal positions (tested by proptest).
//!
//! The side to move alternates: after any move by `mover` it is `!mover`'s turn, even after
//! a move out of turn ([`IllegalReason::WrongTurn`]).
//!
//! # Interpretations (what the physical board does where the laws are silent)
//!
//! - **Castling attempts.** A king going onto its own rook on its back rank, or a king on
//!   the d- or e-file stepping two squares along its back rank towards an own rook in that
//!   corner (with the king's and rook's destinations free), is a castling attempt: the rook
//!   moves too, and the attempt is judged by the castling conditions. A two-square king step
//!   whose destinations are taken is an ordinary (wrong) king move. King on the d-file:
//!   mirror castling (docs/rules.md §6.1, uscf-2020 3a, blitz-2006 19); see [`CastlingSetupRule`].
//! - **Set-up errors** are read from the starting FEN's castling field: it names the castling
//!   rooks; a right with the king off the e-file or the rook off the a/h-files is a wrong
//!   set-up of that piece (uscf-classic 3, fide-b3 A.5.1.2).
//! - **En passant** becomes possible after any double step of a pawn over an empty square,
//!   legal or not, for the very next move only. An en-passant-shaped capture without that
//!   right still takes the pawn off ([`IllegalReason::EnPassantInvalid`]).
//! - **Pawns on their own first rank** (only in set-up positions) may step forward one
//!   square; pawns on the last rank cannot move.
//! - [`IllegalReason::KingAdjacentToKing`] is reported when the mover's king itself (or a
//!   pawn promoted to a king) ends next to the enemy king; a king already standing there
//!   gives [`IllegalReason::OwnKingLeftInCheck`] instead.
//! - Several kings of one colour: every one of them must be safe.
//! - The 50-move count and the fullmove number run on the physical board: a pawn move or a
//!   capture resets the count whether legal or not; the fullmove number grows after every
//!   move Black makes.

mod fen;
mod serde_impl;
mod types;

pub use types::{
    BoardError, BoardRules, CastlingKind, CastlingSetupRule, IllegalPositionReason, IllegalReason,
    Legality, MoveError, MoveParseError, MoveRecord, PhysicalMove, Status,
};

use std::num::NonZeroU32;

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{
    Bitboard, Board, ByColor, CastlingMode, CastlingSide, Chess, Color, File, FromSetup, Move,
    MoveList, Piece, Position, PositionError, Rank, Role, Setup, Square, attacks,
};

/// Key for threefold repetition: two positions are the same when this is equal (laws 9.2.2:
/// same placement, same side to move, same castling rights, and the same en passant
/// possibility, where en passant counts only if a capture is actually legal).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RepetitionKey {
    board: Board,
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
}

/// The position on a physical board. See the module documentation.
#[derive(Clone, Debug)]
pub struct PhysicalPosition {
    board: Board,
    turn: Color,
    /// Rook squares that still carry a castling right (cleared when the rook moves or is
    /// taken, or the king moves).
    rights: Bitboard,
    /// Square each king started on, while it has not moved (None if it had no castling
    /// right at the start or has moved).
    king_home: ByColor<Option<Square>>,
    /// The start position gave this colour castling rights with its king off the e-file or
    /// a castling rook off the a/h-files (uscf-classic 3: then no castling at all).
    setup_flawed: ByColor<bool>,
    /// Square skipped by a pawn's double step on the move just played.
    ep_square: Option<Square>,
    halfmoves: u32,
    fullmoves: u32,
    /// The same position as shakmaty `Chess` (standard castling rights only) when it is a
    /// legal position: the fast path.
    chess: Option<Chess>,
    /// Never use the fast path (set only by the `test-support` hook `generic_only`, to
    /// test the generic path against shakmaty).
    generic_only: bool,
}

impl PartialEq for PhysicalPosition {
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
            && self.turn == other.turn
            && self.rights == other.rights
            && self.king_home == other.king_home
            && self.setup_flawed == other.setup_flawed
            && self.ep_square == other.ep_square
            && self.halfmoves == other.halfmoves
            && self.fullmoves == other.fullmoves
    }
}

impl Eq for PhysicalPosition {}

/// Serialised as its FEN ([`PhysicalPosition::fen`]). Reading it back recomputes which colours had
/// a wrongly set-up start from the castling rights still present.
impl serde::Serialize for PhysicalPosition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.fen())
    }
}

impl<'de> serde::Deserialize<'de> for PhysicalPosition {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        PhysicalPosition::from_fen(&text).map_err(serde::de::Error::custom)
    }
}

impl std::str::FromStr for PhysicalPosition {
    type Err = BoardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PhysicalPosition::from_fen(s)
    }
}

impl std::fmt::Display for PhysicalPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.fen())
    }
}

impl Default for PhysicalPosition {
    fn default() -> Self {
        Self::new()
    }
}

/// How a castling attempt is carried out on the board.
#[derive(Clone, Copy, Debug)]
struct CastlePlan {
    kind: CastlingKind,
    king_from: Square,
    king_to: Square,
    rook_from: Square,
    rook_to: Square,
}

/// Everything the generic path works out about a move.
struct Analysis {
    reasons: Vec<IllegalReason>,
    after: Board,
    captured: Option<(Square, Piece)>,
    castling: Option<CastlePlan>,
    role: Role,
    double_step: Option<Square>,
}

fn backrank_bb(c: Color) -> Bitboard {
    Bitboard::from(c.backrank())
}

/// King safety reasons in their fixed order: left in check before put in check.
fn push_king_safety(reasons: &mut Vec<IllegalReason>, left: bool, put: bool) {
    if left {
        reasons.push(IllegalReason::OwnKingLeftInCheck);
    }
    if put {
        reasons.push(IllegalReason::OwnKingPutInCheck);
    }
}

/// King and rook destinations for castling with the king on `king` and the rook on `rook`.
/// King on the d-file: mirror castling (docs/rules.md §6.2 interpretation); otherwise the ordinary
/// destinations (g/f or c/d).
fn castle_targets(king: Square, rook: Square) -> (CastlingKind, Square, Square) {
    let rank = king.rank();
    let at = |f: File| Square::from_coords(f, rank);
    if king.file() == File::D {
        if rook.file() < king.file() {
            (CastlingKind::MirrorQueenSide, at(File::B), at(File::C))
        } else {
            (CastlingKind::MirrorKingSide, at(File::F), at(File::E))
        }
    } else if rook.file() > king.file() {
        (CastlingKind::KingSide, at(File::G), at(File::F))
    } else {
        (CastlingKind::QueenSide, at(File::C), at(File::D))
    }
}

impl PhysicalPosition {
    /// The standard start position.
    pub fn new() -> Self {
        let mut pos = Self {
            board: Board::new(),
            turn: Color::White,
            rights: Bitboard::CORNERS,
            king_home: ByColor {
                white: Some(Square::E1),
                black: Some(Square::E8),
            },
            setup_flawed: ByColor {
                white: false,
                black: false,
            },
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
            chess: None,
            generic_only: false,
        };
        pos.chess = Some(Chess::new());
        pos
    }

    /// Reads a FEN. Any placement is accepted (no kings, three kings, pawns on the last
    /// rank...). Castling in `KQkq` (outermost rook on that side of the king) or Shredder
    /// `HAha` form; a right needs a king of that colour on its back rank and a rook on the
    /// named square. The en passant square must lie behind a pawn that could just have
    /// made a double step. Missing trailing fields default to `w - - 0 1`.
    pub fn from_fen(fen: &str) -> Result<Self, BoardError> {
        let p = fen::parse(fen)?;
        let flawed = |c: Color| {
            p.king_home[c].is_some_and(|k| {
                k.file() != File::E || (p.rights & backrank_bb(c) & !Bitboard::CORNERS).any()
            })
        };
        let mut pos = Self {
            setup_flawed: ByColor {
                white: flawed(Color::White),
                black: flawed(Color::Black),
            },
            board: p.board,
            turn: p.turn,
            rights: p.rights,
            king_home: p.king_home,
            ep_square: p.ep_square,
            halfmoves: p.halfmoves,
            fullmoves: p.fullmoves,
            chess: None,
            generic_only: false,
        };
        pos.rebuild_chess();
        Ok(pos)
    }

    /// FEN of the physical board; [`PhysicalPosition::from_fen`] reads it back to the same
    /// position (the en passant field is written whenever a double step was just made).
    pub fn fen(&self) -> String {
        use std::fmt::Write as _;
        // Written into one string (a move's FEN is made twice a move on a live game).
        let mut out = String::with_capacity(96);
        fen::placement_into(&self.board, &mut out);
        out.push(' ');
        out.push(self.turn.fold_wb('w', 'b'));
        out.push(' ');
        out.push_str(&fen::castling_field(
            &self.board,
            self.rights,
            &self.king_home,
        ));
        out.push(' ');
        match self.ep_square {
            Some(s) => s.append_to_string(&mut out),
            None => out.push('-'),
        }
        let _ = write!(out, " {} {}", self.halfmoves, self.fullmoves);
        out
    }

    /// Side to move (by alternation).
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The pieces on the board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The position as a shakmaty `Setup` (all castling rights, including non-standard
    /// ones, as rook squares; en passant square after a double step).
    pub fn setup(&self) -> Setup {
        Setup {
            board: self.board.clone(),
            promoted: Bitboard::EMPTY,
            pockets: None,
            turn: self.turn,
            castling_rights: self.effective_rights(),
            ep_square: self.ep_square,
            remaining_checks: None,
            halfmoves: self.halfmoves,
            fullmoves: NonZeroU32::new(self.fullmoves).unwrap_or(NonZeroU32::MIN),
        }
    }

    /// The position as shakmaty `Chess` if it is a legal position (no
    /// [`IllegalPositionReason`]). Castling rights are kept only in the standard geometry
    /// (king on e1/e8, rook in the corner); mirror castling is not representable there.
    /// Positions that are well formed but unreachable (too much material, impossible
    /// checks) are accepted: the laws of movement still apply to them.
    pub fn to_chess(&self) -> Option<Chess> {
        match &self.chess {
            Some(c) => Some(c.clone()),
            None if self.generic_only => self.build_chess(),
            None => None,
        }
    }

    fn effective_rights(&self) -> Bitboard {
        let mut r = Bitboard::EMPTY;
        for c in [Color::White, Color::Black] {
            if self.king_home[c].is_some() {
                r |= self.rights & backrank_bb(c);
            }
        }
        r
    }

    fn standard_rights(&self) -> Bitboard {
        let mut r = Bitboard::EMPTY;
        for c in [Color::White, Color::Black] {
            if self.king_home[c] == Some(c.fold_wb(Square::E1, Square::E8)) {
                r |= self.rights & backrank_bb(c) & Bitboard::CORNERS;
            }
        }
        r
    }

    /// A copy that never takes the shakmaty fast path: every classification, move
    /// generation, SAN and status goes through the generic code. Meant for tests that
    /// check the generic path against shakmaty; slower, same results. A test hook: only
    /// with the `test-support` feature.
    #[cfg(feature = "test-support")]
    pub fn generic_only(&self) -> Self {
        let mut p = self.clone();
        p.generic_only = true;
        p.chess = None;
        p
    }

    fn rebuild_chess(&mut self) {
        self.chess = if self.generic_only {
            None
        } else {
            self.build_chess()
        };
    }

    fn build_chess(&self) -> Option<Chess> {
        if !self.illegal_position_reasons().is_empty() {
            return None;
        }
        let mut setup = self.setup();
        setup.castling_rights = self.standard_rights();
        match Chess::from_setup(setup, CastlingMode::Standard) {
            Ok(c) => Some(c),
            Err(e) => e
                .ignore_invalid_ep_square()
                .or_else(PositionError::ignore_impossible_check)
                .or_else(PositionError::ignore_too_much_material)
                .ok(),
        }
    }

    /// Bitboard of the pieces of `!king_of` that attack a king of `king_of` (empty when
    /// that colour has no king).
    pub fn checkers(&self, king_of: Color) -> Bitboard {
        attackers_of_kings(&self.board, king_of)
    }

    /// Whether a king of `king_of` is attacked.
    pub fn is_check(&self, king_of: Color) -> bool {
        self.checkers(king_of).any()
    }

    /// Why the position cannot arise in a legal game; empty if it can (as far as the
    /// arbiter is concerned). Order: missing king, too many kings, pawns on the back
    /// ranks, check of the side not to move (or both kings), adjacent kings.
    pub fn illegal_position_reasons(&self) -> Vec<IllegalPositionReason> {
        let mut out = Vec::new();
        if self.chess.is_some() {
            // The fast-path position exists only for positions without any of these.
            return out;
        }
        for c in [Color::White, Color::Black] {
            let kings = self.board.by_piece(Role::King.of(c));
            if kings.is_empty() {
                out.push(IllegalPositionReason::MissingKing(c));
            } else if kings.more_than_one() {
                out.push(IllegalPositionReason::TooManyKings(c));
            }
        }
        let back = Bitboard::from(Rank::First) | Bitboard::from(Rank::Eighth);
        for sq in self.board.pawns() & back {
            out.push(IllegalPositionReason::PawnOnBackRank(sq));
        }
        let them = self.is_check(!self.turn);
        if them && self.is_check(self.turn) {
            out.push(IllegalPositionReason::BothKingsInCheck);
        } else if them {
            out.push(IllegalPositionReason::SideNotToMoveInCheck);
        }
        let white_kings = self.board.by_piece(Role::King.of(Color::White));
        let black_kings = self.board.by_piece(Role::King.of(Color::Black));
        if white_kings
            .into_iter()
            .any(|k| (attacks::king_attacks(k) & black_kings).any())
        {
            out.push(IllegalPositionReason::KingsAdjacent);
        }
        out
    }

    /// Checkmate / stalemate / ongoing for the side to move (laws checkmate, stalemate),
    /// or the reasons the position is illegal. Castling never decides between stalemate and
    /// play: a castling king crosses an empty, unattacked square next to it, so if castling
    /// is legal, so is the king's step onto that square (also for mirror castling).
    pub fn status(&self) -> Status {
        let reasons = self.illegal_position_reasons();
        if !reasons.is_empty() {
            return Status::IllegalPosition(reasons);
        }
        let (has_move, in_check) = match &self.chess {
            Some(chess) => (has_legal_move(chess), chess.is_check()),
            None => (
                !self.legal_moves(&BoardRules::default()).is_empty(),
                self.is_check(self.turn),
            ),
        };
        match (has_move, in_check) {
            (true, _) => Status::Ongoing,
            (false, true) => Status::Checkmate,
            (false, false) => Status::Stalemate,
        }
    }

    /// The key for repetition (laws 9.2.2): placement, side to move, castling rights, and
    /// the en passant square only if an en passant capture is actually legal.
    pub fn repetition_key(&self) -> RepetitionKey {
        RepetitionKey {
            board: self.board.clone(),
            turn: self.turn,
            castling: self.effective_rights(),
            ep: self.legal_ep_square(),
        }
    }

    fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        if let Some(chess) = &self.chess {
            return chess.legal_ep_square();
        }
        let pawns =
            attacks::pawn_attacks(!self.turn, ep) & self.board.by_piece(Role::Pawn.of(self.turn));
        let rules = BoardRules::default();
        pawns
            .into_iter()
            .any(|from| {
                matches!(
                    self.classify(&PhysicalMove::new(from, ep), self.turn, &rules),
                    Ok(Legality::Legal)
                )
            })
            .then_some(ep)
    }

    /// Half-moves since the last pawn move or capture on the physical board (legal or
    /// not), for the 50-move rule.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmoves
    }

    /// Fullmove number: starts at the FEN's value, grows after each move made by Black.
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The fast path: the move as a legal shakmaty move, if the position is legal, it is
    /// the mover's turn, and the move is legal and not castling.
    fn fast_move(&self, mv: &PhysicalMove, mover: Color) -> Option<FastMove> {
        let chess = self.chess.as_ref()?;
        if mover != self.turn {
            return None;
        }
        let board = chess.board();
        let piece = board.piece_at(mv.from)?;
        if piece.color != mover {
            return None;
        }
        let role = piece.role;
        let m = if role == Role::King {
            // Castling (and anything looking like it) goes the generic way.
            if mv.from.distance(mv.to) > 1 || board.by_color(mover).contains(mv.to) {
                return None;
            }
            Move::Normal {
                role,
                from: mv.from,
                capture: board.role_at(mv.to),
                to: mv.to,
                promotion: None,
            }
        } else if role == Role::Pawn
            && mv.from.file() != mv.to.file()
            && !board.occupied().contains(mv.to)
        {
            if mv.promotion.is_some() {
                return None;
            }
            Move::EnPassant {
                from: mv.from,
                to: mv.to,
            }
        } else {
            if mv.promotion.is_some() && role != Role::Pawn {
                return None;
            }
            Move::Normal {
                role,
                from: mv.from,
                capture: board.role_at(mv.to),
                to: mv.to,
                promotion: mv.promotion,
            }
        };
        // One candidate list serves both the legality test and SAN disambiguation.
        let candidates = chess.san_candidates(role, mv.to);
        if !candidates.contains(&m) {
            return None;
        }
        let san = if role == Role::Pawn {
            San::disambiguate(m, &MoveList::new())
        } else {
            San::disambiguate(m, &candidates)
        };
        Some(FastMove { m, san })
    }

    /// Classifies a move without playing it. `Err` only for moves that cannot physically be
    /// made (see [`MoveError`]).
    pub fn classify(
        &self,
        mv: &PhysicalMove,
        mover: Color,
        rules: &BoardRules,
    ) -> Result<Legality, MoveError> {
        if self.fast_move(mv, mover).is_some() {
            return Ok(Legality::Legal);
        }
        let a = self.analyse(mv, mover, rules)?;
        Ok(if a.reasons.is_empty() {
            Legality::Legal
        } else {
            Legality::Illegal(a.reasons)
        })
    }

    /// Plays a move on the board, legal or not, and classifies it. The turn passes to
    /// `!mover`. `Err` (and nothing changes) only for moves that cannot physically be made.
    pub fn play(
        &mut self,
        mv: &PhysicalMove,
        mover: Color,
        rules: &BoardRules,
    ) -> Result<MoveRecord, MoveError> {
        if let Some(FastMove { m, san }) = self.fast_move(mv, mover)
            && let Some(mut chess) = self.chess.take()
        {
            let captured = m.capture().map(|role| role.of(!mover));
            let captured_sq = match m {
                Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
                _ => captured.map(|_| mv.to),
            };
            let double_step = (m.role() == Role::Pawn && mv.from.distance(mv.to) == 2)
                .then(|| Square::from_coords(mv.from.file(), mover.relative_rank(Rank::Third)));
            let san = play_with_san(&mut chess, m, san);
            self.board = chess.board().clone();
            self.chess = Some(chess);
            self.finish(mv, mover, m.role(), captured_sq, None, double_step);
            return Ok(MoveRecord {
                mv: *mv,
                mover,
                legality: Legality::Legal,
                captured,
                castling: None,
                san: Some(san),
            });
        }
        let mut a = self.analyse(mv, mover, rules)?;
        let legality = if a.reasons.is_empty() {
            Legality::Legal
        } else {
            Legality::Illegal(std::mem::take(&mut a.reasons))
        };
        let san = if legality.is_legal() {
            Some(self.generic_san(mv, &a, rules))
        } else {
            None
        };
        self.board = a.after;
        self.finish(
            mv,
            mover,
            a.role,
            a.captured.map(|(sq, _)| sq),
            a.castling,
            a.double_step,
        );
        self.rebuild_chess();
        Ok(MoveRecord {
            mv: *mv,
            mover,
            legality,
            captured: a.captured.map(|(_, p)| p),
            castling: a.castling.map(|c| c.kind),
            san,
        })
    }

    /// State bookkeeping after the board has been updated.
    fn finish(
        &mut self,
        mv: &PhysicalMove,
        mover: Color,
        role: Role,
        captured_sq: Option<Square>,
        castling: Option<CastlePlan>,
        double_step: Option<Square>,
    ) {
        // Any king move (castling included) ends that colour's castling rights.
        if role == Role::King || castling.is_some() {
            self.rights &= !backrank_bb(mover);
            self.king_home[mover] = None;
        }
        self.rights &= !(Bitboard::from(mv.from) | Bitboard::from(mv.to));
        if let Some(sq) = captured_sq {
            self.rights &= !Bitboard::from(sq);
            if self.king_home[!mover] == Some(sq) {
                self.king_home[!mover] = None;
                self.rights &= !backrank_bb(!mover);
            }
        }
        if let Some(c) = castling {
            self.rights &= !Bitboard::from(c.rook_from);
        }
        for c in [Color::White, Color::Black] {
            if (self.rights & backrank_bb(c)).is_empty() {
                self.king_home[c] = None;
            }
        }
        self.ep_square = double_step;
        if role == Role::Pawn || captured_sq.is_some() {
            self.halfmoves = 0;
        } else {
            self.halfmoves = self.halfmoves.saturating_add(1);
        }
        if mover == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !mover;
    }

    /// The turn passes to the other side with nothing moved: a press of the clock without
    /// a move where the rules count the press as a move (Laws 7.5.3, applied by fide-b3
    /// A.5.2: `moves.press_without_move = illegal_move`). An en passant right, which
    /// belongs to the very next move only, lapses; the fifty-move count goes up by one
    /// (nothing was captured and no pawn moved) and the move number after Black.
    pub fn pass(&mut self) {
        let mover = self.turn;
        self.ep_square = None;
        self.halfmoves = self.halfmoves.saturating_add(1);
        if mover == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !mover;
        self.rebuild_chess();
    }

    /// All moves of the side to move that [`PhysicalPosition::classify`] calls legal. Castling
    /// appears once, as the king's move to its destination (`e1g1`, or `d1b1` for mirror
    /// castling); promotions once per piece (q, r, b, n).
    pub fn legal_moves(&self, rules: &BoardRules) -> Vec<PhysicalMove> {
        let turn = self.turn;
        let mut out = Vec::new();
        if let Some(chess) = &self.chess {
            for m in chess.legal_moves() {
                if m.is_castle() {
                    continue;
                }
                if let Some(from) = m.from() {
                    out.push(PhysicalMove {
                        from,
                        to: m.to(),
                        promotion: m.promotion(),
                    });
                }
            }
            if let Some(king) = self.king_home[turn] {
                for rook in self.rights & backrank_bb(turn) {
                    let (_, king_to, _) = castle_targets(king, rook);
                    let to = if king_to == king { rook } else { king_to };
                    let mv = PhysicalMove::new(king, to);
                    if matches!(self.classify(&mv, turn, rules), Ok(Legality::Legal)) {
                        out.push(mv);
                    }
                }
            }
            return out;
        }
        let own = self.board.by_color(turn);
        for from in own {
            let is_pawn = self.board.role_at(from) == Some(Role::Pawn);
            for to in !own {
                let promos: &[Option<Role>] = if is_pawn && to.rank() == (!turn).backrank() {
                    &[
                        Some(Role::Queen),
                        Some(Role::Rook),
                        Some(Role::Bishop),
                        Some(Role::Knight),
                    ]
                } else {
                    &[None]
                };
                for &promotion in promos {
                    let mv = PhysicalMove {
                        from,
                        to,
                        promotion,
                    };
                    if matches!(self.classify(&mv, turn, rules), Ok(Legality::Legal)) {
                        out.push(mv);
                    }
                }
            }
        }
        out
    }

    /// SAN (with `+`/`#`) of a move that is legal for the side to move; `None` if the move is
    /// illegal or cannot be made. Mirror castling is written `O-O` (short, on the queen
    /// side) and `O-O-O` (long, on the king side).
    pub fn san(&self, mv: &PhysicalMove, rules: &BoardRules) -> Option<String> {
        if let Some(FastMove { m, san }) = self.fast_move(mv, self.turn)
            && let Some(chess) = &self.chess
        {
            return Some(play_with_san(&mut chess.clone(), m, san).to_string());
        }
        let a = self.analyse(mv, self.turn, rules).ok()?;
        if !a.reasons.is_empty() {
            return None;
        }
        Some(self.generic_san(mv, &a, rules).to_string())
    }

    /// SAN for a legal move found by the generic path.
    fn generic_san(&self, mv: &PhysicalMove, a: &Analysis, rules: &BoardRules) -> SanPlus {
        let capture = a.captured.is_some();
        let san = if let Some(c) = a.castling {
            San::Castle(match c.kind {
                CastlingKind::KingSide | CastlingKind::MirrorQueenSide => CastlingSide::KingSide,
                CastlingKind::QueenSide | CastlingKind::MirrorKingSide => CastlingSide::QueenSide,
            })
        } else if a.role == Role::Pawn {
            San::Normal {
                role: Role::Pawn,
                file: capture.then(|| mv.from.file()),
                rank: None,
                capture,
                to: mv.to,
                promotion: mv.promotion,
            }
        } else {
            let (mut file, mut rank) = (None, None);
            if a.role != Role::King {
                let rivals: Vec<Square> = (self.board.by_piece(a.role.of(self.turn))
                    & !Bitboard::from(mv.from))
                .into_iter()
                .filter(|&o| {
                    matches!(
                        self.classify(&PhysicalMove::new(o, mv.to), self.turn, rules),
                        Ok(Legality::Legal)
                    )
                })
                .collect();
                if !rivals.is_empty() {
                    if rivals.iter().all(|o| o.file() != mv.from.file()) {
                        file = Some(mv.from.file());
                    } else if rivals.iter().all(|o| o.rank() != mv.from.rank()) {
                        rank = Some(mv.from.rank());
                    } else {
                        file = Some(mv.from.file());
                        rank = Some(mv.from.rank());
                    }
                }
            }
            San::Normal {
                role: a.role,
                file,
                rank,
                capture,
                to: mv.to,
                promotion: None,
            }
        };
        let mut next = self.clone();
        next.board = a.after.clone();
        next.finish(
            mv,
            self.turn,
            a.role,
            a.captured.map(|(sq, _)| sq),
            a.castling,
            a.double_step,
        );
        next.rebuild_chess();
        let suffix = if next.is_check(next.turn) {
            Some(if next.legal_moves(rules).is_empty() {
                Suffix::Checkmate
            } else {
                Suffix::Check
            })
        } else {
            None
        };
        SanPlus { san, suffix }
    }

    /// Recognises a castling attempt: the king goes onto its own rook on its back rank, or
    /// the king on the d- or e-file steps two squares sideways along its back rank with an
    /// own rook in that corner and the destinations free.
    fn castling_attempt(
        &self,
        mv: &PhysicalMove,
        mover: Color,
    ) -> Result<Option<CastlePlan>, MoveError> {
        let back = mover.backrank();
        if mv.from.rank() != back || mv.to.rank() != back {
            return Ok(None);
        }
        let own_rook = Role::Rook.of(mover);
        let (rook_from, onto_rook) = if self.board.piece_at(mv.to) == Some(own_rook) {
            (mv.to, true)
        } else if mv.from.distance(mv.to) == 2
            && (mv.from.file() == File::D || mv.from.file() == File::E)
        {
            let corner = if mv.to.file() > mv.from.file() {
                File::H
            } else {
                File::A
            };
            let sq = Square::from_coords(corner, back);
            if self.board.piece_at(sq) != Some(own_rook) {
                return Ok(None);
            }
            (sq, false)
        } else {
            return Ok(None);
        };
        let (kind, king_to, rook_to) = castle_targets(mv.from, rook_from);
        let free =
            |sq: Square| sq == mv.from || sq == rook_from || self.board.piece_at(sq).is_none();
        for sq in [king_to, rook_to] {
            if !free(sq) {
                return if onto_rook {
                    Err(MoveError::CastlingSquareOccupied {
                        mv: *mv,
                        square: sq,
                    })
                } else {
                    Ok(None)
                };
            }
        }
        if !onto_rook && king_to != mv.to {
            return Ok(None);
        }
        Ok(Some(CastlePlan {
            kind,
            king_from: mv.from,
            king_to,
            rook_from,
            rook_to,
        }))
    }

    /// Whether the set-up rule lets `mover` castle with this king and rook at all
    /// (docs/rules.md §6), given the rights are intact.
    fn setup_allows(&self, plan: &CastlePlan, mover: Color, rules: &BoardRules) -> bool {
        let rook_in_corner = plan.rook_from.file() == File::A || plan.rook_from.file() == File::H;
        let standard = plan.king_from.file() == File::E && rook_in_corner;
        let mirror = plan.king_from.file() == File::D && rook_in_corner;
        match rules.setup_castling {
            // uscf-classic 3: any set-up error of king or rook, no castling.
            CastlingSetupRule::None => standard && !self.setup_flawed[mover],
            // fide-b3 A.5.1.2: misplaced king, none; misplaced rook, not with that rook.
            CastlingSetupRule::Fide => standard,
            // uscf-2020 3a / blitz-2006 19: K/Q swapped, mirror castling.
            CastlingSetupRule::Mirror => standard || mirror,
        }
    }

    fn analyse_castling(&self, plan: CastlePlan, mover: Color, rules: &BoardRules) -> Analysis {
        let mut reasons = Vec::new();
        if mover != self.turn {
            reasons.push(IllegalReason::WrongTurn);
        }
        let has_right =
            self.king_home[mover] == Some(plan.king_from) && self.rights.contains(plan.rook_from);
        if !has_right || !self.setup_allows(&plan, mover, rules) {
            reasons.push(IllegalReason::CastlingNotAllowed);
        }
        let occupied = self.board.occupied();
        let mut must_be_empty = attacks::between(plan.king_from, plan.rook_from)
            | Bitboard::from(plan.king_to)
            | Bitboard::from(plan.rook_to);
        must_be_empty &= !(Bitboard::from(plan.king_from) | Bitboard::from(plan.rook_from));
        if (must_be_empty & occupied).any() {
            reasons.push(IllegalReason::CastlingBlocked);
        }
        let enemy = !mover;
        if self.board.attacks_to(plan.king_from, enemy, occupied).any() {
            reasons.push(IllegalReason::CastlingOutOfCheck);
        }
        let without = occupied & !Bitboard::from(plan.king_from) & !Bitboard::from(plan.rook_from);
        if attacks::between(plan.king_from, plan.king_to)
            .into_iter()
            .any(|sq| self.board.attacks_to(sq, enemy, without).any())
        {
            reasons.push(IllegalReason::CastlingThroughCheck);
        }
        let mut after = self.board.clone();
        let king = after.remove_piece_at(plan.king_from);
        let rook = after.remove_piece_at(plan.rook_from);
        if let (Some(king), Some(rook)) = (king, rook) {
            after.set_piece_at(plan.king_to, king);
            after.set_piece_at(plan.rook_to, rook);
        }
        let adjacent =
            (attacks::king_attacks(plan.king_to) & after.by_piece(Role::King.of(enemy))).any();
        if after
            .attacks_to(plan.king_to, enemy, after.occupied())
            .any()
        {
            reasons.push(IllegalReason::CastlingIntoCheck);
        }
        if adjacent {
            reasons.push(IllegalReason::KingAdjacentToKing);
        }
        // Other own kings (a board with several) must not be left or put in check.
        let (mut left, mut put) = (false, false);
        for k in after.by_piece(Role::King.of(mover)) {
            if k != plan.king_to && after.attacks_to(k, enemy, after.occupied()).any() {
                if self.board.attacks_to(k, enemy, occupied).any() {
                    left = true;
                } else {
                    put = true;
                }
            }
        }
        push_king_safety(&mut reasons, left, put);
        Analysis {
            reasons,
            after,
            captured: None,
            castling: Some(plan),
            role: Role::King,
            double_step: None,
        }
    }

    /// The generic path: works out the physical result and every reason the move breaks
    /// the laws.
    fn analyse(
        &self,
        mv: &PhysicalMove,
        mover: Color,
        rules: &BoardRules,
    ) -> Result<Analysis, MoveError> {
        if mv.from == mv.to {
            return Err(MoveError::SameSquare { mv: *mv });
        }
        let piece = self
            .board
            .piece_at(mv.from)
            .ok_or(MoveError::NoPiece { mv: *mv })?;
        if piece.color != mover {
            return Err(MoveError::NotYourPiece { mv: *mv, mover });
        }
        if mv.promotion.is_some() && piece.role != Role::Pawn {
            return Err(MoveError::PromotionByNonPawn { mv: *mv });
        }
        if piece.role == Role::King
            && let Some(plan) = self.castling_attempt(mv, mover)?
        {
            return Ok(self.analyse_castling(plan, mover, rules));
        }
        let target = self.board.piece_at(mv.to);
        if target.is_some_and(|p| p.color == mover) {
            return Err(MoveError::OwnPieceOnTarget { mv: *mv, mover });
        }
        let mut reasons = Vec::new();
        if mover != self.turn {
            reasons.push(IllegalReason::WrongTurn);
        }
        let occupied = self.board.occupied();
        let mut captured = target.map(|p| (mv.to, p));
        let mut double_step = None;
        match piece.role {
            Role::Pawn => {
                let forward: i32 = if mover == Color::White { 1 } else { -1 };
                let dr = (mv.to.rank() as i32 - mv.from.rank() as i32) * forward;
                let df = (mv.to.file() as i32 - mv.from.file() as i32).abs();
                let start = mover.relative_rank(Rank::Second);
                if df == 0 && dr == 1 {
                    if target.is_some() {
                        reasons.push(IllegalReason::WrongMovement);
                    }
                } else if df == 0 && dr == 2 && mv.from.rank() == start {
                    let mid = Square::from_coords(mv.from.file(), mover.relative_rank(Rank::Third));
                    if target.is_some() {
                        reasons.push(IllegalReason::WrongMovement);
                    } else if occupied.contains(mid) {
                        reasons.push(IllegalReason::PathBlocked);
                    } else {
                        // En passant becomes possible after a double step over an empty
                        // square, legal or not (the board tracks what happened).
                        double_step = Some(mid);
                    }
                } else if df == 1 && dr == 1 {
                    if target.is_none() {
                        let behind = Square::from_coords(mv.to.file(), mv.from.rank());
                        let ep_rank = mover.relative_rank(Rank::Sixth);
                        if mv.to.rank() == ep_rank
                            && self.board.piece_at(behind) == Some(Role::Pawn.of(!mover))
                        {
                            captured = Some((behind, Role::Pawn.of(!mover)));
                            if self.ep_square != Some(mv.to) {
                                reasons.push(IllegalReason::EnPassantInvalid);
                            }
                        } else {
                            reasons.push(IllegalReason::WrongMovement);
                        }
                    }
                } else {
                    reasons.push(IllegalReason::WrongMovement);
                }
                let last = (!mover).backrank();
                match mv.promotion {
                    None if mv.to.rank() == last => reasons.push(IllegalReason::PawnNotPromoted),
                    Some(_) if mv.to.rank() != last => {
                        reasons.push(IllegalReason::PromotionNotOnLastRank)
                    }
                    _ => {}
                }
                if matches!(mv.promotion, Some(Role::King | Role::Pawn)) {
                    reasons.push(IllegalReason::PromotionToKingOrPawn);
                }
            }
            Role::Knight => {
                if !attacks::knight_attacks(mv.from).contains(mv.to) {
                    reasons.push(IllegalReason::WrongMovement);
                }
            }
            Role::King => {
                if !attacks::king_attacks(mv.from).contains(mv.to) {
                    reasons.push(IllegalReason::WrongMovement);
                }
            }
            Role::Bishop | Role::Rook | Role::Queen => {
                let lines = match piece.role {
                    Role::Bishop => attacks::bishop_attacks(mv.from, Bitboard::EMPTY),
                    Role::Rook => attacks::rook_attacks(mv.from, Bitboard::EMPTY),
                    _ => attacks::queen_attacks(mv.from, Bitboard::EMPTY),
                };
                if !lines.contains(mv.to) {
                    reasons.push(IllegalReason::WrongMovement);
                } else if (attacks::between(mv.from, mv.to) & occupied).any() {
                    reasons.push(IllegalReason::PathBlocked);
                }
            }
        }
        let mut after = self.board.clone();
        after.discard_piece_at(mv.from);
        if let Some((sq, _)) = captured {
            after.discard_piece_at(sq);
        }
        let placed = mv.promotion.unwrap_or(piece.role).of(mover);
        after.set_piece_at(mv.to, placed);
        if placed.role != Role::Pawn {
            // A pawn swapped for a piece on its double step leaves no en passant right.
            double_step = None;
        }

        if captured.is_some_and(|(_, p)| p.role == Role::King) {
            reasons.push(IllegalReason::CapturesKing);
        }
        let enemy = !mover;
        let occ_after = after.occupied();
        if placed.role == Role::King
            && (attacks::king_attacks(mv.to) & after.by_piece(Role::King.of(enemy))).any()
        {
            reasons.push(IllegalReason::KingAdjacentToKing);
        }
        let (mut left, mut put) = (false, false);
        for k in after.by_piece(Role::King.of(mover)) {
            if !after.attacks_to(k, enemy, occ_after).any() {
                continue;
            }
            if k != mv.to && self.board.attacks_to(k, enemy, occupied).any() {
                left = true;
            } else {
                put = true;
            }
        }
        push_king_safety(&mut reasons, left, put);
        Ok(Analysis {
            reasons,
            after,
            captured,
            castling: None,
            role: piece.role,
            double_step,
        })
    }
}

/// A legal move found by the fast path, with its SAN (without suffix).
struct FastMove {
    m: Move,
    san: San,
}

/// Plays the move and returns its SAN with suffix. (shakmaty's `SanPlus` asks for the full
/// game outcome after every move, a complete move generation; checkmate needs looking at
/// only after a check, which keeps the common case cheap.)
fn play_with_san(chess: &mut Chess, m: Move, san: San) -> SanPlus {
    chess.play_unchecked(m);
    let suffix = if chess.is_check() {
        Some(if !has_legal_move(chess) {
            Suffix::Checkmate
        } else {
            Suffix::Check
        })
    } else {
        None
    };
    SanPlus { san, suffix }
}

/// Whether the side to move has a legal move. Usually the king has a safe square to step
/// to, which is much cheaper to see than generating every move.
fn has_legal_move(chess: &Chess) -> bool {
    let board = chess.board();
    let us = chess.turn();
    if let Some(king) = board.king_of(us) {
        let without_king = board.occupied() & !Bitboard::from(king);
        let steps = attacks::king_attacks(king) & !board.by_color(us);
        if steps
            .into_iter()
            .any(|sq| board.attacks_to(sq, !us, without_king).is_empty())
        {
            return true;
        }
    }
    !chess.legal_moves().is_empty()
}

fn attackers_of_kings(board: &Board, king_of: Color) -> Bitboard {
    let occ = board.occupied();
    let mut out = Bitboard::EMPTY;
    for k in board.by_piece(Role::King.of(king_of)) {
        out |= board.attacks_to(k, !king_of, occ);
    }
    out
}
