//! Time-control notation and the blitz classification predicates.
//!
//! A [`TimeControl`] is one sudden-death period (`base_ms` for the whole game) plus an
//! optional per-move [`Delay`]. Which rulesets accept which controls, and with which
//! citation, is decided in `ruleset.rs` from the predicates here.
//!
//! # Accepted notation (docs/rules.md §1.1)
//!
//! Letters are case-insensitive and surrounding whitespace is ignored.
//!
//! | form | meaning |
//! |---|---|
//! | `G/5` | 5 minutes, no delay |
//! | `G/5;d0` | the same, "no delay" stated explicitly |
//! | `G/5;d3` | 5 minutes, US (simple) delay of 3 seconds |
//! | `G/5;b3` | 5 minutes, Bronstein delay of 3 seconds |
//! | `G/3;inc2` | 3 minutes, increment of 2 seconds |
//! | `3+2`, `3\|2` | 3 minutes, increment of 2 seconds (`5\|0`, `5+0`: no increment) |
//!
//! Extensions (our choice, documented here):
//! - the separator after `G/<minutes>` may be `;` or whitespace, and the keyword may be
//!   followed by a `/`, so the rulebook's own spelling `G/3 inc/2` is accepted;
//! - fractional numbers are accepted where they give a whole number of milliseconds:
//!   `G/2.5` (2 min 30 s), `G/5;d1.5`, `2.5+1`; a base may also be written in seconds
//!   with an `s` suffix, `G/90s`, `G/30.5s`;
//! - a zero delay or increment (`d0`, `b0`, `inc0`, `5+0`) is the same control as no
//!   delay: it parses to [`Delay::None`];
//! - the base must be more than zero and at most [`MAX_BASE_MS`]; a delay or
//!   increment at most [`MAX_DELAY_MS`]. These bounds keep every clock computation far
//!   from integer overflow and are far beyond any blitz control.
//!
//! [`Display`](fmt::Display) writes the canonical US form (`G/5;d0`, `G/5;d3`, `G/5;b3`,
//! `G/3;inc2`). For every value within the bounds above (base 1 ms to [`MAX_BASE_MS`],
//! amount up to [`MAX_DELAY_MS`]) what it writes parses back to the same value; a
//! zero-amount delay built by hand (`Delay::Us { ms: 0 }`) comes back as
//! [`Delay::None`]. The base is written in minutes when that is exact to three
//! decimals (`G/2.5`), otherwise in seconds (`G/30.5s`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Milliseconds in a minute.
const MINUTE_MS: u64 = 60_000;
/// Milliseconds in a second.
const SECOND_MS: u64 = 1_000;

/// The largest accepted base time: 1000 minutes.
pub const MAX_BASE_MS: u64 = 1_000 * MINUTE_MS;
/// The largest accepted delay or increment: 10 minutes per move.
pub const MAX_DELAY_MS: u64 = 10 * MINUTE_MS;

/// The accepted forms, quoted in every parse error.
pub const ACCEPTED_FORMS: &str = "G/<min>, G/<min>;d<sec> (US delay; d0 = none), G/<min>;b<sec> (Bronstein), \
G/<min>;inc<sec> (increment), <min>+<sec> or <min>|<sec> (increment); e.g. G/5;d0, G/5;d3, G/5;b3, G/3;inc2, 3+2, 5|0";

/// What happens per move besides the base time (docs/rules.md §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delay {
    /// Plain sudden death.
    None,
    /// US (simple) delay: at the start of each turn the clock waits `ms` before it
    /// starts counting down. Time not used from the delay is not kept.
    Us {
        /// The delay per turn, in milliseconds.
        ms: u64,
    },
    /// Bronstein delay: when a move is completed, the time used on it is given back, up
    /// to `ms`.
    Bronstein {
        /// The most that is given back per move, in milliseconds.
        ms: u64,
    },
    /// Fischer increment: `ms` is added after each completed move.
    Increment {
        /// Added per completed move, in milliseconds.
        ms: u64,
    },
}

impl Delay {
    /// The per-move amount in milliseconds (0 for [`Delay::None`]).
    pub fn ms(&self) -> u64 {
        match *self {
            Delay::None => 0,
            Delay::Us { ms } | Delay::Bronstein { ms } | Delay::Increment { ms } => ms,
        }
    }
}

/// A single sudden-death time control with an optional delay or increment.
///
/// Serialised (serde) as its canonical string, e.g. `"G/5;d0"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TimeControl {
    /// Time for the whole game per player, in milliseconds.
    pub base_ms: u64,
    /// The per-move delay or increment.
    pub delay: Delay,
}

