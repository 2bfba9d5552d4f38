//! Changes to an event as values, for a program that holds the event and changes it as
//! the evening goes (a server, the `flagfall event` command line).
//!
//! A [`Change`] says what happens (a player checks in, a result comes in, the director
//! corrects round 3); [`Event::apply`] makes it, or refuses it with an [`EventError`]
//! naming what is wrong and leaves the event exactly as it was. A change that is made is
//! appended to the event's log ([`Event::log`]) with who made it, when (the caller's
//! clock: nothing here reads the time), what it replaced ([`Before`]) and what followed
//! from it ([`Effect`]: a round complete, the next round paired again after a correction,
//! the pairing numbers moved by a late entry, ...).
//!
//! Everything here is `serde`: a server may store the whole event as one JSON document,
//! or the event as created plus one row per [`LogEntry`] and rebuild it with
//! [`Event::replay`] (applying the same changes in the same order gives the same event).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::event::{
    ByeKind, Event, EventError, ForbiddenPair, ManualPairing, NewPlayer, PairingWarning, Player,
    RecordedResult, RequestedBye, Round,
};

/// Who makes a change and when: `by` is free text for the log (`director`, `deputy`,
/// `player 12`, ...), `at` the caller's time in milliseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// Who.
    pub by: String,
    /// When, in milliseconds since 1970-01-01 UTC, as the caller's clock reads.
    pub at: i64,
}

impl Origin {
    /// An origin.
    pub fn new(by: impl Into<String>, at: i64) -> Origin {
        Origin { by: by.into(), at }
    }
}

/// New details for a player, as a rating list gives them: each field that is set replaces
/// the player's, each that is not leaves it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PlayerUpdate {
    /// The player's pairing number.
    pub player: u32,
    /// Rating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// FIDE id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fide_id: Option<u64>,
    /// Federation (three letters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub federation: Option<String>,
    /// FIDE title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Sex (`m` or `f`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sex: Option<char>,
    /// Birth year or date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub birth: Option<String>,
}

