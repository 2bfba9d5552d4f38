//! The server's metrics for `GET /metrics`, kept and written out (OpenMetrics text,
//! which Prometheus reads) by `prometheus-client`. Counters are registered without their
//! `_total`, which the crate adds: the names the server exposes are those of
//! docs/protocol.md.

use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Upper bounds of the commit-latency histogram, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 5.0,
];

/// The content type of [`Metrics::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub struct Metrics {
    pub live_games: Gauge,
    pub loaded_games: Gauge,
    pub loaded_evenings: Gauge,
    pub sockets: Gauge,
    pub events: Counter,
    pub refused: Counter,
    pub frame_errors: Counter,
    pub commit_failures: Counter,
    commit_seconds: Histogram,
    pub lag_credit_ms: Counter,
    pub lag_credits: Counter,
    pub flags: Counter,
    /// Stored games that could not be loaded (damaged), counted at start.
    pub damaged_games: Gauge,
    /// Games aborted because they expired before anyone acted on them.
    pub aborted_games: Counter,
    /// Games with a publish/subscribe channel, and games whose clock the heartbeat
    /// covers: set when rendered.
    bus_channels: Gauge,
    clocks_beating: Gauge,
    /// Practice computers playing (each a task).
    pub practice_computers: Gauge,
    /// Their UCI engine processes.
    pub engine_processes: Gauge,
    /// Copies of a game made for readers (a socket's state, `GET`): at most one per
    /// stored view, however many readers.
    pub game_copies: Counter,
    /// A cluster's machinery (issue 22, docs/cluster.md); zero on a single node.
    pub cluster: ClusterMetrics,
    registry: Registry,
}

/// What a cluster node counts (docs/cluster.md, "Operations").
pub struct ClusterMetrics {
    /// Games whose lease this node holds.
    pub owned_games: Gauge,
    /// Requests this node sent to a game's owner on another node.
    pub routed: Counter,
    /// Requests this node answered as the owner for another node.
    pub routed_in: Counter,
    /// Game sockets told to reconnect to the game's owner (`reconnect`, then 4302).
    pub redirected: Counter,
    /// Requests on this node's subject refused: unreadable, without a reply subject, or
    /// naming a token that is not the game's (a node never sends one: forged).
    pub refused_requests: Counter,
    /// Messages of games served elsewhere relayed to this node's sockets.
    pub relayed: Counter,
    /// Messages from NATS that were not readable (an interest, a game's message, an
    /// evening's notice): dropped. Their warnings are logged at most once every 10 s
    /// of each kind.
    pub unreadable: Counter,
    /// Messages of this node's games published on NATS (only while another node wants
    /// them: it has a socket on the game).
    pub published: Counter,
    /// Renewals of all this node's leases (one statement each).
    pub lease_renewals: Counter,
    /// Renewals that failed (the database did not answer).
    pub lease_renewal_failures: Counter,
    /// Games this node took over from a node whose lease expired (or from none).
    pub takeovers: Counter,
    /// Group-commit requests refused because the game's lease was no longer this
    /// node's at its epoch (the fencing token).
    pub fenced_writes: Counter,
    /// Games this node stopped serving because it lost their lease.
    pub dropped_games: Counter,
}

/// A gauge registered as `name`.
fn gauge(registry: &mut Registry, name: &str, help: &str) -> Gauge {
    let g = Gauge::default();
    registry.register(name, help, g.clone());
    g
}

/// A counter registered as `name` (the crate adds `_total`).
fn counter(registry: &mut Registry, name: &str, help: &str) -> Counter {
    let c = Counter::default();
    registry.register(name, help, c.clone());
    c
}

/// What the server holds now, the first metrics registered (and written out).
struct Held {
    damaged_games: Gauge,
    aborted_games: Counter,
    bus_channels: Gauge,
    clocks_beating: Gauge,
    live_games: Gauge,
    loaded_games: Gauge,
    loaded_evenings: Gauge,
    sockets: Gauge,
    practice_computers: Gauge,
    engine_processes: Gauge,
}

impl Held {
    fn register(r: &mut Registry) -> Held {
        Held {
            damaged_games: gauge(
                r,
                "flagfall_damaged_games",
                "Live games found damaged at start and not served (see the log)",
            ),
            aborted_games: counter(
                r,
                "flagfall_aborted_games",
                "Games aborted by this process because nobody acted on them before they expired",
            ),
            bus_channels: gauge(
                r,
                "flagfall_bus_channels",
                "Games with a publish/subscribe channel (one with a socket or a practice computer subscribed)",
            ),
            clocks_beating: gauge(
                r,
                "flagfall_clocks_beating",
                "Games whose running clock the heartbeat covers (started, not finished, loaded)",
            ),
            live_games: gauge(r, "flagfall_live_games", "Games loaded and not finished"),
            loaded_games: gauge(r, "flagfall_loaded_games", "Games with a running task"),
            loaded_evenings: gauge(
                r,
                "flagfall_loaded_evenings",
                "Evenings with a running task",
            ),
            sockets: gauge(r, "flagfall_sockets", "Open WebSockets"),
            practice_computers: gauge(
                r,
                "flagfall_practice_computers",
                "Practice computers playing",
            ),
            engine_processes: gauge(
                r,
                "flagfall_engine_processes",
                "UCI engine processes of practice computers",
            ),
        }
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        let mut registry = Registry::default();
        let r = &mut registry;
        let held = Held::register(r);
        // Fields in the order they are registered (and written out).
        Metrics {
            damaged_games: held.damaged_games,
            aborted_games: held.aborted_games,
            bus_channels: held.bus_channels,
            clocks_beating: held.clocks_beating,
            live_games: held.live_games,
            loaded_games: held.loaded_games,
            loaded_evenings: held.loaded_evenings,
            sockets: held.sockets,
            practice_computers: held.practice_computers,
            engine_processes: held.engine_processes,
            events: counter(
                r,
                "flagfall_events",
                "Events committed (rate() gives events/s)",
            ),
            refused: counter(
                r,
                "flagfall_refused",
                "Actions refused by the arbiter or the server",
            ),
            frame_errors: counter(
                r,
                "flagfall_frame_errors",
                "Client frames that were not valid events",
            ),
            commit_failures: counter(r, "flagfall_commit_failures", "Group commits that failed"),
            lag_credit_ms: counter(
                r,
                "flagfall_lag_compensation_ms",
                "Lag compensation given, milliseconds",
            ),
            lag_credits: counter(
                r,
                "flagfall_lag_compensations",
                "Presses given lag compensation",
            ),
            flags: counter(r, "flagfall_flags", "Flag falls seen on the server's clock"),
            game_copies: counter(
                r,
                "flagfall_game_copies",
                "Copies of a game's stored state made for readers (at most one per commit, however many readers)",
            ),
            cluster: ClusterMetrics::register(r),
            commit_seconds: {
                let h = Histogram::new(BUCKETS);
                r.register("flagfall_commit_seconds", "Group commit latency", h.clone());
                h
            },
            registry,
        }
    }
}

