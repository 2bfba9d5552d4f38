//! flagfall-server: `flagfall serve`, the live game server.
//!
//! - [`game`]: one task per live game (its `Game`, its flag timer, its simultaneity
//!   window), reached through a [`game::GameHandle`].
//! - [`writer`]: the one writer task, group commit; [`heartbeat`] beside it, the
//!   clocks' heartbeat (one "alive at" row a beat, each game's clock mark once).
//! - [`lifecycle`]: when games leave memory (games never started expire `aborted`;
//!   finished games with no socket are unloaded).
//! - [`bus`]: publish/subscribe between game tasks and sockets ([`bus::LocalBus`]).
//! - [`http`]: the HTTP routes, the WebSocket, the embedded web UI.
//! - [`lag`]: lag compensation (lichess's quota, the round trip of the server's pings).
//! - [`metrics`]: `GET /metrics`.
//! - [`evening`]: blitz evenings (issue 21): the events library's event, one task each.
//! - [`games`]: finding, loading and creating this node's games ([`Route`]).
//! - [`seam`]: where games are served and the other nodes, if any (one trait; the single
//!   node's [`seam::Local`]); [`cluster`] implements it over PostgreSQL and NATS.
//!
//! The wire contract is docs/protocol.md; the types are `flagfall-protocol`.

pub mod api;
pub mod bus;
pub mod challenge;
pub mod cluster;
pub mod cpu;
pub mod evening;
pub mod game;
pub mod games;
pub mod heartbeat;
pub mod http;
pub mod lag;
pub mod lifecycle;
pub mod limits;
pub mod metrics;
pub mod practice;
pub mod rematch;
pub mod round_link;
pub mod seam;
pub mod socket;
pub mod writer;

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use flagfall_store::Store;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, watch};

use crate::bus::{Bus, LocalBus};
use crate::game::GameHandle;
use crate::metrics::Metrics;
use crate::writer::WriteReq;

pub use games::Route;