/// One change to an event. Players, rounds and boards are named by number (pairing
/// number, round 1-based, board 1-based; `game` is 1 or 2 on a two-game board).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "kebab-case")]
pub enum Change {
    /// Enter a player (a late entry once round 1 is paired, Swiss formats only).
    AddPlayer {
        /// The player's details.
        player: NewPlayer,
        /// Checked in at once (the director enters someone who is at the venue).
        #[serde(default)]
        check_in: bool,
    },
    /// Take out a player entered by mistake or who never came (before round 1 only).
    RemovePlayer {
        /// The player.
        player: u32,
    },
    /// The player is at the venue and wants to be paired.
    CheckIn {
        /// The player.
        player: u32,
    },
    /// The player is not (or no longer) to be paired as checked in.
    CheckOut {
        /// The player.
        player: u32,
    },
    /// The player leaves the event: not paired from `from_round` on (default: the next
    /// round to pair).
    Withdraw {
        /// The player.
        player: u32,
        /// First round not paired.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_round: Option<u32>,
    },
    /// Undo a withdrawal: paired again from the next round.
    Reinstate {
        /// The player.
        player: u32,
    },
    /// Not paired until [`Change::Resume`] (a break of a round or more; Swiss formats).
    Pause {
        /// The player.
        player: u32,
    },
    /// End a pause.
    Resume {
        /// The player.
        player: u32,
    },
    /// A bye asked for in advance for a round not yet paired (Swiss formats).
    RequestBye {
        /// The player.
        player: u32,
        /// The round.
        round: u32,
        /// What it is worth.
        kind: RequestedBye,
    },
    /// Take back a requested bye.
    CancelBye {
        /// The player.
        player: u32,
        /// The round.
        round: u32,
    },
    /// Two players who must not be paired together (family, same club).
    Forbid {
        /// One player.
        a: u32,
        /// The other.
        b: u32,
        /// Why, for the director's list.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Lift a forbidden pair.
    Allow {
        /// One player.
        a: u32,
        /// The other.
        b: u32,
    },
    /// New ratings, ids and details (a rating list loaded). Before round 1 the pairing
    /// numbers follow the new ratings; after, the numbers stay.
    UpdatePlayers {
        /// One entry per player to change.
        updates: Vec<PlayerUpdate>,
    },
    /// The director corrects a player's details: every field is replaced (a field left
    /// out clears it: no rating is unrated). Before round 1 the pairing numbers follow the
    /// new rating; once round 1 is paired the numbers stay, and the new rating and ids are
    /// what the standings, the exports and the rating reports show from then on (rounds
    /// already paired are not paired again).
    EditPlayer {
        /// The player.
        player: u32,
        /// Name.
        name: String,
        /// Rating.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rating: Option<u32>,
        /// Federation (three letters).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        federation: Option<String>,
        /// FIDE id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fide_id: Option<u64>,
        /// US Chess member id (eight digits).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uscf_id: Option<String>,
    },
    /// Players must check in to be paired (on) or everyone present is paired (off).
    SetCheckIn {
        /// On or off.
        required: bool,
    },
    /// The tiebreak order (C.07 acronyms or `US-...` names, comma-separated).
    SetTiebreaks {
        /// The list.
        list: String,
    },
    /// Pair the next round (refused, naming the boards, while a result of the current
    /// round is missing).
    PairNext,
    /// Delete the latest round while nothing in it has been played.
    DeleteRound {
        /// The round (must be the latest).
        round: u32,
    },
    /// The director's own pairing of the latest round (accepted with warnings when it
    /// breaks a rule of the system).
    Override {
        /// The round (must be the latest, nothing in it played).
        round: u32,
        /// Boards, White first, in board order.
        boards: Vec<(u32, u32)>,
        /// Players without an opponent and their byes.
        #[serde(default)]
        byes: Vec<(u32, ByeKind)>,
    },
    /// Enter, correct or replace every result of a board (one per game, each written with
    /// that game's colours).
    SetResults {
        /// Round.
        round: u32,
        /// Board.
        board: u32,
        /// One result per game.
        results: Vec<RecordedResult>,
    },
    /// Enter, correct or replace the result of one game of a board (a server game that
    /// ended; game 2 of a two-game match has the board's Black as White).
    SetGameResult {
        /// Round.
        round: u32,
        /// Board.
        board: u32,
        /// Game, 1-based.
        game: u32,
        /// Its result.
        result: RecordedResult,
    },
    /// The server game that plays a game of a board.
    LinkGame {
        /// Round.
        round: u32,
        /// Board.
        board: u32,
        /// Game, 1-based.
        game: u32,
        /// The server's game id.
        id: String,
    },
    /// A game of a board has begun: its round can no longer be deleted or re-paired.
    GameStarted {
        /// Round.
        round: u32,
        /// Board.
        board: u32,
        /// Game, 1-based.
        game: u32,
    },
}

/// What a change replaced, kept in the log. (Written `{"results": {...}}`: externally
/// tagged, because a player's record holds a map with number keys, which serde cannot
/// read back inside an internally tagged enum.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Before {
    /// A board's results (one per game).
    Results {
        /// Round.
        round: u32,
        /// Board.
        board: u32,
        /// The results before.
        results: Vec<RecordedResult>,
    },
    /// A whole round: deleted, overridden or paired again.
    Round {
        /// The round as it was.
        round: Box<Round>,
    },
    /// A player's record (removed, withdrawn, paused, new details, ...).
    Player {
        /// The player as they were.
        player: Box<Player>,
    },
    /// The pairing numbers before players were renumbered (a rating list loaded before
    /// round 1): `names[n - 1]` had number `n`.
    Numbering {
        /// Names in the old order.
        names: Vec<String>,
    },
    /// A setting's old value (`check-in`, `tiebreaks`, a forbidden pair's note).
    Setting {
        /// Which.
        name: String,
        /// Its value.
        value: String,
    },
}

