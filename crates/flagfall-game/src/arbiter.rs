//! The arbiter: a deterministic state machine over game-script events.
//!
//! One [`Game`] holds the physical board, the clock and everything the rules need to
//! remember (the claim window on an illegal move, offers, pending claims, penalty
//! ladders). [`Game::apply`] takes one event and records every decision as a
//! [`Ruling`] citing its rule. The behaviour is specified in `docs/arbiter.md`.

use std::sync::Arc;

use flagfall_analysis::assistant::{self, DrawClaim, Recommendation, Tablebase};
use flagfall_analysis::{Limits, material};
use flagfall_core::board::{
    BoardRules, CastlingSetupRule, IllegalPositionReason, IllegalReason, MoveRecord, PhysicalMove,
    Position, RepetitionKey, Status,
};
use flagfall_core::clock::{Clock, format_ms};
use flagfall_core::ruleset::{
    IllegalPenalty, IllegalWindow, MaterialDefinition, OffenceKind, PenaltyStep, Ruleset,
    SetupCastling,
};
use shakmaty::{Color, Role, Square};

use crate::outcome::{GameResult, Outcome, Reason, Ruling, RulingKind, TimeChange};
use crate::script::{Action, ClaimKind, Declared, Event, GameSetup, Party};

const MINUTE: i64 = 60_000;

/// A move on the board, not yet completed by a press.
#[derive(Debug, Clone)]
struct Pending {
    mover: Color,
    record: MoveRecord,
    after: Position,
}

/// A completed move, as the game record keeps it.
#[derive(Debug, Clone)]
pub struct Completed {
    pub at: u64,
    pub record: MoveRecord,
    /// The position before the move, kept for illegal moves only (a correct claim may
    /// reinstate it); legal moves are never taken back.
    pub before: Option<Box<Position>>,
    /// The event that completed it.
    pub event: usize,
}

/// The open claim window on a completed illegal move.
#[derive(Debug, Clone)]
struct Window {
    offender: Color,
    /// Index into `history` of the illegal move.
    index: usize,
}

/// A claim waiting for the director.
#[derive(Debug, Clone)]
struct PendingClaim {
    claimant: Color,
    kind: DrawClaim,
    recommendation: Recommendation,
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
    setup: GameSetup,
    tablebase: Option<SharedTablebase>,
    rules: BoardRules,
    /// The position after the last completed move.
    pos: Position,
    pending: Option<Pending>,
    clock: Clock,
    history: Vec<Completed>,
    /// Repetition keys of the start position and every completed move's position.
    keys: Vec<RepetitionKey>,
    window: Option<Window>,
    /// Illegal moves caught (claimed or called) per player.
    illegal_caught: [u32; 2],
    /// After a retracted or reinstated illegal move: the piece that must move.
    touch: Option<(Color, Square)>,
    offer: Option<Color>,
    claim: Option<PendingClaim>,
    paused_by_director: bool,
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

fn idx(c: Color) -> usize {
    c.fold_wb(0, 1)
}

fn name(c: Color) -> &'static str {
    c.fold_wb("White", "Black")
}

