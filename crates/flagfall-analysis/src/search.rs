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
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square, attacks,
};

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
        let castle = pos
            .castles()
            .castling_rights()
            .into_iter()
            .fold(0u16, |bits, sq| bits | Key::castle_bit(sq));
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

impl Key {
    /// Index into `bb` of a role's bitboard: shakmaty numbers the roles from 1 (pawn) to 6
    /// (king), in the order of `bb` after the colour board.
    fn slot(role: Role) -> usize {
        role as usize
    }

    /// Castling bit of a rook's corner in [`Key`] (the one place the layout is written),
    /// 0 for other squares.
    fn castle_bit(sq: Square) -> u16 {
        match sq {
            Square::A1 => 1,
            Square::H1 => 2,
            Square::A8 => 4,
            Square::H8 => 8,
            _ => 0,
        }
    }

    fn remove(&mut self, sq: Square, role: Role) {
        let bit = !(1u64 << sq as u32);
        self.bb[Key::slot(role)] &= bit;
        self.bb[0] &= bit;
    }

    fn put(&mut self, sq: Square, role: Role, color: Color) {
        let bit = 1u64 << sq as u32;
        self.bb[Key::slot(role)] |= bit;
        if color.is_white() {
            self.bb[0] |= bit;
        }
    }

    /// The key of the position after `us` plays the legal move `m` in the position whose
    /// key is `self`, without building that position: the same as [`Key::of`] on it (it
    /// follows shakmaty's move execution: castling rights dropped by king and rook moves
    /// and by captures on a rook's corner; the en passant square recorded after every
    /// double step).
    fn after(&self, us: Color, m: &Move) -> Key {
        let mut k = *self;
        let mut castle = self.extra & 0xF;
        let mut ep = 0u16;
        let ours: u16 = if us.is_white() { 1 | 2 } else { 4 | 8 };
        match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                if role == Role::Pawn {
                    let (from_i, to_i) = (from as i32, to as i32);
                    if to_i - from_i == 16 && from.rank() == shakmaty::Rank::Second {
                        ep = from as u16 + 8 + 1;
                    } else if from_i - to_i == 16 && from.rank() == shakmaty::Rank::Seventh {
                        ep = from as u16 - 8 + 1;
                    }
                }
                if role == Role::King {
                    castle &= !ours;
                } else if role == Role::Rook {
                    castle &= !Key::castle_bit(from);
                }
                if let Some(victim) = capture {
                    if victim == Role::Rook {
                        castle &= !Key::castle_bit(to);
                    }
                    k.remove(to, victim);
                }
                k.remove(from, role);
                k.put(to, promotion.unwrap_or(role), us);
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_queen_side(rook < king);
                k.remove(king, Role::King);
                k.remove(rook, Role::Rook);
                k.put(side.king_to(us), Role::King, us);
                k.put(side.rook_to(us), Role::Rook, us);
                castle &= !ours;
            }
            Move::EnPassant { from, to } => {
                k.remove(Square::from_coords(to.file(), from.rank()), Role::Pawn);
                k.remove(from, Role::Pawn);
                k.put(to, Role::Pawn, us);
            }
            Move::Put { role, to } => k.put(to, role, us),
        }
        k.extra = castle | (ep << 4) | (u16::from((!us).is_white()) << 12);
        k
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
/// Entries reserved up front: most queries visit a few hundred positions, and growing the
/// table from empty rehashes it at every doubling.
const TT_RESERVE: usize = 512;

/// Squares the search steers the kings towards (chosen once per search).
#[derive(Debug, Clone, Copy)]
struct Targets {
    /// Corner where the loser's king is driven.
    corner: Square,
    /// Square from which the winner's king helps to mate in that corner: one file and two
    /// ranks in from it (it guards both flight squares next to the corner on that side,
    /// as in the standard queen, rook, bishop and knight mates in a corner).
    helper: Square,
    /// The winner has only minor pieces and the loser only pawns: the loser's pawns must
    /// promote to make the pieces that box its own king in, so their pushes are progress.
    loser_pushes: bool,
    /// The winner has no queens, rooks or pawns: its minor pieces mate only with the
    /// loser's own pieces boxing its king in, so in the dive the loser's pawn pushes (which
    /// make those pieces) are free.
    minors_only: bool,
    /// A pawn wall ([`Breach::of`]): the loser's pawns that block the winner's pawns, and
    /// the squares where a winner's piece offered to one of them opens a file.
    breach: Breach,
    /// Which move costs the iteration uses.
    style: Style,
    /// Dive style: the winner's king heads for the corner's diagonal neighbour, its knights
    /// for the square three files and three ranks in (two knight moves from both squares a
    /// knight checks the corner from), the loser's knights for the square beside the
    /// corner on its rank.
    king_target: Square,
    knight_target: Square,
    loser_knight: Square,
}

/// The move costs of an iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// [`classify_winner`] and [`classify_loser`]: many kinds of progress are free, checks
    /// are tried first.
    Corner,
    /// [`classify_winner_dive`] and [`classify_loser_dive`]: few free moves, aimed at one
    /// corner of the loser's back rank. The cost scheme follows the quick search of the
    /// Chess Unwinnability Analyzer (chasolver), in our own form.
    Dive,
}

/// Fewest pairs of rammed pawns (a loser's pawn directly in front of a winner's pawn) for
/// a position to count as walled in ([`Breach::of`]). Measured on four corpus seeds: 3, 4
/// and 5 within 0.3% of each other in total search nodes (6 worse on the partial walls,
/// by 10% on one seed; 2 costs the random playouts 1-6% more).
const BREACH_MIN_RAMS: u32 = 4;

