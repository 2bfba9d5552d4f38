//! Flag, both-flags and illegal-move claims, mating material, and simultaneous claims.

use flagfall_analysis::assistant::DrawClaim;
use flagfall_analysis::{Limits, material};
use flagfall_core::board::{IllegalReason, PhysicalMove};
use flagfall_core::clock::format_ms;
use flagfall_core::colour;
use flagfall_core::ruleset::{IllegalPenalty, MaterialDefinition};
use shakmaty::{Color, Role};

use super::record::Draft;
use super::{Game, IllegalAct, LastAct, MINUTE, Pending};
use crate::outcome::{GameResult, Reason, RulingKind};
use crate::script::{Action, ClaimKind, Event, Party};

impl Game {
    /// Can `who` still mate, as the ruleset defines mating material (docs/rules.md §3)?
    pub(super) fn can_mate(&self, who: Color) -> bool {
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
                colour::name(offender),
                colour::name(!offender),
                colour::name(offender)
            ),
        );
    }

    pub(super) fn on_claim(
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

    fn claim_flag(&mut self, at: u64, event: usize, p: Color) {
        let was_running = self.stop_for_claim(at);
        let flags = self.setup.ruleset.flags.clone();
        let mine = self.clock.remaining(at, p);
        let theirs = self.clock.remaining(at, !p);
        if mine <= 0 {
            self.record(
                at,
                event,
                Draft::new(
                    RulingKind::ClaimRejected,
                    &flags.void_rule,
                    format!(
                        "{}'s own flag is down ({}): the time claim is void",
                        colour::name(p),
                        format_ms(mine)
                    ),
                )
                .concerning(p),
            );
        } else if theirs > 0 {
            self.record(
                at,
                event,
                Draft::new(
                    RulingKind::ClaimRejected,
                    &flags.flag_rule,
                    format!(
                        "{}'s flag is not down ({} left)",
                        colour::name(!p),
                        format_ms(theirs)
                    ),
                )
                .concerning(p),
            );
        } else if self.can_mate(p) {
            self.finish(
                at,
                event,
                GameResult::win_for(p),
                Reason::TimeForfeit,
                &flags.flag_rule,
                format!(
                    "{}'s flag is down: {} wins on time",
                    colour::name(!p),
                    colour::name(p)
                ),
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
                    colour::name(!p),
                    colour::name(p)
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
            self.record(
                at,
                event,
                Draft::new(
                    RulingKind::ClaimRejected,
                    &rule,
                    format!(
                        "not both flags are down (White {}, Black {})",
                        format_ms(w),
                        format_ms(b)
                    ),
                )
                .concerning(p),
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
        let too_late = match self.last_act_of(!p) {
            Some(LastAct::Pass) => true,
            Some(LastAct::Move(c)) => !c.record.legality.is_legal(),
            None => false,
        };
        if too_late {
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
        self.record(
            at,
            event,
            Draft::new(
                RulingKind::ClaimRejected,
                &illegal.rule,
                format!("{}'s last move was legal", colour::name(!p)),
            )
            .concerning(p),
        );
        self.restart_after_claim(at, was_running);
    }

    pub(super) fn claim_by_king_capture(
        &mut self,
        at: u64,
        event: usize,
        p: Color,
        mv: PhysicalMove,
    ) {
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
    pub(super) fn decide_illegal(&mut self, at: u64, event: usize, claimant: Color, what: &str) {
        let Some(window) = self.window.take() else {
            return;
        };
        let offender = window.offender;
        let illegal = self.setup.ruleset.illegal.clone();
        // The king-adjacent trap (uscf-2020 7d, uscf-classic 2b).
        if let IllegalAct::Move(index) = window.act
            && illegal.king_adjacent_trap
            && self.adjacent_by == Some(claimant)
        {
            let record = &self.history[index].record;
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
                        colour::name(claimant),
                        colour::name(claimant)
                    ),
                );
                return;
            }
        }
        let caught = &mut self.illegal_caught[colour::index(offender)];
        *caught = caught.saturating_add(1);
        let nth = self.illegal_caught[colour::index(offender)];
        let penalty = if nth == 1 {
            illegal.first
        } else {
            illegal.later
        };
        let act = match window.act {
            IllegalAct::Move(_) => format!("{}'s move was illegal", colour::name(offender)),
            IllegalAct::Press => format!(
                "{} pressed the clock without making a move, an illegal move",
                colour::name(offender)
            ),
        };
        match (penalty, window.act) {
            (IllegalPenalty::Loss, _) => {
                if self.can_mate(claimant) {
                    self.finish(
                        at,
                        event,
                        GameResult::win_for(claimant),
                        Reason::IllegalMove,
                        &illegal.rule,
                        format!("{what}: {act}; {} wins", colour::name(claimant)),
                    );
                } else {
                    self.finish(
                        at,
                        event,
                        GameResult::Draw,
                        Reason::InsufficientMaterial,
                        &illegal.no_material_rule,
                        format!(
                            "{what}: {act}, but {} has no mating material: draw",
                            colour::name(claimant)
                        ),
                    );
                }
            }
            (IllegalPenalty::MinuteAndReinstate, IllegalAct::Press) => {
                // Nothing moved: the turn goes back to the offender as it was before the
                // press, and his clock runs again.
                if let Some(pass) = self.passes.pop_if(|pass| pass.by == offender) {
                    self.pos = pass.before;
                    self.keys.pop();
                    self.touch = pass.touch;
                }
                self.pending = None;
                let time = self.adjust(at, claimant, MINUTE);
                self.clock.start(at, offender);
                self.clock.stop(at);
                let text = format!(
                    "{what}: {act}; one minute to {}, {}'s clock runs again",
                    colour::name(claimant),
                    colour::name(offender)
                );
                let draft = Draft::new(RulingKind::ClaimUpheld, &illegal.rule, text);
                self.record(at, event, draft.concerning(claimant).with_time(time));
            }
            (IllegalPenalty::MinuteAndReinstate, IllegalAct::Move(index)) => {
                let completed = self.history.drain(index..).next();
                self.keys.truncate(index + 1);
                self.passes.retain(|pass| pass.after_moves <= index);
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
                let text = format!(
                    "{what}: {}'s move {} was illegal; one minute to {}, the position before it is reinstated",
                    colour::name(offender),
                    completed.record.mv,
                    colour::name(claimant)
                );
                let draft = Draft::new(RulingKind::ClaimUpheld, &illegal.rule, text);
                self.record(at, event, draft.concerning(claimant).with_time(time));
            }
        }
    }
}