/// What followed from a change: what a server pushes to the pages and what the director
/// is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "kebab-case")]
pub enum Effect {
    /// A player entered, with the pairing number they got.
    PlayerAdded {
        /// Pairing number.
        player: u32,
        /// A late entry (joins from `joins`).
        late: bool,
        /// First round they can be paired in.
        joins: u32,
    },
    /// A player taken out before round 1.
    PlayerRemoved {
        /// The number they had.
        player: u32,
    },
    /// Pairing numbers changed (players below a late entry or a removed player, or the
    /// whole list after new ratings before round 1).
    Renumbered,
    /// A player's record changed (check-in, withdrawal, pause, bye, details).
    PlayerChanged {
        /// The player.
        player: u32,
    },
    /// The forbidden pairs changed.
    ForbiddenChanged,
    /// An event setting changed (check-in required, tiebreaks).
    SettingChanged,
    /// A round was paired.
    RoundPaired {
        /// The round.
        round: u32,
    },
    /// The latest round was deleted.
    RoundDeleted {
        /// The round.
        round: u32,
    },
    /// The director's pairing replaced the round's; the rules it breaks.
    PairingReplaced {
        /// The round.
        round: u32,
        /// Rules of the system broken (empty: none).
        warnings: Vec<PairingWarning>,
    },
    /// A board's results changed.
    ResultsChanged {
        /// Round.
        round: u32,
        /// Board.
        board: u32,
    },
    /// Every result of the round is in (the next round may be paired).
    RoundComplete {
        /// The round.
        round: u32,
    },
    /// The standings changed (after a result of a complete round changed).
    StandingsChanged,
    /// A correction changed what the latest round was paired on, and nothing in it had
    /// been played: it was paired again (its server games, if any, are void).
    Repaired {
        /// The round.
        round: u32,
    },
    /// The latest round keeps its pairing although the change would have it paired
    /// otherwise; why.
    PairingKept {
        /// The round.
        round: u32,
        /// Why (something played, a manual pairing, no pairing possible, ...).
        reason: String,
    },
    /// A server game linked to a game of a board, or begun.
    GameChanged {
        /// Round.
        round: u32,
        /// Board.
        board: u32,
        /// Game, 1-based.
        game: u32,
    },
}

/// One change in the event's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    /// 1, 2, ... in the order the changes were made.
    pub seq: u64,
    /// When (the caller's time, milliseconds since the Unix epoch).
    pub at: i64,
    /// Who.
    pub by: String,
    /// What.
    pub change: Change,
    /// What it replaced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<Before>,
    /// What followed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Effect>,
}

/// What one change did: what it replaced and what followed.
type Outcome = (Vec<Before>, Vec<Effect>);

fn player_before(event: &Event, id: u32) -> Result<Before, EventError> {
    Ok(Before::Player {
        player: Box::new(event.player(id)?.clone()),
    })
}

impl Event {
    /// Make one change: on success it is logged (with `origin`) and what followed is
    /// returned; on error the event is unchanged and the error names what is wrong.
    pub fn apply(&mut self, change: Change, origin: &Origin) -> Result<Vec<Effect>, EventError> {
        self.apply_as(change, origin, false)
    }

    /// [`Event::apply`] for a change read back from a stored log (a server loading an
    /// evening, [`Event::replay`]): the same, except that a player entered before the
    /// text rules of [`crate::text`] keeps the name it was accepted with (at most 200
    /// characters, no control character) rather than making the evening unreadable.
    pub fn apply_stored(
        &mut self,
        change: Change,
        origin: &Origin,
    ) -> Result<Vec<Effect>, EventError> {
        self.apply_as(change, origin, true)
    }

    fn apply_as(
        &mut self,
        change: Change,
        origin: &Origin,
        stored: bool,
    ) -> Result<Vec<Effect>, EventError> {
        let by = origin.by.trim();
        if by.is_empty() || by.chars().count() > 200 || by.chars().any(char::is_control) {
            return Err(EventError::BadName(format!(
                "who made the change ({:?}) must be 1 to 200 characters without control characters",
                origin.by
            )));
        }
        let (before, effects) = self.make(&change, by, stored)?;
        self.log.push(LogEntry {
            seq: self.log.len() as u64 + 1,
            at: origin.at,
            by: by.to_string(),
            change,
            before,
            effects: effects.clone(),
        });
        Ok(effects)
    }

