//! Helpmate search: a depth-first search under a move budget, deepened iteratively.
//!
//! Both sides cooperate to mate the loser. Every ply spends part of a budget; moves that
//! look like progress towards a mate are cheaper, so cheap iterations follow promising
//! lines deep while still being complete up to their budget. The transposition table keeps,
//! within one iteration, the largest budget a position was searched with; it also cuts
//! cycles (a position met again on the current line was entered with a larger budget).
//!
//! An iteration that finishes without cutting any branch for lack of budget has visited
//! every position reachable from the root (each was expanded, mated, stalemated, or dead by
//! material), so "no mate found" is then a proof: [`Outcome::Exhausted`].

use rustc_hash::FxHashMap;
use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Move, Position, Role, Square, attacks};

use crate::material;

/// Exact identity of a position for repetition purposes (board, side to move, castling
/// rights, en passant square): no hashing shortcuts, so a table hit is never a collision.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    bb: [u64; 7],
    extra: u16,
}

impl Key {
    pub(crate) fn of(pos: &Chess) -> Key {
        let b = pos.board();
        let corners = pos.castles().castling_rights();
        let mut castle = 0u16;
        for (i, sq) in [Square::A1, Square::H1, Square::A8, Square::H8]
            .into_iter()
            .enumerate()
        {
            if corners.contains(sq) {
                castle |= 1 << i;
            }
        }
        let ep = pos
            .ep_square(EnPassantMode::Always)
            .map_or(0u16, |sq| sq as u16 + 1);
        Key {
            bb: [
                b.white().0,
                b.pawns().0,
                b.knights().0,
                b.bishops().0,
                b.rooks().0,
                b.queens().0,
                b.kings().0,
            ],
            extra: castle | (ep << 4) | ((pos.turn().is_white() as u16) << 12),
        }
    }
}

/// Result of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A helpmate line from the searched position.
    Mate(Vec<Move>),
    /// Every reachable position was visited; none is a mate.
    Exhausted,
    /// The node budget ran out first.
    Limit,
}

/// Upper bound on transposition-table entries (about 80 bytes each).
const TT_CAP: usize = 1 << 20;

pub(crate) struct Searcher {
    winner: Color,
    /// Nodes visited so far (shared across every call on this searcher).
    pub(crate) nodes: u64,
    node_limit: u64,
    tt: FxHashMap<Key, u16>,
    line: Vec<Move>,
    cut: bool,
    aborted: bool,
}

/// Cost of a ply, in budget units; a plain move costs [`NORMAL`].
const PROGRESS: u16 = 1;
const NORMAL: u16 = 2;
const REGRESS: u16 = 5;

impl Searcher {
    pub(crate) fn new(winner: Color, node_limit: u64) -> Searcher {
        Searcher {
            winner,
            nodes: 0,
            node_limit,
            tt: FxHashMap::default(),
            line: Vec::with_capacity(128),
            cut: false,
            aborted: false,
        }
    }

    pub(crate) fn set_node_limit(&mut self, limit: u64) {
        self.node_limit = limit;
        self.aborted = false;
    }

    /// Iterative deepening over budgets `from..=to`.
    pub(crate) fn deepen(&mut self, root: &Chess, from: u16, to: u16) -> Outcome {
        for budget in from..=to {
            self.cut = false;
            self.line.clear();
            // Entries from a previous iteration may describe subtrees that were cut short
            // without this iteration knowing: start each iteration with an empty table.
            self.tt.clear();
            if self.node(root, budget) {
                return Outcome::Mate(std::mem::take(&mut self.line));
            }
            if self.aborted {
                return Outcome::Limit;
            }
            if !self.cut {
                return Outcome::Exhausted;
            }
        }
        Outcome::Limit
    }

    fn node(&mut self, pos: &Chess, budget: u16) -> bool {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            self.aborted = true;
            return false;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return pos.turn() != self.winner && pos.is_check();
        }
        let board = pos.board();
        if material::fide_material_cannot_mate(board, self.winner) {
            return false;
        }
        if budget == 0 {
            self.cut = true;
            return false;
        }
        let key = Key::of(pos);
        if let Some(&seen) = self.tt.get(&key)
            && seen >= budget
        {
            return false;
        }
        if self.tt.len() < TT_CAP {
            self.tt.insert(key, budget);
        } else if let Some(seen) = self.tt.get_mut(&key) {
            *seen = budget;
        }

