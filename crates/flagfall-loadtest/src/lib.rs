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
//! which tells what a durable acknowledgement alone costs on the machine, in the same run;
//! and with `store_echo`, the echo committing every frame as an event through flagfall's
//! own store (`--echo-store URL`), which tells what the store's commit alone costs.
//!
//! On a cluster (`nodes` > 1: `flagfall serve --node nK --nats URL` each, one PostgreSQL
//! database) game i is created on node i mod N, its White connects to that node and its
//! Black to the next, so every game has a player whose actions the owner gets over NATS;
//! the report adds each node's CPU, the requests routed between nodes (their
//! `flagfall_cluster_routed_total`), and with `failover` a phase in which the node owning
//! the most games is killed with SIGKILL while they play: the time from the kill to each
//! of its games' first move acknowledged after it. Bots whose socket fails reconnect to
//! another node and resend the same frame (same `id`). When the games need more sockets
//! than one process may open, the bots run in several processes (this one and
//! `flagfall loadtest --bots-worker` children), driven together.
//!
//! - [`bots`]: the bot games (knight shuffles: legal moves forever, never a result);
//! - [`echo`]: the echo baselines;
//! - [`group`]: the groups of bots, in this process or a child;
//! - [`process`]: child processes, CPU and memory readings, the open-file limit;
//! - [`report`]: the figures.

mod bots;
mod echo;
mod error;
mod group;
mod process;
mod report;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

pub use echo::{Durable, serve_echo};
pub use error::LoadError;
pub use group::bots_worker;
pub use process::raise_nofile;
pub use report::{ClosedLoop, Cluster, Failover, Latency, OpenLoop, Phase, Report};

use bots::{node_name, open_game};
use group::{Answer, Cmd, Group, unix_us};
use process::{ChildServer, cpu_us, free_port, metric, rss_kib, spawn_child};

/// Which server to load.
#[derive(Debug, Clone)]
pub enum Target {
    /// Start `exe serve` (this program) on free loopback ports with `database`: one
    /// node, or `nodes` nodes of a cluster over NATS at `nats` (named n1, n2, ...).
    Spawn {
        exe: PathBuf,
        database: String,
        nodes: usize,
        nats: Option<String>,
        /// The nodes' `--lease-ms` (their default when `None`).
        lease_ms: Option<u64>,
    },
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
    /// After the open loop, kill (SIGKILL) the node owning the most games and measure
    /// how long its games take to move again, watching for this long after the kill
    /// (a cluster of the tool's own only).
    pub failover: Option<Duration>,
    /// The most games one bots process holds [default: as many as its open-file limit
    /// allows, two sockets each].
    pub games_per_process: Option<usize>,
    /// After the durable echo, the store echo on this database URL (each frame
    /// committed as an event through flagfall's store before it is echoed).
    pub store_echo: Option<String>,
}

/// How long the games play before the failover's kill.
const BEFORE_KILL: Duration = Duration::from_secs(2);
/// File descriptors a bots process keeps for itself (HTTP, pipes, the runtime).
const SPARE_FILES: u64 = 1000;

/// The counters of the nodes' `/metrics` a run reports: requests routed to another
/// node, games taken over by a node's scan, games a node dropped (it lost the lease),
/// game sockets told to reconnect to their game's owner.
const COUNTERS: [&str; 4] = [
    "flagfall_cluster_routed_total",
    "flagfall_cluster_takeovers_total",
    "flagfall_cluster_dropped_games_total",
    "flagfall_cluster_redirected_total",
];

/// The sum over the nodes of each counter's growth from `before` to `after`.
fn growth(before: &[[f64; 4]], after: &[[f64; 4]]) -> [u64; 4] {
    let mut out = [0; 4];
    for (k, o) in out.iter_mut().enumerate() {
        *o = after
            .iter()
            .zip(before)
            .map(|(a, b)| (a[k] - b[k]).max(0.0))
            .sum::<f64>() as u64;
    }
    out
}