/// Why a time-control string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TimeControlError {
    /// Nothing but whitespace was given.
    #[error("empty time control; accepted forms: {ACCEPTED_FORMS}")]
    Empty,
    /// The overall shape is none of the accepted forms.
    #[error("time control {input:?} is not in a recognised form; accepted forms: {ACCEPTED_FORMS}")]
    UnknownForm {
        /// The text as given.
        input: String,
    },
    /// The part after `G/<min>` is not `d<sec>`, `b<sec>` or `inc<sec>`.
    #[error(
        "time control {input:?}: {part:?} is not a delay or increment (expected d<sec>, b<sec> or inc<sec>); accepted forms: {ACCEPTED_FORMS}"
    )]
    UnknownModifier {
        /// The text as given.
        input: String,
        /// The unrecognised part.
        part: String,
    },
    /// Something follows the one delay or increment allowed.
    #[error(
        "time control {input:?}: unexpected {extra:?} after the delay or increment (only one of d<sec>, b<sec>, inc<sec> may follow G/<min>)"
    )]
    ExtraText {
        /// The text as given.
        input: String,
        /// What follows.
        extra: String,
    },
    /// A number could not be read.
    #[error(
        "time control {input:?}: {field} {text:?} is not a number ({reason}); accepted forms: {ACCEPTED_FORMS}"
    )]
    BadNumber {
        /// The text as given.
        input: String,
        /// Which number: "base minutes", "base seconds", "delay seconds", ...
        field: &'static str,
        /// The offending text.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A number does not come to a whole number of milliseconds.
    #[error("time control {input:?}: {field} {text:?} is not a whole number of milliseconds")]
    NotWholeMs {
        /// The text as given.
        input: String,
        /// Which number.
        field: &'static str,
        /// The offending text.
        text: String,
    },
    /// The base time is zero.
    #[error("time control {input:?}: the base time must be more than zero")]
    ZeroBase {
        /// The text as given.
        input: String,
    },
    /// A number is beyond the accepted bound.
    #[error("time control {input:?}: {field} {text:?} is more than the maximum of {max}")]
    TooLarge {
        /// The text as given.
        input: String,
        /// Which number.
        field: &'static str,
        /// The offending text.
        text: String,
        /// The bound, in the field's unit.
        max: &'static str,
    },
}

impl TimeControl {
    /// Plain sudden death of `minutes` minutes.
    pub fn sudden_death_minutes(minutes: u64) -> Self {
        TimeControl {
            base_ms: minutes.saturating_mul(MINUTE_MS),
            delay: Delay::None,
        }
    }

    /// The control's total as US Chess counts it, in milliseconds: base minutes plus
    /// one minute per second of delay or increment (uscf-2020 "Blitz rating system",
    /// where G/3 inc/2 counts as 5 minutes). This is the same sum as FIDE's
    /// "allotted time plus 60 times any increment" (fide-b3 B.1).
    pub fn total_ms(&self) -> u64 {
        self.base_ms
            .saturating_add(self.delay.ms().saturating_mul(60))
    }

    /// [`total_ms`](Self::total_ms) in minutes.
    pub fn total_minutes(&self) -> f64 {
        self.total_ms() as f64 / MINUTE_MS as f64
    }

    /// Whether any delay or increment is in use (a non-zero amount).
    pub fn has_delay_or_increment(&self) -> bool {
        self.delay.ms() > 0
    }

    /// FIDE blitz (fide-b3 B.1): the base plus 60 times the increment is at most 10
    /// minutes per player.
    ///
    /// **Interpretation:** B.1 names only increments; a US or Bronstein delay is counted
    /// the same way as an increment (each can add at most its amount per move), so
    /// `G/5;d3` is blitz (5 + 3 = 8) and `G/5;d6` is not (11).
    pub fn fide_is_blitz(&self) -> bool {
        self.base_ms > 0 && self.total_ms() <= 10 * MINUTE_MS
    }

    /// US Chess blitz (uscf-2020 chapter 11 introduction): a single sudden-death control
    /// of 1 to 10 minutes, and (uscf-2020 1b TD tip) a total game time, counted as in
    /// [`total_ms`](Self::total_ms), of no more than 10 minutes per player.
    pub fn us_is_blitz(&self) -> bool {
        (MINUTE_MS..=10 * MINUTE_MS).contains(&self.base_ms) && self.total_ms() <= 10 * MINUTE_MS
    }

