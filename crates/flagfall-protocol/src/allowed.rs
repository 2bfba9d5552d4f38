//! What each role may do now (`actions` in the state object and in every update): the
//! page shows exactly these buttons and computes none of them itself. The server screens
//! every action with [`may_send`] before the arbiter sees it, and [`Actions::of`] asks the
//! same function, so the two cannot disagree about who may send what.

use std::borrow::Cow;

use flagfall_core::ruleset::{OffenceKind, PenaltyStep};
use flagfall_game::Game;
use flagfall_game::script::{Action, Party};
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

/// Why the server refuses an action before the arbiter sees it (not stored): the reason
/// in words, and the rule when one applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRefused {
    pub reason: String,
    pub rule: Option<String>,
}

impl ActionRefused {
    fn new(reason: impl Into<String>, rule: Option<&str>) -> ActionRefused {
        ActionRefused {
            reason: reason.into(),
            rule: rule.map(str::to_string),
        }
    }
}

/// Whether `role` may send `action` on `game`, played in `mode`, as far as anyone decides
/// before the arbiter: the party it acts as, or why not. What passes is stored and the
/// arbiter rules on it (refusing, for instance, anything but a director's result once
/// the game is over). This is the one permission model: the server screens every action
/// with it, and [`Actions::of`] derives from it what a player may offer, press or take
/// back.
///
/// - A spectator acts on nothing; only the director takes a director's action, and the
///   director takes no player's.
/// - Online play takes only legal moves of the side to move (each presses the clock), no
///   take back and no press without a move.
/// - A draw offer stands until the opponent accepts or declines it or makes a move
///   (docs/arbiter.md "Offers, resignation, director"; `draws.agreement_rule`). While one
///   stands, a player offers nothing: the offerer has offered already, and the opponent
///   answers it (an offer would replace it, making it lapse by none of those three).
pub fn may_send(
    game: &Game,
    mode: Mode,
    role: Role,
    action: &Action,
) -> Result<Party, ActionRefused> {
    let Some(party) = role.party() else {
        return Err(ActionRefused::new(
            "spectators cannot act on a game (uscf-2020 13)",
            None,
        ));
    };
    let director_rule = || Some(game.ruleset().director.rule.as_str());
    if action.is_director_action() && party != Party::Director {
        let text = format!("only the director may do that, not {}", role.as_str());
        return Err(ActionRefused::new(text, director_rule()));
    }
    if party == Party::Director && !action.is_director_action() {
        let text = "the director does not move, claim or offer for a player";
        return Err(ActionRefused::new(text, director_rule()));
    }
    if mode == Mode::Online {
        online(game, party, action).map_err(|text| ActionRefused::new(text, None))?;
    }
    if let (Action::Offer, Some(colour), Some(by)) = (action, party.color(), game.draw_offer()) {
        let text = if by == colour {
            "your draw offer stands until it is answered".to_string()
        } else {
            format!(
                "{}'s draw offer stands: accept or decline it",
                flagfall_core::colour::name(by)
            )
        };
        let rule = game.ruleset().draws.agreement_rule.as_str();
        return Err(ActionRefused::new(text, Some(rule)));
    }
    Ok(party)
}