    /// The event `base` (as created, before any change) with the logged changes applied
    /// again in order: what a server that stores the changes as rows loads.
    pub fn replay(base: Event, entries: &[LogEntry]) -> Result<Event, EventError> {
        let mut event = base;
        for entry in entries {
            event
                .apply_stored(
                    entry.change.clone(),
                    &Origin::new(entry.by.clone(), entry.at),
                )
                .map_err(|e| EventError::Inconsistent(format!("log entry {}: {e}", entry.seq)))?;
        }
        Ok(event)
    }

    fn make(&mut self, change: &Change, by: &str, stored: bool) -> Result<Outcome, EventError> {
        match change {
            Change::AddPlayer { player, check_in } => {
                let paired = self.rounds_paired();
                let id = if stored {
                    self.add_stored_player(player.clone())?
                } else {
                    self.add_player(player.clone())?
                };
                let p = &mut self.players[id as usize - 1];
                p.checked_in = *check_in;
                let mut effects = vec![Effect::PlayerAdded {
                    player: id,
                    late: paired > 0,
                    joins: p.joined_round,
                }];
                if (id as usize) < self.players.len() {
                    effects.push(Effect::Renumbered);
                }
                Ok((Vec::new(), effects))
            }
            Change::RemovePlayer { player } => {
                let removed = self.remove_player(*player)?;
                let mut effects = vec![Effect::PlayerRemoved { player: *player }];
                if (*player as usize) <= self.players.len() {
                    effects.push(Effect::Renumbered);
                }
                Ok((
                    vec![Before::Player {
                        player: Box::new(removed),
                    }],
                    effects,
                ))
            }
            Change::CheckIn { player } | Change::CheckOut { player } => {
                let before = player_before(self, *player)?;
                let on = matches!(change, Change::CheckIn { .. });
                self.player_mut_checked(*player)?.checked_in = on;
                Ok((
                    vec![before],
                    vec![Effect::PlayerChanged { player: *player }],
                ))
            }
            Change::Withdraw { player, from_round } => {
                let before = player_before(self, *player)?;
                self.withdraw(*player, *from_round)?;
                Ok((
                    vec![before],
                    vec![Effect::PlayerChanged { player: *player }],
                ))
            }
            Change::Reinstate { player } => {
                let before = player_before(self, *player)?;
                if self.player(*player)?.withdrawn_from.is_none() {
                    return Err(EventError::NotAllowed(format!(
                        "player {player} has not withdrawn"
                    )));
                }
                if self.format.is_round_robin() {
                    return Err(EventError::NotAllowed(
                        "a round robin's games after a withdrawal are forfeits; correct them \
                         with results instead"
                            .into(),
                    ));
                }
                self.player_mut_checked(*player)?.withdrawn_from = None;
                Ok((
                    vec![before],
                    vec![Effect::PlayerChanged { player: *player }],
                ))
            }
            Change::Pause { player } | Change::Resume { player } => {
                let before = player_before(self, *player)?;
                let pause = matches!(change, Change::Pause { .. });
                if pause && self.format.is_round_robin() {
                    return Err(EventError::NotAllowed(
                        "a round robin has no pauses: a game not played is a forfeit".into(),
                    ));
                }
                let p = self.player(*player)?;
                if p.paused == pause {
                    return Err(EventError::NotAllowed(format!(
                        "player {player} is {} paused",
                        if pause { "already" } else { "not" }
                    )));
                }
                self.player_mut_checked(*player)?.paused = pause;
                Ok((
                    vec![before],
                    vec![Effect::PlayerChanged { player: *player }],
                ))
            }
            Change::RequestBye {
                player,
                round,
                kind,
            } => {
                let before = player_before(self, *player)?;
                self.request_bye(*player, *round, *kind)?;
                Ok((
                    vec![before],
                    vec![Effect::PlayerChanged { player: *player }],
                ))
            }
            Change::CancelBye { player, round } => {
                let before = player_before(self, *player)?;
                if !self.player(*player)?.byes.contains_key(round) {
                    return Err(EventError::NotAllowed(format!(
                        "player {player} has asked for no bye in round {round}"
                    )));
                }
                if *round <= self.rounds_paired() {
                    return Err(EventError::NotAllowed(format!(
                        "round {round} is already paired; delete the round first"
                    )));
                }
                self.player_mut_checked(*player)?.byes.remove(round);
                Ok((
                    vec![before],
                    vec![Effect::PlayerChanged { player: *player }],
                ))
            }
            Change::Forbid { a, b, note } => self.forbid(*a, *b, note.as_deref()),
            Change::Allow { a, b } => {
                let (lo, hi) = ((*a).min(*b), (*a).max(*b));
                let Some(at) = self.forbidden.iter().position(|f| f.a == lo && f.b == hi) else {
                    return Err(EventError::NotAllowed(format!(
                        "players {a} and {b} are not a forbidden pair"
                    )));
                };
                let old = self.forbidden.remove(at);
                Ok((
                    vec![Before::Setting {
                        name: format!("forbidden {lo}-{hi}"),
                        value: old.note.unwrap_or_default(),
                    }],
                    vec![Effect::ForbiddenChanged],
                ))
            }
            Change::UpdatePlayers { updates } => self.update_players(updates),
            Change::EditPlayer {
                player,
                name,
                rating,
                federation,
                fide_id,
                uscf_id,
            } => self.edit_player(
                *player,
                NewPlayer {
                    name: name.clone(),
                    rating: *rating,
                    federation: federation.clone(),
                    fide_id: *fide_id,
                    uscf_id: uscf_id.clone(),
                },
                stored,
            ),
            Change::SetCheckIn { required } => {
                let before = Before::Setting {
                    name: "check-in".into(),
                    value: self.check_in.to_string(),
                };
                self.check_in = *required;
                Ok((vec![before], vec![Effect::SettingChanged]))
            }
            Change::SetTiebreaks { list } => {
                let before = Before::Setting {
                    name: "tiebreaks".into(),
                    value: self.tiebreaks.clone(),
                };
                self.set_tiebreaks(list)?;
                Ok((
                    vec![before],
                    vec![Effect::SettingChanged, Effect::StandingsChanged],
                ))
            }
            Change::PairNext => {
                let round = self.pair_next()?;
                Ok((Vec::new(), vec![Effect::RoundPaired { round }]))
            }
            Change::DeleteRound { round } => {
                let paired = self.rounds_paired();
                if *round != paired || paired == 0 {
                    return Err(EventError::NotAllowed(format!(
                        "only the latest round can be deleted (rounds paired: {paired}), not round {round}"
                    )));
                }
                let old = self.round_list[paired as usize - 1].clone();
                self.unpair_last()?;
                Ok((
                    vec![Before::Round {
                        round: Box::new(old),
                    }],
                    vec![Effect::RoundDeleted { round: *round }],
                ))
            }
            Change::Override {
                round,
                boards,
                byes,
            } => {
                let old = self
                    .round_list
                    .get((*round as usize).wrapping_sub(1))
                    .cloned();
                let manual = ManualPairing {
                    boards: boards.clone(),
                    byes: byes.clone(),
                };
                let warnings = self.override_pairing(*round, &manual, Some(by))?;
                let before = old
                    .map(|r| Before::Round { round: Box::new(r) })
                    .into_iter()
                    .collect();
                Ok((
                    before,
                    vec![Effect::PairingReplaced {
                        round: *round,
                        warnings,
                    }],
                ))
            }
            Change::SetResults {
                round,
                board,
                results,
            } => self.results(*round, *board, None, results),
            Change::SetGameResult {
                round,
                board,
                game,
                result,
            } => self.results(*round, *board, Some(*game), &[*result]),
            Change::LinkGame {
                round,
                board,
                game,
                id,
            } => {
                if id.trim().is_empty() || id.len() > 200 {
                    return Err(EventError::BadValue {
                        what: "game id",
                        value: id.clone(),
                        expected: "1 to 200 characters",
                    });
                }
                let g = self.game_mut(*round, *board, *game)?;
                g.game = Some(id.clone());
                Ok((
                    Vec::new(),
                    vec![Effect::GameChanged {
                        round: *round,
                        board: *board,
                        game: *game,
                    }],
                ))
            }
            Change::GameStarted { round, board, game } => {
                let g = self.game_mut(*round, *board, *game)?;
                g.started = true;
                Ok((
                    Vec::new(),
                    vec![Effect::GameChanged {
                        round: *round,
                        board: *board,
                        game: *game,
                    }],
                ))
            }
        }
    }

