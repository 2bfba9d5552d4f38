//! An event as data: players, rounds, pairings and results, with the operations a
//! director (or, later, a server) applies to it. Nothing here does I/O: the caller loads
//! and stores the [`Event`] (it is `serde`-serialisable) and feeds results in as they come.
//!
//! Everything derived (scores, colours, standings, tiebreaks, exports) is recomputed from
//! the stored pairings and results every time, so a corrected result changes everything
//! downstream of it. Pairings already made for later rounds stay as they were
//! (**interpretation**: a round that has been played stays played; only its results can
//! be corrected). The latest round can be withdrawn with [`Event::unpair_last`] while it
//! has no results, or re-paired by hand with [`Event::override_pairing`].
//!
//! Formats (see [`Format`]): round robin and double round robin by the Berger tables,
//! Swiss by the FIDE Dutch system, FIDE Double Swiss (two-game matches), US Chess Swiss.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use flagfall_core::ruleset::{Ruleset, TimeControlJudgement};
use flagfall_core::timecontrol::TimeControl;
use flagfall_pairing::berger::{self, RoundRobinOptions};
use flagfall_pairing::dutch::{self, DutchInput, DutchPlayer, RoundRecord};
use flagfall_pairing::us_swiss::{self, SwissPlayer, SwissRound};
use flagfall_pairing::{double_swiss, trf};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use crate::format::{Format, MAX_ROUNDS};
use crate::spelling::{Spelled, spelled};
use crate::text;
pub use crate::tiebreak::ByeKind;
use crate::tiebreak::{
    self, Colour, Crosstable, CrosstableGame, GameOutcome, HalfPoints, PlayerInfo, RoundEntry,
    Standings, Tiebreak,
};

/// Version of the stored event layout. Version 2: a Double Swiss pairing-allocated bye
/// defaults to 1½ points (version 1 scored it as a win of both games; see
/// [`Event::upgrade`]).
pub const EVENT_FILE_VERSION: u32 = 2;

/// Most players an event may hold: 10,000 (issue 34: every round of a 10,000-player
/// Swiss pairs in under a minute, BENCHMARKS.md). A TRF numbers at most 9,999 (its
/// starting rank has four columns, [`flagfall_pairing::trf::MAX_NUMBER`]): the TRF export
/// of a larger event is refused ([`crate::export::trf`]), as is the US Chess report
/// (its pairing number has four columns too). A server holds fewer by default
/// (`--evening-players`).
pub const MAX_PLAYERS: usize = 10_000;

/// A bye a player asked for in advance (kinds as in FIDE C.07 16.1; US Chess rule 28
/// byes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequestedBye {
    /// Worth a win (only if the event's rules allow it; the director grants it).
    Full,
    /// Worth a draw.
    Half,
    /// Worth nothing.
    Zero,
}

impl Spelled for RequestedBye {
    const ALL: &'static [RequestedBye] =
        &[RequestedBye::Full, RequestedBye::Half, RequestedBye::Zero];
    const WHAT: &'static str = "bye kind";
    const EXPECTED: &'static str = "full, half or zero";
    fn spellings(self) -> &'static [&'static str] {
        match self {
            RequestedBye::Full => &["full", "1"],
            RequestedBye::Half => &["half", "0.5", "1/2"],
            RequestedBye::Zero => &["zero", "0"],
        }
    }
    fn help(self) -> &'static str {
        match self {
            RequestedBye::Full => "worth a win",
            RequestedBye::Half => "worth a draw",
            RequestedBye::Zero => "worth nothing",
        }
    }
}

spelled!(RequestedBye);

impl From<RequestedBye> for ByeKind {
    fn from(kind: RequestedBye) -> ByeKind {
        match kind {
            RequestedBye::Full => ByeKind::Full,
            RequestedBye::Half => ByeKind::Half,
            RequestedBye::Zero => ByeKind::Zero,
        }
    }
}

/// A player of the event. `id` is the pairing number (starting rank).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Pairing number, 1-based, in the order players were ranked at entry.
    pub id: u32,
    /// Name as printed.
    pub name: String,
    /// Rating, if rated.
    #[serde(default)]
    pub rating: Option<u32>,
    /// Federation (three letters), if known.
    #[serde(default)]
    pub federation: Option<String>,
    /// FIDE id, if known.
    #[serde(default)]
    pub fide_id: Option<u64>,
    /// US Chess member id (eight digits), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uscf_id: Option<String>,
    /// FIDE title (`GM`, `WIM`, ...), as a rating list gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Sex as the rating list gives it (`m` or `f`; TRF writes `m` / `w`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sex: Option<char>,
    /// Birth date or year as the rating list gives it (`1990` or `1990/05/17`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub birth: Option<String>,
    /// Checked in at the venue (counts only when the event has [`Event::check_in`] on).
    #[serde(default, skip_serializing_if = "is_false")]
    pub checked_in: bool,
    /// Paused: not paired while set (a short absence; the player resumes).
    #[serde(default, skip_serializing_if = "is_false")]
    pub paused: bool,
    /// First round the player can be paired in (late entries: > 1).
    pub joined_round: u32,
    /// First round the player is no longer paired in (withdrawn), if any.
    #[serde(default)]
    pub withdrawn_from: Option<u32>,
    /// Byes requested in advance, by round.
    #[serde(default)]
    pub byes: BTreeMap<u32, RequestedBye>,
}

/// The result of one game, from the scoresheet's point of view (White first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordedResult {
    /// Not in yet.
    Pending,
    /// 1-0.
    WhiteWins,
    /// ½-½.
    Draw,
    /// 0-1.
    BlackWins,
    /// +/- : Black did not play.
    WhiteWinsByForfeit,
    /// -/+ : White did not play.
    BlackWinsByForfeit,
    /// -/- : neither played.
    DoubleForfeit,
}

impl RecordedResult {
    /// The PGN result string.
    pub fn pgn(self) -> &'static str {
        match self {
            RecordedResult::Pending => "*",
            RecordedResult::WhiteWins | RecordedResult::WhiteWinsByForfeit => "1-0",
            RecordedResult::Draw => "1/2-1/2",
            RecordedResult::BlackWins | RecordedResult::BlackWinsByForfeit => "0-1",
            // PGN knows only 1-0, 0-1, 1/2-1/2 and *: a game neither side played has
            // no result there (the export adds a comment and a Termination tag).
            RecordedResult::DoubleForfeit => "*",
        }
    }

    /// The short form accepted by [`FromStr`](std::str::FromStr) and printed in listings.
    pub fn short(self) -> &'static str {
        self.spellings()[0]
    }

    /// White's outcome in crosstable terms (`None` while pending).
    pub fn white_outcome(self) -> Option<GameOutcome> {
        Some(match self {
            RecordedResult::Pending => return None,
            RecordedResult::WhiteWins => GameOutcome::Win,
            RecordedResult::Draw => GameOutcome::Draw,
            RecordedResult::BlackWins => GameOutcome::Loss,
            RecordedResult::WhiteWinsByForfeit => GameOutcome::ForfeitWin,
            RecordedResult::BlackWinsByForfeit => GameOutcome::ForfeitLoss,
            RecordedResult::DoubleForfeit => GameOutcome::DoubleForfeit,
        })
    }

    /// True when the game was played over the board.
    pub fn is_played(self) -> bool {
        matches!(
            self,
            RecordedResult::WhiteWins | RecordedResult::Draw | RecordedResult::BlackWins
        )
    }
}

