//! A typed move in SAN (`{"san": "Nf3"}`, docs/protocol.md): read against the game's
//! position by the server, so a page holds no chess rules. SAN names a legal move only;
//! over the board any move, legal or not, is still made on the board or typed in squares
//! (`e2e4`), as the physical rules ask.

use flagfall_core::board::PhysicalMove;
use flagfall_game::Game;
use shakmaty::Color;

use crate::legal_san;

/// The longest SAN text read (`Qa1xh8+!?` and some spaces).
pub const MAX_SAN_CHARS: usize = 16;

/// The text of a SAN without what does not tell moves apart: check and comment marks,
/// `x`, `=`, `-`, zeros written for O, the promotion letter's case.
fn key(san: &str) -> String {
    let t = san.trim();
    let t = t.strip_suffix("e.p.").unwrap_or(t).trim_end();
    let t = t.trim_end_matches(['+', '#', '!', '?']);
    let mut out: Vec<char> = t
        .chars()
        .filter(|c| !matches!(c, 'x' | ':' | '=' | '-' | ' '))
        .map(|c| if c == '0' || c == 'o' { 'O' } else { c })
        .collect();
    // `e8q`: the promotion piece in either case.
    let n = out.len();
    if n >= 2 && out[n - 2].is_ascii_digit() && matches!(out[n - 1], 'q' | 'r' | 'b' | 'n') {
        out[n - 1] = out[n - 1].to_ascii_uppercase();
    }
    out.into_iter().collect()
}

fn colour_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The move `text` (SAN) names for `mover` in `game` now, or why it names none, in words
/// a player reads.
pub fn resolve_san(game: &Game, mover: Color, text: &str) -> Result<PhysicalMove, String> {
    let typed = text.trim();
    if typed.is_empty() {
        return Err("no move typed: type one like Nf3, O-O or e2e4".into());
    }
    if typed.chars().count() > MAX_SAN_CHARS {
        return Err(format!(
            "\"{}…\" is too long for a move: type one like Nf3, O-O or e2e4",
            typed.chars().take(MAX_SAN_CHARS).collect::<String>()
        ));
    }
    no_move_now(game, mover, typed)?;
    let want = key(typed);
    let legal = legal_san(game);
    let mut found: Vec<(&String, &String)> = legal.iter().filter(|(_, s)| key(s) == want).collect();
    if found.is_empty() {
        // A piece move with more or less of its square of departure than SAN writes
        // (`Nd2` with two knights there, `Ng1f3`): the moves of that piece to that square
        // whose square of departure has what was typed.
        found = legal
            .iter()
            .filter(|(uci, s)| loosely(&want, uci, &key(s)))
            .collect();
    }
    match found.as_slice() {
        [(uci, _)] => uci
            .parse::<PhysicalMove>()
            .map_err(|e| format!("\"{typed}\": {e}")),
        [] => Err(not_legal(legal.values(), &want, mover, typed)),
        many => Err(format!(
            "\"{typed}\" fits {} moves ({}): name the piece's file or rank",
            many.len(),
            many.iter()
                .map(|(_, s)| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Why no move can be typed by `mover` now (the game over or halted, a move on the
/// board, not `mover`'s turn), if so.
fn no_move_now(game: &Game, mover: Color, typed: &str) -> Result<(), String> {
    if game.is_over() {
        return Err("the game is over: no move can be made".into());
    }
    if game.halted() {
        return Err("the clock is stopped for the director: no move now".into());
    }
    if let Some((by, _)) = game.board_move() {
        return Err(if by == mover {
            "your move is already on the board: press your clock, or take it back first".into()
        } else {
            format!(
                "{}'s move is on the board, not yet completed by a press",
                colour_name(by)
            )
        });
    }
    let turn = game.position().turn();
    if turn != mover {
        return Err(format!(
            "\"{typed}\": it is {}'s move, not yours (a move out of turn is typed in squares, e.g. {})",
            colour_name(turn),
            match mover {
                Color::White => "e2e4",
                Color::Black => "e7e5",
            }
        ));
    }
    Ok(())
}

/// Why `typed` (its key `want`) names none of the `legal` SANs: a promotion without its
/// piece, or no legal move.
fn not_legal<'a>(
    legal: impl Iterator<Item = &'a String>,
    want: &str,
    mover: Color,
    typed: &str,
) -> String {
    // A pawn reaching the last rank with no piece named: one legal move a piece.
    let promotion = legal.filter(|s| s.contains('=')).find(|s| {
        let k = key(s);
        k[..k.len() - 1] == *want
    });
    if let Some(first) = promotion {
        let q = first.trim_end_matches(['+', '#']);
        return format!("\"{typed}\" promotes a pawn: name the piece, e.g. {q}");
    }
    format!(
        "\"{typed}\" is not a legal move for {} here: check the move, or type the squares it goes from and to (e.g. {})",
        colour_name(mover),
        match mover {
            Color::White => "g1f3",
            Color::Black => "g8f6",
        }
    )
}

/// Whether `want` (a typed piece move's key: `Nd2`, `Ng1f3`) names the legal move `uci`
/// whose SAN's key is `san`: the same piece to the same square, from a square that has
/// every file and rank typed between them.
fn loosely(want: &str, uci: &str, san: &str) -> bool {
    let piece = |k: &str| k.chars().next().filter(|c| "KQRBN".contains(*c));
    let (Some(p), Some(q)) = (piece(want), piece(san)) else {
        return false;
    };
    if p != q || want.len() < 3 || san.len() < 3 || !want.is_ascii() || !san.is_ascii() {
        return false;
    }
    let dest = |k: &str| k[k.len() - 2..].to_string();
    if dest(want) != dest(san) {
        return false;
    }
    let typed_from = &want[1..want.len() - 2];
    let from = uci.get(..2).unwrap_or("");
    typed_from.chars().all(|c| from.contains(c))
}

#[cfg(test)]
mod tests {
    use super::key;

    #[test]
    fn keys_ignore_what_players_write_differently() {
        assert_eq!(key("exd5"), key("ed5"));
        assert_eq!(key("O-O"), key("0-0"));
        assert_eq!(key("o-o-o"), key("O-O-O"));
        assert_ne!(key("O-O"), key("O-O-O"));
        assert_eq!(key("e8=Q+"), key("e8q"));
        assert_eq!(key("Nf3!?"), key("Nf3"));
        assert_ne!(key("Nbd2"), key("Nd2"));
        assert_eq!(key("exd6 e.p."), key("exd6"));
    }

    #[test]
    fn a_piece_move_is_read_with_more_or_less_of_its_square() {
        use super::loosely;
        assert!(loosely("Nd2", "b1d2", "Nbd2"));
        assert!(loosely("Nd2", "f3d2", "Nfd2"));
        assert!(loosely("Ng1f3", "g1f3", "Nf3"));
        assert!(!loosely("Nbd2", "f3d2", "Nfd2"));
        assert!(!loosely("Bd2", "b1d2", "Nbd2"));
        assert!(!loosely("d2", "d3d2", "d2"));
    }
}
