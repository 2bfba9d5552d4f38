//! Lag compensation (docs/protocol.md, "Lag compensation"): the quota of lichess's
//! scalachess `LagTracker`, and the round trip a socket measured with its own pings.
//!
//! A press may be credited part of the network delay: the least of what the client
//! claims (`lag_ms`), half the round trip the server measured from its own ping to the
//! pong that answers it, and the player's quota. The quota starts at 3 times the gain,
//! each press adds the gain, it never exceeds 7 times the gain, and the credit is taken
//! from it. The gain per move is `min(100, 0.4 × (base s + 40 × increment s) + 15)`
//! centiseconds (scalachess `LagTracker.init`, with `Clock.Config.estimateTotalSeconds`).

use std::time::Duration;

use flagfall_core::timecontrol::TimeControl;
use tokio::time::Instant;

/// The quota at the start of a game, in gains (scalachess `quotaStart`).
pub const QUOTA_START_GAINS: u64 = 3;
/// The largest quota, in gains (scalachess `quotaMaxMultiplier`).
pub const QUOTA_MAX_GAINS: u64 = 7;

/// The quota gain per move of a time control, in milliseconds: lichess's
/// `min(100, 0.4 × estimateTotalSeconds + 15)` centiseconds, where
/// `estimateTotalSeconds = base s + 40 × increment s` (a delay counts as an increment).
pub fn quota_gain_ms(tc: &TimeControl) -> u64 {
    let total_s = tc.base_ms / 1000 + 40 * (tc.delay.ms() / 1000);
    let centis = (total_s * 2 / 5 + 15).min(100);
    centis * 10
}

/// One player's lag quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    gain: u64,
    left: u64,
}

impl Quota {
    /// A new game's quota: 3 gains.
    pub fn new(tc: &TimeControl) -> Quota {
        let gain = quota_gain_ms(tc);
        Quota {
            gain,
            left: gain * QUOTA_START_GAINS,
        }
    }

    /// What is left, in milliseconds.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// A press that claims `lag_ms` with `rtt_ms` measured (none: no credit): the credit
    /// given, taken from the quota, which then gains one gain up to its cap
    /// (scalachess `onMove`).
    pub fn press(&mut self, lag_ms: Option<u64>, rtt_ms: Option<u64>) -> u64 {
        let bound = rtt_ms.map_or(0, |r| r.div_ceil(2));
        let credit = lag_ms.unwrap_or(0).min(bound).min(self.left);
        self.left = (self.left - credit + self.gain).min(self.gain * QUOTA_MAX_GAINS);
        credit
    }
}

/// The pings a socket sent and the round trip their pongs showed. Only a pong whose
/// payload is the nonce of a ping this socket sent counts, timed from when the server
/// sent that ping; unsolicited or replayed pongs are ignored.
#[derive(Debug, Default)]
pub struct Pings {
    /// The outstanding ping: its nonce and when it went out.
    outstanding: Option<([u8; 8], Instant)>,
    rtt: Option<Duration>,
    /// Pings sent in a row that no pong answered.
    unanswered: u32,
}

impl Pings {
    /// The payload of a new ping, remembered as sent now (a fresh random nonce; an
    /// earlier ping still unanswered no longer counts).
    pub fn ping(&mut self) -> [u8; 8] {
        if self.outstanding.is_some() {
            self.unanswered += 1;
        }
        let mut nonce = [0u8; 8];
        if getrandom::fill(&mut nonce).is_err() {
            // No randomness: send nothing that a pong could match.
            self.outstanding = None;
            return nonce;
        }
        self.outstanding = Some((nonce, Instant::now()));
        nonce
    }

    /// A pong with `payload`: counted when it answers the outstanding ping.
    pub fn pong(&mut self, payload: &[u8]) -> bool {
        match self.outstanding {
            Some((nonce, sent)) if payload == nonce => {
                self.rtt = Some(sent.elapsed());
                self.outstanding = None;
                self.unanswered = 0;
                true
            }
            _ => false,
        }
    }

    /// Pings sent in a row before the outstanding one that no pong answered.
    pub fn unanswered(&self) -> u32 {
        self.unanswered
    }

    /// The last round trip measured, in whole milliseconds (rounded up).
    pub fn rtt_ms(&self) -> Option<u64> {
        self.rtt.map(|d| (d.as_micros() as u64).div_ceil(1000))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap()
    }

    #[test]
    fn the_gain_follows_lichess() {
        // 3+2: 180 + 80 = 260 s; 0.4 × 260 + 15 = 119, capped at 100 cs.
        assert_eq!(quota_gain_ms(&tc("3+2")), 1000);
        // 1+0: 0.4 × 60 + 15 = 39 cs.
        assert_eq!(quota_gain_ms(&tc("1+0")), 390);
        // G/5;d0: 0.4 × 300 + 15 = 135 → 100 cs.
        assert_eq!(quota_gain_ms(&tc("G/5;d0")), 1000);
        // No base time at all: 15 cs.
        assert_eq!(quota_gain_ms(&TimeControl::sudden_death_minutes(0)), 150);
    }

    #[test]
    fn the_quota_starts_at_three_gains_and_stops_at_seven() {
        let mut q = Quota::new(&tc("1+0"));
        assert_eq!(q.left(), 1170);
        assert_eq!(q.press(Some(10_000), Some(20_000)), 1170);
        assert_eq!(q.left(), 390);
        for _ in 0..20 {
            q.press(Some(0), Some(10));
        }
        assert_eq!(q.left(), 7 * 390);
        // No measured round trip, no credit, whatever the client claims.
        assert_eq!(q.press(Some(10_000), None), 0);
        // Half the round trip at most.
        assert_eq!(q.press(Some(10_000), Some(41)), 21);
    }

    #[test]
    fn only_the_answer_to_our_ping_counts() {
        let mut p = Pings::default();
        assert!(!p.pong(&0u64.to_be_bytes()));
        assert_eq!(p.rtt_ms(), None);
        let nonce = p.ping();
        assert!(!p.pong(&[1, 2, 3]));
        assert!(p.pong(&nonce));
        assert!(p.rtt_ms().is_some());
        // The same answer again is not a new measurement.
        assert!(!p.pong(&nonce));
    }
}
