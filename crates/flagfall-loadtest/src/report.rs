//! The figures of a run, each kept once: what can be derived (sockets, rates, messages,
//! ratios) is computed where it is printed.

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub open: OpenLoop,
    /// The cluster's figures, when the run had several nodes.
    pub cluster: Option<Cluster>,
    /// The closed-loop comparison, when it ran (`conns` > 0).
    pub closed: Option<ClosedLoop>,
    /// The open-file limit of the bots' process.
    pub nofile_limit: u64,
}

/// Phase 1: `games` games, two bot sockets each, at a set rate of moves.
#[derive(Debug, Clone, Default)]
pub struct OpenLoop {
    pub games: usize,
    /// Moves acknowledged.
    pub moves: u64,
    pub seconds: f64,
    /// Move to durable acknowledgement, milliseconds.
    pub latency: Latency,
    /// Growth of the server process's resident memory while the games opened, per game
    /// (0 when the server is external).
    pub server_rss_per_game_kib: f64,
    /// The same for this process (the bots).
    pub bots_rss_per_game_kib: f64,
    /// CPU per move: the server process, and the bots (microseconds).
    pub server_cpu_us_per_move: f64,
    pub bots_cpu_us_per_move: f64,
    /// The processes the bots ran in (this one, and children when the sockets needed
    /// more files than one process may open).
    pub bots_processes: usize,
    /// Seconds the games took to open (created, both players connected).
    pub opened_in_s: f64,
    /// Sockets the bots reopened on another node (a cluster: a node gone, a game moved).
    pub reconnects: u64,
    /// Events the bots sent that the store does not hold, and stored events no bot sent.
    pub lost: u64,
    pub duplicated: u64,
    /// Games that did not open and bots that failed.
    pub errors: u64,
}

impl OpenLoop {
    /// Two bots per game.
    pub fn sockets(&self) -> usize {
        2 * self.games
    }

    pub fn moves_per_sec(&self) -> f64 {
        self.moves as f64 / self.seconds
    }
}

/// A run over several nodes.
#[derive(Debug, Clone, Default)]
pub struct Cluster {
    pub nodes: usize,
    /// Each node's CPU during the open loop over the moves of all (microseconds); they
    /// add up to the open loop's server CPU per move.
    pub node_cpu_us_per_move: Vec<f64>,
    /// Requests the nodes sent to another node during the open loop (the sum of their
    /// `flagfall_cluster_routed_total`).
    pub routed: u64,
    /// Games a node's scan took over during the open loop (the sum of their
    /// `flagfall_cluster_takeovers_total`): none is expected while every node runs.
    pub takeovers: u64,
    /// Games a running node dropped during the open loop because it lost their lease
    /// (`flagfall_cluster_dropped_games_total`): none is expected either.
    pub dropped: u64,
    /// The same two while the games opened.
    pub opening_takeovers: u64,
    pub opening_dropped: u64,
    /// Game sockets told to reconnect to their game's owner while the games opened and
    /// during the open loop (`flagfall_cluster_redirected_total`).
    pub opening_redirected: u64,
    pub redirected: u64,
    /// The failover, when it ran.
    pub failover: Option<Failover>,
}

impl Cluster {
    /// Routed requests per move of the open loop.
    pub fn routed_per_move(&self, open: &OpenLoop) -> f64 {
        self.routed as f64 / (open.moves as f64).max(1.0)
    }
}

/// A node killed (SIGKILL) while its games played: from the kill to each of its games'
/// first move acknowledged after it (by the node that took the game over).
#[derive(Debug, Clone, Default)]
pub struct Failover {
    /// The node killed (the one that owned the most games).
    pub node: String,
    /// Its games, and those that moved again within `watched_ms` of the kill.
    pub games: usize,
    pub recovered: usize,
    pub watched_ms: u64,
    pub median_ms: f64,
    pub p90_ms: f64,
    pub max_ms: f64,
}

/// Latency percentiles, milliseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Latency {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

/// Phase 2: the same number of connections as fast as they go, against flagfall and the
/// two echo baselines.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClosedLoop {
    /// flagfall: round trips are moves (one frame in, the event out to both players).
    pub flagfall: Phase,
    /// The bare echo (one frame in, one out).
    pub echo: Phase,
    /// The durable echo (each frame on disk before it is echoed).
    pub durable_echo: Phase,
    /// The store echo (each frame committed as an event through flagfall's store before
    /// it is echoed), over half the sockets, when asked for.
    pub store_echo: Option<Phase>,
    /// On a cluster: requests the nodes routed to another node during flagfall's closed
    /// loop, per move.
    pub routed_per_move: Option<f64>,
}

impl ClosedLoop {
    /// Messages through the server per second: flagfall's move is one frame in and two
    /// out.
    pub fn flagfall_msgs_per_sec(&self) -> f64 {
        3.0 * self.flagfall.per_sec
    }
}

