//! `flagfall loadtest`: bot games over loopback against `flagfall serve` in its own
//! process.
//!
//! The tool starts the server as a child process (`flagfall serve --socket-rate 0` on a
//! free loopback port; or tests a server already running, `--server ADDR`), so the bots
//! and the server each have their own open-file limit and the server's memory can be
//! read alone. Phase 1 (open loop): `games` games, two bot sockets each, making moves at
//! `rate` moves per second in total for `duration`; every move is a real WebSocket round
//! trip to its durable acknowledgement (the `event` with the move's `id`, published only
//! after the commit). Reports moves/s, latency percentiles, the server's resident memory
//! per live game, and lost or duplicated events (each game's stored script checked
//! against what its bots sent). Phase 2 (closed loop, `conns` connections): the same
//! server as fast as the bots go, against a bare axum WebSocket echo server, also in a
//! child process of its own (`flagfall loadtest --serve-echo ADDR`), as the baseline;
//! then the same echo made durable (`--echo-log FILE`: every frame written to a
//! preallocated file and `fdatasync`ed by one group-commit thread before it is echoed),
//! which tells what a durable acknowledgement alone costs on the machine, in the same run.
//!
//! The bots shuffle knights (Nf3 Nf6 Ng1 Ng8 ...): legal moves forever, never a result.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Which server to load.
#[derive(Debug, Clone)]
pub enum Target {
    /// Start `exe serve` (this program) on a free loopback port with `database`.
    Spawn { exe: PathBuf, database: String },
    /// A server already listening (started with `--socket-rate 0`).
    External(SocketAddr),
}

/// What to run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    pub games: usize,
    /// Moves per second, all games together (phase 1).
    pub rate: f64,
    pub duration: Duration,
    /// Connections of the closed-loop comparison (phase 2); 0 skips it.
    pub conns: usize,
    pub closed_duration: Duration,
    pub target: Target,
    /// A directory for the durable echo's log file (removed by the caller).
    pub scratch: PathBuf,
}

/// The figures.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub games: usize,
    pub sockets: usize,
    pub moves: u64,
    pub seconds: f64,
    pub moves_per_sec: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    /// Growth of the server process's resident memory while the games opened, per game
    /// (0 when the server is external).
    pub server_rss_per_game_kib: f64,
    /// The same for this process (the bots).
    pub bots_rss_per_game_kib: f64,
    pub lost: u64,
    pub duplicated: u64,
    pub errors: u64,
    /// CPU per move in the open loop: the server process, and the bots (microseconds).
    pub server_cpu_us_per_move: f64,
    pub bots_cpu_us_per_move: f64,
    /// Closed loop: moves acknowledged per second (one round trip each), with CPU.
    pub closed: Phase,
    /// The echo baseline, the same way.
    pub echo: Phase,
    /// Closed loop: moves acknowledged per second (one round trip each).
    pub closed_loop_moves_per_sec: f64,
    /// Closed loop: WebSocket messages per second through the server (each move is one
    /// frame in and two out: the event to both players).
    pub closed_loop_msgs_per_sec: f64,
    /// Echo: round trips per second (one frame in, one out).
    pub echo_round_trips_per_sec: f64,
    /// The durable echo (each frame on disk before it is echoed), the same way.
    pub durable_echo: Phase,
    pub nofile_limit: u64,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "open loop: {} games ({} sockets), {} moves in {:.1} s = {:.0} moves/s",
            self.games, self.sockets, self.moves, self.seconds, self.moves_per_sec
        )?;
        writeln!(
            f,
            "move -> durable ack latency: p50 {:.2} ms, p99 {:.2} ms, p99.9 {:.2} ms, max {:.2} ms",
            self.p50_ms, self.p99_ms, self.p999_ms, self.max_ms
        )?;
        writeln!(
            f,
            "resident memory per live game: server {:.1} KiB, bots {:.1} KiB",
            self.server_rss_per_game_kib, self.bots_rss_per_game_kib
        )?;
        writeln!(
            f,
            "CPU per move: server {:.0} us, bots {:.0} us",
            self.server_cpu_us_per_move, self.bots_cpu_us_per_move
        )?;
        writeln!(
            f,
            "lost events: {}, duplicated events: {}, bot errors: {}",
            self.lost, self.duplicated, self.errors
        )?;
        if self.echo_round_trips_per_sec > 0.0 {
            let echo = self.echo_round_trips_per_sec;
            writeln!(
                f,
                "closed loop: flagfall {:.0} moves/s (round trips), bare axum echo {:.0} round trips/s ({:.0}%)",
                self.closed_loop_moves_per_sec,
                echo,
                100.0 * self.closed_loop_moves_per_sec / echo
            )?;
            writeln!(
                f,
                "closed loop messages: flagfall {:.0} msgs/s (1 in + 2 out per move), echo {:.0} msgs/s (1 in + 1 out) ({:.0}%)",
                self.closed_loop_msgs_per_sec,
                2.0 * echo,
                100.0 * self.closed_loop_msgs_per_sec / (2.0 * echo)
            )?;
            writeln!(
                f,
                "closed loop CPU per round trip: flagfall server {:.1} us + bots {:.1} us; echo server {:.1} us + clients {:.1} us",
                self.closed.server_cpu_us,
                self.closed.bots_cpu_us,
                self.echo.server_cpu_us,
                self.echo.bots_cpu_us
            )?;
            let durable = self.durable_echo.per_sec;
            if durable > 0.0 {
                writeln!(
                    f,
                    "durable echo (each frame fdatasync'd before its echo, group commit): {:.0} round trips/s ({:.0}% of the echo), server {:.1} us + clients {:.1} us per round trip",
                    durable,
                    100.0 * durable / echo,
                    self.durable_echo.server_cpu_us,
                    self.durable_echo.bots_cpu_us
                )?;
                writeln!(
                    f,
                    "closed loop messages against the durable echo: flagfall {:.0} msgs/s, durable echo {:.0} msgs/s ({:.0}%)",
                    self.closed_loop_msgs_per_sec,
                    2.0 * durable,
                    100.0 * self.closed_loop_msgs_per_sec / (2.0 * durable)
                )?;
            }
        }
        write!(f, "open-file limit: {}", self.nofile_limit)
    }
}

