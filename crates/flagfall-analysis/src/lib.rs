//! flagfall-analysis: can a side still checkmate?
//!
//! One place the arbiter asks about mating material, whatever the ruleset:
//!
//! - [`material`]: the US Chess piece-count definitions (uscf-2020 7c, blitz-2006 7b).
//! - [`can_checkmate`]: FIDE's "any possible series of legal moves" (fide-b3 A.5.3,
//!   Art. 5.2.2, Art. 7.5.5), which must never call a position unwinnable that has a
//!   helpmate.
//!
//! The public contract below is what `flagfall-game` calls; keep it stable.
//!
//! How [`can_checkmate`] decides, cheapest first (the phases are numbered the same way in
//! the code):
//! 1. game already over; material that can never mate ([`material::fide_material_verdict`]);
//!    forced moves are played out (a forced cycle is a proof of unwinnability);
//! 2. a quick helpmate search along cheap lines (`search`, target-directed: the loser's king
//!    heads for a corner, its other pieces step in beside its king or the corner, the
//!    winner's king heads for the square that covers the corner; free are the winner's
//!    captures, promotions and pawn moves, its knights, rooks and queens closing in on the
//!    loser's king and a bishop stepping onto the corner's diagonal; behind a wall of
//!    rammed pawns, a winner's piece offered to a pawn of the wall and that pawn's capture,
//!    which opens a file for the winner's pawn behind it; mate in one is always tried;
//!    successive iterations take turns between the nearest corners and a "dive" with fewer
//!    free moves);
//! 3. the semi-static blockade analysis (`blockade`): locked pawns, confined pieces,
//!    permanently guarded squares, and an exact blocker matching for the mating net (run
//!    before phase 2 when the board has no queens, rooks or knights);
//!    3b. when one side has at most one legal move (nearly forced play, e.g. a king shut in
//!    a corner pocket whose only move is to take the knight beside it), a breadth-first
//!    search of the whole reachable set that leaves out the positions after a capture that
//!    the blockade analysis proves unwinnable (`nearly_forced_phase`);
//! 4. the helpmate search with larger budgets and capped iterations;
//! 5. with at most four pieces, a breadth-first search of the whole reachable set;
//! 6. the helpmate search uncapped, which proves unwinnability when an iteration visits
//!    every reachable position without a cut.
//!
//! Every witness is replayed before it is returned; an answer is `Undetermined` only when
//! the node limit ([`Limits::nodes`]) is spent.
//!
//! Known gap: on the benchmark corpus nothing is left `Undetermined` at the default limit,
//! but a long helpmate outside it (minor pieces, the loser's own pieces boxing its king
//! in) can still spend the limit and end `Undetermined` (never a wrong answer); see
//! BENCHMARKS.md.

pub mod assistant;
pub mod material;

mod blockade;
mod search;

use serde::Serialize;
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position, Setup, uci::UciMove,
};

/// Limits on the search; when one is hit the verdict is [`Verdict::Undetermined`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum number of positions visited by the searches (all phases together). With
    /// the default, a hard query takes about a second.
    pub nodes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { nodes: 2_000_000 }
    }
}

/// Why a side cannot checkmate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnwinnableReason {
    /// The intended winner has only its king.
    BareKing,
    /// The material left cannot mate whatever the opponent does (e.g. K+B, K+N).
    InsufficientMaterial,
    /// Only bishops of one square colour and the loser's pieces cannot help.
    SameColouredBishops,
    /// Pawns are locked and no piece can break through.
    LockedPawns,
    /// The game can no longer continue (already mate or stalemate for the other side).
    NoLegalMoves,
    /// The winner's pieces can never reach a mating net around the other king (semi-static
    /// blockade analysis: confined pieces, permanently guarded squares, too few blockers).
    Confined,
    /// The search exhausted every reachable position without finding a mate (this includes
    /// a forced line that cycles).
    Exhausted,
}

/// The answer to "can `winner` still checkmate by some series of legal moves?".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// A helpmate exists; `witness` is a verified line of UCI moves ending in mate.
    Winnable { witness: Vec<String> },
    /// No series of legal moves mates the other king.
    Unwinnable { reason: UnwinnableReason },
    /// A documented limit was hit (or the position is not a legal chess position).
    Undetermined { reason: String },
}

