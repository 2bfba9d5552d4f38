//! Standings and tiebreaks over a [`Crosstable`]: FIDE C.07 (Tie-Break Regulations, edition in
//! force 1 August 2024, with the 2026 dummy-opponent caps as an option) and US Chess rule 34E.
//!
//! The director picks an ordered list of [`Tiebreak`]s; [`standings`] ranks by score, then
//! applies each tiebreak in turn to every group still tied (C.07 art. 4.2). Players still tied
//! after the list share their rank (drawing of lots is left to the director: this crate has no
//! randomness). Ids parse from the C.07 acronyms (`"BH-C1"`, `"BH/C1"`, `"SB"`, `"DE"`, ...) and
//! `US-...` names, see [`Tiebreak::from_str`](std::str::FromStr).
//!
//! # Tiebreaks
//!
//! | Id | Name | Regulation | Implemented |
//! |---|---|---|---|
//! | `DE` | Direct encounter (Swiss partial-meeting rule included) | FIDE C.07 art. 6 | yes |
//! | `WIN` | Number of wins (played or not) | C.07 7.1 | yes |
//! | `WON` | Number of games won over the board | C.07 7.2 | yes |
//! | `BPG` | Games played with Black | C.07 7.3 | yes |
//! | `BWG` | Games won with Black | C.07 7.4 | yes |
//! | `PS`, `PS-C1`.. | (Sum of) progressive scores, cut | C.07 7.5, 14.1 | yes |
//! | `REP` (`GE`) | Rounds one elected to play | C.07 7.6 | yes |
//! | `STD` | Standard points | C.07 (2026) 7.7 | yes |
//! | `TPN` | Tournament pairing number (lower first) | C.07 (2026) 7.8 | yes |
//! | `BH`, `BH-C1`, `BH-C2`, `BH-M1`, `BH-M2` | Buchholz with cut / median | C.07 8.1, 14, 16 | yes |
//! | `AOB` | Average of opponents' Buchholz | C.07 8.2 | yes |
//! | `FB`, `FB-C1`.. | Fore Buchholz | C.07 8.3 | yes |
//! | `SB`, `SB-C1`.. | Sonneborn-Berger | C.07 9.1, 14.1.1, 16 | yes |
//! | `KS`, `KS/L+1`.. | Koya system (limit in half-points) | C.07 9.2, 14.5 | yes |
//! | `ARO`, `ARO-C1`.. | Average rating of opponents | C.07 10.1 | yes |
//! | `TPR` | Tournament performance rating | C.07 10.2, B.02 8.1.1 | yes |
//! | `PTP` | Perfect tournament performance | C.07 10.3, B.02 8.1.2 | yes |
//! | `APRO` | Average performance rating of opponents | C.07 10.4 | yes |
//! | `APPO` | Average perfect performance of opponents | C.07 10.5 | yes |
//! | `RTNG` | Rating | C.07 (2026) 10.6 | yes |
//! | `BC`, `TBR`, `BBE`, `MPvGP`, `ESB`, `EDE`, `SSSC` | Team tiebreaks | C.07 12, 13 | no (individual events only) |
//! | `US-MM` | Modified median | US Chess 34E1 | yes |
//! | `US-SOLKOFF` | Solkoff | US Chess 34E2 | yes |
//! | `US-CUM` | Cumulative | US Chess 34E3 | yes |
//! | `US-OPPCUM` | Cumulative scores of opposition | US Chess 34E4 | yes |
//! | `US-DE` | Result between tied players (all must have met) | US Chess 34E5 | yes |
//! | `US-BLACKS` | Most blacks | US Chess 34E6 | yes |
//! | `US-KASHDAN` | Kashdan | US Chess 34E7 | yes |
//! | `US-SB` | Sonneborn-Berger | US Chess 34E8 | yes |
//! | `US-MEDIAN` | Median (Harkness) | US Chess 34E9 | yes |
//! | — | Speed play-off, coin toss | US Chess 34E11, 34E12; C.07 art. 3 | no (played or drawn, not computed) |
//!
//! The same table is available to programs as [`TIEBREAK_TABLE`].
//!
//! # Unplayed rounds (FIDE)
//!
//! In a Swiss (C.07 15.3, art. 16): half- and zero-point byes, absences and forfeit losses are
//! *voluntarily unplayed rounds* (VUR). Opponents see a player's requested byes that are
//! followed only by VURs (a withdrawal) as draws (16.3.2); everything else at the points
//! awarded. A player's own unplayed round counts, for BH/SB/FB, as a game against a *dummy*
//! whose score is the player's own final score (16.4; [`Edition::Fide2026`] caps it as in the
//! 2026 text). Cuts remove a VUR before the least significant value (16.5). In a round robin
//! forfeits count as games against the scheduled opponent (15.2), except for the rating-based
//! tiebreaks, which only ever use games played over the board.
//!
//! # Several games per round (Double Swiss, double round robin as matches)
//!
//! - A round is one *encounter* (C.07 4.4): BH, SB, FB, AOB, ARO, US medians and Solkoff count
//!   each opponent once per round; SB multiplies by the match points.
//! - A match with at least one game played over the board is a played round (C.04.5); it is
//!   forfeited only when all its games are.
//! - WIN, WON, BPG, BWG, most blacks and Kashdan count games, not rounds. REP counts rounds.
//! - DE uses the mean encounter score when two players met more than once (6.1.2); the best
//!   reachable score for a missing encounter (6.3) is a win in every game of it.
//! - TPR and PTP use one term per game; ARO, APRO and APPO one per encounter.
//! - Byes are worth a win (PAB, full bye), a draw (half bye) or nothing in every game.
//! - A double round robin given as one-game rounds simply meets each opponent twice.

