//! `flagfall serve`: the live game server (crates/flagfall-server).

use std::process::ExitCode;

use anyhow::Context;

#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Database URL: `sqlite:PATH`, a path, or `postgres://...` [default: DATABASE_URL,
    /// else flagfall.db in the working directory].
    #[arg(long)]
    database: Option<String>,
    /// A UCI engine (e.g. /usr/games/stockfish) for practice games against the computer;
    /// without one a built-in opponent plays legal moves.
    #[arg(long, value_name = "PATH")]
    engine: Option<std::path::PathBuf>,
    /// Frames a player may send per second, all its sockets together (a spectator's
    /// socket alone), sustained (bursts of twice that); 0 lifts the limit, for load tests
    /// only.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::socket::RATE_PER_SEC)]
    socket_rate: f64,
    /// Open connections (WebSockets included) one client address may hold; 0 lifts the
    /// limit, for load tests from one machine only.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::CONNECTIONS_PER_ADDRESS)]
    connections_per_address: usize,
    /// Games, practice games, challenges and accepts one client address may create a
    /// minute, sustained (bursts of --create-burst); 0 lifts the limit.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::CREATES_PER_MINUTE)]
    creates_per_minute: u32,
    /// Creations one client address may make at once.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::CREATE_BURST)]
    create_burst: u32,
    /// WebSockets open at once with one token (a player's or the director's); 0 lifts
    /// the limit.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::SOCKETS_PER_TOKEN)]
    sockets_per_token: usize,
    /// Practice games with an engine process (--engine) at once; more are refused (503).
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::ENGINES)]
    engines: usize,
    /// Seconds a game may wait for its first action (a move, a press, a claim, a
    /// director's decision) before it expires: status `aborted`, no result, unloaded.
    #[arg(long, value_name = "S", default_value_t = flagfall_server::limits::UNSTARTED_EXPIRY.as_secs())]
    unstarted_expiry: u64,
    /// Seconds a client has to send a request's headers, and again its body.
    #[arg(long, value_name = "S", default_value_t = flagfall_server::limits::HEADER_TIMEOUT.as_secs())]
    request_timeout: u64,
    /// Evenings one client address may create or import a minute, sustained (bursts of
    /// --evening-burst); 0 lifts the limit.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::EVENINGS_PER_MINUTE)]
    evenings_per_minute: u32,
    /// Evenings one client address may create or import at once.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::EVENING_BURST)]
    evening_burst: u32,
    /// Players one evening may hold (at most the events library's 10,000; the TRF and US
    /// Chess exports refuse more than 9,999).
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::EVENING_PLAYERS)]
    evening_players: usize,
    /// Rounds one evening may play (a round robin's follow from its players; at most 200).
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::EVENING_ROUNDS)]
    evening_rounds: u32,
    /// Forbidden pairs one evening may hold.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::EVENING_FORBIDDEN)]
    evening_forbidden: usize,
    /// Mebibytes one evening's stored log may hold (each change is replayed when the
    /// evening loads).
    #[arg(long, value_name = "MIB", default_value_t = flagfall_server::limits::EVENING_LOG_MIB)]
    evening_log_mib: usize,
    /// Deputy directors' tokens one evening may have.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::DEPUTIES_PER_EVENING)]
    deputies_per_evening: usize,
    /// Threads for the evenings' CPU-bound work (pairing, standings, exports, imports),
    /// off the threads serving sockets and games; 0: half the cores, at least one.
    #[arg(long, value_name = "N", default_value_t = 0)]
    evening_threads: usize,
    /// Evening requests doing such work in flight on the server at once (running or
    /// waiting for a thread); more are refused (503).
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::EVENING_QUEUE)]
    evening_queue: usize,
    /// Of those, in flight from one client address at once (more: 429); 0 lifts it.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::EVENING_JOBS_PER_ADDRESS)]
    evening_jobs_per_address: usize,
    /// Of those, in flight on one evening at once (more: 429); 0 lifts it.
    #[arg(long, value_name = "N", default_value_t = flagfall_server::limits::EVENING_JOBS_PER_EVENING)]
    evening_jobs_per_evening: usize,
    /// Load balancers whose word on the client's address is taken, as addresses or CIDR
    /// ranges separated by commas (10.0.0.0/8,fd00::/8). Only a connection from one of
    /// them is read for the client's address (--client-address-from); every other
    /// connection is its own client, whatever headers it sends. Default: none.
    #[arg(long, value_name = "CIDR[,CIDR...]")]
    trusted_proxies: Option<String>,
    /// Where a trusted proxy puts the client's address: x-forwarded-for (the rightmost
    /// address that is not a trusted proxy), forwarded (RFC 7239 `for=`), or
    /// proxy-protocol (a PROXY v1/v2 header begins each of its connections).
    #[arg(long, value_name = "SOURCE", default_value = "x-forwarded-for")]
    client_address_from: flagfall_server::limits::ClientAddressFrom,
    /// Join a cluster of nodes sharing one PostgreSQL database (--database postgres://...)
    /// through this NATS server, e.g. nats://127.0.0.1:4222 (docs/cluster.md). Without it
    /// the server is a single node.
    #[arg(long, value_name = "URL", requires = "node")]
    nats: Option<String>,
    /// This node's name in the cluster, unique among its nodes (letters, digits, - and _).
    #[arg(long, value_name = "NAME", requires = "nats")]
    node: Option<String>,
    /// Milliseconds of each game's lease in a cluster: a dead node's games move to
    /// another node about this long after it died.
    #[arg(long, value_name = "MS", default_value_t = flagfall_server::cluster::DEFAULT_LEASE.as_millis() as u64)]
    lease_ms: u64,
    /// The node's NATS credentials file (a user JWT and its nkey seed, as `nsc` writes
    /// it). Without --nats-creds, --nats-nkey, --nats-user or FLAGFALL_NATS_TOKEN the
    /// node connects without credentials (a warning): see docs/cluster.md.
    #[arg(long, value_name = "FILE", requires = "nats", group = "nats_auth")]
    nats_creds: Option<std::path::PathBuf>,
    /// A file holding the node's NATS nkey seed (`SU...`).
    #[arg(long, value_name = "FILE", requires = "nats", group = "nats_auth")]
    nats_nkey: Option<std::path::PathBuf>,
    /// The node's NATS user; its password is read from the environment variable
    /// FLAGFALL_NATS_PASSWORD (never a flag: flags show in `ps`).
    #[arg(long, value_name = "NAME", requires = "nats", group = "nats_auth")]
    nats_user: Option<String>,
    /// CA certificates (PEM) of the NATS server's certificate: TLS to NATS (as a
    /// tls:// URL), verified against these instead of the system's roots.
    #[arg(long, value_name = "FILE", requires = "nats")]
    nats_tls_ca: Option<std::path::PathBuf>,
    /// This node's TLS client certificate (PEM), for a NATS server that verifies
    /// clients; with --nats-tls-key.
    #[arg(long, value_name = "FILE", requires_all = ["nats", "nats_tls_key"])]
    nats_tls_cert: Option<std::path::PathBuf>,
    /// The key (PEM) of --nats-tls-cert.
    #[arg(long, value_name = "FILE", requires_all = ["nats", "nats_tls_cert"])]
    nats_tls_key: Option<std::path::PathBuf>,
}