/// How the winner breaks through a pawn wall: behind a wall of rammed pawns its pawns can
/// only move again once a loser's pawn in front of one of them captures, and in a
/// helpmate that capture is of a winner's piece offered to it (a rook or bishop sacrificed
/// to open a file for a pawn that then promotes). In walled positions those two moves are
/// free, in both styles. Move costs only: the search stays complete whatever they are.
///
/// Measured on the corpus's full-width walls (`shut-walls`, 1,400 queries a seed, four
/// seeds): 9.1-16.5 M search nodes and 2-6 queries at the node limit each, all helpmates
/// of 40-60 plies, -> 77,000-92,000 nodes and none; the partial walls (`walls`) 1-27%
/// fewer nodes; the other families unchanged (random playouts within ±0.5%).
#[derive(Debug, Clone, Copy)]
struct Breach {
    /// The loser's pawns standing directly in front of a winner's pawn (at the root).
    rams: Bitboard,
    /// The squares those pawns attack: a winner's piece moving there offers itself.
    offers: Bitboard,
}

impl Breach {
    const NONE: Breach = Breach {
        rams: Bitboard::EMPTY,
        offers: Bitboard::EMPTY,
    };

    /// The breach squares of `pos` for `winner`, or none when fewer than
    /// [`BREACH_MIN_RAMS`] pairs of pawns are rammed.
    fn of(pos: &Chess, winner: Color) -> Breach {
        let b = pos.board();
        let ours = b.by_color(winner) & b.pawns();
        let theirs = b.by_color(!winner) & b.pawns();
        // The squares directly in front of the winner's pawns.
        let ahead = if winner.is_white() {
            ours.shift(8)
        } else {
            ours.shift(-8)
        };
        let rams = ahead & theirs;
        if rams.count() < BREACH_MIN_RAMS as usize {
            return Breach::NONE;
        }
        let mut offers = Bitboard::EMPTY;
        for sq in rams {
            offers |= attacks::pawn_attacks(!winner, sq);
        }
        Breach { rams, offers }
    }

    /// A winner's piece (not a pawn nor the king) moving onto a square where a rammed
    /// pawn may take it.
    fn offers(&self, m: &Move) -> bool {
        !matches!(m.role(), Role::Pawn | Role::King) && self.offers.contains(m.to())
    }

    /// A rammed pawn of the loser capturing (off its file, so the winner's pawn behind it
    /// may move again).
    fn opens(&self, m: &Move) -> bool {
        m.role() == Role::Pawn && m.is_capture() && m.from().is_some_and(|f| self.rams.contains(f))
    }
}

impl Targets {
    /// Dive-style targets for a mate in `corner`.
    fn dive(corner: Square) -> Targets {
        Targets {
            corner,
            helper: helper_of(corner),
            loser_pushes: false,
            minors_only: false,
            breach: Breach::NONE,
            style: Style::Dive,
            king_target: inward(corner, 1, 1),
            knight_target: inward(corner, 3, 3),
            loser_knight: inward(corner, 1, 0),
        }
    }

    /// The dive's corner: on the loser's back rank, dark when the winner has dark-squared
    /// bishops (a bishop mates in a corner of its colour) or no bishops while the loser has
    /// light-squared ones (they can block the light squares beside a dark corner), light
    /// otherwise.
    fn dive_for(pos: &Chess, winner: Color) -> Targets {
        let b = pos.board();
        let ours = b.by_color(winner) & b.bishops();
        let theirs = b.by_color(!winner) & b.bishops();
        let dark = (ours & Bitboard::DARK_SQUARES).any()
            || (ours.is_empty() && (theirs & Bitboard::LIGHT_SQUARES).any());
        let corner = match (winner, dark) {
            (Color::White, true) => Square::H8,
            (Color::White, false) => Square::A8,
            (Color::Black, true) => Square::A1,
            (Color::Black, false) => Square::H1,
        };
        let minors_only = (b.by_color(winner) & (b.queens() | b.rooks() | b.pawns())).is_empty();
        Targets {
            loser_pushes: loser_must_promote(pos, winner),
            minors_only,
            breach: Breach::of(pos, winner),
            ..Targets::dive(corner)
        }
    }

    /// The candidate corners, nearest to the loser's king first, among those of the right
    /// colour: when the winner's only long-range mating force is bishops of one colour, the
    /// corners of that colour (a bishop mates in the corner of its own colour).
    fn for_position(pos: &Chess, winner: Color, region: Bitboard) -> Vec<Targets> {
        let b = pos.board();
        let ours = b.by_color(winner);
        let bishops = ours & b.bishops();
        let heavy = ours & (b.queens() | b.rooks() | b.pawns() | b.knights());
        let theirs = b.by_color(!winner);
        let their_bishops = theirs & b.bishops();
        let strong = ours & (b.queens() | b.rooks() | b.pawns());
        let allowed = if heavy.is_empty() && bishops.any() {
            material::one_colour(bishops).map_or(Bitboard::CORNERS, |c| Bitboard::CORNERS & c)
        } else if strong.is_empty()
            && bishops.is_empty()
            && (theirs & b.knights()).is_empty()
            && their_bishops.any()
        {
            // Knights alone mate only with the loser's own pieces boxing its king in; when
            // those are bishops of one colour, the bishop stands on a square beside the
            // corner, which has the other colour (K+N v K+B: Kh8, Bg8, Nf7 mate). So the
            // corner takes the colour opposite the loser's bishops. Ordering only: the
            // search stays complete whatever corner is chosen.
            material::one_colour(their_bishops)
                .map_or(Bitboard::CORNERS, |c| Bitboard::CORNERS & !c)
        } else {
            Bitboard::CORNERS
        };
        // Only corners the loser's king can ever reach (king region of the blockade
        // analysis), when there are any.
        let reachable = allowed & region;
        let allowed = if reachable.any() { reachable } else { allowed };
        let king = b.king_of(!winner).unwrap_or(Square::E8);
        let mut cs: Vec<Square> = allowed.into_iter().collect();
        cs.sort_by_key(|c| c.distance(king));
        let loser_pushes = loser_must_promote(pos, winner);
        let breach = Breach::of(pos, winner);
        if cs.is_empty() {
            cs.push(Square::H8);
        }
        cs.into_iter()
            .map(|corner| Targets {
                corner,
                helper: helper_of(corner),
                loser_pushes,
                breach,
                style: Style::Corner,
                ..Targets::dive(corner)
            })
            .collect()
    }
}

