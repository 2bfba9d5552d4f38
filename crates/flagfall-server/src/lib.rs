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
pub mod error;
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

#[cfg(test)]
mod stop_tests;

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use flagfall_store::Store;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, watch};

pub use crate::error::{CreateError, ServerError};

use crate::bus::{Bus, LocalBus};
use crate::game::GameHandle;
use crate::metrics::Metrics;
use crate::writer::WriteReq;

pub use games::Route;

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
    /// The evenings' side of a server game's tellings to its evening (`crate::round_link`).
    pub evening_link: Arc<dyn round_link::EveningLink>,
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

    /// The server is stopping ([`Shared::shutdown`] turned true): nothing is loaded or
    /// started any more. Checked under the lock of the games (or of the evenings) where a
    /// task is put in, so that nothing put in after the stop forgot the loaded ones
    /// outlives it until the stop's deadline.
    pub fn stopping(&self) -> bool {
        *self.shutdown.borrow()
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
    let node = Node::start(&config, store).await?;
    let resumed = node.resume().await?;
    tracing::info!(%addr, backend = node.shared.store.backend(), resumed, "flagfall serve listening");
    if let Some(tx) = addr_tx {
        let _ = tx.send(addr);
    }
    node.serve(listener, config.limits.clone(), shutdown).await
}

/// A running server's parts, stopped in order by [`Node::serve`] (issue 33 item 7): the
/// tasks on [`Shared::tasks`] first, then the writer, the heartbeat and the store, which
/// outlive them.
struct Node {
    shared: Arc<Shared>,
    /// Tells every task the server stops ([`Shared::shutdown`]).
    down: watch::Sender<bool>,
    /// The group commit: it ends when the last sender (in [`Shared`]) is gone, once it
    /// has committed what was queued.
    writer: tokio::task::JoinHandle<()>,
    /// The clocks' heartbeat, and what stops it: it stores its last beat once the writer
    /// has committed the games' last events.
    heartbeat: tokio::task::JoinHandle<()>,
    beat_stop: watch::Sender<bool>,
}

impl Node {
    /// Open the server's shared state on `store` (a cluster: connect NATS), start the
    /// writer and the heartbeat.
    async fn start(config: &Config, store: Arc<dyn Store>) -> Result<Node, ServerError> {
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
        // The writer and the heartbeat are not on `Shared::tasks`: they outlive every
        // task there (their last writes), and are awaited after it.
        let (writer_tx, writer_rx) = mpsc::channel(8192);
        let writer = tokio::spawn(writer::run(
            store.clone(),
            writer_rx,
            metrics.clone(),
            cluster.as_ref().map(|c| c.node.clone()),
        ));
        let (down, down_rx) = watch::channel(false);
        let shared = Arc::new(Shared::new(
            config, store, bus, cluster, metrics, writer_tx, down_rx,
        ));
        let (beat_stop, beat_rx) = watch::channel(false);
        let heartbeat = tokio::spawn(heartbeat::run(
            shared.store.clone(),
            shared.beats.clone(),
            beat_rx,
        ));
        Ok(Node {
            shared,
            down,
            writer,
            heartbeat,
            beat_stop,
        })
    }

    /// Resume what was stored: games never started and past their expiry are aborted,
    /// every live game's task runs again (its flag timer, a practice game's computer);
    /// in a cluster, the lease tasks start instead. How many games resumed.
    async fn resume(&self) -> Result<usize, ServerError> {
        let shared = &self.shared;
        lifecycle::abort_expired(&*shared.store, shared.limits.unstarted_expiry).await?;
        // One damaged game does not keep the others from being served: it is logged,
        // counted (`flagfall_damaged_games`) and left unloaded; asking for it is a 500.
        // In a cluster, a node loads no game at start: live games nobody serves are taken
        // over by the nodes' scans, a few hundred at a time, spread over the nodes.
        let live = match &shared.cluster {
            None => shared.store.live_ids().await?,
            Some(_) => Vec::new(),
        };
        if shared.cluster.is_some() {
            cluster::route::serve(shared.clone()).await?;
            cluster::evening::serve(shared.clone()).await?;
            shared.spawn(cluster::leases::renew(shared.clone()));
            shared.spawn(cluster::leases::take_over(shared.clone()));
            shared.spawn(cluster::leases::expire(shared.clone()));
        }
        for id in &live {
            if let Err(e) = shared.load_here(id).await {
                shared.metrics.damaged_games.inc();
                tracing::error!(game = %id, error = %e, "stored game damaged: not served");
            }
        }
        Ok(live.len())
    }