    fn player_mut_checked(&mut self, id: u32) -> Result<&mut Player, EventError> {
        self.players
            .iter_mut()
            .find(|p| p.id == id)
            .ok_or(EventError::UnknownPlayer(id))
    }

    fn game_mut(
        &mut self,
        round: u32,
        board: u32,
        game: u32,
    ) -> Result<&mut crate::event::GameRecord, EventError> {
        let paired = self.rounds_paired();
        let r = self
            .round_list
            .get_mut((round as usize).wrapping_sub(1))
            .ok_or(EventError::UnknownRound { round, paired })?;
        let boards = r.boards.len() as u32;
        let b =
            r.boards
                .iter_mut()
                .find(|b| b.number == board)
                .ok_or(EventError::UnknownBoard {
                    round,
                    board,
                    boards,
                })?;
        let games = b.games.len();
        b.games
            .get_mut((game as usize).wrapping_sub(1))
            .ok_or_else(|| {
                EventError::NotAllowed(format!(
                    "round {round} board {board} has {games} game(s), not a game {game}"
                ))
            })
    }

    fn forbid(&mut self, a: u32, b: u32, note: Option<&str>) -> Result<Outcome, EventError> {
        self.player(a)?;
        self.player(b)?;
        if a == b {
            return Err(EventError::NotAllowed(format!(
                "a forbidden pair needs two players, not {a} twice"
            )));
        }
        if self.format.is_round_robin() {
            return Err(EventError::NotAllowed(format!(
                "a {} pairs every player with every other: a forbidden pair cannot be \
                 honoured (docs/events.md)",
                self.format
            )));
        }
        if self.is_forbidden(a, b) {
            return Err(EventError::NotAllowed(format!(
                "players {a} and {b} are already a forbidden pair"
            )));
        }
        let note = crate::text::optional("note", note, crate::text::MAX_TEXT_CHARS)?;
        let (lo, hi) = (a.min(b), a.max(b));
        self.forbidden.push(ForbiddenPair { a: lo, b: hi, note });
        self.forbidden.sort_by_key(|f| (f.a, f.b));
        let mut effects = vec![Effect::ForbiddenChanged];
        if let Some(last) = self.round_list.last()
            && let Some(board) = last
                .boards
                .iter()
                .find(|bd| (bd.white.min(bd.black), bd.white.max(bd.black)) == (lo, hi))
        {
            effects.push(Effect::PairingKept {
                round: last.number,
                reason: format!(
                    "players {lo} and {hi} are paired on board {} of round {}; delete the round \
                     and pair it again to keep them apart",
                    board.number, last.number
                ),
            });
        }
        Ok((Vec::new(), effects))
    }

