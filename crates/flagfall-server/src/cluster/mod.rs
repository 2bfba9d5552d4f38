//! Several `flagfall serve` nodes over one PostgreSQL and NATS (issue 22;
//! docs/cluster.md).
//!
//! - Ownership: a node serves a game (runs its task) only while it holds the game's
//!   lease, a row in PostgreSQL with an owner, an epoch and an expiry set by the
//!   database's clock ([`flagfall_store::Store::lease_claim`]). Loading a game is
//!   claiming it; unloading it releases it. Every group commit is fenced by the epoch
//!   ([`flagfall_store::Store::append_fenced`]), request by request at the epoch of
//!   the task that made it, in one statement that stores nothing past the lease: a
//!   node that lost a lease cannot store anything for that game, and drops it.
//! - [`leases`]: the renewal of all this node's leases in one statement, the scan
//!   that takes over games whose lease expired (their owner died or was cut off), and
//!   the drop of every game when this node's validity runs out by its own clock.
//! - [`seam`]: the cluster's [`crate::seam::Seam`]: a game is loaded here only under
//!   its lease, another node is asked over NATS request/reply (an action with the
//!   client's frame, a state, a ping, the state for `GET`, an evening's round), an
//!   evening's other nodes told; and a game taken over served.
//! - [`route`]: the owner's side: the requests other nodes send this node, answered.
//! - [`relay`]: the [`crate::bus::Bus`] over NATS: what a game's task publishes reaches
//!   every node with sockets on the game.
//! - [`evening`]: blitz evenings loaded on several nodes: a notice per stored change
//!   (the other nodes read the log after their seq), and the games' disputes.
//!
//! The cluster is the top of the server's modules: it may use any other, and none
//! below it names it (they reach it through `Shared::seam`). Without `--nats` none of
//! this runs: the server is one node ([`crate::seam::Local`]), as before.

pub mod evening;
pub mod leases;
pub mod relay;
pub mod route;
pub mod seam;
pub mod throttle;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::time::Instant;

use crate::ServerError;

/// The default lease (`--lease-ms`): an owner renews every third of it; a node stops
/// serving a game [`MARGIN`] before its lease could have expired unrenewed; another node
/// takes it over once it expired, within [`SCAN_EVERY`].
pub const DEFAULT_LEASE: Duration = Duration::from_millis(3000);
/// A node stops accepting actions this long before its last renewal's lease ends (the
/// database's clock and the node's may disagree a little; a renewal takes time).
pub const MARGIN: Duration = Duration::from_millis(500);
/// How often every node looks for games whose lease expired.
pub const SCAN_EVERY: Duration = Duration::from_millis(500);
/// One scan in this many looks at every live game without a lease (a game made before
/// the cluster existed; every 30 s, a node's first scan among them); the others only at
/// the games created in the few seconds before a lease ago, whose creator did not claim
/// them ([`flagfall_store::Unleased`]; BENCHMARKS.md, issue 34 goal 2, session 8).
pub const FULL_SCAN_EVERY: u64 = 60;
const _: () = assert!(
    (SCAN_EVERY.as_millis() as i64) < flagfall_store::RECENT_MS,
    "a scan of the recent games must come more often than they stay recent"
);
/// The most games one scan takes over (the others are left to the other nodes and the
/// next scan: games are spread over the nodes that scan).
pub const TAKE_PER_SCAN: i64 = 200;
/// How long a node waits for a game's owner to answer over NATS.
pub use crate::seam::REQUEST_TIMEOUT;

/// How a node proves who it is to NATS (docs/cluster.md, "What must stay private").
/// Without any, NATS must be reachable by the nodes alone: whoever can publish on
/// `flagfall.>` can ask an owner anything a node can.
#[derive(Clone, Default)]
pub enum NatsAuth {
    /// No credentials (a developer's NATS on loopback): logged as a warning.
    #[default]
    None,
    /// A credentials file (`--nats-creds`: a user JWT and its nkey seed, as `nsc`
    /// writes it).
    Creds(PathBuf),
    /// A file holding an nkey seed (`--nats-nkey`: `SU...`, as `nk -gen user` writes it).
    Nkey(PathBuf),
    /// A user and password (`--nats-user`, the password from `FLAGFALL_NATS_PASSWORD`).
    UserPassword { user: String, password: String },
    /// A token (`FLAGFALL_NATS_TOKEN`).
    Token(String),
}