/// Raise the open-file limit to the hard limit; returns the limit in force.
pub fn raise_nofile() -> u64 {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit/setrlimit with a valid pointer to a local struct.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
                lim.rlim_cur = lim.rlim_max;
                libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
                libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
            }
        }
        lim.rlim_cur
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// CPU time (user + system) process `pid` ("self" for this one) has used, microseconds.
fn cpu_us(pid: &str) -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                // Fields after the command name (which may hold spaces, in parentheses):
                // state is field 3, utime 14 and stime 15.
                let rest = &s[s.rfind(')')? + 2..];
                let f: Vec<&str> = rest.split_whitespace().collect();
                let utime: u64 = f.get(11)?.parse().ok()?;
                let stime: u64 = f.get(12)?.parse().ok()?;
                Some((utime + stime) * 1_000_000 / ticks)
            })
            .unwrap_or(0)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        0
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

/// Resident memory of process `pid` ("self" for this one), KiB.
fn rss_kib(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// A child server process, stopped (SIGTERM, then SIGKILL) when dropped.
struct ChildServer {
    child: Child,
    addr: SocketAddr,
}

impl ChildServer {
    fn pid(&self) -> String {
        self.child.id().to_string()
    }

    /// SIGTERM and wait for the exit (the server flushes and exits 0).
    fn stop(mut self) -> Result<(), LoadError> {
        terminate(&self.child);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match self.child.try_wait().map_err(bot)? {
                Some(status) if status.success() => return Ok(()),
                Some(status) => return Err(bot(format!("the server exited with {status}"))),
                None if Instant::now() > deadline => {
                    let _ = self.child.kill();
                    return Err(bot("the server did not stop within 20 s of SIGTERM"));
                }
                None => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn terminate(child: &Child) {
    #[cfg(unix)]
    // SAFETY: sending a signal to our own child's pid.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// A loopback port nobody listens on now.
fn free_port() -> Result<SocketAddr, LoadError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(bot)?;
    l.local_addr().map_err(bot)
}

/// Start `exe args...` listening on `addr` and wait until it answers `probe`.
async fn spawn_child(
    exe: &PathBuf,
    args: &[String],
    addr: SocketAddr,
    probe: &str,
) -> Result<ChildServer, LoadError> {
    let mut child = Command::new(exe)
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| bot(format!("starting {}: {e}", exe.display())))?;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().map_err(bot)? {
            return Err(bot(format!(
                "{} {args:?} exited with {status}",
                exe.display()
            )));
        }
        if http(addr, "GET", probe, "").await.is_ok() {
            return Ok(ChildServer { child, addr });
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(bot(format!(
                "{} did not answer on {addr} within 30 s",
                exe.display()
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("load test: {0}")]
    Bot(String),
}

fn bot(e: impl std::fmt::Display) -> LoadError {
    LoadError::Bot(e.to_string())
}

async fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> Result<String, LoadError> {
    let mut s = TcpStream::connect(addr).await.map_err(bot)?;
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.map_err(bot)?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.map_err(bot)?;
    let text = String::from_utf8_lossy(&raw).to_string();
    let (_, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| bot("not an HTTP answer"))?;
    Ok(body.to_string())
}

const MOVES: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];

struct Bots {
    id: String,
    white: Ws,
    black: Ws,
    sent: u64,
}

async fn open_game(addr: SocketAddr) -> Result<Bots, LoadError> {
    let body = http(
        addr,
        "POST",
        "/api/games",
        r#"{"rules":"uscf-2020","time_control":"G/10;d0"}"#,
    )
    .await?;
    let created: flagfall_protocol::Created =
        serde_json::from_str(&body).map_err(|e| bot(format!("creating a game: {e}: {body}")))?;
    let url = |t: &str| format!("ws://{addr}/ws/games/{}?token={t}", created.id);
    let mut white = connect(&url(&created.tokens.white)).await?;
    let mut black = connect(&url(&created.tokens.black)).await?;
    for ws in [&mut white, &mut black] {
        let first = next_text(ws).await?;
        if !first.contains("\"type\":\"state\"") {
            return Err(bot(format!("expected the state, got {first}")));
        }
    }
    Ok(Bots {
        id: created.id,
        white,
        black,
        sent: 0,
    })
}

async fn next_text(ws: &mut Ws) -> Result<String, LoadError> {
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(t))) => return Ok(t.to_string()),
            Some(Ok(Message::Close(c))) => return Err(bot(format!("closed: {c:?}"))),
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(bot(e)),
            None => return Err(bot("socket ended")),
        }
    }
}

impl Bots {
    /// One move by the side to move, to its acknowledgement; the latency.
    async fn step(&mut self) -> Result<Duration, LoadError> {
        let k = self.sent as usize;
        let ws = if k.is_multiple_of(2) {
            &mut self.white
        } else {
            &mut self.black
        };
        let id = format!("m{k}");
        let frame = format!(r#"{{"move":"{}","press":true,"id":"{id}"}}"#, MOVES[k % 4]);
        let t = Instant::now();
        ws.send(Message::Text(frame.into())).await.map_err(bot)?;
        let needle = format!("\"id\":\"{id}\"");
        loop {
            let text = next_text(ws).await?;
            if text.contains(&needle) {
                if !text.starts_with("{\"type\":\"event\"") {
                    return Err(bot(format!("move {k} not accepted: {text}")));
                }
                self.sent += 1;
                return Ok(t.elapsed());
            }
        }
    }

    /// Skip the opponent's events queued on both sockets (they are read lazily).
    async fn check(self, addr: SocketAddr) -> Result<(u64, u64), LoadError> {
        let script = http(addr, "GET", &format!("/api/games/{}/script", self.id), "").await?;
        let stored: Vec<Value> = script
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).map_err(bot))
            .collect::<Result<_, _>>()?;
        let mut lost = 0;
        let mut dup = 0;
        for k in 0..self.sent.max(stored.len() as u64) {
            let expected = MOVES[k as usize % 4];
            match stored.get(k as usize) {
                Some(e) if k < self.sent && e["move"] == expected => {}
                Some(_) if k >= self.sent => dup += 1,
                Some(_) => lost += 1,
                None => lost += 1,
            }
        }
        Ok((lost, dup))
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)] as f64 / 1000.0
}