impl Spelled for RecordedResult {
    const ALL: &'static [RecordedResult] = &[
        RecordedResult::WhiteWins,
        RecordedResult::BlackWins,
        RecordedResult::Draw,
        RecordedResult::WhiteWinsByForfeit,
        RecordedResult::BlackWinsByForfeit,
        RecordedResult::DoubleForfeit,
        RecordedResult::Pending,
    ];
    const WHAT: &'static str = "result";
    const EXPECTED: &'static str = "1-0, 0-1, 1/2, +- (White wins by forfeit), -+ (Black wins by forfeit), -- (double forfeit) or * (not in yet)";
    fn spellings(self) -> &'static [&'static str] {
        match self {
            RecordedResult::Pending => &["*"],
            RecordedResult::WhiteWins => &["1-0", "1:0"],
            RecordedResult::Draw => &["1/2", "=", "1/2-1/2", "½-½", "0.5-0.5"],
            RecordedResult::BlackWins => &["0-1", "0:1"],
            RecordedResult::WhiteWinsByForfeit => &["+-", "+/-", "1-0f"],
            RecordedResult::BlackWinsByForfeit => &["-+", "-/+", "0-1f"],
            RecordedResult::DoubleForfeit => &["--", "-/-", "0-0f"],
        }
    }
    fn help(self) -> &'static str {
        match self {
            RecordedResult::Pending => "not in yet",
            RecordedResult::WhiteWins => "White wins",
            RecordedResult::Draw => "draw",
            RecordedResult::BlackWins => "Black wins",
            RecordedResult::WhiteWinsByForfeit => "White wins by forfeit",
            RecordedResult::BlackWinsByForfeit => "Black wins by forfeit",
            RecordedResult::DoubleForfeit => "double forfeit",
        }
    }
}

spelled!(RecordedResult);

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if takes a reference
fn is_false(b: &bool) -> bool {
    !*b
}

/// One game of a pairing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The result.
    pub result: RecordedResult,
    /// PGN movetext, when the game was played online; `None` in paper mode.
    #[serde(default)]
    pub moves: Option<String>,
    /// The id of the server game that plays it, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// True once the game has begun (a move made on the server): the round can no longer
    /// be deleted nor re-paired.
    #[serde(default, skip_serializing_if = "is_false")]
    pub started: bool,
}

impl GameRecord {
    /// A game not begun, with no result.
    pub fn pending() -> GameRecord {
        GameRecord {
            result: RecordedResult::Pending,
            moves: None,
            game: None,
            started: false,
        }
    }

    /// True when the game has a result or has begun.
    pub fn touched(&self) -> bool {
        self.result != RecordedResult::Pending || self.started
    }
}

/// One pairing (board) of a round. In a Double Swiss the board is a match: `white` has
/// White in game 1 and Black in game 2.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    /// Board number, 1-based.
    pub number: u32,
    /// White (in game 1).
    pub white: u32,
    /// Black (in game 1).
    pub black: u32,
    /// The games, one per game of the round, in order. Each result is written with that
    /// game's own colours (game 2 of a match has `black` as White).
    pub games: Vec<GameRecord>,
}

impl Board {
    /// White and Black of game `g` (0-based).
    pub fn players_of_game(&self, g: usize) -> (u32, u32) {
        if g.is_multiple_of(2) {
            (self.white, self.black)
        } else {
            (self.black, self.white)
        }
    }

    /// True when every game has a result.
    pub fn complete(&self) -> bool {
        self.games
            .iter()
            .all(|g| g.result != RecordedResult::Pending)
    }
}

/// A player without an opponent in a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundBye {
    /// The player.
    pub player: u32,
    /// Why.
    pub kind: ByeKind,
}

/// A paired round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Round number, 1-based.
    pub number: u32,
    /// Boards in order.
    pub boards: Vec<Board>,
    /// Players without an opponent.
    pub byes: Vec<RoundBye>,
    /// True when the director changed the computed pairing by hand.
    #[serde(default)]
    pub manual: bool,
    /// Who made the manual pairing (the log has when and what it replaced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manual_by: Option<String>,
}

impl Round {
    /// True when every board has all its results.
    pub fn complete(&self) -> bool {
        self.boards.iter().all(Board::complete)
    }

    /// True when some game of the round has a result or has begun.
    pub fn touched(&self) -> bool {
        self.boards
            .iter()
            .flat_map(|b| b.games.iter())
            .any(GameRecord::touched)
    }

    /// The boards of the round whose results are not all in.
    pub fn incomplete_boards(&self) -> Vec<u32> {
        self.boards
            .iter()
            .filter(|b| !b.complete())
            .map(|b| b.number)
            .collect()
    }
}

/// Two players who must not be paired together (family, same club): every Swiss system
/// of the event treats them as if they had already met (docs/events.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForbiddenPair {
    /// The lower pairing number.
    pub a: u32,
    /// The higher pairing number.
    pub b: u32,
    /// Why (shown to the director), e.g. "siblings".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What the rating reports need beyond the event itself (FIDE's TRF header, US Chess's
/// event and section files). Every field is optional; a report that needs one that is
/// missing says which.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReportInfo {
    /// Last day of the event (`YYYY-MM-DD`; default: the start date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date: Option<String>,
    /// City (US Chess `H_CITY`; FIDE `022` when the site is not set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// US state, two letters (`H_STATE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// ZIP code (`H_ZIPCODE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zip: Option<String>,
    /// Country (`H_COUNTRY`; default `USA`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// Host federation for FIDE (`032`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub federation: Option<String>,
    /// Chief arbiter for FIDE (`102`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chief_arbiter: Option<String>,
    /// Deputy arbiters for FIDE (`112`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deputy_arbiters: Option<String>,
    /// US Chess affiliate id (`A` and seven digits; `H_AFF_ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uscf_affiliate: Option<String>,
    /// US Chess id of the chief TD (`H_CTD_ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uscf_chief_td: Option<String>,
    /// US Chess id of the assistant chief TD (`H_ATD_ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uscf_assistant_td: Option<String>,
}

impl ReportInfo {
    /// True when nothing is set (not written to the event file then).
    pub fn is_empty(&self) -> bool {
        *self == ReportInfo::default()
    }
}

/// The whole event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Layout version ([`EVENT_FILE_VERSION`]).
    pub version: u32,
    /// Event name.
    pub name: String,
    /// Site, for PGN and TRF.
    #[serde(default)]
    pub site: Option<String>,
    /// Start date (`YYYY.MM.DD` or `YYYY-MM-DD`), for PGN and TRF.
    #[serde(default)]
    pub date: Option<String>,
    /// Pairing system.
    pub format: Format,
    /// Rounds planned. For round robins it is fixed by the number of players when the
    /// first round is paired.
    pub rounds: u32,
    /// Time control in the notation of `flagfall_core::timecontrol` (e.g. `G/5;d0`).
    #[serde(default)]
    pub time_control: Option<String>,
    /// Ruleset id (`uscf-2020`, `fide-b3`, ...), informational.
    #[serde(default)]
    pub ruleset: Option<String>,
    /// Games are played on physical boards and the director types results in.
    #[serde(default)]
    pub paper_mode: bool,
    /// Colour drawn by lot for the top player in round 1.
    pub initial_colour: Colour,
    /// Tiebreak order chosen by the director (C.07 acronyms or `US-...` names).
    pub tiebreaks: String,
    /// Players, by pairing number.
    pub players: Vec<Player>,
    /// Rounds paired so far.
    pub round_list: Vec<Round>,
    /// Points of the pairing-allocated bye for the whole round, in half points, set by the
    /// director when the event's regulations say so. `None`: the format's default (see
    /// [`Event::pab_value`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pab_half_points: Option<u32>,
    /// Players must check in to be paired (a server evening; the paper mode leaves it off
    /// and pairs everyone present).
    #[serde(default, skip_serializing_if = "is_false")]
    pub check_in: bool,
    /// Pairs that must not meet (family, same club).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden: Vec<ForbiddenPair>,
    /// What the rating reports need (city, arbiters, US Chess ids).
    #[serde(default, skip_serializing_if = "ReportInfo::is_empty")]
    pub report: ReportInfo,
    /// Every change made through [`Event::apply`], oldest first: who, when, what, what it
    /// replaced and what followed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<crate::change::LogEntry>,
}