    fn edit_player(
        &mut self,
        id: u32,
        new: NewPlayer,
        stored: bool,
    ) -> Result<Outcome, EventError> {
        let old = self.player(id)?.clone();
        // Everything checked first: a bad field leaves the player as they were.
        let name = if stored && new.name == old.name {
            old.name.clone()
        } else {
            crate::text::player_name("name", &new.name)?
        };
        if self.players.iter().any(|p| p.id != id && p.name == name) {
            return Err(EventError::BadName(format!(
                "name: {name:?} is the name of another player (each player's name is theirs alone)"
            )));
        }
        crate::event::check_player_details(&new)?;
        let before = player_before(self, id)?;
        let p = self.player_mut_checked(id)?;
        p.name = name;
        p.rating = new.rating;
        p.federation = new.federation.map(|f| f.to_ascii_uppercase());
        p.fide_id = new.fide_id;
        p.uscf_id = new.uscf_id;
        let mut before = vec![before];
        let mut effects = vec![Effect::PlayerChanged { player: id }];
        // Before round 1 the pairing numbers follow the ratings, as for a rating list.
        if self.round_list.is_empty() && old.rating != self.player(id)?.rating {
            let names: Vec<String> = self
                .players
                .iter()
                .map(|p| {
                    if p.id == id {
                        old.name.clone()
                    } else {
                        p.name.clone()
                    }
                })
                .collect();
            if self.rerank() {
                before.push(Before::Numbering { names });
                effects.push(Effect::Renumbered);
            }
        }
        Ok((before, effects))
    }