mod analysis;
mod crosstable;
mod encounter;
mod fide;
mod uscf;
mod value;

pub use crate::format::{Format, MAX_ROUNDS};
pub use crosstable::{
    ByeKind, Colour, Crosstable, CrosstableError, CrosstableGame, GameOutcome, HalfPoints,
    MAX_GAMES_PER_ROUND, PlayerInfo, RoundEntry,
};
pub use value::Value;

use analysis::Analysis;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// One row of [`TIEBREAK_TABLE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiebreakInfo {
    /// Id as parsed by [`Tiebreak::from_str`](std::str::FromStr) (modifiers omitted).
    pub id: &'static str,
    /// Name.
    pub name: &'static str,
    /// Regulation it comes from.
    pub regulation: &'static str,
    /// Whether this crate computes it.
    pub implemented: bool,
}

const fn row(
    id: &'static str,
    name: &'static str,
    regulation: &'static str,
    implemented: bool,
) -> TiebreakInfo {
    TiebreakInfo {
        id,
        name,
        regulation,
        implemented,
    }
}

/// Every tiebreak of FIDE C.07 and US Chess 34E, with its regulation and whether it is
/// implemented (the same list as the module documentation).
pub const TIEBREAK_TABLE: &[TiebreakInfo] = &[
    row("DE", "Direct encounter", "FIDE C.07 art. 6", true),
    row("WIN", "Number of wins", "FIDE C.07 7.1", true),
    row("WON", "Number of games won", "FIDE C.07 7.2", true),
    row("BPG", "Games played with Black", "FIDE C.07 7.3", true),
    row("BWG", "Games won with Black", "FIDE C.07 7.4", true),
    row("PS", "Progressive scores", "FIDE C.07 7.5", true),
    row(
        "REP",
        "Rounds one elected to play (GE)",
        "FIDE C.07 7.6",
        true,
    ),
    row("STD", "Standard points", "FIDE C.07 (2026) 7.7", true),
    row(
        "TPN",
        "Tournament pairing number",
        "FIDE C.07 (2026) 7.8",
        true,
    ),
    row("BH", "Buchholz", "FIDE C.07 8.1", true),
    row(
        "AOB",
        "Average of opponents' Buchholz",
        "FIDE C.07 8.2",
        true,
    ),
    row("FB", "Fore Buchholz", "FIDE C.07 8.3", true),
    row("SB", "Sonneborn-Berger", "FIDE C.07 9.1", true),
    row("KS", "Koya system", "FIDE C.07 9.2", true),
    row("ARO", "Average rating of opponents", "FIDE C.07 10.1", true),
    row(
        "TPR",
        "Tournament performance rating",
        "FIDE C.07 10.2",
        true,
    ),
    row(
        "PTP",
        "Perfect tournament performance",
        "FIDE C.07 10.3",
        true,
    ),
    row(
        "APRO",
        "Average performance rating of opponents",
        "FIDE C.07 10.4",
        true,
    ),
    row(
        "APPO",
        "Average perfect performance of opponents",
        "FIDE C.07 10.5",
        true,
    ),
    row("RTNG", "Rating", "FIDE C.07 (2026) 10.6", true),
    row("BC", "Board count (teams)", "FIDE C.07 12.1", false),
    row("TBR", "Top board results (teams)", "FIDE C.07 12.2", false),
    row(
        "BBE",
        "Bottom board elimination (teams)",
        "FIDE C.07 12.3",
        false,
    ),
    row(
        "MPVGP",
        "Match points or game points (teams)",
        "FIDE C.07 13.1",
        false,
    ),
    row(
        "ESB",
        "Extended Sonneborn-Berger (teams)",
        "FIDE C.07 13.2",
        false,
    ),
    row(
        "EDE",
        "Extended direct encounter (teams)",
        "FIDE C.07 13.3",
        false,
    ),
    row(
        "SSSC",
        "Score and schedule strength (teams)",
        "FIDE C.07 13.4",
        false,
    ),
    row("US-MM", "Modified median", "US Chess 34E1", true),
    row("US-SOLKOFF", "Solkoff", "US Chess 34E2", true),
    row("US-CUM", "Cumulative", "US Chess 34E3", true),
    row(
        "US-OPPCUM",
        "Cumulative scores of opposition",
        "US Chess 34E4",
        true,
    ),
    row(
        "US-DE",
        "Result between tied players",
        "US Chess 34E5",
        true,
    ),
    row("US-BLACKS", "Most blacks", "US Chess 34E6", true),
    row("US-KASHDAN", "Kashdan", "US Chess 34E7", true),
    row("US-SB", "Sonneborn-Berger", "US Chess 34E8", true),
    row("US-MEDIAN", "Median (Harkness)", "US Chess 34E9", true),
    row("US-PLAYOFF", "Speed play-off", "US Chess 34E11", false),
    row("US-COIN", "Coin toss", "US Chess 34E12", false),
];

