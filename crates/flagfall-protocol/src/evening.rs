//! An evening's wire (docs/protocol.md, "Evenings"): what its routes answer and its live
//! socket (`/ws/events/{id}`) sends. The server builds these; the web pages read them
//! through their generated TypeScript (web/src/wire.ts). A field some readers are not
//! shown (the players' reports, the disputes) is absent for them, not null.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::{ColorName, Mode};

/// A field that may be absent, null or a value (`Option<Option<T>>`): present, even as
/// null, is `Some` (serde's own reading takes null for absent).
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// Where the games of the evening are played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Play {
    /// Every pairing is a game on this server.
    Server,
    /// Physical boards: players report their results from their links.
    Board,
}

/// How many players of a board must report a result before it counts (board play).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Confirm {
    /// The first report counts.
    One,
    /// Both players must report the same result.
    Both,
}

/// A bye a player asked for in advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum ByeRequest {
    Full,
    Half,
    Zero,
}

/// A round's bye: the pairing-allocated bye, one asked for, or an absence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum ByeKindName {
    Pab,
    Full,
    Half,
    Zero,
    Absent,
}

/// A game's outcome from the point of view of the crosstable row that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub enum CrossOutcome {
    Win,
    Draw,
    Loss,
    ForfeitWin,
    ForfeitLoss,
    DoubleForfeit,
}

/// A player by name and pairing number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PlayerRef {
    pub name: String,
    pub number: u32,
}

/// A player of the evening as its summary lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct EveningPlayer {
    pub number: u32,
    pub name: String,
    pub rating: Option<u32>,
    pub federation: Option<String>,
    pub fide_id: Option<u64>,
    pub uscf_id: Option<String>,
    pub checked_in: bool,
    pub paused: bool,
    pub joined_round: u32,
    pub withdrawn_from: Option<u32>,
    /// Byes asked in advance, by round.
    pub byes: BTreeMap<u32, ByeRequest>,
}

/// Two players who must not be paired together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ForbiddenPairView {
    pub a: u32,
    pub b: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub note: Option<String>,
}

/// What the two players of a board reported (short results, one per game; null: not yet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Reported {
    pub white: Option<Vec<String>>,
    pub black: Option<Vec<String>>,
}

/// A board whose two players reported different results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Disagreement {
    pub round: u32,
    pub board: u32,
    /// The results (long names, `white-wins`), one per game.
    pub white: Option<Vec<String>>,
    pub black: Option<Vec<String>>,
}

/// The assistant's advice on a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Advice {
    pub grant: bool,
    pub reasons: Vec<String>,
}

/// What a game of the evening waits for the director for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DisputeWhat {
    /// A claim for the director to rule on.
    Claim {
        claimant: ColorName,
        claim: String,
        advice: Advice,
    },
    /// A player's call.
    Call {
        by: ColorName,
        reason: Option<String>,
    },
}

/// A game of the evening waiting for the director.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Dispute {
    pub game: String,
    pub round: u32,
    pub board: u32,
    pub game_number: u32,
    pub white: String,
    pub black: String,
    /// Since when (Unix milliseconds).
    pub since: i64,
    pub what: DisputeWhat,
}

/// `GET /api/events/{id}`: the evening (players, settings, rounds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct EveningSummary {
    pub id: String,
    pub name: String,
    pub format: String,
    /// The rounds planned (a round robin not yet started: the rounds its players need).
    pub rounds: u32,
    pub rounds_paired: u32,
    pub rounds_complete: u32,
    pub time_control: Option<String>,
    pub rules: Option<String>,
    pub play: Play,
    pub mode: Mode,
    pub confirm: Confirm,
    pub auto: bool,
    pub check_in: bool,
    pub tiebreaks: String,
    /// The byes a player may ask for in advance, as the format allows (none in a round
    /// robin: a game not played is a forfeit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<ByeRequest>>")]
    pub bye_kinds: Vec<ByeRequest>,
    pub players: Vec<EveningPlayer>,
    pub forbidden: Vec<ForbiddenPairView>,
    /// The start date (`YYYY-MM-DD`), for PGN, TRF and the rating reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub date: Option<String>,
    /// The site, for PGN and TRF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub site: Option<String>,
    /// The details the rating reports need (docs/events.md).
    #[ts(type = "Record<string, string>")]
    pub report: Value,
    pub seq: i64,
    /// The disagreements the reader may see: the director's and the boards' players';
    /// absent for the public.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub disagreements: Option<Vec<Disagreement>>,
    /// The games waiting for the director: the director's only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub disputes: Option<Vec<Dispute>>,
}

