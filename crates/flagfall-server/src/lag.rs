//! Lag compensation (docs/protocol.md, "Lag compensation"): the quota of lichess's
//! scalachess `LagTracker`, and the round trip a socket measured with its own pings.
//!
//! A press may be credited part of the network delay: the least of what the client
//! claims (`lag_ms`), half the round trip the server measured from its own ping to the
//! pong that answers it (bounded by the transport's round trip, which the client cannot
//! stretch by holding its pong back: [`Pings::rtt_for_credit_ms`]), and the player's
//! quota. The credit is taken from the quota; then each press adds the gain to it. The
//! quota starts at 3 times the gain and never exceeds 7 times the gain. The gain per
//! move is `min(100, 0.4 × (base s + 40 × increment s) + 15)` centiseconds (scalachess
//! `LagTracker.init`, with `Clock.Config.estimateTotalSeconds`).

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
///
/// A genuine pong may still be held back: the client's application decides when it
/// answers. So the round trip a credit may use is bounded by one the client cannot
/// stretch ([`Pings::rtt_for_credit_ms`]): the transport's (the kernel's TCP round trip,
/// or a trusted proxy's), else an estimate that rises only a quarter of the way to each
/// new measurement and falls at once, so that a sudden long pong earns little.
#[derive(Debug, Default)]
pub struct Pings {
    /// The outstanding ping: its nonce and when it went out.
    outstanding: Option<([u8; 8], Instant)>,
    rtt: Option<Duration>,
    /// The slowly rising estimate (used where the transport measures nothing).
    estimate: Option<Duration>,
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
                let r = sent.elapsed();
                self.rtt = Some(r);
                self.estimate = Some(match self.estimate {
                    None => r / ESTIMATE_RISE,
                    Some(e) if r <= e => r,
                    Some(e) => e + (r - e) / ESTIMATE_RISE,
                });
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
        self.rtt.map(ms_up)
    }

    /// The round trip a press's credit may use (half of it, [`Quota::press`]), in whole
    /// milliseconds: the last one measured by the pings, bounded by what the transport
    /// vouches for (`transport_us`, [`crate::limits::Transport::rtt_bound_us`]), or,
    /// where the transport measures nothing, by the slowly rising estimate. `None`: no
    /// ping answered, no credit.
    pub fn rtt_for_credit_ms(&self, transport_us: Option<u64>) -> Option<u64> {
        let rtt = self.rtt?;
        let bound = match transport_us {
            Some(us) => Duration::from_micros(us),
            None => self.estimate?,
        };
        Some(ms_up(rtt.min(bound)))
    }
}

/// The estimate moves this fraction of the way up to a longer round trip.
const ESTIMATE_RISE: u32 = 4;

fn ms_up(d: Duration) -> u64 {
    (d.as_micros() as u64).div_ceil(1000)
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

    #[tokio::test(start_paused = true)]
    async fn a_held_pong_earns_little() {
        let mut p = Pings::default();
        let answer = |p: &mut Pings, after: Duration| {
            let nonce = p.ping();
            async move {
                tokio::time::advance(after).await;
                nonce
            }
        };
        let n = answer(&mut p, Duration::from_millis(100)).await;
        assert!(p.pong(&n));
        // A transport bound of 30 ms caps a 100 ms pong.
        assert_eq!(p.rtt_for_credit_ms(Some(30_000)), Some(30));
        // Without one, the estimate: a quarter of the first.
        assert_eq!(p.rtt_for_credit_ms(None), Some(25));
        // A pong held 4 s raises it by a quarter of the gap only.
        let n = answer(&mut p, Duration::from_secs(4)).await;
        assert!(p.pong(&n));
        assert_eq!(p.rtt_ms(), Some(4000));
        assert_eq!(p.rtt_for_credit_ms(None), Some(25 + (4000 - 25) / 4 + 1));
        assert_eq!(p.rtt_for_credit_ms(Some(1_000)), Some(1));
        // A quick one brings it down at once.
        let n = answer(&mut p, Duration::from_millis(20)).await;
        assert!(p.pong(&n));
        assert_eq!(p.rtt_for_credit_ms(None), Some(20));
    }
}