/// Cut / median modifiers (FIDE C.07 art. 14.1-14.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Modifier {
    /// No modifier.
    #[default]
    None,
    /// Cut-1: drop the least significant value.
    Cut1,
    /// Cut-2: drop the two least significant values.
    Cut2,
    /// Median-1: drop the least and the most significant value.
    Median1,
    /// Median-2: drop the two least and the two most significant values.
    Median2,
}

impl Modifier {
    /// How many values are cut at the (low, high) end.
    pub fn cuts(self) -> (usize, usize) {
        match self {
            Modifier::None => (0, 0),
            Modifier::Cut1 => (1, 0),
            Modifier::Cut2 => (2, 0),
            Modifier::Median1 => (1, 1),
            Modifier::Median2 => (2, 2),
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Modifier::None => "",
            Modifier::Cut1 => "-C1",
            Modifier::Cut2 => "-C2",
            Modifier::Median1 => "-M1",
            Modifier::Median2 => "-M2",
        }
    }
}

/// A tiebreak, as chosen by the director.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tiebreak {
    /// DE, FIDE C.07 art. 6.
    DirectEncounter,
    /// WIN, 7.1.
    Wins,
    /// WON, 7.2.
    GamesWon,
    /// BPG, 7.3.
    BlackGames,
    /// BWG, 7.4.
    BlackWins,
    /// PS, 7.5 (Cut-n drops the first n running scores).
    ProgressiveScores(Modifier),
    /// REP (formerly GE), 7.6.
    RoundsElectedToPlay,
    /// STD, 7.7 (2026).
    StandardPoints,
    /// TPN, 7.8 (2026): lower pairing number ([`PlayerInfo::id`]) first.
    PairingNumber,
    /// BH, 8.1.
    Buchholz(Modifier),
    /// AOB, 8.2.
    AverageOpponentsBuchholz,
    /// FB, 8.3.
    ForeBuchholz(Modifier),
    /// SB, 9.1.
    SonnebornBerger(Modifier),
    /// KS, 9.2; `limit` moves the 50% threshold by that many half-points (14.5).
    Koya {
        /// Threshold shift in half-points.
        limit: i32,
    },
    /// ARO, 10.1.
    AverageRatingOfOpponents(Modifier),
    /// TPR, 10.2.
    PerformanceRating,
    /// PTP, 10.3.
    PerfectPerformance,
    /// APRO, 10.4.
    AveragePerformanceOfOpponents,
    /// APPO, 10.5.
    AveragePerfectPerformanceOfOpponents,
    /// RTNG, 10.6 (2026): higher rating first; unrated counts as 0.
    Rating,
    /// US Chess 34E1.
    UsModifiedMedian,
    /// US Chess 34E2.
    UsSolkoff,
    /// US Chess 34E3.
    UsCumulative,
    /// US Chess 34E4.
    UsOpponentsCumulative,
    /// US Chess 34E5.
    UsResultBetweenTied,
    /// US Chess 34E6.
    UsMostBlacks,
    /// US Chess 34E7.
    UsKashdan,
    /// US Chess 34E8.
    UsSonnebornBerger,
    /// US Chess 34E9.
    UsMedian,
}