/// A server failure.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Store(#[from] flagfall_store::StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
    /// A stored row the server cannot read (a game's setup or script, a challenge's
    /// body, an evening's base, settings, log or tokens), named: a real damage.
    #[error("stored data damaged: {0}")]
    Corrupt(String),
    /// Something the server made does not serialise (`what` it is): the request that
    /// made it is refused and nothing of it is stored.
    #[error("cannot serialise {what}: {message}")]
    Serialise { what: &'static str, message: String },
    /// The task that would do the work has stopped (an evening's task unloaded or the
    /// server stopping, the evenings' threads closed): asking again may find it.
    #[error("{0} stopped")]
    Stopped(&'static str),
    /// A job of the server's panicked: a bug, logged.
    #[error("{what} failed: {message}")]
    Bug { what: &'static str, message: String },
    #[error("cannot draw random bytes: {0}")]
    Random(String),
    /// A setting that cannot work (`flagfall serve`'s flags).
    #[error("{0}")]
    Config(String),
    /// NATS (a cluster's messages) failed.
    #[error("NATS: {0}")]
    Nats(String),
    /// In a cluster, another node serves the game (it holds its lease).
    #[error("game served by node {node}")]
    Elsewhere { node: String },
}

impl ServerError {
    /// [`ServerError::Serialise`] of `what`.
    pub(crate) fn serialise(what: &'static str) -> impl FnOnce(serde_json::Error) -> ServerError {
        move |e| ServerError::Serialise {
            what,
            message: e.to_string(),
        }
    }
}

/// Why a game was not created: its setup (the client's fault), or the server.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error(transparent)]
    Setup(#[from] flagfall_protocol::SetupError),
    #[error(transparent)]
    Failed(#[from] ServerError),
}

impl From<flagfall_store::StoreError> for CreateError {
    fn from(e: flagfall_store::StoreError) -> CreateError {
        CreateError::Failed(e.into())
    }
}

/// How to run the server.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on (`127.0.0.1:8080`; port 0 picks one).
    pub listen: String,
    /// `sqlite:PATH`, a path, or `postgres://...`.
    pub database: String,
    /// A UCI engine for practice games against the computer (`--engine PATH`); without
    /// one the built-in opponent plays.
    pub engine: Option<std::path::PathBuf>,
    /// Frames a player (all its sockets together) or a spectator's socket may send per
    /// second, sustained (bursts of twice that); `None` is
    /// the default ([`socket::RATE_PER_SEC`], burst [`socket::BURST`]); `Some(0.0)` lifts
    /// the limit (`flagfall serve --socket-rate 0`, for load tests: bots move faster than
    /// people).
    pub socket_rate: Option<f64>,
    /// Per-address limits and HTTP timeouts (`limits::Limits::default()` for a public
    /// server; `limits::Limits::unlimited()` for load tests from one machine).
    pub limits: limits::Limits,
    /// Join a cluster (`--nats`, `--node`; docs/cluster.md); `None`: a single node.
    pub cluster: Option<cluster::ClusterConfig>,
}

impl Config {
    /// The frame limit in force: frames per second sustained, and the burst.
    pub fn rate(&self) -> (f64, f64) {
        match self.socket_rate {
            None => (socket::RATE_PER_SEC, socket::BURST),
            Some(r) if r <= 0.0 || !r.is_finite() => (f64::INFINITY, f64::INFINITY),
            Some(r) => (r, 2.0 * r),
        }
    }
}

/// Everything the tasks share.
pub struct Shared {
    pub store: Arc<dyn Store>,
    pub bus: Arc<dyn Bus>,
    pub metrics: Arc<Metrics>,
    pub writer: mpsc::Sender<WriteReq>,
    games: Mutex<HashMap<String, GameHandle>>,
    /// Practice games whose computer is running (at most one computer per game).
    computers: Mutex<HashSet<String>>,
    /// Turns true when the server shuts down.
    pub shutdown: watch::Receiver<bool>,
    /// The UCI engine practice games use, if any.
    pub engine: Option<std::path::PathBuf>,
    /// The frame limit of a player (all its sockets) or a spectator's socket: per second
    /// sustained, burst.
    pub rate: (f64, f64),
    /// The clocks of started live games, stored by the heartbeat task.
    pub beats: Arc<heartbeat::Beats>,
    /// Per-address limits and HTTP timeouts.
    pub limits: limits::Limits,
    /// Open WebSockets per token hash.
    pub(crate) token_sockets: Arc<limits::Counts<String>>,
    /// The frame limit of each player, shared by its sockets.
    pub(crate) player_buckets: Arc<socket::PlayerBuckets>,
    /// The loaded blitz evenings (issue 21), one task each.
    pub(crate) evenings: evening::Evenings,
    /// The evenings' CPU-bound work, off the async workers.
    pub cpu: cpu::Jobs,
    /// Games, practice games, challenges, accepts, rematches and an evening's server
    /// games, per client address (`None`: no limit).
    pub creations: Option<Arc<limits::Bucket>>,
    /// Evenings created or imported, per client address (`None`: no limit).
    pub evening_creations: Option<Arc<limits::Bucket>>,
    /// This node's part of a cluster (`None`: a single node).
    pub cluster: Option<Arc<cluster::Cluster>>,
    /// Every task the server starts, so that shutdown can wait for them (issue 33 item 7):
    /// spawn with [`Shared::spawn`], not `tokio::spawn`.
    pub tasks: tokio_util::task::TaskTracker,
    /// Where games are served, and the other nodes if any (`crate::seam`): the single
    /// node's [`seam::Local`], or the cluster.
    pub seam: Arc<dyn seam::Seam>,
}

impl Shared {
    /// Starts a task the server tracks (`tasks`): shutdown waits for it.
    pub fn spawn<F>(&self, task: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.tasks.spawn(task)
    }
}

/// Hex SHA-256 of a token: what the database keeps.
pub fn token_hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `bytes` random bytes as hex (ids: 12 bytes; tokens: 32 bytes, 256 bits).
pub fn random_hex(bytes: usize) -> Result<String, ServerError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| ServerError::Random(e.to_string()))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

pub(crate) fn now_unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// How long connections get to close after SIGTERM before they are dropped.
pub const SHUTDOWN_CONNECTIONS: std::time::Duration = std::time::Duration::from_secs(4);
/// How long the writer gets to commit what was queued once the tasks are stopped.
pub const SHUTDOWN_WRITER: std::time::Duration = std::time::Duration::from_secs(3);

/// A running server (for tests and embedding): its address, and how to stop it.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<Result<(), ServerError>>,
}

