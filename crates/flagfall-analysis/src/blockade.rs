//! Semi-static blockade analysis: a sound proof that a side can never checkmate.
//!
//! The idea follows the helpmate-unwinnability literature (Ambrona's "Chess Unwinnability
//! Analyzer"): over-approximate, for every piece on the board, the set of squares it could
//! ever stand on; under-approximate the pieces that can never move nor be captured
//! ("steady") and the squares that stay attacked for the rest of the game; iterate to a
//! fixpoint. Then ask whether any square of the loser's king region could host a mate.
//! The implementation here is our own:
//!
//! - **Fixpoint.** Start from the most restrictive assumption (every piece steady, nothing
//!   capturable, every piece only on its own square) and relax monotonically. The result is
//!   sound by induction on the moves of any legal continuation: as long as the facts hold,
//!   every legal move stays inside the computed sets, so the first move that broke a fact
//!   would already have been added by the fixpoint (see [`Blockade::saturate`]).
//! - **Pawns.** A pawn may capture diagonally only onto squares some enemy non-king piece
//!   could occupy (or the current en passant square). A pawn that could reach its last rank
//!   may become anything: it then reaches every square not held by a steady friendly piece
//!   or a steady king, and attacks everything.
//! - **Kings.** A king never steps onto a square that stays attacked by an enemy piece that
//!   can never be captured (attacks are intersected over all squares that piece could occupy,
//!   with every possibly-occupied square treated as a blocker).
//! - **Mate test (improvement over counting).** A mate of the loser's king on square `k`
//!   needs a checking square `k`, a square `w` for the winner's king at distance at least 2,
//!   and every flight square that neither the winner's pieces nor that king can cover must be
//!   occupied by a *distinct* loser piece able to reach it. We decide the last condition
//!   exactly with a bipartite matching instead of a piece count, which rules out mating nets
//!   that need two blockers from one piece.
//!
//! Castling needs no special case: the king's step moves through the square it crosses
//! (which castling requires empty and unattacked) already cover it, and the rook's slide
//! covers the rook.

use flagfall_core::colour;
use shakmaty::{Bitboard, Board, Color, Role, Square, attacks};

/// One piece of the analysed position, identified by its square at the root.
#[derive(Debug, Clone, Copy)]
struct Piece {
    origin: Square,
    color: Color,
    role: Role,
}

/// Fixpoint state of the analysis. Indices into the arrays are origin squares.
pub(crate) struct Blockade {
    pieces: Vec<Piece>,
    /// Over-approximation of the squares each piece may ever occupy.
    reach: [Bitboard; 64],
    /// Over-approximation of the squares a piece may capture on (pawns: diagonals only).
    capture_squares: [Bitboard; 64],
    /// Under-approximation: origins of pieces that never move nor get captured.
    steady: Bitboard,
    /// Over-approximation: origins of pieces that may be captured.
    capturable: Bitboard,
    /// Over-approximation: origins of pawns that may promote.
    promotable: Bitboard,
    /// Under-approximation of squares attacked for the rest of the game, by colour.
    permanent: [Bitboard; 2],
    /// Squares some piece of the given colour's opponent may capture on for pawns of that
    /// colour: the en passant square of the root, if any.
    ep_target: [Bitboard; 2],
}

fn slider_or_stepper(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen => attacks::queen_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// Squares attacked by `role` of `color` standing on `sq`.
fn attack_set(role: Role, color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => attacks::pawn_attacks(color, sq),
        _ => slider_or_stepper(role, sq, occupied),
    }
}