pub(crate) struct Searcher {
    winner: Color,
    /// Nodes visited so far (shared across every call on this searcher).
    pub(crate) nodes: u64,
    node_limit: u64,
    /// Node cap of one iteration, per unit of budget (the iteration then gives up).
    iteration_cap: u64,
    iteration_nodes: u64,
    tt: FxHashMap<Key, u16>,
    line: Vec<Move>,
    cut: bool,
    aborted: bool,
    /// Targets of the current iteration: set by [`Searcher::deepen`] before every iteration
    /// (the dive, or one of `choices`, which [`Targets::for_position`] never leaves empty);
    /// `None` only before the first [`Searcher::retarget`] or iteration.
    targets: Option<Targets>,
    /// Candidate targets, best first ([`Targets::for_position`]).
    choices: Vec<Targets>,
    /// Iterations started so far (all calls together): picks the iteration's target.
    iterations: usize,
    /// The dive-style targets ([`Targets::dive_for`]), taking their turn after the corners.
    dive: Option<Targets>,
    /// Varies the order of equally ranked moves from one capped iteration to the next, so
    /// that successive iterations do not spend their cap on the same first lines.
    salt: u32,
    /// Packed ordering keys ([`sort_key`]) of the moves of every node on the current line,
    /// one slice per node, deepest last (a node truncates back to its start on return).
    stack: Vec<u64>,
}

/// Successive iterations aim at the nearest `ROTATION` candidate corners in turn, then
/// take one dive-style iteration ([`Targets::dive_for`]), and so on. Which corner and which
/// move costs give a short helpmate quickly is hard to predict (the node counts of one
/// query differ by up to 100x between corners), so taking turns costs at most a constant
/// factor over the best choice instead of the whole tail of a bad one (measured on the
/// corpus: nearest corner only 5.06 M nodes, two corners 4.2 M, three 3.4 M, four 4.2 M;
/// three corners and the dive 2.9 M, with the dive mostly finishing knight mates that need
/// the loser's pieces as blockers).
const ROTATION: usize = 3;

/// Longest line searched (free moves can chain); deeper nodes count as cut.
const MAX_LINE: usize = 160;

/// Ordering key of the winner's checks: they are tried before every other move, free
/// or not (most helpmates end in a run of checks).
const CHECK_ORDER: i32 = -100;

/// Cost of a ply, in budget units.
const FREE: u16 = 0;
const NORMAL: u16 = 1;
const REGRESS: u16 = 3;

impl Searcher {
    pub(crate) fn new(winner: Color, node_limit: u64) -> Searcher {
        Searcher {
            winner,
            nodes: 0,
            node_limit,
            iteration_cap: u64::MAX,
            iteration_nodes: 0,
            tt: FxHashMap::with_capacity_and_hasher(TT_RESERVE, Default::default()),
            line: Vec::with_capacity(128),
            cut: false,
            aborted: false,
            targets: None,
            choices: Vec::new(),
            iterations: 0,
            dive: None,
            salt: 0,
            stack: Vec::with_capacity(1024),
        }
    }

    /// Re-chooses the target squares knowing the loser's king region.
    pub(crate) fn retarget(&mut self, root: &Chess, region: Bitboard) {
        self.choices = Targets::for_position(root, self.winner, region);
        self.targets = self.choices.first().copied();
    }

    pub(crate) fn set_node_limit(&mut self, limit: u64) {
        self.node_limit = limit;
        self.aborted = false;
    }

    /// Caps each iteration at `cap * (budget + 1)` nodes (an iteration over its cap counts
    /// as cut, so it never proves anything); `u64::MAX` for no cap.
    pub(crate) fn set_iteration_cap(&mut self, cap: u64) {
        self.iteration_cap = cap;
    }

