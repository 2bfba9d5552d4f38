//! The FIDE Dutch system (C.04.3, the 2025 rules in force from 2026), pairing one round
//! the way bbpPairings does.
//!
//! # How a round is paired
//!
//! The FIDE Dutch rules (C.04.3) define the pairing as the one that satisfies a list of
//! criteria in priority order: absolute criteria C1-C3 (no rematch, PAB eligibility,
//! absolute colour preferences), completion C4, then the quality criteria C5-C21 (most
//! pairs and highest scores paired in each bracket, fewest and lowest downfloaters, PAB
//! assignee with the most played games, colour preferences, repeated floats, ...), and
//! finally the order of transpositions and exchanges (C.04.3 B.3 / B.4 / B.5).
//!
//! Like bbpPairings, this engine expresses every criterion as a group of bits of one
//! edge weight, highest priority in the highest bits, and lets a maximum-weight matching
//! choose among all pairings at once (module `matching`). It goes through the brackets from
//! the top: for each bracket it fixes which moved-down players are paired and with whom,
//! then which residents are exchanged between S1 and S2, then the S1 opponents, each time
//! by raising one edge weight and asking the matcher whether the optimum still uses it.
//! This reproduces bbpPairings' tie-breaking exactly (the choice it makes where the rules
//! leave several equivalent pairings), which is what the conformance cases check.
//!
//! Criterion labels (C1-C21, B.3-B.5, E.1-E.5) are those of the 2016 text of C.04.3,
//! which bbpPairings' source also uses; the 2025 text (applied from 1 July 2025)
//! renumbers the articles (1.x definitions, then the pairing process and criteria); the
//! criteria implemented are the ones bbpPairings implements for that text, including
//! the PAB rule on unplayed games (C9 in bbpPairings' numbering) and the downfloat for
//! points scored without playing (2025 art. 1.4.3).
//!
//! Interpretations copied from bbpPairings (see `tests/data/dutch/README.md`):
//!
//! * the PAB may go only to a player who has never received a point without playing
//!   (PAB, full-point bye, forfeit win) (C.04.3 C2, 2025 wording);
//! * a forfeited game does not count as played: it gives no colour and does not forbid a
//!   rematch (C.04.3 A.6 / C1);
//! * half-point byes, full-point byes, the PAB and forfeit wins count as downfloats
//!   (points scored without playing, 2025 art. 1.4.3); zero-point byes are no float;
//! * in the final round two players with the same absolute colour preference may meet
//!   if either scores more than half the maximum (C.04.3 C3);
//! * the effective pairing number (colour allocation parity, ties) skips players who are
//!   absent and have never been paired (C.04.3 E.5).

// The engine indexes parallel arrays (players, matcher vertices, weight rows).
#![allow(clippy::needless_range_loop)]

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::BuildHasherDefault;

use thiserror::Error;

pub use crate::trf::Colour;
use crate::trf::{ResultCode, Trf};

use matching::Matcher;
use wide::{Wide, WordHasher};

/// What happened to a player in one completed round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoundRecord {
    /// A game played over the board. `half_points`: 2 win, 1 draw, 0 loss.
    Played {
        /// Opponent's pairing number.
        opponent: u32,
        /// Colour this player had.
        colour: Colour,
        /// Points scored, in half points.
        half_points: u32,
    },
    /// A game paired but not played (forfeit, on one or both sides). It does not count
    /// as a game for colours or for the "never meet twice" rule.
    Forfeit {
        /// Opponent's pairing number.
        opponent: u32,
        /// True if this player won by forfeit.
        won: bool,
    },
    /// The pairing-allocated bye (one point).
    PairingBye,
    /// A full-point bye (requested, not the PAB).
    FullBye,
    /// A half-point bye.
    HalfBye,
    /// A zero-point bye, or absent / not paired in that round.
    ZeroBye,
}

impl RoundRecord {
    /// Points scored in this round, in half points.
    #[must_use]
    pub fn half_points(&self) -> u32 {
        match *self {
            RoundRecord::Played { half_points, .. } => half_points,
            RoundRecord::Forfeit { won, .. } => 2 * u32::from(won),
            RoundRecord::PairingBye | RoundRecord::FullBye => 2,
            RoundRecord::HalfBye => 1,
            RoundRecord::ZeroBye => 0,
        }
    }
}

/// One player as the Dutch engine sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DutchPlayer {
    /// Pairing number (starting rank), 1-based, unique.
    pub number: u32,
    /// Completed rounds 1..K, one record per round (every player has K records).
    pub history: Vec<RoundRecord>,
    /// True if the player is not to be paired in the round being paired (withdrawn,
    /// not yet arrived, or has an announced bye).
    pub absent: bool,
}

/// Everything needed to pair the next round (round K + 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DutchInput {
    /// All players of the tournament, present or not.
    pub players: Vec<DutchPlayer>,
    /// Rounds planned in total (for the final-round exceptions).
    pub total_rounds: u32,
    /// The colour drawn by lot for the top seed in round 1.
    pub initial_colour: Colour,
    /// Pairs of pairing numbers that must not meet in the round being paired (family,
    /// same club; TRF `XXP` and `260` lines). As in bbpPairings, a forbidden pair is
    /// treated exactly like two players who have already played each other: an absolute
    /// criterion (C1), nothing else (colours, floats and scores are not touched).
    pub forbidden_pairs: Vec<(u32, u32)>,
}

/// A pairing of one round: boards as (white, black) pairing numbers, plus the PAB.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pairing {
    /// Boards, in board order: (white, black).
    pub boards: Vec<(u32, u32)>,
    /// The player receiving the pairing-allocated bye, if any.
    pub bye: Option<u32>,
}

impl fmt::Display for Pairing {
    /// bbpPairings' output format: the number of lines, then `WHITE BLACK` per board, then
    /// `P 0` for the bye.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.boards.len() + usize::from(self.bye.is_some()))?;
        for (w, b) in &self.boards {
            writeln!(f, "{w} {b}")?;
        }
        if let Some(p) = self.bye {
            writeln!(f, "{p} 0")?;
        }
        Ok(())
    }
}

/// Why a round could not be paired.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PairingError {
    /// The input is inconsistent (unknown opponent, mismatched history, ...).
    #[error("invalid tournament data: {0}")]
    InvalidInput(String),
    /// The TRF lacks the number of rounds (`XXR` / `142`).
    #[error("the TRF does not give the number of rounds (XXR or 142 line)")]
    MissingTotalRounds,
    /// The round to pair is beyond the rounds planned.
    #[error("round {round} cannot be paired: the tournament has {total} rounds")]
    TournamentOver {
        /// The round that would be paired.
        round: u32,
        /// Rounds planned.
        total: u32,
    },
    /// No pairing satisfies the absolute criteria (C1-C3).
    #[error("no pairing satisfies the absolute criteria for round {0}")]
    NoValidPairing(u32),
    /// The tournament is too large for the engine's weight width.
    #[error("the tournament is too large to pair ({0} bits of edge weight needed)")]
    TooLarge(u32),
}

mod matching;
mod wide;

impl DutchInput {
    /// Build the input from a TRF, the way bbpPairings reads it: the completed rounds are
    /// the columns up to the last one in which anybody has a game or a `U`; a player with
    /// an entry in the next column is absent from the round being paired; blank columns
    /// before that are rounds the player was not paired (zero points).
    ///
    /// Without `152`/`XXC` the initial colour is inferred from the first round in which
    /// colours were given (the top player present then had the initial colour).
    ///
    /// # Errors
    /// [`PairingError`] when the file lacks the round count, names an unknown opponent,
    /// has two players disagree about a game, or a player's points do not add up.
    pub fn from_trf(trf: &Trf) -> Result<Self, PairingError> {
        let total_rounds = trf.total_rounds.ok_or(PairingError::MissingTotalRounds)?;
        let bad = |m: String| PairingError::InvalidInput(m);
        // Lines that would change the pairing but that this engine does not implement:
        // accelerations, pre-set byes, other point systems, teams. (Forbidden pairs, `XXP`
        // and `260`, are read below.)
        const UNSUPPORTED: [&str; 13] = [
            "XXA", "250", "240", "162", "299", "BBW", "BBD", "BBL", "BBZ", "BBF", "BBU", "013",
            "310",
        ];
        if let Some(h) = trf
            .headers
            .iter()
            .find(|h| UNSUPPORTED.contains(&h.tag.as_str()))
        {
            return Err(bad(format!(
                "the {} line (accelerations, byes, point systems or teams) is not supported by the Dutch engine",
                h.tag
            )));
        }
        // K: the last column with a game, a forfeit or a PAB; also at least (last column
        // with any entry) - 1 (an entry in column K+1 is an absence for round K+1).
        let mut completed = 0u32;
        for p in &trf.players {
            let len = p.rounds.len() as u32;
            completed = completed.max(len.saturating_sub(1));
            for (i, e) in p.rounds.iter().enumerate() {
                if let Some(e) = e
                    && (e.opponent.is_some()
                        || matches!(e.result, ResultCode::PairingBye | ResultCode::ForfeitWin))
                {
                    completed = completed.max(i as u32 + 1);
                }
            }
        }
        let numbers: HashSet<u32> = trf.players.iter().map(|p| p.number).collect();
        let mut players = Vec::with_capacity(trf.players.len());
        for p in &trf.players {
            let mut history = Vec::with_capacity(completed as usize);
            for r in 0..completed as usize {
                let rec = match p.rounds.get(r).copied().flatten() {
                    None => RoundRecord::ZeroBye,
                    Some(e) => record_from_entry(p.number, r as u32 + 1, e, &numbers)?,
                };
                history.push(rec);
            }
            let absent = p.rounds.len() > completed as usize;
            let sum: u32 = history.iter().map(RoundRecord::half_points).sum();
            if sum * 5 != p.points_tenths {
                return Err(bad(format!(
                    "player {}: the points column says {}.{} but the results add up to {}",
                    p.number,
                    p.points_tenths / 10,
                    p.points_tenths % 10,
                    f64::from(sum) / 2.0
                )));
            }
            players.push(DutchPlayer {
                number: p.number,
                history,
                absent,
            });
        }
        let forbidden_pairs = forbidden_from_trf(trf, completed + 1, &numbers)?;
        let mut input = DutchInput {
            players,
            total_rounds,
            initial_colour: Colour::White,
            forbidden_pairs,
        };
        input.validate()?;
        input.initial_colour = match trf.initial_colour {
            Some(c) => c,
            None => infer_initial_colour(trf).unwrap_or(Colour::White),
        };
        Ok(input)
    }

    /// Check that the histories agree with each other.
    fn validate(&self) -> Result<(), PairingError> {
        let bad = |m: String| PairingError::InvalidInput(m);
        let k = self.players.first().map_or(0, |p| p.history.len());
        let mut by_number: HashMap<u32, &DutchPlayer> = HashMap::new();
        for p in &self.players {
            if p.number == 0 {
                return Err(bad("pairing number 0".into()));
            }
            if by_number.insert(p.number, p).is_some() {
                return Err(bad(format!("pairing number {} appears twice", p.number)));
            }
            if p.history.len() != k {
                return Err(bad(format!(
                    "player {} has {} rounds of history, player {} has {k}",
                    p.number,
                    p.history.len(),
                    self.players[0].number
                )));
            }
        }
        for &(a, b) in &self.forbidden_pairs {
            for n in [a, b] {
                if !by_number.contains_key(&n) {
                    return Err(bad(format!(
                        "forbidden pair {a}-{b}: there is no player {n}"
                    )));
                }
            }
        }
        for p in &self.players {
            for (r, rec) in p.history.iter().enumerate() {
                if let RoundRecord::Played {
                    opponent,
                    colour,
                    half_points,
                } = *rec
                {
                    let ok = by_number.get(&opponent).is_some_and(|o| {
                        matches!(o.history[r], RoundRecord::Played { opponent: back, colour: c2, half_points: h2 }
                            if back == p.number && c2 != colour && h2 + half_points == 2)
                    });
                    if !ok || half_points > 2 {
                        return Err(bad(format!(
                            "round {}: the game of player {} against {opponent} contradicts the opponent's entry",
                            r + 1,
                            p.number
                        )));
                    }
                }
                if let RoundRecord::Forfeit { opponent, .. } = *rec
                    && (!by_number.contains_key(&opponent) || opponent == p.number)
                {
                    return Err(bad(format!(
                        "round {}: player {} forfeited against unknown player {opponent}",
                        r + 1,
                        p.number
                    )));
                }
            }
        }
        Ok(())
    }
}