    /// Serve on `listener` until `shutdown` completes, then stop, in order:
    /// 1. stop accepting connections;
    /// 2. tell every task (`Shared::shutdown`): sockets close (1001, going away; 1012 for
    ///    a game this node no longer serves), practice computers and a cluster's loops
    ///    end;
    /// 3. once the requests in flight are answered, forget the loaded games and
    ///    evenings: each task finishes what it is committing and ends when the last
    ///    socket or task holding it lets go;
    /// 4. close [`Shared::tasks`] and wait for it, until [`SHUTDOWN_CONNECTIONS`] after
    ///    the signal;
    /// 5. the writer commits what was queued and ends (within [`SHUTDOWN_WRITER`]);
    /// 6. the heartbeat stores its last beat; the store closes last (within
    ///    [`SHUTDOWN_WRITER`] again).
    async fn serve(
        self,
        listener: tokio::net::TcpListener,
        limits: limits::Limits,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        let (stop_accepting, accepting_stopped) = tokio::sync::oneshot::channel::<()>();
        let app = http::router(self.shared.clone());
        let mut serving = self
            .shared
            .spawn(limits::serve(listener, app, limits, async {
                let _ = accepting_stopped.await;
            }));
        let failed = tokio::select! {
            _ = shutdown => None,
            r = &mut serving => Some(r),
        };
        tracing::info!("shutting down: closing sockets, flushing");
        let deadline = tokio::time::Instant::now() + SHUTDOWN_CONNECTIONS;
        let _ = stop_accepting.send(());
        let _ = self.down.send(true);
        let served = match failed {
            Some(r) => Some(r),
            None => tokio::time::timeout_at(deadline, &mut serving).await.ok(),
        };
        if served.is_none() {
            tracing::warn!(
                "connections still open {SHUTDOWN_CONNECTIONS:?} after the signal: dropped"
            );
            serving.abort();
        }
        let games = self.shared.stop_games();
        self.shared.tasks.close();
        if tokio::time::timeout_at(deadline, self.shared.tasks.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                tasks = self.shared.tasks.len(),
                "tasks still running {SHUTDOWN_CONNECTIONS:?} after the signal: the writer commits what they queued"
            );
        }
        tracing::debug!(games, "games and evenings stopped");
        let result = self.finish().await;
        match served {
            Some(Ok(Err(e))) => Err(e.into()),
            Some(Err(e)) if e.is_panic() => Err(ServerError::Bug {
                what: "the HTTP server",
                message: e.to_string(),
            }),
            _ => result,
        }
    }

    /// The last steps of a stop: the writer drains (it ends with the last [`Shared`]),
    /// then the heartbeat's last beat, then the store closes.
    async fn finish(self) -> Result<(), ServerError> {
        let Node {
            shared,
            down,
            writer,
            heartbeat,
            beat_stop,
        } = self;
        let store = shared.store.clone();
        drop(shared);
        drop(down);
        if tokio::time::timeout(SHUTDOWN_WRITER, writer).await.is_err() {
            tracing::warn!("the writer did not finish within {SHUTDOWN_WRITER:?}: stopping");
        }
        let _ = beat_stop.send(true);
        let last = async {
            let _ = heartbeat.await;
            store.close().await;
        };
        if tokio::time::timeout(SHUTDOWN_WRITER, last).await.is_err() {
            tracing::warn!("the heartbeat or the store did not close within {SHUTDOWN_WRITER:?}");
        }
        tracing::info!("stopped");
        Ok(())
    }
}

impl Shared {
    /// The handles every task is given, on `store` (`cluster`: this node's part of one).
    fn new(
        config: &Config,
        store: Arc<dyn Store>,
        bus: Arc<dyn Bus>,
        cluster: Option<Arc<cluster::Cluster>>,
        metrics: Arc<Metrics>,
        writer: mpsc::Sender<WriteReq>,
        shutdown: watch::Receiver<bool>,
    ) -> Shared {
        let seam: Arc<dyn seam::Seam> = match &cluster {
            None => Arc::new(seam::Local),
            Some(c) => c.clone(),
        };
        Shared {
            store,
            bus,
            cluster,
            metrics,
            writer,
            games: Mutex::new(HashMap::new()),
            computers: Mutex::new(HashSet::new()),
            shutdown,
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
            evening_link: Arc::new(evening::Link),
        }
    }

    /// The server stops: forget every loaded game and evening (how many), so that each
    /// task ends once the sockets and tasks holding its handle are done. What a game's
    /// task was committing it still hands to the writer.
    fn stop_games(&self) -> usize {
        let games: Vec<GameHandle> = self.lock().drain().map(|(_, h)| h).collect();
        let evenings = self.evenings.drain();
        games.len() + evenings.len()
    }
}
