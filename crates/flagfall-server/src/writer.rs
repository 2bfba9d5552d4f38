//! The one writer task: group commit. Game tasks send their events here; the writer
//! takes everything that arrived while the previous commit ran and commits it in one
//! transaction, then answers each sender. An event is acknowledged only after that.

use std::sync::Arc;
use std::time::Instant;

use flagfall_store::{NewEvent, Store, StoreError};
use tokio::sync::{mpsc, oneshot};

use crate::metrics::Metrics;

/// The most events one transaction takes: as many as the store appends in one
/// statement (a commit is then one round trip to the database).
const MAX_BATCH: usize = flagfall_store::ROWS_PER_INSERT;

/// Events to store, and where to answer once they are (or are not).
pub struct WriteReq {
    pub events: Vec<NewEvent>,
    pub done: oneshot::Sender<Result<(), WriteError>>,
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
}

/// Run the writer until every sender is gone (all queued requests are committed first).
pub async fn run(store: Arc<dyn Store>, mut rx: mpsc::Receiver<WriteReq>, metrics: Arc<Metrics>) {
    let mut reqs: Vec<WriteReq> = Vec::new();
    let mut flat: Vec<NewEvent> = Vec::new();
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
        for r in &mut reqs {
            flat.append(&mut r.events);
        }
        let started = Instant::now();
        let result = store
            .append(&flat)
            .await
            .map_err(|e| WriteError::Commit(Arc::new(e)));
        match &result {
            Ok(()) => metrics.observe_commit(started.elapsed(), flat.len()),
            Err(e) => {
                metrics.commit_failures.inc();
                tracing::error!(error = %e, events = flat.len(), "group commit failed");
            }
        }
        for r in reqs.drain(..) {
            let _ = r.done.send(result.clone());
        }
    }
    tracing::info!("writer: every event committed, stopping");
}