impl std::fmt::Debug for NatsAuth {
    /// Never the secrets: a configuration printed in a log names the method only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NatsAuth::None => f.write_str("None"),
            NatsAuth::Creds(p) => write!(f, "Creds({})", p.display()),
            NatsAuth::Nkey(p) => write!(f, "Nkey({})", p.display()),
            NatsAuth::UserPassword { user, .. } => write!(f, "UserPassword({user}, ***)"),
            NatsAuth::Token(_) => f.write_str("Token(***)"),
        }
    }
}

/// TLS to NATS: a `tls://` URL, or any of these, makes the node require it.
#[derive(Debug, Clone, Default)]
pub struct NatsTls {
    /// The CA certificates (PEM) that sign the NATS server's certificate
    /// (`--nats-tls-ca`); the system's roots without it.
    pub ca: Option<PathBuf>,
    /// This node's client certificate and key (PEM), for a server that verifies
    /// clients (`--nats-tls-cert`, `--nats-tls-key`).
    pub cert: Option<(PathBuf, PathBuf)>,
}

/// How to join a cluster (`flagfall serve --nats URL --node NAME`).
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// The NATS server (`nats://127.0.0.1:4222`, `tls://nats.internal:4222`).
    pub nats: String,
    /// This node's name, unique in the cluster: letters, digits, `-` and `_`.
    pub node: String,
    /// The lease of each game this node serves.
    pub lease: Duration,
    /// The node's credentials on NATS.
    pub auth: NatsAuth,
    /// TLS to NATS.
    pub tls: NatsTls,
}

impl ClusterConfig {
    /// Check the settings: a clear error naming what is wrong.
    pub fn check(&self) -> Result<(), String> {
        let n = &self.node;
        if n.is_empty() || n.len() > 64 {
            return Err(format!(
                "--node: {n:?}: a name of 1 to 64 characters is needed"
            ));
        }
        if let Some(c) = n
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
        {
            return Err(format!(
                "--node: {n:?}: {c:?} is not allowed (letters, digits, '-' and '_' only)"
            ));
        }
        let ms = self.lease.as_millis();
        if !(1000..=60_000).contains(&ms) {
            return Err(format!(
                "--lease-ms: {ms}: between 1000 and 60000 milliseconds"
            ));
        }
        if !(self.nats.starts_with("nats://") || self.nats.starts_with("tls://")) {
            return Err(format!(
                "--nats: {:?}: a URL such as nats://127.0.0.1:4222 is needed",
                self.nats
            ));
        }
        if let NatsAuth::UserPassword { user, password } = &self.auth {
            if user.is_empty() {
                return Err("--nats-user: a user name is needed".into());
            }
            if password.is_empty() {
                return Err(format!(
                    "--nats-user {user}: the password is read from the environment variable \
                     {PASSWORD_ENV}, which is empty or not set"
                ));
            }
        }
        if let NatsAuth::Token(t) = &self.auth
            && t.is_empty()
        {
            return Err(format!("{TOKEN_ENV}: the token is empty"));
        }
        Ok(())
    }

    /// Whether the node talks TLS to NATS.
    pub fn tls_required(&self) -> bool {
        self.nats.starts_with("tls://") || self.tls.ca.is_some() || self.tls.cert.is_some()
    }