impl Running {
    /// Stop as on SIGTERM and wait until everything is flushed.
    pub async fn stop(mut self) -> Result<(), ServerError> {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        self.done
            .await
            .map_err(|e| ServerError::Io(std::io::Error::other(e.to_string())))?
    }
}

/// Start a server on `config.listen` in the background.
pub async fn start(config: Config) -> Result<Running, ServerError> {
    start_inner(config, None).await
}

/// [`start`] on a store the caller opened instead of `config.database` (tests wrap the
/// real store in one that fails on demand).
pub async fn start_with_store(
    config: Config,
    store: Arc<dyn Store>,
) -> Result<Running, ServerError> {
    start_inner(config, Some(store)).await
}

async fn start_inner(
    config: Config,
    store: Option<Arc<dyn Store>>,
) -> Result<Running, ServerError> {
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (addr_tx, addr_rx) = tokio::sync::oneshot::channel();
    let done = tokio::spawn(serve_inner(config, store, Some(addr_tx), async {
        let _ = stop_rx.await;
    }));
    match addr_rx.await {
        Ok(addr) => Ok(Running {
            addr,
            stop: Some(stop_tx),
            done,
        }),
        Err(_) => match done.await {
            Ok(Err(e)) => Err(e),
            _ => Err(ServerError::Io(std::io::Error::other(
                "server did not start",
            ))),
        },
    }
}

/// Run the server until `shutdown` completes (SIGTERM, ctrl-c), then stop accepting,
/// close every socket with "going away", commit what is queued and return.
pub async fn serve(
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    // Every socket is a descriptor: take what the system allows.
    let nofile = raise_nofile();
    tracing::info!(nofile, "open-file limit");
    serve_inner(config, None, None, shutdown).await
}

/// Raise the open-file limit to the hard limit; the limit in force (0 where there is
/// none to read).
fn raise_nofile() -> u64 {
    #[cfg(unix)]
    {
        rlimit::increase_nofile_limit(u64::MAX).unwrap_or(0)
    }
    #[cfg(not(unix))]
    {
        0
    }
}

