//! Keeping leases: the renewal of all this node's leases in one statement every third of
//! a lease, and the scan that takes over games nobody serves.
//!
//! A renewal that fails leaves the leases valid until the last successful one's lease
//! runs out (less [`super::MARGIN`]); past that, the node drops every game it served:
//! another node may have taken them over, and this node could not know. That is
//! [`expire`]'s, by the node's own clock, whatever the renewal is doing (one waiting on a
//! database that dropped its bytes included; issue 32, item 3); a renewal gives up after
//! [`renewal_deadline`] in any case. A renewal that succeeds but no longer lists a game
//! (another node took it over: this node was paused, or cut off from the database, past
//! its lease) drops that game.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::time::Instant;

use crate::{ServerError, Shared};

/// How long a renewal may take before the node gives it up (and tries again at the next
/// tick): half a lease, so that one renewal lost in a dropped connection leaves time for
/// another before the validity ([`super::MARGIN`] short of the lease) runs out.
pub fn renewal_deadline(lease: std::time::Duration) -> std::time::Duration {
    lease / 2
}

/// Drop every game this node serves as soon as its validity runs out (by its own clock:
/// the last successful renewal's start plus the lease, less [`super::MARGIN`]), until the
/// server stops. Each game's task stops and its sockets close with 1012 (their clients
/// reconnect to a node that can serve it).
pub async fn expire(shared: Arc<Shared>) {
    let Some(cluster) = shared.cluster.clone() else {
        return;
    };
    let mut shutdown = shared.shutdown.clone();
    loop {
        let until = cluster.valid_until();
        if Instant::now() < until {
            tokio::select! {
                _ = tokio::time::sleep_until(until) => {}
                _ = shutdown.wait_for(|d| *d) => return,
            }
            continue;
        }
        let all = cluster.owned_snapshot();
        if !all.is_empty() {
            tracing::error!(
                games = all.len(),
                "leases not renewed in time: every game dropped"
            );
        }
        for (game, epoch) in all {
            shared.drop_game(&game, epoch);
        }
        // Invalid until a renewal succeeds; a game claimed meanwhile (a socket on this
        // node) is dropped again at the next look, shortly.
        tokio::select! {
            _ = tokio::time::sleep(std::time::Duration::from_millis(50)) => {}
            _ = shutdown.wait_for(|d| *d) => return,
        }
    }
}

/// Renew this node's leases until the server stops.
pub async fn renew(shared: Arc<Shared>) {
    let Some(cluster) = shared.cluster.clone() else {
        return;
    };
    let mut tick = tokio::time::interval(cluster.lease / 3);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut shutdown = shared.shutdown.clone();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = shutdown.wait_for(|d| *d) => return,
        }
        // The leases held before the renewal is sent: a game claimed while it runs is
        // not in its answer, and is not lost for that.
        let before = cluster.owned_snapshot();
        let sent = Instant::now();
        let renewal = tokio::time::timeout(
            renewal_deadline(cluster.lease),
            shared.store.lease_renew(&cluster.node, cluster.lease_ms()),
        )
        .await
        .map_err(|_| {
            format!(
                "no answer from the database within {:?}",
                renewal_deadline(cluster.lease)
            )
        })
        .and_then(|r| r.map_err(|e| e.to_string()));
        match renewal {
            Ok(held) => {
                shared.metrics.cluster.lease_renewals.inc();
                let held: HashMap<String, i64> =
                    held.into_iter().map(|l| (l.game_id, l.epoch)).collect();
                // Games this node believes it serves but whose lease is gone or newer:
                // taken over. Checked before the validity is extended, so that a node
                // resumed after a pause never acts on them again.
                let lost: Vec<(String, i64)> = before
                    .iter()
                    .map(|(g, e)| (g.clone(), *e))
                    .filter(|(g, e)| held.get(g) != Some(e))
                    .collect();
                for (game, epoch) in lost {
                    tracing::warn!(game = %game, epoch, "lease taken over by another node: game dropped");
                    shared.drop_game(&game, epoch);
                }
                cluster.renewed(sent);
                // Leases held in the database that no task of this node serves (this
                // node restarted with its name, or a load failed): serve them again, or
                // let them go.
                // (A game released while the renewal ran, in `before`, is not one.)
                let known = cluster.owned_snapshot();
                for (game, epoch) in held {
                    if known.contains_key(&game) || before.contains_key(&game) {
                        continue;
                    }
                    let task = shared.clone();
                    shared.spawn(async move {
                        let shared = task;
                        if let Err(e) = shared.load_here(&game).await {
                            tracing::warn!(game = %game, error = %e, "a held lease not served: released");
                            if let Some(c) = &shared.cluster {
                                let _ = shared.store.lease_release(&game, &c.node, epoch).await;
                            }
                        }
                    });
                }
            }
            Err(e) => {
                // The games are dropped by `expire` when the validity runs out.
                shared.metrics.cluster.lease_renewal_failures.inc();
                tracing::warn!(error = %e, "leases not renewed");
            }
        }
    }
}

/// Take over games nobody serves (their owner's lease expired, or they have none) every
/// [`super::SCAN_EVERY`], at most [`super::TAKE_PER_SCAN`] a scan, until the server stops.
pub async fn take_over(shared: Arc<Shared>) {
    let Some(cluster) = shared.cluster.clone() else {
        return;
    };
    let mut tick = tokio::time::interval(super::SCAN_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut shutdown = shared.shutdown.clone();
    let mut scans: u64 = 0;
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = shutdown.wait_for(|d| *d) => return,
        }
        // A node whose own leases are in doubt (the database does not answer its
        // renewals) takes nothing over.
        if !cluster.is_valid() {
            continue;
        }
        let unleased = if scans.is_multiple_of(super::FULL_SCAN_EVERY) {
            flagfall_store::Unleased::All
        } else {
            flagfall_store::Unleased::Recent
        };
        scans += 1;
        let taken = match shared
            .store
            .lease_take_over(
                &cluster.node,
                cluster.lease_ms(),
                super::TAKE_PER_SCAN,
                unleased,
            )
            .await
        {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(error = %e, "cannot look for games to take over");
                continue;
            }
        };
        if taken.is_empty() {
            continue;
        }
        tracing::info!(games = taken.len(), node = %cluster.node, "games taken over");
        for lease in taken {
            shared.metrics.cluster.takeovers.inc();
            let (task, cluster) = (shared.clone(), cluster.clone());
            shared.spawn(async move {
                let shared = task;
                match super::seam::serve_taken(&shared, &cluster, &lease.game_id, lease.epoch).await {
                    Ok(()) => {}
                    // This node began to stop between the scan and the load (a rolling
                    // restart stops the nodes one after another, and each takes over
                    // what the last released): the lease is released again, for a
                    // node that stays to take at its next scan. The game is whole.
                    Err(ServerError::Stopped(_)) => {
                        tracing::info!(game = %lease.game_id, "a game taken over as this node stops: released again");
                    }
                    Err(e) => {
                        shared.metrics.damaged_games.inc();
                        tracing::error!(game = %lease.game_id, error = %e, "a game taken over could not be loaded");
                    }
                }
            });
        }
    }
}