/// The forbidden pairs of a TRF for round `round`, read as bbpPairings reads them: an `XXP`
/// line lists pairing numbers (separated by blanks) none of whom may meet another of them
/// in any round; a `260` line (TRF-2026) gives the first round in columns 5-7, the last in
/// columns 9-11, then pairing numbers in 4-column fields from column 13, one blank apart,
/// and forbids the pairs in those rounds only.
fn forbidden_from_trf(
    trf: &Trf,
    round: u32,
    numbers: &HashSet<u32>,
) -> Result<Vec<(u32, u32)>, PairingError> {
    let bad = |m: String| PairingError::InvalidInput(m);
    let number = |tag: &str, word: &str| -> Result<u32, PairingError> {
        let n: u32 = word.trim().parse().map_err(|_| {
            bad(format!(
                "{tag} line: {:?} is not a pairing number",
                word.trim()
            ))
        })?;
        if numbers.contains(&n) {
            Ok(n)
        } else {
            Err(bad(format!("{tag} line: there is no player {n}")))
        }
    };
    let mut out = Vec::new();
    for h in &trf.headers {
        let group: Vec<u32> = match h.tag.as_str() {
            "XXP" => h
                .text
                .split_whitespace()
                .map(|w| number("XXP", w))
                .collect::<Result<_, _>>()?,
            "260" => {
                // `text` starts at column 5.
                let chars: Vec<char> = h.text.chars().collect();
                let field = |from: usize, to: usize| -> String {
                    chars[from.min(chars.len())..to.min(chars.len())]
                        .iter()
                        .collect()
                };
                if chars.len() < 8 {
                    return Err(bad(format!("260 line too short: {:?}", h.text)));
                }
                let round_at = |from: usize, to: usize| -> Result<u32, PairingError> {
                    let t = field(from, to);
                    t.trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|&r| r > 0)
                        .ok_or_else(|| {
                            bad(format!(
                                "260 line: round {:?} is not a round number",
                                t.trim()
                            ))
                        })
                };
                let (first, last) = (round_at(0, 3)?, round_at(4, 7)?);
                let group = field(8, chars.len())
                    .split_whitespace()
                    .map(|w| number("260", w))
                    .collect::<Result<Vec<_>, _>>()?;
                if round < first || round > last {
                    continue;
                }
                group
            }
            _ => continue,
        };
        for (i, &a) in group.iter().enumerate() {
            for &b in &group[i + 1..] {
                if a != b {
                    out.push((a, b));
                }
            }
        }
    }
    Ok(out)
}

fn record_from_entry(
    number: u32,
    round: u32,
    e: crate::trf::TrfRoundEntry,
    numbers: &HashSet<u32>,
) -> Result<RoundRecord, PairingError> {
    let bad = |m: String| PairingError::InvalidInput(m);
    Ok(match (e.opponent, e.result) {
        (Some(o), r) => {
            if !numbers.contains(&o) || o == number {
                return Err(bad(format!(
                    "player {number}, round {round}: opponent {o} is not a player of this file"
                )));
            }
            match r {
                ResultCode::ForfeitWin => RoundRecord::Forfeit {
                    opponent: o,
                    won: true,
                },
                ResultCode::ForfeitLoss => RoundRecord::Forfeit {
                    opponent: o,
                    won: false,
                },
                ResultCode::Pending => {
                    return Err(bad(format!(
                        "player {number}, round {round}: the game against {o} has no result \
                         yet (a round is paired once every result of the rounds before it is in)"
                    )));
                }
                r if r.is_played_game() => RoundRecord::Played {
                    opponent: o,
                    colour: e.colour.ok_or_else(|| {
                        bad(format!(
                            "player {number}, round {round}: a played game needs a colour"
                        ))
                    })?,
                    half_points: r.half_points(),
                },
                r => {
                    return Err(bad(format!(
                        "player {number}, round {round}: result {} cannot have an opponent",
                        r.to_char()
                    )));
                }
            }
        }
        (None, ResultCode::PairingBye | ResultCode::ForfeitWin) => RoundRecord::PairingBye,
        (None, ResultCode::FullBye) => RoundRecord::FullBye,
        (None, ResultCode::HalfBye) => RoundRecord::HalfBye,
        (None, ResultCode::ZeroBye | ResultCode::ForfeitLoss) => RoundRecord::ZeroBye,
        (None, r) => {
            return Err(bad(format!(
                "player {number}, round {round}: result {} needs an opponent",
                r.to_char()
            )));
        }
    })
}

/// bbpPairings' inference of the initial colour (TRF-2026 tag 152: by default the colour
/// of the highest-ranked player paired in the first round): in the first round in which
/// anybody has a colour, take the first player (by pairing number) among those paired by
/// then who has a colour; their colour is the initial colour if they are first, second,
/// ... with an even 0-based index among the paired players, else the opposite.
fn infer_initial_colour(trf: &Trf) -> Option<Colour> {
    let first = trf
        .players
        .iter()
        .flat_map(|p| {
            p.rounds
                .iter()
                .enumerate()
                .filter(|(_, e)| e.is_some_and(|e| e.colour.is_some()))
                .map(|(i, _)| i)
        })
        .min()?;
    let mut sorted: Vec<_> = trf.players.iter().collect();
    sorted.sort_by_key(|p| p.number);
    // Effective pairing numbers counted among the players paired by then.
    let mut index = 0u32;
    for p in sorted {
        let participated = p.rounds.iter().take(first + 1).any(|e| {
            e.is_some_and(|e| {
                e.opponent.is_some()
                    || matches!(e.result, ResultCode::PairingBye | ResultCode::ForfeitWin)
            })
        });
        if participated {
            let colour = p
                .rounds
                .get(first)
                .copied()
                .flatten()
                .and_then(|e| e.colour);
            if let Some(c) = colour {
                return Some(if index & 1 == 1 { c.opposite() } else { c });
            }
            index += 1;
        }
    }
    None
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Float {
    Down,
    Up,
    None,
}

/// What the engine needs to know about one player to be paired.
#[derive(Debug, Clone)]
struct Entrant {
    number: u32,
    /// Effective pairing number, 0-based.
    rank: u32,
    /// Score in half points.
    score: u32,
    pref: Option<Colour>,
    imbalance: u32,
    repeated: Option<Colour>,
    strong: bool,
    eligible_bye: bool,
    played_games: u32,
    float1: Float,
    float2: Float,
    /// Opponents of games actually played.
    met: HashSet<u32>,
    /// Colours of played games, oldest first.
    colours: Vec<Colour>,
}

impl Entrant {
    fn absolute_imbalance(&self) -> bool {
        self.imbalance > 1
    }

    fn absolute(&self) -> bool {
        self.absolute_imbalance() || self.repeated.is_some()
    }
}

struct Context {
    /// Players to pair, by score (descending) then effective pairing number.
    players: Vec<Entrant>,
    played_rounds: u32,
    total_rounds: u32,
    initial_colour: Colour,
    score_shift: HashMap<u32, u32>,
    groups_shift: u32,
    group_size_bits: u32,
    /// Zero bits added below every edge weight: the room the wide type has beyond what
    /// the weights need (set by `pair`), used for the S1 players' addends.
    extra_low_bits: u32,
}

fn bits_to_represent(x: u64) -> u32 {
    64 - x.leading_zeros()
}

fn prepare(input: &DutchInput) -> Result<Context, PairingError> {
    input.validate()?;
    let k = input.players.first().map_or(0, |p| p.history.len()) as u32;
    if input.total_rounds == 0 || k >= input.total_rounds {
        return Err(PairingError::TournamentOver {
            round: k + 1,
            total: input.total_rounds,
        });
    }
    let mut by_number: Vec<&DutchPlayer> = input.players.iter().collect();
    by_number.sort_by_key(|p| p.number);
    let index_of: HashMap<u32, usize> = by_number
        .iter()
        .enumerate()
        .map(|(i, p)| (p.number, i))
        .collect();
    let prefix = score_prefixes(&by_number);
    let mut players = Vec::new();
    let mut rank = 0u32;
    for (i, p) in by_number.iter().enumerate() {
        let participated = p.history.iter().any(|r| {
            matches!(
                r,
                RoundRecord::Played { .. } | RoundRecord::Forfeit { .. } | RoundRecord::PairingBye
            )
        });
        if p.absent && !participated {
            continue; // not valid: no effective pairing number
        }
        let my_rank = rank;
        rank += 1;
        if p.absent {
            continue;
        }
        // The float `back` rounds before the one to pair (1: the last round).
        let float = |back: u32| -> Float {
            if back > k {
                return Float::None;
            }
            let r = (k - back) as usize;
            match p.history[r] {
                RoundRecord::Played { opponent, .. } => {
                    let mine = prefix[i][r];
                    let theirs = prefix[index_of[&opponent]][r];
                    match mine.cmp(&theirs) {
                        std::cmp::Ordering::Greater => Float::Down,
                        std::cmp::Ordering::Less => Float::Up,
                        std::cmp::Ordering::Equal => Float::None,
                    }
                }
                other => {
                    if other.half_points() > 0 {
                        Float::Down
                    } else {
                        Float::None
                    }
                }
            }
        };
        players.push(entrant(
            p,
            my_rank,
            prefix[i][k as usize],
            [float(1), float(2)],
        ));
    }
    // Forbidden pairs count as games already played, for compatibility only (C1), as in
    // bbpPairings (`resolveForbiddenPairs`, merged into the played opponents).
    if !input.forbidden_pairs.is_empty() {
        let at: HashMap<u32, usize> = players
            .iter()
            .enumerate()
            .map(|(i, e)| (e.number, i))
            .collect();
        for &(a, b) in &input.forbidden_pairs {
            if let (Some(&i), Some(&j)) = (at.get(&a), at.get(&b)) {
                players[i].met.insert(b);
                players[j].met.insert(a);
            }
        }
    }
    players.sort_by(|a, b| b.score.cmp(&a.score).then(a.rank.cmp(&b.rank)));
    let (score_shift, groups_shift, max_group) = score_group_bits(&players);
    Ok(Context {
        players,
        played_rounds: k,
        total_rounds: input.total_rounds,
        initial_colour: input.initial_colour,
        score_shift,
        groups_shift,
        group_size_bits: bits_to_represent(max_group),
        extra_low_bits: 0,
    })
}

/// Each player's score before each round: `prefix[i][r]` for player `i` (by number) and
/// round `r` (0-based; `prefix[i][0]` is 0).
fn score_prefixes(by_number: &[&DutchPlayer]) -> Vec<Vec<u32>> {
    by_number
        .iter()
        .map(|p| {
            let mut acc = 0;
            let mut v = vec![0];
            for r in &p.history {
                acc += r.half_points();
                v.push(acc);
            }
            v
        })
        .collect()
}

/// One player as the engine sees them: colour history and preference (C.04.3 A.6), PAB
/// eligibility, games played, opponents met, and the floats of the last two rounds.
fn entrant(p: &DutchPlayer, rank: u32, score: u32, [float1, float2]: [Float; 2]) -> Entrant {
    let mut colours = Vec::new();
    let mut met = HashSet::new();
    for r in &p.history {
        if let RoundRecord::Played {
            opponent, colour, ..
        } = *r
        {
            colours.push(colour);
            met.insert(opponent);
        }
    }
    let whites = colours.iter().filter(|&&c| c == Colour::White).count() as u32;
    let blacks = colours.len() as u32 - whites;
    let mut consecutive = 0;
    let mut last: Option<Colour> = None;
    for &c in &colours {
        if last == Some(c) {
            consecutive += 1;
        } else {
            consecutive = 1;
        }
        last = Some(c);
    }
    let lower = if whites > blacks {
        Colour::Black
    } else {
        Colour::White
    };
    let imbalance = whites.abs_diff(blacks);
    // C.04.3 A.6: absolute (imbalance > 1 or the same colour twice in a row), strong
    // (imbalance 1), mild (alternate from the last game).
    let pref = if imbalance > 1 {
        Some(lower)
    } else if consecutive > 1 {
        last.map(Colour::opposite)
    } else if imbalance > 0 {
        Some(lower)
    } else {
        last.map(Colour::opposite)
    };
    let repeated = if consecutive > 1 { last } else { None };
    let strong = !(imbalance > 1 || repeated.is_some()) && imbalance > 0;
    let eligible_bye = !p.history.iter().any(|r| {
        matches!(
            r,
            RoundRecord::PairingBye | RoundRecord::FullBye | RoundRecord::Forfeit { won: true, .. }
        )
    });
    Entrant {
        number: p.number,
        rank,
        score,
        pref,
        imbalance,
        repeated,
        strong,
        eligible_bye,
        played_games: colours.len() as u32,
        float1,
        float2,
        met,
        colours,
    }
}

/// Bits for each score group, the lowest group in the lowest bits: the shift of each
/// score's field, the total width, and the size of the largest group. `players` are in
/// pairing order (score descending).
fn score_group_bits(players: &[Entrant]) -> (HashMap<u32, u32>, u32, u64) {
    let mut score_shift = HashMap::new();
    let mut groups_shift = 0u32;
    let mut max_group = 0u64;
    let mut i = players.len();
    while i > 0 {
        let score = players[i - 1].score;
        let mut j = i;
        while j > 0 && players[j - 1].score == score {
            j -= 1;
        }
        let count = (i - j) as u64;
        score_shift.insert(score, groups_shift);
        groups_shift += bits_to_represent(count);
        max_group = max_group.max(count);
        i = j;
    }
    (score_shift, groups_shift, max_group)
}

impl Context {
    /// C1 and C3: may these two meet at all?
    fn compatible(&self, a: &Entrant, b: &Entrant) -> bool {
        if a.met.contains(&b.number) {
            return false;
        }
        let threshold = self.played_rounds; // half of the maximum, in half points
        !a.absolute()
            || !b.absolute()
            || a.pref != b.pref
            || (self.played_rounds + 1 >= self.total_rounds
                && (a.score > threshold || b.score > threshold))
    }

    /// Width of the edge weights, in bits (bbpPairings' maximum edge weight).
    fn weight_bits(&self) -> u32 {
        let (sb, gs) = (self.group_size_bits, self.groups_shift);
        let mut s = sb + gs + sb + gs + 2 * sb + 4 * sb + 3 * sb + 1;
        if self.played_rounds >= 1 {
            s += 2 * sb + 2 * gs;
        }
        if self.played_rounds > 1 {
            s += 2 * sb + 2 * gs;
        }
        s + 2
    }
}

/// Parameters of the weight computation that change as the brackets are paired.
struct WeightParams<'a> {
    bye_score: u32,
    single_downfloater_is_bye: bool,
    unplayed_ranks: &'a HashMap<u32, u64>,
}

