//! What each role may do now (`actions` in the state object and in every update): the
//! page shows exactly these buttons and computes none of them itself.

use std::borrow::Cow;

use flagfall_core::ruleset::{OffenceKind, PenaltyStep};
use flagfall_game::Game;
use serde::{Deserialize, Serialize};
use shakmaty::Color;
use ts_rs::TS;

use crate::{Mode, Role};

/// What a player may do now, besides the claims (`claims`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, TS)]
pub struct PlayerActions {
    /// Put a move on the board (online: the move, pressed with it).
    pub r#move: bool,
    /// Press the clock (over the board only).
    pub press: bool,
    /// Take back the own move on the board not yet pressed (over the board only; a legal
    /// move only where the ruleset allows it, touch move otherwise).
    pub take_back: bool,
    /// Move and press as one action (over the board only; online every move is pressed).
    pub move_and_press: bool,
    pub offer_draw: bool,
    /// Answer the opponent's standing draw offer (accept or decline).
    pub answer_draw: bool,
    pub resign: bool,
    /// Call the director (stops the clock): a director present, nothing waiting for one.
    pub call_director: bool,
}

/// The next penalty of one ladder for one player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NextPenalty {
    /// Offences of this kind already recorded against the player.
    pub recorded: u32,
    /// The ladder's step (`warning`, `opponent_plus_minute`, `forfeit`,
    /// `not_an_offence`, ...), as the ruleset writes it.
    pub step: Cow<'static, str>,
    /// The step in words ("a warning").
    pub text: Cow<'static, str>,
    /// The ladder's rule.
    pub rule: String,
}

/// One kind of offence the director may record, with each player's next penalty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OffenceOption {
    /// The kind as the `offence` action names it (`two_hands`, ...).
    pub kind: Cow<'static, str>,
    /// The kind in words ("Two hands").
    pub label: Cow<'static, str>,
    pub white: NextPenalty,
    pub black: NextPenalty,
}

/// What the director may do now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, TS)]
pub struct DirectorActions {
    /// Stop the running clock (or keep it stopped after a call).
    pub stop_clock: bool,
    /// Start the stopped clock (resume after a call or a stop).
    pub start_clock: bool,
    /// Add or take time (`add_time`).
    pub add_time: bool,
    /// Rule on the pending claim (grant or deny).
    pub ruling: bool,
    /// Declare a result or cancel the game.
    pub declare: bool,
    /// The offences with the ladder's next penalty for each player; empty once the game
    /// is over or when it has no director. In the state of the director's sockets (the
    /// server leaves them out of the others'); in an event's update only when they
    /// changed since the previous event (an offence recorded, the game over): absent,
    /// they are as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offences: Option<Vec<OffenceOption>>,
}

/// What each role may do now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, TS)]
pub struct Actions {
    pub white: PlayerActions,
    pub black: PlayerActions,
    pub director: DirectorActions,
}

/// An offence kind in words.
pub fn offence_label(kind: OffenceKind) -> &'static str {
    match kind {
        OffenceKind::TwoHands => "Two hands",
        OffenceKind::DisplacedPieces => "Displaced pieces",
        OffenceKind::KnockedClock => "Knocked the clock",
        OffenceKind::TouchMove => "Touch move",
        OffenceKind::Other => "Other",
    }
}

/// A ladder step's name (as the ruleset's TOML writes it) and the step in words.
pub fn penalty_words(step: PenaltyStep) -> (&'static str, &'static str) {
    match step {
        PenaltyStep::Warning => ("warning", "a warning"),
        PenaltyStep::WarningOrMinuteIfFlagDown => (
            "warning_or_minute_if_flag_down",
            "a warning, or a minute to the opponent if the offender's flag is down",
        ),
        PenaltyStep::OpponentPlusMinute => (
            "opponent_plus_minute",
            "one minute added to the opponent's clock",
        ),
        PenaltyStep::OffenderMinusMinute => (
            "offender_minus_minute",
            "one minute taken from the offender's clock",
        ),
        PenaltyStep::Forfeit => ("forfeit", "loss of the game"),
        PenaltyStep::NotAnOffence => (
            "not_an_offence",
            "nothing: not an offence under these rules",
        ),
    }
}