/// One board of a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct BoardView {
    pub board: u32,
    pub white: PlayerRef,
    pub black: PlayerRef,
    /// One per game (short form, `1-0`); null until known.
    pub results: Vec<Option<String>>,
    /// The server game of the board's first game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub game: Option<String>,
    /// Each game's server game, when the board has more than one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub games: Option<Vec<Option<String>>>,
    /// The players' reports, to the director and the board's players while not complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reported: Option<Reported>,
}

/// A player's bye in a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RoundByeView {
    pub name: String,
    pub number: u32,
    pub kind: ByeKindName,
}

/// `GET /api/events/{id}/rounds/{r}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RoundView {
    pub round: u32,
    pub boards: Vec<BoardView>,
    pub complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub bye: Option<Vec<RoundByeView>>,
    /// Set by hand, by whom (present only for a round paired by hand).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[ts(optional)]
    pub manual_by: Option<Option<String>>,
    /// The players who played the round before and are not paired in this one, and why
    /// (the director's only; absent when there are none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub left: Option<Vec<LeftPlayer>>,
}

/// A row of the standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StandingsRow {
    pub rank: u32,
    pub name: Option<String>,
    pub number: Option<u32>,
    pub points: f64,
    /// Each tiebreak's value, by its name; null where it does not apply.
    pub tiebreaks: BTreeMap<String, Option<f64>>,
}

/// `GET /api/events/{id}/standings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Standings {
    pub after_round: u32,
    pub tiebreaks: Vec<String>,
    pub rows: Vec<StandingsRow>,
}

/// A player's round in the crosstable: a board, or a bye.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(untagged)]
pub enum CrossCell {
    Paired {
        round: u32,
        board: u32,
        opponent: u32,
        colour: ColorName,
        /// One per game, from this player's row; null until known.
        results: Vec<Option<CrossOutcome>>,
    },
    Bye {
        round: u32,
        bye: ByeKindName,
    },
}

/// A player's row of the crosstable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CrossRow {
    pub number: u32,
    pub name: String,
    /// The score written out (`3½`).
    pub points: String,
    pub rounds: Vec<CrossCell>,
}

/// `GET /api/events/{id}/crosstable`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Crosstable {
    pub rounds: u32,
    pub players: Vec<CrossRow>,
}

/// A link to a server game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GameLink {
    pub id: String,
    pub url: String,
}

/// The evening a server game plays for (`GET /api/games/{id}`'s `evening`): the game
/// page names it, with its round and board, and links back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GameEvening {
    /// The evening's id (`/events/{id}/...`).
    pub id: String,
    pub name: String,
    pub round: u32,
    pub board: u32,
    /// This game's number on its board (1-based; a two-game pairing has 1 and 2).
    pub game: u32,
    /// The board's games, in order (this one among them): the next to play after it.
    pub games: Vec<GameLink>,
}

/// `GET /api/events/{id}/me`: a player's own view. A name not in the evening has only
/// `name` and `in_event: false`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(optional_fields)]
pub struct Me {
    pub name: String,
    pub in_event: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked_in: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    /// Present (and maybe null) for a player of the evening.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub withdrawn_from: Option<Option<u32>>,
    /// The latest round paired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// The score written out (`3½`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<ColorName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<PlayerRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<Option<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported: Option<Reported>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<Vec<GameLink>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bye: Option<ByeKindName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// The byes the player asked for in advance, by round (a round not yet paired).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byes: Option<BTreeMap<u32, ByeRequest>>,
}

/// A message of the evening's live socket.
// A message is made, serialised and dropped at once (never stored in bulk): the first
// variant's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LiveMessage {
    /// The first message of every connection: everything the reader may read.
    State {
        event: Box<EveningSummary>,
        round: Option<RoundView>,
        standings: Option<Standings>,
    },
    /// After a change: the log rows stored, what followed, and the views that changed.
    Change {
        seq: i64,
        /// The stored log rows (docs/events.md); the public is not sent the reports.
        #[ts(type = "Array<unknown>")]
        rows: Vec<Value>,
        /// What followed (`{"effect": "round-paired", "round": 3}`, docs/events.md).
        #[ts(type = "Array<{ effect: string; round?: number; [k: string]: unknown }>")]
        effects: Vec<Value>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        #[ts(optional)]
        round: Option<Option<RoundView>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        players: Option<Vec<EveningPlayer>>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        #[ts(optional)]
        standings: Option<Option<Standings>>,
        /// The director's sockets only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        disputes: Option<Vec<Dispute>>,
    },
    /// A game began or stopped waiting for the director (the director's sockets only).
    Dispute {
        game: String,
        dispute: Option<Dispute>,
        disputes: Vec<Dispute>,
    },
}

