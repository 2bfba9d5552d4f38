//! The crosstable: the plain-data input of every tiebreak and of the standings.
//!
//! A crosstable holds, for each player and each round, one [`RoundEntry`]: either a pairing
//! against an opponent (one or more games, so that a Double-Swiss or double-round-robin *match*
//! fits in one round) or a bye of some kind. Scores are kept in integer half-points
//! ([`HalfPoints`]) so that no tiebreak ever compares floats.
//!
//! # Multi-game rounds (matches)
//!
//! `games_per_round` is 1 for ordinary events and 2 for a Double Swiss (FIDE C.04.5), where a
//! round is a two-game match against one opponent. A double round robin can be given either as
//! `2(n-1)` one-game rounds or as `n-1` two-game rounds; the tiebreaks then differ only where the
//! regulations count *encounters* (FIDE C.07 art. 4.4: each game or match against the same
//! opponent is a separate encounter), see the table in [`super`].
//!
//! Following FIDE C.04.5 (Double Swiss), a match counts as forfeited only when every game of it was
//! forfeited; a match in which at least one game was played over the board is a played round.
//!
//! Bye values scale with `games_per_round` (interpretation, written down here): a pairing-allocated
//! bye and a full-point bye are worth a win in every game of the round (FIDE C.04.1 art. 4: the PAB
//! is worth a win by default), a half-point bye a draw in every game, a zero-point bye and an
//! absence nothing.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::format::{Format, MAX_ROUNDS};
use crate::spelling::{Spelled, spelled};

/// A score in half-points: `HalfPoints(3)` is 1½ points.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct HalfPoints(pub u32);

impl HalfPoints {
    /// Zero points.
    pub const ZERO: HalfPoints = HalfPoints(0);

    /// The score as a float, for display only.
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl std::ops::Add for HalfPoints {
    type Output = HalfPoints;
    fn add(self, rhs: HalfPoints) -> HalfPoints {
        HalfPoints(self.0 + rhs.0)
    }
}

impl std::ops::AddAssign for HalfPoints {
    fn add_assign(&mut self, rhs: HalfPoints) {
        self.0 += rhs.0;
    }
}

impl std::fmt::Display for HalfPoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_multiple_of(2) {
            write!(f, "{}", self.0 / 2)
        } else {
            write!(f, "{}.5", self.0 / 2)
        }
    }
}

/// The colour a player had in one game: the pairing engines' type.
pub use flagfall_pairing::trf::Colour;

/// The outcome of one game, from the point of view of the player whose row holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameOutcome {
    /// Won over the board.
    Win,
    /// Drawn over the board.
    Draw,
    /// Lost over the board.
    Loss,
    /// Won by forfeit (the opponent did not play).
    ForfeitWin,
    /// Lost by forfeit (this player did not play).
    ForfeitLoss,
    /// Neither player played; both score zero.
    DoubleForfeit,
}

impl GameOutcome {
    /// Points scored by this player, in half-points.
    pub fn points(self) -> HalfPoints {
        match self {
            GameOutcome::Win | GameOutcome::ForfeitWin => HalfPoints(2),
            GameOutcome::Draw => HalfPoints(1),
            GameOutcome::Loss | GameOutcome::ForfeitLoss | GameOutcome::DoubleForfeit => {
                HalfPoints(0)
            }
        }
    }

    /// True when the game was played over the board.
    pub fn is_played(self) -> bool {
        matches!(
            self,
            GameOutcome::Win | GameOutcome::Draw | GameOutcome::Loss
        )
    }

    /// The same game seen from the opponent's row.
    pub fn mirrored(self) -> GameOutcome {
        match self {
            GameOutcome::Win => GameOutcome::Loss,
            GameOutcome::Loss => GameOutcome::Win,
            GameOutcome::Draw => GameOutcome::Draw,
            GameOutcome::ForfeitWin => GameOutcome::ForfeitLoss,
            GameOutcome::ForfeitLoss => GameOutcome::ForfeitWin,
            GameOutcome::DoubleForfeit => GameOutcome::DoubleForfeit,
        }
    }
}