impl ClusterMetrics {
    /// A cluster's metrics, registered in `r`.
    fn register(r: &mut Registry) -> ClusterMetrics {
        ClusterMetrics {
            owned_games: gauge(
                r,
                "flagfall_cluster_owned_games",
                "Games whose lease this node holds (a cluster; 0 on a single node)",
            ),
            routed: counter(
                r,
                "flagfall_cluster_routed",
                "Requests sent over NATS to a game's owner on another node",
            ),
            routed_in: counter(
                r,
                "flagfall_cluster_routed_in",
                "Requests answered as a game's owner for another node",
            ),
            redirected: counter(
                r,
                "flagfall_cluster_redirected",
                "Game sockets told to reconnect to the node that serves their game",
            ),
            refused_requests: counter(
                r,
                "flagfall_cluster_refused_requests",
                "Requests on this node's NATS subject refused: unreadable, without a reply subject, or with a token not the game's",
            ),
            relayed: counter(
                r,
                "flagfall_cluster_relayed",
                "Messages of games served elsewhere relayed to this node's sockets",
            ),
            unreadable: counter(
                r,
                "flagfall_cluster_unreadable",
                "Messages from NATS that were not readable (an interest, a game's message, an evening's notice): dropped",
            ),
            published: counter(
                r,
                "flagfall_cluster_published",
                "Messages of this node's games published on NATS (only while another node has a socket on the game)",
            ),
            lease_renewals: counter(
                r,
                "flagfall_cluster_lease_renewals",
                "Renewals of all this node's leases (one statement each)",
            ),
            lease_renewal_failures: counter(
                r,
                "flagfall_cluster_lease_renewal_failures",
                "Lease renewals that failed",
            ),
            takeovers: counter(
                r,
                "flagfall_cluster_takeovers",
                "Games taken over after their lease expired (or with none)",
            ),
            fenced_writes: counter(
                r,
                "flagfall_cluster_fenced_writes",
                "Commits refused: the game's lease was no longer this node's at its epoch",
            ),
            dropped_games: counter(
                r,
                "flagfall_cluster_dropped_games",
                "Games this node stopped serving because it lost their lease",
            ),
        }
    }
}

impl Metrics {
    /// A group commit of `events` events that took `took`.
    pub fn observe_commit(&self, took: Duration, events: usize) {
        self.commit_seconds.observe(took.as_secs_f64());
        self.events.inc_by(events as u64);
    }

    /// The text exposition (OpenMetrics, [`CONTENT_TYPE`]), with the bus's channel count
    /// and the clocks the heartbeat covers.
    pub fn render(&self, bus_channels: usize, clocks_beating: usize) -> String {
        self.bus_channels
            .set(i64::try_from(bus_channels).unwrap_or(i64::MAX));
        self.clocks_beating
            .set(i64::try_from(clocks_beating).unwrap_or(i64::MAX));
        let mut out = String::new();
        // Writing into a String cannot fail.
        if let Err(e) = encode(&mut out, &self.registry) {
            tracing::error!(error = %e, "metrics could not be written");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_cumulative_and_names_are_stable() {
        let m = Metrics::default();
        m.observe_commit(Duration::from_micros(700), 3);
        m.observe_commit(Duration::from_millis(30), 1);
        m.sockets.inc();
        m.lag_credit_ms.inc_by(120);
        let text = m.render(0, 0);
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
        assert!(text.contains("flagfall_sockets 1\n"), "{text}");
        assert!(
            text.contains("flagfall_lag_compensation_ms_total 120\n"),
            "{text}"
        );
        // Every name docs/protocol.md lists is exposed.
        for name in [
            "flagfall_live_games",
            "flagfall_loaded_games",
            "flagfall_loaded_evenings",
            "flagfall_damaged_games",
            "flagfall_practice_computers",
            "flagfall_engine_processes",
            "flagfall_refused_total",
            "flagfall_frame_errors_total",
            "flagfall_flags_total",
            "flagfall_commit_failures_total",
            "flagfall_lag_compensations_total",
            "flagfall_game_copies_total",
        ] {
            assert!(text.contains(&format!("\n{name} 0\n")), "{name}: {text}");
        }
    }
}
