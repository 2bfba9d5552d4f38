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
//! - [`route`]: requests to a game's owner over NATS request/reply (an action with the
//!   client's frame, a state, a ping, the state for `GET`), and the owner's side.
//! - [`relay`]: the [`crate::bus::Bus`] over NATS: what a game's task publishes reaches
//!   every node with sockets on the game.
//! - [`evening`]: blitz evenings loaded on several nodes: a notice per stored change
//!   (the other nodes read the log after their seq), and the games' disputes.
//!
//! Without `--nats` none of this runs: the server is one node, as before.

pub mod evening;
pub mod leases;
pub mod relay;
pub mod route;

use std::collections::HashMap;
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
/// The most games one scan takes over (the others are left to the other nodes and the
/// next scan: games are spread over the nodes that scan).
pub const TAKE_PER_SCAN: i64 = 200;
/// How long a node waits for a game's owner to answer over NATS.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// How to join a cluster (`flagfall serve --nats URL --node NAME`).
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// The NATS server (`nats://127.0.0.1:4222`).
    pub nats: String,
    /// This node's name, unique in the cluster: letters, digits, `-` and `_`.
    pub node: String,
    /// The lease of each game this node serves.
    pub lease: Duration,
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
        Ok(())
    }
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
        let nats = async_nats::ConnectOptions::new()
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