/// Run the load test (see the module documentation).
pub async fn run(cfg: LoadConfig) -> Result<Report, LoadError> {
    let nofile = raise_nofile();
    // The server this run loads: a child of ours (stopped at the end), or one running.
    let (server, addr) = match &cfg.target {
        Target::Spawn { exe, database } => {
            let addr = free_port()?;
            let args = [
                "serve",
                "--listen",
                &addr.to_string(),
                "--database",
                database,
                "--socket-rate",
                "0",
                // Thousands of sockets and games from loopback: no per-address limit.
                "--connections-per-address",
                "0",
                "--creates-per-minute",
                "0",
                "--sockets-per-token",
                "0",
            ]
            .map(String::from);
            (Some(spawn_child(exe, &args, addr, "/healthz").await?), addr)
        }
        Target::External(addr) => (None, *addr),
    };
    let server_pid = server.as_ref().map(ChildServer::pid);
    let server_rss = || server_pid.as_deref().map_or(0, rss_kib);
    let (server_before, bots_before) = (server_rss(), rss_kib("self"));
    let mut bots = Vec::with_capacity(cfg.games);
    let mut errors = 0u64;
    let opening = futures_util::stream::iter((0..cfg.games).map(|_| open_game(addr)))
        .buffer_unordered(64)
        .collect::<Vec<_>>()
        .await;
    for b in opening {
        match b {
            Ok(b) => bots.push(b),
            Err(e) => {
                errors += 1;
                tracing::warn!(error = %e, "a bot game did not open");
            }
        }
    }
    let (server_after, bots_after) = (server_rss(), rss_kib("self"));
    let games = bots.len();
    let per_game = |after: u64, before: u64| {
        if games > 0 {
            after.saturating_sub(before) as f64 / games as f64
        } else {
            0.0
        }
    };
    let per_game_interval = if cfg.rate > 0.0 {
        Duration::from_secs_f64(games as f64 / cfg.rate)
    } else {
        Duration::ZERO
    };
    let stop = Arc::new(AtomicBool::new(false));
    let err_count = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let (server_cpu0, bots_cpu0) = (server_pid.as_deref().map_or(0, cpu_us), cpu_us("self"));
    let mut tasks = Vec::new();
    for (i, mut b) in bots.into_iter().enumerate() {
        let stop = stop.clone();
        let errs = err_count.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            // Spread the games over one interval.
            let offset = per_game_interval.mul_f64(i as f64 / games.max(1) as f64);
            let mut next = tokio::time::Instant::now() + offset;
            while !stop.load(Relaxed) {
                tokio::time::sleep_until(next).await;
                match b.step().await {
                    Ok(d) => lat.push(d.as_micros() as u64),
                    Err(e) => {
                        errs.fetch_add(1, Relaxed);
                        tracing::warn!(error = %e, "bot");
                        break;
                    }
                }
                next += per_game_interval;
                let now = tokio::time::Instant::now();
                if next < now {
                    next = now;
                }
            }
            (b, lat)
        }));
    }
    tokio::time::sleep(cfg.duration).await;
    stop.store(true, Relaxed);
    let mut all = Vec::new();
    let mut finished = Vec::new();
    for t in tasks {
        let (b, lat) = t.await.map_err(bot)?;
        all.extend(lat);
        finished.push(b);
    }
    let seconds = started.elapsed().as_secs_f64();
    // Saturating: a reading of a process that is gone is 0.
    let server_cpu = server_pid
        .as_deref()
        .map_or(0, cpu_us)
        .saturating_sub(server_cpu0);
    let bots_cpu = cpu_us("self").saturating_sub(bots_cpu0);
    let moves = all.len() as u64;
    all.sort_unstable();
    let mut lost = 0;
    let mut duplicated = 0;
    for b in finished {
        let (l, d) = b.check(addr).await?;
        lost += l;
        duplicated += d;
    }
    let mut report = Report {
        games,
        sockets: games * 2,
        moves,
        seconds,
        moves_per_sec: moves as f64 / seconds,
        p50_ms: percentile(&all, 0.50),
        p99_ms: percentile(&all, 0.99),
        p999_ms: percentile(&all, 0.999),
        max_ms: all.last().map_or(0.0, |m| *m as f64 / 1000.0),
        server_rss_per_game_kib: per_game(server_after, server_before),
        server_cpu_us_per_move: server_cpu as f64 / (all.len() as f64).max(1.0),
        bots_cpu_us_per_move: bots_cpu as f64 / (all.len() as f64).max(1.0),
        bots_rss_per_game_kib: per_game(bots_after, bots_before),
        lost,
        duplicated,
        errors: errors + err_count.load(Relaxed),
        nofile_limit: nofile,
        ..Report::default()
    };
    if cfg.conns > 0 {
        let closed =
            closed_loop(addr, server_pid.as_deref(), cfg.conns, cfg.closed_duration).await?;
        report.closed = closed;
        report.closed_loop_moves_per_sec = closed.per_sec;
        report.closed_loop_msgs_per_sec = 3.0 * closed.per_sec;
        let exe = match &cfg.target {
            Target::Spawn { exe, .. } => exe.clone(),
            Target::External(_) => std::env::current_exe().map_err(bot)?,
        };
        let echo_addr = free_port()?;
        let args = ["loadtest", "--serve-echo", &echo_addr.to_string()].map(String::from);
        let echo = spawn_child(&exe, &args, echo_addr, "/").await?;
        let echo_pid = echo.pid();
        let phase = echo_baseline(echo.addr, &echo_pid, cfg.conns, cfg.closed_duration).await?;
        report.echo = phase;
        report.echo_round_trips_per_sec = phase.per_sec;
        drop(echo);
        // The same echo, durable: what an fdatasync before every answer costs here.
        let echo_addr = free_port()?;
        let log = cfg.scratch.join("durable-echo.log");
        let args = [
            "loadtest",
            "--serve-echo",
            &echo_addr.to_string(),
            "--echo-log",
            &log.to_string_lossy(),
        ]
        .map(String::from);
        let echo = spawn_child(&exe, &args, echo_addr, "/").await?;
        let echo_pid = echo.pid();
        report.durable_echo =
            echo_baseline(echo.addr, &echo_pid, cfg.conns, cfg.closed_duration).await?;
        drop(echo);
        let _ = std::fs::remove_file(&log);
    }
    if let Some(s) = server {
        s.stop()?;
    }
    Ok(report)
}