    /// Ratable under the US Chess blitz rating system (uscf-2020 "Blitz rating system"):
    /// a total, counted as in [`total_ms`](Self::total_ms), of 5 to 10 minutes, and a
    /// primary (base) control of at least 3 minutes. `G/3;inc2` is ratable; `G/3` and
    /// `G/2;inc3` are not.
    pub fn us_blitz_ratable(&self) -> bool {
        self.base_ms >= 3 * MINUTE_MS && (5 * MINUTE_MS..=10 * MINUTE_MS).contains(&self.total_ms())
    }
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let s = input.trim();
        if s.is_empty() {
            return Err(TimeControlError::Empty);
        }
        let lower = s.to_ascii_lowercase();
        let tc = if let Some(rest) = lower.strip_prefix("g/") {
            // G/<base>[sep <modifier>]
            let (base_text, modifier) = match rest.find(|c: char| c == ';' || c.is_whitespace()) {
                Some(i) => {
                    let after = rest[i..].trim_start_matches(|c: char| c.is_whitespace());
                    let after = after.strip_prefix(';').unwrap_or(after).trim_start();
                    (&rest[..i], Some(after))
                }
                None => (rest, None),
            };
            let base_ms = parse_base(input, base_text)?;
            let delay = match modifier {
                None => Delay::None,
                Some(m) => parse_modifier(input, m)?,
            };
            TimeControl { base_ms, delay }
        } else if let Some(i) = lower.find(['+', '|']) {
            let base_text = lower[..i].trim();
            let inc_text = lower[i + 1..].trim();
            let base_ms = parse_amount(input, "base minutes", base_text, MINUTE_MS)?;
            check_base(input, "base minutes", base_text, base_ms, "1000 minutes")?;
            let inc_ms = parse_amount(input, "increment seconds", inc_text, SECOND_MS)?;
            check_delay(input, "increment seconds", inc_text, inc_ms)?;
            TimeControl {
                base_ms,
                delay: nonzero(Delay::Increment { ms: inc_ms }),
            }
        } else {
            return Err(TimeControlError::UnknownForm {
                input: input.to_string(),
            });
        };
        Ok(tc)
    }
}

/// `<min>` or `<sec>s` after `G/`.
fn parse_base(input: &str, text: &str) -> Result<u64, TimeControlError> {
    if let Some(secs) = text.strip_suffix('s') {
        let ms = parse_amount(input, "base seconds", secs, SECOND_MS)?;
        check_base(input, "base seconds", secs, ms, "60000 seconds")?;
        Ok(ms)
    } else {
        let ms = parse_amount(input, "base minutes", text, MINUTE_MS)?;
        check_base(input, "base minutes", text, ms, "1000 minutes")?;
        Ok(ms)
    }
}

/// `d<sec>`, `b<sec>`, `inc<sec>`, each optionally with a `/` after the keyword.
fn parse_modifier(input: &str, m: &str) -> Result<Delay, TimeControlError> {
    let (kind, rest, field): (fn(u64) -> Delay, &str, &'static str) =
        if let Some(r) = m.strip_prefix("inc") {
            (|ms| Delay::Increment { ms }, r, "increment seconds")
        } else if let Some(r) = m.strip_prefix('d') {
            (|ms| Delay::Us { ms }, r, "delay seconds")
        } else if let Some(r) = m.strip_prefix('b') {
            (|ms| Delay::Bronstein { ms }, r, "Bronstein delay seconds")
        } else {
            return Err(TimeControlError::UnknownModifier {
                input: input.to_string(),
                part: m.to_string(),
            });
        };
    let rest = rest.strip_prefix('/').unwrap_or(rest).trim_start();
    let (number, extra) = match rest.find(|c: char| c == ';' || c.is_whitespace()) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    if !extra.is_empty() {
        return Err(TimeControlError::ExtraText {
            input: input.to_string(),
            extra: extra.to_string(),
        });
    }
    let ms = parse_amount(input, field, number, SECOND_MS)?;
    check_delay(input, field, rest, ms)?;
    Ok(nonzero(kind(ms)))
}

fn nonzero(d: Delay) -> Delay {
    if d.ms() == 0 { Delay::None } else { d }
}

fn check_base(
    input: &str,
    field: &'static str,
    text: &str,
    ms: u64,
    max: &'static str,
) -> Result<(), TimeControlError> {
    if ms == 0 {
        return Err(TimeControlError::ZeroBase {
            input: input.to_string(),
        });
    }
    if ms > MAX_BASE_MS {
        return Err(TimeControlError::TooLarge {
            input: input.to_string(),
            field,
            text: text.to_string(),
            max,
        });
    }
    Ok(())
}

fn check_delay(
    input: &str,
    field: &'static str,
    text: &str,
    ms: u64,
) -> Result<(), TimeControlError> {
    if ms > MAX_DELAY_MS {
        return Err(TimeControlError::TooLarge {
            input: input.to_string(),
            field,
            text: text.to_string(),
            max: "600 seconds",
        });
    }
    Ok(())
}

/// Reads an unsigned decimal number (`12`, `2.5`, `.5` is refused) and converts it to
/// milliseconds with `unit_ms` per whole unit, requiring an exact result.
fn parse_amount(
    input: &str,
    field: &'static str,
    text: &str,
    unit_ms: u64,
) -> Result<u64, TimeControlError> {
    let bad = |reason: &'static str| TimeControlError::BadNumber {
        input: input.to_string(),
        field,
        text: text.to_string(),
        reason,
    };
    let too_large = || TimeControlError::TooLarge {
        input: input.to_string(),
        field,
        text: text.to_string(),
        max: if unit_ms == MINUTE_MS {
            "1000 minutes"
        } else {
            "600 seconds"
        },
    };
    if text.is_empty() {
        return Err(bad("missing"));
    }
    let (int_part, frac_part) = match text.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (text, None),
    };
    if int_part.is_empty() {
        return Err(bad("no digits before the decimal point"));
    }
    if !int_part.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("only digits and one decimal point are allowed"));
    }
    // Leading zeros are harmless; strip them so long zero runs do not overflow.
    let int_digits = int_part.trim_start_matches('0');
    if int_digits.len() > 12 {
        return Err(too_large());
    }
    let int_value: u64 = if int_digits.is_empty() {
        0
    } else {
        int_digits.parse().map_err(|_| bad("not a whole number"))?
    };
    let mut ms = int_value.checked_mul(unit_ms).ok_or_else(too_large)?;
    if let Some(frac) = frac_part {
        if frac.is_empty() {
            return Err(bad("no digits after the decimal point"));
        }
        if !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad("only digits and one decimal point are allowed"));
        }
        let frac = frac.trim_end_matches('0');
        if frac.len() > 6 {
            return Err(TimeControlError::NotWholeMs {
                input: input.to_string(),
                field,
                text: text.to_string(),
            });
        }
        if !frac.is_empty() {
            let digits: u64 = frac.parse().map_err(|_| bad("bad fraction"))?;
            let scale = 10u64.pow(frac.len() as u32);
            let numerator = digits * unit_ms; // ≤ 999_999 × 60_000, no overflow
            if !numerator.is_multiple_of(scale) {
                return Err(TimeControlError::NotWholeMs {
                    input: input.to_string(),
                    field,
                    text: text.to_string(),
                });
            }
            ms = ms.checked_add(numerator / scale).ok_or_else(too_large)?;
        }
    }
    Ok(ms)
}