/// A weight built the way the criteria read, highest field first ("shift left, add"), but
/// placed only at the end: the additions are recorded with the shift in force, and each
/// lands at its final bit once, instead of shifting the whole wide value for every field
/// (the same value, modulo `2^(64 N)`).
struct Packer {
    /// (value, shift in force when added, bit offset): `edge_weight` makes at most 23
    /// additions, so 32 slots are enough.
    terms: [(u64, u32, u32); 32],
    len: usize,
    shifted: u32,
}

impl Packer {
    fn new(v: u64) -> Self {
        let mut p = Packer {
            terms: [(0, 0, 0); 32],
            len: 0,
            shifted: 0,
        };
        p.add_small(v);
        p
    }

    fn shl(&mut self, bits: u32) {
        self.shifted += bits;
    }

    fn add_small(&mut self, v: u64) {
        if v != 0 {
            self.terms[self.len] = (v, self.shifted, 0);
            self.len += 1;
        }
    }

    fn add_bit(&mut self, bit: u32) {
        self.terms[self.len] = (1, self.shifted, bit);
        self.len += 1;
    }

    fn finish<const N: usize>(&self) -> Wide<N> {
        let mut r = Wide::ZERO;
        for &(v, at, bit) in &self.terms[..self.len] {
            r.add_shifted(v, self.shifted - at + bit);
        }
        r
    }
}

fn edge_weight<const N: usize>(
    ctx: &Context,
    hi: &Entrant,
    lo: &Entrant,
    lower_in_current: bool,
    lower_in_next: bool,
    wp: &WeightParams<'_>,
) -> Wide<N> {
    if !ctx.compatible(hi, lo) {
        return Wide::ZERO;
    }
    edge_weight_any(ctx, hi, lo, lower_in_current, lower_in_next, wp)
}

/// [`edge_weight`] without the compatibility check.
fn edge_weight_any<const N: usize>(
    ctx: &Context,
    hi: &Entrant,
    lo: &Entrant,
    lower_in_current: bool,
    lower_in_next: bool,
    wp: &WeightParams<'_>,
) -> Wide<N> {
    let sb = ctx.group_size_bits;
    let gs = ctx.groups_shift;
    let shift = |s: u32| ctx.score_shift[&s];
    let candidate = |p: &Entrant| p.eligible_bye && p.score <= wp.bye_score;
    // C4 completion and C2 PAB eligibility.
    let mut r = Packer::new(1 + u64::from(!candidate(hi)) + u64::from(!candidate(lo)));
    // C6: maximise the pairs in the current bracket, then (C7) the scores paired.
    r.shl(sb);
    if lower_in_current {
        r.add_small(1);
    }
    r.shl(gs);
    if lower_in_current {
        r.add_bit(shift(hi.score));
    }
    // The same for the next bracket (C.04.3 C8: look ahead).
    r.shl(sb);
    if lower_in_next {
        r.add_small(1);
    }
    r.shl(gs);
    if lower_in_next {
        r.add_bit(shift(hi.score));
    }
    // C9: the PAB assignee should have played as many games as possible.
    r.shl(sb);
    r.shl(sb);
    if wp.single_downfloater_is_bye {
        if hi.score == wp.bye_score {
            r.add_small(wp.unplayed_ranks[&hi.played_games]);
        }
        if lo.score == wp.bye_score {
            r.add_small(wp.unplayed_ranks[&lo.played_games]);
        }
    }
    // C10-C13: colour preferences (player = lower, opponent = higher).
    let (p, o) = (lo, hi);
    let mask = lower_in_current;
    let c10 = !p.absolute_imbalance() || !o.absolute_imbalance() || p.pref != o.pref;
    let c11 = !p.absolute()
        || !o.absolute()
        || p.pref != o.pref
        || if p.imbalance == o.imbalance {
            p.repeated.is_none() || p.repeated != o.repeated
        } else {
            let smaller = if p.imbalance > o.imbalance { o } else { p };
            smaller.repeated != p.pref.map(Colour::opposite)
        };
    let c12 = p.pref.is_none() || o.pref.is_none() || p.pref != o.pref;
    let c13 = (!p.strong && !p.absolute())
        || (!o.strong && !o.absolute())
        || (p.absolute() && o.absolute())
        || p.pref != o.pref;
    for c in [c10, c11, c12, c13] {
        r.shl(sb);
        if mask && c {
            r.add_small(1);
        }
    }
    let floats = |back: u32, e: &Entrant| if back == 1 { e.float1 } else { e.float2 };
    // C14-C17: repeated floats one and two rounds back.
    for back in [1u32, 2] {
        if (back == 1 && ctx.played_rounds >= 1) || (back == 2 && ctx.played_rounds > 1) {
            r.shl(sb);
            if lower_in_current {
                if floats(back, lo) == Float::Down {
                    r.add_small(1);
                }
                if hi.score <= lo.score && floats(back, hi) == Float::Down {
                    r.add_small(1);
                }
            }
            r.shl(sb);
            if lower_in_current && !(hi.score > lo.score && floats(back, lo) == Float::Up) {
                r.add_small(1);
            }
        }
    }
    // C18-C21: scores of repeated floaters.
    for back in [1u32, 2] {
        if (back == 1 && ctx.played_rounds >= 1) || (back == 2 && ctx.played_rounds > 1) {
            r.shl(gs);
            if lower_in_current {
                if floats(back, lo) == Float::Down {
                    r.add_bit(shift(lo.score));
                }
                if floats(back, hi) == Float::Down {
                    r.add_bit(shift(hi.score));
                }
            }
            r.shl(gs);
            if lower_in_current && !(floats(back, lo) == Float::Up && hi.score > lo.score) {
                r.add_bit(shift(hi.score));
            }
        }
    }
    // Room for the transposition and exchange order (B.3-B.5).
    r.shl(sb);
    r.shl(sb);
    r.shl(sb);
    r.shl(1);
    r.shl(ctx.extra_low_bits);
    r.finish()
}

/// Pair the next round by the Dutch system.
///
/// # Errors
/// [`PairingError`] if the input is inconsistent or no legal pairing exists.
pub fn pair(input: &DutchInput) -> Result<Pairing, PairingError> {
    pair_with(input, true)
}

/// Round 1 when nobody has history and no pair is forbidden: one score group of players
/// with no colour preference, no float and no opponent met. Every pairing of it meets the
/// absolute criteria, so the engine's result is the one the criteria and B.1-B.5 give
/// directly: with an odd number, the lowest-ranked player gets the PAB (C.04.3 C5-C9:
/// the PAB to the lowest-ranked player of the lowest group), then S1 (the top half)
/// meets S2 (the bottom half) in order without transposition or exchange (B.2). Colours
/// and board order come from the same `build_pairing` as every other round. Checked
/// against the full engine for every field of 1 to 160 players and larger ones, with
/// absent players and both initial colours (`first_round_is_the_engines` below), and at
/// 1,000 players against bbpPairings (BENCHMARKS.md).
fn first_round(ctx: &Context) -> Option<RawPairing> {
    let pl = &ctx.players;
    if ctx.played_rounds != 0 || pl.iter().any(|p| !p.met.is_empty() || p.score != 0) {
        return None;
    }
    let n = pl.len();
    let bye = (n % 2 == 1).then_some(n - 1);
    let half = n / 2;
    let pairs = (0..half).map(|i| (i, i + half)).collect();
    Some((pairs, bye))
}

/// `pair`, with the round-1 shortcut (`first_round`) or always through the engine.
fn pair_with(input: &DutchInput, shortcut: bool) -> Result<Pairing, PairingError> {
    let mut ctx = prepare(input)?;
    if ctx.players.is_empty() {
        return Ok(Pairing::default());
    }
    if shortcut && let Some((pairs, bye)) = first_round(&ctx) {
        return Ok(build_pairing(&ctx, &pairs, bye));
    }
    let bits = ctx.weight_bits() + 8;
    // The width of the wide integers, in words, and the engine at that width. The bits
    // the width has beyond what the weights need go below them, as room for the S1
    // players' addends (`run`).
    type Engine = fn(&Context) -> Result<RawPairing, PairingError>;
    let (words, engine): (u32, Engine) = match bits.div_ceil(64) {
        0..=2 => (2, run::<2>),
        3 => (3, run::<3>),
        4 => (4, run::<4>),
        5..=6 => (6, run::<6>),
        7..=8 => (8, run::<8>),
        9..=10 => (10, run::<10>),
        11..=12 => (12, run::<12>),
        13..=16 => (16, run::<16>),
        17..=24 => (24, run::<24>),
        25..=32 => (32, run::<32>),
        _ => return Err(PairingError::TooLarge(bits)),
    };
    ctx.extra_low_bits = words * 64 - bits;
    let (pairs, bye) = engine(&ctx)?;
    Ok(build_pairing(&ctx, &pairs, bye))
}

/// Vertex pairs (indices into `ctx.players`) and the bye.
type RawPairing = (Vec<(usize, usize)>, Option<usize>);