    /// Iterative deepening over budgets `from..=to`.
    pub(crate) fn deepen(&mut self, root: &Chess, from: u16, to: u16) -> Outcome {
        if self.targets.is_none() {
            self.choices = Targets::for_position(root, self.winner, Bitboard::FULL);
        }
        for budget in from..=to {
            let slot = self.iterations;
            self.iterations += 1;
            // Successive iterations take turns: the nearest corners, then the dive (see
            // `ROTATION`).
            let n = ROTATION.min(self.choices.len()).max(1);
            let dive = *self
                .dive
                .get_or_insert_with(|| Targets::dive_for(root, self.winner));
            let k = slot % (n + 1);
            self.targets = if k == n {
                Some(dive)
            } else {
                self.choices.get(k).copied()
            };
            self.cut = false;
            self.line.clear();
            self.stack.clear();
            self.iteration_nodes = 0;
            self.salt = self.salt.wrapping_add(0x9e37_79b9);
            let cap = self.iteration_cap.saturating_mul(u64::from(budget) + 1);
            // Entries from a previous iteration may describe subtrees that were cut short
            // without this iteration knowing: start each iteration with an empty table.
            self.tt.clear();
            let key = Key::of(root);
            if self.enter(key, budget, cap) && self.expand(root, key, budget, cap, false) {
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

    /// Enters a position (its key is `key`; the move leading to it is already on the line):
    /// counts it, and tells whether it is to be expanded (false: node limit, iteration cap
    /// or line length reached, or already searched with at least this budget). Run before
    /// the position is built, so that a position met again costs no copy nor move.
    fn enter(&mut self, key: Key, budget: u16, cap: u64) -> bool {
        self.nodes += 1;
        self.iteration_nodes += 1;
        if self.nodes > self.node_limit {
            self.aborted = true;
            return false;
        }
        if self.iteration_nodes > cap || self.line.len() >= MAX_LINE {
            self.cut = true;
            return false;
        }
        // A position met again needs no move generation (a mate would have ended the search
        // the first time).
        let tt_len = self.tt.len();
        match self.tt.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut e) => {
                if *e.get() >= budget {
                    return false;
                }
                e.insert(budget);
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                if tt_len < TT_CAP {
                    e.insert(budget);
                }
            }
        }
        true
    }

    /// Searches an entered position ([`Searcher::enter`]) whose key is `key`: true if a
    /// helpmate was found (then on the line).
    fn expand(&mut self, pos: &Chess, key: Key, budget: u16, cap: u64, prev_free: bool) -> bool {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return pos.turn() != self.winner && pos.is_check();
        }
        let board = pos.board();
        if material::fide_material_cannot_mate(board, self.winner) {
            return false;
        }
        let us = pos.turn();
        let winner_moves = us == self.winner;
        let targets = self
            .targets
            .expect("deepen sets the targets before every iteration");
        let their_king = board.king_of(!us);
        let our_king = board.king_of(us);
        // Score each move onto the shared stack: one packed ordering key per move (checks
        // first, then cost, then the move's rank, then the salted tie-break), lower first.
        let start = self.stack.len();
        let salt = self.salt;
        let checks = if winner_moves {
            their_king.map(|k| CheckInfo::new(board, us, k))
        } else {
            None
        };
        for (index, &m) in moves.iter().enumerate() {
            let (cost, order) = if winner_moves {
                let check = checks.as_ref().is_some_and(|c| c.gives_check(pos, &m));
                if check && self.mates(pos, m) {
                    // Mate in one costs no budget.
                    self.line.push(m);
                    self.stack.truncate(start);
                    return true;
                }
                if targets.style == Style::Dive {
                    classify_winner_dive(&m, &targets)
                } else {
                    classify_winner(pos, &m, check, their_king, &targets)
                }
            } else if targets.style == Style::Dive {
                classify_loser_dive(&m, &targets)
            } else {
                classify_loser(pos, &m, our_king, &targets)
            };
            if paid(cost, prev_free) > budget {
                // Unaffordable: never sorted nor played.
                self.cut = true;
                continue;
            }
            self.stack
                .push(sort_key(cost, order, tiebreak(&m, salt), index));
        }
        let end = self.stack.len();
        self.stack[start..end].sort_unstable();
        let mut found = false;
        for i in start..end {
            let packed = self.stack[i];
            let m = moves[key_index(packed)];
            let cost = key_cost(packed);
            let paid = paid(cost, prev_free);
            self.line.push(m);
            let child_key = key.after(us, &m);
            if self.enter(child_key, budget - paid, cap) {
                let mut child = pos.clone();
                child.play_unchecked(m);
                // Progress (which makes the reply's plain move free, see `paid`): every free
                // move of the winner, a free king move of the loser, and in the dive any
                // free move of a loser that must promote (see `classify_loser_dive`).
                let progress = cost == FREE
                    && (winner_moves
                        || m.role() == Role::King
                        || (targets.loser_pushes && targets.style == Style::Dive));
                if self.expand(&child, child_key, budget - paid, cap, progress) {
                    found = true;
                    break;
                }
            }
            self.line.pop();
            if self.aborted {
                break;
            }
        }
        self.stack.truncate(start);
        found
    }

    /// Does the winner's move `m` (already known to be a possible check) mate at once?
    /// A flight square of the checked king that no winner's piece attacks (with the king
    /// lifted off the board) is a legal king move, so such a check is no mate without
    /// generating the defender's moves.
    fn mates(&self, pos: &Chess, m: Move) -> bool {
        let mut child = pos.clone();
        child.play_unchecked(m);
        if !child.is_check() {
            return false;
        }
        let b = child.board();
        let loser = child.turn();
        if let Some(k) = b.king_of(loser) {
            let occ = b.occupied().without(k);
            let flights = attacks::king_attacks(k) & !b.by_color(loser);
            for f in flights {
                if b.attacks_to(f, !loser, occ).is_empty() {
                    return false;
                }
            }
        }
        child.legal_moves().is_empty()
    }
}

/// What a ply of cost `cost` takes from the budget: after a progress move (`prev_free`, see
/// [`Searcher::expand`]) a plain reply costs nothing, so that a run of the winner's progress
/// moves costs nothing while the loser waits, and after the loser's king stepped towards
/// its corner the winner may wait freely.
#[inline]
fn paid(cost: u16, prev_free: bool) -> u16 {
    if prev_free && cost == NORMAL {
        FREE
    } else {
        cost
    }
}

/// Packs a move's ordering (checks first, then cost, then rank, then tie-break) and its
/// index in the move list into one integer, so that sorting plain integers orders the
/// moves; [`key_cost`] and [`key_index`] recover the cost and the index.
fn sort_key(cost: u16, order: i32, tiebreak: u32, index: usize) -> u64 {
    let non_check = u64::from(order != CHECK_ORDER);
    let rank = (i64::from(order) + (1 << 20)) as u64 & 0xFFFF_FFFF;
    (non_check << 62)
        | (u64::from(cost) << 56)
        | (rank << 24)
        | (u64::from((tiebreak >> 9) & 0x7FFF) << 9)
        | (index as u64 & 0x1FF)
}

fn key_cost(packed: u64) -> u16 {
    ((packed >> 56) & 0x3F) as u16
}

fn key_index(packed: u64) -> usize {
    (packed & 0x1FF) as usize
}

/// Pseudo-random rank of a move for a given salt (a multiplicative hash).
fn tiebreak(m: &Move, salt: u32) -> u32 {
    let from = m.from().map_or(64, |s| s as u32);
    let key = (from << 6 | m.to() as u32) ^ salt;
    key.wrapping_mul(0x2545_f491) >> 8
}

/// What a winner's node needs to tell cheaply whether a move gives check: the lines from
/// the loser's king, and the winner's pieces whose departure may uncover a slider.
struct CheckInfo {
    king: Square,
    /// Squares a rook or bishop on them would attack the king from (current occupancy).
    rook_lines: Bitboard,
    bishop_lines: Bitboard,
    knight: Bitboard,
    pawn: Bitboard,
    /// The winner's pieces that are the only piece between the king and a winner's slider
    /// aimed at it.
    discover: Bitboard,
    /// A winner's slider already attacks the king (never in a legal position; kept so that
    /// the answer is the same as [`gives_check`]'s).
    already: bool,
}

