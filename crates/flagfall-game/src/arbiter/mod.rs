//! The arbiter: a deterministic state machine over game-script events.
//!
//! One [`Game`] holds the physical board, the clock and everything the rules need to
//! remember (the claim window on an illegal move, offers, pending claims, penalty
//! ladders). [`Game::apply`] takes one event and records every decision as a
//! [`Ruling`] citing its rule. The behaviour is specified in `docs/arbiter.md`.
//!
//! This module holds the state, construction, accessors and the dispatch of events; one
//! `impl Game` per concern in the submodules:
//!
//! - `record`: recording rulings, refusals and results;
//! - `moves`: moves, presses and retractions;
//! - `claims`: flag, both-flags and illegal-move claims, mating material;
//! - `draws`: offers, threefold and fifty-move claims, dead and illegal positions, and
//!   the claims that wait for the director;
//! - `director`: a player's call for the director; the director's clock, time changes,
//!   offences and results;
//! - `time`: automatic flagging, stopping and restarting the clock for claims.

use std::sync::Arc;

use flagfall_analysis::assistant::{DrawClaim, Recommendation, Tablebase};
use flagfall_core::board::{BoardRules, MoveRecord, PhysicalMove, PhysicalPosition, RepetitionKey};
use flagfall_core::clock::Clock;
use flagfall_core::colour;
use flagfall_core::ruleset::{OffenceKind, PenaltyStep, PressWithoutMove, Ruleset};
use shakmaty::{Color, Square};

use crate::outcome::{GameResult, Outcome, Reason, Ruling};
use crate::script::{Action, Event, GameSetup, Party};

mod claims;
mod director;
mod draws;
mod moves;
mod record;
mod time;

pub use draws::recommendation_rule;

const MINUTE: i64 = 60_000;

/// A move on the board, not yet completed by a press.
#[derive(Debug, Clone)]
struct Pending {
    mover: Color,
    record: MoveRecord,
    after: PhysicalPosition,
}

/// A completed move, as the game record keeps it.
#[derive(Debug, Clone)]
pub struct Completed {
    pub at: u64,
    pub record: MoveRecord,
    /// The position before the move, kept for illegal moves only (a correct claim may
    /// reinstate it); legal moves are never taken back.
    pub before: Option<Box<PhysicalPosition>>,
    /// The event that completed it.
    pub event: usize,
}

/// The open claim window on a completed illegal move.
#[derive(Debug, Clone)]
struct Window {
    offender: Color,
    act: IllegalAct,
}

/// What the claim window is open on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IllegalAct {
    /// A completed illegal move: its index in `history`.
    Move(usize),
    /// A press of the clock without a move, where the ruleset counts it as an illegal
    /// move (`moves.press_without_move = illegal_move`, Laws 7.5.3).
    Press,
}

/// A press of the clock without a move that counted as a move
/// (`moves.press_without_move = illegal_move`, Laws 7.5.3 through fide-b3 A.5.2): the
/// turn passed to the opponent with nothing moved. Kept while it stands.
#[derive(Debug, Clone)]
struct Pass {
    by: Color,
    /// The moves completed before it (`history.len()` at the press).
    after_moves: usize,
    /// The position before it, reinstated when it is claimed.
    before: PhysicalPosition,
    /// The touch-move obligation the press set aside, restored with the position.
    touch: Option<(Color, Square)>,
}

/// A player's last completed act: a move, or a press without a move that counted as one.
enum LastAct<'a> {
    Move(&'a Completed),
    Pass,
}

/// A claim waiting for the director.
#[derive(Debug, Clone)]
struct PendingClaim {
    claimant: Color,
    kind: DrawClaim,
    recommendation: Recommendation,
}

/// A player's call for the director (`call_director`): the clock stopped at `at` and the
/// game waits for the director.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub by: Color,
    pub at: u64,
    pub reason: Option<String>,
}

/// Endgame tables the director's assistant consults (blitz-2006 8e-8i, club-ilc 4.3: "a
/// forced win can be demonstrated"). Opened once by the program (e.g. `flagfall-syzygy`)
/// and shared by every game; the arbiter only asks it, it never reads files itself.
#[derive(Clone)]
pub struct SharedTablebase(pub Arc<dyn Tablebase + Send + Sync>);

impl std::fmt::Debug for SharedTablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedTablebase")
    }
}

