//! The figures of a run, each kept once: what can be derived (sockets, rates, messages,
//! ratios) is computed where it is printed.

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub open: OpenLoop,
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
            }
        }
        write!(f, "open-file limit: {}", self.nofile_limit)
    }
}