impl Blockade {
    /// Sets up the analysis for `board`; `ep_square` is the root's en passant target
    /// square (the side to move may capture there), `turn` the side to move.
    pub(crate) fn new(board: &Board, ep_square: Option<Square>, turn: Color) -> Blockade {
        let mut pieces = Vec::with_capacity(32);
        let mut reach = [Bitboard::EMPTY; 64];
        for (sq, piece) in board.iter() {
            pieces.push(Piece {
                origin: sq,
                color: piece.color,
                role: piece.role,
            });
            reach[sq.to_usize()] = Bitboard::from_square(sq);
        }
        let mut capturable = Bitboard::EMPTY;
        let mut ep_target = [Bitboard::EMPTY; 2];
        if let Some(ep) = ep_square {
            // The pawn that just double-pushed stands one step beyond the ep square.
            let pushed = if turn.is_white() {
                ep.offset(-8)
            } else {
                ep.offset(8)
            };
            if let Some(pushed) = pushed {
                capturable.add(pushed);
            }
            ep_target[colour::index(turn)] = Bitboard::from_square(ep);
        }
        Blockade {
            pieces,
            reach,
            capture_squares: [Bitboard::EMPTY; 64],
            steady: board.occupied() & !capturable,
            capturable,
            promotable: Bitboard::EMPTY,
            permanent: [Bitboard::EMPTY; 2],
            ep_target,
        }
    }

