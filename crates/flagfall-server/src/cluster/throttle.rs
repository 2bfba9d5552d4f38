//! A warning logged at most once every [`EVERY`] per kind of unreadable NATS message,
//! with the count of those passed over since. A node with cluster credentials that
//! publishes junk (a bug, or stolen credentials) costs the other nodes a counter
//! increment a message (`flagfall_cluster_unreadable_total`), not a log line.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The shortest time between two warnings of one kind.
pub const EVERY: Duration = Duration::from_secs(10);

/// One kind of warning's pace: the first passes, then one per [`EVERY`].
pub struct Throttle {
    next: Mutex<Option<Instant>>,
    held: AtomicU64,
}

impl Throttle {
    pub const fn new() -> Throttle {
        Throttle {
            next: Mutex::new(None),
            held: AtomicU64::new(0),
        }
    }

    /// Whether a warning at `now` is logged: `Some(n)` with the `n` held back since the
    /// last one logged, or `None` (counted, to be reported with the next).
    pub fn pass(&self, now: Instant) -> Option<u64> {
        let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
        match *next {
            Some(at) if now < at => {
                self.held.fetch_add(1, Ordering::Relaxed);
                None
            }
            _ => {
                *next = Some(now + EVERY);
                Some(self.held.swap(0, Ordering::Relaxed))
            }
        }
    }
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle::new()
    }
}

/// Log `$msg` (with `$fields`) as a warning unless `$throttle` held it back; the count
/// of those held back since the last is logged as `held_back`.
macro_rules! warn_throttled {
    ($throttle:expr, $($fields:tt)*) => {
        if let Some(held_back) = $throttle.pass(std::time::Instant::now()) {
            tracing::warn!(held_back, $($fields)*);
        }
    };
}
pub(crate) use warn_throttled;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_passes_then_one_a_period_with_the_count_held_back() {
        let t = Throttle::new();
        let t0 = Instant::now();
        assert_eq!(t.pass(t0), Some(0));
        for i in 1..=5 {
            assert_eq!(t.pass(t0 + Duration::from_millis(i)), None);
        }
        assert_eq!(t.pass(t0 + EVERY - Duration::from_millis(1)), None);
        assert_eq!(t.pass(t0 + EVERY), Some(6), "six held back, reported");
        assert_eq!(t.pass(t0 + EVERY + Duration::from_secs(1)), None);
        assert_eq!(t.pass(t0 + EVERY * 3), Some(1));
    }
}