impl Verdict {
    /// True unless the position was proved unwinnable: the arbiter's reading, which gives
    /// a claimant the benefit of the doubt on `Undetermined`.
    pub fn may_win(&self) -> bool {
        !matches!(self, Verdict::Unwinnable { .. })
    }
}

/// FIDE's test: can `winner` checkmate the other king by any possible series of legal
/// moves from `setup` (side to move as in the setup)? fide-b3 A.5.3 (flag fall), Art. 7.5.5
/// (second illegal move), Art. 5.2.2 (dead position).
///
/// The answer is exact: [`Verdict::Winnable`] carries a helpmate that was replayed and
/// checked before being returned; [`Verdict::Unwinnable`] is a proof (material, a forced
/// line, the semi-static blockade analysis, or an exhaustive search); and
/// [`Verdict::Undetermined`] is returned only when `limits.nodes` search nodes were spent,
/// or when the setup is not a chess position the move generator can work with.
///
/// **Interpretations.**
/// - The 50/75-move rules and repetitions are ignored: "any possible series of legal
///   moves" is read as in the Laws' definition of a dead position, without the clock-like
///   counters (the same reading as the Chess Unwinnability Analyzer).
/// - Physically illegal setups: invalid castling rights and en passant squares are
///   dropped, and too much material or an impossible check configuration are accepted
///   as they are (the move generator handles them); the verdict and the witness then
///   refer to that repaired position. Setups still unusable (a king missing, the side not
///   to move in check, pawns on a back rank, ...) are `Undetermined`, except that a winner
///   with nothing but king(s) is `Unwinnable` (a king never gives check).
pub fn can_checkmate(setup: &Setup, winner: Color, limits: &Limits) -> Verdict {
    can_checkmate_counting(setup, winner, limits).0
}

/// [`can_checkmate`], also returning the search nodes it spent: the positions visited by
/// the helpmate searches plus the budget of a breadth-first phase that did not decide
/// (the amount counted against [`Limits::nodes`]; 0 when no search ran). Node counts
/// repeat exactly from run to run, unlike times, so the benchmarks report them to compare
/// versions of the search (the `compare` example prints them per family).
pub fn can_checkmate_counting(setup: &Setup, winner: Color, limits: &Limits) -> (Verdict, u64) {
    match position_from_setup(setup) {
        Ok(pos) => analyse(&pos, winner, limits),
        Err(reason) => {
            let ours = setup.board.by_color(winner);
            let verdict = if (ours & !setup.board.kings()).is_empty() {
                Verdict::Unwinnable {
                    reason: UnwinnableReason::BareKing,
                }
            } else {
                Verdict::Undetermined { reason }
            };
            (verdict, 0)
        }
    }
}

/// Builds a playable position, repairing what can be repaired (see [`can_checkmate`]).
pub(crate) fn position_from_setup(setup: &Setup) -> Result<Chess, String> {
    let mut attempt = Chess::from_setup(setup.clone(), CastlingMode::Standard);
    for step in 0..4 {
        attempt = match attempt {
            Ok(pos) => return Ok(pos),
            Err(e) => match step {
                0 => e.ignore_invalid_castling_rights(),
                1 => e.ignore_invalid_ep_square(),
                2 => e.ignore_too_much_material(),
                _ => e.ignore_impossible_check(),
            },
        };
    }
    attempt.map_err(|e| format!("not a playable chess position: {e}"))
}

/// Budget of the quick first search (cheap lines only), its node cap, and its node cap
/// per iteration and unit of budget (200: 3,000 nodes at most over the five iterations;
/// on three corpus seeds 2-5% fewer search nodes than 400, about the same as 150, and
/// 800 and 1,500 each worse than the one before).
const QUICK_BUDGET: u16 = 4;
const QUICK_NODES: u64 = 6_000;
const QUICK_CAP: u64 = 200;
/// The capped deep search: budgets up to this, node cap per iteration and budget unit
/// (at most about 86,000 nodes over the 41 iterations). Every capped iteration ends on its
/// cap, so the cap sets how often the search restarts with another corner, style and
/// tie-break salt: on four corpus seeds, search nodes fall from 1,000 (9.4 M in all) to
/// 500 (8.2 M), 250 (7.6 M) and 100 (6.5 M); 50 is worse on one seed and 25 on all (too
/// many queries fall through to the uncapped search).
const DEEP_BUDGET: u16 = 40;
const DEEP_CAP: u64 = 100;
/// Positions with at most this many pieces (kings included) get the breadth-first phase.
const BFS_MAX_PIECES: usize = 4;
/// Most positions the breadth-first phase stores.
const BFS_NODES: u64 = 300_000;
/// Longest forced line followed before searching.
const MAX_FORCED: usize = 64;