async fn serve_inner(
    config: Config,
    store: Option<Arc<dyn Store>>,
    addr_tx: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let store = match store {
        Some(s) => s,
        None => flagfall_store::open(&config.database).await?,
    };
    let listener = tokio::net::TcpListener::bind(&config.listen)
        .await
        .map_err(|source| ServerError::Listen {
            addr: config.listen.clone(),
            source,
        })?;
    let addr = listener.local_addr()?;
    let metrics = Arc::new(Metrics::default());
    // A cluster node (docs/cluster.md): PostgreSQL decides ownership, NATS carries
    // requests and messages between nodes.
    let cluster = match &config.cluster {
        None => None,
        Some(c) => {
            if store.backend() != "postgres" {
                return Err(ServerError::Config(format!(
                    "--nats: a cluster's nodes share one PostgreSQL database; --database is {}",
                    store.backend()
                )));
            }
            Some(cluster::Cluster::connect(c).await?)
        }
    };
    let bus: Arc<dyn Bus> = match &cluster {
        None => Arc::new(LocalBus::new()),
        Some(c) => Arc::new(cluster::relay::NatsBus::new(
            &c.node,
            c.nats.clone(),
            metrics.clone(),
        )),
    };
    let (writer_tx, writer_rx) = mpsc::channel(8192);
    let writer = tokio::spawn(writer::run(
        store.clone(),
        writer_rx,
        metrics.clone(),
        cluster.as_ref().map(|c| c.node.clone()),
    ));
    let (down_tx, down_rx) = watch::channel(false);
    let seam: Arc<dyn seam::Seam> = match &cluster {
        None => Arc::new(seam::Local),
        Some(c) => c.clone(),
    };
    let shared = Arc::new(Shared {
        store: store.clone(),
        bus,
        cluster,
        metrics,
        writer: writer_tx,
        games: Mutex::new(HashMap::new()),
        computers: Mutex::new(HashSet::new()),
        shutdown: down_rx,
        engine: config.engine.clone(),
        rate: config.rate(),
        beats: Arc::new(heartbeat::Beats::default()),
        limits: config.limits.clone(),
        token_sockets: Arc::default(),
        player_buckets: Arc::default(),
        evenings: evening::Evenings::default(),
        cpu: cpu::Jobs::new(&config.limits),
        creations: limits::Bucket::new(
            config.limits.creates_per_minute,
            config.limits.create_burst,
            "games or challenges created from your address",
            "--creates-per-minute, --create-burst",
        ),
        evening_creations: limits::Bucket::new(
            config.limits.evenings_per_minute,
            config.limits.evening_burst,
            "evenings created or imported from your address",
            "--evenings-per-minute, --evening-burst",
        ),
        tasks: tokio_util::task::TaskTracker::new(),
        seam,
    });
    let beating = tokio::spawn(heartbeat::run(
        store.clone(),
        shared.beats.clone(),
        shared.shutdown.clone(),
    ));
    // Every live game resumes: its task (and flag timer) runs again, and a practice
    // game's computer with it.
    // One damaged game does not keep the others from being served: it is logged,
    // counted (`flagfall_damaged_games`) and left unloaded; asking for it is a 500.
    // Games never started and past their expiry are aborted first, and not loaded.
    lifecycle::abort_expired(&*store, shared.limits.unstarted_expiry).await?;
    // In a cluster, a node loads no game at start: live games nobody serves are taken
    // over by the nodes' scans, a few hundred at a time, spread over the nodes.
    let live = match &shared.cluster {
        None => store.live_ids().await?,
        Some(_) => Vec::new(),
    };
    if shared.cluster.is_some() {
        cluster::route::serve(shared.clone()).await?;
        cluster::evening::serve(shared.clone()).await?;
        tokio::spawn(cluster::leases::renew(shared.clone()));
        tokio::spawn(cluster::leases::take_over(shared.clone()));
        tokio::spawn(cluster::leases::expire(shared.clone()));
    }
    for id in &live {
        if let Err(e) = shared.handle(id).await {
            shared.metrics.damaged_games.inc();
            tracing::error!(game = %id, error = %e, "stored game damaged: not served");
        }
    }
    tracing::info!(%addr, backend = store.backend(), resumed = live.len(), "flagfall serve listening");
    if let Some(tx) = addr_tx {
        let _ = tx.send(addr);
    }
    let app = http::router(shared.clone());
    let shutdown_signal = async move {
        shutdown.await;
        tracing::info!("shutting down: closing sockets, flushing");
        let _ = down_tx.send(true);
    };
    // Connections get SHUTDOWN_CONNECTIONS after the signal to close; whatever a client
    // does (half a request, a socket it never reads), the server goes on stopping.
    let mut signalled = shared.shutdown.clone();
    let serving = limits::serve(listener, app, config.limits.clone(), shutdown_signal);
    tokio::select! {
        r = serving => r?,
        _ = async {
            let _ = signalled.wait_for(|down| *down).await;
            tokio::time::sleep(SHUTDOWN_CONNECTIONS).await;
        } => {
            tracing::warn!("connections still open {SHUTDOWN_CONNECTIONS:?} after the signal: dropped");
        }
    }
    // Stop the game tasks (they finish what they are committing) and the writer.
    let handles: Vec<GameHandle> = shared.lock().drain().map(|(_, h)| h).collect();
    drop(handles);
    let Shared { writer: w, .. } = match Arc::try_unwrap(shared) {
        Ok(s) => s,
        Err(still) => {
            // Tasks still hold it: wait for them to drain their queues briefly.
            let mut tries = 0;
            let mut s = still;
            loop {
                match Arc::try_unwrap(s) {
                    Ok(x) => break x,
                    Err(again) if tries < 100 => {
                        tries += 1;
                        s = again;
                        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    }
                    Err(_) => {
                        tracing::warn!(
                            "tasks still running at shutdown; the writer flushes what was queued"
                        );
                        let _ = tokio::time::timeout(SHUTDOWN_WRITER, writer).await;
                        let _ = tokio::time::timeout(SHUTDOWN_WRITER, beating).await;
                        return Ok(());
                    }
                }
            }
        }
    };
    drop(w);
    let _ = tokio::time::timeout(SHUTDOWN_WRITER, writer).await;
    let _ = tokio::time::timeout(SHUTDOWN_WRITER, beating).await;
    tracing::info!("stopped");
    Ok(())
}
