//! Round robin schedules by the FIDE Berger tables (FIDE C.05 Annex 1).
//!
//! Players are numbered 1..=n by their pairing numbers (drawn lots or seeding). With an
//! odd number of players a phantom player n+1 is added; whoever meets the phantom sits the
//! round out (a bye, no game: in a round robin the bye scores nothing unless the event's
//! rules say otherwise).
//!
//! The construction (our own description of the published tables, C.05 Annex 1): number
//! the rotating players 0..m-1 where m = n-1 (n even after the phantom is added) and the
//! last player n is fixed. In round r (1-based) let s = (r-1)·(n/2) mod m. Board 1 is
//! rotating player s against player n; player n has White in even rounds and Black in odd
//! rounds. Board k ≥ 2 is rotating player (s+k-1) mod m with White against rotating player
//! (s-(k-1)) mod m with Black. This reproduces the FIDE tables exactly (checked against
//! the printed 4-, 6- and 8-player tables in the tests).
//!
//! Double round robin: the second cycle repeats the first with colours reversed
//! (C.05 Annex 1, double round robin). **Interpretation / option:** the same annex
//! recommends reversing the order of the last two rounds of the first cycle so that no
//! player gets the same colour three times running across the cycle boundary; that is
//! [`RoundRobinOptions::swap_last_two_rounds`] and it is on by default for two cycles.

use std::fmt;

/// Number of players a round robin may have (2..=MAX_PLAYERS).
pub const MAX_PLAYERS: u32 = 1000;

/// One game of a round: pairing numbers, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BergerGame {
    /// Pairing number of the player with White.
    pub white: u32,
    /// Pairing number of the player with Black.
    pub black: u32,
}

/// One round of a round-robin schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    /// Round number, 1-based, counted across cycles.
    pub number: u32,
    /// Games in board order (board 1 first).
    pub games: Vec<BergerGame>,
    /// The player who sits out (odd number of players), if any.
    pub bye: Option<u32>,
}

/// Options of a round-robin schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundRobinOptions {
    /// 1 (single) or 2 (double round robin).
    pub cycles: u32,
    /// Reverse the order of the last two rounds of the first cycle (C.05 Annex 1's
    /// recommendation for double round robins). Ignored for one cycle.
    pub swap_last_two_rounds: bool,
}

impl RoundRobinOptions {
    /// Single round robin.
    pub fn single() -> Self {
        Self {
            cycles: 1,
            swap_last_two_rounds: false,
        }
    }

    /// Double round robin with the recommended swap of the first cycle's last two rounds.
    pub fn double() -> Self {
        Self {
            cycles: 2,
            swap_last_two_rounds: true,
        }
    }
}

/// Why a schedule cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BergerError {
    /// Fewer than 2 or more than [`MAX_PLAYERS`] players.
    PlayerCount(u32),
    /// Cycles other than 1 or 2.
    Cycles(u32),
    /// A round number outside the schedule.
    RoundOutOfRange {
        /// The round asked for.
        round: u32,
        /// Rounds in the schedule.
        rounds: u32,
    },
}

impl fmt::Display for BergerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BergerError::PlayerCount(n) => {
                write!(f, "a round robin needs 2 to {MAX_PLAYERS} players, not {n}")
            }
            BergerError::Cycles(c) => write!(f, "a round robin has 1 or 2 cycles, not {c}"),
            BergerError::RoundOutOfRange { round, rounds } => {
                write!(
                    f,
                    "round {round} is outside the schedule of {rounds} rounds"
                )
            }
        }
    }
}

impl std::error::Error for BergerError {}

/// Rounds in one cycle for `players` players (odd counts get the phantom).
pub fn rounds_per_cycle(players: u32) -> u32 {
    let n = players + players % 2;
    n - 1
}

/// Total rounds of the schedule.
pub fn total_rounds(players: u32, options: RoundRobinOptions) -> u32 {
    rounds_per_cycle(players) * options.cycles
}

fn check(players: u32, options: RoundRobinOptions) -> Result<(), BergerError> {
    if !(2..=MAX_PLAYERS).contains(&players) {
        return Err(BergerError::PlayerCount(players));
    }
    if !(1..=2).contains(&options.cycles) {
        return Err(BergerError::Cycles(options.cycles));
    }
    Ok(())
}

/// Round `round` (1-based, single cycle, no swap) of the Berger table for `n` (even) slots.
fn table_round(n: u32, round: u32) -> Vec<BergerGame> {
    let m = n - 1;
    let half = n / 2;
    let s = ((round - 1) * half) % m;
    let mut games = Vec::with_capacity(half as usize);
    // Board 1: rotating player s against the fixed player n.
    let rot = s + 1;
    if round % 2 == 1 {
        games.push(BergerGame {
            white: rot,
            black: n,
        });
    } else {
        games.push(BergerGame {
            white: n,
            black: rot,
        });
    }
    for k in 1..half {
        let w = (s + k) % m;
        let b = (s + m - k) % m;
        games.push(BergerGame {
            white: w + 1,
            black: b + 1,
        });
    }
    games
}

/// One round of the schedule for `players` players.
pub fn round(players: u32, round: u32, options: RoundRobinOptions) -> Result<Round, BergerError> {
    check(players, options)?;
    let per_cycle = rounds_per_cycle(players);
    let rounds = per_cycle * options.cycles;
    if round == 0 || round > rounds {
        return Err(BergerError::RoundOutOfRange { round, rounds });
    }
    let n = players + players % 2;
    let cycle = (round - 1) / per_cycle;
    let mut in_cycle = (round - 1) % per_cycle + 1;
    // The swap applies to the first cycle only; the second cycle mirrors the
    // unswapped table so that each cycle is the complete table.
    if options.cycles == 2 && options.swap_last_two_rounds && cycle == 0 && per_cycle >= 2 {
        if in_cycle == per_cycle {
            in_cycle = per_cycle - 1;
        } else if in_cycle == per_cycle - 1 {
            in_cycle = per_cycle;
        }
    }
    let mut bye = None;
    let mut games = Vec::new();
    for g in table_round(n, in_cycle) {
        let g = if cycle == 1 {
            BergerGame {
                white: g.black,
                black: g.white,
            }
        } else {
            g
        };
        if g.white > players {
            bye = Some(g.black);
        } else if g.black > players {
            bye = Some(g.white);
        } else {
            games.push(g);
        }
    }
    Ok(Round {
        number: round,
        games,
        bye,
    })
}

/// The whole schedule.
pub fn schedule(players: u32, options: RoundRobinOptions) -> Result<Vec<Round>, BergerError> {
    check(players, options)?;
    (1..=total_rounds(players, options))
        .map(|r| round(players, r, options))
        .collect()
}