/// Phase 1, then the search phases ([`search_phases`]); the verdict and the search nodes spent.
fn analyse(root: &Chess, winner: Color, limits: &Limits) -> (Verdict, u64) {
    // Phase 1: game over, material, forced moves.
    let mut pos = root.clone();
    let mut prefix: Vec<Move> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    loop {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            if pos.turn() != winner && pos.is_check() {
                return (finish(root, winner, prefix), 0);
            }
            return (
                Verdict::Unwinnable {
                    reason: UnwinnableReason::NoLegalMoves,
                },
                0,
            );
        }
        if let Some(v) = material::fide_material_verdict(pos.board(), winner) {
            let reason = match v {
                material::MaterialVerdict::BareKing => UnwinnableReason::BareKing,
                material::MaterialVerdict::LoneKnight => UnwinnableReason::InsufficientMaterial,
                material::MaterialVerdict::SameColouredBishops => {
                    UnwinnableReason::SameColouredBishops
                }
            };
            return (Verdict::Unwinnable { reason }, 0);
        }
        if moves.len() != 1 || prefix.len() >= MAX_FORCED {
            break;
        }
        if !seen.insert(search::Key::of(&pos)) {
            // A forced cycle: the game can only go round it, and no position on it is mate.
            return (
                Verdict::Unwinnable {
                    reason: UnwinnableReason::Exhausted,
                },
                0,
            );
        }
        prefix.push(moves[0]);
        pos.play_unchecked(moves[0]);
    }

    let mut searcher = search::Searcher::new(winner, QUICK_NODES.min(limits.nodes));
    let verdict = search_phases(root, &pos, &prefix, winner, limits, &mut searcher);
    (verdict, searcher.nodes)
}

/// Phases 2-6 from `pos`, the position after the forced moves `prefix` from `root`.
fn search_phases(
    root: &Chess,
    pos: &Chess,
    prefix: &[Move],
    winner: Color,
    limits: &Limits,
    searcher: &mut search::Searcher,
) -> Verdict {
    // Phase 3 first when there are no queens, rooks and knights (pawns and bishops only):
    // the blockade analysis then often proves the position unwinnable (locked walls) for
    // less than the quick search costs (the Chess Unwinnability Analyzer orders its phases
    // the same way). Measured on the corpus: 7% fewer search nodes, 3% fewer instructions.
    let b = pos.board();
    let early = (b.queens() | b.rooks() | b.knights()).is_empty();
    if early && let Some(v) = static_phase(pos, winner, searcher) {
        return v;
    }

    // Phase 2: quick search along cheap lines.
    searcher.set_iteration_cap(QUICK_CAP);
    let outcome = searcher.deepen(pos, 0, QUICK_BUDGET);
    if let Some(v) = decided(outcome, root, winner, prefix) {
        return v;
    }

    // Phase 3: semi-static blockade analysis.
    if !early && let Some(v) = static_phase(pos, winner, searcher) {
        return v;
    }

    // Phase 3b: nearly forced play (one side with at most one legal move): a breadth-first
    // search that leaves out what the blockade analysis proves dead after a capture.
    if let Some(v) = nearly_forced_phase(root, pos, prefix, winner, limits, searcher) {
        return v;
    }

    // Phase 4: the capped helpmate search (finds long helpmates along cheap lines), up to
    // three fifths of the node limit.
    searcher.set_node_limit(limits.nodes.saturating_mul(3) / 5);
    searcher.set_iteration_cap(DEEP_CAP);
    let outcome = searcher.deepen(pos, 0, DEEP_BUDGET);
    if let Some(v) = decided(outcome, root, winner, prefix) {
        return v;
    }

    // Phase 5: small material: breadth-first over the whole reachable set (shortest
    // helpmate, or a proof once the set closes). It runs after the capped search because
    // it has to fill its whole budget before giving up, while the capped search finds most
    // long minor-piece helpmates within a few thousand nodes.
    if pos.board().occupied().count() <= BFS_MAX_PIECES {
        let budget = BFS_NODES.min(limits.nodes.saturating_sub(searcher.nodes) / 2);
        let outcome = search::breadth_first(pos, winner, budget);
        if let Some(v) = decided(outcome, root, winner, prefix) {
            return v;
        }
        searcher.nodes += budget;
    }

    // Phase 6: the uncapped search (can prove exhaustion), up to the node limit.
    searcher.set_node_limit(limits.nodes);
    searcher.set_iteration_cap(u64::MAX);
    let outcome = searcher.deepen(pos, 0, u16::MAX);
    decided(outcome, root, winner, prefix).unwrap_or_else(|| Verdict::Undetermined {
        reason: format!("node limit of {} reached", limits.nodes),
    })
}