/// The state of one game under one ruleset.
#[derive(Debug, Clone)]
pub struct Game {
    /// Shared by every copy of the game: the ruleset is the largest part of a fresh
    /// game, and a copy (the server's for its readers, an undo) need not repeat it.
    setup: Arc<GameSetup>,
    tablebase: Option<SharedTablebase>,
    rules: BoardRules,
    /// The position after the last completed move.
    pos: PhysicalPosition,
    pending: Option<Pending>,
    clock: Clock,
    history: Vec<Completed>,
    /// The presses without a move that counted as moves and stand (see [`Pass`]).
    passes: Vec<Pass>,
    /// Repetition keys of the start position and of every position a completed move or a
    /// standing pass left.
    keys: Vec<RepetitionKey>,
    window: Option<Window>,
    /// Illegal moves caught (claimed or called) per player.
    illegal_caught: [u32; 2],
    /// After a retracted or reinstated illegal move: the piece that must move.
    touch: Option<(Color, Square)>,
    offer: Option<Color>,
    claim: Option<PendingClaim>,
    paused_by_director: bool,
    /// A player's call for the director, pending until the director acts.
    called: Option<Call>,
    offences: Vec<(Color, OffenceKind)>,
    /// fide-b3 A.5.4: an illegal position of the kinds it names was on the board after
    /// the last completed move.
    watch_a54: bool,
    /// The player whose completed move put his king next to the other king (uscf-2020 7d).
    adjacent_by: Option<Color>,
    outcome: Option<Outcome>,
    cancelled: bool,
    ended_at: Option<u64>,
    last_at: u64,
    rulings: Vec<Ruling>,
}

impl Game {
    /// A new game from a validated setup; White's (or the side to move's) clock starts at 0.
    pub fn new(setup: GameSetup) -> Game {
        let rules = BoardRules {
            setup_castling: setup.ruleset.moves.setup_castling,
        };
        let pos = setup.start.clone();
        let mut clock = Clock::new(setup.time_control);
        clock.start(0, pos.turn());
        let keys = vec![pos.repetition_key()];
        Game {
            rules,
            pos,
            pending: None,
            clock,
            history: Vec::new(),
            passes: Vec::new(),
            keys,
            window: None,
            illegal_caught: [0, 0],
            touch: None,
            offer: None,
            claim: None,
            paused_by_director: false,
            called: None,
            offences: Vec::new(),
            watch_a54: false,
            adjacent_by: None,
            outcome: None,
            cancelled: false,
            ended_at: None,
            last_at: 0,
            rulings: Vec::new(),
            setup: Arc::new(setup),
            tablebase: None,
        }
    }

    /// The same game, with `tablebase` consulted for the director's recommendation on
    /// `ilc` and `draw_position` claims.
    pub fn with_tablebase(mut self, tablebase: Option<SharedTablebase>) -> Game {
        self.tablebase = tablebase;
        self
    }

    pub fn setup(&self) -> &GameSetup {
        &self.setup
    }

    pub fn ruleset(&self) -> &Ruleset {
        &self.setup.ruleset
    }

    /// The result so far (`None` while the game goes on).
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// True when the director annulled the game for a replay.
    pub fn cancelled(&self) -> bool {
        self.cancelled
    }

    pub fn is_over(&self) -> bool {
        self.outcome.is_some() || self.cancelled
    }

    pub fn rulings(&self) -> &[Ruling] {
        &self.rulings
    }

    /// Every completed move, legal or not, in order (moves taken back by a reinstatement
    /// are gone).
    pub fn history(&self) -> &[Completed] {
        &self.history
    }

    /// Who completed the last act on the board: the last completed move, or a press
    /// without a move after it that counted as a move (`moves.press_without_move =
    /// illegal_move`). `None` before anything was completed.
    pub fn last_completed_by(&self) -> Option<Color> {
        match self.passes.last() {
            Some(pass) if pass.after_moves == self.history.len() => Some(pass.by),
            _ => self.history.last().map(|c| c.record.mover),
        }
    }

