//! The evenings' CPU-bound work off the async workers (issue 30, item 1): pairing a
//! round, replaying a log, standings, crosstables, exports, imports and uploads run on
//! tokio's blocking threads, at most [`Limits::evening_threads`] at once, so that the
//! async workers stay free for the sockets and the games. A request that needs such
//! work is admitted first ([`Jobs::admit`]): at most [`Limits::evening_queue`] in flight
//! on the server (`503` over it), [`Limits::evening_jobs_per_address`] from one address
//! and [`Limits::evening_jobs_per_evening`] on one evening (`429` over them), counted
//! from the request's arrival until its work is done (waiting for a thread included, and
//! waiting behind the evening's other commands). The evening's task stays the one owner
//! of its state: it hands a job its copy and waits for the result; readers meanwhile read
//! the last published snapshot.
//!
//! [`Limits::evening_threads`]: crate::limits::Limits::evening_threads
//! [`Limits::evening_queue`]: crate::limits::Limits::evening_queue
//! [`Limits::evening_jobs_per_address`]: crate::limits::Limits::evening_jobs_per_address
//! [`Limits::evening_jobs_per_evening`]: crate::limits::Limits::evening_jobs_per_evening

use std::net::IpAddr;
use std::sync::Arc;

use axum::http::StatusCode;
use tokio::sync::Semaphore;

use crate::ServerError;
use crate::limits::{Counted, Counts, Later, Limits};

/// Whom a request's share of [`Limits::evening_jobs_per_address`] is counted against:
/// its address, or, for a request carrying a player's token, that player of that evening.
/// A club's twelve phones on one wifi share one address; each reads its page when the
/// evening changes, so counting them by address put off their reads (issue 31). A
/// player's token is given by the evening's director, so a stranger cannot make more
/// of them; every request of an evening still counts against
/// [`Limits::evening_jobs_per_evening`], and every request against the server's queue.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// A request without a player's token.
    Address(IpAddr),
    /// A request with the token of player `number` of evening `evening`.
    Player { evening: String, number: u32 },
}

/// The evenings' CPU-bound jobs: the threads, and what is in flight.
pub struct Jobs {
    threads: Arc<Semaphore>,
    all: Arc<Counts<()>>,
    queue: usize,
    per_address: Arc<Counts<Client>>,
    max_per_address: usize,
    per_evening: Arc<Counts<String>>,
    max_per_evening: usize,
}

/// One admitted request: counted until dropped (it goes with the request's work).
pub struct Ticket {
    _all: Counted<()>,
    _address: Option<Counted<Client>>,
    _evening: Option<Counted<String>>,
}

impl Jobs {
    pub fn new(limits: &Limits) -> Jobs {
        Jobs {
            threads: Arc::new(Semaphore::new(limits.evening_threads())),
            all: Arc::default(),
            queue: limits.evening_queue,
            per_address: Arc::default(),
            max_per_address: limits.evening_jobs_per_address,
            per_evening: Arc::default(),
            max_per_evening: limits.evening_jobs_per_evening,
        }
    }

    /// Admit a request from `addr` (on evening `evening`, if it is one's), or say why not:
    /// `503` when the server has [`Limits::evening_queue`] in flight, `429` when the
    /// address or the evening has its share.
    pub fn admit(&self, client: Option<Client>, evening: Option<&str>) -> Result<Ticket, Later> {
        let all = self.all.enter((), self.queue.max(1)).ok_or_else(|| Later {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: format!(
                "the server is busy with {} evening requests (pairings, standings, exports, \
                 imports): try again in a moment (--evening-queue)",
                self.queue
            ),
            retry_after: 2,
        })?;
        let address = match client {
            Some(c) => {
                let whose = match &c {
                    Client::Address(_) => "your address has",
                    Client::Player { .. } => "your player's token has",
                };
                Some(
                    self.per_address
                        .enter(c, self.max_per_address)
                        .ok_or_else(|| Later {
                            status: StatusCode::TOO_MANY_REQUESTS,
                            message: format!(
                                "{whose} {} evening requests in flight (pairings, standings, \
                             exports, imports): wait for their answers \
                             (--evening-jobs-per-address)",
                                self.max_per_address
                            ),
                            retry_after: 1,
                        })?,
                )
            }
            None => None,
        };
        let evening = match evening {
            Some(e) => Some(
                self.per_evening
                    .enter(e.to_string(), self.max_per_evening)
                    .ok_or_else(|| Later {
                        status: StatusCode::TOO_MANY_REQUESTS,
                        message: format!(
                            "event {e} has {} requests in flight (pairings, standings, \
                             exports): try again in a moment (--evening-jobs-per-evening)",
                            self.max_per_evening
                        ),
                        retry_after: 1,
                    })?,
            ),
            None => None,
        };
        Ok(Ticket {
            _all: all,
            _address: address,
            _evening: evening,
        })
    }

    /// Run `f` on a blocking thread once one of the evenings' threads is free, holding
    /// `ticket` (if any) until it is done, even when the caller stops waiting.
    pub async fn run<T: Send + 'static>(
        &self,
        ticket: Option<Ticket>,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ServerError> {
        let permit = self
            .threads
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ServerError::Stopped("the evenings' threads"))?;
        tokio::task::spawn_blocking(move || {
            let _held = (permit, ticket);
            f()
        })
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "an evening's job failed");
            if e.is_cancelled() {
                ServerError::Stopped("the evenings' threads")
            } else {
                ServerError::Bug {
                    what: "an evening's job",
                    message: e.to_string(),
                }
            }
        })
    }
}