/// One game of a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CrosstableGame {
    /// This player's colour (for a forfeit: the colour scheduled by the pairing).
    pub colour: Colour,
    /// The outcome for this player.
    pub outcome: GameOutcome,
}

/// Why a player has no opponent in a round (FIDE C.07 art. 16.1, C.04.1 art. 4): the one
/// bye type of the event, its crosstable and its exports. Stored in kebab case (`pab`,
/// `full`, `half`, `zero`, `absent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ByeKind {
    /// Pairing-allocated bye (odd number of players), worth a win unless the event says
    /// otherwise (see `Event::pab_value`).
    Pab,
    /// Full-point bye (requested, or granted by the organiser), worth a win.
    Full,
    /// Requested half-point bye.
    Half,
    /// Requested zero-point bye.
    Zero,
    /// Not paired: not yet entered, withdrawn, or the round-robin phantom. Counts as a zero-point bye (FIDE C.07 art. 16.1.1: every
    /// round after a withdrawal is a zero-point bye).
    Absent,
}

impl Spelled for ByeKind {
    const ALL: &'static [ByeKind] = &[
        ByeKind::Pab,
        ByeKind::Full,
        ByeKind::Half,
        ByeKind::Zero,
        ByeKind::Absent,
    ];
    const WHAT: &'static str = "bye kind";
    const EXPECTED: &'static str = "pab, full, half, zero or absent";
    fn spellings(self) -> &'static [&'static str] {
        match self {
            ByeKind::Pab => &["pab", "u"],
            ByeKind::Full => &["full", "f"],
            ByeKind::Half => &["half", "h"],
            ByeKind::Zero => &["zero", "z"],
            ByeKind::Absent => &["absent", "-"],
        }
    }
    fn help(self) -> &'static str {
        match self {
            ByeKind::Pab => "pairing-allocated bye",
            ByeKind::Full => "full-point bye",
            ByeKind::Half => "half-point bye",
            ByeKind::Zero => "zero-point bye",
            ByeKind::Absent => "not paired",
        }
    }
}

spelled!(ByeKind);

/// What one player did in one round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RoundEntry {
    /// Paired against `opponent` (an index into [`Crosstable::players`]); one game per game of
    /// the round (a match when there are several).
    Paired {
        /// Index of the opponent in [`Crosstable::players`].
        opponent: usize,
        /// The games of this round, at least one.
        games: Vec<CrosstableGame>,
    },
    /// No opponent this round.
    Bye(ByeKind),
}

impl RoundEntry {
    /// A single game played over the board.
    pub fn played(opponent: usize, colour: Colour, outcome: GameOutcome) -> RoundEntry {
        RoundEntry::Paired {
            opponent,
            games: vec![CrosstableGame { colour, outcome }],
        }
    }

    /// A single game decided by forfeit.
    pub fn forfeit(opponent: usize, colour: Colour, won: bool) -> RoundEntry {
        let outcome = if won {
            GameOutcome::ForfeitWin
        } else {
            GameOutcome::ForfeitLoss
        };
        RoundEntry::played(opponent, colour, outcome)
    }
}

/// A participant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerInfo {
    /// Starting (pairing) number or any stable identifier; used as the last, arbitrary order
    /// between players who stay tied.
    pub id: u32,
    /// Display name.
    pub name: String,
    /// Rating at the start of the event (FIDE C.07 art. 10: the first rating); `None` if unrated.
    pub rating: Option<u32>,
}