/// The links of a new evening.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct EveningUrls {
    /// The director's console (with the director's token).
    pub director: String,
    pub projector: String,
    pub join: String,
}

/// `POST /api/events`: the new evening, its director's token (shown once) and links.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct EveningCreated {
    pub id: String,
    pub director_token: String,
    pub urls: EveningUrls,
}

/// `POST /api/events/{id}/deputy`: a deputy's token (shown once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DeputyCreated {
    pub deputy_token: String,
}

/// A player just entered, with their personal link (shown once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AddedPlayer {
    pub name: String,
    pub number: Option<u32>,
    pub token: String,
    pub link: String,
}

/// `POST /api/events/{id}/players` (and `.../join`): the players entered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PlayersAdded {
    pub players: Vec<AddedPlayer>,
}

/// A player's link, derived again from the director's token; null with `why` when it
/// cannot be (a deputy's entry, an imported player).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PlayerLink {
    pub name: String,
    pub number: u32,
    pub link: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub why: Option<String>,
}

/// `GET /api/events/{id}/links` (the director): every player's link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PlayerLinks {
    pub players: Vec<PlayerLink>,
}

/// What a change of the evening did (`{"effect": ...}`, docs/events.md).
pub type Effects = Vec<Value>;

/// The answer of a change: what followed and the evening's log length after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ChangeAnswer {
    #[ts(type = "Array<{ effect: string; round?: number; [k: string]: unknown }>")]
    pub effects: Effects,
    pub seq: i64,
}

/// The answer of `PUT /api/events/{id}/players/{n}` (a player's details corrected).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PlayerEdited {
    #[ts(type = "Array<{ effect: string; round?: number; [k: string]: unknown }>")]
    pub effects: Effects,
    pub seq: i64,
    /// The player's new personal link, when the name changed (each link is tied to its
    /// name: the old one no longer opens their page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub link: Option<String>,
}

/// A warning about a pairing set by hand (a repeated pairing, a colour rule broken).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PairingWarning {
    /// The warning as data (docs/events.md).
    #[ts(type = "unknown")]
    pub warning: Value,
    /// The warning in words.
    pub text: String,
}

/// `PUT /api/events/{id}/rounds/{r}/pairing`: the round as set, and its warnings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct OverrideAnswer {
    pub round: RoundView,
    pub warnings: Vec<PairingWarning>,
}

/// A result set or reported: the round after it and what followed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ResultsAnswer {
    pub round: RoundView,
    #[ts(type = "Array<{ effect: string; round?: number; [k: string]: unknown }>")]
    pub effects: Effects,
}

/// `POST /api/events/{id}/ratings`: what the rating list filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RatingLookup {
    /// Players updated.
    pub updated: u32,
    /// Lines of the list read.
    pub lines: u32,
    /// Pairing numbers: no FIDE id, a name the list does not have.
    pub not_found: Vec<u32>,
    /// Pairing numbers: a FIDE id the list does not have.
    pub unknown_ids: Vec<u32>,
    /// Pairing numbers: listed without the rating asked for.
    pub unrated: Vec<u32>,
    /// Pairing numbers whose name several listed players have, with their ids.
    pub ambiguous: Vec<(u32, Vec<u64>)>,
}

/// `GET /api/events/{id}/rating-changes`: each player's estimate (docs/events.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RatingChanges {
    #[ts(type = "Array<Record<string, unknown>>")]
    pub players: Vec<Value>,
}

