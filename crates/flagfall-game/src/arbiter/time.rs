//! The clock around events: automatic flagging, stopping and restarting for claims.

use super::Game;
use crate::outcome::{GameResult, Reason};
use flagfall_core::colour;

impl Game {
    pub(super) fn check_auto_flag(&mut self, at: u64, event: usize) {
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
                    colour::name(side),
                    fell,
                    colour::name(winner)
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
                    colour::name(side),
                    colour::name(winner)
                ),
            );
        }
    }

    /// Stop the clock for a claim; returns whether it was running (to restart it).
    pub(super) fn stop_for_claim(&mut self, at: u64) -> bool {
        let was_running = self.clock.running().is_some();
        self.clock.stop(at);
        was_running
    }

    pub(super) fn restart_after_claim(&mut self, at: u64, was_running: bool) {
        if was_running && !self.is_over() {
            self.clock.resume(at);
        }
    }
}
