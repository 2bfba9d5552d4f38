//! The director's actions: the clock, time changes, offences and results.

use flagfall_core::clock::{format_ms, ms_to_i64};
use flagfall_core::colour;
use flagfall_core::ruleset::{OffenceKind, PenaltyStep};
use shakmaty::Color;

use super::record::Draft;
use super::{Game, MINUTE};
use crate::outcome::{GameResult, Reason, RulingKind};
use crate::script::{Declared, TimeChangeKind};

impl Game {
    /// A player stops the clock and calls the director (`director.call_rule`, docs/rules.md
    /// §5.6). The game waits for the director: the clock stays stopped until the director
    /// restarts it, takes over the stop, or declares a result.
    pub(super) fn on_call_director(
        &mut self,
        at: u64,
        event: usize,
        p: Color,
        reason: Option<String>,
    ) {
        let call_rule = self.setup.ruleset.director.call_citation().to_string();
        let refusal = if !self.setup.director {
            Some((
                call_rule.clone(),
                "no director is present in this game (setup `director: false`)".to_string(),
            ))
        } else if let Some(c) = &self.called {
            Some((
                call_rule.clone(),
                format!(
                    "the director has already been called, by {}",
                    colour::name(c.by)
                ),
            ))
        } else if self.claim.is_some() {
            Some((
                self.setup.ruleset.director.rule.clone(),
                "a claim already waits for the director".to_string(),
            ))
        } else {
            None
        };
        if let Some((rule, why)) = refusal {
            self.refuse(at, event, &rule, Some(p), why);
            return;
        }
        self.clock.stop(at);
        let text = match &reason {
            Some(r) => format!(
                "{} stops the clock and calls the director: {r}",
                colour::name(p)
            ),
            None => format!("{} stops the clock and calls the director", colour::name(p)),
        };
        self.called = Some(super::Call { by: p, at, reason });
        self.record(
            at,
            event,
            Draft::new(RulingKind::Clock, &call_rule, text).concerning(p),
        );
    }

    /// The director stops (`start == false`) or restarts the clock; the turn and any
    /// delay left carry on.
    pub(super) fn on_director_clock(&mut self, at: u64, event: usize, start: bool) {
        let running = self.clock.running().is_some();
        let call = self.called.take();
        let refusal = match (start, running) {
            (true, _) if self.claim.is_some() => Some("rule on the pending claim first"),
            (true, true) => Some("the clock is already running"),
            // A player's call stopped the clock: the director takes the stop over.
            (false, false) if call.is_some() => None,
            (false, false) => Some("the clock is not running"),
            _ => None,
        };
        if refusal.is_some() {
            self.called = call.clone();
        }
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
        let text = match (start, &call) {
            (true, Some(c)) => format!(
                "the director answers {}'s call and restarts the clock",
                colour::name(c.by)
            ),
            (true, None) => "the director restarts the clock".to_string(),
            (false, Some(c)) => format!(
                "the director answers {}'s call and keeps the clock stopped",
                colour::name(c.by)
            ),
            (false, None) => "the director stops the clock".to_string(),
        };
        self.record(at, event, Draft::new(RulingKind::Clock, &rule, text));
    }

    fn moves_completed(&self, side: Color) -> u32 {
        self.history
            .iter()
            .filter(|c| c.record.mover == side)
            .count() as u32
    }

    /// The director changes `color`'s time by `ms`: his own decision at any moment
    /// (`director.adjust_time`), or a correction of the clock's initial setting while the
    /// set-up rule still allows one (docs/rules.md §1.5, §5.8).
    pub(super) fn on_add_time(
        &mut self,
        at: u64,
        event: usize,
        color: Color,
        ms: i64,
        kind: TimeChangeKind,
    ) {
        let change = if ms < 0 {
            format!(
                "takes {} from {}'s time",
                format_ms(ms.saturating_neg()),
                colour::name(color)
            )
        } else {
            format!("adds {} to {}'s time", format_ms(ms), colour::name(color))
        };
        if kind == TimeChangeKind::Decision {
            let director = self.setup.ruleset.director.clone();
            let rule = director.adjust_time_citation().to_string();
            if !director.adjust_time {
                let text = "these rules give the director no time changes of his own; only a \
                            correction of the clock setting (kind correction)"
                    .to_string();
                self.refuse(at, event, &rule, Some(color), text);
                return;
            }
            let time = self.adjust(at, color, ms);
            let text = format!("the director {change} (a decision of the director)");
            let draft = Draft::new(RulingKind::TimeChange, &rule, text);
            self.record(at, event, draft.concerning(color).with_time(time));
            return;
        }
        let time = self.setup.ruleset.time.clone();
        let within_setup = self.moves_completed(Color::White) < time.setup_moves
            || self.moves_completed(Color::Black) < time.setup_moves;
        let left = self.clock.remaining(at, color);
        let excess = left.saturating_sub(ms_to_i64(self.setup.time_control.base_ms));
        let reduce_excess = time.reduce_excess_after_setup && ms < 0 && excess > 0;
        if within_setup || reduce_excess {
            let change_made = self.adjust(at, color, ms);
            let text = format!("the director corrects the clock setting: {change}");
            let draft = Draft::new(RulingKind::TimeChange, &time.setup_rule, text);
            self.record(at, event, draft.concerning(color).with_time(change_made));
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

    pub(super) fn on_offence(&mut self, at: u64, event: usize, player: Color, kind: OffenceKind) {
        let (step, rule) = self.next_penalty(player, kind);
        let rule = rule.to_string();
        let what = kind.name();
        let (offender, opponent) = (colour::name(player), colour::name(!player));
        // Each step: the time change it makes (whose clock, how much) and what it says.
        let (change, text) = match step {
            PenaltyStep::NotAnOffence => {
                let text = format!("{what} is not an offence under these rules");
                self.refuse(at, event, &rule, Some(player), text);
                return;
            }
            PenaltyStep::Forfeit => {
                self.offences.push((player, kind));
                self.finish(
                    at,
                    event,
                    GameResult::win_for(!player),
                    Reason::PenaltyForfeit,
                    &rule,
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
        self.record(
            at,
            event,
            Draft::new(RulingKind::Penalty, &rule, text)
                .concerning(player)
                .with_time(time),
        );
    }

    pub(super) fn on_result(&mut self, at: u64, event: usize, declared: Declared) {
        let director = self.setup.ruleset.director.clone();
        match declared {
            Declared::Cancel => {
                self.clock.stop(at);
                self.ended_at = Some(at);
                self.outcome = None;
                self.cancelled = true;
                self.claim = None;
                self.called = None;
                self.record(
                    at,
                    event,
                    Draft::new(
                        RulingKind::Result,
                        &director.cancel_rule,
                        "the director cancels the game; a new game is to be played",
                    ),
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
}