/// The pairing procedure: one incremental matcher, many small weight changes.
///
/// # Why the result does not depend on which optimum the matcher lands on
///
/// Where several matchings have the same maximum weight, the matcher may return any of
/// them (its repair keeps the blossoms that do not contain a changed vertex, so it does not
/// land where a from-scratch solve, or bbpPairings, would). The engine's output is still
/// the same because every read of the matching (`stable`) is one of the following, and
/// each is a function of optimum *values* only (interpretation, written down here and
/// checked on the 80 conformance cases and on generated events; not a machine proof):
///
/// 1. `stable` is always a maximum-weight matching for the weights in force when it is
///    read: each time weights change without a solve, the change leaves the weight of
///    `stable` unchanged while lowering others (edges zeroed that `stable` does not use),
///    or raises `stable`'s weight by exactly the amount by which the optimum can rise
///    (a perturbation undone on the edges `stable` uses).
/// 2. Counts that are fields of the weight: the number of exposed vertices and the
///    score of the PAB candidate after the completion solve (C4, C7 score sums), whether
///    the top scorers are all paired among themselves (the low completion bit), the number
///    of moved-down players paired in the bracket per score (C6/C7), the number of pairs
///    inside the remainder and the number of exchanges (fewest exchanges, B.3). Every
///    optimum has the same value of each field, because the fields occupy disjoint bit
///    ranges of the weight and are maximised in priority order.
/// 3. "Does some optimum have property P?" (a moved-down player paired in the bracket, a
///    resident staying in S1 or entering it, B.5 / B.3): the engine reads P on `stable`
///    and, when P is false there, adds ±1 in the free low bits on the edges that make P
///    true (or false) and solves again. Base weights end with `3 sb + 1 + e` zero bits
///    (`e` = `extra_low_bits`, the spare width of the wide type) and
///    exchange weights are shifted left once, so optima of different base value differ by
///    at least 2 and a ±1 perturbation only breaks ties: the answer is the same for every
///    optimum reached.
/// 4. The partner chosen for a moved-down player or an S1 player (C.04.3 B.5 / B.2: the
///    highest possible S2 opponent): the candidate edges are raised by pairwise distinct
///    addends in the free low bits, so exactly one partner gives the maximum, and that pair
///    is then finalised (taken out of the graph); the final pairs are read only from
///    these finalised choices. S1 players are settled `(3 sb + e) / sb` at a time: the
///    i-th player of a batch has its addends (each below `2^sb`, as there are fewer
///    candidates than players in a score group) multiplied by `2^(sb (k - 1 - i))`, so
///    that any gain for an earlier player outweighs every later player's addends
///    together. The batch's maximum is then the lexicographic one, which is exactly the
///    sequence of choices made one player at a time, each with the earlier ones
///    finalised. The addends of a batch stay below `2^(3 sb + e)`, half the step between
///    base values, as a single player's did. Most S1 players are settled without a
///    solve, from the optimal duals of the last one (`Run::settle_s1_by_duals`): the
///    same choice, proved from complementary slackness there; the batch solve is the
///    fallback. Likewise "S1 tried in order" (`Run::s1_in_order_by_duals`).
///
/// Reads not fully covered by the argument above (they are the same reads bbpPairings
/// makes, and no generated event has shown a difference): the S1/S2 split read at "Fix S1
/// and S2" for positions the exchange loops did not visit (taken to be fixed by the
/// exchange count), and the "single downfloater is the PAB" flag recomputed from the
/// partners of carried players.
#[allow(clippy::too_many_lines)]
fn run<const N: usize>(ctx: &Context) -> Result<RawPairing, PairingError> {
    let n = ctx.players.len();
    let round = ctx.played_rounds + 1;
    let mut run = Run::<N>::new(ctx);
    run.complete(round)?;
    if n % 2 == 1 {
        run.weigh_for_the_bye();
    }
    let mut bracket = Bracket::first(&ctx.players);
    while bracket.players.len() > 1 || bracket.next < n {
        bracket.add_next_group(&ctx.players);
        let kept = run.take_kept(&bracket);
        let (matched, stable, start) = (run.matched.clone(), run.stable.clone(), bracket.clone());
        if run.pair_bracket(&mut bracket, &kept, true).is_none() {
            // A collapsed optimum whose floaters the lower part might not absorb (see
            // `Local`): the bracket again, with the lower players as vertices.
            run.matched = matched;
            run.stable = stable;
            bracket = start;
            let paired = run.pair_bracket(&mut bracket, &kept, false);
            debug_assert!(paired.is_some(), "a bracket without collapse always pairs");
        }
        bracket = run.carry_down(bracket);
    }
    run.finish(round)
}

/// No local vertex (`Local::local_of`).
const NONE_LOCAL: u32 = u32::MAX;

/// The matcher of one bracket: its players (moved down, residents, the next score group)
/// `P` and, below them, the players of the lower score groups (`lower`, `L`), either as
/// vertices or, when they can absorb the bracket's floaters ([`LowerDegrees`]),
/// collapsed: the bracket's players alone, each edge `x`-`y` weighing `w(x, y) - h(x) -
/// h(y)` (no edge when that is not positive), plus, for an odd field, one vertex `z`
/// joined to each bracket player `x` by `min_L h - h(x)` (when positive).
///
/// Why the collapse is exact. Every edge with an end in `L` still has the weight
/// `weigh_for_the_bye` (or `complete`, for an even field) gave it, a sum `h(x) + h(y)` of
/// one term per player (`Run::outside_half`), or 0 when the two are incompatible, and no
/// weight in `L` changes while the bracket is paired. A matching of the real graph splits
/// `P` into pairs inside the bracket (weight `W`), players `D` paired into `L` and
/// unpaired players `U`; its pairs with an end in `L` weigh `Σ h` over their ends, at most
/// `Σ_D h + Σ_L h - [|L| + |D| odd] min_L h`. Read a matching of the collapsed graph as
/// the same split, `D` its bracket players left unmatched and `U` the one matched with
/// `z`: it weighs `W - Σ_{P \ (D ∪ U)} h + [U = {x}] (min_L h - h(x))`, which is the bound
/// above minus the constant `Σ_P h + Σ_L h - [odd field] min_L h` (parity: `|L| + |D| +
/// |U|` has the parity of the field). A real matching with more players unpaired than
/// that (two or more, or one in an even field) is read with the others in `D`, which
/// only raises the reading (`h >= 0`). So no real matching weighs more than its reading
/// plus the constant, and a collapsed optimum whose `D` the lower part absorbs (a
/// matching of `L ∪ D`, no pair inside `D`, covering `D` and `L` but for one cheapest
/// lower player when `|L| + |D|` is odd) is the reading of a real matching that weighs
/// exactly that: a real optimum, with the same pairs inside the bracket and the same
/// players floating into the lower part. Every read of the engine (`run`) is a read of
/// those: a bracket player left unmatched is reported as paired with `rep`, the first
/// lower player (below the next score group, as every lower player is), one matched with
/// `z` as unpaired.
///
/// Which `D` occur: after every solve of a collapsed bracket, [`LowerDegrees::absorbs`]
/// checks the number of its players left unmatched; if the check fails, the bracket is
/// paired again from its start with the lower players as vertices (`run`,
/// [`Run::pair_bracket`]). So every optimum the engine reads is a real optimum. (The
/// collapse used to be justified by a condition on `D ∪ L` that allowed pairs inside `D`,
/// for every `D`: with pairs inside `D` counted, that does not show that `L` absorbs `D`.)
struct Local<const N: usize> {
    matcher: Matcher<N>,
    /// The global vertex of each local vertex that is a player (the bracket's players in
    /// bracket order, then the lower players when not collapsed).
    verts: Vec<usize>,
    /// The local vertex of each global one (`NONE_LOCAL`: not in this matcher).
    local_of: Vec<u32>,
    /// The lower player reported as partner of a bracket player paired into the lower part.
    rep: usize,
    /// The vertex `z` of a collapsed odd field.
    z: Option<usize>,
    /// Collapsed: `h` of each bracket player (by local vertex), subtracted from the
    /// weight of each of its edges. Empty when not collapsed.
    half: Vec<Wide<N>>,
    /// Collapsed: edges whose weight is nonzero but at most `h(x) + h(y)` (absent from
    /// the matcher), with their weight, for [`Local::weight`].
    clipped: HashMap<(u32, u32), Wide<N>>,
    /// Collapsed: what [`LowerDegrees::absorbs`] reads, checked after every solve.
    degrees: Option<LowerDegrees>,
}

impl<const N: usize> Local<N> {
    /// Set the weight of the edge between local vertices `i` and `j` (bracket players):
    /// collapsed, `w - h(i) - h(j)`, or no edge when that is not positive.
    fn set_weight(&mut self, i: usize, j: usize, w: Wide<N>) {
        if self.half.is_empty() {
            self.matcher.set_weight(i, j, w);
            return;
        }
        let key = (i.min(j) as u32, i.max(j) as u32);
        let h = self.half[i].add(&self.half[j]);
        if w > h {
            if !self.clipped.is_empty() {
                self.clipped.remove(&key);
            }
            self.matcher.set_weight(i, j, w.sub(&h));
        } else {
            if w.is_zero() {
                if !self.clipped.is_empty() {
                    self.clipped.remove(&key);
                }
            } else {
                self.clipped.insert(key, w);
            }
            self.matcher.set_weight(i, j, Wide::ZERO);
        }
    }

    /// The weight last given to the edge between local vertices `i` and `j` (bracket
    /// players), after [`Matcher::flush_weights`].
    fn weight(&self, i: usize, j: usize) -> Wide<N> {
        let w = self.matcher.weight(i, j);
        if self.half.is_empty() {
            return w;
        }
        if w.is_zero() {
            let key = (i.min(j) as u32, i.max(j) as u32);
            return self.clipped.get(&key).copied().unwrap_or(Wide::ZERO);
        }
        w.add(&self.half[i]).add(&self.half[j])
    }
}

/// The completion solve's outcome without solving (`Run::complete`), when the degrees
/// alone decide it: `Some(None)` for an even field that has a perfect matching, `Some(Some(x))`
/// for an odd field, `x` being a player the completion optimum can leave unpaired.
/// `None`: solve.
///
/// When [`LowerDegrees::absorbs`] holds for the whole field, every player can be left out and
/// the others paired. The completion weight of a pair is then a sum of one term per
/// player plus, in an odd field, 1 when both are top scorers: the optimum pairs everybody
/// but one player `x`, and `x` minimises its own term, `(not PAB-eligible, score field)`
/// in that order (the top scorers' bit sums to less than one unit of the score field,
/// `2^sb > ` the top group's size). So `x` is a PAB-eligible player of the lowest score
/// any eligible player has, and that score is all `weigh_for_the_bye` reads of the
/// completion, provided it is below the top score (otherwise it also reads the top
/// scorers' partners, and this declines). Without an eligible player it declines too.
fn completion_by_degrees(ctx: &Context) -> Option<Option<usize>> {
    let pl = &ctx.players;
    let n = pl.len();
    let all: Vec<usize> = (0..n).collect();
    if !LowerDegrees::new(ctx, &[], &all).absorbs(0) {
        return None;
    }
    if n.is_multiple_of(2) {
        return Some(None);
    }
    let x = (0..n).rev().find(|&v| pl[v].eligible_bye)?;
    (pl[x].score < pl[0].score).then_some(Some(x))
}

/// What [`LowerDegrees::absorbs`] reads: whether the `lower` players can absorb any set
/// `D` of at most `floaters` of the bracket's `players`: for every such `D`, the
/// compatible pairs of `lower ∪ D` with at least one end in `lower` (no pair inside `D`)
/// hold a matching that covers `D` and all of `lower`, but for one lower player, any one
/// chosen, when `|lower ∪ D|` is odd (see [`Local`]; with no players and no floaters:
/// `lower` minus any one player, if odd, has a perfect matching, as
/// [`completion_by_degrees`] needs).
///
/// Sufficient condition checked, by Dirac's theorem (a graph of `m >= 3` vertices of
/// degree at least `m / 2` each has a Hamiltonian cycle; its every other edge is a perfect
/// matching when `m` is even, and when `m` is odd the path left by taking out any one
/// vertex has one). Two players are incompatible only when they met (at most `r`
/// opponents each, forbidden pairs included) or both have the same absolute colour
/// preference (C.04.3 C1, C3; the last round's exception only adds edges). In the graph
/// `H` of the pairs above, on `m = |lower| + |D|` vertices, `A_c(S)` the players of `S`
/// with an absolute preference for colour `c` (and `m >= 3`, as `|lower| >= 4` is
/// required):
///
/// * a player of `D` misses the other `|D| - 1` of `D`, at most `r` opponents and, if
///   absolute for `c`, `A_c(lower)` players: degree at least `|lower| - r` (non-absolute)
///   or `|lower| - r - A_c(lower)`, and `2 deg >= m` when `|lower| >= 2 r + f` and, if some
///   bracket player is absolute for `c`, `|lower| >= 2 r + 2 A_c(lower) + f`, `f` =
///   `floaters >= |D|`;
/// * a lower player misses at most `r` opponents and, if absolute for `c`, the other
///   `A_c(lower) - 1` of `lower` and the `A_c(D)` of `D`: degree at least `m - 1 - r`, or
///   `m - r - A_c(lower) - A_c(D)`; `2 deg >= m` when `m >= 2 r + 2` (as `m >= |lower|`:
///   when `|lower| >= 2 r + 2`) and when `|lower| + |D| - 2 A_c(D) >= 2 r + 2 A_c(lower)`,
///   which holds when `|lower| >= 2 r + 2 A_c(lower) + t`, `t = min(f, A_c(players))`
///   bounding `A_c(D) <= |D|`.
#[derive(Clone, Copy)]
struct LowerDegrees {
    /// `|lower|`.
    m: usize,
    /// The most opponents met by one of the players or lower players.
    r: usize,
    /// Lower players and players with an absolute preference for white, for black.
    a_lower: [usize; 2],
    a_players: [usize; 2],
}

impl LowerDegrees {
    fn new(ctx: &Context, players: &[usize], lower: &[usize]) -> Self {
        let pl = &ctx.players;
        let r = players
            .iter()
            .chain(lower)
            .map(|&v| pl[v].met.len())
            .max()
            .unwrap_or(0);
        let count = |set: &[usize]| {
            let mut a = [0; 2];
            for &v in set {
                if pl[v].absolute() {
                    match pl[v].pref {
                        Some(Colour::White) => a[0] += 1,
                        Some(Colour::Black) => a[1] += 1,
                        None => {}
                    }
                }
            }
            a
        };
        LowerDegrees {
            m: lower.len(),
            r,
            a_lower: count(lower),
            a_players: count(players),
        }
    }

