//! flagfall-game: the game script, the arbiter state machine, replay and PGN.
//!
//! - [`script`]: the game-script format (docs/game-script.md), parsed strictly.
//! - [`arbiter`]: [`Game`], the deterministic state machine that applies events and
//!   records every ruling with its rule (`docs/arbiter.md`).
//! - [`replay`]: run a whole script and produce the [`Replay`] report.
//! - [`pgn`]: the game as PGN, and back.

pub mod arbiter;
/// Moves chosen at random on a seeded generator: the practice computer's chess, and (test
/// hook, feature `test-support`) random games for benchmarks and property tests.
pub mod generate;
pub mod live;
pub mod outcome;
pub mod pgn;
pub mod script;

use serde::Serialize;

pub use arbiter::{Game, SharedTablebase};
pub use live::{MoveEntry, MoveList};
pub use outcome::{GameResult, Outcome, Reason, Ruling, RulingKind};
pub use script::{Action, ClaimKind, Event, GameSetup, Party, Script, ScriptError};

/// Clock readings in a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClockReport {
    pub white_ms: i64,
    pub black_ms: i64,
}

/// What `flagfall replay` prints (docs/game-script.md §4).
#[derive(Debug, Clone, Serialize)]
pub struct Replay {
    pub result: GameResult,
    pub reason: Option<Reason>,
    pub rule: Option<String>,
    pub clock: ClockReport,
    pub fen: String,
    pub rulings: Vec<Ruling>,
    /// The final state, for PGN export and inspection.
    #[serde(skip)]
    pub game: Game,
}

impl Replay {
    /// The report of a game in its current state.
    pub fn of(game: Game) -> Replay {
        let (result, reason, rule) = game.verdict();
        Replay {
            result,
            reason,
            rule,
            clock: ClockReport {
                white_ms: game.remaining(shakmaty::Color::White),
                black_ms: game.remaining(shakmaty::Color::Black),
            },
            fen: game.board_position().fen(),
            rulings: game.rulings().to_vec(),
            game,
        }
    }

    /// The report as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// Replay a whole script through the arbiter. Deterministic: the same script always
/// gives the same report.
pub fn replay(script: &Script) -> Replay {
    replay_observed(script, |_, _| {})
}

/// [`replay`], calling `observe(game, n)` after the events up to number `n` (1-based)
/// have been applied (simultaneous claims are applied together and observed once).
pub fn replay_observed(script: &Script, observe: impl FnMut(&Game, usize)) -> Replay {
    replay_game(Game::new(script.setup.clone()), script, observe)
}

/// [`replay`] with endgame tables for the director's assistant (see [`SharedTablebase`];
/// `None` is the same as [`replay`]).
pub fn replay_with_tablebase(script: &Script, tablebase: Option<SharedTablebase>) -> Replay {
    let game = Game::new(script.setup.clone()).with_tablebase(tablebase);
    replay_game(game, script, |_, _| {})
}

/// Replay `script` on `game` (a fresh [`Game`] for the script's setup, possibly
/// configured, e.g. [`Game::with_tablebase`]), observing as [`replay_observed`] does.
pub fn replay_game(
    mut game: Game,
    script: &Script,
    mut observe: impl FnMut(&Game, usize),
) -> Replay {
    apply_events(&mut game, &script.events, 1, &mut observe);
    Replay::of(game)
}

/// Apply `events`, numbered from `first` (1-based), grouping simultaneous claims and a
/// stalemate against a flag claim as a replay does; `observe(game, n)` after each group.
fn apply_events(
    game: &mut Game,
    events: &[Event],
    first: usize,
    observe: &mut dyn FnMut(&Game, usize),
) {
    let mut consumed = vec![false; events.len()];
    for i in 0..events.len() {
        if consumed[i] {
            continue;
        }
        if let Some((j, stalemated)) =
            stalemate_at_the_same_moment(game, events, i, &consumed, first)
        {
            // The stalemate stands even if a fallen flag is claimed at the same moment
            // (blitz-2006 8a; applied in every ruleset, docs/arbiter.md): the events up
            // to the stalemating press come first, then the claim, observed once.
            consumed[i + 1..=j].fill(true);
            *game = stalemated;
            game.apply(&events[i], i + first);
            observe(game, j + first);
            continue;
        }
        if let Some(j) = simultaneous_partner(game, events, i, &consumed) {
            consumed[j] = true;
            game.apply_simultaneous_claims(&events[i], i + first, &events[j], j + first);
            observe(game, j + first);
            continue;
        }
        game.apply(&events[i], i + first);
        observe(game, i + first);
    }
}

/// The claim an event makes and the player making it (`None` for other events and for
/// claims not made by a player).
fn claim_by_player(e: &Event) -> Option<(ClaimKind, shakmaty::Color)> {
    match (&e.action, e.by.and_then(Party::color)) {
        (Action::Claim { claim, .. }, Some(p)) => Some((*claim, p)),
        _ => None,
    }
}

/// The events after event `i`, in order, that are not yet applied and no later than the
/// simultaneity window after it (uscf-2020 7e, uscf-classic 2a, blitz-2006 7a5).
fn window_after<'a>(
    game: &Game,
    events: &'a [Event],
    i: usize,
    consumed: &'a [bool],
) -> impl Iterator<Item = (usize, &'a Event)> + 'a {
    let end = events[i].at.saturating_add(game.setup().simultaneous_ms);
    events
        .iter()
        .enumerate()
        .skip(i + 1)
        .take_while(move |(_, e)| e.at <= end)
        .filter(move |(j, _)| !consumed[*j])
}

/// A flag claim and an illegal-move claim by the two players no further apart than the
/// simultaneity window (uscf-2020 7e, uscf-classic 2a, blitz-2006 7a5).
fn simultaneous_partner(
    game: &Game,
    events: &[Event],
    i: usize,
    consumed: &[bool],
) -> Option<usize> {
    let kind_of = |e: &Event| {
        claim_by_player(e).filter(|(c, _)| matches!(c, ClaimKind::Flag | ClaimKind::Illegal))
    };
    let (k1, p1) = kind_of(&events[i])?;
    window_after(game, events, i, consumed)
        .find(|(_, e)| kind_of(e).is_some_and(|(k2, p2)| p2 == !p1 && k2 != k1))
        .map(|(j, _)| j)
}

/// A flag claim, and within the simultaneity window a press by the other player that
/// completes a stalemating move: the index of that press and the game with every event
/// from the claim (excluded) up to that press applied in order. Only stalemate is given
/// this precedence (blitz-2006 8a, docs/rules.md §3.7); a mating press and a flag claim at the same
/// moment are decided in the order of the record (docs/arbiter.md).
fn stalemate_at_the_same_moment(
    game: &Game,
    events: &[Event],
    i: usize,
    consumed: &[bool],
    first: usize,
) -> Option<(usize, Game)> {
    let claimant = match claim_by_player(&events[i])? {
        (ClaimKind::Flag, p) => p,
        _ => return None,
    };
    if game.is_over() {
        return None;
    }
    let mut trial = game.clone();
    for (j, e) in window_after(game, events, i, consumed) {
        trial.apply(e, j + first);
        if let Some(o) = trial.outcome() {
            let presses = matches!(e.action, Action::Press | Action::Move { press: true, .. });
            let by_opponent = e.by.and_then(Party::color) == Some(!claimant);
            return (presses && by_opponent && o.reason == Reason::Stalemate).then_some((j, trial));
        }
    }
    None
}