/// The node's NATS credentials from the flags and the environment: at most one way.
fn nats_auth(args: &Args) -> anyhow::Result<flagfall_server::cluster::NatsAuth> {
    use flagfall_server::cluster::{NatsAuth, PASSWORD_ENV, TOKEN_ENV};
    let token = std::env::var(TOKEN_ENV).ok();
    let flagged = args.nats_creds.is_some() || args.nats_nkey.is_some() || args.nats_user.is_some();
    if token.is_some() && flagged {
        anyhow::bail!(
            "{TOKEN_ENV} is set as well as --nats-creds, --nats-nkey or --nats-user: \
             give the node one way to log in to NATS"
        );
    }
    Ok(if let Some(p) = &args.nats_creds {
        NatsAuth::Creds(p.clone())
    } else if let Some(p) = &args.nats_nkey {
        NatsAuth::Nkey(p.clone())
    } else if let Some(user) = &args.nats_user {
        NatsAuth::UserPassword {
            user: user.clone(),
            password: std::env::var(PASSWORD_ENV).unwrap_or_default(),
        }
    } else if let Some(t) = token {
        NatsAuth::Token(t)
    } else {
        NatsAuth::None
    })
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    if !args.socket_rate.is_finite() || args.socket_rate < 0.0 {
        anyhow::bail!(
            "--socket-rate {}: expected frames a second (0 lifts the limit)",
            args.socket_rate
        );
    }
    if args.evening_players > flagfall_events::event::MAX_PLAYERS {
        anyhow::bail!(
            "--evening-players {}: an event holds at most {} players",
            args.evening_players,
            flagfall_events::event::MAX_PLAYERS
        );
    }
    if args.evening_rounds > flagfall_events::event::MAX_ROUNDS {
        anyhow::bail!(
            "--evening-rounds {}: an event plays at most {} rounds",
            args.evening_rounds,
            flagfall_events::event::MAX_ROUNDS
        );
    }
    let trusted_proxies = match &args.trusted_proxies {
        None => Vec::new(),
        Some(list) => flagfall_server::limits::parse_trusted_proxies(list)
            .map_err(|e| anyhow::anyhow!("--trusted-proxies: {e}"))?,
    };
    let auth = nats_auth(&args)?;
    let cluster = match (args.nats, args.node) {
        (Some(nats), Some(node)) => {
            let c = flagfall_server::cluster::ClusterConfig {
                nats,
                node,
                lease: std::time::Duration::from_millis(args.lease_ms),
                auth,
                tls: flagfall_server::cluster::NatsTls {
                    ca: args.nats_tls_ca,
                    cert: args.nats_tls_cert.zip(args.nats_tls_key),
                },
            };
            c.check().map_err(anyhow::Error::msg)?;
            Some(c)
        }
        _ => None,
    };
    let database = args
        .database
        .or_else(|| std::env::var("DATABASE_URL").ok())
        .unwrap_or_else(|| "sqlite:flagfall.db".to_string());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let config = flagfall_server::Config {
            listen: args.listen,
            database,
            engine: args.engine,
            socket_rate: Some(args.socket_rate),
            limits: flagfall_server::limits::Limits {
                connections_per_address: args.connections_per_address,
                header_timeout: std::time::Duration::from_secs(args.request_timeout.max(1)),
                body_timeout: std::time::Duration::from_secs(args.request_timeout.max(1)),
                creates_per_minute: args.creates_per_minute,
                create_burst: args.create_burst,
                engines: args.engines,
                sockets_per_token: args.sockets_per_token,
                unstarted_expiry: std::time::Duration::from_secs(args.unstarted_expiry.max(1)),
                evening_idle: flagfall_server::limits::EVENING_IDLE,
                evenings_per_minute: args.evenings_per_minute,
                evening_burst: args.evening_burst,
                evening_players: args.evening_players,
                evening_rounds: args.evening_rounds,
                evening_forbidden: args.evening_forbidden,
                evening_log_bytes: args.evening_log_mib.saturating_mul(1 << 20),
                deputies_per_evening: args.deputies_per_evening,
                evening_threads: args.evening_threads,
                evening_queue: args.evening_queue,
                evening_jobs_per_address: args.evening_jobs_per_address,
                evening_jobs_per_evening: args.evening_jobs_per_evening,
                trusted_proxies,
                client_address_from: args.client_address_from,
            },
            cluster,
        };
        flagfall_server::serve(config, shutdown_signal())
            .await
            .context("flagfall serve")
    })?;
    Ok(ExitCode::SUCCESS)
}

/// SIGTERM or ctrl-c.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