    /// Whether the lower part absorbs any `D` of at most `floaters` players (see above).
    fn absorbs(&self, floaters: usize) -> bool {
        let (m, r, f) = (self.m, self.r, floaters);
        m >= 4
            && m >= 2 * r + 2
            && m >= 2 * r + f
            && (0..2).all(|c| {
                let (a_lower, a_players) = (self.a_lower[c], self.a_players[c]);
                m >= 2 * r + 2 * a_lower + f.min(a_players)
                    && (a_players == 0 || m >= 2 * r + 2 * a_lower + f)
            })
    }
}

/// The state of one pairing run ([`run`]): the matcher, the matching last read from it,
/// and what has been settled so far.
struct Run<'c, const N: usize> {
    ctx: &'c Context,
    /// The completion's matcher over the whole field (`complete`), dropped after it.
    matcher: Matcher<N>,
    /// The current bracket's matcher (see [`Local`]).
    local: Option<Local<N>>,
    /// A collapsed optimum of the current bracket had floaters that the lower part is
    /// not known to absorb ([`Run::pair_bracket`]).
    collapse_failed: bool,
    /// `single_downfloater_is_bye` as the weights outside the brackets have it (the
    /// value after `weigh_for_the_bye`).
    outside_single: bool,
    /// The matching of the last solve (`stable[v] == v`: `v` unmatched).
    stable: Vec<usize>,
    /// The final partner of each player, once its bracket is done.
    partner: Vec<Option<usize>>,
    /// Players whose pairing in the current bracket is settled.
    matched: Vec<bool>,
    /// Score of the PAB candidate after the completion solve (C4, C7).
    bye_score: u32,
    /// Whether the single downfloater of the bracket is the PAB candidate.
    single_downfloater_is_bye: bool,
    /// Rank of each count of played games among the PAB-score players (C9).
    unplayed_ranks: HashMap<u32, u64>,
    /// An optimum `M'` of the bracket's matcher other than its own matching, where the
    /// two differ (by local vertex; `None`: exposed), when `prime` holds: found from the
    /// duals since the last solve (`Run::s1_in_order_by_duals`,
    /// `Run::settle_s1_by_duals`). `stable` reads `M'`.
    over: HashMap<usize, Option<usize>>,
    prime: bool,
}

/// The bracket being paired: the players moved down from above, the resident score
/// group, then the next score group (for the look-ahead of C8). Positions in `players`
/// are bracket positions; the values are vertices (indices into `ctx.players`).
#[derive(Clone)]
struct Bracket<const N: usize> {
    players: Vec<usize>,
    /// Moved-down players at the front of `players`.
    moved_down: usize,
    /// Position in `players` where the next score group starts.
    next_begin: usize,
    /// The first vertex of the resident score group, and the first vertex after it.
    group_begin_vertex: usize,
    next_begin_vertex: usize,
    /// The vertex of the first resident (the group being paired).
    group_start: usize,
    /// The first vertex not yet in any bracket.
    next: usize,
    /// Edge weights by bracket position, `base.get(larger, smaller)`.
    base: BaseWeights<N>,
}

/// A bracket's edge weights by bracket position, held as indices into a table of the
/// distinct weights (a bracket has few: a row shares most of its values), so the
/// triangle costs 4 bytes an edge instead of a wide weight's `8 N`.
#[derive(Clone)]
struct BaseWeights<const N: usize> {
    /// `rows[larger][smaller]`: index into `table`; 0 is the zero weight (no edge).
    rows: Vec<Vec<u32>>,
    table: Vec<Wide<N>>,
    index: HashMap<Wide<N>, u32, BuildHasherDefault<WordHasher>>,
    /// The weight interned last and its index.
    last: (Wide<N>, u32),
}

impl<const N: usize> BaseWeights<N> {
    fn new() -> Self {
        BaseWeights {
            rows: Vec::new(),
            table: vec![Wide::ZERO],
            index: HashMap::default(),
            last: (Wide::ZERO, 0),
        }
    }

    /// The index of `w` in `table`, adding it if new.
    fn intern(&mut self, w: Wide<N>) -> u32 {
        if w.is_zero() {
            return 0;
        }
        if self.last.0 == w {
            return self.last.1;
        }
        let id = match self.index.get(&w) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(self.table.len()).expect("fewer than 2^32 weights");
                self.table.push(w);
                self.index.insert(w, id);
                id
            }
        };
        self.last = (w, id);
        id
    }

    fn get(&self, larger: usize, smaller: usize) -> Wide<N> {
        self.table[self.rows[larger][smaller] as usize]
    }

    fn set(&mut self, larger: usize, smaller: usize, w: Wide<N>) {
        let id = self.intern(w);
        self.rows[larger][smaller] = id;
    }

    /// Whether the edge has no weight (is absent).
    fn is_zero(&self, larger: usize, smaller: usize) -> bool {
        self.rows[larger][smaller] == 0
    }
}

/// The residents not paired with moved-down players: bracket positions in order, and how
/// many pairs they form (the size of S1).
struct Remainder {
    positions: Vec<usize>,
    pairs: usize,
    /// S1 and S2 are already fixed as B.2 forms them (`Run::s1_in_order`).
    fixed: bool,
}

impl<const N: usize> Bracket<N> {
    /// The top score group, with nobody moved down yet.
    fn first(pl: &[Entrant]) -> Self {
        let top_score = pl[0].score;
        let next = pl.iter().take_while(|p| p.score >= top_score).count();
        Bracket {
            players: (0..next).collect(),
            moved_down: 0,
            next_begin: 0,
            group_begin_vertex: 0,
            next_begin_vertex: 0,
            group_start: 0,
            next,
            base: BaseWeights::new(),
        }
    }

    /// Append the next score group (the look-ahead), after the current players.
    fn add_next_group(&mut self, pl: &[Entrant]) {
        self.next_begin = self.players.len();
        self.next_begin_vertex = self.group_begin_vertex + (self.next_begin - self.moved_down);
        self.group_start = self.next;
        while self.next < pl.len() && pl[self.next].score >= pl[self.group_start].score {
            self.players.push(self.next);
            self.next += 1;
        }
    }

    /// Whether vertex `v` is a resident of the bracket being paired.
    fn in_current(&self, v: usize) -> bool {
        v >= self.group_begin_vertex && v < self.next_begin_vertex
    }

    /// Whether `v` is in S1: matched to a later vertex of the bracket.
    fn forward(&self, stable: &[usize], v: usize) -> bool {
        stable[v] > v && stable[v] < self.next_begin_vertex
    }

    /// The weight of a remainder edge with the exchange order added: fewest exchanges,
    /// then the smallest difference of exchanged numbers (B.3).
    fn exchange_weight(
        &self,
        sb: u32,
        smaller: usize,
        larger: usize,
        smaller_rem: usize,
        rem_pairs: usize,
    ) -> Wide<N> {
        let mut r = self.base.get(larger, smaller);
        if !r.is_zero() {
            let mut addend = Wide::<N>::from_u64(u64::from(smaller_rem < rem_pairs));
            addend.shl_assign(sb);
            addend.shl_assign(sb);
            addend.sub_small(smaller_rem as u64);
            addend.shl_assign(1);
            r.add_assign(&addend);
        }
        r
    }
}

impl<'c, const N: usize> Run<'c, N> {
    fn new(ctx: &'c Context) -> Self {
        let n = ctx.players.len();
        Run {
            ctx,
            matcher: Matcher::<N>::new(0),
            local: None,
            collapse_failed: false,
            outside_single: false,
            stable: Vec::new(),
            partner: vec![None; n],
            matched: vec![false; n],
            bye_score: 0,
            single_downfloater_is_bye: false,
            unplayed_ranks: HashMap::new(),
            over: HashMap::new(),
            prime: false,
        }
    }

    fn solve(&mut self) {
        let local = self
            .local
            .as_mut()
            .expect("a bracket's matcher is built before its first solve");
        local.matcher.solve();
        self.over.clear();
        self.prime = false;
        let m = local.matcher.matching();
        if let Some(degrees) = &local.degrees {
            let floaters = (0..local.verts.len()).filter(|&li| m[li] == li).count();
            if !degrees.absorbs(floaters) {
                self.collapse_failed = true;
            }
        }
        for (li, &g) in local.verts.iter().enumerate() {
            let p = m[li];
            self.stable[g] = if Some(p) == local.z {
                g
            } else if p == li {
                if local.half.is_empty() { g } else { local.rep }
            } else {
                local.verts[p]
            };
        }
    }

    /// Set an edge weight in the bracket's matcher (both ends are its vertices).
    fn set_w(&mut self, i: usize, j: usize, w: Wide<N>) {
        let local = self.local.as_mut().expect("a bracket's matcher");
        let (li, lj) = (local.local_of[i], local.local_of[j]);
        assert!(
            li != NONE_LOCAL && lj != NONE_LOCAL,
            "edge weights change only inside the bracket"
        );
        local.set_weight(li as usize, lj as usize, w);
    }

    fn finalize(&mut self, a: usize, b: usize) {
        let local = self.local.as_mut().expect("a bracket's matcher");
        let (la, lb) = (local.local_of[a], local.local_of[b]);
        assert!(
            la != NONE_LOCAL && lb != NONE_LOCAL,
            "pairs are settled inside the bracket"
        );
        local.matcher.finalize_pair(la as usize, lb as usize);
    }

    /// The weight every edge outside the brackets has: `edge_weight` with both flags
    /// false and the parameters of `weigh_for_the_bye`.
    fn outside_weight(&self, hi: usize, lo: usize) -> Wide<N> {
        let wp = WeightParams {
            bye_score: self.bye_score,
            single_downfloater_is_bye: self.outside_single,
            unplayed_ranks: &self.unplayed_ranks,
        };
        let pl = &self.ctx.players;
        edge_weight::<N>(self.ctx, &pl[hi], &pl[lo], false, false, &wp)
    }

    /// Half the outside weight of a vertex with itself, compatibility aside: the outside
    /// weight of `x`-`y` is `outside_half(x) + outside_half(y)` for compatible `x`, `y`
    /// (both its fields, C4 completion with PAB eligibility and C9, are sums of one term
    /// per player; `outside_weights_are_sums` checks it).
    fn outside_half(&self, x: usize) -> Wide<N> {
        let wp = WeightParams {
            bye_score: self.bye_score,
            single_downfloater_is_bye: self.outside_single,
            unplayed_ranks: &self.unplayed_ranks,
        };
        let p = &self.ctx.players[x];
        edge_weight_any::<N>(self.ctx, p, p, false, false, &wp).half()
    }

    /// Build the matcher of bracket `b` (before its weights are set): see [`Local`].
    fn build_local(
        &mut self,
        b: &Bracket<N>,
        degrees: Option<LowerDegrees>,
        kept: &[(usize, usize, Wide<N>)],
    ) {
        let ctx = self.ctx;
        let pl = &ctx.players;
        let n = pl.len();
        let collapse = degrees.is_some();
        self.local = None;
        let lower: Vec<usize> = (b.next..n).collect();
        let mut verts = b.players.clone();
        if !collapse {
            verts.extend_from_slice(&lower);
        }
        let real = verts.len();
        let odd = (b.players.len() + lower.len()) % 2 == 1;
        let size = real + usize::from(collapse && odd);
        let mut local_of = vec![NONE_LOCAL; n];
        for (li, &g) in verts.iter().enumerate() {
            local_of[g] = li as u32;
        }
        let half = if collapse {
            b.players.iter().map(|&g| self.outside_half(g)).collect()
        } else {
            Vec::new()
        };
        let mut local = Local {
            matcher: Matcher::<N>::new(size),
            verts,
            local_of,
            rep: if collapse { b.next } else { 0 },
            z: None,
            half,
            clipped: HashMap::new(),
            degrees,
        };
        for &(x, y, w) in kept {
            local.set_weight(x, y, w);
        }
        if collapse {
            if odd {
                let h = lower
                    .iter()
                    .map(|&l| self.outside_half(l))
                    .min()
                    .expect("a lower part");
                let zi = size - 1;
                for i in 0..b.players.len() {
                    if h > local.half[i] {
                        local.matcher.set_weight(i, zi, h.sub(&local.half[i]));
                    }
                }
                local.z = Some(zi);
            }
        } else {
            for li in b.players.len()..real {
                let g = local.verts[li];
                for lj in 0..li {
                    let h = local.verts[lj];
                    let (hi, lo) = if h < g { (h, g) } else { (g, h) };
                    local
                        .matcher
                        .set_weight(li, lj, self.outside_weight(hi, lo));
                }
            }
        }
        self.local = Some(local);
        self.over.clear();
        self.prime = false;
    }