/// What went wrong. Every message names the player, round, board or value at fault.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EventError {
    /// A value that cannot be read.
    #[error("{what} {value:?} is not valid; expected {expected}")]
    BadValue {
        /// What the value is.
        what: &'static str,
        /// The value given.
        value: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// A name that is empty or too long.
    #[error("{0}")]
    BadName(String),
    /// Player number unknown.
    #[error("there is no player {0} in this event")]
    UnknownPlayer(u32),
    /// Round number unknown.
    #[error("round {round} has not been paired (rounds paired: {paired})")]
    UnknownRound {
        /// The round asked for.
        round: u32,
        /// Rounds paired so far.
        paired: u32,
    },
    /// Board number unknown.
    #[error("round {round} has no board {board} (it has {boards} boards)")]
    UnknownBoard {
        /// Round.
        round: u32,
        /// Board asked for.
        board: u32,
        /// Boards in the round.
        boards: u32,
    },
    /// Wrong number of game results for the board.
    #[error(
        "round {round} board {board}: {expected} result(s) needed ({format} plays {expected} game(s) per pairing), {given} given"
    )]
    ResultCount {
        /// Round.
        round: u32,
        /// Board.
        board: u32,
        /// Results needed.
        expected: u32,
        /// Results given.
        given: u32,
        /// The event format.
        format: Format,
    },
    /// The event has played all its rounds.
    #[error("all {0} rounds have been paired")]
    EventOver(u32),
    /// The previous round still has results missing.
    #[error(
        "round {round} still has results missing on board(s) {boards}; enter them before pairing round {next}"
    )]
    RoundIncomplete {
        /// The incomplete round.
        round: u32,
        /// Its incomplete boards.
        boards: String,
        /// The round that was to be paired.
        next: u32,
    },
    /// Something not allowed at this stage or in this format.
    #[error("{0}")]
    NotAllowed(String),
    /// A pairing engine refused.
    #[error("pairing round {round} failed: {message}")]
    Pairing {
        /// Round.
        round: u32,
        /// The engine's message.
        message: String,
    },
    /// A manual pairing that does not describe a legal round.
    #[error("manual pairing for round {round}: {message}")]
    BadManualPairing {
        /// Round.
        round: u32,
        /// What is wrong.
        message: String,
    },
    /// The stored event is inconsistent (hand-edited file?).
    #[error("the event data is inconsistent: {0}")]
    Inconsistent(String),
    /// The tiebreak list cannot be read or computed.
    #[error("tiebreaks: {0}")]
    Tiebreak(String),
}

/// A new player's details.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NewPlayer {
    /// Name.
    pub name: String,
    /// Rating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// Federation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub federation: Option<String>,
    /// FIDE id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fide_id: Option<u64>,
    /// US Chess member id (eight digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uscf_id: Option<String>,
}

/// A rule of the event's system that a director's pairing breaks (it is accepted all the
/// same; see [`Event::override_pairing`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum PairingWarning {
    /// The two have met over the board before (C.04.1 b; US Chess 27A1).
    Rematch {
        /// White.
        white: u32,
        /// Black.
        black: u32,
        /// The round they met in.
        met_in: u32,
    },
    /// The two are a forbidden pair (family, same club).
    Forbidden {
        /// White.
        white: u32,
        /// Black.
        black: u32,
    },
    /// A round-robin pair that the Berger table puts in another round (the schedule
    /// will then repeat a game or leave one out).
    OutOfSchedule {
        /// White.
        white: u32,
        /// Black.
        black: u32,
    },
    /// A player paired who is withdrawn, paused, not checked in, not yet entered, or
    /// asked for a bye in this round.
    NotAvailable {
        /// The player.
        player: u32,
    },
    /// Dutch system: the colour gives the player a third game in a row with it, or two
    /// more of one colour than of the other (C.04.1 f, g).
    Colour {
        /// The player.
        player: u32,
        /// The colour given.
        colour: Colour,
    },
    /// The pairing-allocated bye to a player who has had one, or a point without playing
    /// (C.04.1 d; US Chess 28L).
    SecondPab {
        /// The player.
        player: u32,
    },
}

impl fmt::Display for PairingWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PairingWarning::Rematch {
                white,
                black,
                met_in,
            } => write!(f, "players {white} and {black} met in round {met_in}"),
            PairingWarning::Forbidden { white, black } => {
                write!(f, "players {white} and {black} are a forbidden pair")
            }
            PairingWarning::OutOfSchedule { white, black } => write!(
                f,
                "players {white} and {black} do not meet in this round of the Berger table"
            ),
            PairingWarning::NotAvailable { player } => write!(
                f,
                "player {player} is withdrawn, paused, not checked in or has asked for a bye"
            ),
            PairingWarning::Colour { player, colour } => write!(
                f,
                "player {player} gets {} a third time in a row or two more of one colour than the other (C.04.1 f, g)",
                colour.name()
            ),
            PairingWarning::SecondPab { player } => write!(
                f,
                "player {player} has already had a bye or a point without playing (C.04.1 d)"
            ),
        }
    }
}

/// A pairing as the director writes it by hand: boards (White, Black) and byes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ManualPairing {
    /// Boards, White first.
    pub boards: Vec<(u32, u32)>,
    /// Players without an opponent, with the kind of bye.
    pub byes: Vec<(u32, ByeKind)>,
}

/// What the ratable-time-control check found (docs/rules.md §1.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControlCheck {
    /// The time control as normalised by the parser.
    pub normalised: String,
    /// FIDE blitz (B.1: base + 60 × increment ≤ 10 minutes).
    pub fide_blitz: bool,
    /// US Chess blitz (one sudden-death control of 1 to 10 minutes).
    pub us_blitz: bool,
    /// US Chess blitz-ratable (total 5–10 minutes, base ≥ 3 minutes).
    pub us_blitz_ratable: bool,
    /// The event's ruleset's verdict with its citation, when a ruleset is set.
    pub ruleset_verdict: Option<String>,
}

/// Check a time control (docs/rules.md §1.2: accepted even when not ratable, with that fact
/// shown). Returns an error naming the problem when the notation cannot be read.
pub fn check_time_control(text: &str) -> Result<TimeControlCheck, EventError> {
    check_time_control_under(text, None)
}

/// Check a time control, and judge it under a built-in ruleset when one is given: a
/// control the ruleset forbids is rejected with the rule cited; an allowed one carries
/// the ruleset's ratable verdict and its citation (docs/rules.md §1.2, via
/// `flagfall_core::ruleset::Ruleset::judge_time_control`).
pub fn check_time_control_under(
    text: &str,
    ruleset: Option<&str>,
) -> Result<TimeControlCheck, EventError> {
    let tc: TimeControl =
        text.parse()
            .map_err(|e: flagfall_core::timecontrol::TimeControlError| {
                EventError::NotAllowed(e.to_string())
            })?;
    let mut check = TimeControlCheck {
        normalised: tc.to_string(),
        fide_blitz: tc.fide_is_blitz(),
        us_blitz: tc.us_is_blitz(),
        us_blitz_ratable: tc.us_blitz_ratable(),
        ruleset_verdict: None,
    };
    if let Some(id) = ruleset {
        let rs = Ruleset::builtin(id).map_err(|e| EventError::NotAllowed(e.to_string()))?;
        match rs.judge_time_control(&tc) {
            TimeControlJudgement::Rejected { rule, why } => {
                return Err(EventError::NotAllowed(format!(
                    "time control not allowed under {id} ({rule}): {why}"
                )));
            }
            TimeControlJudgement::Accepted { ratable, rule } => {
                check.ruleset_verdict = Some(format!(
                    "allowed under {id}; {} ({rule})",
                    if ratable { "ratable" } else { "not ratable" }
                ));
            }
        }
    }
    Ok(check)
}

/// A US Chess member id: eight digits.
/// A new player's (or an edited player's) rating, federation and US Chess id.
pub(crate) fn check_player_details(new: &NewPlayer) -> Result<(), EventError> {
    if let Some(r) = new.rating
        && r > 4000
    {
        return Err(EventError::BadValue {
            what: "rating",
            value: r.to_string(),
            expected: "a number from 0 to 4000",
        });
    }
    if let Some(f) = &new.federation
        && (f.len() != 3 || !f.chars().all(|c| c.is_ascii_alphabetic()))
    {
        return Err(EventError::BadValue {
            what: "federation",
            value: f.clone(),
            expected: "three letters, e.g. USA",
        });
    }
    if let Some(id) = &new.uscf_id {
        check_uscf_id(id)?;
    }
    Ok(())
}

