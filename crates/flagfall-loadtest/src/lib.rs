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
//! - [`bots`]: the bot games (knight shuffles: legal moves forever, never a result);
//! - [`echo`]: the echo baselines;
//! - [`process`]: child processes, CPU and memory readings, the open-file limit;
//! - [`report`]: the figures.

mod bots;
mod echo;
mod error;
mod process;
mod report;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use futures_util::StreamExt;

pub use echo::serve_echo;
pub use error::LoadError;
pub use process::raise_nofile;
pub use report::{ClosedLoop, Latency, OpenLoop, Phase, Report};

use bots::{Bots, open_game};
use process::{ChildServer, cpu_us, free_port, rss_kib, spawn_child};

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

/// Run the load test (see the module documentation).
pub async fn run(cfg: LoadConfig) -> Result<Report, LoadError> {
    let nofile_limit = raise_nofile();
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
    let open = open_loop(&cfg, addr, server_pid.as_deref()).await?;
    let closed = if cfg.conns > 0 {
        Some(closed_loops(&cfg, addr, server_pid.as_deref()).await?)
    } else {
        None
    };
    if let Some(s) = server {
        s.stop()?;
    }
    Ok(Report {
        open,
        closed,
        nofile_limit,
    })
}

/// Phase 1: open the games (measuring memory), play them at the set rate, then check
/// every game's stored script.
async fn open_loop(
    cfg: &LoadConfig,
    addr: SocketAddr,
    server_pid: Option<&str>,
) -> Result<OpenLoop, LoadError> {
    let server_rss = || server_pid.map_or(0, rss_kib);
    let (server_before, bots_before) = (server_rss(), rss_kib("self"));
    let (bots, mut errors) = open_games(addr, cfg.games).await;
    let (server_after, bots_after) = (server_rss(), rss_kib("self"));
    let games = bots.len();
    let per_game = |after: u64, before: u64| {
        if games > 0 {
            after.saturating_sub(before) as f64 / games as f64
        } else {
            0.0
        }
    };
    let started = Instant::now();
    let cpu0 = (server_pid.map_or(0, cpu_us), cpu_us("self"));
    let (finished, mut all, failed) = play_at_rate(bots, cfg.rate, cfg.duration).await?;
    errors += failed;
    let seconds = started.elapsed().as_secs_f64();
    // Saturating: a reading of a process that is gone is 0.
    let server_cpu = server_pid.map_or(0, cpu_us).saturating_sub(cpu0.0);
    let bots_cpu = cpu_us("self").saturating_sub(cpu0.1);
    all.sort_unstable();
    let mut lost = 0;
    let mut duplicated = 0;
    for b in finished {
        let (l, d) = b.check(addr).await?;
        lost += l;
        duplicated += d;
    }
    let per_move = |cpu: u64| cpu as f64 / (all.len() as f64).max(1.0);
    Ok(OpenLoop {
        games,
        moves: all.len() as u64,
        seconds,
        latency: Latency {
            p50_ms: percentile(&all, 0.50),
            p99_ms: percentile(&all, 0.99),
            p999_ms: percentile(&all, 0.999),
            max_ms: all.last().map_or(0.0, |m| *m as f64 / 1000.0),
        },
        server_rss_per_game_kib: per_game(server_after, server_before),
        bots_rss_per_game_kib: per_game(bots_after, bots_before),
        server_cpu_us_per_move: per_move(server_cpu),
        bots_cpu_us_per_move: per_move(bots_cpu),
        lost,
        duplicated,
        errors,
    })
}

/// Open `games` games, 64 at a time: the bots of those that opened, and how many did not.
async fn open_games(addr: SocketAddr, games: usize) -> (Vec<Bots>, u64) {
    let opening = futures_util::stream::iter((0..games).map(|_| open_game(addr)))
        .buffer_unordered(64)
        .collect::<Vec<_>>()
        .await;
    let mut bots = Vec::with_capacity(games);
    let mut errors = 0;
    for b in opening {
        match b {
            Ok(b) => bots.push(b),
            Err(e) => {
                errors += 1;
                tracing::warn!(error = %e, "a bot game did not open");
            }
        }
    }
    (bots, errors)
}

/// Every game moves once an interval (`games / rate`), spread over the interval, for
/// `duration`: the bots, every latency in microseconds, and the bots that failed.
async fn play_at_rate(
    bots: Vec<Bots>,
    rate: f64,
    duration: Duration,
) -> Result<(Vec<Bots>, Vec<u64>, u64), LoadError> {
    let games = bots.len();
    let per_game_interval = if rate > 0.0 {
        Duration::from_secs_f64(games as f64 / rate)
    } else {
        Duration::ZERO
    };
    let stop = Arc::new(AtomicBool::new(false));
    let err_count = Arc::new(AtomicU64::new(0));
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
    tokio::time::sleep(duration).await;
    stop.store(true, Relaxed);
    let mut all = Vec::new();
    let mut finished = Vec::new();
    for t in tasks {
        let (b, lat) = t.await?;
        all.extend(lat);
        finished.push(b);
    }
    Ok((finished, all, err_count.load(Relaxed)))
}

/// Phase 2: flagfall, then the bare echo, then the durable echo, each in a closed loop.
async fn closed_loops(
    cfg: &LoadConfig,
    addr: SocketAddr,
    server_pid: Option<&str>,
) -> Result<ClosedLoop, LoadError> {
    let flagfall = closed_loop(addr, server_pid, cfg.conns, cfg.closed_duration).await?;
    let exe = match &cfg.target {
        Target::Spawn { exe, .. } => exe.clone(),
        Target::External(_) => {
            std::env::current_exe().map_err(LoadError::io("finding this program"))?
        }
    };
    let echo_addr = free_port()?;
    let args = ["loadtest", "--serve-echo", &echo_addr.to_string()].map(String::from);
    let echo_server = spawn_child(&exe, &args, echo_addr, "/").await?;
    let echo = echo::echo_baseline(
        echo_server.addr,
        &echo_server.pid(),
        cfg.conns,
        cfg.closed_duration,
    )
    .await?;
    drop(echo_server);
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
    let echo_server = spawn_child(&exe, &args, echo_addr, "/").await?;
    let durable_echo = echo::echo_baseline(
        echo_server.addr,
        &echo_server.pid(),
        cfg.conns,
        cfg.closed_duration,
    )
    .await?;
    drop(echo_server);
    let _ = std::fs::remove_file(&log);
    Ok(ClosedLoop {
        flagfall,
        echo,
        durable_echo,
    })
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

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)] as f64 / 1000.0
}