    /// The weights of the pairs of moved-down players in the previous bracket's matcher
    /// (`x`, `y` bracket positions), which they keep in this bracket's; the previous
    /// matcher is dropped.
    fn take_kept(&mut self, b: &Bracket<N>) -> Vec<(usize, usize, Wide<N>)> {
        let mut kept = Vec::new();
        if let Some(mut old) = self.local.take() {
            old.matcher.flush_weights();
            for x in 0..b.moved_down {
                for y in 0..x {
                    let (gx, gy) = (b.players[x], b.players[y]);
                    let w = old.weight(old.local_of[gx] as usize, old.local_of[gy] as usize);
                    kept.push((x, y, w));
                }
            }
        }
        kept
    }

    fn weight_params(&self) -> WeightParams<'_> {
        WeightParams {
            bye_score: self.bye_score,
            single_downfloater_is_bye: self.single_downfloater_is_bye,
            unplayed_ranks: &self.unplayed_ranks,
        }
    }

    /// C1-C4: completion weights for the whole field; everybody but at most one
    /// PAB-eligible player must be paired.
    fn complete(&mut self, round: u32) -> Result<(), PairingError> {
        let ctx = self.ctx;
        let pl = &ctx.players;
        let n = pl.len();
        let sb = ctx.group_size_bits;
        let top_score = pl[0].score;
        let odd = n % 2 == 1;
        if let Some(exposed) = completion_by_degrees(ctx) {
            // Placeholder partners: only the exposed vertex is read (`weigh_for_the_bye`).
            self.stable = vec![exposed.unwrap_or(0); n];
            if let Some(x) = exposed {
                self.stable[x] = x;
            } else if n > 1 {
                self.stable[0] = 1;
            }
            return Ok(());
        }
        self.matcher = Matcher::new(n);
        let no_ranks = HashMap::new();
        let wp = WeightParams {
            bye_score: 0,
            single_downfloater_is_bye: false,
            unplayed_ranks: &no_ranks,
        };
        for i in 0..n {
            for j in 0..i {
                let w = if odd {
                    let mut w = Wide::<N>::ZERO;
                    if ctx.compatible(&pl[i], &pl[j]) {
                        w = Wide::from_u64(
                            1 + u64::from(!pl[i].eligible_bye) + u64::from(!pl[j].eligible_bye),
                        );
                        w.shl_assign(ctx.groups_shift);
                        w.add_small(u64::from(
                            ctx.score_shift[&pl[i].score] + ctx.score_shift[&pl[j].score],
                        ));
                        w.shl_assign(sb);
                        if pl[i].score >= top_score {
                            w.add_small(1);
                        }
                    }
                    w
                } else {
                    edge_weight::<N>(ctx, &pl[j], &pl[i], false, false, &wp)
                };
                self.matcher.set_weight(i, j, w);
            }
        }
        self.matcher.solve();
        self.stable = self.matcher.matching();
        if n.is_multiple_of(2) {
            // Even field: the weights of `complete` stay in force outside the brackets.
            self.matcher = Matcher::new(0);
        }
        let mut unmatched = 0;
        for (v, &u) in self.stable.iter().enumerate() {
            if u == v {
                unmatched += 1;
                if unmatched > 1 || !pl[v].eligible_bye {
                    return Err(PairingError::NoValidPairing(round));
                }
            }
        }
        Ok(())
    }

    /// Odd field: the PAB candidate's score, whether the top group's single downfloater is
    /// the PAB, the ranks of played-game counts (C9), and the full weights with them.
    fn weigh_for_the_bye(&mut self) {
        let ctx = self.ctx;
        let pl = &ctx.players;
        let n = pl.len();
        let top_score = pl[0].score;
        if let Some(v) = (0..n).find(|&v| self.stable[v] == v) {
            self.bye_score = pl[v].score;
        }
        if self.bye_score >= top_score {
            self.single_downfloater_is_bye = true;
            for v in 0..n {
                if pl[v].score < top_score {
                    break;
                }
                if pl[self.stable[v]].score < top_score {
                    self.single_downfloater_is_bye = false;
                    break;
                }
            }
        }
        let mut counts: Vec<u32> = pl
            .iter()
            .filter(|p| p.score == self.bye_score)
            .map(|p| p.played_games)
            .collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        for (r, c) in counts.into_iter().enumerate() {
            self.unplayed_ranks.insert(c, r as u64);
        }
        // The full weights with these parameters (`edge_weight` with both flags false)
        // are the weights of every edge outside the brackets from now on; the brackets'
        // matchers compute them from `outside_single` (see `Local`). The completion's
        // matcher is not solved again.
        self.outside_single = self.single_downfloater_is_bye;
        self.matcher = Matcher::new(0);
    }

    /// The bracket's edge weights (moved-down players, residents, the next group; pairs of
    /// moved-down players keep the weights `kept` from the previous bracket), then a
    /// solve. The lower players are collapsed when `allow_collapse` and the degrees allow
    /// it before the solve (`LowerDegrees::absorbs` with no floaters); every solve then
    /// checks its floaters.
    fn weigh_bracket(
        &mut self,
        b: &mut Bracket<N>,
        kept: &[(usize, usize, Wide<N>)],
        allow_collapse: bool,
    ) {
        let ctx = self.ctx;
        let pl = &ctx.players;
        let len = b.players.len();
        let wp = self.weight_params();
        let mut base = BaseWeights::<N>::new();
        base.rows = vec![Vec::new(); len];
        for larger in b.moved_down..len {
            let row: Vec<u32> = (0..larger)
                .map(|smaller| {
                    base.intern(edge_weight::<N>(
                        ctx,
                        &pl[b.players[smaller]],
                        &pl[b.players[larger]],
                        larger < b.next_begin,
                        larger >= b.next_begin,
                        &wp,
                    ))
                })
                .collect();
            base.rows[larger] = row;
        }
        let lower: Vec<usize> = (b.next..pl.len()).collect();
        let degrees = LowerDegrees::new(ctx, &b.players, &lower);
        let collapse = allow_collapse && degrees.absorbs(0);
        self.build_local(b, collapse.then_some(degrees), kept);
        for larger in 0..len {
            for smaller in 0..base.rows[larger].len() {
                self.set_w(
                    b.players[larger],
                    b.players[smaller],
                    base.get(larger, smaller),
                );
            }
        }
        self.solve();
        b.base = base;
    }

    /// Which moved-down players are paired in this bracket (C6, C7, B.5 order).
    fn pair_moved_down(&mut self, b: &Bracket<N>) {
        let pl = &self.ctx.players;
        let len = b.players.len();
        let mut md_score = 0u32;
        let mut md_remaining = 0usize;
        let mut md_remaining_matched = 0usize;
        for pi in 0..b.moved_down {
            let score = pl[b.players[pi]].score;
            if pi == 0 || score < md_score {
                md_score = score;
                md_remaining = 0;
                md_remaining_matched = 0;
                let mut q = pi;
                while q < len && pl[b.players[q]].score >= md_score {
                    md_remaining += 1;
                    if b.in_current(self.stable[b.players[q]]) {
                        md_remaining_matched += 1;
                    }
                    q += 1;
                }
            }
            if md_remaining_matched == 0 {
                continue;
            }
            let pv = b.players[pi];
            if md_remaining <= md_remaining_matched {
                self.matched[pv] = true;
                continue;
            }
            md_remaining -= 1;
            if !b.in_current(self.stable[pv]) {
                for oi in b.moved_down..b.next_begin {
                    let mut w = b.base.get(oi, pi);
                    if !w.is_zero() {
                        w.0[0] |= 1;
                        self.set_w(pv, b.players[oi], w);
                    }
                }
                self.solve();
            }
            if b.in_current(self.stable[pv]) {
                self.matched[pv] = true;
                md_remaining_matched -= 1;
                for oi in b.moved_down..b.next_begin {
                    let mut w = b.base.get(oi, pi);
                    if !w.is_zero() {
                        w.0[0] |= (b.next_begin - b.moved_down) as u64;
                        w.add_small(1);
                        self.set_w(pv, b.players[oi], w);
                    }
                }
            }
        }
    }

    /// The paired moved-down players' opponents: the highest possible resident first.
    fn choose_moved_down_opponents(&mut self, b: &Bracket<N>) {
        let len = b.players.len();
        for pi in 0..b.moved_down {
            let pv = b.players[pi];
            if !self.matched[pv] {
                continue;
            }
            let mut addend = len as u64;
            for oi in (b.moved_down..b.next_begin).rev() {
                let ov = b.players[oi];
                if self.matched[ov] {
                    continue;
                }
                let mut w = b.base.get(oi, pi);
                if !w.is_zero() {
                    w.add_small(addend);
                    self.set_w(pv, ov, w);
                    addend += 1;
                }
            }
            self.solve();
            let mv = self.stable[pv];
            self.matched[mv] = true;
            self.finalize(pv, mv);
        }
    }

    /// The remainder (residents not paired with moved-down players), weighted with the
    /// exchange order, then a solve.
    fn remainder(&mut self, b: &mut Bracket<N>) -> Remainder {
        let sb = self.ctx.group_size_bits;
        let mut positions: Vec<usize> = Vec::new();
        let mut pairs = 0usize;
        for pi in b.moved_down..b.next_begin {
            let pv = b.players[pi];
            if self.stable[pv] < b.group_begin_vertex {
                continue;
            }
            positions.push(pi);
            if self.stable[pv] < pv {
                pairs += 1;
            }
        }
        if self.s1_in_order_by_duals(b, &positions, pairs) || self.s1_in_order(b, &positions, pairs)
        {
            return Remainder {
                positions,
                pairs,
                fixed: true,
            };
        }
        for (oa, &oi) in positions.iter().enumerate() {
            let ov = b.players[oi];
            for (pr, &pi) in positions.iter().enumerate().take(oa) {
                self.set_w(b.players[pi], ov, b.exchange_weight(sb, pi, oi, pr, pairs));
            }
        }
        self.solve();
        Remainder {
            positions,
            pairs,
            fixed: false,
        }
    }

    /// The weight of the current optimum of the bracket's matcher.
    fn local_value(&self) -> Wide<N> {
        let local = self.local.as_ref().expect("a bracket's matcher");
        let m = local.matcher.matching();
        let mut v = Wide::ZERO;
        for (i, &j) in m.iter().enumerate() {
            if i < j {
                v.add_assign(&local.matcher.weight(i, j));
            }
        }
        v
    }

    /// [`Run::s1_in_order`] decided from the duals of the last solve, without a solve:
    /// true when an optimum `M'` pairs every one of the first `pairs` remainder positions
    /// (S1) with one of the others (S2). Then `M'` uses none of the edges `s1_in_order`
    /// drops, so it stays optimal with them dropped (dropping edges keeps the duals
    /// feasible, and `M'`'s edges tight), its weight has not fallen and S1 is paired
    /// forward: `s1_in_order` would return true (see there). The edges are dropped as
    /// there, applied to the matcher's weights without a repair (its own matching may use
    /// them; it is repaired at the next solve, `Matcher::apply_weights`), and `M'` is kept
    /// in `over` (`prime`) for `settle_s1_by_duals`. `M'` starts as the matcher's matching;
    /// each pair inside S1 is exchanged with a pair inside S2 (`x`-`y`, `u`-`v` to `x`-`u`,
    /// `y`-`v` or `x`-`v`, `y`-`u`) when the new pairs are tight and the blossoms stay full
    /// ([`Matcher::keeps_full`]), as in `settle_s1_by_duals`. False (nothing changed) when
    /// that does not reach such an `M'`, or weights changed since the last solve.
    fn s1_in_order_by_duals(
        &mut self,
        b: &mut Bracket<N>,
        positions: &[usize],
        pairs: usize,
    ) -> bool {
        let live_moved_down = (0..b.moved_down)
            .filter(|&pi| !self.matched[b.players[pi]])
            .count();
        let local = self.local.as_ref().expect("a bracket's matcher");
        let m = &local.matcher;
        if live_moved_down > 1 || m.has_pending_weights() || m.has_deferred() {
            return false;
        }
        let size = local.local_of.len().max(local.verts.len() + 1);
        let mut side = vec![0u8; size];
        let lv = |pi: usize| local.local_of[b.players[pi]] as usize;
        for (a, &pi) in positions.iter().enumerate() {
            side[lv(pi)] = if a < pairs { 1 } else { 2 };
        }
        let mut over: HashMap<usize, Option<usize>> = HashMap::new();
        let mate = |over: &HashMap<usize, Option<usize>>, v: usize| {
            over.get(&v).copied().unwrap_or_else(|| m.mate(v))
        };
        let side_of = |v: Option<usize>| v.map_or(0, |v| side.get(v).copied().unwrap_or(0));
        let s1: Vec<usize> = positions[..pairs].iter().map(|&pi| lv(pi)).collect();
        let s2: Vec<usize> = positions[pairs..].iter().map(|&pi| lv(pi)).collect();
        for &x in &s1 {
            let Some(y) = mate(&over, x) else {
                return false;
            };
            if side_of(Some(y)) == 2 {
                continue;
            }
            // `x`-`y` (`y` in S1 or outside the remainder) and `u`-`w` (`u` in S2, `w` not
            // in S1) become `x`-`u`, `y`-`w`: pairs inside S2 first, as that mends both.
            let mut found = None;
            'search: for want in [2u8, 0] {
                for &u in &s2 {
                    let Some(w) = mate(&over, u) else { continue };
                    if side_of(Some(w)) != want || w == x || w == y || u == y {
                        continue;
                    }
                    if m.is_tight_edge(x, u)
                        && m.is_tight_edge(y, w)
                        && m.keeps_full(&[(x, u), (y, w)], &[(x, y), (u, w)])
                    {
                        found = Some((u, w));
                        break 'search;
                    }
                }
            }
            let Some((u, w)) = found else {
                return false;
            };
            over.insert(x, Some(u));
            over.insert(u, Some(x));
            over.insert(y, Some(w));
            over.insert(w, Some(y));
        }
        for &u in &s2 {
            if side_of(mate(&over, u)) == 2 {
                return false;
            }
        }
        // Every S1 position now paired with an S2 position (a later resident): forward.
        debug_assert!(positions[..pairs].iter().all(|&pi| {
            let x = lv(pi);
            side_of(mate(&over, x)) == 2
        }));
        self.over = over;
        self.stable_from_over();
        for (a, &pi) in positions.iter().enumerate() {
            for (c, &oi) in positions.iter().enumerate().skip(a + 1) {
                if (a < pairs) == (c < pairs) && !b.base.is_zero(oi, pi) {
                    b.base.set(oi, pi, Wide::ZERO);
                    self.set_w(b.players[pi], b.players[oi], Wide::ZERO);
                }
            }
        }
        let local = self.local.as_mut().expect("a bracket's matcher");
        local.matcher.apply_weights();
        self.prime = true;
        true
    }

    /// Set `stable` to `M'` on the vertices where it differs from the matcher's matching
    /// (`over`), read as [`Run::solve`] reads a matching.
    fn stable_from_over(&mut self) {
        let local = self.local.as_ref().expect("a bracket's matcher");
        for (&l, &p) in &self.over {
            if Some(l) == local.z {
                continue;
            }
            let g = local.verts[l];
            self.stable[g] = match p {
                Some(p) if Some(p) == local.z => g,
                Some(p) => local.verts[p],
                None if local.half.is_empty() => g,
                None => local.rep,
            };
        }
    }

    /// Whether S1 can be the first `pairs` remainder positions (no exchange, B.3), tried
    /// directly: the remainder edges that `fix_s1_and_s2` would drop with that S1 (both
    /// ends in it, or both out of it) are dropped and the optimum solved again. If the
    /// base fields of its weight did not fall and every position of that S1 is paired
    /// forward, the exchange solve of `remainder` would have found no exchange and this S1
    /// (see below), so the edges stay dropped, `b.base` is as `fix_s1_and_s2` leaves it,
    /// and true is returned. Otherwise `b.base` is restored (the exchange weights then
    /// overwrite every remainder edge) and false is returned.
    ///
    /// Why. The new optimum weighs as much as the old one in every base field and uses no
    /// dropped edge, so it is a base optimum; its remainder pairs join the first `pairs`
    /// positions to the others. Every base optimum has the same number of remainder pairs
    /// (`run`, item 2; with at most one moved-down player left in the graph, no pair of two
    /// of them can stand in for one). The exchange weights add to a remainder pair an
    /// addend of its higher player's position `p` only (`2 (2^(2 sb) - p)` for `p <
    /// pairs`, `-2 p` otherwise), so among base optima with `pairs` remainder pairs the sum
    /// of addends is largest exactly when the higher players are the first `pairs`
    /// positions, which this optimum reaches: every exchange optimum has this S1, and
    /// reads no exchange. `fix_s1_and_s2` would then set every remainder edge to what it is
    /// now, and the optimum uses none of the edges it drops.
    fn s1_in_order(&mut self, b: &mut Bracket<N>, positions: &[usize], pairs: usize) -> bool {
        let live_moved_down = (0..b.moved_down)
            .filter(|&pi| !self.matched[b.players[pi]])
            .count();
        if live_moved_down > 1 {
            return false;
        }
        let before = self.local_value();
        let mut dropped = Vec::new();
        for (a, &pi) in positions.iter().enumerate() {
            for (c, &oi) in positions.iter().enumerate().skip(a + 1) {
                if (a < pairs) == (c < pairs) && !b.base.is_zero(oi, pi) {
                    dropped.push((pi, oi, b.base.get(oi, pi)));
                    b.base.set(oi, pi, Wide::ZERO);
                    self.set_w(b.players[pi], b.players[oi], Wide::ZERO);
                }
            }
        }
        self.solve();
        let after = self.local_value();
        let mut step = Wide::<N>::from_u64(1);
        step.shl_assign(3 * self.ctx.group_size_bits + self.ctx.extra_low_bits);
        // Weights set since the last solve (perturbations of moved-down players' edges)
        // are in `after` only; they stay below `step`, as the base fields step by twice
        // that.
        let diff = if after <= before {
            before.sub(&after)
        } else {
            after.sub(&before)
        };
        let kept_base = diff < step;
        if kept_base
            && positions[..pairs]
                .iter()
                .all(|&pi| b.forward(&self.stable, b.players[pi]))
        {
            return true;
        }
        for (pi, oi, w) in dropped {
            b.base.set(oi, pi, w);
        }
        false
    }

    /// How many S1 places the optimum exchanges (B.3: fewest exchanges).
    fn count_exchanges(&self, b: &Bracket<N>, rem: &Remainder) -> usize {
        rem.positions
            .iter()
            .take(rem.pairs)
            .filter(|&&pi| !b.forward(&self.stable, b.players[pi]))
            .count()
    }

    /// Exchanges: the lowest S1 players leave S1 first ...
    fn exchange_out_of_s1(&mut self, b: &mut Bracket<N>, rem: &Remainder, exchanges: usize) {
        let sb = self.ctx.group_size_bits;
        let mut remaining = exchanges;
        let mut pos = rem.pairs;
        while pos > 0 && remaining > 0 {
            pos -= 1;
            let pi = rem.positions[pos];
            let pv = b.players[pi];
            if b.forward(&self.stable, pv) {
                for &oi in &rem.positions[pos + 1..] {
                    let mut w = b.exchange_weight(sb, pi, oi, pos, rem.pairs);
                    if !w.is_zero() {
                        w.sub_small(1);
                        self.set_w(pv, b.players[oi], w);
                    }
                }
                self.solve();
            }
            let exchange = !b.forward(&self.stable, pv);
            if exchange {
                remaining -= 1;
            }
            for &oi in &rem.positions[pos + 1..] {
                if exchange {
                    b.base.set(oi, pi, Wide::ZERO);
                }
                self.set_w(
                    pv,
                    b.players[oi],
                    b.exchange_weight(sb, pi, oi, pos, rem.pairs),
                );
            }
        }
    }

    /// ... and the highest S2 players enter it.
    fn exchange_into_s1(&mut self, b: &mut Bracket<N>, rem: &Remainder, exchanges: usize) {
        let sb = self.ctx.group_size_bits;
        let len = b.players.len();
        let mut remaining = exchanges;
        let mut ri = rem.pairs;
        let mut pos = rem.pairs;
        while pos < rem.positions.len() && remaining > 1 {
            let pi = rem.positions[pos];
            let pv = b.players[pi];
            let already = b.forward(&self.stable, pv);
            if !already {
                for &oi in &rem.positions[pos + 1..] {
                    let mut w = b.exchange_weight(sb, pi, oi, ri, rem.pairs);
                    if !w.is_zero() {
                        w.add_small(1);
                        self.set_w(pv, b.players[oi], w);
                    }
                }
                self.solve();
            }
            if b.forward(&self.stable, pv) {
                remaining -= 1;
                for &oi in &rem.positions[..pos] {
                    b.base.set(pi, oi, Wide::ZERO);
                    self.set_w(pv, b.players[oi], Wide::ZERO);
                }
                for oi in b.next_begin..len {
                    b.base.set(oi, pi, Wide::ZERO);
                    self.set_w(pv, b.players[oi], Wide::ZERO);
                }
            }
            if !already {
                for &oi in &rem.positions[pos + 1..] {
                    self.set_w(
                        pv,
                        b.players[oi],
                        b.exchange_weight(sb, pi, oi, ri, rem.pairs),
                    );
                }
            }
            ri += 1;
            pos += 1;
        }
    }

    /// Fix S1 and S2: only S1 -> S2 edges remain.
    fn fix_s1_and_s2(&mut self, b: &mut Bracket<N>, rem: &Remainder) {
        for (a, &pi) in rem.positions.iter().enumerate() {
            let pv = b.players[pi];
            for &oi in &rem.positions[a + 1..] {
                let ov = b.players[oi];
                if !b.forward(&self.stable, pv) || b.forward(&self.stable, ov) {
                    b.base.set(oi, pi, Wide::ZERO);
                }
                self.set_w(pv, ov, b.base.get(oi, pi));
            }
        }
    }

    /// Settle S1 players (a prefix of `s1`, in order) without a solve, from the duals of
    /// the last solve; returns how many. See `run`, item 4: player `p` takes the highest
    /// candidate `c` (the first later unpaired remainder position with an edge) such that
    /// some optimum, with the players before it settled, pairs `p`-`c`. An edge that is
    /// not tight in the optimal duals is in no optimum (complementary slackness), so such
    /// candidates are passed over; the first tight one is `p`'s opponent if an optimum
    /// `M'` holding the pairs settled so far pairs `p`-`c`: `M'` starts as the matcher's
    /// matching, and when it pairs `p`-`a` and `c`-`b`, the swap to `p`-`c`, `a`-`b` is
    /// checked to keep the optimum ([`Matcher::swap_keeps_optimum`]). The players settled
    /// before `p` are paired in `M'`, so `M'` is an optimum extending them: the batch solve
    /// would give `p` the same opponent, provided that opponent has a positive addend
    /// (it is not the last candidate, which has addend 0, like any non-candidate). The
    /// optimum of the graph with the settled pairs removed is `M'` without them, so the
    /// same duals certify every later step. Stops (for a batch solve) at the first player
    /// for whom this fails, and at once when weights changed since the last solve.
    /// `stable` is set to `M'` on the vertices it changed (an optimum, as `run` item 1
    /// needs); the matcher repairs its own matching when the settled pairs are removed.
    fn settle_s1_by_duals(&mut self, b: &Bracket<N>, rem: &Remainder, s1: &[usize]) -> usize {
        let local = self.local.as_ref().expect("a bracket's matcher");
        let m = &local.matcher;
        if m.has_pending_weights() || (m.has_deferred() && !self.prime) {
            return 0;
        }
        // `M'` where it differs from the matcher's matching, by local vertex.
        let mut over = std::mem::take(&mut self.over);
        let mate = |over: &HashMap<usize, Option<usize>>, v: usize| {
            over.get(&v).copied().unwrap_or_else(|| m.mate(v))
        };
        let mut decided = Vec::new();
        let mut decided_local = std::collections::HashSet::new();
        for &pi in s1 {
            let pv = b.players[pi];
            let lp = local.local_of[pv] as usize;
            let open = |oi: usize| oi > pi && !self.matched[b.players[oi]];
            let last = rem.positions.iter().rev().copied().find(|&oi| open(oi));
            let chosen = rem.positions.iter().copied().find(|&oi| {
                open(oi)
                    && !b.base.is_zero(oi, pi)
                    && m.is_tight_full(lp, local.local_of[b.players[oi]] as usize)
            });
            let Some(oi) = chosen else { break };
            let cv = b.players[oi];
            let lc = local.local_of[cv] as usize;
            // A local vertex already paired: by an earlier bracket step or in this run.
            let settled = |l: usize| {
                l < local.verts.len() && self.matched[local.verts[l]] || decided_local.contains(&l)
            };
            if Some(oi) == last {
                // Addend 0, as for any other vertex: `c` only if no optimum (extending the
                // players settled) leaves `p` unpaired or pairs it outside the candidates.
                let only = m.dual_positive(lp)
                    && m.alive().iter().all(|&y| {
                        let y = y as usize;
                        y == lp || y == lc || settled(y) || !m.is_tight_edge(lp, y)
                    });
                if !only {
                    break;
                }
            }
            if m.weight(lp, lc).is_zero() {
                break;
            }
            // The batch would weigh `p`'s candidates as `b.base` plus addends: the
            // matcher holds exactly `b.base` on them (`fix_s1_and_s2` or the S1 try).
            debug_assert_eq!(local.weight(lp, lc), b.base.get(oi, pi));
            let partner = mate(&over, lp);
            if partner != Some(lc) {
                let (Some(la), Some(lb)) = (partner, mate(&over, lc)) else {
                    break;
                };
                let Some(pairs) = m.reroute([lp, la, lc, lb], |v| mate(&over, v), |l| !settled(l))
                else {
                    break;
                };
                over.insert(lp, Some(lc));
                over.insert(lc, Some(lp));
                for (x, y) in pairs {
                    over.insert(x, Some(y));
                    over.insert(y, Some(x));
                }
            }
            self.matched[pv] = true;
            self.matched[cv] = true;
            decided_local.insert(lp);
            decided_local.insert(lc);
            decided.push((pv, cv));
        }
        self.over = over;
        self.prime = true;
        self.stable_from_over();
        let settled = decided.len();
        for (pv, cv) in decided {
            self.finalize(pv, cv);
        }
        settled
    }

    /// S1 players in order take the highest S2 opponent that keeps the optimum. Several
    /// S1 players are settled by one solve: each one's addends (distinct, below 2^sb) sit
    /// `sb` bits above the next one's, so the solve maximises the first player's addend,
    /// then the second's, and so on, which is what solving for them one after the other
    /// gives (see [`run`], item 4).
    fn settle_s1(&mut self, b: &Bracket<N>, rem: &Remainder) {
        let sb = self.ctx.group_size_bits;
        let s1: Vec<usize> = rem
            .positions
            .iter()
            .copied()
            .filter(|&pi| b.forward(&self.stable, b.players[pi]))
            .collect();
        let s1_batch = ((3 * sb + self.ctx.extra_low_bits) / sb.max(1)) as usize;
        let mut next = 0;
        while next < s1.len() {
            next += self.settle_s1_by_duals(b, rem, &s1[next..]);
            if next == s1.len() {
                break;
            }
            let chunk = &s1[next..(next + s1_batch).min(s1.len())];
            next += chunk.len();
            for (j, &pi) in chunk.iter().enumerate() {
                let pv = b.players[pi];
                let shift = sb * (chunk.len() - 1 - j) as u32;
                let mut addend = 0u64;
                for &oi in rem.positions.iter().rev() {
                    let ov = b.players[oi];
                    if oi <= pi || self.matched[ov] {
                        continue;
                    }
                    let mut w = b.base.get(oi, pi);
                    if !w.is_zero() {
                        w.add_shifted(addend, shift);
                        self.set_w(pv, ov, w);
                    }
                    addend += 1;
                }
            }
            self.solve();
            for &pi in chunk {
                let pv = b.players[pi];
                let mv = self.stable[pv];
                self.matched[pv] = true;
                self.matched[mv] = true;
                self.finalize(pv, mv);
            }
        }
    }

    /// Pair bracket `b` (C.04.3 B.1-B.5 and the criteria), its lower players collapsed
    /// when `allow_collapse` and they absorb its floaters; `None` (and the state to be
    /// restored by the caller) as soon as a collapsed optimum had floaters that the
    /// condition checked does not cover.
    fn pair_bracket(
        &mut self,
        b: &mut Bracket<N>,
        kept: &[(usize, usize, Wide<N>)],
        allow_collapse: bool,
    ) -> Option<()> {
        self.collapse_failed = false;
        self.weigh_bracket(b, kept, allow_collapse);
        self.collapse_held()?;
        self.pair_moved_down(b);
        self.collapse_held()?;
        self.choose_moved_down_opponents(b);
        self.collapse_held()?;
        let remainder = self.remainder(b);
        self.collapse_held()?;
        let exchanges = self.count_exchanges(b, &remainder);
        self.exchange_out_of_s1(b, &remainder, exchanges);
        self.collapse_held()?;
        self.exchange_into_s1(b, &remainder, exchanges);
        self.collapse_held()?;
        if !remainder.fixed {
            self.fix_s1_and_s2(b, &remainder);
        }
        self.settle_s1(b, &remainder);
        self.collapse_held()
    }

    /// `None` once a solve of this bracket found floaters its collapse does not cover.
    fn collapse_held(&self) -> Option<()> {
        (!self.collapse_failed).then_some(())
    }

    /// Record the bracket's pairs and carry the unpaired players down to the next bracket.
    fn carry_down(&mut self, b: Bracket<N>) -> Bracket<N> {
        let pl = &self.ctx.players;
        let n = pl.len();
        let mut carried = Vec::new();
        let mut moved_down = 0usize;
        let mut single =
            n % 2 == 1 && b.group_start < n && self.bye_score >= pl[b.group_start].score;
        for (pi, &pv) in b.players.iter().enumerate() {
            if pi < b.next_begin && self.matched[pv] {
                self.partner[pv] = Some(self.stable[pv]);
                self.partner[self.stable[pv]] = Some(pv);
            } else {
                carried.push(pv);
                if pi < b.next_begin {
                    moved_down += 1;
                }
                if single && pl[self.stable[pv]].score < pl[b.group_start].score {
                    single = false;
                }
            }
        }
        self.single_downfloater_is_bye = single;
        Bracket {
            players: carried,
            moved_down,
            next_begin: 0,
            group_begin_vertex: b.next_begin_vertex,
            next_begin_vertex: b.next_begin_vertex,
            group_start: b.group_start,
            next: b.next,
            base: BaseWeights::new(),
        }
    }

    /// The pairs as vertex pairs, and the one player left without a partner (the PAB).
    fn finish(self, round: u32) -> Result<RawPairing, PairingError> {
        let mut pairs = Vec::new();
        let mut bye = None;
        for (v, partner) in self.partner.iter().enumerate() {
            match *partner {
                Some(u) if v < u => pairs.push((v, u)),
                Some(_) => {}
                None => {
                    if bye.is_some() {
                        return Err(PairingError::NoValidPairing(round));
                    }
                    bye = Some(v);
                }
            }
        }
        Ok((pairs, bye))
    }
}

