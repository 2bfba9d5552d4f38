//! Draws: offers, threefold and fifty-move claims, dead and illegal positions, and
//! the claims that wait for the director (ILC, drawn positions).

use flagfall_analysis::Limits;
use flagfall_analysis::assistant::{self, DrawClaim, Ground};
use flagfall_core::board::PhysicalMove;
use flagfall_core::clock::{format_ms, ms_to_i64};
use flagfall_core::colour;
use flagfall_core::ruleset::DrawRules;
use shakmaty::Color;

use super::record::Draft;
use super::{Game, MINUTE, Pending, PendingClaim};
use crate::outcome::{GameResult, Reason, RulingKind};
use crate::script::ClaimKind;

impl Game {
    /// Accept or decline the opponent's standing draw offer.
    pub(super) fn on_answer(&mut self, at: u64, event: usize, p: Color, accept: bool) {
        let rule = self.setup.ruleset.draws.agreement_rule.clone();
        if self.offer != Some(!p) {
            let text = "no draw offer by the opponent stands".to_string();
            self.refuse(at, event, &rule, Some(p), text);
        } else if accept {
            let text = format!("{} accepts the draw offer", colour::name(p));
            self.finish(at, event, GameResult::Draw, Reason::Agreement, &rule, text);
        } else {
            self.offer = None;
        }
    }

    /// Laws 5.2.2 after a legal move: neither side can mate. The exact search runs only
    /// when no queen or rook is on the board and no pawn can advance (bare material,
    /// locked pawn walls), to keep the per-move cost low; a dead position with a heavy
    /// piece or a mobile pawn is left to a claim or the director (docs/arbiter.md).
    pub(super) fn is_dead_position(&self) -> bool {
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

    pub(super) fn claim_draw_rule(
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
                format!("{} claims {what}: draw", colour::name(p)),
            );
            return;
        }
        let time = self.adjust(at, !p, ms_to_i64(draws.wrong_claim_penalty_ms));
        let why = if !legal_intent {
            "the intended move is not legal"
        } else {
            "the claim is not correct"
        };
        self.record(
            at,
            event,
            Draft::new(
                RulingKind::ClaimRejected,
                &draws.wrong_claim_rule,
                format!(
                    "{} claims a draw by {}: {why}; one minute to {}",
                    colour::name(p),
                    kind.name(),
                    colour::name(!p)
                ),
            )
            .concerning(p)
            .with_time(time),
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

    pub(super) fn claim_director(&mut self, at: u64, event: usize, p: Color, kind: DrawClaim) {
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
            if left >= ms_to_i64(draws.ilc_max_remaining_ms) {
                self.refuse(
                    at,
                    event,
                    &rule,
                    Some(p),
                    format!(
                        "ILC needs less than {} left; {} has {}",
                        format_ms(ms_to_i64(draws.ilc_max_remaining_ms)),
                        colour::name(p),
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
        let recommendation = assistant::recommend(&setup, p, kind, tables);
        self.record(
            at,
            event,
            Draft::new(
                RulingKind::ClaimPending,
                &rule,
                format!(
                    "{} claims a draw ({}); the clock is stopped for the director",
                    colour::name(p),
                    draw_claim_name(kind)
                ),
            )
            .concerning(p),
        );
        let advice = format!(
            "recommend {}: {}",
            if recommendation.grant {
                "granting"
            } else {
                "denying"
            },
            recommendation.reasons.join("; ")
        );
        let advice_rule = recommendation_rule(&draws, kind, recommendation.ground);
        self.record(
            at,
            event,
            Draft::new(RulingKind::Recommendation, advice_rule, advice).concerning(p),
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

    pub(super) fn on_ruling(&mut self, at: u64, event: usize, grant: bool) {
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
                let rule = recommendation_rule(&draws, claim.kind, claim.recommendation.ground)
                    .to_string();
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
                let time = self.adjust(at, p, -ms_to_i64(draws.ilc_denied_claimant_ms));
                self.record(
                    at,
                    event,
                    Draft::new(
                        RulingKind::ClaimRejected,
                        &draws.ilc_rule,
                        format!(
                            "ILC claim denied: one minute off {}'s clock",
                            colour::name(p)
                        ),
                    )
                    .concerning(p)
                    .with_time(time),
                );
                self.clock.resume(at);
            }
            (DrawClaim::DrawPosition, false) => {
                let rule = draws
                    .draw_position_denied_rule
                    .clone()
                    .unwrap_or_else(|| draws.draw_positions_rule.clone());
                let time = self.adjust(at, !p, MINUTE);
                self.record(
                    at,
                    event,
                    Draft::new(
                        RulingKind::ClaimRejected,
                        &rule,
                        format!("draw claim denied: one minute to {}", colour::name(!p)),
                    )
                    .concerning(p)
                    .with_time(time),
                );
                self.clock.resume(at);
            }
        }
    }
}

fn draw_claim_name(kind: DrawClaim) -> &'static str {
    match kind {
        DrawClaim::Ilc => "insufficient losing chances",
        DrawClaim::DrawPosition => "a drawn position",
    }
}

/// The citation of the assistant's recommendation on a `claim`, from the ruleset: an ILC
/// claim cites `draws.ilc_rule`; a drawn-position claim cites the pattern's own rule
/// ([`DrawRules::pattern_rule`]) or else `draws.draw_positions_rule`.
pub fn recommendation_rule(draws: &DrawRules, claim: DrawClaim, ground: Ground) -> &str {
    match (claim, ground) {
        (DrawClaim::Ilc, _) => &draws.ilc_rule,
        (DrawClaim::DrawPosition, Ground::Pattern(pattern)) => draws.pattern_rule(pattern),
        (DrawClaim::DrawPosition, _) => &draws.draw_positions_rule,
    }
}