impl CheckInfo {
    fn new(board: &shakmaty::Board, us: Color, k: Square) -> CheckInfo {
        let occ = board.occupied();
        let ours = board.by_color(us);
        let rook_lines = attacks::rook_attacks(k, occ);
        let bishop_lines = attacks::bishop_attacks(k, occ);
        let our_rq = ours & board.rooks_and_queens();
        let our_bq = ours & board.bishops_and_queens();
        let already = (rook_lines & our_rq).any() || (bishop_lines & our_bq).any();
        let mut discover = Bitboard::EMPTY;
        let snipers = (attacks::rook_attacks(k, Bitboard::EMPTY) & our_rq)
            | (attacks::bishop_attacks(k, Bitboard::EMPTY) & our_bq);
        for s in snipers {
            let blockers = attacks::between(k, s) & occ;
            if blockers.count() == 1 && blockers.is_subset(ours) {
                discover |= blockers;
            }
        }
        CheckInfo {
            king: k,
            rook_lines,
            bishop_lines,
            knight: attacks::knight_attacks(k),
            pawn: attacks::pawn_attacks(!us, k),
            discover,
            already,
        }
    }

    /// Same answer as [`gives_check`], mostly from the precomputed sets.
    fn gives_check(&self, pos: &Chess, m: &Move) -> bool {
        let Some(from) = m.from() else {
            return gives_check(pos, m, Some(self.king));
        };
        if self.already || m.is_castle() || m.is_en_passant() || self.discover.contains(from) {
            return gives_check(pos, m, Some(self.king));
        }
        let to = m.to();
        let occ = pos.board().occupied();
        // A slider on `to` checks if no piece other than the mover stands between.
        let line = |lines: Bitboard, empty_lines: Bitboard| {
            lines.contains(to)
                || (empty_lines.contains(to)
                    && (attacks::between(self.king, to) & occ)
                        .without(from)
                        .is_empty())
        };
        match m.promotion().unwrap_or(m.role()) {
            Role::Pawn => self.pawn.contains(to),
            Role::Knight => self.knight.contains(to),
            Role::King => false,
            Role::Bishop => line(
                self.bishop_lines,
                attacks::bishop_attacks(self.king, Bitboard::EMPTY),
            ),
            Role::Rook => line(
                self.rook_lines,
                attacks::rook_attacks(self.king, Bitboard::EMPTY),
            ),
            Role::Queen => {
                line(
                    self.bishop_lines,
                    attacks::bishop_attacks(self.king, Bitboard::EMPTY),
                ) || line(
                    self.rook_lines,
                    attacks::rook_attacks(self.king, Bitboard::EMPTY),
                )
            }
        }
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
    let direct = match role {
        Role::Pawn => attacks::pawn_attacks(pos.turn(), m.to()).contains(k),
        Role::King => false,
        r => attacks::attacks(m.to(), r.of(pos.turn()), occ).contains(k),
    };
    if direct || m.is_castle() || m.is_en_passant() {
        // Castling and en passant are rare: treat them as possible checks (ordering only).
        return true;
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

/// The winner's moves. Free: captures, promotions and pawn moves (with or without check;
/// every pawn push, not only a passed pawn's: measured on six corpus seeds, 2-3% fewer
/// search nodes, and making capturing, promoting and pawn checks free as well a further
/// 2-9%), the king heading for its helper square, a knight, rook or queen closing in on the
/// loser's king (rooks and queens too: 4-8% fewer nodes on six seeds; bishops as well gave
/// fewer nodes in all but a 435,000-node query on another seed), a bishop stepping onto the
/// target corner's diagonal, and in walled positions a piece offered to a pawn of the wall
/// ([`Breach`]). Other checks cost one unit (making them cost what the same
/// move would without the check was worse on three seeds of six).
/// Ordering puts checks first, then captures of valuable pieces, then passed pawns.
fn classify_winner(
    pos: &Chess,
    m: &Move,
    check: bool,
    their_king: Option<Square>,
    targets: &Targets,
) -> (u16, i32) {
    if check {
        let free = m.is_capture() || m.is_promotion() || m.role() == Role::Pawn;
        let cost = if free { FREE } else { NORMAL };
        return (cost, CHECK_ORDER);
    }
    if let Some(victim) = m.capture() {
        return (FREE, -50 - role_value(victim));
    }
    if m.is_promotion() {
        return (FREE, -40);
    }
    if targets.breach.offers(m) {
        return (FREE, -8);
    }
    let Some(from) = m.from() else {
        return (NORMAL, 0);
    };
    match m.role() {
        Role::Pawn if is_passed(pos.board(), from, pos.turn()) => (FREE, -10),
        Role::Pawn => (FREE, -5),
        Role::King => {
            let gain = dist(from, targets.helper) - dist(m.to(), targets.helper);
            if gain > 0 {
                (FREE, -20)
            } else {
                (NORMAL, -gain)
            }
        }
        _ => {
            let k = their_king.unwrap_or(targets.corner);
            let gain = dist(from, k) - dist(m.to(), k);
            if gain > 0 && matches!(m.role(), Role::Knight | Role::Rook | Role::Queen) {
                (FREE, -15)
            } else if m.role() == Role::Bishop
                && on_corner_diagonal(m.to(), targets.corner)
                && !on_corner_diagonal(from, targets.corner)
            {
                // A bishop mates in the corner along the diagonal through it.
                (FREE, -12)
            } else {
                (NORMAL, -gain)
            }
        }
    }
}

/// Dive style, the winner's moves: free are captures, pawn moves, the king closing in on
/// its target square, knights closing in (knight distance) on theirs and, in walled
/// positions, a piece offered to a pawn of the wall ([`Breach`]); the rest costs one unit.
/// No ordering beyond the cost (checks are tried among the others).
fn classify_winner_dive(m: &Move, targets: &Targets) -> (u16, i32) {
    if m.is_capture() || m.role() == Role::Pawn || targets.breach.offers(m) {
        return (FREE, 0);
    }
    let Some(from) = m.from() else {
        return (NORMAL, 0);
    };
    let closer = closes_in(m, from, targets.king_target, targets.knight_target).unwrap_or(false);
    if closer { (FREE, 0) } else { (NORMAL, 0) }
}

/// For a king or knight move from `from`: does it bring the piece nearer its square (the
/// king by king distance to `king_square`, a knight by knight distance to
/// `knight_square`)? `None` for the other pieces.
#[inline]
fn closes_in(m: &Move, from: Square, king_square: Square, knight_square: Square) -> Option<bool> {
    match m.role() {
        Role::King => Some(dist(m.to(), king_square) < dist(from, king_square)),
        Role::Knight => {
            Some(knight_distance(m.to(), knight_square) < knight_distance(from, knight_square))
        }
        _ => None,
    }
}

/// Dive style, the loser's moves: free are the king closing in on the corner, knights
/// closing in on the square beside it, other pieces stepping next to the corner (as in the
/// corner style; not when the loser must promote, whose pieces cannot block there and
/// would only widen the search: one test query went from 1,160 to 60,000 nodes; with
/// that, 1-8% fewer search nodes on eight corpus seeds of nine, flat on the ninth) and,
/// when the winner has only minor pieces
/// (`Targets::minors_only`; measured on eight corpus seeds: 4-11% fewer search nodes on
/// every one) or the loser must promote to get blockers ([`loser_must_promote`]), pawn
/// pushes; captures are dear, except a rammed pawn's capture in a walled position
/// ([`Breach`]), which is free; the rest costs one unit.
///
/// Progress: when the loser must promote ([`Targets::loser_pushes`]), every free move of
/// the loser in the dive (pawn push, king or knight closing in) counts as progress, so the
/// winner's plain reply to it is free ([`paid`]), as after any free move of the winner; in
/// the corner style, and in the dive otherwise, only the loser's free king moves do. The
/// rule is applied in [`Searcher::expand`].
fn classify_loser_dive(m: &Move, targets: &Targets) -> (u16, i32) {
    if targets.breach.opens(m) {
        return (FREE, 0);
    }
    if m.is_capture() {
        return (REGRESS, 0);
    }
    // (`loser_pushes` implies `minors_only`.)
    if targets.minors_only && m.role() == Role::Pawn {
        return (FREE, 0);
    }
    let Some(from) = m.from() else {
        return (NORMAL, 0);
    };
    let closer = closes_in(m, from, targets.corner, targets.loser_knight).unwrap_or_else(|| {
        !targets.loser_pushes && attacks::king_attacks(targets.corner).contains(m.to())
    });
    if closer { (FREE, 0) } else { (NORMAL, 0) }
}

/// Must the loser promote a pawn to get the pieces that box its own king in? True when the
/// winner's only force is minor pieces (no queens, rooks, pawns) and the loser has no piece
/// that could stand on the squares the winner's pieces cannot cover: with knights (or
/// bishops of both colours) on the winner's side, no piece at all besides pawns; with
/// bishops of one colour only, no knights, rooks, queens nor bishops of the other colour
/// (a bishop mates on its own colour, so the flight squares of the other colour must be
/// blocked by the loser's own pieces or covered by the winner's king). Move costs only:
/// the search stays complete either way.
fn loser_must_promote(pos: &Chess, winner: Color) -> bool {
    let b = pos.board();
    let ours = b.by_color(winner);
    let theirs = b.by_color(!winner);
    if (ours & (b.queens() | b.rooks() | b.pawns())).any() {
        return false;
    }
    let their_pieces = theirs & !b.pawns() & !b.kings();
    let bishops = ours & b.bishops();
    let one_colour = if (ours & b.knights()).any() {
        None
    } else {
        material::one_colour(bishops)
    };
    match one_colour {
        None => their_pieces.is_empty(),
        Some(colour) => their_pieces.is_subset(b.bishops() & colour),
    }
}

/// Fewest knight moves between two squares (breadth-first over the board, computed once).
fn knight_distance(a: Square, b: Square) -> u8 {
    static TABLE: std::sync::OnceLock<Vec<[u8; 64]>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..64u32)
            .map(|from| {
                let mut d = [u8::MAX; 64];
                let start = Square::new(from);
                d[start as usize] = 0;
                let mut frontier = Bitboard::from_square(start);
                let mut seen = frontier;
                let mut step = 0u8;
                while frontier.any() {
                    step += 1;
                    let mut next = Bitboard::EMPTY;
                    for sq in frontier {
                        next |= attacks::knight_attacks(sq);
                    }
                    next &= !seen;
                    for sq in next {
                        d[sq as usize] = step;
                    }
                    seen |= next;
                    frontier = next;
                }
                d
            })
            .collect()
    });
    table[a as usize][b as usize]
}