/// The crosstable of an event: the input of [`super::standings`] and every tiebreak.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Crosstable {
    /// Swiss or round robin.
    pub format: Format,
    /// Number of rounds to take into account (standings after this round).
    pub rounds: u32,
    /// Games per round: 1 normally, 2 for a Double Swiss or two-game matches.
    pub games_per_round: u32,
    /// The participants.
    pub players: Vec<PlayerInfo>,
    /// `results[p][r]`: what player `p` did in round `r + 1`. Each row has `rounds` entries.
    pub results: Vec<Vec<RoundEntry>>,
    /// Points of a pairing-allocated bye for the whole round, in half points, when the
    /// event's regulations make it other than a win of every game (C.04.1 c).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pab_half_points: Option<u32>,
}

/// Most games a round may hold (a match of this many games).
pub const MAX_GAMES_PER_ROUND: u32 = 8;

/// A crosstable that does not describe a possible event.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CrosstableError {
    /// `games_per_round` is zero or above [`MAX_GAMES_PER_ROUND`].
    #[error("games_per_round is {0}, expected 1..={MAX_GAMES_PER_ROUND}")]
    GamesPerRound(u32),
    /// A pairing-allocated bye worth more than a win of every game of the round.
    #[error(
        "pab_half_points is {half_points}, more than a win of all {games_per_round} game(s) of a round"
    )]
    PabPoints {
        half_points: u32,
        games_per_round: u32,
    },
    /// `rounds` is above [`MAX_ROUNDS`].
    #[error("{0} rounds, at most {MAX_ROUNDS} are supported")]
    TooManyRounds(u32),
    /// `results` and `players` differ in length.
    #[error("{players} players but {rows} result rows")]
    RowCount {
        /// Number of players.
        players: usize,
        /// Number of result rows.
        rows: usize,
    },
    /// A row does not have one entry per round.
    #[error("player {player} (row {row}) has {entries} round entries, expected {rounds}")]
    RoundCount {
        /// Row index.
        row: usize,
        /// Player id.
        player: u32,
        /// Entries found.
        entries: usize,
        /// Rounds expected.
        rounds: u32,
    },
    /// An opponent index is out of range or the player himself.
    #[error("round {round}: player {player} (row {row}) has invalid opponent index {opponent}")]
    BadOpponent {
        /// Round number (1-based).
        round: u32,
        /// Row index.
        row: usize,
        /// Player id.
        player: u32,
        /// The offending index.
        opponent: usize,
    },
    /// A pairing lists no games, or more than `games_per_round`.
    #[error("round {round}: player {player} (row {row}) has {games} games, expected 1..={max}")]
    GameCount {
        /// Round number (1-based).
        round: u32,
        /// Row index.
        row: usize,
        /// Player id.
        player: u32,
        /// Games found.
        games: usize,
        /// `games_per_round`.
        max: u32,
    },
    /// The two rows of a pairing disagree (opponent, colours or results do not mirror).
    #[error("round {round}: rows {row} and {opponent_row} do not mirror each other ({detail})")]
    Asymmetric {
        /// Round number (1-based).
        round: u32,
        /// First row.
        row: usize,
        /// The opponent's row.
        opponent_row: usize,
        /// What differs.
        detail: &'static str,
    },
}

impl Crosstable {
    /// An empty crosstable for `players` with every round marked absent; fill `results` in.
    pub fn new(format: Format, rounds: u32, players: Vec<PlayerInfo>) -> Crosstable {
        let results = vec![vec![RoundEntry::Bye(ByeKind::Absent); rounds as usize]; players.len()];
        Crosstable {
            format,
            rounds,
            games_per_round: 1,
            players,
            results,
            pab_half_points: None,
        }
    }

    /// Records a one-game pairing in round `round` (1-based) on both rows. `white_outcome` is
    /// the outcome for `white`. Out-of-range indices are reported later by [`Self::validate`].
    pub fn set_game(&mut self, round: u32, white: usize, black: usize, white_outcome: GameOutcome) {
        let r = round.saturating_sub(1) as usize;
        if let Some(cell) = self.results.get_mut(white).and_then(|row| row.get_mut(r)) {
            *cell = RoundEntry::played(black, Colour::White, white_outcome);
        }
        if let Some(cell) = self.results.get_mut(black).and_then(|row| row.get_mut(r)) {
            *cell = RoundEntry::played(white, Colour::Black, white_outcome.mirrored());
        }
    }

