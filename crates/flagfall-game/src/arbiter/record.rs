//! Recording decisions: every ruling, refusal and result goes through here.

use flagfall_core::ruleset::Ruleset;
use shakmaty::Color;

use super::Game;
use crate::outcome::{GameResult, Outcome, Reason, Ruling, RulingKind, TimeChange};

/// A ruling being written: its kind, the rule it cites and the sentence for people, and,
/// where they apply, whom it concerns and the clock change it made. [`Game::record`]
/// stamps it with the event's instant and number.
#[must_use = "a draft is only a ruling once it is recorded"]
pub(super) struct Draft {
    kind: RulingKind,
    rule: String,
    text: String,
    player: Option<Color>,
    time: Option<TimeChange>,
}

impl Draft {
    pub(super) fn new(kind: RulingKind, rule: &str, text: impl Into<String>) -> Draft {
        Draft {
            kind,
            rule: rule.to_string(),
            text: text.into(),
            player: None,
            time: None,
        }
    }

    /// The player the ruling concerns (the claimant, the offender, the refused player).
    pub(super) fn concerning(mut self, player: impl Into<Option<Color>>) -> Draft {
        self.player = player.into();
        self
    }

    /// The clock change the ruling made.
    pub(super) fn with_time(mut self, change: impl Into<Option<TimeChange>>) -> Draft {
        self.time = change.into();
        self
    }
}

impl Game {
    /// Record a ruling, stamped with the instant and number of the event that led to it.
    pub(super) fn record(&mut self, at: u64, event: usize, draft: Draft) {
        let Draft {
            kind,
            rule,
            text,
            player,
            time,
        } = draft;
        self.rulings.push(Ruling {
            at,
            event,
            kind,
            ruling: text,
            rule,
            player,
            time,
        });
    }

    /// Refuse a move, press or retraction that the physical game does not allow.
    pub(super) fn refuse_completed(&mut self, at: u64, event: usize, p: Color, text: String) {
        self.refuse_by(at, event, |r| &r.moves.completed_rule, Some(p), text);
    }

    /// Refuse citing a rule picked from the ruleset.
    pub(super) fn refuse_by(
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

    pub(super) fn refuse(
        &mut self,
        at: u64,
        event: usize,
        rule: &str,
        player: Option<Color>,
        text: String,
    ) {
        self.record(
            at,
            event,
            Draft::new(RulingKind::Refused, rule, text).concerning(player),
        );
    }

    pub(super) fn finish(
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
        self.called = None;
        self.outcome = Some(Outcome {
            result,
            reason,
            rule: rule.to_string(),
        });
        self.record(at, event, Draft::new(RulingKind::Result, rule, text));
    }

    pub(super) fn adjust(&mut self, at: u64, side: Color, ms: i64) -> TimeChange {
        self.clock.adjust(at, side, ms);
        TimeChange { color: side, ms }
    }
}
