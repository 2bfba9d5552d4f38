//! The cluster's side of [`crate::seam::Seam`]: a game is served here only under its
//! lease (PostgreSQL), another node is asked over NATS (`flagfall.node.<owner>`), an
//! evening's other nodes are told on `flagfall.evening.<id>`.

use std::sync::Arc;

use flagfall_store::Status;
use futures_util::future::BoxFuture;

use super::Cluster;
use crate::seam::{Claim, Claiming, Notice, Owner, OwnerRetry, Req, Resp, RouteError, Seam};
use crate::{ServerError, Shared};

/// Whether `id` can be a stored game's id (hex, as `random_hex` makes them): anything
/// else is answered "no such game" without asking the database or NATS.
pub(crate) fn plausible_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

impl Cluster {
    fn count_owned(&self, shared: &Shared) {
        shared
            .metrics
            .cluster
            .owned_games
            .set(self.owned_count() as i64);
    }

    /// Who serves game `id` ([`Seam::claim`]): answered from one read when another node
    /// holds its lease (a socket or a request on a game another node serves asks this
    /// on every connect), else claimed.
    async fn claim_game(&self, shared: &Shared, id: &str) -> Result<Owner, ServerError> {
        if !plausible_id(id) {
            return Ok(Owner::Missing);
        }
        if let Some(l) = shared.store.lease_of(id).await?
            && l.owner != self.node
            && l.expires_in_ms > 0
        {
            return Ok(Owner::Node(l.owner));
        }
        let Some(row) = shared.store.game(id).await? else {
            return Ok(Owner::Missing);
        };
        match shared
            .store
            .lease_claim(id, &self.node, self.lease_ms())
            .await?
        {
            Some(epoch) => {
                self.own(id, epoch);
                self.count_owned(shared);
                Ok(Owner::Here(Claim {
                    fence: Some(epoch),
                    live: row.status == Status::Live,
                }))
            }
            None => match shared.store.lease_of(id).await? {
                Some(l) => Ok(Owner::Node(l.owner)),
                // Released meanwhile: the asker tries again.
                None => Ok(Owner::Changing),
            },
        }
    }

    /// Send `req` to `node` over NATS and read its answer ([`Seam::ask`]).
    async fn ask_node(&self, shared: &Shared, node: &str, req: &Req) -> Result<Resp, RouteError> {
        let body = serde_json::to_vec(req).map_err(|e| RouteError::Unreadable {
            node: node.to_string(),
            why: e.to_string(),
        })?;
        shared.metrics.cluster.routed.inc();
        let answer = self
            .nats
            .request(super::node_subject(node), body.into())
            .await
            .map_err(|e| RouteError::NoAnswer {
                node: node.to_string(),
                why: e.to_string(),
            })?;
        serde_json::from_slice(&answer.payload).map_err(|e| RouteError::Unreadable {
            node: node.to_string(),
            why: e.to_string(),
        })
    }
}

impl Seam for Cluster {
    fn node(&self) -> Option<&str> {
        Some(&self.node)
    }

    fn claiming<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Claiming> {
        Box::pin(async move { Claiming::held(self.claim_lock(id).lock_owned().await) })
    }

    fn claim<'a>(
        &'a self,
        shared: &'a Shared,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Owner, ServerError>> {
        Box::pin(self.claim_game(shared, id))
    }

    fn loaded<'a>(
        &'a self,
        shared: &'a Shared,
        id: &'a str,
        claim: &'a Claim,
        loaded: Result<bool, ()>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let Some(epoch) = claim.fence else { return };
            match loaded {
                // A live game already begun, claimed on demand: taken over from a node
                // whose lease expired (or from none), as the scan does.
                Ok(begun) => {
                    if claim.live && begun {
                        shared.metrics.cluster.takeovers.inc();
                    }
                }
                Err(()) => {
                    self.forget(id, epoch);
                    self.count_owned(shared);
                    let _ = shared.store.lease_release(id, &self.node, epoch).await;
                }
            }
        })
    }

    fn release(&self, shared: &Shared, id: &str, epoch: i64) -> bool {
        if self.epoch_of(id) != Some(epoch) {
            return false;
        }
        self.forget(id, epoch);
        self.count_owned(shared);
        shared.metrics.cluster.dropped_games.inc();
        true
    }

    fn holds(&self, id: &str, epoch: i64) -> bool {
        Cluster::holds(self, id, epoch)
    }

    fn give_up(&self, shared: &Arc<Shared>, id: &str, epoch: i64) {
        if self.epoch_of(id) != Some(epoch) {
            return;
        }
        self.forget(id, epoch);
        self.count_owned(shared);
        let store = shared.store.clone();
        let (id, node) = (id.to_string(), self.node.clone());
        shared.spawn(async move {
            if let Err(e) = store.lease_release(&id, &node, epoch).await {
                tracing::warn!(game = %id, error = %e, "lease not released (it expires)");
            }
        });
    }

    fn unhealthy(&self) -> Option<&'static str> {
        // A cluster node is healthy when it can serve: NATS connected, and its leases
        // renewed in time (the database answers it).
        if !self.nats_connected() {
            Some("NATS is not connected")
        } else if !self.is_valid() {
            Some("this node's leases are not renewed: the database does not answer it")
        } else {
            None
        }
    }

    fn ask<'a>(
        &'a self,
        shared: &'a Shared,
        node: &'a str,
        req: &'a Req,
    ) -> BoxFuture<'a, Result<Resp, RouteError>> {
        Box::pin(self.ask_node(shared, node, req))
    }

    fn tell(&self, shared: &Shared, evening: &str, notice: Notice) {
        super::evening::publish(self, shared, evening, notice);
    }

    fn retry(&self) -> OwnerRetry {
        OwnerRetry::for_lease(self.lease, super::SCAN_EVERY)
    }
}

/// A game taken over from a node whose lease expired ([`super::leases::take_over`]):
/// serve it at `epoch`, replacing a task of this node with an older one.
pub(crate) async fn serve_taken(
    shared: &Arc<Shared>,
    cluster: &Cluster,
    id: &str,
    epoch: i64,
) -> Result<(), ServerError> {
    let lock = cluster.claim_lock(id);
    let _claiming = lock.lock().await;
    if cluster.epoch_of(id).is_some_and(|e| e > epoch) {
        return Ok(());
    }
    if let Some(old) = cluster.epoch_of(id) {
        shared.drop_game(id, old);
    }
    cluster.own(id, epoch);
    cluster.count_owned(shared);
    // Sockets on other nodes may watch it, whose relays this node has not heard from
    // yet (it started after their last word): its messages go on NATS for a while.
    shared.bus.wanted_elsewhere(id);
    if let Err(e) = shared.load(id, Some(epoch)).await {
        cluster.forget(id, epoch);
        let _ = shared.store.lease_release(id, &cluster.node, epoch).await;
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::plausible_id;

    #[test]
    fn only_a_plausible_id_reaches_the_database() {
        assert!(plausible_id("0a1b2c3d4e5f60718293a4b5"));
        for bad in ["", "a.b", "a*", "a>", "a b", &"a".repeat(65)] {
            assert!(!plausible_id(bad), "{bad:?}");
        }
    }
}