    /// Records a bye for `player` in round `round` (1-based).
    pub fn set_bye(&mut self, round: u32, player: usize, kind: ByeKind) {
        let r = round.saturating_sub(1) as usize;
        if let Some(cell) = self.results.get_mut(player).and_then(|row| row.get_mut(r)) {
            *cell = RoundEntry::Bye(kind);
        }
    }

    /// The same event seen after round `rounds` (later rounds dropped). `rounds` larger than the
    /// current count leaves the crosstable unchanged.
    pub fn after_round(&self, rounds: u32) -> Crosstable {
        let keep = rounds.min(self.rounds);
        let mut out = self.clone();
        out.rounds = keep;
        for row in &mut out.results {
            row.truncate(keep as usize);
        }
        out
    }

    /// Checks the crosstable is consistent: games per round and rounds within bounds, row and
    /// round counts, opponent indices, and that
    /// both rows of each pairing mirror each other (opposite colours, complementary outcomes).
    pub fn validate(&self) -> Result<(), CrosstableError> {
        if self.games_per_round == 0 || self.games_per_round > MAX_GAMES_PER_ROUND {
            return Err(CrosstableError::GamesPerRound(self.games_per_round));
        }
        if self.rounds > MAX_ROUNDS {
            return Err(CrosstableError::TooManyRounds(self.rounds));
        }
        if let Some(p) = self.pab_half_points
            && p > 2 * self.games_per_round
        {
            return Err(CrosstableError::PabPoints {
                half_points: p,
                games_per_round: self.games_per_round,
            });
        }
        if self.results.len() != self.players.len() {
            return Err(CrosstableError::RowCount {
                players: self.players.len(),
                rows: self.results.len(),
            });
        }
        for (row, entries) in self.results.iter().enumerate() {
            if entries.len() != self.rounds as usize {
                return Err(CrosstableError::RoundCount {
                    row,
                    player: self.players[row].id,
                    entries: entries.len(),
                    rounds: self.rounds,
                });
            }
        }
        for (row, entries) in self.results.iter().enumerate() {
            for (r, entry) in entries.iter().enumerate() {
                let round = r as u32 + 1;
                let RoundEntry::Paired { opponent, games } = entry else {
                    continue;
                };
                let player = self.players[row].id;
                if *opponent >= self.players.len() || *opponent == row {
                    return Err(CrosstableError::BadOpponent {
                        round,
                        row,
                        player,
                        opponent: *opponent,
                    });
                }
                if games.is_empty() || games.len() > self.games_per_round as usize {
                    return Err(CrosstableError::GameCount {
                        round,
                        row,
                        player,
                        games: games.len(),
                        max: self.games_per_round,
                    });
                }
                let asym = |detail| CrosstableError::Asymmetric {
                    round,
                    row,
                    opponent_row: *opponent,
                    detail,
                };
                match &self.results[*opponent][r] {
                    RoundEntry::Paired {
                        opponent: back,
                        games: their,
                    } => {
                        if *back != row {
                            return Err(asym("the opponent's row names someone else"));
                        }
                        if their.len() != games.len() {
                            return Err(asym("different number of games"));
                        }
                        for (mine, theirs) in games.iter().zip(their) {
                            if mine.colour == theirs.colour {
                                return Err(asym("same colour on both sides"));
                            }
                            if mine.outcome.mirrored() != theirs.outcome {
                                return Err(asym("outcomes are not complementary"));
                            }
                        }
                    }
                    RoundEntry::Bye(_) => return Err(asym("the opponent's row holds a bye")),
                }
            }
        }
        Ok(())
    }
}
