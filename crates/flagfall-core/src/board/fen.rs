//! Reading and writing FEN for the physical board: any placement is accepted; the other
//! fields must be consistent with it, and every error names its field.

use shakmaty::{Bitboard, Board, ByColor, Color, File, Piece, Rank, Role, Square};

use super::types::BoardError;
use crate::colour;

/// The fields of a FEN, parsed.
pub(crate) struct ParsedFen {
    pub board: Board,
    pub turn: Color,
    pub rights: Bitboard,
    pub king_home: ByColor<Option<Square>>,
    pub ep_square: Option<Square>,
    pub halfmoves: u32,
    pub fullmoves: u32,
}

fn parse_placement(field: &str) -> Result<Board, BoardError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(BoardError::RankCount(ranks.len()));
    }
    let mut board = Board::empty();
    for (i, text) in ranks.iter().enumerate() {
        let rank_no = 8 - i as u8;
        let rank = Rank::new(u32::from(rank_no - 1));
        let err = |problem: String| BoardError::Placement {
            rank: rank_no,
            problem,
        };
        let mut file = 0u32;
        for ch in text.chars() {
            if let Some(d) = ch.to_digit(10) {
                if !(1..=8).contains(&d) {
                    return Err(err(format!(
                        "{ch:?} is not a count of 1 to 8 empty squares"
                    )));
                }
                file += d;
                if file > 8 {
                    return Err(err(format!("{text:?} describes more than 8 squares")));
                }
            } else if let Some(piece) = Piece::from_char(ch) {
                if file >= 8 {
                    return Err(err(format!("{text:?} describes more than 8 squares")));
                }
                board.set_piece_at(Square::from_coords(File::new(file), rank), piece);
                file += 1;
            } else {
                return Err(err(format!(
                    "unexpected character {ch:?} (expected a piece letter PNBRQK/pnbrqk or a digit 1-8)"
                )));
            }
        }
        if file != 8 {
            return Err(err(format!(
                "{text:?} describes {file} squares, expected 8"
            )));
        }
    }
    Ok(board)
}

/// The single king of `color` on its back rank, for a castling right.
fn home_king(board: &Board, color: Color, letter: char) -> Result<Square, BoardError> {
    let kings = board.by_piece(Role::King.of(color)) & Bitboard::from(color.backrank());
    match kings.count() {
        1 => kings
            .first()
            .ok_or_else(|| BoardError::Castling("internal: king bitboard empty".into())),
        0 => Err(BoardError::Castling(format!(
            "{letter:?} gives {} a castling right but there is no {} king on rank {}",
            colour::name(color),
            colour::key(color),
            color.fold_wb(1, 8)
        ))),
        _ => Err(BoardError::Castling(format!(
            "{letter:?}: {} has more than one king on rank {}",
            colour::name(color),
            color.fold_wb(1, 8)
        ))),
    }
}

fn parse_castling(
    field: &str,
    board: &Board,
) -> Result<(Bitboard, ByColor<Option<Square>>), BoardError> {
    let mut rights = Bitboard::EMPTY;
    let mut king_home: ByColor<Option<Square>> = ByColor::new_with(|_| None);
    if field == "-" {
        return Ok((rights, king_home));
    }
    for letter in field.chars() {
        let color = if letter.is_ascii_uppercase() {
            Color::White
        } else if letter.is_ascii_lowercase() {
            Color::Black
        } else {
            return Err(BoardError::Castling(format!(
                "unexpected character {letter:?} (expected KQkq, a file letter A-H/a-h, or '-')"
            )));
        };
        let back = Bitboard::from(color.backrank());
        let rooks = board.by_piece(Role::Rook.of(color)) & back;
        let king = home_king(board, color, letter)?;
        let lower = letter.to_ascii_lowercase();
        let rook = match lower {
            'k' => rooks.into_iter().rfind(|sq| sq.file() > king.file()),
            'q' => rooks.into_iter().find(|sq| sq.file() < king.file()),
            'a'..='h' => {
                let file = File::from_char(lower).ok_or_else(|| {
                    BoardError::Castling(format!("{letter:?} is not a file letter"))
                })?;
                let sq = Square::from_coords(file, color.backrank());
                rooks.contains(sq).then_some(sq)
            }
            _ => {
                return Err(BoardError::Castling(format!(
                    "unexpected character {letter:?} (expected KQkq, a file letter A-H/a-h, or '-')"
                )));
            }
        };
        let Some(rook) = rook else {
            return Err(BoardError::Castling(format!(
                "{letter:?}: no {} rook on rank {} for that castling right (king on {king})",
                colour::key(color),
                color.fold_wb(1, 8)
            )));
        };
        if rights.contains(rook) {
            return Err(BoardError::Castling(format!(
                "{letter:?}: the right for the rook on {rook} is given twice"
            )));
        }
        rights.add(rook);
        king_home[color] = Some(king);
    }
    Ok((rights, king_home))
}