    /// `side`'s last completed act, if any.
    fn last_act_of(&self, side: Color) -> Option<LastAct<'_>> {
        let last_move = self
            .history
            .iter()
            .enumerate()
            .rev()
            .find(|(_, c)| c.record.mover == side);
        let last_pass = self.passes.iter().rev().find(|p| p.by == side);
        match (last_move, last_pass) {
            (Some((i, _)), Some(pass)) if pass.after_moves > i => Some(LastAct::Pass),
            (Some((_, c)), _) => Some(LastAct::Move(c)),
            (None, Some(_)) => Some(LastAct::Pass),
            (None, None) => None,
        }
    }

    /// The physical board as it stands, including a move not yet pressed.
    pub fn board_position(&self) -> &PhysicalPosition {
        self.pending.as_ref().map_or(&self.pos, |p| &p.after)
    }

    /// The position of the last completed move.
    pub fn position(&self) -> &PhysicalPosition {
        &self.pos
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The instant the clock readings refer to: the end of the game, or the last event.
    pub fn now(&self) -> u64 {
        self.ended_at.unwrap_or(self.last_at)
    }

    /// Time left for `side` at [`Game::now`].
    pub fn remaining(&self, side: Color) -> i64 {
        self.clock.remaining(self.now(), side)
    }

    /// The move on the board not yet completed by a press: who made it and the move.
    pub fn board_move(&self) -> Option<(Color, PhysicalMove)> {
        self.pending.as_ref().map(|p| (p.mover, p.record.mv))
    }

    /// The standing draw offer: who made it.
    pub fn draw_offer(&self) -> Option<Color> {
        self.offer
    }

    /// The claim waiting for the director: claimant, kind and the assistant's advice.
    pub fn pending_claim(&self) -> Option<(Color, crate::script::ClaimKind, &Recommendation)> {
        self.claim.as_ref().map(|c| {
            let kind = match c.kind {
                DrawClaim::Ilc => crate::script::ClaimKind::Ilc,
                DrawClaim::DrawPosition => crate::script::ClaimKind::DrawPosition,
            };
            (c.claimant, kind, &c.recommendation)
        })
    }

    /// True while the director has stopped the clock.
    pub fn paused_by_director(&self) -> bool {
        self.paused_by_director
    }

    /// The pending call for the director: who called, when and why.
    pub fn called(&self) -> Option<&Call> {
        self.called.as_ref()
    }

    /// True while the game is halted for the director: a claim waits for a ruling, the
    /// director stopped the clock, or a player called the director.
    pub fn halted(&self) -> bool {
        self.claim.is_some() || self.paused_by_director || self.called.is_some()
    }

    /// Whether `p` may press the clock now, as the arbiter would take it: the game on and
    /// not halted, `p`'s clock running, and either `p`'s own move on the board or a
    /// ruleset that lets a press without a move stand (docs/rules.md; refused otherwise).
    pub fn may_press(&self, p: Color) -> bool {
        if self.is_over() || self.halted() || self.clock.running() != Some(p) {
            return false;
        }
        self.pending.as_ref().is_some_and(|pm| pm.mover == p)
            || self.setup.ruleset.moves.press_without_move != PressWithoutMove::Refused
    }

    /// Whether `p` may take back the move on the board now: `p`'s own move, not yet
    /// pressed, and either illegal or under a ruleset that lets a legal move be taken back
    /// (`retract_legal`; touch move forbids it otherwise).
    pub fn may_retract(&self, p: Color) -> bool {
        if self.is_over() {
            return false;
        }
        self.pending.as_ref().is_some_and(|pm| {
            pm.mover == p
                && (!pm.record.legality.is_legal() || self.setup.ruleset.moves.retract_legal)
        })
    }

    /// The offences of `kind` already recorded against `player`.
    pub fn offence_count(&self, player: Color, kind: OffenceKind) -> usize {
        self.offences
            .iter()
            .filter(|(p, k)| *p == player && *k == kind)
            .count()
    }

    /// The step of the ruleset's ladder the next offence of `kind` by `player` gets, and
    /// the rule of the ladder (what `offence` would rule now, as `on_offence` counts).
    pub fn next_penalty(&self, player: Color, kind: OffenceKind) -> (PenaltyStep, &str) {
        let nth = u32::try_from(self.offence_count(player, kind))
            .unwrap_or(u32::MAX - 1)
            .saturating_add(1);
        self.setup.ruleset.penalty_step(kind, nth)
    }

    /// The legal moves for the side to move (what a UI may offer).
    pub fn legal_moves(&self) -> Vec<PhysicalMove> {
        if self.is_over() {
            return Vec::new();
        }
        self.pos.legal_moves(&self.rules)
    }

    // ----- events ----------------------------------------------------------------------

    /// Apply one event (`event` is its 1-based number). Never panics; what the rules do
    /// not allow is recorded as refused.
    pub fn apply(&mut self, ev: &Event, event: usize) {
        let at = ev.at.max(self.last_at);
        // Lag compensation (`lag_ms`, docs/game-script.md): a press by the running side
        // that completes a move is credited up to `lag_ms`, never reaching back before
        // the previous event; automatic flagging checks the credited instant.
        let presser = ev
            .by
            .and_then(Party::color)
            .filter(|p| ev.action.presses() && self.clock.running() == Some(*p));
        let credit = presser.map_or(0, |_| ev.lag_ms.min(at - self.last_at));
        let gain = presser.map_or(0, |p| {
            self.clock
                .remaining(at - credit, p)
                .saturating_sub(self.clock.remaining(at, p))
        });
        let completed_before = self.history.len();
        if !self.is_over() {
            self.check_auto_flag(at - credit, event);
        }
        self.apply_at(ev, event, at);
        if let Some(p) = presser
            && gain > 0
            && self.history.len() > completed_before
            && self.history.last().is_some_and(|c| c.event == event)
        {
            self.clock.adjust(at, p, gain);
        }
    }

    fn apply_at(&mut self, ev: &Event, event: usize, at: u64) {
        self.last_at = at;
        if let Action::End = ev.action {
            return;
        }
        if self.is_over() {
            let is_director_result =
                matches!(ev.action, Action::Result(_)) && ev.by == Some(Party::Director);
            if !is_director_result {
                let rule = self
                    .outcome
                    .as_ref()
                    .map(|o| o.rule.clone())
                    .unwrap_or_else(|| self.setup.ruleset.director.cancel_rule.clone());
                self.refuse(
                    at,
                    event,
                    &rule,
                    ev.by.and_then(Party::color),
                    "the game is over".to_string(),
                );
                return;
            }
        }
        let Some(by) = ev.by else { return };
        match (&ev.action, by.color()) {
            (action, Some(player)) if action.is_director_action() => {
                self.refuse_by(
                    at,
                    event,
                    |r| &r.director.rule,
                    Some(player),
                    format!(
                        "only the director may do that, not {}",
                        colour::name(player)
                    ),
                );
            }
            (action, None) if !action.is_director_action() => {
                self.refuse_by(
                    at,
                    event,
                    |r| &r.director.rule,
                    None,
                    "the director does not move, claim or offer for a player".to_string(),
                );
            }
            (Action::Move { mv, press }, Some(p)) => self.on_move(at, event, p, *mv, *press),
            (Action::Press, Some(p)) => self.on_press(at, event, p),
            (Action::Retract, Some(p)) => self.on_retract(at, event, p),
            (Action::Claim { claim, intended }, Some(p)) => {
                self.on_claim(at, event, p, *claim, *intended)
            }
            (Action::Offer, Some(p)) => {
                self.offer = Some(p);
            }
            (Action::Accept, Some(p)) => self.on_answer(at, event, p, true),
            (Action::Decline, Some(p)) => self.on_answer(at, event, p, false),
            (Action::Resign, Some(p)) => {
                let rule = self.setup.ruleset.results.resignation_rule.clone();
                self.finish(
                    at,
                    event,
                    GameResult::win_for(!p),
                    Reason::Resignation,
                    &rule,
                    format!("{} resigns", colour::name(p)),
                );
            }
            (Action::CallDirector { reason }, Some(p)) => {
                self.on_call_director(at, event, p, reason.clone())
            }
            (Action::StopClock, None) => self.on_director_clock(at, event, false),
            (Action::StartClock, None) => self.on_director_clock(at, event, true),
            (Action::AddTime { color, ms, kind }, None) => {
                self.on_add_time(at, event, *color, *ms, *kind)
            }
            (Action::Offence { player, kind }, None) => self.on_offence(at, event, *player, *kind),
            (Action::Ruling { grant }, None) => self.on_ruling(at, event, *grant),
            (Action::Result(declared), None) => self.on_result(at, event, *declared),
            // Remaining combinations are excluded by the guards above.
            _ => {}
        }
    }

    // ----- output ----------------------------------------------------------------------

    /// The result line: `(result, reason, rule)`.
    pub fn verdict(&self) -> (GameResult, Option<Reason>, Option<String>) {
        if self.cancelled {
            return (
                GameResult::Ongoing,
                Some(Reason::Director),
                Some(self.setup.ruleset.director.cancel_rule.clone()),
            );
        }
        match &self.outcome {
            Some(o) => (o.result, Some(o.reason), Some(o.rule.clone())),
            None => (GameResult::Ongoing, None, None),
        }
    }
}