/// The loser's moves. Free: the king heading for the target corner, a piece stepping next
/// to its own king or to the corner (self-block), a knight closing in (knight distance) on
/// the square beside the corner on its rank, where it blocks the king in the knight and
/// bishop mates in a corner (as in the dive; measured on eleven corpus seeds: 6-25% fewer
/// search nodes on every one), and in walled positions a rammed pawn's capture ([`Breach`]).
/// Dear: capturing the winner's pieces otherwise.
fn classify_loser(
    pos: &Chess,
    m: &Move,
    our_king: Option<Square>,
    targets: &Targets,
) -> (u16, i32) {
    if targets.breach.opens(m) {
        return (FREE, -30);
    }
    if let Some(victim) = m.capture() {
        let cost = if victim == Role::Pawn {
            NORMAL
        } else {
            REGRESS
        };
        return (cost, 10 + role_value(victim));
    }
    let _ = pos;
    let Some(from) = m.from() else {
        return (NORMAL, 0);
    };
    if targets.loser_pushes && m.role() == Role::Pawn {
        return (FREE, -10);
    }
    if m.role() == Role::King {
        let gain = dist(from, targets.corner) - dist(m.to(), targets.corner);
        return if gain > 0 {
            (FREE, -20)
        } else {
            (NORMAL, -gain)
        };
    }
    if m.role() == Role::Knight
        && knight_distance(m.to(), targets.loser_knight)
            < knight_distance(from, targets.loser_knight)
    {
        return (FREE, -5);
    }
    let near_king = our_king.is_some_and(|k| attacks::king_attacks(k).contains(m.to()));
    if near_king || attacks::king_attacks(targets.corner).contains(m.to()) {
        return (FREE, -5);
    }
    (NORMAL, 0)
}
fn on_corner_diagonal(sq: Square, corner: Square) -> bool {
    attacks::bishop_attacks(corner, Bitboard::EMPTY).contains(sq)
}

