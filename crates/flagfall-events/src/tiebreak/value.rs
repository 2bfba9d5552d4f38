//! Exact tiebreak values: a reduced rational number.
//!
//! Tiebreaks are sums of half-points (Buchholz), products of half-points (Sonneborn-Berger),
//! averages (AOB) or whole ratings (ARO, TPR). All of them are exact rationals, so they are
//! compared exactly; [`Value::to_f64`] is for display only.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// An exact rational value `num / den`, always reduced with `den > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Value {
    num: i64,
    den: i64,
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

impl Value {
    /// Zero.
    pub const ZERO: Value = Value { num: 0, den: 1 };

    /// `num / den`, reduced. A zero denominator yields zero (only reachable by averaging an
    /// empty set, which the tiebreaks define as zero).
    pub fn new(num: i64, den: i64) -> Value {
        if den == 0 {
            return Value::ZERO;
        }
        let g = gcd(num, den).max(1);
        let sign = if den < 0 { -1 } else { 1 };
        Value {
            num: sign * num / g,
            den: sign * den / g,
        }
    }

    /// A whole number.
    pub fn int(n: i64) -> Value {
        Value { num: n, den: 1 }
    }

    /// A count of half-points, as points.
    pub fn half_points(h: i64) -> Value {
        Value::new(h, 2)
    }

    /// Numerator (reduced).
    pub fn numer(self) -> i64 {
        self.num
    }

    /// Denominator (reduced, positive).
    pub fn denom(self) -> i64 {
        self.den
    }

    /// For display only.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// Rounded to the nearest whole number, halves rounded up (FIDE C.07 art. 10.1 rounding).
    pub fn round_half_up(self) -> i64 {
        // floor((2n + d) / 2d)
        (2 * self.num + self.den).div_euclid(2 * self.den)
    }
}

impl Default for Value {
    fn default() -> Value {
        Value::ZERO
    }
}

impl std::ops::Add for Value {
    type Output = Value;
    fn add(self, rhs: Value) -> Value {
        Value::new(self.num * rhs.den + rhs.num * self.den, self.den * rhs.den)
    }
}

impl std::ops::Sub for Value {
    type Output = Value;
    fn sub(self, rhs: Value) -> Value {
        Value::new(self.num * rhs.den - rhs.num * self.den, self.den * rhs.den)
    }
}

impl std::ops::Mul for Value {
    type Output = Value;
    fn mul(self, rhs: Value) -> Value {
        Value::new(self.num * rhs.num, self.den * rhs.den)
    }
}

impl std::iter::Sum for Value {
    fn sum<I: Iterator<Item = Value>>(iter: I) -> Value {
        iter.fold(Value::ZERO, |a, b| a + b)
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        (i128::from(self.num) * i128::from(other.den))
            .cmp(&(i128::from(other.num) * i128::from(self.den)))
    }
}

impl std::fmt::Display for Value {
    /// Whole numbers as `12`, halves as `12.5`, quarters as `12.25`, anything else as `37/3`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.den {
            1 => write!(f, "{}", self.num),
            2 | 4 => write!(f, "{}", self.to_f64()),
            _ => write!(f, "{}/{}", self.num, self.den),
        }
    }
}