/// Most positions the breadth-first search of nearly forced play stores (phase 3b). The
/// corner pockets of the corpus (`pockets`) close within 300.
const FORCED_BFS_NODES: u64 = 2_000;

/// Phase 3b: when one side has at most one legal move (in `pos`, or after the first legal
/// move of the side to move), play is nearly forced and the reachable set is often small,
/// but the budgeted depth-first search cannot prove it exhausted (a node that cannot
/// afford a move counts as cut, whatever else visited it). A king shut in a corner pocket
/// behind a locked wall, whose only move is to take the knight beside it, is the typical
/// case: every knight move stalemates it, and once the knight is taken every pawn is
/// locked for good. So: a breadth-first search over every reachable position
/// ([`search::breadth_first_pruned`]), where a position reached by a capture that the
/// blockade analysis proves unwinnable for `winner` is not expanded.
///
/// Why exhaustion is a proof: suppose a helpmate `p0 = pos, p1, ..., pn` exists (`pn` the
/// mate). The search stores every child of every position it expands (or has stored it
/// already), so by induction each `p_i` is stored and then expanded, unless the search
/// stops at it, which happens only when: `p_i` has no legal moves (only `pn` can be such a
/// position, and there the search reports the mate); the material of `p_i` can never mate
/// ([`material`]; yet `pn` follows `p_i`); or `p_i` was stored after a capture, is not in
/// check, and the blockade analysis proved that no series of legal moves from it mates
/// `!winner` (the analysis's invariant, see `blockade`, holds from `p_i` on; yet `pn`
/// follows). So the mate is found before the positions run out, and a search that closes
/// without one proves there is none. Which positions get the static test affects speed
/// only, never soundness; the trigger is ordering only: it costs two move generations, and
/// no query of the other corpus families meets it.
///
/// The nodes the phase spent (the positions stored) are added to the searcher's count.
fn nearly_forced_phase(
    root: &Chess,
    pos: &Chess,
    prefix: &[Move],
    winner: Color,
    limits: &Limits,
    searcher: &mut search::Searcher,
) -> Option<Verdict> {
    let moves = pos.legal_moves();
    let theirs = moves.first().map_or(0, |&m| {
        let mut child = pos.clone();
        child.play_unchecked(m);
        child.legal_moves().len()
    });
    if moves.len().min(theirs) > 1 {
        return None;
    }
    let budget = FORCED_BFS_NODES.min(limits.nodes.saturating_sub(searcher.nodes) / 2);
    let (outcome, stored) = search::breadth_first_pruned(pos, winner, budget, |child| {
        let (verdict, _) = blockade::analyse(
            child.board(),
            child.ep_square(EnPassantMode::Legal),
            child.turn(),
            winner,
        );
        verdict != blockade::StaticVerdict::Unknown
    });
    searcher.nodes += stored;
    decided(outcome, root, winner, prefix)
}

