//! Piece-count definitions of mating material.

use shakmaty::{Bitboard, Board, Color};

/// US Chess mating material (uscf-2020 7c, uscf-classic 2, club-ilc 3, blitz-2006 7b):
/// at least two minor pieces, a pawn, a rook or a queen.
///
/// **Interpretation** (docs/rules.md §3.3): two knights against a lone king (no pawns, no other
/// pieces) are not mating material in any US Chess-based ruleset.
pub fn us_chess_has_mating_material(board: &Board, color: Color) -> bool {
    let ours = board.by_color(color);
    if (ours & (board.pawns() | board.rooks() | board.queens())).any() {
        return true;
    }
    let knights = (ours & board.knights()).count();
    let bishops = (ours & board.bishops()).count();
    if knights + bishops < 2 {
        return false;
    }
    if bishops == 0 && knights == 2 {
        // K+N+N v lone K is not mating material.
        let theirs = board.by_color(!color);
        return theirs != (theirs & board.kings());
    }
    true
}

/// Why a side's material alone rules out any mate (see [`fide_material_verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaterialVerdict {
    /// The side has only its king: a king never gives check.
    BareKing,
    /// A lone knight against a king with nothing but queens (possibly none).
    LoneKnight,
    /// Bishops of one square colour against rooks, queens and bishops of that colour.
    SameColouredBishops,
}

/// Material that can never mate, whatever the placement and whatever the opponent does.
/// Sound for any placement of the pieces (it looks only at the material and the bishops'
/// square colours). Our own proofs (Art. 5.2.2 dead positions, fide-b3 A.5.3):
///
/// - **Bare king**: a king never gives check.
/// - **Lone knight v king and queens** (no pawns, nothing else): say the knight on `k+(a,b)`
///   checks the king on `k` (|a|,|b| = 1,2 in some order). The orthogonal neighbours
///   `k+(sgn a,0)` and `k+(0,sgn b)` are on the board and not guarded by the knight; a queen
///   on either attacks the knight (directly, or through the other neighbour on that line,
///   which could only hold another queen, which then attacks it), and with no enemy slider
///   nothing is pinned and the check is single, so the queen takes the knight. Without
///   queens there, the winner's king would have to guard both squares, and the only squares
///   next to both are `k` and a square next to `k`, where it cannot stand. So the king
///   escapes: never mate.
/// - **Same-coloured bishops v rooks, queens and bishops of that colour** (no pawns, no
///   knights): a bishop check on `k` comes from direction `d`, through `s = k+d`. The two
///   orthogonal neighbours `k+(dx,0)`, `k+(0,dy)` are on the board and of the other colour,
///   so only the winner's king can guard them, and it cannot guard both (same argument as
///   above). So one of them is free or holds one of the loser's rooks or queens (the
///   loser's bishops cannot stand there); that piece reaches `s` in one orthogonal step
///   and takes the bishop or blocks the check. It is not pinned (the winner has no rook or
///   queen), and the check is single: a discovered double check by two bishops is
///   impossible, because a bishop leaving one diagonal of `k` moves parallel to the other.
///   So the check is always parried or escaped: never mate. This contains K+B v K and
///   K+B v K+B with same-coloured bishops.
pub fn fide_material_verdict(board: &Board, winner: Color) -> Option<MaterialVerdict> {
    let ours = board.by_color(winner);
    let theirs = board.by_color(!winner);
    let our_non_king = ours & !board.kings();
    if our_non_king.is_empty() {
        return Some(MaterialVerdict::BareKing);
    }
    let their_non_king = theirs & !board.kings();
    if board.pawns().is_empty()
        && our_non_king.count() == 1
        && (our_non_king & board.knights()).any()
        && their_non_king.is_subset(board.queens())
    {
        return Some(MaterialVerdict::LoneKnight);
    }
    if board.pawns().is_empty()
        && board.knights().is_empty()
        && our_non_king.is_subset(board.bishops())
        && let Some(colour) = one_colour(our_non_king)
        && (their_non_king & board.bishops()).is_subset(colour)
    {
        return Some(MaterialVerdict::SameColouredBishops);
    }
    None
}

/// The squares of one colour (`Bitboard::DARK_SQUARES` or `Bitboard::LIGHT_SQUARES`) that
/// hold every square of `set`, e.g. the colour of bishops that all stand on one colour;
/// `None` when `set` has squares of both colours or is empty.
pub(crate) fn one_colour(set: Bitboard) -> Option<Bitboard> {
    if set.is_empty() {
        None
    } else if set.is_subset(Bitboard::DARK_SQUARES) {
        Some(Bitboard::DARK_SQUARES)
    } else if set.is_subset(Bitboard::LIGHT_SQUARES) {
        Some(Bitboard::LIGHT_SQUARES)
    } else {
        None
    }
}