    fn update_players(&mut self, updates: &[PlayerUpdate]) -> Result<Outcome, EventError> {
        // Check everything first: a bad entry leaves every player as they were.
        let mut seen = HashSet::new();
        for u in updates {
            self.player(u.player)?;
            if !seen.insert(u.player) {
                return Err(EventError::NotAllowed(format!(
                    "player {} is updated twice",
                    u.player
                )));
            }
            if let Some(r) = u.rating
                && r > 4000
            {
                return Err(EventError::BadValue {
                    what: "rating",
                    value: r.to_string(),
                    expected: "a number from 0 to 4000",
                });
            }
            if let Some(f) = &u.federation
                && (f.len() != 3 || !f.chars().all(|c| c.is_ascii_alphabetic()))
            {
                return Err(EventError::BadValue {
                    what: "federation",
                    value: f.clone(),
                    expected: "three letters, e.g. USA",
                });
            }
            for (what, text) in [("title", &u.title), ("birth", &u.birth)] {
                crate::text::optional(
                    &format!("player {} {what}", u.player),
                    text.as_deref(),
                    crate::text::MAX_SHORT_CHARS,
                )?;
            }
            if let Some(c) = u.sex
                && crate::text::breaks_line(c)
            {
                return Err(EventError::BadName(format!(
                    "player {} sex: a control character",
                    u.player
                )));
            }
        }
        let mut before = Vec::new();
        let mut effects = Vec::new();
        for u in updates {
            before.push(player_before(self, u.player)?);
            let p = self.player_mut_checked(u.player)?;
            if u.rating.is_some() {
                p.rating = u.rating;
            }
            if u.fide_id.is_some() {
                p.fide_id = u.fide_id;
            }
            if let Some(f) = &u.federation {
                p.federation = Some(f.to_ascii_uppercase());
            }
            if u.title.is_some() {
                p.title.clone_from(&u.title);
            }
            if u.sex.is_some() {
                p.sex = u.sex;
            }
            if u.birth.is_some() {
                p.birth.clone_from(&u.birth);
            }
            effects.push(Effect::PlayerChanged { player: u.player });
        }
        // Before round 1 the pairing numbers follow the ratings (FIDE C.04.2, US Chess
        // 29B/29C); equal ratings keep their order.
        if self.round_list.is_empty() {
            let names: Vec<String> = self.players.iter().map(|p| p.name.clone()).collect();
            if self.rerank() {
                before.push(Before::Numbering { names });
                effects.push(Effect::Renumbered);
            }
        }
        Ok((before, effects))
    }

