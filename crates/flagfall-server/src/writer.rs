//! The one writer task: group commit. Game tasks send their events here; the writer
//! takes everything that arrived while the previous commit ran and commits it in one
//! transaction, then answers each sender. An event is acknowledged only after that.

use std::sync::Arc;
use std::time::Instant;

use flagfall_store::{Lease, NewEvent, Store, StoreError};
use tokio::sync::{mpsc, oneshot};

use crate::metrics::Metrics;

/// The most events one transaction takes: as many as the store appends in one
/// statement (a commit is then one round trip to the database).
const MAX_BATCH: usize = flagfall_store::ROWS_PER_INSERT;

/// Events to store, and where to answer once they are (or are not).
pub struct WriteReq {
    pub events: Vec<NewEvent>,
    pub done: oneshot::Sender<Result<(), WriteError>>,
    /// In a cluster, the game's lease epoch as its task holds it (the fencing token):
    /// the events are stored only if the lease is still this node's at that epoch.
    pub fence: Option<i64>,
}

/// Why a request's events were not stored (none of them was).
#[derive(Debug, Clone, thiserror::Error)]
pub enum WriteError {
    /// The group commit that carried them failed: every request in it gets this.
    #[error("{0}")]
    Commit(Arc<StoreError>),
    /// The writer is gone (the server is stopping).
    #[error("the writer stopped")]
    Stopped,
    /// A cluster's fence: the game's lease is no longer this node's at the task's epoch
    /// (another node took the game over); nothing of it was stored.
    #[error("this server no longer serves the game (its lease was taken over)")]
    Fenced,
}

/// Run the writer until every sender is gone (all queued requests are committed first).
///
/// `node`: in a cluster, this node's name: every commit is fenced
/// ([`Store::append_fenced`]), request by request: a request whose game's lease is no
/// longer the node's at its own epoch is answered [`WriteError::Fenced`] while the others
/// in the commit, of the same game at its current epoch included, are stored.
pub async fn run(
    store: Arc<dyn Store>,
    mut rx: mpsc::Receiver<WriteReq>,
    metrics: Arc<Metrics>,
    node: Option<String>,
) {
    let mut reqs: Vec<WriteReq> = Vec::new();
    let mut flat: Vec<NewEvent> = Vec::new();
    // Each event's fence (its request's epoch; 0, never an epoch, without one).
    let mut epochs: Vec<i64> = Vec::new();
    // Each request's game (its events are moved into `flat`).
    let mut games: Vec<String> = Vec::new();
    while let Some(first) = rx.recv().await {
        reqs.push(first);
        let mut count = reqs[0].events.len();
        while count < MAX_BATCH {
            match rx.try_recv() {
                Ok(r) => {
                    count += r.events.len();
                    reqs.push(r);
                }
                Err(_) => break,
            }
        }
        flat.clear();
        epochs.clear();
        for r in &mut reqs {
            games.push(
                r.events
                    .first()
                    .map(|e| e.game_id.clone())
                    .unwrap_or_default(),
            );
            epochs.extend(std::iter::repeat_n(r.fence.unwrap_or(0), r.events.len()));
            flat.append(&mut r.events);
        }
        let started = Instant::now();
        // The (game, epoch) pairs the fence refused: in a cluster, each request is
        // fenced by its own task's epoch (a node that replaced its task for a game has
        // both epochs in one batch: the stale one is refused, the new one stored).
        let mut fenced: Vec<Lease> = Vec::new();
        let result = match &node {
            None => store.append(&flat).await,
            Some(node) => store
                .append_fenced(&flat, node, &epochs)
                .await
                .map(|refused| fenced = refused),
        }
        .map_err(|e| WriteError::Commit(Arc::new(e)));
        match &result {
            Ok(()) => metrics.observe_commit(started.elapsed(), flat.len()),
            Err(e) => {
                metrics.commit_failures.inc();
                tracing::error!(error = %e, events = flat.len(), "group commit failed");
            }
        }
        for (r, game) in reqs.drain(..).zip(games.drain(..)) {
            let refused = || {
                fenced
                    .iter()
                    .any(|l| l.game_id == game && l.epoch == r.fence.unwrap_or(0))
            };
            let answer = match &result {
                Ok(()) if refused() => {
                    metrics.cluster.fenced_writes.inc();
                    Err(WriteError::Fenced)
                }
                other => other.clone(),
            };
            let _ = r.done.send(answer);
        }
    }
    tracing::info!("writer: every event committed, stopping");
}