/// Closed loop over `conns` sockets (`conns / 2` games): moves per second acknowledged.
async fn closed_loop(
    addr: SocketAddr,
    server_pid: Option<&str>,
    conns: usize,
    d: Duration,
) -> Result<Phase, LoadError> {
    let mut games = Vec::new();
    for _ in 0..conns.div_ceil(2) {
        games.push(open_game(addr).await?);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU64::new(0));
    let cpu0 = (server_pid.map_or(0, cpu_us), cpu_us("self"));
    let t = Instant::now();
    let tasks: Vec<_> = games
        .into_iter()
        .map(|mut b| {
            let stop = stop.clone();
            let count = count.clone();
            tokio::spawn(async move {
                while !stop.load(Relaxed) {
                    if b.step().await.is_err() {
                        break;
                    }
                    count.fetch_add(1, Relaxed);
                }
            })
        })
        .collect();
    tokio::time::sleep(d).await;
    stop.store(true, Relaxed);
    for task in tasks {
        let _ = task.await;
    }
    Ok(phase(count.load(Relaxed), t, cpu0, server_pid))
}

/// The figures of a closed-loop run that started at `t` with CPU readings `cpu0`.
fn phase(count: u64, t: Instant, cpu0: (u64, u64), server_pid: Option<&str>) -> Phase {
    let secs = t.elapsed().as_secs_f64();
    let n = (count as f64).max(1.0);
    Phase {
        per_sec: count as f64 / secs,
        server_cpu_us: server_pid.map_or(0, cpu_us).saturating_sub(cpu0.0) as f64 / n,
        bots_cpu_us: cpu_us("self").saturating_sub(cpu0.1) as f64 / n,
    }
}

