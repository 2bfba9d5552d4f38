//! A pure chess clock: time is passed in, never read.
//!
//! Every method takes `at`, milliseconds since the game's clock was started. Callers
//! pass non-decreasing instants; an `at` earlier than the last one seen is treated as
//! that last instant (no time passes, nothing panics).
//!
//! # Model
//!
//! Each side has a remaining time in milliseconds (`i64`). At any moment at most one
//! side's clock runs. A *turn* begins when a side's clock is started ([`Clock::start`],
//! or the other side's [`Clock::press`]) and ends when that side presses.
//!
//! - **US delay** ([`Delay::Us`]): at the start of each turn the clock waits the delay
//!   before counting down. Delay not used is lost. A pause ([`Clock::stop`]) keeps the
//!   delay left, and [`Clock::resume`] continues the same turn with it.
//! - **Bronstein** ([`Delay::Bronstein`]): the clock counts down at once; on the press
//!   the time used during the turn is given back, up to the delay.
//! - **Increment** ([`Delay::Increment`]): added on each press.
//!
//! # Flags
//!
//! A side's flag is down when its remaining time is ≤ 0. The clock keeps running below
//! zero for both sides (uscf-2020 2a), so remaining time may be negative. The instant a
//! flag fell is exact: for a running side it is the run's start + delay left + the
//! remaining time at the run's start. Time added with [`Clock::adjust`] can raise a
//! flag again; a later fall records a new instant. Comparing
//! [`Clock::flag_fell_at`] for both sides answers "which flag fell first"
//! (docs/rules.md §3.7, uscf-2020 8c).
//!
//! **Interpretation:** a side whose flag is down when it presses gets no increment and
//! no Bronstein give-back: its time ran out before the move was completed, and the
//! flag stays shown (uscf-2020 2a). Only the director ([`Clock::adjust`]) can add time
//! to a fallen flag.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::Color;
use crate::colour;
use crate::timecontrol::{Delay, TimeControl};

/// Why a clock operation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ClockError {
    /// A side pressed while its clock was not the one running.
    #[error("{side} pressed the clock, but {}", running_text(*.running))]
    NotRunning {
        /// Who pressed.
        side: Color,
        /// Whose clock was running, if any.
        running: Option<Color>,
    },
}

fn running_text(running: Option<Color>) -> String {
    match running {
        Some(c) => format!("{c}'s clock is running"),
        None => "no clock is running".to_string(),
    }
}

/// Per-side state, indexed white then black.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Side {
    /// Remaining time at `Clock::since` if this side is running, else now.
    remaining: i64,
    /// When this side's flag fell, while it is down and the fall lies in the past
    /// (for the running side, a fall inside the current run is computed instead).
    fell: Option<u64>,
    /// Moves completed (presses).
    moves: u32,
}

/// A pure chess clock. See the [module documentation](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    tc: TimeControl,
    sides: [Side; 2],
    /// Whose turn it is: the running side, or the side that runs on resume.
    #[serde(with = "crate::colour::serde")]
    turn: Color,
    /// Whether `turn`'s clock is running.
    running: bool,
    /// Start of the current run (or of the last settle), when running.
    since: u64,
    /// US delay left in this turn at `since`.
    delay_left: u64,
    /// Time taken from the main time during this turn up to `since` (Bronstein).
    turn_used: u64,
    /// The latest instant seen; earlier `at` values are raised to it.
    latest: u64,
}

/// The longest single time change the game script and the rulesets accept: a day, in
/// milliseconds (a director's `add_time`, a penalty or a denied claim's cost). Any
/// duration beyond it is an input error, never clock arithmetic.
pub const MAX_TIME_CHANGE_MS: u64 = 86_400_000;