/// What online play allows: legal moves of the side to move only, no take back, no press
/// without a move. A move out of turn is refused here, not stored, like an illegal one
/// (issue 32 item 7: it reached the arbiter, whose refusal was stored).
fn online(game: &Game, party: Party, action: &Action) -> Result<(), String> {
    match action {
        Action::Move { mv, .. } => {
            let turn = game.position().turn();
            if let Some(c) = party.color().filter(|c| *c != turn)
                && !game.is_over()
            {
                return Err(format!(
                    "it is not {}'s turn (online play takes moves of the side to move only)",
                    flagfall_core::colour::name(c)
                ));
            }
            if !game.is_over() && !game.is_legal_move(mv) {
                return Err(format!(
                    "{mv} is not a legal move (online play takes legal moves only)"
                ));
            }
            Ok(())
        }
        Action::Retract => Err("online play has no moves to take back".into()),
        Action::Press => {
            Err("online play has no clock to press without a move (a move presses it)".into())
        }
        _ => Ok(()),
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
            let role = if c == Color::White {
                Role::White
            } else {
                Role::Black
            };
            let may = |action: Action| may_send(game, mode, role, &action).is_ok();
            let otb = mode == Mode::Otb;
            let on_move = game.position().turn() == c;
            let free = !game.halted();
            PlayerActions {
                r#move: free && on_move && game.board_move().is_none(),
                press: may(Action::Press) && game.may_press(c),
                take_back: may(Action::Retract) && game.may_retract(c),
                move_and_press: otb && free,
                offer_draw: may(Action::Offer),
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

#[cfg(test)]
mod tests {
    use flagfall_game::RulingKind;
    use flagfall_game::script::{self, Event};

    use super::*;
    use crate::{ClientFrame, CreateGame};

    const ROLES: [Role; 4] = [Role::White, Role::Black, Role::Director, Role::Spectator];

    /// A fresh game of `body` with a director, and its setup line.
    fn game_of(body: &str) -> (Game, String) {
        let c = CreateGame::from_json(body.as_bytes()).unwrap();
        let (line, setup) = c.setup_line().unwrap();
        (Game::new(setup), line)
    }

    /// Whether the server refuses `action` by `role` now: screened by [`may_send`]
    /// (answered, not stored), or stored and refused by the arbiter (a ruling of kind
    /// `refused` for it, which the server answers as a refusal).
    fn server_refuses(game: &Game, mode: Mode, role: Role, action: &Action) -> bool {
        let Ok(party) = may_send(game, mode, role, action) else {
            return true;
        };
        let mut after = game.clone();
        let n = after.rulings().last().map_or(0, |r| r.event) + 1000;
        let event = ClientFrame::event(action.clone(), game.now() + 10, party, 0);
        after.apply(&event, n);
        after
            .rulings()
            .iter()
            .any(|r| r.event == n && r.kind == RulingKind::Refused)
    }

    /// What `Actions::of` lets `role` do among the draw offer, its answers and a
    /// resignation (the director and spectators: none of them).
    fn offered(actions: &Actions, role: Role, action: &Action) -> bool {
        let p = match role {
            Role::White => &actions.white,
            Role::Black => &actions.black,
            _ => return false,
        };
        match action {
            Action::Offer => p.offer_draw,
            Action::Accept | Action::Decline => p.answer_draw,
            Action::Resign => p.resign,
            other => panic!("not swept: {other:?}"),
        }
    }

    /// Every role, each draw action and a resignation, in the game as it is: refused by
    /// the server exactly when `Actions::of` does not offer it.
    fn check(game: &Game, mode: Mode, when: &str) {
        let actions = Actions::of(game, mode);
        for role in ROLES {
            for action in [
                Action::Offer,
                Action::Accept,
                Action::Decline,
                Action::Resign,
            ] {
                assert_eq!(
                    server_refuses(game, mode, role, &action),
                    !offered(&actions, role, &action),
                    "{mode:?}, {when}: {role:?} sends {action:?} (actions {actions:?})"
                );
            }
        }
    }

    fn event(line: &str, text: &str) -> Event {
        script::parse(&format!("{line}\n{text}\n"))
            .unwrap()
            .events
            .remove(0)
    }

    const BODIES: [(&str, Mode); 2] = [
        (
            r#"{"rules":"uscf-2020","time_control":"G/5;d0","director":true}"#,
            Mode::Otb,
        ),
        (
            r#"{"rules":"fide-b3","time_control":"3+2","director":true,"mode":"online"}"#,
            Mode::Online,
        ),
    ];

    /// The draw-offer cases one by one: none standing, White's, Black's, one declined,
    /// one lapsed by a move, a draw agreed, a resignation.
    #[test]
    fn the_server_refuses_exactly_what_actions_do_not_offer_around_draw_offers() {
        let cases: [(&str, &[&str]); 7] = [
            ("no offer", &[]),
            (
                "White's offer stands",
                &[
                    r#"{"at":10,"by":"white","move":"e2e4","press":true}"#,
                    r#"{"at":20,"by":"white","offer":"draw"}"#,
                ],
            ),
            (
                "Black's offer stands",
                &[
                    r#"{"at":10,"by":"white","move":"e2e4","press":true}"#,
                    r#"{"at":20,"by":"black","move":"e7e5","press":true}"#,
                    r#"{"at":30,"by":"black","offer":"draw"}"#,
                ],
            ),
            (
                "White's offer declined",
                &[
                    r#"{"at":10,"by":"white","offer":"draw"}"#,
                    r#"{"at":20,"by":"black","decline":"draw"}"#,
                ],
            ),
            (
                "White's offer lapsed by Black's move",
                &[
                    r#"{"at":10,"by":"white","move":"e2e4","press":true}"#,
                    r#"{"at":20,"by":"white","offer":"draw"}"#,
                    r#"{"at":30,"by":"black","move":"e7e5","press":true}"#,
                ],
            ),
            (
                "a draw agreed",
                &[
                    r#"{"at":10,"by":"white","offer":"draw"}"#,
                    r#"{"at":20,"by":"black","accept":"draw"}"#,
                ],
            ),
            (
                "Black resigned",
                &[r#"{"at":10,"by":"black","resign":true}"#],
            ),
        ];
        for (body, mode) in BODIES {
            for (when, lines) in cases {
                let (mut game, line) = game_of(body);
                for (i, text) in lines.iter().enumerate() {
                    game.apply(&event(&line, text), i + 1);
                }
                check(&game, mode, when);
            }
        }
    }

    /// A sweep of game states: a game played move by move, with draw offers, answers and
    /// repeated offers mixed in by a fixed pseudo-random sequence, stored as the server
    /// stores them (what `may_send` refuses is not applied); in every state reached, every
    /// role is refused exactly what `Actions::of` does not offer.
    #[test]
    fn the_server_refuses_exactly_what_actions_do_not_offer_in_a_sweep_of_states() {
        let moves = [
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6", "b2b4",
            "c5b6", "a2a4", "a7a6", "e1g1", "e8g8",
        ];
        for (body, mode) in BODIES {
            let (mut game, _) = game_of(body);
            let mut seed: u64 = 0x5eed;
            let (mut n, mut at, mut next_move) = (0, 0, 0);
            while next_move < moves.len() && !game.is_over() {
                check(&game, mode, &format!("after event {n}"));
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let pick = (seed >> 33) % 6;
                let role = if (seed >> 20).is_multiple_of(2) {
                    Role::White
                } else {
                    Role::Black
                };
                let action = match pick {
                    0 | 1 => {
                        let mv = moves[next_move].parse().unwrap();
                        let mover = if next_move % 2 == 0 {
                            Role::White
                        } else {
                            Role::Black
                        };
                        next_move += 1;
                        at += 10;
                        let event = ClientFrame::event(
                            Action::Move { mv, press: true },
                            at,
                            mover.party().unwrap(),
                            0,
                        );
                        n += 1;
                        game.apply(&event, n);
                        continue;
                    }
                    2..=4 => Action::Offer,
                    _ => Action::Decline,
                };
                if let Ok(party) = may_send(&game, mode, role, &action) {
                    at += 10;
                    n += 1;
                    game.apply(&ClientFrame::event(action, at, party, 0), n);
                }
            }
            assert_eq!(
                next_move,
                moves.len(),
                "{mode:?}: the sweep played its moves"
            );
            check(&game, mode, "at the end");
        }
    }

    /// An offer while the opponent's stands is refused naming it and the agreement rule;
    /// the standing offer is untouched (it lapses only by an answer or a move).
    #[test]
    fn an_offer_while_the_opponents_stands_is_refused_with_the_rule() {
        let (body, mode) = BODIES[0];
        let (mut game, line) = game_of(body);
        game.apply(&event(&line, r#"{"at":10,"by":"white","offer":"draw"}"#), 1);
        let refused = may_send(&game, mode, Role::Black, &Action::Offer).unwrap_err();
        assert_eq!(
            refused.reason,
            "White's draw offer stands: accept or decline it"
        );
        assert_eq!(refused.rule.as_deref(), Some("uscf-2020 8b"));
        let own = may_send(&game, mode, Role::White, &Action::Offer).unwrap_err();
        assert_eq!(own.reason, "your draw offer stands until it is answered");
        assert_eq!(game.draw_offer(), Some(Color::White));
    }
}