/// The servers of a run: each node's address, and its process when the tool started it.
struct Nodes {
    addrs: Vec<SocketAddr>,
    /// The processes (none for a server not ours, and once killed).
    children: Vec<Option<ChildServer>>,
    killed: Vec<bool>,
}

impl Nodes {
    async fn start(target: &Target) -> Result<Nodes, LoadError> {
        let (exe, database, n, nats, lease_ms) = match target {
            Target::External(addr) => {
                return Ok(Nodes {
                    addrs: vec![*addr],
                    children: vec![None],
                    killed: vec![false],
                });
            }
            Target::Spawn {
                exe,
                database,
                nodes,
                nats,
                lease_ms,
            } => (exe, database, *nodes, nats, lease_ms),
        };
        if n > 1 && nats.is_none() {
            return Err(LoadError::Usage(
                "several nodes need NATS (--nats URL)".into(),
            ));
        }
        let mut nodes = Nodes {
            addrs: Vec::new(),
            children: Vec::new(),
            killed: vec![false; n.max(1)],
        };
        for i in 0..n.max(1) {
            let addr = free_port()?;
            let mut args = vec![
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
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
            if let Some(nats) = nats.as_ref().filter(|_| n > 1) {
                args.extend(["--node".into(), node_name(i), "--nats".into(), nats.clone()]);
                if let Some(ms) = lease_ms {
                    args.extend(["--lease-ms".into(), ms.to_string()]);
                }
            }
            nodes
                .children
                .push(Some(spawn_child(exe, &args, addr, "/healthz").await?));
            nodes.addrs.push(addr);
        }
        Ok(nodes)
    }

    fn len(&self) -> usize {
        self.addrs.len()
    }

    /// The pid of node `i`, when the tool started it and it runs.
    fn pid(&self, i: usize) -> Option<String> {
        self.children.get(i)?.as_ref().map(ChildServer::pid)
    }

    /// The nodes still running (indexes).
    fn alive(&self) -> Vec<usize> {
        (0..self.len()).filter(|&i| !self.killed[i]).collect()
    }

    fn is_spawned(&self) -> bool {
        self.children.iter().any(Option::is_some)
    }

    /// Each running node's CPU time so far, microseconds (0 for a node not ours).
    fn cpu(&self) -> Vec<u64> {
        (0..self.len())
            .map(|i| self.pid(i).map_or(0, |p| cpu_us(&p)))
            .collect()
    }

    /// The nodes' resident memory together, KiB.
    fn rss(&self) -> u64 {
        (0..self.len())
            .filter_map(|i| self.pid(i))
            .map(|p| rss_kib(&p))
            .sum()
    }

    /// Each node's [`COUNTERS`] (0 for a node that is gone or has none).
    async fn counters(&self) -> Vec<[f64; 4]> {
        let mut out = Vec::new();
        for (i, &addr) in self.addrs.iter().enumerate() {
            let mut c = [0.0; 4];
            if !self.killed[i] {
                for (k, name) in COUNTERS.iter().enumerate() {
                    c[k] = metric(addr, name).await.unwrap_or(0.0);
                }
            }
            out.push(c);
        }
        out
    }

    /// SIGKILL node `i`.
    fn kill(&mut self, i: usize) {
        if let Some(c) = self.children.get_mut(i).and_then(Option::take) {
            c.kill();
            self.killed[i] = true;
        }
    }

    /// SIGTERM the running nodes and wait for them.
    fn stop(self) -> Result<(), LoadError> {
        for c in self.children.into_iter().flatten() {
            c.stop()?;
        }
        Ok(())
    }
}

/// Run the load test (see the module documentation).
pub async fn run(cfg: LoadConfig) -> Result<Report, LoadError> {
    let nofile_limit = raise_nofile();
    let mut nodes = Nodes::start(&cfg.target).await?;
    if cfg.failover.is_some() && (nodes.len() < 2 || !nodes.is_spawned()) {
        return Err(LoadError::Usage(
            "--failover needs a cluster of the tool's own (--nodes 2 or more)".into(),
        ));
    }
    let mut groups = bot_groups(&cfg, nofile_limit)?;
    let result = drive(&cfg, &mut nodes, &mut groups).await;
    for g in groups {
        g.finish().await;
    }
    let (open, cluster) = result?;
    let closed = if cfg.conns > 0 {
        // On the nodes still running, the games spread over them as in the open loop.
        let alive = nodes.alive();
        let pids: Vec<String> = alive.iter().filter_map(|&i| nodes.pid(i)).collect();
        let addrs: Arc<[SocketAddr]> = alive.iter().map(|&i| nodes.addrs[i]).collect();
        Some(closed_loops(&cfg, addrs, &pids).await?)
    } else {
        None
    };
    nodes.stop()?;
    Ok(Report {
        open,
        cluster,
        closed,
        nofile_limit,
    })
}

/// The groups of bots: this process alone when the games' sockets fit in its open-file
/// limit, else as many processes (this one and children) as they need.
fn bot_groups(cfg: &LoadConfig, nofile_limit: u64) -> Result<Vec<Group>, LoadError> {
    let per_process = match cfg.games_per_process {
        Some(n) => n,
        None if nofile_limit > SPARE_FILES => ((nofile_limit - SPARE_FILES) / 2) as usize,
        None => usize::MAX,
    };
    let processes = cfg.games.div_ceil(per_process.max(1)).max(1);
    let mut groups = vec![Group::local()];
    if processes > 1 {
        let exe = match &cfg.target {
            Target::Spawn { exe, .. } => exe.clone(),
            Target::External(_) => {
                std::env::current_exe().map_err(LoadError::io("finding this program"))?
            }
        };
        for _ in 1..processes {
            groups.push(Group::spawn(&exe)?);
        }
    }
    Ok(groups)
}

/// Open the games over the groups, play them (and fail a node over), check them.
async fn drive(
    cfg: &LoadConfig,
    nodes: &mut Nodes,
    groups: &mut [Group],
) -> Result<(OpenLoop, Option<Cluster>), LoadError> {
    let bots_rss = |groups: &[Group]| groups.iter().map(|g| rss_kib(&g.pid)).sum::<u64>();
    let bots_cpu = |groups: &[Group]| groups.iter().map(|g| cpu_us(&g.pid)).sum::<u64>();
    // Open: game i of the run is number i everywhere (its nodes follow from it).
    let (server_before, bots_before) = (nodes.rss(), bots_rss(groups));
    let opening = (Instant::now(), nodes.counters().await);
    let share = cfg.games.div_ceil(groups.len());
    for (k, g) in groups.iter().enumerate() {
        let first = (k * share).min(cfg.games);
        let games = share.min(cfg.games - first);
        g.send(Cmd::Open {
            nodes: nodes.addrs.clone(),
            first,
            games,
        })?;
    }
    let mut owners: Vec<Vec<usize>> = Vec::new();
    let mut errors = 0;
    for g in groups.iter_mut() {
        match g.answer().await? {
            Answer::Opened {
                owners: o,
                errors: e,
            } => {
                owners.push(o);
                errors += e;
            }
            other => {
                return Err(LoadError::unexpected(
                    "opening the games",
                    format!("{other:?}"),
                ));
            }
        }
    }
    let (server_after, bots_after) = (nodes.rss(), bots_rss(groups));
    let games: usize = owners.iter().map(Vec::len).sum();
    let per_game = |after: u64, before: u64| {
        if games > 0 {
            after.saturating_sub(before) as f64 / games as f64
        } else {
            0.0
        }
    };
    // The open loop.
    let started = Instant::now();
    let cpu0 = (nodes.cpu(), bots_cpu(groups));
    let routed0 = nodes.counters().await;
    let opened_in = opening.0.elapsed().as_secs_f64();
    let while_opening = growth(&opening.1, &routed0);
    let played = play(groups, &owners, cfg.rate, cfg.duration).await?;
    let mut all = played.latencies_us;
    errors += played.errors;
    let seconds = started.elapsed().as_secs_f64();
    // Saturating: a reading of a process that is gone is 0.
    let cpu1 = (nodes.cpu(), bots_cpu(groups));
    let routed1 = nodes.counters().await;
    let node_cpu: Vec<u64> = cpu1
        .0
        .iter()
        .zip(&cpu0.0)
        .map(|(a, b)| a.saturating_sub(*b))
        .collect();
    let bots_cpu_used = cpu1.1.saturating_sub(cpu0.1);
    all.sort_unstable();
    let moves = all.len() as u64;
    let per_move = |cpu: u64| cpu as f64 / (moves as f64).max(1.0);
    let [routed, takeovers, dropped, redirected] = growth(&routed0, &routed1);
    // The failover: the games keep moving, the node owning the most is killed.
    let failover = match cfg.failover {
        Some(watch) => {
            let (f, failed) = fail_over(cfg, nodes, groups, &owners, watch).await?;
            errors += failed;
            Some(f)
        }
        None => None,
    };
    // Every game's stored script, read from a node still running.
    let alive = nodes.alive();
    let (mut lost, mut duplicated) = (0, 0);
    for g in groups.iter() {
        g.send(Cmd::Check {
            alive: alive.clone(),
        })?;
    }
    for g in groups.iter_mut() {
        match g.answer().await? {
            Answer::Checked {
                lost: l,
                duplicated: d,
            } => {
                lost += l;
                duplicated += d;
            }
            other => {
                return Err(LoadError::unexpected(
                    "checking the games",
                    format!("{other:?}"),
                ));
            }
        }
    }
    let open = OpenLoop {
        games,
        moves,
        seconds,
        latency: Latency {
            p50_ms: percentile(&all, 0.50),
            p99_ms: percentile(&all, 0.99),
            p999_ms: percentile(&all, 0.999),
            max_ms: all.last().map_or(0.0, |m| *m as f64 / 1000.0),
        },
        server_rss_per_game_kib: per_game(server_after, server_before),
        bots_rss_per_game_kib: per_game(bots_after, bots_before),
        server_cpu_us_per_move: per_move(node_cpu.iter().sum()),
        bots_cpu_us_per_move: per_move(bots_cpu_used),
        bots_processes: groups.len(),
        opened_in_s: opened_in,
        reconnects: played.reconnects,
        lost,
        duplicated,
        errors,
    };
    let cluster = (nodes.len() > 1).then(|| Cluster {
        nodes: nodes.len(),
        node_cpu_us_per_move: node_cpu.iter().map(|&c| per_move(c)).collect(),
        routed,
        takeovers,
        dropped,
        opening_takeovers: while_opening[1],
        opening_dropped: while_opening[2],
        opening_redirected: while_opening[3],
        redirected,
        failover,
    });
    Ok((open, cluster))
}

/// Play every group at its share of `rate` for `d`.
async fn play(
    groups: &mut [Group],
    owners: &[Vec<usize>],
    rate: f64,
    d: Duration,
) -> Result<Played, LoadError> {
    let games: usize = owners.iter().map(Vec::len).sum::<usize>().max(1);
    for (g, o) in groups.iter().zip(owners) {
        g.send(Cmd::Play {
            rate: rate * o.len() as f64 / games as f64,
            millis: d.as_millis() as u64,
        })?;
    }
    collect_played(groups).await
}

async fn collect_played(groups: &mut [Group]) -> Result<Played, LoadError> {
    let (mut all, mut errors, mut reconnects, mut after) = (Vec::new(), 0, 0, Vec::new());
    for g in groups.iter_mut() {
        match g.answer().await? {
            Answer::Played {
                latencies_us,
                errors: e,
                reconnects: r,
                after_kill,
            } => {
                all.extend(latencies_us);
                errors += e;
                reconnects += r;
                after.push(after_kill);
            }
            other => return Err(LoadError::unexpected("playing", format!("{other:?}"))),
        }
    }
    Ok(Played {
        latencies_us: all,
        errors,
        reconnects,
        after_kill: after,
    })
}

/// What the groups played together.
struct Played {
    latencies_us: Vec<u64>,
    errors: u64,
    reconnects: u64,
    /// Each group's games' first acknowledgements after a kill.
    after_kill: Vec<Vec<Option<u64>>>,
}

/// The failover phase: the games play at the same rate; after 2 s the node owning the
/// most games (its `flagfall_cluster_owned_games`, else the owners the games reported
/// when they opened) is killed with SIGKILL; each of its games' time from the kill to its
/// first acknowledged move after it. Also the bots that failed.
async fn fail_over(
    cfg: &LoadConfig,
    nodes: &mut Nodes,
    groups: &mut [Group],
    owners: &[Vec<usize>],
    watch: Duration,
) -> Result<(Failover, u64), LoadError> {
    let games: usize = owners.iter().map(Vec::len).sum::<usize>().max(1);
    for (g, o) in groups.iter().zip(owners) {
        g.send(Cmd::Play {
            rate: cfg.rate * o.len() as f64 / games as f64,
            millis: (BEFORE_KILL + watch).as_millis() as u64,
        })?;
    }
    tokio::time::sleep(BEFORE_KILL).await;
    let mut owned = vec![0.0; nodes.len()];
    for (i, &addr) in nodes.addrs.iter().enumerate() {
        owned[i] = metric(addr, "flagfall_cluster_owned_games")
            .await
            .unwrap_or(0.0);
    }
    if owned.iter().all(|&o| o == 0.0) {
        for &o in owners.iter().flatten() {
            if let Some(c) = owned.get_mut(o) {
                *c += 1.0;
            }
        }
    }
    let victim = (0..nodes.len())
        .max_by(|&a, &b| owned[a].total_cmp(&owned[b]))
        .unwrap_or(0);
    nodes.kill(victim);
    let at = unix_us();
    for g in groups.iter() {
        g.send(Cmd::Killed { at_unix_us: at })?;
    }
    let played = collect_played(groups).await?;
    let (failed, after) = (played.errors, played.after_kill);
    let mut times: Vec<u64> = Vec::new();
    let mut measured = 0;
    for (o, a) in owners.iter().zip(&after) {
        for (&owner, first) in o.iter().zip(a) {
            if owner == victim {
                measured += 1;
                if let Some(t) = first {
                    times.push(t.saturating_sub(at));
                }
            }
        }
    }
    times.sort_unstable();
    Ok((
        Failover {
            node: node_name(victim),
            games: measured,
            recovered: times.len(),
            watched_ms: watch.as_millis() as u64,
            median_ms: percentile(&times, 0.5),
            p90_ms: percentile(&times, 0.9),
            max_ms: times.last().map_or(0.0, |m| *m as f64 / 1000.0),
        },
        failed,
    ))
}

/// Phase 2: flagfall, then the bare echo, then the durable echo, each in a closed loop.
async fn closed_loops(
    cfg: &LoadConfig,
    nodes: Arc<[SocketAddr]>,
    server_pids: &[String],
) -> Result<ClosedLoop, LoadError> {
    let (flagfall, routed_per_move) =
        closed_loop(nodes, server_pids, cfg.conns, cfg.closed_duration).await?;
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
    // The same echo, through the store: what the store's commit alone costs.
    let store_echo = match &cfg.store_echo {
        None => None,
        Some(url) => {
            let echo_addr = free_port()?;
            let args = [
                "loadtest",
                "--serve-echo",
                &echo_addr.to_string(),
                "--echo-store",
                url,
            ]
            .map(String::from);
            let echo_server = spawn_child(&exe, &args, echo_addr, "/").await?;
            // Over half the sockets: as many frames in flight as flagfall's closed loop
            // has moves in flight (one a game), so that its group commits are as large.
            let phase = echo::echo_baseline(
                echo_server.addr,
                &echo_server.pid(),
                cfg.conns.div_ceil(2),
                cfg.closed_duration,
            )
            .await?;
            drop(echo_server);
            Some(phase)
        }
    };
    Ok(ClosedLoop {
        flagfall,
        echo,
        durable_echo,
        store_echo,
        routed_per_move,
    })
}

/// Closed loop over `conns` sockets (`conns / 2` games, spread over `nodes` as in the
/// open loop): moves per second acknowledged, and on a cluster the requests routed
/// between the nodes per move.
async fn closed_loop(
    nodes: Arc<[SocketAddr]>,
    server_pids: &[String],
    conns: usize,
    d: Duration,
) -> Result<(Phase, Option<f64>), LoadError> {
    let mut games = Vec::new();
    for i in 0..conns.div_ceil(2) {
        games.push(open_game(nodes.clone(), i).await?);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU64::new(0));
    // The first bot that stopped on an error: the loop's figures would not be the
    // server's but a shortfall's.
    let failed: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let servers_cpu = || server_pids.iter().map(|p| cpu_us(p)).sum::<u64>();
    let routed = || async {
        let mut sum = 0.0;
        for &addr in nodes.iter() {
            sum += metric(addr, COUNTERS[0]).await.unwrap_or(0.0);
        }
        sum
    };
    let routed0 = routed().await;
    let cpu0 = (servers_cpu(), cpu_us("self"));
    let t = Instant::now();
    let tasks: Vec<_> = games
        .into_iter()
        .map(|mut b| {
            let (stop, count, failed) = (stop.clone(), count.clone(), failed.clone());
            tokio::spawn(async move {
                while !stop.load(Relaxed) {
                    if let Err(e) = b.step().await {
                        let mut first = failed.lock().unwrap_or_else(|p| p.into_inner());
                        first.get_or_insert_with(|| e.to_string());
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
    if let Some(e) = failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(LoadError::unexpected(
            "the closed loop: a bot stopped (a server started apart needs --socket-rate 0 \
             --connections-per-address 0 --creates-per-minute 0)",
            e,
        ));
    }
    let moves = count.load(Relaxed);
    let figures = phase(moves, t, cpu0, servers_cpu());
    let per_move = (routed().await - routed0).max(0.0) / (moves as f64).max(1.0);
    Ok((figures, (nodes.len() > 1).then_some(per_move)))
}

/// The figures of a closed-loop run that started at `t` with CPU readings `cpu0`, the
/// servers' CPU now being `server_cpu`.
fn phase(count: u64, t: Instant, cpu0: (u64, u64), server_cpu: u64) -> Phase {
    let secs = t.elapsed().as_secs_f64();
    let n = (count as f64).max(1.0);
    Phase {
        per_sec: count as f64 / secs,
        server_cpu_us: server_cpu.saturating_sub(cpu0.0) as f64 / n,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::node_index;
    use crate::process::metric_in;

    #[test]
    fn node_names_and_indexes_agree() {
        assert_eq!(node_name(0), "n1");
        assert_eq!(node_index("n3", 3), Some(2));
        assert_eq!(node_index("n4", 3), None);
        assert_eq!(node_index("n0", 3), None);
        assert_eq!(node_index("other", 3), None);
    }

    #[test]
    fn a_metric_is_read_from_the_exposition() {
        let text = "# HELP flagfall_cluster_routed Requests\n\
                    # TYPE flagfall_cluster_routed counter\n\
                    flagfall_cluster_routed_total 1234\n\
                    flagfall_cluster_routed_in_total 7\n\
                    flagfall_cluster_owned_games 42\n";
        assert_eq!(metric_in(text, "flagfall_cluster_routed_total"), 1234.0);
        assert_eq!(metric_in(text, "flagfall_cluster_owned_games"), 42.0);
        assert_eq!(metric_in(text, "flagfall_cluster_takeovers_total"), 0.0);
    }

    #[test]
    fn commands_and_answers_cross_a_pipe_unchanged() {
        let cmd = Cmd::Open {
            nodes: vec!["127.0.0.1:9".parse().expect("an address")],
            first: 5,
            games: 3,
        };
        let line = serde_json::to_string(&cmd).expect("serialise");
        assert!(!line.contains('\n'));
        match serde_json::from_str(&line).expect("parse") {
            Cmd::Open {
                nodes,
                first: 5,
                games: 3,
            } => assert_eq!(nodes[0].port(), 9),
            other => panic!("{other:?}"),
        }
        let answer = Answer::Played {
            latencies_us: vec![1, 2],
            errors: 0,
            reconnects: 3,
            after_kill: vec![None, Some(10)],
        };
        let line = serde_json::to_string(&answer).expect("serialise");
        match serde_json::from_str(&line).expect("parse") {
            Answer::Played {
                after_kill,
                reconnects: 3,
                ..
            } => assert_eq!(after_kill, vec![None, Some(10)]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn percentiles_of_sorted_microseconds_are_milliseconds() {
        let v: Vec<u64> = (1..=10).map(|i| i * 1000).collect();
        assert_eq!(percentile(&v, 0.5), 6.0);
        assert_eq!(percentile(&v, 0.9), 9.0);
        assert_eq!(percentile(&[], 0.9), 0.0);
    }

    /// The store echo's line and the ceiling it sets: three messages a store echo round
    /// trip, against the durable echo's two.
    #[test]
    fn the_report_gives_the_ceiling_the_store_echo_sets() {
        let phase = |per_sec, server_cpu_us| Phase {
            per_sec,
            server_cpu_us,
            bots_cpu_us: 8.0,
        };
        let mut report = Report {
            closed: Some(ClosedLoop {
                flagfall: phase(15_000.0, 60.0),
                echo: phase(100_000.0, 10.0),
                durable_echo: phase(60_000.0, 15.0),
                store_echo: Some(phase(25_000.0, 35.0)),
                routed_per_move: None,
            }),
            nofile_limit: 20000,
            ..Report::default()
        };
        let text = report.to_string();
        assert!(
            text.contains("group commit): 25000 round trips/s over half the sockets (as many in flight as flagfall's moves), server 35.0 us + clients 8.0 us per round trip"),
            "{text}"
        );
        assert!(
            text.contains("closed loop ceiling through the store: 3 messages a store echo round trip, 75000 msgs/s (62% of the durable echo's messages; flagfall reached 60% of the ceiling)"),
            "{text}"
        );
        // Without the store echo, neither line.
        if let Some(c) = report.closed.as_mut() {
            c.store_echo = None;
        }
        let text = report.to_string();
        assert!(
            !text.contains("store echo") && !text.contains("ceiling"),
            "{text}"
        );
    }

    #[test]
    fn the_report_names_the_cluster_and_the_failover() {
        let report = Report {
            open: OpenLoop {
                games: 10,
                moves: 100,
                seconds: 1.0,
                server_cpu_us_per_move: 300.0,
                ..OpenLoop::default()
            },
            cluster: Some(Cluster {
                nodes: 3,
                node_cpu_us_per_move: vec![100.0, 120.0, 80.0],
                routed: 50,
                takeovers: 0,
                dropped: 2,
                opening_takeovers: 1,
                opening_dropped: 0,
                opening_redirected: 25,
                redirected: 0,
                failover: Some(Failover {
                    node: "n2".into(),
                    games: 4,
                    recovered: 4,
                    watched_ms: 15000,
                    median_ms: 3500.0,
                    p90_ms: 3900.0,
                    max_ms: 4100.0,
                }),
            }),
            closed: None,
            nofile_limit: 20000,
        };
        let text = report.to_string();
        assert!(
            text.contains("cluster: 3 nodes; CPU per move by node: n1 100 us, n2 120 us, n3 80 us (sum 300 us)"),
            "{text}"
        );
        assert!(
            text.contains(
                "routed messages: 50 (0.50 per move); server CPU per routed message: 600 us"
            ),
            "{text}"
        );
        assert!(
            text.contains("while the games opened (0.0 s): 1 games taken over, 0 dropped; during the open loop: 0 taken over, 2 dropped by a running node (lease lost), 0 bot sockets reopened elsewhere"),
            "{text}"
        );
        assert!(
            text.contains("failover: n2 killed (SIGKILL) owning 4 games; 4 moved again within 15.0 s; kill to first acknowledged move: median 3500 ms, p90 3900 ms, max 4100 ms"),
            "{text}"
        );
    }
}