/// Boolean form of [`fide_material_verdict`].
pub fn fide_material_cannot_mate(board: &Board, winner: Color) -> bool {
    fide_material_verdict(board, winner).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().expect("valid FEN").into_setup().board
    }

    #[test]
    fn two_knights_against_lone_king_is_not_us_mating_material() {
        // docs/rules.md §3.3 interpretation (blitz-2006 7b).
        let b = board("7k/8/8/8/8/8/8/KNN5 w - - 0 1");
        assert!(!us_chess_has_mating_material(&b, Color::White));
        // ...but it is once the defender has anything besides the king.
        let b = board("7k/7p/8/8/8/8/8/KNN5 w - - 0 1");
        assert!(us_chess_has_mating_material(&b, Color::White));
    }

    #[test]
    fn us_chess_counts() {
        assert!(!us_chess_has_mating_material(
            &board("7k/8/8/8/8/8/8/KB6 w - - 0 1"),
            Color::White
        ));
        assert!(!us_chess_has_mating_material(
            &board("7k/8/8/8/8/8/8/KN6 w - - 0 1"),
            Color::White
        ));
        assert!(us_chess_has_mating_material(
            &board("7k/8/8/8/8/8/8/KBN5 w - - 0 1"),
            Color::White
        ));
        assert!(us_chess_has_mating_material(
            &board("7k/8/8/8/8/8/8/KBB5 w - - 0 1"),
            Color::White
        ));
        assert!(us_chess_has_mating_material(
            &board("7k/8/8/8/8/8/P7/K7 w - - 0 1"),
            Color::White
        ));
        assert!(us_chess_has_mating_material(
            &board("7k/8/8/8/8/8/8/KR6 w - - 0 1"),
            Color::White
        ));
        assert!(!us_chess_has_mating_material(
            &board("7k/8/8/8/8/8/8/K7 w - - 0 1"),
            Color::White
        ));
    }

    #[test]
    fn fide_material_rules() {
        use MaterialVerdict::*;
        let v = |fen: &str, c| fide_material_verdict(&board(fen), c);
        assert_eq!(
            v("7k/8/8/8/8/8/8/KQ6 w - - 0 1", Color::Black),
            Some(BareKing)
        );
        assert_eq!(
            v("7k/8/8/8/8/8/8/KN6 w - - 0 1", Color::White),
            Some(LoneKnight)
        );
        assert_eq!(
            v("7k/8/8/8/8/8/8/KB6 w - - 0 1", Color::White),
            Some(SameColouredBishops)
        );
        // Same-coloured bishops on both sides (b1 and g8 are both light squares).
        assert_eq!(
            v("6bk/8/8/8/8/8/8/KB6 w - - 0 1", Color::White),
            Some(SameColouredBishops)
        );
        // Opposite-coloured bishops: a helpmate exists.
        assert_eq!(v("5b1k/8/8/8/8/8/8/KB6 w - - 0 1", Color::White), None);
        // K+N v K+N: a helpmate exists.
        assert_eq!(v("6nk/8/8/8/8/8/8/KN6 w - - 0 1", Color::White), None);
        // K+N v K+Q and K+B v K+R (chasolver agrees: unwinnable).
        assert_eq!(
            v("q7/8/8/8/8/3K1N2/k7/8 w - - 0 1", Color::White),
            Some(LoneKnight)
        );
        assert_eq!(
            v("5r1k/8/8/3K4/1B6/8/8/8 w - - 0 1", Color::White),
            Some(SameColouredBishops)
        );
        assert_eq!(
            v("8/3r4/8/5B2/7k/2K5/2B5/8 w - - 0 1", Color::White),
            Some(SameColouredBishops)
        );
        // ...but not K+N v K+R, nor K+B v K+R+N, nor K+B v K+R+opposite bishop.
        assert_eq!(v("r7/8/8/8/8/3K1N2/k7/8 w - - 0 1", Color::White), None);
        assert_eq!(v("5rnk/8/8/3K4/1B6/8/8/8 w - - 0 1", Color::White), None);
        assert_eq!(v("4br1k/8/8/3K4/1B6/8/8/8 w - - 0 1", Color::White), None);
        // K+B v K+P: a helpmate exists (fide-b3 A.5.3 example in docs/rules.md §3.5).
        assert_eq!(v("7k/7p/8/8/8/8/8/KB6 w - - 0 1", Color::White), None);
    }
}