pub(crate) fn check_uscf_id(id: &str) -> Result<(), EventError> {
    if id.len() == 8 && id.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(EventError::BadValue {
            what: "US Chess id",
            value: id.to_string(),
            expected: "eight digits, e.g. 12345678",
        })
    }
}

/// A player's name as events stored before the one-limit rule took it (at most 200
/// characters, no control character): only for replaying a stored log
/// ([`Event::apply_stored`]), never for new text ([`crate::text`]).
fn stored_name(name: &str) -> Result<String, EventError> {
    let t = name.trim();
    if t.is_empty() || t.chars().count() > text::MAX_TEXT_CHARS || t.chars().any(char::is_control) {
        return Err(EventError::BadName(format!(
            "the stored player name {:?} is empty, longer than {} characters or holds a control character",
            t.chars().take(40).collect::<String>(),
            text::MAX_TEXT_CHARS
        )));
    }
    Ok(t.to_string())
}

/// One player's record in one round, derived from the stored round.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    /// Paired on `board`.
    Paired {
        /// The board.
        board: &'a Board,
        /// This player's colour in game 1.
        colour: Colour,
        /// The opponent.
        opponent: u32,
    },
    /// A bye or absence.
    Bye(ByeKind),
}

impl Event {
    /// A new event with no players.
    pub fn new(name: &str, format: Format, rounds: Option<u32>) -> Result<Event, EventError> {
        let name = text::line("name", name, text::MAX_TEXT_CHARS)?;
        let rounds = match (format.is_round_robin(), rounds) {
            (true, _) => 0,
            (false, None) => {
                return Err(EventError::NotAllowed(format!(
                    "a {format} event needs its number of rounds"
                )));
            }
            (false, Some(r)) if r == 0 || r > MAX_ROUNDS => {
                return Err(EventError::BadValue {
                    what: "number of rounds",
                    value: r.to_string(),
                    expected: "1 to 200",
                });
                const _: () = assert!(MAX_ROUNDS == 200, "the message above names the limit");
            }
            (false, Some(r)) => r,
        };
        Ok(Event {
            version: EVENT_FILE_VERSION,
            name,
            site: None,
            date: None,
            format,
            rounds,
            time_control: None,
            ruleset: None,
            paper_mode: false,
            initial_colour: Colour::White,
            tiebreaks: format.default_tiebreaks().to_string(),
            players: Vec::new(),
            round_list: Vec::new(),
            pab_half_points: None,
            check_in: false,
            forbidden: Vec::new(),
            report: ReportInfo::default(),
            log: Vec::new(),
        })
    }

    /// Set the site (PGN `Site`, TRF `022`): one line ([`crate::text`]); blank clears it.
    pub fn set_site(&mut self, site: Option<&str>) -> Result<(), EventError> {
        self.site = text::optional("site", site, text::MAX_TEXT_CHARS)?;
        Ok(())
    }

    /// Set the start date (`YYYY-MM-DD` or `YYYY.MM.DD`); blank clears it.
    pub fn set_date(&mut self, date: Option<&str>) -> Result<(), EventError> {
        self.date = match date.map(str::trim) {
            None | Some("") => None,
            Some(d) => Some(text::date("date", d)?),
        };
        Ok(())
    }

    /// Set the report details after checking every text field ([`text::report`]).
    pub fn set_report(&mut self, report: ReportInfo) -> Result<(), EventError> {
        text::report(&report)?;
        if let (Some(start), Some(end)) = (&self.date, &report.end_date)
            && end.trim().replace('.', "-") < start.replace('.', "-")
        {
            return Err(EventError::BadName(format!(
                "report.end_date: {:?} is before the start date {start:?}",
                end.trim()
            )));
        }
        self.report = report;
        Ok(())
    }

    /// Set the time control after checking its notation.
    pub fn set_time_control(&mut self, text: &str) -> Result<TimeControlCheck, EventError> {
        let check = check_time_control_under(text, self.ruleset.as_deref())?;
        self.time_control = Some(check.normalised.clone());
        Ok(check)
    }

    /// Set the ruleset (a built-in id: `uscf-2020`, `uscf-classic`, `club-ilc`,
    /// `fide-b3`, `blitz-2006`); the time control, if set, is judged again under it.
    pub fn set_ruleset(&mut self, id: &str) -> Result<Option<TimeControlCheck>, EventError> {
        Ruleset::builtin(id).map_err(|e| EventError::NotAllowed(e.to_string()))?;
        let check = match &self.time_control {
            Some(tc) => Some(check_time_control_under(tc, Some(id))?),
            None => None,
        };
        self.ruleset = Some(id.to_string());
        Ok(check)
    }