    fn steady_of(&self, color: Color) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for p in &self.pieces {
            if p.color == color && self.steady.contains(p.origin) {
                out.add(p.origin);
            }
        }
        out
    }

    fn steady_kings(&self) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for p in &self.pieces {
            if p.role == Role::King && self.steady.contains(p.origin) {
                out.add(p.origin);
            }
        }
        out
    }

    /// Recomputes the squares that stay attacked for the rest of the game.
    fn update_permanent(&mut self) {
        let mut possibly_occupied = Bitboard::EMPTY;
        for p in &self.pieces {
            possibly_occupied |= self.reach[p.origin.to_usize()];
        }
        self.permanent = [Bitboard::EMPTY; 2];
        for p in &self.pieces {
            if self.capturable.contains(p.origin) || self.promotable.contains(p.origin) {
                continue;
            }
            let mut attacked = Bitboard::FULL;
            for t in self.reach[p.origin.to_usize()] {
                attacked &= attack_set(p.role, p.color, t, possibly_occupied);
                if attacked.is_empty() {
                    break;
                }
            }
            self.permanent[colour::index(p.color)] |= attacked;
        }
    }

    /// Runs the monotone fixpoint iteration.
    ///
    /// Soundness (the invariant every legal continuation keeps): each piece still on the
    /// board stands in its `reach`; `steady` pieces stand on their origin; pieces outside
    /// `capturable` are still on the board; squares in `permanent` are attacked. Every set
    /// only grows (or, for `steady` and `permanent`, only shrinks), so the loop ends.
    pub(crate) fn saturate(&mut self) {
        loop {
            let mut changed = false;
            self.update_permanent();
            let steady_occ = self.steady;
            let steady_kings = self.steady_kings();
            let steady_own = [self.steady_of(Color::White), self.steady_of(Color::Black)];
            // Squares where a piece of each colour could stand (non-kings: capture targets).
            let mut enemy_targets = [Bitboard::EMPTY; 2];
            for p in &self.pieces {
                if p.role != Role::King {
                    // Pawns of the other colour may capture here.
                    enemy_targets[colour::index(!p.color)] |= self.reach[p.origin.to_usize()];
                }
            }
            for c in [Color::Black, Color::White] {
                enemy_targets[colour::index(c)] |= self.ep_target[colour::index(c)];
            }

            for i in 0..self.pieces.len() {
                let p = self.pieces[i];
                let o = p.origin.to_usize();
                let old = self.reach[o];
                let blocked_for_us = steady_own[colour::index(p.color)] | steady_kings;
                let mut new = old;
                let mut caps = self.capture_squares[o];
                if self.promotable.contains(p.origin) {
                    new = Bitboard::FULL & !blocked_for_us;
                    caps = new;
                } else {
                    for t in old {
                        match p.role {
                            Role::Pawn => {
                                let step = if p.color.is_white() { 8 } else { -8 };
                                if let Some(one) = t.offset(step)
                                    && !steady_occ.contains(one)
                                {
                                    new.add(one);
                                    let start_rank = p.color.relative_rank(shakmaty::Rank::Second);
                                    if t.rank() == start_rank
                                        && let Some(two) = one.offset(step)
                                        && !steady_occ.contains(two)
                                    {
                                        new.add(two);
                                    }
                                }
                                let diag = attacks::pawn_attacks(p.color, t)
                                    & enemy_targets[colour::index(p.color)]
                                    & !blocked_for_us;
                                new |= diag;
                                caps |= diag;
                            }
                            Role::King => {
                                new |= attacks::king_attacks(t)
                                    & !blocked_for_us
                                    & !self.permanent[colour::index(!p.color)];
                            }
                            role => {
                                new |= slider_or_stepper(role, t, steady_occ) & !blocked_for_us;
                            }
                        }
                    }
                    if p.role != Role::Pawn {
                        caps = new;
                    } else if (new & Bitboard::BACKRANKS).any() {
                        self.promotable.add(p.origin);
                        new = Bitboard::FULL & !blocked_for_us;
                        caps = new;
                        changed = true;
                    }
                }
                if new != old {
                    self.reach[o] = new;
                    changed = true;
                }
                self.capture_squares[o] = caps;
            }

            // Capturable: some enemy may capture on a square this piece may stand on.
            for p in &self.pieces {
                if p.role == Role::King || self.capturable.contains(p.origin) {
                    continue;
                }
                let mine = self.reach[p.origin.to_usize()];
                let hit = self.pieces.iter().any(|q| {
                    q.color != p.color && self.capture_squares[q.origin.to_usize()].intersects(mine)
                });
                if hit {
                    self.capturable.add(p.origin);
                    changed = true;
                }
            }
            // Steady: never moves and never captured.
            for p in &self.pieces {
                if self.steady.contains(p.origin)
                    && (self.capturable.contains(p.origin)
                        || self.reach[p.origin.to_usize()] != Bitboard::from_square(p.origin))
                {
                    self.steady.discard(p.origin);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// After [`Blockade::saturate`]: could `winner` ever checkmate? `false` is a proof
    /// that it cannot; `true` means the analysis could not rule it out.
    pub(crate) fn mate_possible(&self, winner: Color) -> bool {
        let loser = !winner;
        let Some(lk) = self
            .pieces
            .iter()
            .find(|p| p.color == loser && p.role == Role::King)
        else {
            return false;
        };
        let Some(wk) = self
            .pieces
            .iter()
            .find(|p| p.color == winner && p.role == Role::King)
        else {
            return true;
        };
        let region = self.reach[lk.origin.to_usize()];
        let wk_region = self.reach[wk.origin.to_usize()];
        // Blockers for cover rays: steady non-king pieces (a checked king does not shield
        // the squares behind it).
        let steady_kings = self.steady_kings();
        let ray_blockers = self.steady & !steady_kings;
        let mut cover = Bitboard::EMPTY;
        for p in &self.pieces {
            if p.color != winner || p.role == Role::King {
                continue;
            }
            if self.promotable.contains(p.origin) {
                cover = Bitboard::FULL;
                break;
            }
            for t in self.reach[p.origin.to_usize()] {
                cover |= attack_set(p.role, p.color, t, ray_blockers);
            }
        }
        let checks = region & cover;
        if checks.is_empty() {
            return false;
        }
        let blockers: Vec<Bitboard> = self
            .pieces
            .iter()
            .filter(|p| p.color == loser && p.role != Role::King)
            .map(|p| self.reach[p.origin.to_usize()])
            .collect();
        for k in checks {
            let need = attacks::king_attacks(k) & region & !cover;
            if matchable(need, &blockers) {
                return true;
            }
            // Let the winner's king cover part of the flight squares from a square at
            // distance exactly two (closer is illegal, farther covers nothing near k).
            for w in wk_region {
                if w.distance(k) != 2 {
                    continue;
                }
                let rest = need & !attacks::king_attacks(w);
                if rest != need && matchable(rest, &blockers) {
                    return true;
                }
            }
        }
        false
    }

    /// True if some pawn on the board (either side) could ever move or be captured.
    pub(crate) fn pawns_locked(&self) -> bool {
        self.pieces
            .iter()
            .filter(|p| p.role == Role::Pawn)
            .all(|p| self.steady.contains(p.origin))
    }
}

/// Can each square of `need` get its own distinct blocker (blocker `i` may stand on the
/// squares of `blockers[i]`)? Bipartite matching by augmenting paths.
fn matchable(need: Bitboard, blockers: &[Bitboard]) -> bool {
    if need.is_empty() {
        return true;
    }
    if need.count() > blockers.len() {
        return false;
    }
    let squares: Vec<Square> = need.into_iter().collect();
    // owner[i] = square index matched to blocker i.
    let mut owner: Vec<Option<usize>> = vec![None; blockers.len()];
    for s in 0..squares.len() {
        let mut seen = vec![false; blockers.len()];
        if !augment(s, &squares, blockers, &mut owner, &mut seen) {
            return false;
        }
    }
    true
}

fn augment(
    s: usize,
    squares: &[Square],
    blockers: &[Bitboard],
    owner: &mut [Option<usize>],
    seen: &mut [bool],
) -> bool {
    for b in 0..blockers.len() {
        if seen[b] || !blockers[b].contains(squares[s]) {
            continue;
        }
        seen[b] = true;
        let free = match owner[b] {
            None => true,
            Some(other) => augment(other, squares, blockers, owner, seen),
        };
        if free {
            owner[b] = Some(s);
            return true;
        }
    }
    false
}

/// Outcome of the static test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StaticVerdict {
    /// Proved: no mate for the winner, with every pawn frozen.
    UnwinnableLocked,
    /// Proved: no mate for the winner.
    Unwinnable,
    /// Not proved.
    Unknown,
}

/// Runs the blockade analysis for `winner` on `board`. Also returns the region the
/// loser's king may ever reach (over-approximated), which guides the search.
pub(crate) fn analyse(
    board: &Board,
    ep_square: Option<Square>,
    turn: Color,
    winner: Color,
) -> (StaticVerdict, Bitboard) {
    let mut b = Blockade::new(board, ep_square, turn);
    b.saturate();
    let region = board
        .king_of(!winner)
        .map_or(Bitboard::FULL, |k| b.reach[k.to_usize()]);
    let verdict = if b.mate_possible(winner) {
        StaticVerdict::Unknown
    } else if b.pawns_locked() && board.pawns().any() {
        StaticVerdict::UnwinnableLocked
    } else {
        StaticVerdict::Unwinnable
    };
    (verdict, region)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn run(fen: &str, winner: Color) -> StaticVerdict {
        let setup = fen.parse::<Fen>().expect("fen").into_setup();
        analyse(&setup.board, setup.ep_square, setup.turn, winner).0
    }

    #[test]
    fn locked_wall_with_confined_bishops_is_proved() {
        let fen = "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - -";
        assert_eq!(run(fen, Color::White), StaticVerdict::UnwinnableLocked);
        assert_eq!(run(fen, Color::Black), StaticVerdict::UnwinnableLocked);
    }

    #[test]
    fn open_position_is_not_proved() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        assert_eq!(run(fen, Color::White), StaticVerdict::Unknown);
    }

    #[test]
    fn one_blocker_cannot_fill_two_flight_squares() {
        // Light bishop for White upstairs, a single dark bishop for Black: every light mating
        // square has two dark flight squares.
        let fen = "8/1k5B/7b/8/1p1p1p1p/1PpP1P1P/2P3K1/N3b3 b - -";
        assert_ne!(run(fen, Color::White), StaticVerdict::Unknown);
        // With two dark bishops for Black, a mate is conceivable and must not be refuted.
        let fen = "7b/1k5B/7b/8/1p1p1p1p/1PpP1P1P/2P3K1/N7 b - -";
        assert_eq!(run(fen, Color::White), StaticVerdict::Unknown);
    }

    #[test]
    fn matching_is_exact() {
        let a1 = Bitboard::from_square(Square::A1);
        let b1 = Bitboard::from_square(Square::B1);
        assert!(matchable(a1 | b1, &[a1 | b1, a1]));
        assert!(!matchable(a1 | b1, &[a1, a1]));
        assert!(matchable(Bitboard::EMPTY, &[]));
    }
}
