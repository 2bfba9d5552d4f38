//! Piece-count definitions of mating material.

use shakmaty::{Board, Color, Role};

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

/// Material so thin that no series of legal moves can mate, whatever the opponent has:
/// a bare king, or a king with one knight or one bishop when the opponent has nothing
/// that could block its own king in (only the king, or only the king and bishops on the
/// same colour as ours for the bishop case). Never true when a helpmate could exist.
pub fn fide_material_cannot_mate(board: &Board, winner: Color) -> bool {
    let ours = board.by_color(winner);
    let theirs = board.by_color(!winner);
    let our_non_king = ours & !board.kings();
    if our_non_king.is_empty() {
        return true;
    }
    let their_non_king = theirs & !board.kings();
    if our_non_king.count() == 1 {
        let role = board.role_at(our_non_king.first().expect("one piece")).expect("occupied");
        if their_non_king.is_empty() && matches!(role, Role::Knight | Role::Bishop) {
            return true;
        }
    }
    false
}