/// The bare axum WebSocket echo server of the baseline (`flagfall loadtest --serve-echo
/// ADDR`): every text frame back as it came; `GET /` answers `ok`. Runs until killed.
/// With `log` (`--echo-log FILE`), the durable echo: each frame is written to that file
/// and synced ([`EchoLog`]) before it is echoed.
pub async fn serve_echo(addr: SocketAddr, log: Option<PathBuf>) -> Result<(), LoadError> {
    use axum::extract::WebSocketUpgrade;
    use axum::extract::ws::Message as AxMsg;
    let log = match log {
        Some(path) => Some(EchoLog::start(&path)?),
        None => None,
    };
    let app = axum::Router::new()
        .route("/", axum::routing::get(|| async { "ok" }))
        .route(
            "/echo",
            axum::routing::get(|ws: WebSocketUpgrade| async move {
                ws.on_upgrade(|mut s| async move {
                    while let Some(Ok(m)) = s.next().await {
                        if let AxMsg::Text(t) = &m {
                            if let Some(log) = &log
                                && log.append(t.as_bytes()).await.is_err()
                            {
                                break;
                            }
                            if s.send(m).await.is_err() {
                                break;
                            }
                        }
                    }
                })
            }),
        );
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(bot)?;
    // The same socket options as `flagfall serve`.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await.map_err(bot)
}

/// The durable echo's log: one thread owns a preallocated file (so a sync never has to
/// record a new file size) and commits in groups, as the server's writer does: it takes
/// every frame that arrived while the previous sync ran, writes them in one call,
/// `fdatasync`s, and only then answers each sender. The file is used as a ring: past its
/// end, writing starts again at the beginning (the baseline keeps no history).
#[derive(Clone)]
struct EchoLog {
    tx: tokio::sync::mpsc::UnboundedSender<(Vec<u8>, tokio::sync::oneshot::Sender<bool>)>,
}