/// A duration in milliseconds as a signed clock amount, saturating at `i64::MAX` (a
/// `u64` beyond it cannot wrap into a negative amount).
pub fn ms_to_i64(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

fn ms_i64(ms: u64) -> i64 {
    ms_to_i64(ms)
}

impl Clock {
    /// A clock for `tc`: both sides at the base time, nothing running, White's turn.
    pub fn new(tc: TimeControl) -> Self {
        let base = ms_i64(tc.base_ms);
        let side = Side {
            remaining: base,
            fell: if base <= 0 { Some(0) } else { None },
            moves: 0,
        };
        Clock {
            tc,
            sides: [side; 2],
            turn: Color::White,
            running: false,
            since: 0,
            delay_left: Self::turn_delay(tc),
            turn_used: 0,
            latest: 0,
        }
    }

    /// The time control this clock was set to.
    pub fn time_control(&self) -> TimeControl {
        self.tc
    }

    fn turn_delay(tc: TimeControl) -> u64 {
        match tc.delay {
            Delay::Us { ms } => ms,
            _ => 0,
        }
    }

    /// Raises `at` to the latest instant seen and records it.
    fn clamp(&mut self, at: u64) -> u64 {
        let at = at.max(self.latest);
        self.latest = at;
        at
    }

    /// Brings the running side's state up to `at` and makes `at` the run's start, so
    /// that stored values are current. Records a flag fall inside the elapsed span.
    fn settle(&mut self, at: u64) {
        if !self.running {
            self.since = at;
            return;
        }
        let elapsed = at.saturating_sub(self.since);
        let counted = elapsed.saturating_sub(self.delay_left);
        let side = &mut self.sides[colour::index(self.turn)];
        let before = side.remaining;
        let after = before.saturating_sub(ms_i64(counted));
        if before > 0 && after <= 0 {
            // Fell exactly when the counted time reached `before`.
            side.fell = Some(
                self.since
                    .saturating_add(self.delay_left)
                    .saturating_add(before.unsigned_abs()),
            );
        }
        side.remaining = after;
        self.delay_left = self.delay_left.saturating_sub(elapsed);
        self.turn_used = self.turn_used.saturating_add(counted);
        self.since = at;
    }

    /// Starts `side`'s clock at `at` as a new turn (the US delay begins afresh). If the
    /// other side's clock was running it is stopped first, without a completed move.
    pub fn start(&mut self, at: u64, side: Color) {
        let at = self.clamp(at);
        self.settle(at);
        self.begin_turn(at, side);
    }

    fn begin_turn(&mut self, at: u64, side: Color) {
        self.turn = side;
        self.running = true;
        self.since = at;
        self.delay_left = Self::turn_delay(self.tc);
        self.turn_used = 0;
    }

    /// `side` completes a move at `at`: its clock stops, a Bronstein delay gives back
    /// the time used this turn up to the delay, an increment is added, and the other
    /// side's clock starts a new turn. A side whose flag is down at the press gets
    /// neither (see the module documentation).
    ///
    /// Fails, changing nothing, if `side`'s clock is not the one running.
    pub fn press(&mut self, at: u64, side: Color) -> Result<(), ClockError> {
        if !self.running || self.turn != side {
            return Err(ClockError::NotRunning {
                side,
                running: self.running(),
            });
        }
        let at = self.clamp(at);
        self.settle(at);
        let credit = match self.tc.delay {
            Delay::Bronstein { ms } => self.turn_used.min(ms),
            Delay::Increment { ms } => ms,
            Delay::None | Delay::Us { .. } => 0,
        };
        let s = &mut self.sides[colour::index(side)];
        s.moves = s.moves.saturating_add(1);
        if s.remaining > 0 {
            s.remaining = s.remaining.saturating_add(ms_i64(credit));
        }
        self.begin_turn(at, !side);
        Ok(())
    }

    /// Pauses the clock at `at` (a claim, the director). Whose turn it is and the
    /// delay left in the turn are kept. Does nothing if no clock runs.
    pub fn stop(&mut self, at: u64) {
        let at = self.clamp(at);
        self.settle(at);
        self.running = false;
    }

    /// Restarts the paused side's clock at `at`, continuing its turn: no new delay, the
    /// delay left at the pause still applies. Does nothing if a clock runs.
    pub fn resume(&mut self, at: u64) {
        let at = self.clamp(at);
        if !self.running {
            self.running = true;
            self.since = at;
        }
    }

    /// Whose clock is running, if any.
    pub fn running(&self) -> Option<Color> {
        self.running.then_some(self.turn)
    }

    /// Whose clock runs, or would run on [`resume`](Self::resume).
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Moves completed (clock presses) by `side`.
    pub fn moves_completed(&self, side: Color) -> u32 {
        self.sides[colour::index(side)].moves
    }

    /// The effective instant for a query: never before the latest instant seen.
    fn query_at(&self, at: u64) -> u64 {
        at.max(self.latest)
    }

    /// `side`'s remaining time at `at`, in milliseconds. Negative once the flag has
    /// fallen and the clock ran on (uscf-2020 2a).
    pub fn remaining(&self, at: u64, side: Color) -> i64 {
        let s = &self.sides[colour::index(side)];
        if self.running && self.turn == side {
            let elapsed = self.query_at(at).saturating_sub(self.since);
            let counted = elapsed.saturating_sub(self.delay_left);
            s.remaining.saturating_sub(ms_i64(counted))
        } else {
            s.remaining
        }
    }

    /// US delay left in the current turn at `at` (0 without a US delay). For the side
    /// whose turn it is not, this is 0.
    pub fn delay_left(&self, at: u64, side: Color) -> u64 {
        if self.turn != side {
            return 0;
        }
        if self.running {
            let elapsed = self.query_at(at).saturating_sub(self.since);
            self.delay_left.saturating_sub(elapsed)
        } else {
            self.delay_left
        }
    }

    /// The instant of the current run at which the running side's flag falls (or
    /// fell): `None` unless it was up when the run began (or the instant would be
    /// past `u64::MAX`).
    fn run_fall(&self) -> Option<u64> {
        if !self.running {
            return None;
        }
        let r = self.sides[colour::index(self.turn)].remaining;
        if r <= 0 {
            return None;
        }
        // A fall past the last representable instant never happens.
        self.since
            .checked_add(self.delay_left)?
            .checked_add(r.unsigned_abs())
    }

    /// If `side`'s flag is down at `at`, the instant it fell (≤ `at`); `None` if it is
    /// up. After time is added that raises a flag, an earlier fall is forgotten.
    pub fn flag_fell_at(&self, at: u64, side: Color) -> Option<u64> {
        let at = self.query_at(at);
        if self.running
            && self.turn == side
            && let Some(fall) = self.run_fall()
        {
            return (fall <= at).then_some(fall);
        }
        let s = &self.sides[colour::index(side)];
        if s.remaining <= 0 { s.fell } else { None }
    }

    /// When the running side's flag will fall if nothing else happens: `Some((side, t))`
    /// with `t ≥ at` while its remaining time at `at` is ≥ 0 and its flag was up when
    /// this run began. An arbiter checking whether a flag fell between two events at
    /// `a ≤ b` calls `next_flag_fall(a)` and compares `t` with `b`. `None` when no
    /// clock runs or the running side's flag is already down.
    pub fn next_flag_fall(&self, at: u64) -> Option<(Color, u64)> {
        let at = self.query_at(at);
        self.run_fall().filter(|&t| t >= at).map(|t| (self.turn, t))
    }

    /// Adds `delta_ms` (negative: removes) to `side`'s time at `at`: penalties and
    /// director corrections (docs/rules.md §5). The flag follows the time: taking a side to
    /// ≤ 0 drops its flag at `at`; taking it above 0 raises it.
    pub fn adjust(&mut self, at: u64, side: Color, delta_ms: i64) {
        let at = self.clamp(at);
        self.settle(at);
        let s = &mut self.sides[colour::index(side)];
        let before = s.remaining;
        let after = before.saturating_add(delta_ms);
        if before > 0 && after <= 0 {
            s.fell = Some(at);
        } else if after > 0 {
            s.fell = None;
        }
        s.remaining = after;
    }
}

/// Formats a clock reading for display: `m:ss`, with tenths under ten seconds
/// (`0:09.4`), and a leading minus when negative (`-0:03.2`, `-1:05`). Digits are
/// truncated, not rounded, as a clock display shows them.
pub fn format_ms(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let abs = ms.unsigned_abs();
    let minutes = abs / 60_000;
    let seconds = (abs % 60_000) / 1_000;
    if abs < 10_000 {
        let tenths = (abs % 1_000) / 100;
        format!("{sign}{minutes}:{seconds:02}.{tenths}")
    } else {
        format!("{sign}{minutes}:{seconds:02}")
    }
}
