//! Moves, presses and retractions on the physical board.

use flagfall_core::board::{IllegalPositionReason, IllegalReason, PhysicalMove, Status};
use flagfall_core::colour;
use flagfall_core::ruleset::{IllegalWindow, PressWithoutMove};
use shakmaty::{Color, Role, Square};

use super::record::Draft;
use super::{Completed, Game, IllegalAct, Pass, Pending, Window};
use crate::outcome::{GameResult, Reason, RulingKind};

impl Game {
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
        if let Some(call) = &self.called {
            let text = format!(
                "{} has called the director: the clock stays stopped until the director acts",
                colour::name(call.by)
            );
            let rule = self.setup.ruleset.director.call_citation().to_string();
            self.refuse(at, event, &rule, Some(p), text);
            return true;
        }
        false
    }

    pub(super) fn on_move(
        &mut self,
        at: u64,
        event: usize,
        p: Color,
        mv: PhysicalMove,
        press: bool,
    ) {
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
            self.refuse_completed(
                at,
                event,
                p,
                format!("it is not {}'s turn", colour::name(p)),
            );
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

    pub(super) fn piece_has_legal_move(&self, sq: Square) -> bool {
        self.pos
            .legal_moves(&self.rules)
            .iter()
            .any(|m| m.from == sq)
    }

    pub(super) fn on_retract(&mut self, at: u64, event: usize, p: Color) {
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

    pub(super) fn on_press(&mut self, at: u64, event: usize, p: Color) {
        if self.blocked_by_claim_or_pause(at, event, p) {
            return;
        }
        if self.pending.as_ref().is_none_or(|pm| pm.mover != p) {
            self.press_without_move(at, event, p);
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
                act: IllegalAct::Move(self.history.len() - 1),
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
                    format!("{} is checkmated", colour::name(!p)),
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
                    format!("{} is stalemated", colour::name(!p)),
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

    /// A press with no move of the presser's on the board, as `moves.press_without_move`
    /// says (docs/rules.md §2.11): refused; or, by the player on move, the clock handed to
    /// the opponent with the turn kept (`opponent_time`: the opponent puts displaced
    /// pieces right on his own time, then presses back), or the move handed over
    /// (`illegal_move`, Laws 7.5.3: an illegal move that stands unless the opponent, now on
    /// move, claims it); and by the player not on move, whose clock such a press started,
    /// the clock handed back.
    fn press_without_move(&mut self, at: u64, event: usize, p: Color) {
        let moves = self.setup.ruleset.moves.clone();
        if moves.press_without_move == PressWithoutMove::Refused {
            let text = "there is no move of yours on the board to complete".to_string();
            self.refuse_completed(at, event, p, text);
            return;
        }
        if let Err(e) = self.clock.press(at, p) {
            self.refuse_completed(at, event, p, e.to_string());
            return;
        }
        let (me, them) = (colour::name(p), colour::name(!p));
        if self.pos.turn() != p {
            // The press back: the player on move has his clock again.
            let text = format!(
                "{me} presses the clock back without a move: {them}'s clock runs, {them} is to move"
            );
            let draft = Draft::new(RulingKind::Clock, &moves.press_without_move_rule, text);
            self.record(at, event, draft.concerning(p));
            return;
        }
        if moves.press_without_move == PressWithoutMove::OpponentTime {
            let text = format!(
                "{me} presses the clock without a move: {them}'s clock runs while {them} puts \
                 the pieces right, and {me} is still to move once {them} presses back"
            );
            let draft = Draft::new(RulingKind::Clock, &moves.press_without_move_rule, text);
            self.record(at, event, draft.concerning(p));
            return;
        }
        self.pass_turn(at, event, p);
    }

    /// Laws 7.5.3 (fide-b3 A.5.2): the press without a move is considered an illegal
    /// move, and like any press it hands over the move. The opponent's clock runs and the
    /// opponent is on move: he may claim it (the illegal-move penalties, the turn handed
    /// back), or play on, and then it stands (A.5.2: the game continues).
    fn pass_turn(&mut self, at: u64, event: usize, p: Color) {
        let before = self.pos.clone();
        self.pos.pass();
        self.keys.push(self.pos.repetition_key());
        let touch = self.touch.take();
        self.passes.push(Pass {
            by: p,
            after_moves: self.history.len(),
            before,
            touch,
        });
        // It is the presser's next act: a window he had on the opponent closes.
        if self.window.as_ref().is_some_and(|w| w.offender == !p) {
            self.window = None;
        }
        self.window = Some(Window {
            offender: p,
            act: IllegalAct::Press,
        });
        let (me, them) = (colour::name(p), colour::name(!p));
        let text = format!(
            "{me} presses the clock without a move, which counts as an illegal move: {them}'s \
             clock runs and {them} is to move; {them} may claim it"
        );
        let rule = self.setup.ruleset.moves.press_without_move_rule.clone();
        self.record(
            at,
            event,
            Draft::new(RulingKind::Clock, &rule, text).concerning(p),
        );
        if self.setup.arbiter_calls_illegal {
            let was_running = self.stop_for_claim(at);
            let what = "the arbiter intervenes on the press without a move (fide-b3 A.5.2)";
            self.decide_illegal(at, event, !p, what);
            self.restart_after_claim(at, was_running);
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
}
