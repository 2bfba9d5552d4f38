//! Counters for `GET /metrics` (Prometheus text format).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// Upper bounds of the commit-latency histogram, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 5.0,
];

#[derive(Default)]
pub struct Metrics {
    pub live_games: AtomicU64,
    pub loaded_games: AtomicU64,
    pub sockets: AtomicU64,
    pub events: AtomicU64,
    pub refused: AtomicU64,
    pub frame_errors: AtomicU64,
    pub commits: AtomicU64,
    pub commit_failures: AtomicU64,
    commit_buckets: [AtomicU64; BUCKETS.len()],
    commit_sum_us: AtomicU64,
    pub lag_credit_ms: AtomicU64,
    pub lag_credits: AtomicU64,
    pub flags: AtomicU64,
    /// Stored games that could not be loaded (damaged), counted at start.
    pub damaged_games: AtomicU64,
    /// Practice computers playing (each a task).
    pub practice_computers: AtomicU64,
    /// Their UCI engine processes.
    pub engine_processes: AtomicU64,
}

impl Metrics {
    pub fn observe_commit(&self, took: Duration, events: usize) {
        let s = took.as_secs_f64();
        for (i, b) in BUCKETS.iter().enumerate() {
            if s <= *b {
                self.commit_buckets[i].fetch_add(1, Relaxed);
            }
        }
        self.commit_sum_us
            .fetch_add(took.as_micros().min(u64::MAX as u128) as u64, Relaxed);
        self.commits.fetch_add(1, Relaxed);
        self.events.fetch_add(events as u64, Relaxed);
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut gauge = |name: &str, help: &str, kind: &str, v: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}"
            );
        };
        gauge(
            "flagfall_damaged_games",
            "Live games found damaged at start and not served (see the log).",
            "gauge",
            self.damaged_games.load(Relaxed),
        );
        gauge(
            "flagfall_live_games",
            "Games loaded and not finished.",
            "gauge",
            self.live_games.load(Relaxed),
        );
        gauge(
            "flagfall_loaded_games",
            "Games with a running task.",
            "gauge",
            self.loaded_games.load(Relaxed),
        );
        gauge(
            "flagfall_sockets",
            "Open WebSockets.",
            "gauge",
            self.sockets.load(Relaxed),
        );
        gauge(
            "flagfall_practice_computers",
            "Practice computers playing.",
            "gauge",
            self.practice_computers.load(Relaxed),
        );
        gauge(
            "flagfall_engine_processes",
            "UCI engine processes of practice computers.",
            "gauge",
            self.engine_processes.load(Relaxed),
        );
        gauge(
            "flagfall_events_total",
            "Events committed (rate() gives events/s).",
            "counter",
            self.events.load(Relaxed),
        );
        gauge(
            "flagfall_refused_total",
            "Actions refused by the arbiter or the server.",
            "counter",
            self.refused.load(Relaxed),
        );
        gauge(
            "flagfall_frame_errors_total",
            "Client frames that were not valid events.",
            "counter",
            self.frame_errors.load(Relaxed),
        );
        gauge(
            "flagfall_commit_failures_total",
            "Group commits that failed.",
            "counter",
            self.commit_failures.load(Relaxed),
        );
        gauge(
            "flagfall_lag_compensation_ms_total",
            "Lag compensation given, milliseconds.",
            "counter",
            self.lag_credit_ms.load(Relaxed),
        );
        gauge(
            "flagfall_lag_compensations_total",
            "Presses given lag compensation.",
            "counter",
            self.lag_credits.load(Relaxed),
        );
        gauge(
            "flagfall_flags_total",
            "Flag falls seen on the server's clock.",
            "counter",
            self.flags.load(Relaxed),
        );
        let name = "flagfall_commit_seconds";
        let _ = writeln!(
            out,
            "# HELP {name} Group commit latency.\n# TYPE {name} histogram"
        );
        for (i, b) in BUCKETS.iter().enumerate() {
            let _ = writeln!(
                out,
                "{name}_bucket{{le=\"{b}\"}} {}",
                self.commit_buckets[i].load(Relaxed)
            );
        }
        let count = self.commits.load(Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let _ = writeln!(
            out,
            "{name}_sum {}",
            self.commit_sum_us.load(Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "{name}_count {count}");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_cumulative() {
        let m = Metrics::default();
        m.observe_commit(Duration::from_micros(700), 3);
        m.observe_commit(Duration::from_millis(30), 1);
        let text = m.render();
        assert!(
            text.contains("flagfall_commit_seconds_bucket{le=\"0.001\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("flagfall_commit_seconds_bucket{le=\"0.05\"} 2\n"),
            "{text}"
        );
        assert!(text.contains("flagfall_commit_seconds_count 2\n"), "{text}");
        assert!(text.contains("flagfall_events_total 4\n"), "{text}");
    }
}