    /// Sort the players by rating (highest first, unrated last, equal ratings in their
    /// present order) and give them the numbers of their places, forbidden pairs and
    /// byes following. Only before round 1. True when a number changed.
    fn rerank(&mut self) -> bool {
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.players[i].rating.unwrap_or(0)));
        if order.iter().enumerate().all(|(k, &i)| k == i) {
            return false;
        }
        // new_number[old number - 1]
        let mut new_number = vec![0u32; self.players.len()];
        for (k, &i) in order.iter().enumerate() {
            new_number[i] = k as u32 + 1;
        }
        let old = std::mem::take(&mut self.players);
        let mut slots: Vec<Option<Player>> = old.into_iter().map(Some).collect();
        for &i in &order {
            if let Some(mut p) = slots[i].take() {
                p.id = new_number[i];
                self.players.push(p);
            }
        }
        for f in &mut self.forbidden {
            let (a, b) = (new_number[f.a as usize - 1], new_number[f.b as usize - 1]);
            (f.a, f.b) = (a.min(b), a.max(b));
        }
        self.forbidden.sort_by_key(|f| (f.a, f.b));
        true
    }

    /// Enter results (all games of a board, or game `game` alone), then what follows: the
    /// round complete, the standings, and the latest round paired again when an earlier
    /// round was corrected and nothing in the latest has been played.
    fn results(
        &mut self,
        round: u32,
        board: u32,
        game: Option<u32>,
        results: &[RecordedResult],
    ) -> Result<Outcome, EventError> {
        let old: Vec<RecordedResult> =
            {
                let paired = self.rounds_paired();
                let r = self
                    .round_list
                    .get((round as usize).wrapping_sub(1))
                    .ok_or(EventError::UnknownRound { round, paired })?;
                let b = r.boards.iter().find(|b| b.number == board).ok_or(
                    EventError::UnknownBoard {
                        round,
                        board,
                        boards: r.boards.len() as u32,
                    },
                )?;
                b.games.iter().map(|g| g.result).collect()
            };
        let mut new = old.clone();
        match game {
            None => new = results.to_vec(),
            Some(g) => {
                let slot = new.get_mut((g as usize).wrapping_sub(1)).ok_or_else(|| {
                    EventError::NotAllowed(format!(
                        "round {round} board {board} has {} game(s), not a game {g}",
                        old.len()
                    ))
                })?;
                *slot = results[0];
            }
        }
        let was_complete = self.round_list[round as usize - 1].complete();
        self.set_result(round, board, &new)?;
        let before = vec![Before::Results {
            round,
            board,
            results: old.clone(),
        }];
        let mut effects = vec![Effect::ResultsChanged { round, board }];
        if old == new {
            return Ok((before, effects));
        }
        let complete = self.round_list[round as usize - 1].complete();
        if complete && !was_complete {
            effects.push(Effect::RoundComplete { round });
        }
        if complete && round <= self.rounds_complete() {
            effects.push(Effect::StandingsChanged);
        }
        let mut before = before;
        let latest = self.rounds_paired();
        if round < latest {
            self.pair_again(latest, &mut before, &mut effects);
        }
        Ok((before, effects))
    }

    /// After a correction of an earlier round: pair the latest round again if nothing in it
    /// has been played and the director did not pair it by hand; otherwise say why it
    /// stays. Never fails: a pairing that cannot be made keeps the old one.
    fn pair_again(&mut self, latest: u32, before: &mut Vec<Before>, effects: &mut Vec<Effect>) {
        let last = &self.round_list[latest as usize - 1];
        let kept = |reason: String| Effect::PairingKept {
            round: latest,
            reason,
        };
        if last.touched() {
            effects.push(kept(format!(
                "round {latest} has begun; its pairing stays (the correction counts from round {} on)",
                latest + 1
            )));
            return;
        }
        if last.manual {
            effects.push(kept(format!(
                "round {latest} was paired by hand; delete it and pair it again to follow the correction"
            )));
            return;
        }
        let old = self.round_list.pop().expect("the latest round exists");
        match self.pair_next() {
            Ok(_) => {
                let new = self.round_list.last().expect("just paired");
                if new.boards != old.boards || new.byes != old.byes {
                    before.push(Before::Round {
                        round: Box::new(old),
                    });
                    effects.push(Effect::Repaired { round: latest });
                } else {
                    // The same pairing: keep the old record (game links and all).
                    self.round_list.pop();
                    self.round_list.push(old);
                }
            }
            Err(e) => {
                self.round_list.push(old);
                effects.push(kept(format!(
                    "round {latest} could not be paired again ({e}); its pairing stays"
                )));
            }
        }
    }
}