/// C.04.3 E: colours. Returns the colour of `p` against `o`.
fn choose_colour(ctx: &Context, p: &Entrant, o: &Entrant) -> Colour {
    if let Some(c) = neutral_colour(p, o) {
        return c;
    }
    // E.5: the higher-ranked player (score, then effective pairing number) decides.
    let p_lower = (p.score, std::cmp::Reverse(p.rank)) < (o.score, std::cmp::Reverse(o.rank));
    let init = ctx.initial_colour;
    match p.pref {
        None => {
            if p_lower {
                if o.rank & 1 == 1 {
                    init
                } else {
                    init.opposite()
                }
            } else if p.rank & 1 == 1 {
                init.opposite()
            } else {
                init
            }
        }
        Some(pref) => {
            if p_lower {
                o.pref.map_or(pref, Colour::opposite)
            } else {
                pref
            }
        }
    }
}

/// E.1-E.4: the colour of `p` that follows from the preferences and histories alone.
fn neutral_colour(p: &Entrant, o: &Entrant) -> Option<Colour> {
    let compatible = p.pref.is_none() || o.pref.is_none() || p.pref != o.pref;
    if compatible {
        return p.pref.or(o.pref.map(Colour::opposite));
    }
    if p.absolute() && (p.imbalance > o.imbalance || !o.absolute()) {
        return p.pref;
    }
    if o.absolute() && (o.imbalance > p.imbalance || !p.absolute()) {
        return o.pref.map(Colour::opposite);
    }
    if p.strong && !o.strong {
        return p.pref;
    }
    if o.strong && !p.strong {
        return o.pref.map(Colour::opposite);
    }
    // E.4: alternate from the latest round in which their colours differed.
    let mut a = p.colours.iter().rev();
    let mut b = o.colours.iter().rev();
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => {}
            (Some(_), Some(&y)) => return Some(y),
            _ => return None,
        }
    }
}