/// One change in the evening's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct LogEntryView {
    pub seq: u64,
    /// Unix milliseconds.
    pub at: i64,
    /// Who: `director`, a deputy, a player's name, `game {id}`.
    pub by: String,
    /// The change (`{"change": "set-result", ...}`, docs/events.md).
    #[ts(type = "{ change: string; [k: string]: unknown }")]
    pub change: Value,
    /// What the change replaced, where it replaced something.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, type = "Array<unknown>")]
    pub before: Vec<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(
        optional,
        type = "Array<{ effect: string; round?: number; [k: string]: unknown }>"
    )]
    pub effects: Effects,
}

/// `GET /api/events/{id}/log` (the director): every change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct EveningLog {
    pub log: Vec<LogEntryView>,
}

/// What `POST /api/events/{id}/players/{n}/{action}` does to player `n` (the path's
/// `action`, as `name` spells it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum PlayerAction {
    CheckIn,
    CheckOut,
    Withdraw,
    Reinstate,
    Pause,
    Resume,
    /// A bye in a later round (`{"round", "kind"}`).
    Bye,
    /// A bye asked for cancelled (`{"round"}`).
    CancelBye,
    /// Out of the evening (before round 1).
    Remove,
}

impl PlayerAction {
    pub const ALL: [PlayerAction; 9] = [
        PlayerAction::CheckIn,
        PlayerAction::CheckOut,
        PlayerAction::Withdraw,
        PlayerAction::Reinstate,
        PlayerAction::Pause,
        PlayerAction::Resume,
        PlayerAction::Bye,
        PlayerAction::CancelBye,
        PlayerAction::Remove,
    ];

    /// The path's spelling.
    pub fn name(self) -> &'static str {
        match self {
            PlayerAction::CheckIn => "check-in",
            PlayerAction::CheckOut => "check-out",
            PlayerAction::Withdraw => "withdraw",
            PlayerAction::Reinstate => "reinstate",
            PlayerAction::Pause => "pause",
            PlayerAction::Resume => "resume",
            PlayerAction::Bye => "bye",
            PlayerAction::CancelBye => "cancel-bye",
            PlayerAction::Remove => "remove",
        }
    }

    /// Whether a player may do it to themselves, with their own link (the director may
    /// do every action).
    pub fn players_own(self) -> bool {
        matches!(
            self,
            PlayerAction::CheckIn
                | PlayerAction::CheckOut
                | PlayerAction::Bye
                | PlayerAction::CancelBye
        )
    }
}

impl std::str::FromStr for PlayerAction {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        PlayerAction::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or(())
    }
}

/// Why a player who played the round before is not paired in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LeftWhy {
    /// Not checked in (checked out, on an evening that pairs only checked-in players).
    NotCheckedIn,
    /// Withdrawn from the evening.
    Withdrawn,
    /// Paused.
    Paused,
    /// Available again since the round was paired (checked in, resumed or reinstated):
    /// paired from the next round, or in this one if it is paired again.
    Available,
}

/// A player who played the round before and is absent from this one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LeftPlayer {
    pub name: String,
    pub number: u32,
    pub why: LeftWhy,
}

/// A round a change would pair again, and the boards whose players change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RepairPreview {
    pub round: u32,
    /// The boards whose players would change (a board that would be added or removed
    /// included), in board order.
    pub boards: Vec<u32>,
    /// Whether the byes (who has one, of what kind) would change.
    pub byes: bool,
    /// The round as it is paired now.
    pub before: RoundView,
    /// The round as the change would pair it.
    pub after: RoundView,
}

/// A round that keeps its pairing although the change would have it paired otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct KeptPreview {
    pub round: u32,
    pub reason: String,
}

/// `POST /api/events/{id}/rounds/{r}/boards/{b}/result?dry_run=1` (the director): what
/// the result would do, made on a copy of the evening; nothing is stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ResultPreview {
    /// What would follow (as the change's answer would say it).
    #[ts(type = "Array<{ effect: string; round?: number; [k: string]: unknown }>")]
    pub effects: Effects,
    /// The rounds that would be paired again.
    pub repaired: Vec<RepairPreview>,
    /// The rounds that would keep their pairing, and why.
    pub kept: Vec<KeptPreview>,
    /// The evening's log length the preview was made on.
    pub seq: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_action_is_spelled_as_serde_writes_it() {
        for a in PlayerAction::ALL {
            assert_eq!(
                serde_json::to_value(a).unwrap(),
                Value::String(a.name().into())
            );
            assert_eq!(a.name().parse::<PlayerAction>(), Ok(a));
        }
        assert_eq!("check_in".parse::<PlayerAction>(), Err(()));
    }
}