/// No enemy pawn ahead of `sq` on its file or the adjacent files.
fn is_passed(board: &shakmaty::Board, sq: Square, color: Color) -> bool {
    let file = sq.file() as i32;
    let mut span = Bitboard::EMPTY;
    for f in (file - 1).max(0)..=(file + 1).min(7) {
        span |= Bitboard::from_file(shakmaty::File::new(f as u32));
    }
    let ahead = if color.is_white() {
        Bitboard(!0u64 << 8).0 << (8 * sq.rank() as u32)
    } else {
        (1u64 << (8 * sq.rank() as u32)) - 1
    };
    (span & Bitboard(ahead) & board.pawns() & board.by_color(!color)).is_empty()
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

/// Breadth-first search over every position reachable from `root`, with exact position
/// identities: returns the shortest helpmate, proves exhaustion when the reachable set
/// closes, or gives up after `node_limit` distinct positions. Best on small material,
/// where the reachable set is small and a helpmate may be long.
pub(crate) fn breadth_first(root: &Chess, winner: Color, node_limit: u64) -> Outcome {
    breadth_first_pruned(root, winner, node_limit, |_| false).0
}

/// [`breadth_first`], where a position reached by a capture and not in check is not
/// expanded when `proved_dead` says that no series of legal moves from it mates the
/// winner's opponent (`proved_dead` must be such a proof, never a guess). Exhaustion is
/// then still a proof: every position reachable from `root` is visited, or lies beyond a
/// position with no legal moves, dead material, or a position `proved_dead` proved, none
/// of which a helpmate passes through. Only positions after captures are tested: captures
/// change the material and free blocked pawns, so that is where a static proof may start
/// to hold; which positions are tested affects speed only. Also returns the number of
/// positions stored (the root aside), at most `node_limit`.
pub(crate) fn breadth_first_pruned(
    root: &Chess,
    winner: Color,
    node_limit: u64,
    mut proved_dead: impl FnMut(&Chess) -> bool,
) -> (Outcome, u64) {
    let mut seen: rustc_hash::FxHashSet<Key> = rustc_hash::FxHashSet::default();
    let root_key = Key::of(root);
    seen.insert(root_key);
    // Parent index and move for every position found (root has no entry).
    let mut tree: Vec<(u32, Move)> = Vec::new();
    let mut frontier: Vec<(Chess, Key, u32)> = vec![(root.clone(), root_key, u32::MAX)];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for (pos, key, idx) in frontier {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                if pos.turn() != winner && pos.is_check() {
                    return (Outcome::Mate(reconstruct(&tree, idx)), tree.len() as u64);
                }
                continue;
            }
            if material::fide_material_cannot_mate(pos.board(), winner) {
                continue;
            }
            // A child is built only when its key (from the parent's) is new.
            for &m in moves.iter() {
                let child_key = key.after(pos.turn(), &m);
                if seen.insert(child_key) {
                    if tree.len() as u64 >= node_limit {
                        return (Outcome::Limit, tree.len() as u64);
                    }
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    tree.push((idx, m));
                    if m.is_capture() && !child.is_check() && proved_dead(&child) {
                        continue;
                    }
                    next.push((child, child_key, (tree.len() - 1) as u32));
                }
            }
        }
        frontier = next;
    }
    (Outcome::Exhausted, tree.len() as u64)
}

fn reconstruct(tree: &[(u32, Move)], mut idx: u32) -> Vec<Move> {
    let mut line = Vec::new();
    while idx != u32::MAX {
        let (parent, m) = tree[idx as usize];
        line.push(m);
        idx = parent;
    }
    line.reverse();
    line
}

/// King distance between two squares (inlined: it is on the hot path of move scoring).
#[inline]
fn dist(a: Square, b: Square) -> i32 {
    let (a, b) = (a as i32, b as i32);
    ((a & 7) - (b & 7))
        .abs()
        .max((a >> 3) - (b >> 3))
        .max((b >> 3) - (a >> 3))
}

/// The winner king's square for a mate in `corner`: one file and two ranks in from it.
fn helper_of(corner: Square) -> Square {
    inward(corner, 1, 2)
}