    /// The connection's options: the credentials read (a clear error naming the flag and
    /// the file when one cannot be read), TLS, and what NATS says logged.
    async fn options(&self) -> Result<async_nats::ConnectOptions, String> {
        let mut o = async_nats::ConnectOptions::new();
        match &self.auth {
            NatsAuth::None => {
                tracing::warn!(
                    nats = %self.nats,
                    "NATS without credentials: whoever reaches this NATS server can act on any \
                     game as any node; keep it private or give the nodes credentials \
                     (--nats-creds, --nats-nkey, --nats-user; docs/cluster.md)"
                );
            }
            NatsAuth::Creds(path) => {
                o = o.credentials_file(path).await.map_err(|e| {
                    format!(
                        "--nats-creds {}: cannot read the credentials: {e}",
                        path.display()
                    )
                })?;
            }
            NatsAuth::Nkey(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    format!("--nats-nkey {}: cannot read the seed: {e}", path.display())
                })?;
                let seed = text
                    .lines()
                    .map(str::trim)
                    .find(|l| l.starts_with("SU"))
                    .ok_or_else(|| {
                        format!(
                            "--nats-nkey {}: no user nkey seed (a line beginning SU) in the file",
                            path.display()
                        )
                    })?;
                // Checked here: a bad seed is otherwise an error deep in the handshake.
                if let Err(e) = nkeys::KeyPair::from_seed(seed) {
                    return Err(format!(
                        "--nats-nkey {}: not a valid nkey seed: {e}",
                        path.display()
                    ));
                }
                o = o.nkey(seed.to_string());
            }
            NatsAuth::UserPassword { user, password } => {
                o = o.user_and_password(user.clone(), password.clone());
            }
            NatsAuth::Token(t) => o = o.token(t.clone()),
        }
        if self.tls_required() {
            o = o.require_tls(true);
            if let Some(ca) = &self.tls.ca {
                readable(ca, "--nats-tls-ca")?;
                o = o.add_root_certificates(ca.clone());
            }
            if let Some((cert, key)) = &self.tls.cert {
                readable(cert, "--nats-tls-cert")?;
                readable(key, "--nats-tls-key")?;
                o = o.add_client_certificate(cert.clone(), key.clone());
            }
        }
        let node = self.node.clone();
        Ok(o.event_callback(move |event| {
            let node = node.clone();
            async move {
                match event {
                    async_nats::Event::Connected => tracing::info!(node = %node, "NATS connected"),
                    // A refused login or a subject the node may not use: the operator's to fix.
                    async_nats::Event::ServerError(e) => {
                        tracing::error!(node = %node, error = %e, "NATS refused this node")
                    }
                    e => tracing::warn!(node = %node, "NATS: {e}"),
                }
            }
        }))
    }
}

/// The environment variable `--nats-user`'s password is read from (not a flag: a flag
/// shows in `ps`).
pub const PASSWORD_ENV: &str = "FLAGFALL_NATS_PASSWORD";
/// The environment variable a NATS token is read from.
pub const TOKEN_ENV: &str = "FLAGFALL_NATS_TOKEN";

fn readable(path: &std::path::Path, flag: &str) -> Result<(), String> {
    std::fs::File::open(path)
        .map(drop)
        .map_err(|e| format!("{flag} {}: cannot read it: {e}", path.display()))
}

/// This node's part of the cluster, shared by its tasks.
pub struct Cluster {
    pub node: String,
    pub lease: Duration,
    pub(crate) nats: async_nats::Client,
    /// The leases this node holds: game → epoch.
    owned: Mutex<HashMap<String, i64>>,
    /// Until when the leases are surely held: the start of the last successful renewal
    /// plus the lease, less [`MARGIN`]. Past it the node accepts no action,
    /// answers routed requests "not owner", and drops every game ([`leases::expire`]).
    valid_until: Mutex<Instant>,
    /// One claim at a time per game on this node (a claim raises the epoch: two at
    /// once would fence each other).
    claiming: Mutex<HashMap<String, Weak<tokio::sync::Mutex<()>>>>,
}

impl Cluster {
    /// Connect to NATS.
    pub async fn connect(config: &ClusterConfig) -> Result<Arc<Cluster>, ServerError> {
        config.check().map_err(ServerError::Config)?;
        let nats = config
            .options()
            .await
            .map_err(ServerError::Config)?
            .name(format!("flagfall {}", config.node))
            .request_timeout(Some(REQUEST_TIMEOUT))
            .retry_on_initial_connect()
            .connect(&config.nats)
            .await
            .map_err(|e| ServerError::Nats(format!("cannot connect to {}: {e}", config.nats)))?;
        Ok(Arc::new(Cluster {
            node: config.node.clone(),
            lease: config.lease,
            nats,
            owned: Mutex::new(HashMap::new()),
            // Nothing is held before the first renewal; claims set their own validity.
            valid_until: Mutex::new(Instant::now() + config.lease.saturating_sub(MARGIN)),
            claiming: Mutex::new(HashMap::new()),
        }))
    }