/// Colours and board order as bbpPairings prints them.
fn build_pairing(ctx: &Context, pairs: &[(usize, usize)], bye: Option<usize>) -> Pairing {
    let pl = &ctx.players;
    let mut boards: Vec<(u32, u32, (u32, u32, u32))> = pairs
        .iter()
        .map(|&(a, b)| {
            // Colour is chosen for the player with the lower pairing number.
            let (p, o) = if pl[a].number < pl[b].number {
                (a, b)
            } else {
                (b, a)
            };
            let c = choose_colour(ctx, &pl[p], &pl[o]);
            let (w, bl) = if c == Colour::White { (p, o) } else { (o, p) };
            let higher_first = |x: usize, y: usize| {
                (pl[x].score, std::cmp::Reverse(pl[x].rank))
                    >= (pl[y].score, std::cmp::Reverse(pl[y].rank))
            };
            let (h, l) = if higher_first(w, bl) {
                (w, bl)
            } else {
                (bl, w)
            };
            let key = (u32::MAX - pl[h].score, u32::MAX - pl[l].score, pl[h].rank);
            (pl[w].number, pl[bl].number, key)
        })
        .collect();
    boards.sort_by_key(|b| b.2);
    Pairing {
        boards: boards.into_iter().map(|(w, b, _)| (w, b)).collect(),
        bye: bye.map(|v| pl[v].number),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_one(n: u32, absent: &[u32], initial_colour: Colour) -> DutchInput {
        DutchInput {
            players: (1..=n)
                .map(|number| DutchPlayer {
                    number,
                    history: Vec::new(),
                    absent: absent.contains(&number),
                })
                .collect(),
            total_rounds: 9,
            initial_colour,
            forbidden_pairs: Vec::new(),
        }
    }

    /// The weights of edges outside the brackets are sums of one term per player
    /// (`Run::outside_half`), on every conformance case, with and without the C9 field:
    /// the collapse of the lower score groups (`Local`) rests on it.
    #[test]
    fn outside_weights_are_sums() {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/dutch");
        let mut cases = 0;
        for entry in std::fs::read_dir(&dir).expect("conformance cases") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "trf") {
                continue;
            }
            let trf = Trf::parse(&std::fs::read_to_string(&path).expect("trf")).expect("parse");
            let input = DutchInput::from_trf(&trf).expect("input");
            let Ok(ctx) = prepare(&input) else { continue };
            let pl = &ctx.players;
            let mut ranks = HashMap::new();
            for p in pl {
                let next = ranks.len() as u64;
                ranks.entry(p.played_games).or_insert(next);
            }
            for (bye_score, single) in [(0, false), (pl[pl.len() / 2].score, true)] {
                let wp = WeightParams {
                    bye_score,
                    single_downfloater_is_bye: single,
                    unplayed_ranks: &ranks,
                };
                let half =
                    |x: &Entrant| edge_weight_any::<16>(&ctx, x, x, false, false, &wp).half();
                for i in 0..pl.len() {
                    for j in 0..i {
                        let w = edge_weight::<16>(&ctx, &pl[j], &pl[i], false, false, &wp);
                        let sum = half(&pl[j]).add(&half(&pl[i]));
                        if ctx.compatible(&pl[j], &pl[i]) {
                            assert_eq!(w, sum, "{}: {j}-{i}", path.display());
                        } else {
                            assert!(w.is_zero());
                        }
                    }
                    // The halves are whole.
                    let own = edge_weight_any::<16>(&ctx, &pl[i], &pl[i], false, false, &wp);
                    assert_eq!(half(&pl[i]).double(), own);
                }
            }
            cases += 1;
        }
        assert_eq!(cases, 80);
    }

    /// The round-1 shortcut gives exactly what the engine gives.
    #[test]
    fn first_round_is_the_engines() {
        let mut sizes: Vec<u32> = (1..=160).collect();
        sizes.extend([199, 200, 257, 301]);
        for n in sizes {
            for colour in [Colour::White, Colour::Black] {
                let absent: Vec<u32> = (1..=n).filter(|i| i % 7 == 3 || i % 11 == 0).collect();
                for absent in [Vec::new(), absent] {
                    let input = round_one(n, &absent, colour);
                    let fast = pair_with(&input, true);
                    let full = pair_with(&input, false);
                    assert_eq!(fast, full, "{n} players, {colour:?}, absent {absent:?}");
                }
            }
        }
        // With a forbidden pair the engine pairs it.
        let mut input = round_one(10, &[], Colour::White);
        input.forbidden_pairs.push((1, 6));
        let ctx = prepare(&input).expect("input");
        assert!(first_round(&ctx).is_none());
    }
}