impl Tiebreak {
    /// True for tiebreaks computed on the group of tied players (DE, US-DE).
    pub fn is_group(self) -> bool {
        matches!(
            self,
            Tiebreak::DirectEncounter | Tiebreak::UsResultBetweenTied
        )
    }
}

impl fmt::Display for Tiebreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (base, m) = match *self {
            Tiebreak::DirectEncounter => ("DE", Modifier::None),
            Tiebreak::Wins => ("WIN", Modifier::None),
            Tiebreak::GamesWon => ("WON", Modifier::None),
            Tiebreak::BlackGames => ("BPG", Modifier::None),
            Tiebreak::BlackWins => ("BWG", Modifier::None),
            Tiebreak::ProgressiveScores(m) => ("PS", m),
            Tiebreak::RoundsElectedToPlay => ("REP", Modifier::None),
            Tiebreak::StandardPoints => ("STD", Modifier::None),
            Tiebreak::PairingNumber => ("TPN", Modifier::None),
            Tiebreak::Buchholz(m) => ("BH", m),
            Tiebreak::AverageOpponentsBuchholz => ("AOB", Modifier::None),
            Tiebreak::ForeBuchholz(m) => ("FB", m),
            Tiebreak::SonnebornBerger(m) => ("SB", m),
            Tiebreak::Koya { limit } => {
                return if limit == 0 {
                    write!(f, "KS")
                } else {
                    write!(f, "KS/L{limit:+}")
                };
            }
            Tiebreak::AverageRatingOfOpponents(m) => ("ARO", m),
            Tiebreak::PerformanceRating => ("TPR", Modifier::None),
            Tiebreak::PerfectPerformance => ("PTP", Modifier::None),
            Tiebreak::AveragePerformanceOfOpponents => ("APRO", Modifier::None),
            Tiebreak::AveragePerfectPerformanceOfOpponents => ("APPO", Modifier::None),
            Tiebreak::Rating => ("RTNG", Modifier::None),
            Tiebreak::UsModifiedMedian => ("US-MM", Modifier::None),
            Tiebreak::UsSolkoff => ("US-SOLKOFF", Modifier::None),
            Tiebreak::UsCumulative => ("US-CUM", Modifier::None),
            Tiebreak::UsOpponentsCumulative => ("US-OPPCUM", Modifier::None),
            Tiebreak::UsResultBetweenTied => ("US-DE", Modifier::None),
            Tiebreak::UsMostBlacks => ("US-BLACKS", Modifier::None),
            Tiebreak::UsKashdan => ("US-KASHDAN", Modifier::None),
            Tiebreak::UsSonnebornBerger => ("US-SB", Modifier::None),
            Tiebreak::UsMedian => ("US-MEDIAN", Modifier::None),
        };
        write!(f, "{base}{}", m.suffix())
    }
}

/// A tiebreak id that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("tiebreak {input:?}: {reason}")]
pub struct ParseTiebreakError {
    /// The text given.
    pub input: String,
    /// What is wrong.
    pub reason: String,
}

impl FromStr for Tiebreak {
    type Err = ParseTiebreakError;