/// A closed-loop run: round trips per second, and the CPU each side spent per round trip.
#[derive(Debug, Clone, Copy, Default)]
pub struct Phase {
    pub per_sec: f64,
    /// Microseconds of CPU per round trip: the server process, and this one (the bots).
    pub server_cpu_us: f64,
    pub bots_cpu_us: f64,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let o = &self.open;
        writeln!(
            f,
            "open loop: {} games ({} sockets), {} moves in {:.1} s = {:.0} moves/s",
            o.games,
            o.sockets(),
            o.moves,
            o.seconds,
            o.moves_per_sec()
        )?;
        let l = &o.latency;
        writeln!(
            f,
            "move -> durable ack latency: p50 {:.2} ms, p99 {:.2} ms, p99.9 {:.2} ms, max {:.2} ms",
            l.p50_ms, l.p99_ms, l.p999_ms, l.max_ms
        )?;
        writeln!(
            f,
            "resident memory per live game: server {:.1} KiB, bots {:.1} KiB",
            o.server_rss_per_game_kib, o.bots_rss_per_game_kib
        )?;
        writeln!(
            f,
            "CPU per move: server {:.0} us, bots {:.0} us",
            o.server_cpu_us_per_move, o.bots_cpu_us_per_move
        )?;
        if let Some(c) = &self.cluster {
            let per_node: Vec<String> = c
                .node_cpu_us_per_move
                .iter()
                .enumerate()
                .map(|(i, us)| format!("n{} {us:.0} us", i + 1))
                .collect();
            writeln!(
                f,
                "cluster: {} nodes; CPU per move by node: {} (sum {:.0} us)",
                c.nodes,
                per_node.join(", "),
                o.server_cpu_us_per_move
            )?;
            let routed_cpu = if c.routed > 0 {
                o.server_cpu_us_per_move * o.moves as f64 / c.routed as f64
            } else {
                0.0
            };
            writeln!(
                f,
                "routed messages: {} ({:.2} per move); server CPU per routed message: {routed_cpu:.0} us (all the nodes' CPU over the routed messages)",
                c.routed,
                c.routed_per_move(o)
            )?;
            writeln!(
                f,
                "while the games opened ({:.1} s): {} games taken over, {} dropped; during the open loop: {} taken over, {} dropped by a running node (lease lost), {} bot sockets reopened elsewhere",
                o.opened_in_s,
                c.opening_takeovers,
                c.opening_dropped,
                c.takeovers,
                c.dropped,
                o.reconnects
            )?;
            writeln!(
                f,
                "sockets told to reconnect to their game's node: {} while the games opened, {} during the open loop",
                c.opening_redirected, c.redirected
            )?;
            if let Some(fo) = &c.failover {
                writeln!(
                    f,
                    "failover: {} killed (SIGKILL) owning {} games; {} moved again within {:.1} s; kill to first acknowledged move: median {:.0} ms, p90 {:.0} ms, max {:.0} ms",
                    fo.node,
                    fo.games,
                    fo.recovered,
                    fo.watched_ms as f64 / 1000.0,
                    fo.median_ms,
                    fo.p90_ms,
                    fo.max_ms
                )?;
            }
        }
        if o.bots_processes > 1 {
            writeln!(f, "bots: {} processes", o.bots_processes)?;
        }
        writeln!(
            f,
            "lost events: {}, duplicated events: {}, bot errors: {}",
            o.lost, o.duplicated, o.errors
        )?;
        if let Some(c) = &self.closed
            && c.echo.per_sec > 0.0
        {
            let echo = c.echo.per_sec;
            let moves = c.flagfall.per_sec;
            let msgs = c.flagfall_msgs_per_sec();
            writeln!(
                f,
                "closed loop: flagfall {moves:.0} moves/s (round trips), bare axum echo {echo:.0} round trips/s ({:.0}%)",
                100.0 * moves / echo
            )?;
            writeln!(
                f,
                "closed loop messages: flagfall {msgs:.0} msgs/s (1 in + 2 out per move), echo {:.0} msgs/s (1 in + 1 out) ({:.0}%)",
                2.0 * echo,
                100.0 * msgs / (2.0 * echo)
            )?;
            if let Some(r) = c.routed_per_move {
                writeln!(f, "closed loop routed messages: {r:.3} per move")?;
            }
            writeln!(
                f,
                "closed loop CPU per round trip: flagfall server {:.1} us + bots {:.1} us; echo server {:.1} us + clients {:.1} us",
                c.flagfall.server_cpu_us,
                c.flagfall.bots_cpu_us,
                c.echo.server_cpu_us,
                c.echo.bots_cpu_us
            )?;
            let durable = c.durable_echo.per_sec;
            if durable > 0.0 {
                writeln!(
                    f,
                    "durable echo (each frame fdatasync'd before its echo, group commit): {durable:.0} round trips/s ({:.0}% of the echo), server {:.1} us + clients {:.1} us per round trip",
                    100.0 * durable / echo,
                    c.durable_echo.server_cpu_us,
                    c.durable_echo.bots_cpu_us
                )?;
                writeln!(
                    f,
                    "closed loop messages against the durable echo: flagfall {msgs:.0} msgs/s, durable echo {:.0} msgs/s ({:.0}%)",
                    2.0 * durable,
                    100.0 * msgs / (2.0 * durable)
                )?;
                if let Some(store) = &c.store_echo {
                    writeln!(
                        f,
                        "store echo (each frame committed as an event through flagfall's store before its echo, group commit): {:.0} round trips/s over half the sockets (as many in flight as flagfall's moves), server {:.1} us + clients {:.1} us per round trip",
                        store.per_sec, store.server_cpu_us, store.bots_cpu_us
                    )?;
                    // A move needs what a store echo's round trip does (a frame in, its
                    // commit, an answer) and more, at the same number in flight.
                    writeln!(
                        f,
                        "closed loop ceiling through the store: 3 messages a store echo round trip, {:.0} msgs/s ({:.0}% of the durable echo's messages; flagfall reached {:.0}% of the ceiling)",
                        3.0 * store.per_sec,
                        100.0 * 3.0 * store.per_sec / (2.0 * durable),
                        100.0 * moves / store.per_sec
                    )?;
                }
            }
        }
        write!(f, "open-file limit: {}", self.nofile_limit)
    }
}