/// Writes `ms / unit_ms` as a decimal with no trailing zeros. Only called when the
/// result is exact with at most three decimals.
fn write_decimal(f: &mut fmt::Formatter<'_>, ms: u64, unit_ms: u64) -> fmt::Result {
    let whole = ms / unit_ms;
    let rest = ms % unit_ms;
    if rest == 0 {
        return write!(f, "{whole}");
    }
    // thousandths of the unit
    let thousandths = rest * 1000 / unit_ms;
    let frac = format!("{thousandths:03}");
    write!(f, "{whole}.{}", frac.trim_end_matches('0'))
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("G/")?;
        // Minutes when that is exact with at most three decimals (a multiple of 60 ms),
        // otherwise seconds with the `s` suffix (always exact to the millisecond).
        if self.base_ms.is_multiple_of(60) {
            write_decimal(f, self.base_ms, MINUTE_MS)?;
        } else {
            write_decimal(f, self.base_ms, SECOND_MS)?;
            f.write_str("s")?;
        }
        match self.delay {
            Delay::None => f.write_str(";d0"),
            Delay::Us { ms } => {
                f.write_str(";d")?;
                write_decimal(f, ms, SECOND_MS)
            }
            Delay::Bronstein { ms } => {
                f.write_str(";b")?;
                write_decimal(f, ms, SECOND_MS)
            }
            Delay::Increment { ms } => {
                f.write_str(";inc")?;
                write_decimal(f, ms, SECOND_MS)
            }
        }
    }
}

impl TryFrom<String> for TimeControl {
    type Error = TimeControlError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<TimeControl> for String {
    fn from(tc: TimeControl) -> String {
        tc.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn us_forms() {
        assert_eq!(
            tc("G/5"),
            TimeControl {
                base_ms: 300_000,
                delay: Delay::None
            }
        );
        assert_eq!(tc("G/5;d0"), tc("G/5"));
        assert_eq!(tc("G/5;d3").delay, Delay::Us { ms: 3000 });
        assert_eq!(tc("G/5;b3").delay, Delay::Bronstein { ms: 3000 });
        assert_eq!(
            tc("G/3;inc2"),
            TimeControl {
                base_ms: 180_000,
                delay: Delay::Increment { ms: 2000 }
            }
        );
        assert_eq!(tc("g/3 inc/2"), tc("G/3;inc2"));
    }

    #[test]
    fn online_forms() {
        assert_eq!(tc("3+2"), tc("G/3;inc2"));
        assert_eq!(tc("5|0"), tc("G/5"));
        assert_eq!(tc(" 5 | 0 "), tc("G/5"));
    }
}