    /// Parses `NAME[-MOD]` or `NAME[/MOD]`, case-insensitive. `MOD` is `C1`, `C2`, `M1`, `M2`
    /// for the tiebreaks that are sums (PS takes cuts only), or `L+n` / `L-n` for KS.
    /// `GE` is accepted for `REP`.
    fn from_str(s: &str) -> Result<Tiebreak, ParseTiebreakError> {
        let err = |reason: String| ParseTiebreakError {
            input: s.to_string(),
            reason,
        };
        let upper = s.trim().to_ascii_uppercase();
        if upper.is_empty() {
            return Err(err("empty tiebreak id".into()));
        }
        // US names contain a dash; modifiers only follow FIDE acronyms.
        let plain = match upper.as_str() {
            "US-MM" => Some(Tiebreak::UsModifiedMedian),
            "US-SOLKOFF" => Some(Tiebreak::UsSolkoff),
            "US-CUM" => Some(Tiebreak::UsCumulative),
            "US-OPPCUM" => Some(Tiebreak::UsOpponentsCumulative),
            "US-DE" => Some(Tiebreak::UsResultBetweenTied),
            "US-BLACKS" => Some(Tiebreak::UsMostBlacks),
            "US-KASHDAN" => Some(Tiebreak::UsKashdan),
            "US-SB" => Some(Tiebreak::UsSonnebornBerger),
            "US-MEDIAN" => Some(Tiebreak::UsMedian),
            _ => None,
        };
        if let Some(t) = plain {
            return Ok(t);
        }
        let (base, modifier) = match upper.find(['-', '/']) {
            Some(i) => (&upper[..i], Some(&upper[i + 1..])),
            None => (upper.as_str(), None),
        };
        if base == "KS" {
            let limit = match modifier {
                None => 0,
                Some(m) => {
                    let n = m
                        .strip_prefix('L')
                        .ok_or_else(|| err(format!("KS takes a limit L+n or L-n, not {m:?}")))?;
                    n.parse::<i32>()
                        .map_err(|_| err(format!("limit {n:?} is not a whole number")))?
                }
            };
            return Ok(Tiebreak::Koya { limit });
        }
        let m = match modifier {
            None => Modifier::None,
            Some("C1") => Modifier::Cut1,
            Some("C2") => Modifier::Cut2,
            Some("M1") => Modifier::Median1,
            Some("M2") => Modifier::Median2,
            Some(other) => {
                return Err(err(format!(
                    "unknown modifier {other:?} (expected C1, C2, M1 or M2)"
                )));
            }
        };
        let with_mod = |f: fn(Modifier) -> Tiebreak| Ok(f(m));
        let no_mod = |t: Tiebreak| {
            if m == Modifier::None {
                Ok(t)
            } else {
                Err(err(format!("{base} takes no modifier")))
            }
        };
        match base {
            "BH" => with_mod(Tiebreak::Buchholz),
            "FB" => with_mod(Tiebreak::ForeBuchholz),
            "SB" => with_mod(Tiebreak::SonnebornBerger),
            "ARO" => with_mod(Tiebreak::AverageRatingOfOpponents),
            "PS" => match m {
                Modifier::Median1 | Modifier::Median2 => {
                    Err(err("PS takes Cut-1 or Cut-2 only".into()))
                }
                _ => Ok(Tiebreak::ProgressiveScores(m)),
            },
            "DE" => no_mod(Tiebreak::DirectEncounter),
            "WIN" => no_mod(Tiebreak::Wins),
            "WON" => no_mod(Tiebreak::GamesWon),
            "BPG" => no_mod(Tiebreak::BlackGames),
            "BWG" => no_mod(Tiebreak::BlackWins),
            "REP" | "GE" => no_mod(Tiebreak::RoundsElectedToPlay),
            "STD" => no_mod(Tiebreak::StandardPoints),
            "TPN" => no_mod(Tiebreak::PairingNumber),
            "AOB" => no_mod(Tiebreak::AverageOpponentsBuchholz),
            "TPR" => no_mod(Tiebreak::PerformanceRating),
            "PTP" => no_mod(Tiebreak::PerfectPerformance),
            "APRO" => no_mod(Tiebreak::AveragePerformanceOfOpponents),
            "APPO" => no_mod(Tiebreak::AveragePerfectPerformanceOfOpponents),
            "RTNG" => no_mod(Tiebreak::Rating),
            other => match TIEBREAK_TABLE.iter().find(|r| r.id == other) {
                Some(info) => Err(err(format!(
                    "{} ({}) is not implemented",
                    info.name, info.regulation
                ))),
                None => Err(err("unknown tiebreak".into())),
            },
        }
    }
}