/// The durable echo's file size.
const ECHO_LOG_BYTES: u64 = 256 << 20;

impl EchoLog {
    fn start(path: &std::path::Path) -> Result<EchoLog, LoadError> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| bot(format!("{}: {e}", path.display())))?;
        preallocate(&file, ECHO_LOG_BYTES).map_err(|e| bot(format!("{}: {e}", path.display())))?;
        let (tx, mut rx) =
            tokio::sync::mpsc::unbounded_channel::<(Vec<u8>, tokio::sync::oneshot::Sender<bool>)>();
        std::thread::Builder::new()
            .name("echo-log".into())
            .spawn(move || {
                use std::io::{Seek, SeekFrom, Write};
                let mut offset = 0u64;
                let mut batch = Vec::new();
                let mut waiting = Vec::new();
                while let Some((frame, done)) = rx.blocking_recv() {
                    batch.clear();
                    batch.extend_from_slice(&frame);
                    waiting.push(done);
                    while let Ok((frame, done)) = rx.try_recv() {
                        batch.extend_from_slice(&frame);
                        waiting.push(done);
                    }
                    let mut ok = true;
                    if offset + batch.len() as u64 > ECHO_LOG_BYTES {
                        ok = file.seek(SeekFrom::Start(0)).is_ok();
                        offset = 0;
                    }
                    ok = ok && file.write_all(&batch).is_ok() && file.sync_data().is_ok();
                    offset += batch.len() as u64;
                    for done in waiting.drain(..) {
                        let _ = done.send(ok);
                    }
                }
            })
            .map_err(bot)?;
        Ok(EchoLog { tx })
    }

    /// Append a frame; `Err` when it could not be written and synced.
    async fn append(&self, frame: &[u8]) -> Result<(), LoadError> {
        let (done, answer) = tokio::sync::oneshot::channel();
        let mut line = Vec::with_capacity(frame.len() + 1);
        line.extend_from_slice(frame);
        line.push(b'\n');
        self.tx
            .send((line, done))
            .map_err(|_| bot("the echo log stopped"))?;
        match answer.await {
            Ok(true) => Ok(()),
            _ => Err(bot("the echo log could not write")),
        }
    }
}

/// Give `file` `len` bytes of real blocks (not a sparse file), synced.
fn preallocate(file: &std::fs::File, len: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: posix_fallocate on an open file descriptor we own.
        let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len as libc::off_t) };
        if rc != 0 {
            return Err(std::io::Error::from_raw_os_error(rc));
        }
    }
    #[cfg(not(unix))]
    file.set_len(len)?;
    file.sync_all()
}

/// Closed loop against the echo server at `addr` over `conns` sockets: round trips/s.
async fn echo_baseline(
    addr: SocketAddr,
    pid: &str,
    conns: usize,
    d: Duration,
) -> Result<Phase, LoadError> {
    let stop = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU64::new(0));
    let mut sockets = Vec::new();
    for _ in 0..conns {
        sockets.push(connect(&format!("ws://{addr}/echo")).await?);
    }
    let cpu0 = (cpu_us(pid), cpu_us("self"));
    let t = Instant::now();
    let tasks: Vec<_> = sockets
        .into_iter()
        .map(|mut ws| {
            let stop = stop.clone();
            let count = count.clone();
            tokio::spawn(async move {
                let frame = r#"{"move":"g1f3","press":true,"id":"m0"}"#;
                while !stop.load(Relaxed) {
                    if ws.send(Message::Text(frame.into())).await.is_err() {
                        break;
                    }
                    if next_text(&mut ws).await.is_err() {
                        break;
                    }
                    count.fetch_add(1, Relaxed);
                }
            })
        })
        .collect();
    tokio::time::sleep(d).await;
    stop.store(true, Relaxed);
    for task in tasks {
        let _ = task.await;
    }
    Ok(phase(count.load(Relaxed), t, cpu0, Some(pid)))
}

/// A bot's WebSocket, with a small read buffer (tungstenite's default zero-fills 128 KiB).
async fn connect(url: &str) -> Result<Ws, LoadError> {
    let config = WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0);
    let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true)
        .await
        .map_err(|e| bot(format!("{url}: {e}")))?;
    Ok(ws)
}