    /// Set the tiebreak order after checking every id.
    pub fn set_tiebreaks(&mut self, list: &str) -> Result<Vec<Tiebreak>, EventError> {
        let parsed = tiebreak::parse_list(list).map_err(|e| EventError::Tiebreak(e.to_string()))?;
        self.tiebreaks = parsed
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",");
        Ok(parsed)
    }

    /// Rounds planned: [`Event::rounds`], or for a round robin not yet started the
    /// rounds its current players would need.
    pub fn planned_rounds(&self) -> u32 {
        if self.rounds == 0 && self.format.is_round_robin() && self.players.len() >= 2 {
            let cycles = if self.format == Format::DoubleRoundRobin {
                2
            } else {
                1
            };
            berger::rounds_per_cycle(self.players.len() as u32) * cycles
        } else {
            self.rounds
        }
    }

    /// Rounds paired so far.
    pub fn rounds_paired(&self) -> u32 {
        self.round_list.len() as u32
    }

    /// The player with pairing number `id`.
    pub fn player(&self, id: u32) -> Result<&Player, EventError> {
        self.players
            .iter()
            .find(|p| p.id == id)
            .ok_or(EventError::UnknownPlayer(id))
    }

    fn player_mut(&mut self, id: u32) -> Result<&mut Player, EventError> {
        self.players
            .iter_mut()
            .find(|p| p.id == id)
            .ok_or(EventError::UnknownPlayer(id))
    }

    /// Add a player and return the pairing number it gets. Pairing numbers follow rating
    /// order (highest first, unrated last, then the order of entry; FIDE C.04.2 initial
    /// order, US Chess 29B/29C: ranking by rating). A late entry (after round 1 is paired,
    /// Swiss formats only) joins from the next round (the rounds missed are absences,
    /// scoring nothing; US Chess 28K) and takes the place its rating gives it: the players
    /// below it move down one number, in the rounds already paired too (FIDE C.04.2: pairing
    /// numbers are re-assigned by the initial ranking when late entrants join; for the US
    /// Swiss the same order, see docs/events.md).
    ///
    /// The name follows [`crate::text`]: one line of at most [`text::MAX_NAME_CHARS`]
    /// characters (a game's limit: a server evening's games carry the names).
    pub fn add_player(&mut self, new: NewPlayer) -> Result<u32, EventError> {
        let name = text::new_player(&new)?;
        self.enter_player(new, name)
    }

    /// [`Event::add_player`] for a player entered before the one-limit rule, replayed from
    /// a stored log: the name as it was accepted then ([`stored_name`]).
    pub(crate) fn add_stored_player(&mut self, new: NewPlayer) -> Result<u32, EventError> {
        let name = stored_name(&new.name)?;
        self.enter_player(new, name)
    }

    fn enter_player(&mut self, new: NewPlayer, name: String) -> Result<u32, EventError> {
        if self.players.len() >= MAX_PLAYERS {
            return Err(EventError::NotAllowed(format!(
                "an event holds at most {} players",
                crate::numbers::grouped(MAX_PLAYERS)
            )));
        }
        check_player_details(&new)?;
        let started = !self.round_list.is_empty();
        if started && self.format.is_round_robin() {
            return Err(EventError::NotAllowed(
                "a round robin cannot take late entries: its schedule is fixed when round 1 is paired"
                    .into(),
            ));
        }
        let next_round = self.rounds_paired() + 1;
        if started && next_round > self.rounds {
            return Err(EventError::EventOver(self.rounds));
        }
        // Its place in the ranking: after everyone rated at least as high (unrated = 0).
        let rating = new.rating.unwrap_or(0);
        let place = self
            .players
            .iter()
            .position(|p| p.rating.unwrap_or(0) < rating)
            .unwrap_or(self.players.len());
        let player = Player {
            id: place as u32 + 1,
            name,
            rating: new.rating,
            federation: new.federation.map(|f| f.to_ascii_uppercase()),
            fide_id: new.fide_id,
            uscf_id: new.uscf_id,
            title: None,
            sex: None,
            birth: None,
            checked_in: false,
            paused: false,
            joined_round: if started { next_round } else { 1 },
            withdrawn_from: None,
            byes: BTreeMap::new(),
        };
        self.players.insert(place, player);
        self.renumber_from(place);
        Ok(place as u32 + 1)
    }

    /// Give every player from list position `place` on the pairing number of its position,
    /// after a player was inserted there: each moves down one number, in the player list
    /// and in every round already paired (boards and byes).
    fn renumber_from(&mut self, place: usize) {
        let inserted = place as u32 + 1;
        let moved = |id: u32| if id >= inserted { id + 1 } else { id };
        for round in &mut self.round_list {
            for board in &mut round.boards {
                board.white = moved(board.white);
                board.black = moved(board.black);
            }
            for bye in &mut round.byes {
                bye.player = moved(bye.player);
            }
        }
        for (i, p) in self.players.iter_mut().enumerate().skip(place) {
            p.id = i as u32 + 1;
        }
        for f in &mut self.forbidden {
            f.a = moved(f.a);
            f.b = moved(f.b);
        }
    }

    /// Remove a player before round 1 is paired (registered, never came): the players
    /// below move up one number, and the player's forbidden pairs go too.
    pub fn remove_player(&mut self, id: u32) -> Result<Player, EventError> {
        self.player(id)?;
        if !self.round_list.is_empty() {
            return Err(EventError::NotAllowed(format!(
                "player {id} cannot be removed once round 1 is paired; withdraw them instead"
            )));
        }
        let removed = self.players.remove(id as usize - 1);
        for (i, p) in self.players.iter_mut().enumerate() {
            p.id = i as u32 + 1;
        }
        self.forbidden.retain(|f| f.a != id && f.b != id);
        let moved = |n: u32| if n > id { n - 1 } else { n };
        for f in &mut self.forbidden {
            f.a = moved(f.a);
            f.b = moved(f.b);
        }
        Ok(removed)
    }

    /// Withdraw a player from round `from` on (default: the next round to be paired).
    pub fn withdraw(&mut self, id: u32, from: Option<u32>) -> Result<u32, EventError> {
        let next = self.rounds_paired() + 1;
        let from = from.unwrap_or(next);
        if from < next {
            return Err(EventError::NotAllowed(format!(
                "round {from} is already paired; a withdrawal can start at round {next} at the earliest (enter forfeits for games not played)"
            )));
        }
        let p = self.player_mut(id)?;
        p.withdrawn_from = Some(from);
        Ok(from)
    }

    /// Record a bye requested in advance for a round not yet paired (Swiss formats).
    pub fn request_bye(
        &mut self,
        id: u32,
        round: u32,
        kind: RequestedBye,
    ) -> Result<(), EventError> {
        if self.format.is_round_robin() {
            return Err(EventError::NotAllowed(
                "byes cannot be requested in a round robin (games not played are forfeits)".into(),
            ));
        }
        let next = self.rounds_paired() + 1;
        if round < next || round > self.rounds {
            return Err(EventError::NotAllowed(format!(
                "a bye can be requested for rounds {next} to {} only, not round {round}",
                self.rounds
            )));
        }
        let p = self.player_mut(id)?;
        p.byes.insert(round, kind);
        Ok(())
    }

    fn present(&self, p: &Player, round: u32) -> bool {
        p.joined_round <= round && p.withdrawn_from.is_none_or(|w| round < w)
    }

    /// True when the player is to be paired in round `round` (the next to pair): entered,
    /// not withdrawn, not paused, checked in when the event asks for it.
    pub fn available(&self, p: &Player, round: u32) -> bool {
        self.present(p, round) && !p.paused && (!self.check_in || p.checked_in)
    }

    /// True when `a` and `b` may not be paired (a forbidden pair).
    pub fn is_forbidden(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a.min(b), a.max(b));
        self.forbidden.iter().any(|f| f.a == a && f.b == b)
    }

    fn forbidden_pairs(&self) -> Vec<(u32, u32)> {
        self.forbidden.iter().map(|f| (f.a, f.b)).collect()
    }

    /// A player's record in round `round` (1-based; must be paired).
    pub fn cell(&self, id: u32, round: u32) -> Cell<'_> {
        let Some(r) = round
            .checked_sub(1)
            .and_then(|i| self.round_list.get(i as usize))
        else {
            return Cell::Bye(ByeKind::Absent);
        };
        for b in &r.boards {
            if b.white == id {
                return Cell::Paired {
                    board: b,
                    colour: Colour::White,
                    opponent: b.black,
                };
            }
            if b.black == id {
                return Cell::Paired {
                    board: b,
                    colour: Colour::Black,
                    opponent: b.white,
                };
            }
        }
        r.byes
            .iter()
            .find(|b| b.player == id)
            .map_or(Cell::Bye(ByeKind::Absent), |b| Cell::Bye(b.kind))
    }

    /// Points of a bye in half points (per game: a win 2, a draw 1).
    fn bye_points(&self, kind: ByeKind) -> u32 {
        let g = self.format.games_per_round();
        match kind {
            ByeKind::Pab => self.pab_value(),
            ByeKind::Full => 2 * g,
            ByeKind::Half => g,
            ByeKind::Zero | ByeKind::Absent => 0,
        }
    }

    /// Points of the pairing-allocated bye, in half points: the value the director set, or
    /// else a win (C.04.1 c: a win "unless the rules of the tournament state otherwise";
    /// US Chess 28L, byes, for the US Swiss),
    /// except in a Double Swiss, where the bye is worth 1½ of the two-game match (a win and
    /// a draw; C.04.5 as summarised in docs/events.md, **interpretation**: the primary text
    /// of that article was not available to us).
    pub fn pab_value(&self) -> u32 {
        let g = self.format.games_per_round();
        self.pab_half_points.unwrap_or(match self.format {
            Format::DoubleSwiss => 3,
            _ => 2 * g,
        })
    }

    /// Set the points of the pairing-allocated bye from text such as `2`, `1.5`, `1.50` or `1½`
    /// (points for the whole round: at most a win of every game of the round).
    ///
    /// Only for the Double Swiss and the US Chess Swiss, whose engines pair on the event's
    /// own scores; the Dutch engine scores the bye as a win, as bbpPairings does without a
    /// `BBU` line, and round robins give no pairing-allocated bye. Refused once a round is
    /// paired, so that pairings already made and the standings agree.
    pub fn set_pab_points(&mut self, text: &str) -> Result<(), EventError> {
        if !self.format.pab_points_settable() {
            return Err(EventError::NotAllowed(format!(
                "the pairing-allocated bye of a {} event is worth a win (C.04.1 c); other \
                 values are supported for double-swiss and us-swiss events",
                self.format
            )));
        }
        if !self.round_list.is_empty() {
            return Err(EventError::NotAllowed(
                "the pairing-allocated bye's points are set before the first round is paired"
                    .to_string(),
            ));
        }
        let g = self.format.games_per_round();
        let bad = || EventError::BadValue {
            what: "pairing-allocated bye points",
            value: text.to_string(),
            expected: if g == 1 {
                "0, 0.5 or 1"
            } else {
                "a multiple of 0.5 from 0 to the number of games a round"
            },
        };
        // Points as the TRF writes them (`1.5`, `2`, `2.0`), or with a `½` sign.
        let t = text.trim().replace('½', ".5");
        let half_points = trf::parse_tenths(&t)
            .filter(|tenths| tenths % 5 == 0)
            .map(|tenths| tenths / 5)
            .filter(|&h| h <= 2 * g)
            .ok_or_else(bad)?;
        self.pab_half_points = Some(half_points);
        Ok(())
    }

    /// Points a player scored in round `round`, in half points (pending games count 0).
    pub fn round_points(&self, id: u32, round: u32) -> u32 {
        match self.cell(id, round) {
            Cell::Bye(kind) => self.bye_points(kind),
            Cell::Paired { board, .. } => board
                .games
                .iter()
                .enumerate()
                .map(|(g, game)| {
                    let (w, _) = board.players_of_game(g);
                    let out = game.result.white_outcome();
                    match out {
                        None => 0,
                        Some(o) => {
                            let o = if w == id { o } else { o.mirrored() };
                            o.points().0
                        }
                    }
                })
                .sum(),
        }
    }

    /// Total after `rounds` rounds, in half points.
    pub fn score_after(&self, id: u32, rounds: u32) -> u32 {
        (1..=rounds.min(self.rounds_paired()))
            .map(|r| self.round_points(id, r))
            .sum()
    }

    /// True when the two met over the board in a way that forbids another pairing: a
    /// game played (Swiss rules: forfeits do not count, C.04.1 / US 27A1), or for a
    /// Double Swiss, a match not forfeited in full (C.04.5 0).
    fn met_in(&self, board: &Board) -> bool {
        board
            .games
            .iter()
            .any(|g| g.result.is_played() || g.result == RecordedResult::Pending)
    }

    /// The round's history as the Swiss engines see it.
    fn swiss_player(&self, p: &Player, round: u32) -> SwissPlayer {
        let mut colours = Vec::new();
        let mut opponents = Vec::new();
        let mut bye_eligible = true;
        for r in 1..round {
            match self.cell(p.id, r) {
                Cell::Paired {
                    board,
                    colour,
                    opponent,
                } => {
                    if self.met_in(board) {
                        colours.push(colour);
                        opponents.push(opponent);
                    }
                    // A win without play (forfeit) rules out the PAB (C.04.1 d; US 28L).
                    for (g, game) in board.games.iter().enumerate() {
                        let (w, _) = board.players_of_game(g);
                        let won_unplayed = match game.result {
                            RecordedResult::WhiteWinsByForfeit => w == p.id,
                            RecordedResult::BlackWinsByForfeit => w != p.id,
                            _ => false,
                        };
                        if won_unplayed && !self.met_in(board) {
                            bye_eligible = false;
                        }
                    }
                }
                Cell::Bye(ByeKind::Pab | ByeKind::Full) => bye_eligible = false,
                Cell::Bye(_) => {}
            }
        }
        SwissPlayer {
            id: p.id,
            rating: p.rating.unwrap_or(0),
            score: self.score_after(p.id, round - 1),
            colours,
            opponents,
            bye_eligible,
        }
    }

    fn dutch_input(&self, round: u32) -> DutchInput {
        let players = self
            .players
            .iter()
            .map(|p| {
                let history = (1..round)
                    .map(|r| match self.cell(p.id, r) {
                        Cell::Bye(ByeKind::Pab) => RoundRecord::PairingBye,
                        Cell::Bye(ByeKind::Full) => RoundRecord::FullBye,
                        Cell::Bye(ByeKind::Half) => RoundRecord::HalfBye,
                        Cell::Bye(_) => RoundRecord::ZeroBye,
                        Cell::Paired {
                            board,
                            colour,
                            opponent,
                        } => {
                            let pts = self.round_points(p.id, r);
                            if board.games[0].result.is_played() {
                                RoundRecord::Played {
                                    opponent,
                                    colour,
                                    half_points: pts,
                                }
                            } else {
                                RoundRecord::Forfeit {
                                    opponent,
                                    won: pts > 0,
                                }
                            }
                        }
                    })
                    .collect();
                DutchPlayer {
                    number: p.id,
                    history,
                    absent: !self.available(p, round) || p.byes.contains_key(&round),
                }
            })
            .collect();
        DutchInput {
            players,
            total_rounds: self.rounds,
            initial_colour: self.initial_colour,
            forbidden_pairs: self.forbidden_pairs(),
        }
    }

    /// Pair the next round and return its number.
    pub fn pair_next(&mut self) -> Result<u32, EventError> {
        let round = self.rounds_paired() + 1;
        if let Some(last) = self.round_list.last()
            && !last.complete()
        {
            let boards: Vec<String> = last
                .incomplete_boards()
                .iter()
                .map(u32::to_string)
                .collect();
            return Err(EventError::RoundIncomplete {
                round: last.number,
                boards: boards.join(", "),
                next: round,
            });
        }
        if self.format.is_round_robin() {
            return self.pair_round_robin(round);
        }
        if round > self.rounds {
            return Err(EventError::EventOver(self.rounds));
        }
        let mut byes: Vec<RoundBye> = Vec::new();
        let mut field: Vec<SwissPlayer> = Vec::new();
        for p in &self.players {
            if !self.available(p, round) {
                byes.push(RoundBye {
                    player: p.id,
                    kind: ByeKind::Absent,
                });
            } else if let Some(kind) = p.byes.get(&round) {
                byes.push(RoundBye {
                    player: p.id,
                    kind: ByeKind::from(*kind),
                });
            } else {
                field.push(self.swiss_player(p, round));
            }
        }
        if field.len() < 2 {
            return Err(EventError::Pairing {
                round,
                message: format!("{} player(s) to pair; at least 2 are needed", field.len()),
            });
        }
        let input = SwissRound {
            round,
            total_rounds: self.rounds,
            players: field,
            initial_colour: self.initial_colour,
            forbidden_pairs: self.forbidden_pairs(),
        };
        let err = |e: &dyn fmt::Display| EventError::Pairing {
            round,
            message: e.to_string(),
        };
        let pairing = match self.format {
            Format::UsSwiss => us_swiss::pair(&input).map_err(|e| err(&e))?,
            Format::DoubleSwiss => double_swiss::pair(&input).map_err(|e| err(&e))?,
            Format::Swiss => dutch::pair(&self.dutch_input(round)).map_err(|e| err(&e))?,
            Format::RoundRobin | Format::DoubleRoundRobin | Format::RoundRobinMatches => {
                return self.pair_round_robin(round);
            }
        };
        if let Some(p) = pairing.bye {
            byes.push(RoundBye {
                player: p,
                kind: ByeKind::Pab,
            });
        }
        byes.sort_by_key(|b| b.player);
        let boards = self.boards_from(&pairing.boards);
        self.round_list.push(Round {
            number: round,
            boards,
            byes,
            manual: false,
            manual_by: None,
        });
        Ok(round)
    }

    fn boards_from(&self, pairs: &[(u32, u32)]) -> Vec<Board> {
        let g = self.format.games_per_round() as usize;
        pairs
            .iter()
            .enumerate()
            .map(|(i, &(w, b))| Board {
                number: i as u32 + 1,
                white: w,
                black: b,
                games: vec![GameRecord::pending(); g],
            })
            .collect()
    }

    fn pair_round_robin(&mut self, round: u32) -> Result<u32, EventError> {
        let n = self.players.len() as u32;
        let options = if self.format == Format::DoubleRoundRobin {
            RoundRobinOptions::double()
        } else {
            RoundRobinOptions::single()
        };
        if round == 1 {
            let missing: Vec<String> = self
                .players
                .iter()
                .filter(|p| self.check_in && !p.checked_in)
                .map(|p| format!("{} ({})", p.id, p.name))
                .collect();
            if !missing.is_empty() {
                return Err(EventError::NotAllowed(format!(
                    "a round robin pairs everyone from round 1 on; not checked in: {} \
                     (check them in, or remove them before round 1)",
                    missing.join(", ")
                )));
            }
        }
        // The schedule is fixed when round 1 is paired; set at the end, so that a
        // pairing that fails leaves the event as it was.
        let total = if round == 1 {
            berger::total_rounds(n, options)
        } else {
            self.rounds
        };
        if round > total {
            return Err(EventError::EventOver(total));
        }
        let r = berger::round(n, round, options).map_err(|e| EventError::Pairing {
            round,
            message: e.to_string(),
        })?;
        self.rounds = total;
        let pairs: Vec<(u32, u32)> = r.games.iter().map(|g| (g.white, g.black)).collect();
        let mut boards = self.boards_from(&pairs);
        // A withdrawn player's remaining games are forfeited to the opponent
        // (**interpretation**: the usual round-robin practice; the director may correct).
        for b in &mut boards {
            let gone = |id: u32| {
                self.players
                    .iter()
                    .find(|p| p.id == id)
                    .is_some_and(|p| !self.present(p, round))
            };
            for g in 0..b.games.len() {
                // Each game with its own colours (game 2 of a match reverses them).
                let (w, bl) = b.players_of_game(g);
                let result = match (gone(w), gone(bl)) {
                    (true, true) => Some(RecordedResult::DoubleForfeit),
                    (true, false) => Some(RecordedResult::BlackWinsByForfeit),
                    (false, true) => Some(RecordedResult::WhiteWinsByForfeit),
                    (false, false) => None,
                };
                if let Some(res) = result {
                    b.games[g].result = res;
                }
            }
        }
        let byes = r
            .bye
            .map(|p| {
                vec![RoundBye {
                    player: p,
                    kind: ByeKind::Absent,
                }]
            })
            .unwrap_or_default();
        self.round_list.push(Round {
            number: round,
            boards,
            byes,
            manual: false,
            manual_by: None,
        });
        Ok(round)
    }

    /// Remove the latest round while none of its results is in.
    pub fn unpair_last(&mut self) -> Result<u32, EventError> {
        let Some(last) = self.round_list.last() else {
            return Err(EventError::NotAllowed("no round has been paired".into()));
        };
        if last.touched() {
            return Err(EventError::NotAllowed(format!(
                "round {} has begun (a result is in or a game has started); a round can be \
                 deleted only while nothing in it has been played",
                last.number
            )));
        }
        let n = last.number;
        self.round_list.pop();
        Ok(n)
    }

    /// Replace the pairing of the latest round by a director's pairing (the manual
    /// override), made by `by`. Every player must be on exactly one board or have one bye;
    /// nobody appears twice. The round's results and game links are discarded, so it may
    /// be overridden only while nothing in it has been played. **Interpretation:** a
    /// pairing that breaks a rule of the system (a rematch, a forbidden pair, a player
    /// paired who is not available, a second pairing-allocated bye, a colour the Dutch
    /// system forbids, a round-robin pair out of its round) is accepted, because the
    /// director decides; each broken rule comes back as a [`PairingWarning`] for the
    /// caller to show, and the event log records who did it.
    pub fn override_pairing(
        &mut self,
        round: u32,
        manual: &ManualPairing,
        by: Option<&str>,
    ) -> Result<Vec<PairingWarning>, EventError> {
        let paired = self.rounds_paired();
        if round == 0 || round != paired {
            return Err(EventError::BadManualPairing {
                round,
                message: format!("only the latest paired round ({paired}) can be changed"),
            });
        }
        let bad = |m: String| EventError::BadManualPairing { round, message: m };
        if self.round_list[round as usize - 1].touched() {
            return Err(bad(
                "the round has begun (a result is in or a game has started); delete its \
                 results first"
                    .into(),
            ));
        }
        let mut seen = HashSet::new();
        for &(w, b) in &manual.boards {
            for id in [w, b] {
                self.player(id)?;
                if !seen.insert(id) {
                    return Err(bad(format!("player {id} appears twice")));
                }
            }
        }
        if manual.byes.iter().filter(|b| b.1 == ByeKind::Pab).count() > 1 {
            return Err(bad("more than one pairing-allocated bye".into()));
        }
        for &(p, _) in &manual.byes {
            self.player(p)?;
            if !seen.insert(p) {
                return Err(bad(format!("player {p} appears twice")));
            }
        }
        for p in &self.players {
            if !seen.contains(&p.id) {
                return Err(bad(format!(
                    "player {} ({}) has neither a board nor a bye",
                    p.id, p.name
                )));
            }
        }
        let warnings = self.pairing_warnings(round, manual);
        let boards = self.boards_from(&manual.boards);
        let mut byes: Vec<RoundBye> = manual
            .byes
            .iter()
            .map(|&(player, kind)| RoundBye { player, kind })
            .collect();
        byes.sort_by_key(|b| b.player);
        let slot = &mut self.round_list[round as usize - 1];
        slot.boards = boards;
        slot.byes = byes;
        slot.manual = true;
        slot.manual_by = by.map(str::to_string);
        Ok(warnings)
    }

    /// The rules of the event's system that a pairing of round `round` breaks (see
    /// [`Event::override_pairing`]).
    pub fn pairing_warnings(&self, round: u32, manual: &ManualPairing) -> Vec<PairingWarning> {
        let mut out = Vec::new();
        let schedule: Option<HashSet<(u32, u32)>> = if self.format.is_round_robin() {
            let options = if self.format == Format::DoubleRoundRobin {
                RoundRobinOptions::double()
            } else {
                RoundRobinOptions::single()
            };
            berger::round(self.players.len() as u32, round, options)
                .ok()
                .map(|r| {
                    r.games
                        .iter()
                        .map(|g| (g.white.min(g.black), g.white.max(g.black)))
                        .collect()
                })
        } else {
            None
        };
        for &(w, b) in &manual.boards {
            for r in 1..round {
                if let Cell::Paired {
                    board, opponent, ..
                } = self.cell(w, r)
                    && opponent == b
                    && self.met_in(board)
                    && !self.format.is_round_robin()
                {
                    out.push(PairingWarning::Rematch {
                        white: w,
                        black: b,
                        met_in: r,
                    });
                }
            }
            if self.is_forbidden(w, b) {
                out.push(PairingWarning::Forbidden { white: w, black: b });
            }
            if let Some(s) = &schedule
                && !s.contains(&(w.min(b), w.max(b)))
            {
                out.push(PairingWarning::OutOfSchedule { white: w, black: b });
            }
            for (id, colour) in [(w, Colour::White), (b, Colour::Black)] {
                if let Ok(p) = self.player(id) {
                    if !self.available(p, round) || p.byes.contains_key(&round) {
                        out.push(PairingWarning::NotAvailable { player: id });
                    }
                    if self.format == Format::Swiss {
                        let mut colours = self.swiss_player(p, round).colours;
                        colours.push(colour);
                        let whites = colours.iter().filter(|c| **c == Colour::White).count();
                        let blacks = colours.len() - whites;
                        let thrice = colours.len() >= 3
                            && colours[colours.len() - 3..].iter().all(|c| *c == colour);
                        if whites.abs_diff(blacks) > 2 || thrice {
                            out.push(PairingWarning::Colour { player: id, colour });
                        }
                    }
                }
            }
        }
        for &(p, kind) in &manual.byes {
            if kind == ByeKind::Pab
                && let Ok(pl) = self.player(p)
                && !self.swiss_player(pl, round).bye_eligible
            {
                out.push(PairingWarning::SecondPab { player: p });
            }
        }
        out
    }

    /// Enter (or correct) the results of one board: one per game of the pairing, each
    /// written with that game's colours.
    pub fn set_result(
        &mut self,
        round: u32,
        board: u32,
        results: &[RecordedResult],
    ) -> Result<(), EventError> {
        let format = self.format;
        let later = round < self.rounds_paired();
        let b = self.board_mut(round, board)?;
        if later && results.contains(&RecordedResult::Pending) {
            return Err(EventError::NotAllowed(format!(
                "round {round} is followed by round {}, which was paired on its results: a \
                 result of round {round} can be corrected or replaced, not removed",
                round + 1
            )));
        }
        if results.len() != b.games.len() {
            return Err(EventError::ResultCount {
                round,
                board,
                expected: b.games.len() as u32,
                given: results.len() as u32,
                format,
            });
        }
        for (g, res) in b.games.iter_mut().zip(results) {
            g.result = *res;
        }
        Ok(())
    }

    /// A board of a paired round, or the error naming what does not exist.
    fn board_mut(&mut self, round: u32, board: u32) -> Result<&mut Board, EventError> {
        let paired = self.rounds_paired();
        let r = self
            .round_list
            .get_mut((round as usize).wrapping_sub(1))
            .ok_or(EventError::UnknownRound { round, paired })?;
        let boards = r.boards.len() as u32;
        r.boards
            .iter_mut()
            .find(|b| b.number == board)
            .ok_or(EventError::UnknownBoard {
                round,
                board,
                boards,
            })
    }

    /// Attach PGN movetext to a game (online play).
    pub fn set_moves(
        &mut self,
        round: u32,
        board: u32,
        game: usize,
        moves: String,
    ) -> Result<(), EventError> {
        let b = self.board_mut(round, board)?;
        let g = b.games.get_mut(game).ok_or_else(|| {
            EventError::NotAllowed(format!(
                "round {round} board {board} has no game {}",
                game + 1
            ))
        })?;
        g.moves = Some(moves);
        Ok(())
    }

    /// Rounds whose results are all in, counted from round 1 without a gap.
    pub fn rounds_complete(&self) -> u32 {
        self.round_list.iter().take_while(|r| r.complete()).count() as u32
    }

    /// The event as a crosstable (the standings helper's input), over the first
    /// `rounds` rounds (which must be complete).
    pub fn crosstable(&self, rounds: u32) -> Result<Crosstable, EventError> {
        let complete = self.rounds_complete();
        if rounds > complete {
            return Err(EventError::NotAllowed(format!(
                "standings after round {rounds} need all its results; rounds complete: {complete}"
            )));
        }
        let infos = self
            .players
            .iter()
            .map(|p| PlayerInfo {
                id: p.id,
                name: p.name.clone(),
                rating: p.rating,
            })
            .collect();
        let mut ct = Crosstable::new(self.format, rounds, infos);
        ct.games_per_round = self.format.games_per_round();
        ct.pab_half_points = Some(self.pab_value());
        let index = |id: u32| -> Result<usize, EventError> {
            self.players.iter().position(|p| p.id == id).ok_or_else(|| {
                EventError::Inconsistent(format!("unknown player {id} in a pairing"))
            })
        };
        for r in 1..=rounds {
            for (row, p) in self.players.iter().enumerate() {
                let entry = match self.cell(p.id, r) {
                    Cell::Bye(kind) => RoundEntry::Bye(kind),
                    Cell::Paired {
                        board, opponent, ..
                    } => {
                        let games = board
                            .games
                            .iter()
                            .enumerate()
                            .map(|(g, game)| {
                                let (w, _) = board.players_of_game(g);
                                let out = game.result.white_outcome().ok_or_else(|| {
                                    EventError::Inconsistent(format!(
                                        "round {r} board {} is pending",
                                        board.number
                                    ))
                                })?;
                                Ok(if w == p.id {
                                    CrosstableGame {
                                        colour: Colour::White,
                                        outcome: out,
                                    }
                                } else {
                                    CrosstableGame {
                                        colour: Colour::Black,
                                        outcome: out.mirrored(),
                                    }
                                })
                            })
                            .collect::<Result<Vec<_>, EventError>>()?;
                        RoundEntry::Paired {
                            opponent: index(opponent)?,
                            games,
                        }
                    }
                };
                ct.results[row][r as usize - 1] = entry;
            }
        }
        Ok(ct)
    }

    /// Standings after `rounds` complete rounds (default: all complete rounds), with
    /// the event's tiebreak order or `tiebreaks` if given.
    pub fn standings(
        &self,
        rounds: Option<u32>,
        tiebreaks: Option<&str>,
    ) -> Result<Standings, EventError> {
        let rounds = rounds.unwrap_or_else(|| self.rounds_complete());
        let ct = self.crosstable(rounds)?;
        let list = tiebreak::parse_list(tiebreaks.unwrap_or(&self.tiebreaks))
            .map_err(|e| EventError::Tiebreak(e.to_string()))?;
        let opts = tiebreak::Options::default();
        tiebreak::standings(&ct, &list, &opts).map_err(|e| EventError::Tiebreak(e.to_string()))
    }

    /// Bring a file written in an earlier layout up to [`EVENT_FILE_VERSION`], keeping
    /// what it meant: a version-1 Double Swiss scored its pairing-allocated bye as a win of
    /// both games, so that value is now stated explicitly (the default became 1½). Files
    /// of other versions are left for [`Event::validate`] to refuse.
    pub fn upgrade(&mut self) {
        if self.version == 1 {
            if self.format == Format::DoubleSwiss && self.pab_half_points.is_none() {
                self.pab_half_points = Some(2 * self.format.games_per_round());
            }
            self.version = 2;
        }
    }

    /// Check the stored data (for files that may have been edited by hand).
    pub fn validate(&self) -> Result<(), EventError> {
        if self.version != EVENT_FILE_VERSION {
            return Err(EventError::Inconsistent(format!(
                "file version {} is not supported (this program writes version {EVENT_FILE_VERSION})",
                self.version
            )));
        }
        for (i, p) in self.players.iter().enumerate() {
            if p.id != i as u32 + 1 {
                return Err(EventError::Inconsistent(format!(
                    "player #{} has pairing number {}, expected {}",
                    i + 1,
                    p.id,
                    i + 1
                )));
            }
        }
        if let Some(p) = self.pab_half_points
            && (!self.format.pab_points_settable() || p > 2 * self.format.games_per_round())
        {
            return Err(EventError::Inconsistent(format!(
                "pab_half_points {p} is not possible for a {} event (see `event new \
                 --pab-points`)",
                self.format
            )));
        }
        let g = self.format.games_per_round() as usize;
        for (i, r) in self.round_list.iter().enumerate() {
            if r.number != i as u32 + 1 {
                return Err(EventError::Inconsistent(format!(
                    "round #{} is numbered {}",
                    i + 1,
                    r.number
                )));
            }
            let mut seen = HashSet::new();
            for b in &r.boards {
                if b.games.len() != g {
                    return Err(EventError::Inconsistent(format!(
                        "round {} board {} has {} games, expected {g}",
                        r.number,
                        b.number,
                        b.games.len()
                    )));
                }
                for id in [b.white, b.black] {
                    self.player(id).map_err(|_| {
                        EventError::Inconsistent(format!(
                            "round {} board {}: no player {id}",
                            r.number, b.number
                        ))
                    })?;
                    if !seen.insert(id) {
                        return Err(EventError::Inconsistent(format!(
                            "round {}: player {id} is paired twice",
                            r.number
                        )));
                    }
                }
            }
            for bye in &r.byes {
                self.player(bye.player).map_err(|_| {
                    EventError::Inconsistent(format!(
                        "round {}: bye for unknown player {}",
                        r.number, bye.player
                    ))
                })?;
                if !seen.insert(bye.player) {
                    return Err(EventError::Inconsistent(format!(
                        "round {}: player {} has a bye and another entry",
                        r.number, bye.player
                    )));
                }
            }
        }
        for f in &self.forbidden {
            if f.a >= f.b || self.player(f.a).is_err() || self.player(f.b).is_err() {
                return Err(EventError::Inconsistent(format!(
                    "forbidden pair {}-{}: two different players, lower number first",
                    f.a, f.b
                )));
            }
        }
        for p in &self.players {
            if let Some(id) = &p.uscf_id {
                check_uscf_id(id)
                    .map_err(|e| EventError::Inconsistent(format!("player {}: {e}", p.id)))?;
            }
        }
        tiebreak::parse_list(&self.tiebreaks).map_err(|e| EventError::Tiebreak(e.to_string()))?;
        if let Some(tc) = &self.time_control {
            check_time_control_under(tc, self.ruleset.as_deref())?;
        } else if let Some(id) = &self.ruleset {
            Ruleset::builtin(id).map_err(|e| EventError::NotAllowed(e.to_string()))?;
        }
        Ok(())
    }

    /// Total score as a display string (`3.5`).
    pub fn score_text(half_points: u32) -> String {
        HalfPoints(half_points).to_string()
    }
}