fn parse_ep(field: &str, board: &Board, turn: Color) -> Result<Option<Square>, BoardError> {
    if field == "-" {
        return Ok(None);
    }
    let sq = Square::from_ascii(field.as_bytes())
        .map_err(|_| BoardError::EnPassant(format!("{field:?} is not a square or '-'")))?;
    let (rank, pusher) = (turn.fold_wb(Rank::Sixth, Rank::Third), !turn);
    if sq.rank() != rank {
        return Err(BoardError::EnPassant(format!(
            "{sq} is not on rank {} ({} to move)",
            turn.fold_wb(6, 3),
            colour::name(turn)
        )));
    }
    let pawn_sq = Square::from_coords(sq.file(), turn.fold_wb(Rank::Fifth, Rank::Fourth));
    if board.piece_at(pawn_sq) != Some(Role::Pawn.of(pusher)) {
        return Err(BoardError::EnPassant(format!(
            "{sq} but no {} pawn on {pawn_sq} that could just have made a double step",
            colour::key(pusher)
        )));
    }
    if board.occupied().contains(sq) {
        return Err(BoardError::EnPassant(format!("{sq} is occupied")));
    }
    Ok(Some(sq))
}

pub(crate) fn parse(fen: &str) -> Result<ParsedFen, BoardError> {
    let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
    if fields.is_empty() {
        return Err(BoardError::Empty);
    }
    if fields.len() > 6 {
        return Err(BoardError::TooManyFields(fields.len()));
    }
    let board = parse_placement(fields[0])?;
    let turn = match fields.get(1).copied() {
        None | Some("w") => Color::White,
        Some("b") => Color::Black,
        Some(other) => return Err(BoardError::Turn(other.chars().take(24).collect())),
    };
    let (rights, king_home) = parse_castling(fields.get(2).copied().unwrap_or("-"), &board)?;
    let ep_square = parse_ep(fields.get(3).copied().unwrap_or("-"), &board, turn)?;
    let halfmoves = match fields.get(4) {
        None => 0,
        Some(t) => t
            .parse::<u32>()
            .map_err(|_| BoardError::Halfmoves(t.chars().take(24).collect()))?,
    };
    let fullmoves = match fields.get(5) {
        None => 1,
        // A fullmove number of 0 is common in the wild; read it as 1.
        Some(t) => t
            .parse::<u32>()
            .map_err(|_| BoardError::Fullmoves(t.chars().take(24).collect()))?
            .max(1),
    };
    Ok(ParsedFen {
        board,
        turn,
        rights,
        king_home,
        ep_square,
        halfmoves,
        fullmoves,
    })
}

/// The placement field.
pub(crate) fn placement_into(board: &Board, out: &mut String) {
    // shakmaty writes the placement from the occupied squares only (no promoted pieces:
    // a physical board has none).
    board.board_fen().append_to_string(out);
}

/// The castling field: `K`/`Q` when the rook is the outermost one on that side of the king,
/// otherwise the Shredder file letter.
pub(crate) fn castling_field(
    board: &Board,
    rights: Bitboard,
    king_home: &ByColor<Option<Square>>,
) -> String {
    let mut out = String::new();
    for color in [Color::White, Color::Black] {
        let Some(king) = king_home[color] else {
            continue;
        };
        let back = Bitboard::from(color.backrank());
        let rooks = board.by_piece(Role::Rook.of(color)) & back;
        let mine = rights & back;
        let outer_h = rooks.into_iter().rfind(|s| s.file() > king.file());
        let outer_a = rooks.into_iter().find(|s| s.file() < king.file());
        // King side first, as in KQkq.
        for sq in mine.into_iter().rev() {
            let letter = if Some(sq) == outer_h {
                'k'
            } else if Some(sq) == outer_a {
                'q'
            } else {
                sq.file().char()
            };
            out.push(if color == Color::White {
                letter.to_ascii_uppercase()
            } else {
                letter
            });
        }
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}
