//! `flagfall loadtest`: bot games over loopback against `flagfall serve` in a child
//! process (the `flagfall-loadtest` crate), with a bare echo server, also a
//! child process, as the baseline.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};

#[derive(clap::Args)]
pub struct Args {
    /// Concurrent games (two bot sockets each).
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Moves per second, all games together.
    #[arg(long, default_value_t = 2000.0)]
    rate: f64,
    /// Seconds of the open-loop phase.
    #[arg(long, default_value_t = 20)]
    duration: u64,
    /// Connections of the closed-loop comparison with a bare echo server (0 skips it).
    #[arg(long, default_value_t = 100)]
    conns: usize,
    /// Seconds of each closed-loop run.
    #[arg(long, default_value_t = 10)]
    closed_duration: u64,
    /// Database URL of the server the tool starts [default: a new SQLite file in a
    /// temporary directory, removed after].
    #[arg(long, conflicts_with = "server")]
    database: Option<String>,
    /// Load a server already running at this address (started with `--socket-rate 0
    /// --connections-per-address 0 --creates-per-minute 0`)
    /// instead of starting one; its memory is then not measured.
    #[arg(long, value_name = "ADDR")]
    server: Option<std::net::SocketAddr>,
    /// Server nodes to start: more than one makes a cluster (needs --nats and a
    /// PostgreSQL --database); game i is created on node i mod N, its White connects
    /// there and its Black to the next node.
    #[arg(long, default_value_t = 1, conflicts_with = "server")]
    nodes: usize,
    /// The NATS server of the cluster's nodes (with --nodes 2 or more).
    #[arg(long, value_name = "URL")]
    nats: Option<String>,
    /// The nodes' lease in milliseconds (`serve --lease-ms`; with --nodes 2 or more)
    /// [default: the server's].
    #[arg(long, value_name = "MS")]
    lease_ms: Option<u64>,
    /// After the open loop, kill (SIGKILL) the node owning the most games while they play
    /// and report how long its games take to move again; watch SECONDS after the kill
    /// (with --nodes 2 or more).
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "15")]
    failover: Option<u64>,
    /// The most games one process of bots holds (more go to child processes) [default:
    /// as many as its open-file limit allows].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    games_per_process: Option<u64>,
    /// Run only the bare echo server of the baseline on ADDR (the tool starts itself
    /// this way).
    #[arg(long, value_name = "ADDR", hide = true)]
    serve_echo: Option<std::net::SocketAddr>,
    /// With --serve-echo: the durable echo, syncing every frame to this file first.
    #[arg(long, value_name = "FILE", hide = true, requires = "serve_echo")]
    echo_log: Option<std::path::PathBuf>,
    /// With --serve-echo: the store echo, committing every frame as an event through
    /// flagfall's store at this database URL first.
    #[arg(
        long,
        value_name = "URL",
        hide = true,
        requires = "serve_echo",
        conflicts_with = "echo_log"
    )]
    echo_store: Option<String>,
    /// In the closed loop, also run the store echo: the echo committing every frame as
    /// an event through flagfall's store before it answers (on the run's PostgreSQL
    /// database, or a new SQLite file), the floor under the server's closed loop.
    #[arg(long)]
    store_echo: bool,
    /// Run only a group of bots commanded over standard input (the tool starts itself
    /// this way when the games need more sockets than one process may open).
    #[arg(long, hide = true)]
    bots_worker: bool,
}

/// `database` when it names a PostgreSQL database (as `flagfall_store::open` tells them
/// apart), not SQLite.
fn postgres_url(database: Option<&str>) -> Option<&str> {
    database.filter(|d| d.starts_with("postgres://") || d.starts_with("postgresql://"))
}

/// The usage errors of a cluster run: what `--nodes`, `--nats`, `--failover` and the
/// database must agree on.
fn check_cluster(args: &Args) -> anyhow::Result<()> {
    if args.nodes == 0 {
        bail!("--nodes 0: expected at least one node");
    }
    if args.nodes == 1 {
        if args.failover.is_some() {
            bail!("--failover needs a cluster: --nodes 2 or more");
        }
        if args.lease_ms.is_some() {
            bail!("--lease-ms needs a cluster: --nodes 2 or more");
        }
        return Ok(());
    }
    if args.nats.is_none() {
        bail!(
            "--nodes {}: a cluster needs NATS (--nats nats://HOST:PORT)",
            args.nodes
        );
    }
    if postgres_url(args.database.as_deref()).is_none() {
        bail!(
            "--nodes {}: a cluster needs a PostgreSQL database (--database postgres://...), not SQLite",
            args.nodes
        );
    }
    if args.failover == Some(0) {
        bail!("--failover 0: expected the seconds to watch after the kill");
    }
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    if let Some(addr) = args.serve_echo {
        flagfall_loadtest::raise_nofile();
        runtime
            .block_on(flagfall_loadtest::serve_echo(
                addr,
                match (args.echo_log, args.echo_store) {
                    (Some(path), _) => flagfall_loadtest::Durable::Log(path),
                    (None, Some(url)) => flagfall_loadtest::Durable::Store(url),
                    (None, None) => flagfall_loadtest::Durable::None,
                },
            ))
            .context("echo server")?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.bots_worker {
        flagfall_loadtest::raise_nofile();
        runtime
            .block_on(flagfall_loadtest::bots_worker())
            .context("bots")?;
        return Ok(ExitCode::SUCCESS);
    }
    check_cluster(&args)?;
    if args.rate <= 0.0 || !args.rate.is_finite() {
        bail!(
            "--rate {}: expected a positive number of moves a second",
            args.rate
        );
    }
    let temp = std::env::temp_dir().join(format!("flagfall-loadtest-{}", std::process::id()));
    std::fs::create_dir_all(&temp).with_context(|| format!("creating {}", temp.display()))?;
    let store_echo = args
        .store_echo
        .then(|| match postgres_url(args.database.as_deref()) {
            Some(url) => url.to_string(),
            None => format!("sqlite:{}", temp.join("store-echo.db").display()),
        });
    let target = match (args.server, args.database) {
        (Some(addr), _) => flagfall_loadtest::Target::External(addr),
        (None, database) => {
            let database = match database {
                Some(d) => d,
                None => format!("sqlite:{}", temp.join("load.db").display()),
            };
            let exe =
                std::env::current_exe().context("finding this program to start the server")?;
            flagfall_loadtest::Target::Spawn {
                exe,
                database,
                nodes: args.nodes,
                nats: args.nats,
                lease_ms: args.lease_ms,
            }
        }
    };
    let report = runtime.block_on(flagfall_loadtest::run(flagfall_loadtest::LoadConfig {
        games: args.games,
        rate: args.rate,
        duration: Duration::from_secs(args.duration),
        conns: args.conns,
        closed_duration: Duration::from_secs(args.closed_duration),
        target,
        scratch: temp.clone(),
        failover: args.failover.map(Duration::from_secs),
        games_per_process: args.games_per_process.map(|n| n as usize),
        store_echo,
    }));
    let _ = std::fs::remove_dir_all(&temp);
    let report = report.context("load test")?;
    println!("{report}");
    Ok(if report.open.lost == 0 && report.open.duplicated == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