impl Game {
    /// A new game from a validated setup; White's (or the side to move's) clock starts at 0.
    pub fn new(setup: GameSetup) -> Game {
        let rules = BoardRules {
            setup_castling: match setup.ruleset.moves.setup_castling {
                SetupCastling::Mirror => CastlingSetupRule::Mirror,
                SetupCastling::None => CastlingSetupRule::None,
                SetupCastling::Fide => CastlingSetupRule::Fide,
            },
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
            keys,
            window: None,
            illegal_caught: [0, 0],
            touch: None,
            offer: None,
            claim: None,
            paused_by_director: false,
            offences: Vec::new(),
            watch_a54: false,
            adjacent_by: None,
            outcome: None,
            cancelled: false,
            ended_at: None,
            last_at: 0,
            rulings: Vec::new(),
            setup,
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

    /// The physical board as it stands, including a move not yet pressed.
    pub fn board_position(&self) -> &Position {
        self.pending.as_ref().map_or(&self.pos, |p| &p.after)
    }

    /// The position of the last completed move.
    pub fn position(&self) -> &Position {
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
    pub fn pending_claim(&self) -> Option<(Color, ClaimKind, &Recommendation)> {
        self.claim.as_ref().map(|c| {
            let kind = match c.kind {
                DrawClaim::Ilc => ClaimKind::Ilc,
                DrawClaim::DrawPosition => ClaimKind::DrawPosition,
            };
            (c.claimant, kind, &c.recommendation)
        })
    }

    /// True while the director has stopped the clock.
    pub fn paused_by_director(&self) -> bool {
        self.paused_by_director
    }

    /// The legal moves for the side to move (what a UI may offer).
    pub fn legal_moves(&self) -> Vec<PhysicalMove> {
        if self.is_over() {
            return Vec::new();
        }
        self.pos.legal_moves(&self.rules)
    }

    // ----- recording -------------------------------------------------------------------

    #[allow(clippy::too_many_arguments)]
    fn rule(
        &mut self,
        at: u64,
        event: usize,
        kind: RulingKind,
        rule: &str,
        player: Option<Color>,
        time: Option<TimeChange>,
        text: String,
    ) {
        self.rulings.push(Ruling {
            at,
            event,
            kind,
            ruling: text,
            rule: rule.to_string(),
            player,
            time,
        });
    }

    /// Refuse a move, press or retraction that the physical game does not allow.
    fn refuse_completed(&mut self, at: u64, event: usize, p: Color, text: String) {
        self.refuse_by(at, event, |r| &r.moves.completed_rule, Some(p), text);
    }

    /// Refuse citing a rule picked from the ruleset.
    fn refuse_by(
        &mut self,
        at: u64,
        event: usize,
        pick: impl Fn(&Ruleset) -> &String,
        player: Option<Color>,
        text: String,
    ) {
        let rule = pick(&self.setup.ruleset).clone();
        self.refuse(at, event, &rule, player, text);
    }

    fn refuse(&mut self, at: u64, event: usize, rule: &str, player: Option<Color>, text: String) {
        self.rule(at, event, RulingKind::Refused, rule, player, None, text);
    }

    fn finish(
        &mut self,
        at: u64,
        event: usize,
        result: GameResult,
        reason: Reason,
        rule: &str,
        text: String,
    ) {
        self.clock.stop(at);
        self.ended_at = Some(at);
        self.offer = None;
        self.claim = None;
        self.outcome = Some(Outcome {
            result,
            reason,
            rule: rule.to_string(),
        });
        self.rule(at, event, RulingKind::Result, rule, None, None, text);
    }

    fn adjust(&mut self, at: u64, side: Color, ms: i64) -> TimeChange {
        self.clock.adjust(at, side, ms);
        TimeChange { color: side, ms }
    }

    // ----- the material question -----------------------------------------------------

    /// Can `who` still mate, as the ruleset defines mating material (RULES.md §3)?
    fn can_mate(&self, who: Color) -> bool {
        match self.setup.ruleset.material.definition {
            MaterialDefinition::UsCount => {
                material::us_chess_has_mating_material(self.pos.board(), who)
            }
            MaterialDefinition::FideAnySeries => {
                flagfall_analysis::can_checkmate(&self.pos.setup(), who, &Limits::default())
                    .may_win()
            }
        }
    }

    // ----- events ----------------------------------------------------------------------

    /// Apply one event (`event` is its 1-based number). Never panics; what the rules do
    /// not allow is recorded as refused.
    pub fn apply(&mut self, ev: &Event, event: usize) {
        let at = ev.at.max(self.last_at);
        // Lag compensation (`lag_ms`, docs/arbiter.md): a press by the running side is
        // credited up to `lag_ms`, never reaching back before the previous event.
        let presser = ev
            .by
            .and_then(Party::color)
            .filter(|p| ev.action.presses() && self.clock.running() == Some(*p));
        let credit = presser.map_or(0, |_| ev.lag_ms.min(at - self.last_at));
        let gain = presser.map_or(0, |p| {
            self.clock.remaining(at - credit, p) - self.clock.remaining(at, p)
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
                    format!("only the director may do that, not {}", name(player)),
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
                    format!("{} resigns", name(p)),
                );
            }
            (Action::StopClock, None) => self.on_director_clock(at, event, false),
            (Action::StartClock, None) => self.on_director_clock(at, event, true),
            (Action::AddTime { color, ms }, None) => self.on_add_time(at, event, *color, *ms),
            (Action::Offence { player, kind }, None) => self.on_offence(at, event, *player, *kind),
            (Action::Ruling { grant }, None) => self.on_ruling(at, event, *grant),
            (Action::Result(declared), None) => self.on_result(at, event, *declared),
            // Remaining combinations are excluded by the guards above.
            _ => {}
        }
    }

    /// A flag claim and an illegal-move claim by the two players within the simultaneity
    /// window. If the flag claimant is the one whose illegal move is open to the claim,
    /// he loses (uscf-2020 7e, uscf-classic 2a, blitz-2006 7a5); otherwise the two
    /// claims are decided one after the other, in order.
    pub fn apply_simultaneous_claims(
        &mut self,
        first: &Event,
        first_no: usize,
        second: &Event,
        second_no: usize,
    ) {
        let flag_claimant = [first, second].into_iter().find_map(|e| {
            match (&e.action, e.by.and_then(Party::color)) {
                (
                    Action::Claim {
                        claim: ClaimKind::Flag,
                        ..
                    },
                    Some(p),
                ) => Some(p),
                _ => None,
            }
        });
        let at = second.at.max(self.last_at);
        if !self.is_over() {
            self.check_auto_flag(first.at.max(self.last_at), first_no);
        }
        let applies = !self.is_over()
            && self.claim.is_none()
            && flag_claimant.is_some_and(|f| self.window.as_ref().is_some_and(|w| w.offender == f));
        let Some(offender) = flag_claimant.filter(|_| applies) else {
            self.apply(first, first_no);
            self.apply(second, second_no);
            return;
        };
        self.last_at = at;
        self.window = None;
        let rule = self.setup.ruleset.illegal.simultaneous_rule.clone();
        self.finish(
            at,
            second_no,
            GameResult::win_for(!offender),
            Reason::IllegalMove,
            &rule,
            format!(
                "{}'s flag claim and {}'s illegal-move claim are simultaneous: {}, who made the illegal move, loses",
                name(offender),
                name(!offender),
                name(offender)
            ),
        );
    }

    /// Accept or decline the opponent's standing draw offer.
    fn on_answer(&mut self, at: u64, event: usize, p: Color, accept: bool) {
        let rule = self.setup.ruleset.draws.agreement_rule.clone();
        if self.offer != Some(!p) {
            let text = "no draw offer by the opponent stands".to_string();
            self.refuse(at, event, &rule, Some(p), text);
        } else if accept {
            let text = format!("{} accepts the draw offer", name(p));
            self.finish(at, event, GameResult::Draw, Reason::Agreement, &rule, text);
        } else {
            self.offer = None;
        }
    }

    fn check_auto_flag(&mut self, at: u64, event: usize) {
        if !self.setup.auto_flag {
            return;
        }
        let Some(side) = self.clock.running() else {
            return;
        };
        let Some(fell) = self.clock.flag_fell_at(at, side) else {
            return;
        };
        // The game ends at the instant the flag fell (fide-b3 A.5.5).
        let winner = !side;
        let clock_rule = self.setup.ruleset.flags.auto_flag_rule.clone();
        if self.can_mate(winner) {
            self.finish(
                fell,
                event,
                GameResult::win_for(winner),
                Reason::TimeForfeit,
                &clock_rule,
                format!(
                    "{}'s flag fell at {}: {} wins on time",
                    name(side),
                    fell,
                    name(winner)
                ),
            );
        } else {
            let rule = self.setup.ruleset.flags.no_material_rule.clone();
            self.finish(
                fell,
                event,
                GameResult::Draw,
                Reason::InsufficientMaterial,
                &rule,
                format!(
                    "{}'s flag fell, but {} cannot mate: draw",
                    name(side),
                    name(winner)
                ),
            );
        }
    }

    fn blocked_by_claim_or_pause(&mut self, at: u64, event: usize, p: Color) -> bool {
        if self.claim.is_some() {
            self.refuse_by(
                at,
                event,
                |r| &r.director.rule,
                Some(p),
                "a claim waits for the director's ruling".to_string(),
            );
            return true;
        }
        if self.paused_by_director {
            self.refuse_by(
                at,
                event,
                |r| &r.director.rule,
                Some(p),
                "the director has stopped the clock".to_string(),
            );
            return true;
        }
        false
    }

    fn on_move(&mut self, at: u64, event: usize, p: Color, mv: PhysicalMove, press: bool) {
        if self.blocked_by_claim_or_pause(at, event, p) {
            return;
        }
        // Taking the king as a claim (uscf-2020 7d, blitz-2006 7a4).
        let target = self.pos.board().piece_at(mv.to);
        if let Some(piece) = target
            && piece.role == Role::King
            && piece.color == !p
            && self.setup.ruleset.illegal.claim_by_king_capture
            && self.pending.is_none()
            && self.window.as_ref().is_some_and(|w| w.offender == !p)
        {
            self.claim_by_king_capture(at, event, p, mv);
            return;
        }
        if self.pos.turn() != p {
            self.refuse_completed(at, event, p, format!("it is not {}'s turn", name(p)));
            return;
        }
        if self.pending.is_some() {
            self.refuse_completed(
                at,
                event,
                p,
                "a move is already on the board: press the clock or retract it".to_string(),
            );
            return;
        }
        if let Some((who, sq)) = self.touch
            && who == p
            && mv.from != sq
            && self.piece_has_legal_move(sq)
        {
            self.refuse_by(
                at,
                event,
                |r| &r.moves.touch_move_rule,
                Some(p),
                format!("the piece on {sq} must be moved (touch move)"),
            );
            return;
        }
        let mut after = self.pos.clone();
        let record = match after.play(&mv, p, &self.rules) {
            Ok(r) => r,
            Err(e) => {
                self.refuse_completed(at, event, p, e.to_string());
                return;
            }
        };
        // Making a move closes an own_move_made window and lapses the opponent's offer.
        if self.setup.ruleset.illegal.window == IllegalWindow::OwnMoveMade
            && self.window.as_ref().is_some_and(|w| w.offender == !p)
        {
            self.window = None;
        }
        if self.offer == Some(!p) {
            self.offer = None;
        }
        self.pending = Some(Pending {
            mover: p,
            record,
            after,
        });
        if press {
            self.on_press(at, event, p);
        }
    }

    fn piece_has_legal_move(&self, sq: Square) -> bool {
        self.pos
            .legal_moves(&self.rules)
            .iter()
            .any(|m| m.from == sq)
    }

    fn on_retract(&mut self, at: u64, event: usize, p: Color) {
        let Some(pending) = self.pending.as_ref().filter(|pm| pm.mover == p) else {
            self.refuse_by(
                at,
                event,
                |r| &r.moves.completed_rule,
                Some(p),
                "there is no move of yours on the board to take back".to_string(),
            );
            return;
        };
        let legal = pending.record.legality.is_legal();
        let from = pending.record.mv.from;
        if legal && !self.setup.ruleset.moves.retract_legal {
            self.refuse_by(
                at,
                event,
                |r| &r.moves.retract_rule,
                Some(p),
                "a legal move cannot be taken back".to_string(),
            );
            return;
        }
        self.pending = None;
        if !legal && self.setup.ruleset.moves.touch_move {
            self.touch = Some((p, from));
        }
    }

    fn on_press(&mut self, at: u64, event: usize, p: Color) {
        if self.blocked_by_claim_or_pause(at, event, p) {
            return;
        }
        if self.pending.as_ref().is_none_or(|pm| pm.mover != p) {
            self.refuse_completed(
                at,
                event,
                p,
                "there is no move of yours on the board to complete".to_string(),
            );
            return;
        }
        if let Err(e) = self.clock.press(at, p) {
            self.refuse_completed(at, event, p, e.to_string());
            return;
        }
        let Some(pending) = self.pending.take() else {
            return;
        };
        let legal = pending.record.legality.is_legal();
        let previous = std::mem::replace(&mut self.pos, pending.after);
        let before = (!legal).then(|| Box::new(previous));
        let reasons: Vec<IllegalReason> = pending.record.legality.reasons().to_vec();
        self.history.push(Completed {
            at,
            record: pending.record,
            before,
            event,
        });
        self.keys.push(self.pos.repetition_key());
        self.touch = None;
        // The claimant completing a move closes an own_move_completed window (and any
        // window on an older move of the opponent).
        if self.window.as_ref().is_some_and(|w| w.offender == !p) {
            self.window = None;
        }
        // Who put the kings next to each other (uscf-2020 7d trap).
        if reasons.contains(&IllegalReason::KingAdjacentToKing) {
            self.adjacent_by = Some(p);
        } else if !self.kings_adjacent() {
            self.adjacent_by = None;
        }
        // fide-b3 A.5.4: an illegal position still on the board after the next move.
        if self.setup.ruleset.draws.illegal_position_after_next_move {
            let now_a54 = self.a54_position();
            if self.watch_a54 && now_a54 {
                let rule = self
                    .setup
                    .ruleset
                    .draws
                    .illegal_position_rule
                    .clone()
                    .unwrap_or_else(|| self.setup.ruleset.director.rule.clone());
                self.finish(
                    at,
                    event,
                    GameResult::Draw,
                    Reason::IllegalPosition,
                    &rule,
                    "an illegal position is still on the board after the next completed move: draw"
                        .to_string(),
                );
                return;
            }
            self.watch_a54 = now_a54;
        }
        if !legal {
            self.window = Some(Window {
                offender: p,
                index: self.history.len() - 1,
            });
            if self.setup.arbiter_calls_illegal {
                let was_running = self.stop_for_claim(at);
                self.decide_illegal(
                    at,
                    event,
                    !p,
                    "the arbiter intervenes on the illegal move (fide-b3 A.5.2)",
                );
                self.restart_after_claim(at, was_running);
            }
            return;
        }
        match self.pos.status() {
            Status::Checkmate => {
                let rule = self.setup.ruleset.results.checkmate_rule.clone();
                self.finish(
                    at,
                    event,
                    GameResult::win_for(p),
                    Reason::Checkmate,
                    &rule,
                    format!("{} is checkmated", name(!p)),
                );
            }
            Status::Stalemate => {
                let rule = self.setup.ruleset.draws.stalemate_rule.clone();
                self.finish(
                    at,
                    event,
                    GameResult::Draw,
                    Reason::Stalemate,
                    &rule,
                    format!("{} is stalemated", name(!p)),
                );
            }
            Status::Ongoing => {
                if self.setup.ruleset.draws.dead_position && self.is_dead_position() {
                    let rule = self.setup.ruleset.draws.dead_position_rule.clone();
                    self.finish(
                        at,
                        event,
                        GameResult::Draw,
                        Reason::DeadPosition,
                        &rule,
                        "neither side can mate by any series of legal moves: dead position"
                            .to_string(),
                    );
                }
            }
            Status::IllegalPosition(_) => {}
        }
    }

    fn kings_adjacent(&self) -> bool {
        let b = self.pos.board();
        match (b.king_of(Color::White), b.king_of(Color::Black)) {
            (Some(w), Some(k)) => w.distance(k) == 1,
            _ => false,
        }
    }

    fn a54_position(&self) -> bool {
        self.pos.illegal_position_reasons().iter().any(|r| {
            matches!(
                r,
                IllegalPositionReason::BothKingsInCheck | IllegalPositionReason::PawnOnBackRank(_)
            )
        })
    }

    /// Laws 5.2.2 after a legal move: neither side can mate. The exact search runs only
    /// when no queen or rook is on the board and no pawn can advance (bare material,
    /// locked pawn walls), to keep the per-move cost low; a dead position with a heavy
    /// piece or a mobile pawn is left to a claim or the director (docs/arbiter.md).
    fn is_dead_position(&self) -> bool {
        let b = self.pos.board();
        if (b.queens() | b.rooks()).any() {
            return false;
        }
        let occupied = b.occupied();
        for sq in b.pawns() {
            let Some(piece) = b.piece_at(sq) else {
                continue;
            };
            let ahead = match piece.color {
                Color::White => sq.offset(8),
                Color::Black => sq.offset(-8),
            };
            if ahead.is_some_and(|a| !occupied.contains(a)) {
                return false;
            }
        }
        let setup = self.pos.setup();
        let limits = Limits::default();
        [Color::White, Color::Black]
            .into_iter()
            .all(|c| !flagfall_analysis::can_checkmate(&setup, c, &limits).may_win())
    }

    // ----- claims ----------------------------------------------------------------------

    fn on_claim(
        &mut self,
        at: u64,
        event: usize,
        p: Color,
        kind: ClaimKind,
        intended: Option<PhysicalMove>,
    ) {
        if self.claim.is_some() {
            self.refuse_by(
                at,
                event,
                |r| &r.director.rule,
                Some(p),
                "a claim already waits for the director's ruling".to_string(),
            );
            return;
        }
        match kind {
            ClaimKind::Flag => self.claim_flag(at, event, p),
            ClaimKind::BothFlags => self.claim_both_flags(at, event, p),
            ClaimKind::Illegal => self.claim_illegal(at, event, p),
            ClaimKind::Threefold | ClaimKind::Fifty => {
                self.claim_draw_rule(at, event, p, kind, intended)
            }
            ClaimKind::Ilc => self.claim_director(at, event, p, DrawClaim::Ilc),
            ClaimKind::DrawPosition => self.claim_director(at, event, p, DrawClaim::DrawPosition),
        }
    }

    /// Stop the clock for a claim; returns whether it was running (to restart it).
    fn stop_for_claim(&mut self, at: u64) -> bool {
        let was_running = self.clock.running().is_some();
        self.clock.stop(at);
        was_running
    }

    fn restart_after_claim(&mut self, at: u64, was_running: bool) {
        if was_running && !self.is_over() {
            self.clock.resume(at);
        }
    }

    fn claim_flag(&mut self, at: u64, event: usize, p: Color) {
        let was_running = self.stop_for_claim(at);
        let flags = self.setup.ruleset.flags.clone();
        let mine = self.clock.remaining(at, p);
        let theirs = self.clock.remaining(at, !p);
        if mine <= 0 {
            self.rule(
                at,
                event,
                RulingKind::ClaimRejected,
                &flags.void_rule,
                Some(p),
                None,
                format!(
                    "{}'s own flag is down ({}): the time claim is void",
                    name(p),
                    format_ms(mine)
                ),
            );
        } else if theirs > 0 {
            self.rule(
                at,
                event,
                RulingKind::ClaimRejected,
                &flags.flag_rule,
                Some(p),
                None,
                format!(
                    "{}'s flag is not down ({} left)",
                    name(!p),
                    format_ms(theirs)
                ),
            );
        } else if self.can_mate(p) {
            self.finish(
                at,
                event,
                GameResult::win_for(p),
                Reason::TimeForfeit,
                &flags.flag_rule,
                format!("{}'s flag is down: {} wins on time", name(!p), name(p)),
            );
        } else {
            self.finish(
                at,
                event,
                GameResult::Draw,
                Reason::InsufficientMaterial,
                &flags.no_material_rule,
                format!(
                    "{}'s flag is down, but {} has no mating material: draw",
                    name(!p),
                    name(p)
                ),
            );
        }
        self.restart_after_claim(at, was_running);
    }

    fn claim_both_flags(&mut self, at: u64, event: usize, p: Color) {
        let was_running = self.stop_for_claim(at);
        let rule = self.setup.ruleset.flags.both_flags_rule.clone();
        let w = self.clock.remaining(at, Color::White);
        let b = self.clock.remaining(at, Color::Black);
        if w <= 0 && b <= 0 {
            self.finish(
                at,
                event,
                GameResult::Draw,
                Reason::BothFlags,
                &rule,
                "both flags are down: draw".to_string(),
            );
        } else {
            self.rule(
                at,
                event,
                RulingKind::ClaimRejected,
                &rule,
                Some(p),
                None,
                format!(
                    "not both flags are down (White {}, Black {})",
                    format_ms(w),
                    format_ms(b)
                ),
            );
        }
        self.restart_after_claim(at, was_running);
    }

    fn claim_illegal(&mut self, at: u64, event: usize, p: Color) {
        let illegal = self.setup.ruleset.illegal.clone();
        if self.window.as_ref().is_some_and(|w| w.offender == !p) {
            let was_running = self.stop_for_claim(at);
            self.decide_illegal(at, event, p, "claim of an illegal move");
            self.restart_after_claim(at, was_running);
            return;
        }
        let last_by_opponent = self.history.iter().rev().find(|c| c.record.mover == !p);
        if last_by_opponent.is_some_and(|c| !c.record.legality.is_legal()) {
            self.refuse(
                at,
                event,
                &illegal.window_rule,
                Some(p),
                "too late: the illegal move was not claimed in time and the position stands"
                    .to_string(),
            );
            return;
        }
        let was_running = self.stop_for_claim(at);
        self.rule(
            at,
            event,
            RulingKind::ClaimRejected,
            &illegal.rule,
            Some(p),
            None,
            format!("{}'s last move was legal", name(!p)),
        );
        self.restart_after_claim(at, was_running);
    }

    fn claim_by_king_capture(&mut self, at: u64, event: usize, p: Color, mv: PhysicalMove) {
        let illegal = self.setup.ruleset.illegal.clone();
        let mover_is_king = self
            .pos
            .board()
            .piece_at(mv.from)
            .is_some_and(|pc| pc.role == Role::King && pc.color == p);
        if mover_is_king && !illegal.king_may_capture_king {
            self.refuse(
                at,
                event,
                &illegal.king_adjacent_trap_rule,
                Some(p),
                "a king may not take the king: claim by stopping the clock or taking it with another piece".to_string(),
            );
            return;
        }
        let legality = match self.pos.classify(&mv, p, &self.rules) {
            Ok(l) => l,
            Err(e) => {
                self.refuse_by(
                    at,
                    event,
                    |r| &r.moves.completed_rule,
                    Some(p),
                    e.to_string(),
                );
                return;
            }
        };
        let movement_ok = !legality.reasons().iter().any(|r| {
            matches!(
                r,
                IllegalReason::WrongMovement
                    | IllegalReason::PathBlocked
                    | IllegalReason::EnPassantInvalid
            ) || matches!(
                r,
                IllegalReason::CastlingNotAllowed
                    | IllegalReason::CastlingBlocked
                    | IllegalReason::CastlingOutOfCheck
                    | IllegalReason::CastlingThroughCheck
                    | IllegalReason::CastlingIntoCheck
            )
        });
        if !movement_ok {
            let rule = illegal.rule.clone();
            self.refuse(
                at,
                event,
                &rule,
                Some(p),
                format!("{mv} cannot take the king: that piece does not move so"),
            );
            return;
        }
        // Show the capture on the physical board.
        let mut after = self.pos.clone();
        if let Ok(record) = after.play(&mv, p, &self.rules) {
            self.pending = Some(Pending {
                mover: p,
                record,
                after,
            });
        }
        let was_running = self.stop_for_claim(at);
        self.decide_illegal(at, event, p, "the king is taken: claim of the illegal move");
        if !self.is_over() {
            // A reinstating ruleset does not take claims by king capture; keep the board sane.
            self.pending = None;
        }
        self.restart_after_claim(at, was_running);
    }

    /// A correct illegal-move claim by `claimant` (or the arbiter on his behalf).
    fn decide_illegal(&mut self, at: u64, event: usize, claimant: Color, what: &str) {
        let Some(window) = self.window.take() else {
            return;
        };
        let offender = window.offender;
        let illegal = self.setup.ruleset.illegal.clone();
        // The king-adjacent trap (uscf-2020 7d, uscf-classic 2b).
        if illegal.king_adjacent_trap && self.adjacent_by == Some(claimant) {
            let record = &self.history[window.index].record;
            let only_king_safety = record.legality.reasons().iter().all(|r| {
                matches!(
                    r,
                    IllegalReason::OwnKingLeftInCheck
                        | IllegalReason::OwnKingPutInCheck
                        | IllegalReason::KingAdjacentToKing
                )
            });
            let b = self.pos.board();
            let checkers = self.pos.checkers(offender);
            let claimant_king = b.king_of(claimant);
            let only_by_king =
                checkers.count() == 1 && claimant_king.is_some_and(|k| checkers.contains(k));
            if only_king_safety && only_by_king {
                self.finish(
                    at,
                    event,
                    GameResult::win_for(offender),
                    Reason::IllegalMove,
                    &illegal.king_adjacent_trap_rule,
                    format!(
                        "{} put his own king next to the other king and then claimed the check it gives: {} loses",
                        name(claimant),
                        name(claimant)
                    ),
                );
                return;
            }
        }
        self.illegal_caught[idx(offender)] += 1;
        let nth = self.illegal_caught[idx(offender)];
        let penalty = if nth == 1 {
            illegal.first
        } else {
            illegal.later
        };
        match penalty {
            IllegalPenalty::Loss => {
                if self.can_mate(claimant) {
                    self.finish(
                        at,
                        event,
                        GameResult::win_for(claimant),
                        Reason::IllegalMove,
                        &illegal.rule,
                        format!(
                            "{what}: {}'s move was illegal; {} wins",
                            name(offender),
                            name(claimant)
                        ),
                    );
                } else {
                    self.finish(
                        at,
                        event,
                        GameResult::Draw,
                        Reason::InsufficientMaterial,
                        &illegal.no_material_rule,
                        format!(
                            "{what}: {}'s move was illegal, but {} has no mating material: draw",
                            name(offender),
                            name(claimant)
                        ),
                    );
                }
            }
            IllegalPenalty::MinuteAndReinstate => {
                let completed = self.history.drain(window.index..).next();
                self.keys.truncate(window.index + 1);
                let Some(completed) = completed else { return };
                let Some(before) = completed.before.clone() else {
                    return;
                };
                self.pos = *before;
                self.pending = None;
                self.watch_a54 = false;
                self.adjacent_by = None;
                let time = self.adjust(at, claimant, MINUTE);
                // The offender's turn again; the clock restarts when the claim is done.
                self.clock.start(at, offender);
                self.clock.stop(at);
                let from = completed.record.mv.from;
                if self.setup.ruleset.moves.touch_move && self.piece_has_legal_move(from) {
                    self.touch = Some((offender, from));
                }
                self.rule(
                    at,
                    event,
                    RulingKind::ClaimUpheld,
                    &illegal.rule,
                    Some(claimant),
                    Some(time),
                    format!(
                        "{what}: {}'s move {} was illegal; one minute to {}, the position before it is reinstated",
                        name(offender),
                        completed.record.mv,
                        name(claimant)
                    ),
                );
            }
        }
    }

    fn claim_draw_rule(
        &mut self,
        at: u64,
        event: usize,
        p: Color,
        kind: ClaimKind,
        intended: Option<PhysicalMove>,
    ) {
        let draws = self.setup.ruleset.draws.clone();
        let own_rule = if kind == ClaimKind::Threefold {
            draws.threefold_rule.clone()
        } else {
            draws.fifty_rule.clone()
        };
        if self.pos.turn() != p || self.pending.is_some() {
            self.refuse(
                at,
                event,
                &own_rule,
                Some(p),
                "only the player on move, before making a move on the board, may claim".to_string(),
            );
            return;
        }
        let was_running = self.stop_for_claim(at);
        let (judged, legal_intent) = match intended {
            None => (Some(self.pos.clone()), true),
            Some(mv) => {
                let mut after = self.pos.clone();
                match after.play(&mv, p, &self.rules) {
                    Ok(rec) if rec.legality.is_legal() => (Some(after), true),
                    _ => (None, false),
                }
            }
        };
        let correct = match (&judged, kind) {
            (Some(pos), ClaimKind::Threefold) => {
                let key = pos.repetition_key();
                let seen = self.keys.iter().filter(|k| **k == key).count()
                    + usize::from(intended.is_some());
                seen >= 3
            }
            (Some(pos), _) => pos.halfmove_clock() >= 100,
            (None, _) => false,
        };
        if correct {
            let (reason, what) = if kind == ClaimKind::Threefold {
                (Reason::Repetition, "the same position for the third time")
            } else {
                (
                    Reason::FiftyMoves,
                    "fifty moves by each side without a capture or pawn move",
                )
            };
            self.finish(
                at,
                event,
                GameResult::Draw,
                reason,
                &own_rule,
                format!("{} claims {what}: draw", name(p)),
            );
            return;
        }
        let time = self.adjust(at, !p, draws.wrong_claim_penalty_ms as i64);
        let why = if !legal_intent {
            "the intended move is not legal"
        } else {
            "the claim is not correct"
        };
        self.rule(
            at,
            event,
            RulingKind::ClaimRejected,
            &draws.wrong_claim_rule,
            Some(p),
            Some(time),
            format!(
                "{} claims a draw by {}: {why}; one minute to {}",
                name(p),
                kind.name(),
                name(!p)
            ),
        );
        // The intended move must then be played (laws 9.5; interpretation, docs/arbiter.md).
        if let (Some(mv), true) = (intended, legal_intent) {
            let mut after = self.pos.clone();
            if let Ok(record) = after.play(&mv, p, &self.rules) {
                self.pending = Some(Pending {
                    mover: p,
                    record,
                    after,
                });
            }
        }
        self.restart_after_claim(at, was_running);
    }

    fn claim_director(&mut self, at: u64, event: usize, p: Color, kind: DrawClaim) {
        let draws = self.setup.ruleset.draws.clone();
        let (allowed, rule) = match kind {
            DrawClaim::Ilc => (draws.ilc, draws.ilc_rule.clone()),
            DrawClaim::DrawPosition => (draws.draw_positions, draws.draw_positions_rule.clone()),
        };
        if !allowed {
            self.refuse(
                at,
                event,
                &rule,
                Some(p),
                format!("{} does not allow this claim", self.setup.ruleset.id),
            );
            return;
        }
        if kind == DrawClaim::Ilc {
            if self.setup.time_control.has_delay_or_increment() {
                self.refuse(
                    at,
                    event,
                    &rule,
                    Some(p),
                    "ILC claims only in games without delay or increment".to_string(),
                );
                return;
            }
            let left = self.clock.remaining(at, p);
            if left >= draws.ilc_max_remaining_ms as i64 {
                self.refuse(
                    at,
                    event,
                    &rule,
                    Some(p),
                    format!(
                        "ILC needs less than {} left; {} has {}",
                        format_ms(draws.ilc_max_remaining_ms as i64),
                        name(p),
                        format_ms(left)
                    ),
                );
                return;
            }
            // The claim is also a draw offer (club-ilc 4.3).
            self.offer = Some(p);
        }
        self.clock.stop(at);
        let setup = self.pos.setup();
        let tables = self.tablebase.as_ref().map(|tb| tb.0.as_ref() as _);
        let recommendation = assistant::recommend_using(&setup, p, kind, tables);
        self.rule(
            at,
            event,
            RulingKind::ClaimPending,
            &rule,
            Some(p),
            None,
            format!(
                "{} claims a draw ({}); the clock is stopped for the director",
                name(p),
                draw_claim_name(kind)
            ),
        );
        let advice = format!(
            "recommend {}{}: {}",
            if recommendation.grant {
                "granting"
            } else {
                "denying"
            },
            recommendation
                .pattern
                .as_ref()
                .map(|pt| format!(" ({pt})"))
                .unwrap_or_default(),
            recommendation.reasons.join("; ")
        );
        let advice_rule = recommendation
            .pattern
            .clone()
            .unwrap_or_else(|| rule.clone());
        self.rule(
            at,
            event,
            RulingKind::Recommendation,
            &advice_rule,
            Some(p),
            None,
            advice,
        );
        let grant = recommendation.grant;
        self.claim = Some(PendingClaim {
            claimant: p,
            kind,
            recommendation,
        });
        if !self.setup.director {
            self.decide_pending(at, event, grant);
        }
    }

    fn on_ruling(&mut self, at: u64, event: usize, grant: bool) {
        if self.claim.is_none() {
            self.refuse_by(
                at,
                event,
                |r| &r.director.rule,
                None,
                "no claim waits for a ruling".to_string(),
            );
            return;
        }
        self.decide_pending(at, event, grant);
    }

    fn decide_pending(&mut self, at: u64, event: usize, grant: bool) {
        let Some(claim) = self.claim.take() else {
            return;
        };
        let draws = self.setup.ruleset.draws.clone();
        let p = claim.claimant;
        match (claim.kind, grant) {
            (DrawClaim::Ilc, true) => {
                self.finish(
                    at,
                    event,
                    GameResult::Draw,
                    Reason::Ilc,
                    &draws.ilc_rule,
                    "ILC claim granted: draw".to_string(),
                );
            }
            (DrawClaim::DrawPosition, true) => {
                let rule = claim
                    .recommendation
                    .pattern
                    .clone()
                    .unwrap_or_else(|| draws.draw_positions_rule.clone());
                self.finish(
                    at,
                    event,
                    GameResult::Draw,
                    Reason::DrawPosition,
                    &rule,
                    "drawn position: claim granted".to_string(),
                );
            }
            (DrawClaim::Ilc, false) => {
                self.offer = None;
                let time = self.adjust(at, p, -(draws.ilc_denied_claimant_ms as i64));
                self.rule(
                    at,
                    event,
                    RulingKind::ClaimRejected,
                    &draws.ilc_rule,
                    Some(p),
                    Some(time),
                    format!("ILC claim denied: one minute off {}'s clock", name(p)),
                );
                self.clock.resume(at);
            }
            (DrawClaim::DrawPosition, false) => {
                let rule = draws
                    .draw_position_denied_rule
                    .clone()
                    .unwrap_or_else(|| draws.draw_positions_rule.clone());
                let time = self.adjust(at, !p, MINUTE);
                self.rule(
                    at,
                    event,
                    RulingKind::ClaimRejected,
                    &rule,
                    Some(p),
                    Some(time),
                    format!("draw claim denied: one minute to {}", name(!p)),
                );
                self.clock.resume(at);
            }
        }
    }

    // ----- the director ----------------------------------------------------------------

    /// The director stops (`start == false`) or restarts the clock; the turn and any
    /// delay left carry on.
    fn on_director_clock(&mut self, at: u64, event: usize, start: bool) {
        let running = self.clock.running().is_some();
        let refusal = match (start, running) {
            (true, _) if self.claim.is_some() => Some("rule on the pending claim first"),
            (true, true) => Some("the clock is already running"),
            (false, false) => Some("the clock is not running"),
            _ => None,
        };
        if let Some(why) = refusal {
            self.refuse_by(at, event, |r| &r.director.rule, None, why.to_string());
            return;
        }
        if start {
            self.clock.resume(at);
        } else {
            self.clock.stop(at);
        }
        self.paused_by_director = !start;
        let rule = self.setup.ruleset.director.rule.clone();
        let text = if start {
            "the director restarts the clock"
        } else {
            "the director stops the clock"
        };
        self.rule(
            at,
            event,
            RulingKind::Clock,
            &rule,
            None,
            None,
            text.to_string(),
        );
    }

    fn moves_completed(&self, side: Color) -> u32 {
        self.history
            .iter()
            .filter(|c| c.record.mover == side)
            .count() as u32
    }

    fn on_add_time(&mut self, at: u64, event: usize, color: Color, ms: i64) {
        let time = self.setup.ruleset.time.clone();
        let within_setup = self.moves_completed(Color::White) < time.setup_moves
            || self.moves_completed(Color::Black) < time.setup_moves;
        let left = self.clock.remaining(at, color);
        let excess = left - self.setup.time_control.base_ms as i64;
        let reduce_excess = time.reduce_excess_after_setup && ms < 0 && excess > 0;
        if within_setup || reduce_excess {
            let change = self.adjust(at, color, ms);
            self.rule(
                at,
                event,
                RulingKind::TimeChange,
                &time.setup_rule,
                Some(color),
                Some(change),
                format!("the director changes {}'s time by {} ms", name(color), ms),
            );
        } else {
            self.refuse(
                at,
                event,
                &time.setup_rule,
                Some(color),
                format!(
                    "each side has completed {} move(s): the clock setting stands{}",
                    time.setup_moves,
                    if time.reduce_excess_after_setup {
                        " (only time beyond the control may be taken away)"
                    } else {
                        ""
                    }
                ),
            );
        }
    }

    fn on_offence(&mut self, at: u64, event: usize, player: Color, kind: OffenceKind) {
        let ladder = self.setup.ruleset.ladder(kind);
        let nth = self
            .offences
            .iter()
            .filter(|(p, k)| *p == player && *k == kind)
            .count() as u32
            + 1;
        let what = kind.name();
        let (offender, opponent) = (name(player), name(!player));
        // Each step: the time change it makes (whose clock, how much) and what it says.
        let (change, text) = match ladder.step(nth) {
            PenaltyStep::NotAnOffence => {
                let text = format!("{what} is not an offence under these rules");
                self.refuse(at, event, &ladder.rule, Some(player), text);
                return;
            }
            PenaltyStep::Forfeit => {
                self.offences.push((player, kind));
                self.finish(
                    at,
                    event,
                    GameResult::win_for(!player),
                    Reason::PenaltyForfeit,
                    &ladder.rule,
                    format!("{what} by {offender} again: {offender} forfeits"),
                );
                return;
            }
            PenaltyStep::Warning => (None, format!("{offender} is warned ({what})")),
            PenaltyStep::WarningOrMinuteIfFlagDown if self.clock.remaining(at, player) <= 0 => (
                Some((!player, MINUTE)),
                format!(
                    "{offender} is warned ({what}); the flag is down, so one minute to {opponent}"
                ),
            ),
            PenaltyStep::WarningOrMinuteIfFlagDown => {
                (None, format!("{offender} is warned ({what})"))
            }
            PenaltyStep::OpponentPlusMinute => (
                Some((!player, MINUTE)),
                format!("{what} by {offender}: one minute to {opponent}"),
            ),
            PenaltyStep::OffenderMinusMinute => (
                Some((player, -MINUTE)),
                format!("{what} by {offender}: one minute off {offender}'s clock"),
            ),
        };
        self.offences.push((player, kind));
        let time = change.map(|(side, ms)| self.adjust(at, side, ms));
        self.rule(
            at,
            event,
            RulingKind::Penalty,
            &ladder.rule,
            Some(player),
            time,
            text,
        );
    }

    fn on_result(&mut self, at: u64, event: usize, declared: Declared) {
        let director = self.setup.ruleset.director.clone();
        match declared {
            Declared::Cancel => {
                self.clock.stop(at);
                self.ended_at = Some(at);
                self.outcome = None;
                self.cancelled = true;
                self.claim = None;
                self.rule(
                    at,
                    event,
                    RulingKind::Result,
                    &director.cancel_rule,
                    None,
                    None,
                    "the director cancels the game; a new game is to be played".to_string(),
                );
            }
            Declared::Result(result, reason) => {
                self.cancelled = false;
                self.finish(
                    at,
                    event,
                    result,
                    reason,
                    &director.result_rule,
                    format!(
                        "the director rules {} ({})",
                        result.as_str(),
                        reason.as_str()
                    ),
                );
            }
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

fn draw_claim_name(kind: DrawClaim) -> &'static str {
    match kind {
        DrawClaim::Ilc => "insufficient losing chances",
        DrawClaim::DrawPosition => "a drawn position",
    }
}
