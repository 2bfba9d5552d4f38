//! Piece-count definitions of mating material.

use shakmaty::{Bitboard, Board, Color};

/// US Chess mating material (uscf-2020 7c, uscf-classic 2, club-ilc 3, blitz-2006 7b):
/// at least two minor pieces, a pawn, a rook or a queen.
///
/// **Interpretation** (RULES.md §3): two knights against a lone king (no pawns, no other
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

/// Why a side's material alone rules out any mate (see [`fide_material_cannot_mate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaterialVerdict {
    /// The side has only its king: a king never gives check.
    BareKing,
    /// A lone knight against a lone king (the knight is the only piece on the board
    /// besides the kings), a dead position under FIDE Art. 5.2.2 / 9.6.2.
    LoneKnight,
    /// Every piece besides the kings is a bishop, all on squares of one colour: a bishop
    /// checks only from and onto that colour, and the king always keeps a flight square
    /// of the other colour that no bishop can guard or block (the standard dead-position
    /// case of Art. 5.2.2, e.g. K+B v K+B with same-coloured bishops).
    SameColouredBishops,
}

/// Material so thin that no series of legal moves lets `winner` mate, whatever the
/// opponent does. Sound for any placement of the pieces, legal or not: it looks only at
/// the material, never at the squares (except the bishops' colour).
///
/// Deliberately narrow: K+N v K+anything-else, K+B v K+N, K+B v K+P and the like are
/// *not* covered here because a helpmate may exist (the opponent's own pieces can box its
/// king in); those go to the search.
pub fn fide_material_verdict(board: &Board, winner: Color) -> Option<MaterialVerdict> {
    let ours = board.by_color(winner);
    let our_non_king = ours & !board.kings();
    if our_non_king.is_empty() {
        return Some(MaterialVerdict::BareKing);
    }
    let non_kings = board.occupied() & !board.kings();
    if non_kings == our_non_king && non_kings.count() == 1 && (non_kings & board.knights()).any() {
        return Some(MaterialVerdict::LoneKnight);
    }
    if non_kings == non_kings & board.bishops()
        && (non_kings.is_subset(Bitboard::DARK_SQUARES)
            || non_kings.is_subset(Bitboard::LIGHT_SQUARES))
    {
        return Some(MaterialVerdict::SameColouredBishops);
    }
    None
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
        // RULES.md section 3 interpretation (blitz-2006 7b).
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
        // K+B v K+P: a helpmate exists (fide-b3 A.5.3 example in RULES.md section 3).
        assert_eq!(v("7k/7p/8/8/8/8/8/KB6 w - - 0 1", Color::White), None);
    }
}