/// The square `files` files and `ranks` ranks in from `corner` (towards the middle of the
/// board); `corner` itself if that leaves the board (never for offsets below 8).
fn inward(corner: Square, files: i32, ranks: i32) -> Square {
    let df = if corner.file() == shakmaty::File::A {
        1
    } else {
        -1
    };
    let dr = if corner.rank() == shakmaty::Rank::First {
        8
    } else {
        -8
    };
    corner.offset(files * df + ranks * dr).unwrap_or(corner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    /// Plays `walks` pseudo-random games of up to `plies` plies from each of `fens` (one
    /// linear congruential generator seeded with `seed` picks the moves of them all), calls
    /// `f(fen, position, move)` for every legal move of every position met on the way, and
    /// returns the number of calls.
    fn each_move_on_walks(
        fens: &[&str],
        walks: usize,
        plies: usize,
        mut seed: u64,
        mut f: impl FnMut(&str, &Chess, &Move),
    ) -> usize {
        let mut calls = 0;
        for &fen in fens {
            let setup = fen.parse::<Fen>().expect("valid FEN").into_setup();
            let start: Chess = setup
                .position(CastlingMode::Standard)
                .expect("legal position");
            for _ in 0..walks {
                let mut pos = start.clone();
                for _ in 0..plies {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for m in &moves {
                        f(fen, &pos, m);
                        calls += 1;
                    }
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let m = moves[(seed >> 33) as usize % moves.len()];
                    pos.play_unchecked(m);
                }
            }
        }
        calls
    }

    /// The precomputed check test gives the same answer as the direct one, and both match
    /// the position after the move (castling and en passant aside, which both call checks),
    /// over pseudo-random games from positions with sliders, pins and promotions.
    #[test]
    fn fast_check_test_matches_direct_test() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/1P6/8/3B4/8/8/6Q1/R3K2R w KQ - 0 1",
            "3q4/8/8/3k4/8/3N4/8/3RK1B1 w - - 0 1",
        ];
        let compared = each_move_on_walks(&fens, 1, 60, 0x1234_5678, |fen, pos, m| {
            let us = pos.turn();
            let k = pos.board().king_of(!us).expect("king");
            let info = CheckInfo::new(pos.board(), us, k);
            let direct = gives_check(pos, m, Some(k));
            assert_eq!(info.gives_check(pos, m), direct, "{fen}: {m:?}");
            if !m.is_castle() && !m.is_en_passant() {
                let mut child = pos.clone();
                child.play_unchecked(*m);
                assert_eq!(direct, child.is_check(), "{fen}: {m:?}");
            }
        });
        assert!(compared > 1_000, "only {compared} moves compared");
    }

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("valid FEN")
            .into_setup()
            .position(CastlingMode::Standard)
            .expect("legal position")
    }

    fn squares(list: &[Square]) -> Bitboard {
        list.iter().copied().collect()
    }

    /// The rammed pawns and the squares where a piece offered to them opens a file, for
    /// each winner, on a full-width wall of the corpus's `shut-walls` family.
    #[test]
    fn breach_finds_rammed_pawns_and_offer_squares() {
        let pos = position("6b1/1pk5/pPp1p1p1/P1PpPpPp/3P1P1P/2B2K2/8/R7 b - - 0 1");
        // White wins: every black pawn of the wall stands in front of a white pawn.
        let white = Breach::of(&pos, Color::White);
        use Square::*;
        assert_eq!(white.rams, squares(&[A6, B7, C6, D5, E6, F5, G6, H5]));
        // Black pawns capture downwards: b5 (a6, c6), a6/c6 (b7), c4/e4 (d5), ...
        assert_eq!(
            white.offers,
            squares(&[B5, D5, A6, C6, C4, E4, F5, D5, E4, G4, H5, F5, G4])
        );
        // Black wins: every white pawn stands in front of a black pawn from Black's side.
        let black = Breach::of(&pos, Color::Black);
        assert_eq!(black.rams, squares(&[A5, B6, C5, D4, E5, F4, G5, H4]));
        // White pawns capture upwards: a7/c7 (b6), b6 (a5, c5), ..., g5 (f4, h4).
        assert_eq!(
            black.offers,
            squares(&[A7, C7, B6, D6, C5, E5, D6, F6, E5, G5, F6, H6, G5])
        );
        // The rook offered on b5 and the a6-pawn taking it are the two breach moves.
        let offer = Move::Normal {
            role: Role::Rook,
            from: B1,
            capture: None,
            to: B5,
            promotion: None,
        };
        let take = Move::Normal {
            role: Role::Pawn,
            from: A6,
            capture: Some(Role::Rook),
            to: B5,
            promotion: None,
        };
        assert!(white.offers(&offer) && white.opens(&take));
        // A king or pawn is never an offer, a capture by a pawn that rams nothing never opens.
        let king = Move::Normal {
            role: Role::King,
            from: A4,
            capture: None,
            to: B5,
            promotion: None,
        };
        assert!(!white.offers(&king));
        assert!(!black.opens(&take));
    }

    /// Fewer than four rammed pairs is no wall: no breach moves at all.
    #[test]
    fn breach_needs_a_wall() {
        let pos = position("4k3/8/8/1p1p4/1P1P4/8/8/R3K3 w - - 0 1");
        let b = Breach::of(&pos, Color::White);
        assert!(b.rams.is_empty() && b.offers.is_empty());
        let pos = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(Breach::of(&pos, Color::White).rams.is_empty());
    }

    /// The pruned breadth-first search never leaves out a position in check, so a capture
    /// that mates is found even when every position after a capture is claimed dead; with
    /// nothing pruned it finds what [`breadth_first`] finds.
    #[test]
    fn pruned_breadth_first_keeps_mating_captures() {
        let pos = position("3r2k1/5ppp/8/8/8/8/8/K2R4 w - - 0 1");
        let (outcome, stored) = breadth_first_pruned(&pos, Color::White, 10_000, |_| true);
        let Outcome::Mate(line) = outcome else {
            panic!("no mate: {outcome:?}");
        };
        assert_eq!(line.len(), 1, "{line:?}");
        assert_eq!(line[0].to(), Square::D8);
        assert!(stored > 0);
        assert_eq!(
            breadth_first_pruned(&pos, Color::White, 10_000, |_| false).0,
            breadth_first(&pos, Color::White, 10_000)
        );
    }

    /// The target squares counted in from each corner.
    #[test]
    fn inward_counts_files_and_ranks_from_each_corner() {
        assert_eq!(inward(Square::A1, 1, 2), Square::B3);
        assert_eq!(inward(Square::H1, 1, 2), Square::G3);
        assert_eq!(inward(Square::A8, 1, 2), Square::B6);
        assert_eq!(inward(Square::H8, 1, 2), Square::G6);
        assert_eq!(inward(Square::H8, 3, 3), Square::E5);
        assert_eq!(inward(Square::A1, 3, 3), Square::D4);
        assert_eq!(inward(Square::H1, 1, 1), Square::G2);
        assert_eq!(inward(Square::A8, 1, 0), Square::B8);
        assert_eq!(inward(Square::H8, 1, 0), Square::G8);
    }

    /// The key computed from the parent's key and the move is the key of the position
    /// after the move, for every legal move along pseudo-random games (castling both ways,
    /// en passant, promotions with and without capture, captures of rooks on their corner).
    #[test]
    fn key_after_move_matches_key_of_position() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ];
        let compared = each_move_on_walks(&fens, 8, 80, 0x9e37_79b9, |fen, pos, m| {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            assert!(
                Key::of(pos).after(pos.turn(), m) == Key::of(&child),
                "{fen}: {m:?}"
            );
        });
        assert!(compared > 10_000, "only {compared} moves compared");
    }
}