        let us = pos.turn();
        let winner_moves = us == self.winner;
        let their_king = board.king_of(!us);
        let our_king = board.king_of(us);
        // Score each move: (cost, ordering key), lower first.
        let mut scored: Vec<(u16, i32, Move)> = Vec::with_capacity(moves.len());
        for m in moves {
            let (cost, order) = if winner_moves {
                classify_winner(pos, &m, their_king)
            } else {
                classify_loser(pos, &m, our_king, their_king)
            };
            scored.push((cost, order, m));
        }
        scored.sort_unstable_by_key(|&(c, o, _)| (c, o));
        for (cost, _, m) in scored {
            if cost > budget {
                self.cut = true;
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.line.push(m);
            if self.node(&child, budget - cost) {
                return true;
            }
            self.line.pop();
            if self.aborted {
                return false;
            }
        }
        false
    }
}

fn gives_check(pos: &Chess, m: &Move, their_king: Option<Square>) -> bool {
    let Some(k) = their_king else { return false };
    let board = pos.board();
    let role = m.promotion().unwrap_or(m.role());
    let mut occ = board.occupied();
    if let Some(from) = m.from() {
        occ.discard(from);
    }
    occ.add(m.to());
    // Direct check.
    let direct = match role {
        Role::Pawn => attacks::pawn_attacks(pos.turn(), m.to()).contains(k),
        Role::King => false,
        r => attacks::attacks(m.to(), r.of(pos.turn()), occ).contains(k),
    };
    if direct || m.is_castle() || m.is_en_passant() {
        // Castling and en passant are rare: treat them as possible checks (only ordering).
        return direct || m.is_castle() || m.is_en_passant();
    }
    // Discovered check by a slider of ours.
    let ours = board.by_color(pos.turn());
    let mut sliders = ours & board.sliders();
    if let Some(from) = m.from() {
        sliders.discard(from);
    }
    (attacks::rook_attacks(k, occ) & sliders & board.rooks_and_queens()).any()
        || (attacks::bishop_attacks(k, occ) & sliders & board.bishops_and_queens()).any()
}

/// The winner's moves: checks, captures and promotions are progress.
fn classify_winner(pos: &Chess, m: &Move, their_king: Option<Square>) -> (u16, i32) {
    let check = gives_check(pos, m, their_king);
    let dist_gain = match (their_king, m.from()) {
        (Some(k), Some(from)) if m.role() != Role::Pawn => {
            k.distance(from) as i32 - k.distance(m.to()) as i32
        }
        _ => 0,
    };
    if check {
        return (PROGRESS, -100);
    }
    if let Some(victim) = m.capture() {
        return (PROGRESS, -50 - role_value(victim));
    }
    if m.is_promotion() {
        return (PROGRESS, -40);
    }
    (NORMAL, -dist_gain)
}

/// The loser's moves: boxing its own king in is progress, capturing the winner's
/// pieces or running the king away is not.
fn classify_loser(
    pos: &Chess,
    m: &Move,
    our_king: Option<Square>,
    their_king: Option<Square>,
) -> (u16, i32) {
    let _ = their_king;
    if let Some(victim) = m.capture() {
        // Taking the winner's last pawns or pieces removes mating material.
        let cost = if victim == Role::Pawn {
            NORMAL
        } else {
            REGRESS
        };
        return (cost, 10 + role_value(victim));
    }
    let board = pos.board();
    if m.role() == Role::King {
        // Kings walk towards the winner's forces: fewer squares between them and the king.
        let theirs = board.by_color(!pos.turn()) & !board.kings();
        let from = m.from().map_or(0, |f| nearest(theirs, f));
        let to = nearest(theirs, m.to());
        return (NORMAL, to as i32 - from as i32);
    }
    if let Some(k) = our_king
        && attacks::king_attacks(k).contains(m.to())
    {
        return (PROGRESS, -5);
    }
    (NORMAL, 0)
}

fn nearest(pieces: Bitboard, sq: Square) -> u32 {
    pieces
        .into_iter()
        .map(|p| p.distance(sq))
        .min()
        .unwrap_or(0)
}

fn role_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 0,
    }
}