/// What the director's offences ([`DirectorActions::offences`]) of a game depend on
/// besides its ruleset and whether it has a director (both fixed): whether the game is
/// over, and how many offences are recorded (they are only ever added, and each changes
/// one count). Two states of one game with the same key have the same offences: a
/// server remembers this, not the list, to know whether an update must carry them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffencesKey {
    over: bool,
    recorded: usize,
}

impl OffencesKey {
    pub fn of(game: &Game) -> OffencesKey {
        let recorded = OffenceKind::ALL
            .iter()
            .map(|&k| game.offence_count(Color::White, k) + game.offence_count(Color::Black, k))
            .sum();
        OffencesKey {
            over: game.is_over(),
            recorded,
        }
    }
}

impl Actions {
    /// Whether these actions hold something only one player may read: `take_back` is
    /// true only for an illegal move on the board (touch move forbids taking back a legal
    /// one, unless the ruleset allows it), so it tells whoever reads it whether the move
    /// is legal. Over the board the opponent, a spectator and a passer-by must learn that
    /// only from a claim; the mover's own sockets may (they offer the button).
    pub fn has_private(&self) -> bool {
        self.white.take_back || self.black.take_back
    }

    /// These actions as `viewer` may read them: every `take_back` but the viewer's own
    /// reads `false` ([`Actions::has_private`]). `viewer` is `Role::White` or
    /// `Role::Black` for a player's socket; the director, spectators and the HTTP `GET`
    /// read both as `false`.
    pub fn seen_by(&mut self, viewer: Role) {
        if viewer != Role::White {
            self.white.take_back = false;
        }
        if viewer != Role::Black {
            self.black.take_back = false;
        }
    }

    /// What each role of `game` may do now.
    pub fn of(game: &Game, mode: Mode) -> Actions {
        let director = game.setup().director;
        let over = game.is_over();
        let waiting = game.called().is_some() || game.pending_claim().is_some();
        let player = |c: Color| {
            if over {
                return PlayerActions::default();
            }
            let otb = mode == Mode::Otb;
            let on_move = game.position().turn() == c;
            let free = !game.halted();
            PlayerActions {
                r#move: free && on_move && game.board_move().is_none(),
                press: otb && game.may_press(c),
                take_back: otb && game.may_retract(c),
                move_and_press: otb && free,
                offer_draw: game.draw_offer().is_none(),
                answer_draw: game.draw_offer() == Some(!c),
                resign: true,
                call_director: director && !waiting,
            }
        };
        let director_actions = if director {
            let running = game.clock().running().is_some() && !game.halted();
            DirectorActions {
                stop_clock: !over && (running || game.called().is_some()),
                start_clock: !over && game.halted() && game.pending_claim().is_none(),
                add_time: !over,
                ruling: !over && game.pending_claim().is_some(),
                declare: true,
                offences: Some(if over {
                    Vec::new()
                } else {
                    OffenceKind::ALL
                        .iter()
                        .map(|&kind| {
                            let next = |c: Color| {
                                let (step, rule) = game.next_penalty(c, kind);
                                let (name, text) = penalty_words(step);
                                NextPenalty {
                                    recorded: u32::try_from(game.offence_count(c, kind))
                                        .unwrap_or(u32::MAX),
                                    step: Cow::Borrowed(name),
                                    text: Cow::Borrowed(text),
                                    rule: rule.to_string(),
                                }
                            };
                            OffenceOption {
                                kind: Cow::Borrowed(kind.name()),
                                label: Cow::Borrowed(offence_label(kind)),
                                white: next(Color::White),
                                black: next(Color::Black),
                            }
                        })
                        .collect()
                }),
            }
        } else {
            DirectorActions {
                offences: Some(Vec::new()),
                ..DirectorActions::default()
            }
        };
        Actions {
            white: player(Color::White),
            black: player(Color::Black),
            director: director_actions,
        }
    }
}
