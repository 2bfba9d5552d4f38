//! Recording decisions: every ruling, refusal and result goes through here.

use flagfall_core::ruleset::Ruleset;
use shakmaty::Color;

use super::Game;
use crate::outcome::{GameResult, Outcome, Reason, Ruling, RulingKind, TimeChange};

impl Game {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rule(
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
        self.rule(at, event, RulingKind::Refused, rule, player, None, text);
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
        self.outcome = Some(Outcome {
            result,
            reason,
            rule: rule.to_string(),
        });
        self.rule(at, event, RulingKind::Result, rule, None, None, text);
    }

    pub(super) fn adjust(&mut self, at: u64, side: Color, ms: i64) -> TimeChange {
        self.clock.adjust(at, side, ms);
        TimeChange { color: side, ms }
    }
}