/// Parses a comma-separated list of tiebreak ids, e.g. `"DE, BH-C1, BH, SB"`.
pub fn parse_list(s: &str) -> Result<Vec<Tiebreak>, ParseTiebreakError> {
    s.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::parse)
        .collect()
}

/// Which text of FIDE C.07 art. 16.4 (the dummy opponent) to apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Edition {
    /// C.07 in force from 1 August 2024: the dummy's score is the participant's final score.
    #[default]
    Fide2024,
    /// C.07 from 1 March 2026: the dummy's score is capped (16.4.1, 16.4.2).
    Fide2026,
}

/// Tiebreak options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Options {
    /// Which C.07 edition's dummy-opponent rule to use.
    pub edition: Edition,
    /// Rating given to unrated players for the rating-based tiebreaks (C.07 art. 10 requires
    /// the event to publish such a rule). `None`: those tiebreaks fail with
    /// [`TiebreakError::Unrated`] when an unrated player was met over the board.
    pub unrated_rating: Option<u32>,
}

/// A tiebreak that cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TiebreakError {
    /// The crosstable is inconsistent.
    #[error("invalid crosstable: {0}")]
    Crosstable(#[from] CrosstableError),
    /// A rating-based tiebreak met an unrated player and no rating for unrated players was set.
    #[error(
        "{tiebreak} needs a rating for player {player}, who is unrated (set a rating for unrated players)"
    )]
    Unrated {
        /// The tiebreak.
        tiebreak: String,
        /// The unrated player's id.
        player: u32,
    },
}

/// Values of one tiebreak for every player (index = row of the crosstable).
///
/// For the group tiebreaks (DE, US-DE) the value is the direct-encounter score against the
/// players on the same total score.
pub fn compute(
    ct: &Crosstable,
    tiebreak: Tiebreak,
    opts: &Options,
) -> Result<Vec<Value>, TiebreakError> {
    ct.validate()?;
    let a = Analysis::new(ct, *opts);
    compute_validated(&a, tiebreak)
}

fn compute_validated(a: &Analysis<'_>, tiebreak: Tiebreak) -> Result<Vec<Value>, TiebreakError> {
    Ok(match tiebreak {
        Tiebreak::DirectEncounter | Tiebreak::UsResultBetweenTied => {
            let mut out = vec![Value::ZERO; a.players()];
            for group in score_groups(a) {
                let (de, _) = encounter::scores(a, &group);
                for (p, v) in group.iter().zip(de) {
                    out[*p] = v;
                }
            }
            out
        }
        Tiebreak::Wins => fide::wins(a),
        Tiebreak::GamesWon => fide::games_won(a),
        Tiebreak::BlackGames => fide::black_games(a),
        Tiebreak::BlackWins => fide::black_wins(a),
        Tiebreak::ProgressiveScores(m) => fide::progressive(a, m),
        Tiebreak::RoundsElectedToPlay => fide::rounds_elected(a),
        Tiebreak::StandardPoints => fide::standard_points(a, a.ct),
        Tiebreak::PairingNumber => {
            a.ct.players
                .iter()
                .map(|p| Value::int(-i64::from(p.id)))
                .collect()
        }
        Tiebreak::Buchholz(m) => fide::buchholz(a, m),
        Tiebreak::AverageOpponentsBuchholz => fide::average_opponents_buchholz(a),
        Tiebreak::ForeBuchholz(m) => {
            let fore = fide::fore_crosstable(a.ct);
            let fa = Analysis::new(&fore, a.opts);
            fide::buchholz(&fa, m)
        }
        Tiebreak::SonnebornBerger(m) => fide::sonneborn_berger(a, m),
        Tiebreak::Koya { limit } => fide::koya(a, limit),
        Tiebreak::AverageRatingOfOpponents(m) => fide::average_rating_of_opponents(a, m)?,
        Tiebreak::PerformanceRating => fide::tpr(a)?,
        Tiebreak::PerfectPerformance => fide::ptp(a)?,
        Tiebreak::AveragePerformanceOfOpponents => fide::average_opponent_performance(a, false)?,
        Tiebreak::AveragePerfectPerformanceOfOpponents => {
            fide::average_opponent_performance(a, true)?
        }
        Tiebreak::Rating => {
            a.ct.players
                .iter()
                .map(|p| Value::int(i64::from(p.rating.unwrap_or(0))))
                .collect()
        }
        Tiebreak::UsModifiedMedian => uscf::modified_median(a),
        Tiebreak::UsSolkoff => uscf::solkoff(a),
        Tiebreak::UsCumulative => uscf::cumulative(a),
        Tiebreak::UsOpponentsCumulative => uscf::opponents_cumulative(a),
        Tiebreak::UsMostBlacks => uscf::most_blacks(a),
        Tiebreak::UsKashdan => uscf::kashdan(a),
        Tiebreak::UsSonnebornBerger => uscf::sonneborn_berger(a),
        Tiebreak::UsMedian => uscf::median(a),
    })
}