    pub(crate) fn lease_ms(&self) -> i64 {
        i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX)
    }

    fn owned(&self) -> std::sync::MutexGuard<'_, HashMap<String, i64>> {
        self.owned.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// This node holds game `id`'s lease at `epoch` (just claimed or taken over).
    pub(crate) fn own(&self, id: &str, epoch: i64) {
        self.owned().insert(id.to_string(), epoch);
    }

    /// The epoch this node holds game `id` at, if it does.
    pub(crate) fn epoch_of(&self, id: &str) -> Option<i64> {
        self.owned().get(id).copied()
    }

    /// Forget game `id`'s lease at `epoch` (released or lost); a newer one stays.
    pub(crate) fn forget(&self, id: &str, epoch: i64) {
        let mut owned = self.owned();
        if owned.get(id) == Some(&epoch) {
            owned.remove(id);
        }
    }

    /// The leases this node holds now.
    pub(crate) fn owned_snapshot(&self) -> HashMap<String, i64> {
        self.owned().clone()
    }

    /// How many leases this node holds.
    pub fn owned_count(&self) -> usize {
        self.owned().len()
    }

    /// Whether this node may still act for game `id` at `epoch`: it holds that lease and
    /// its last renewal is recent enough.
    pub(crate) fn holds(&self, id: &str, epoch: i64) -> bool {
        self.is_valid() && self.epoch_of(id) == Some(epoch)
    }

    /// The leases are surely held now (the last renewal is recent enough).
    pub fn is_valid(&self) -> bool {
        Instant::now() < self.valid_until()
    }

    /// Until when the leases are surely held.
    pub(crate) fn valid_until(&self) -> Instant {
        *self.valid_until.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A renewal sent at `sent` succeeded (or a claim sent then): held until `sent` +
    /// lease - margin, unless already later.
    pub(crate) fn renewed(&self, sent: Instant) {
        let until = sent + self.lease.saturating_sub(MARGIN);
        let mut v = self.valid_until.lock().unwrap_or_else(|p| p.into_inner());
        if until > *v {
            *v = until;
        }
    }

    /// The lock that serialises claims of game `id` on this node.
    pub(crate) fn claim_lock(&self, id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut map = self.claiming.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = map.get(id).and_then(Weak::upgrade) {
            return l;
        }
        map.retain(|_, w| w.strong_count() > 0);
        let l = Arc::new(tokio::sync::Mutex::new(()));
        map.insert(id.to_string(), Arc::downgrade(&l));
        l
    }

    /// Whether NATS is connected now.
    pub fn nats_connected(&self) -> bool {
        self.nats.connection_state() == async_nats::connection::State::Connected
    }
}

/// The messages on `subject` until the server stops (`what` names them in an error).
pub(crate) async fn subscribe(
    shared: &crate::Shared,
    cluster: &Cluster,
    subject: String,
    what: &str,
) -> Result<
    std::pin::Pin<Box<dyn futures_util::Stream<Item = async_nats::Message> + Send>>,
    ServerError,
> {
    use futures_util::StreamExt;
    let sub = cluster
        .nats
        .subscribe(subject)
        .await
        .map_err(|e| ServerError::Nats(format!("cannot subscribe to {what}: {e}")))?;
    let mut shutdown = shared.shutdown.clone();
    Ok(Box::pin(sub.take_until(async move {
        let _ = shutdown.wait_for(|d| *d).await;
    })))
}

/// The subject of a node's requests.
pub(crate) fn node_subject(node: &str) -> String {
    format!("flagfall.node.{node}")
}

/// The subject of a game's messages. Game ids are hex (`random_hex`); anything else a
/// client sends in a path is not a stored game and never reaches here.
pub(crate) fn game_subject(game: &str) -> String {
    format!("flagfall.game.{game}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(node: &str, nats: &str, lease_ms: u64) -> ClusterConfig {
        ClusterConfig {
            nats: nats.into(),
            node: node.into(),
            lease: Duration::from_millis(lease_ms),
            auth: NatsAuth::None,
            tls: NatsTls::default(),
        }
    }

    #[test]
    fn bad_settings_are_named() {
        assert!(
            config("node-1_a", "nats://127.0.0.1:4222", 3000)
                .check()
                .is_ok()
        );
        let err = |c: ClusterConfig| c.check().expect_err("refused");
        assert!(err(config("", "nats://h:1", 3000)).contains("--node"));
        // A dot or a wildcard would change the node's NATS subject.
        for bad in ["a.b", "a*", "a>", "a b", "é"] {
            assert!(
                err(config(bad, "nats://h:1", 3000)).contains("is not allowed"),
                "{bad}"
            );
        }
        assert!(err(config(&"x".repeat(65), "nats://h:1", 3000)).contains("1 to 64"));
        assert!(err(config("n", "nats://h:1", 999)).contains("--lease-ms"));
        assert!(err(config("n", "nats://h:1", 60_001)).contains("--lease-ms"));
        assert!(err(config("n", "http://h:1", 3000)).contains("--nats"));
    }

    #[test]
    fn subjects_name_the_node_and_the_game() {
        assert_eq!(node_subject("n1"), "flagfall.node.n1");
        assert_eq!(game_subject("ab12"), "flagfall.game.ab12");
    }
}