/// The verdict a search phase reached: a helpmate (after the forced `prefix`, verified by
/// [`finish`]) or a proof that the search space is exhausted; `None` when it stopped at its
/// limit and the next phase has to go on.
fn decided(
    outcome: search::Outcome,
    root: &Chess,
    winner: Color,
    prefix: &[Move],
) -> Option<Verdict> {
    match outcome {
        search::Outcome::Mate(line) => {
            Some(finish(root, winner, [prefix, line.as_slice()].concat()))
        }
        search::Outcome::Exhausted => Some(Verdict::Unwinnable {
            reason: UnwinnableReason::Exhausted,
        }),
        search::Outcome::Limit => None,
    }
}

/// The semi-static blockade analysis (`blockade`): a proof of unwinnability, or `None`
/// after pointing the searcher at the corners the loser's king can reach.
fn static_phase(pos: &Chess, winner: Color, searcher: &mut search::Searcher) -> Option<Verdict> {
    let (static_verdict, region) = blockade::analyse(
        pos.board(),
        pos.ep_square(EnPassantMode::Legal),
        pos.turn(),
        winner,
    );
    searcher.retarget(pos, region);
    match static_verdict {
        blockade::StaticVerdict::UnwinnableLocked => Some(Verdict::Unwinnable {
            reason: UnwinnableReason::LockedPawns,
        }),
        blockade::StaticVerdict::Unwinnable => Some(Verdict::Unwinnable {
            reason: UnwinnableReason::Confined,
        }),
        blockade::StaticVerdict::Unknown => None,
    }
}

/// Replays `line` from `root`, checks that it ends with the loser checkmated, and
/// returns it as UCI. A line that fails the check is never returned.
fn finish(root: &Chess, winner: Color, line: Vec<Move>) -> Verdict {
    match verify_witness(root, winner, &line) {
        Ok(witness) => Verdict::Winnable { witness },
        Err(e) => Verdict::Undetermined {
            reason: format!("internal error: helpmate failed verification ({e})"),
        },
    }
}

/// Replays UCI `moves` from `root` and checks they end in mate of `!winner`.
pub(crate) fn verify_uci(root: &Chess, winner: Color, moves: &[String]) -> Result<(), String> {
    let mut pos = root.clone();
    for (i, text) in moves.iter().enumerate() {
        let uci: UciMove = text
            .parse()
            .map_err(|e| format!("move {} `{text}`: {e}", i + 1))?;
        let m = uci
            .to_move(&pos)
            .map_err(|e| format!("move {} `{text}`: {e}", i + 1))?;
        pos.play_unchecked(m);
    }
    if pos.is_checkmate() && pos.turn() != winner {
        Ok(())
    } else {
        Err("the line does not end in checkmate of the other side".to_string())
    }
}

/// Replays the search's `line` from `root`, each move checked legal by the move generator
/// (`Position::is_legal`) before it is played, and checks that it ends with `!winner`
/// checkmated; then writes it as UCI. The same test as [`verify_uci`] without the round trip
/// through text (which cost about 2% of the analysis time on the benchmark corpus).
fn verify_witness(root: &Chess, winner: Color, line: &[Move]) -> Result<Vec<String>, String> {
    let mut pos = root.clone();
    for (i, &m) in line.iter().enumerate() {
        if !pos.is_legal(m) {
            return Err(format!(
                "move {} `{}` is not legal",
                i + 1,
                m.to_uci(CastlingMode::Standard)
            ));
        }
        pos.play_unchecked(m);
    }
    if !(pos.is_checkmate() && pos.turn() != winner) {
        return Err("the line does not end in checkmate of the other side".to_string());
    }
    Ok(line.iter().map(uci_text).collect())
}

/// A move in UCI notation (castling as the king's two-square step), written with shakmaty's
/// `append_to_string`, without the formatting machinery of `to_string` (which took about 8%
/// of the analysis of locked walls, whose witnesses are long).
fn uci_text(m: &Move) -> String {
    let mut text = String::with_capacity(5);
    m.to_uci(CastlingMode::Standard).append_to_string(&mut text);
    text
}

/// Checks a witness line given in UCI against `setup`: `Ok` if it replays legally to a
/// checkmate of `winner`'s opponent.
pub fn verify_helpmate(setup: &Setup, winner: Color, moves: &[String]) -> Result<(), String> {
    let root = position_from_setup(setup)?;
    verify_uci(&root, winner, moves)
}