/// Players grouped by equal total score, best first.
fn score_groups(a: &Analysis<'_>) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..a.players()).collect();
    order.sort_by(|&x, &y| a.score[y].cmp(&a.score[x]).then(x.cmp(&y)));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for p in order {
        match groups.last_mut() {
            Some(g) if a.score[g[0]] == a.score[p] => g.push(p),
            _ => groups.push(vec![p]),
        }
    }
    groups
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingRow {
    /// Rank, 1-based; players still tied after every tiebreak share a rank.
    pub rank: u32,
    /// Row of the player in the crosstable.
    pub player: usize,
    /// Total score.
    pub score: HalfPoints,
    /// One value per requested tiebreak, in the order requested. For DE and US-DE: the
    /// direct-encounter score within the group the player was tied in when that tiebreak was
    /// applied, or `None` if the player was no longer tied then.
    pub values: Vec<Option<Value>>,
}

/// Final (or after-round) standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standings {
    /// The tiebreaks applied, in order.
    pub tiebreaks: Vec<Tiebreak>,
    /// Rows in rank order (ties listed by crosstable row).
    pub rows: Vec<StandingRow>,
}

/// Ranks the players: by score, then by each tiebreak in order, each applied only within the
/// groups still tied (FIDE C.07 art. 4.2). Higher values rank first (for TPN: lower pairing
/// number first, as its value is the negated number).
pub fn standings(
    ct: &Crosstable,
    tiebreaks: &[Tiebreak],
    opts: &Options,
) -> Result<Standings, TiebreakError> {
    ct.validate()?;
    let a = Analysis::new(ct, *opts);
    let n = a.players();
    let mut values: Vec<Vec<Option<Value>>> = vec![vec![None; tiebreaks.len()]; n];
    // Per-player tiebreaks computed once over the whole field.
    for (t, &tb) in tiebreaks.iter().enumerate() {
        if !tb.is_group() {
            for (p, v) in compute_validated(&a, tb)?.into_iter().enumerate() {
                values[p][t] = Some(v);
            }
        }
    }
    let mut groups = score_groups(&a);
    for (t, &tb) in tiebreaks.iter().enumerate() {
        let mut next: Vec<Vec<usize>> = Vec::with_capacity(groups.len());
        for group in groups {
            if group.len() < 2 {
                next.push(group);
                continue;
            }
            if tb.is_group() {
                let (de, _) = encounter::scores(&a, &group);
                for (&p, v) in group.iter().zip(de) {
                    values[p][t] = Some(v);
                }
                let require_all = tb == Tiebreak::UsResultBetweenTied;
                next.extend(encounter::rank_group(&a, &group, require_all));
            } else {
                let mut sorted = group;
                sorted.sort_by(|&x, &y| values[y][t].cmp(&values[x][t]).then(x.cmp(&y)));
                let mut split: Vec<Vec<usize>> = Vec::new();
                for p in sorted {
                    match split.last_mut() {
                        Some(g) if values[g[0]][t] == values[p][t] => g.push(p),
                        _ => split.push(vec![p]),
                    }
                }
                next.extend(split);
            }
        }
        groups = next;
    }
    // Values of group tiebreaks stay None for players not tied when they were applied.
    let mut rows = Vec::with_capacity(n);
    let mut position = 0u32;
    for group in groups {
        let rank = position + 1;
        for p in group {
            position += 1;
            rows.push(StandingRow {
                rank,
                player: p,
                score: HalfPoints(a.score[p]),
                values: values[p].clone(),
            });
        }
    }
    Ok(Standings {
        tiebreaks: tiebreaks.to_vec(),
        rows,
    })
}
