//! What is counted per client: a token bucket per address for creations (`governor`),
//! and the open connections (or sockets) per key.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;

use super::request_address;

/// A token bucket per client address (the `governor` crate): `per_minute` sustained,
/// `burst` at once. What it counts is named in its refusals.
pub struct Bucket {
    limiter: governor::DefaultKeyedRateLimiter<IpAddr>,
    /// What is counted, as a refusal names it ("games created from your address").
    what: &'static str,
    /// The flags that set it.
    flags: &'static str,
    burst: u32,
}

/// A refusal of a [`Bucket`]: its message and the seconds to wait.
#[derive(Debug, Clone)]
pub struct Later {
    /// `429` (the client's share), `503` (the server's).
    pub status: StatusCode,
    pub message: String,
    pub retry_after: u64,
}

impl Later {
    /// The answer, with its `Retry-After`.
    pub fn response(&self) -> Response {
        let mut r = (
            self.status,
            axum::Json(serde_json::json!({ "error": self.message })),
        )
            .into_response();
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(self.retry_after));
        r
    }
}

impl Bucket {
    /// `None` when `per_minute` is 0 (no limit).
    pub fn new(
        per_minute: u32,
        burst: u32,
        what: &'static str,
        flags: &'static str,
    ) -> Option<Arc<Bucket>> {
        let every = Duration::from_millis((60_000 / u64::from(per_minute.max(1))).max(1));
        if per_minute == 0 {
            return None;
        }
        let burst = burst.max(1);
        let quota = governor::Quota::with_period(every)?
            .allow_burst(std::num::NonZeroU32::new(burst).unwrap_or(std::num::NonZeroU32::MIN));
        let bucket = Arc::new(Bucket {
            limiter: governor::RateLimiter::keyed(quota),
            what,
            flags,
            burst,
        });
        // Forget addresses that have been quiet (the limiter keeps one entry per address).
        let weak = Arc::downgrade(&bucket);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                match weak.upgrade() {
                    Some(b) => b.limiter.retain_recent(),
                    None => return,
                }
            }
        });
        Some(bucket)
    }

    /// Take `n` from `addr`'s bucket, all or none.
    pub fn take(&self, addr: IpAddr, n: u32) -> Result<(), Later> {
        use governor::clock::Clock;
        let Some(n) = std::num::NonZeroU32::new(n) else {
            return Ok(());
        };
        match self.limiter.check_key_n(&addr, n) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(not_until)) => {
                let wait = not_until.wait_time_from(self.limiter.clock().now());
                let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                let asked = if n.get() > 1 {
                    format!(" ({} at once)", n.get())
                } else {
                    String::new()
                };
                Err(Later {
                    status: StatusCode::TOO_MANY_REQUESTS,
                    message: format!(
                        "too many {}{asked}: wait {secs} s ({})",
                        self.what, self.flags
                    ),
                    retry_after: secs.max(1),
                })
            }
            Err(_) => Err(Later {
                status: StatusCode::TOO_MANY_REQUESTS,
                message: format!(
                    "too many {} at once: {} asked, at most {} on this server ({})",
                    self.what,
                    n.get(),
                    self.burst,
                    self.flags
                ),
                retry_after: 60,
            }),
        }
    }
}

/// A function that puts a route under a per-address bucket (`None`: no limit): a
/// request over it is answered `429` with the seconds to wait (`Retry-After`).
pub fn limited_by<S>(
    bucket: Option<Arc<Bucket>>,
) -> Box<dyn Fn(MethodRouter<S>) -> MethodRouter<S> + Send + Sync>
where
    S: Clone + Send + Sync + 'static,
{
    let Some(bucket) = bucket else {
        return Box::new(|route| route);
    };
    Box::new(move |route: MethodRouter<S>| {
        let bucket = bucket.clone();
        route.layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let bucket = bucket.clone();
                async move {
                    let Some(addr) = request_address(req.extensions()) else {
                        return (
                            StatusCode::INTERNAL_SERVER_ERROR,
                            axum::Json(
                                serde_json::json!({ "error": "cannot tell the client's address" }),
                            ),
                        )
                            .into_response();
                    };
                    match bucket.take(addr, 1) {
                        Ok(()) => next.run(req).await,
                        Err(later) => later.response(),
                    }
                }
            },
        ))
    })
}

/// Open connections (or sockets) per key: an address, a token's hash.
pub struct Counts<K>(Mutex<HashMap<K, usize>>);

impl<K> Default for Counts<K> {
    fn default() -> Self {
        Counts(Mutex::new(HashMap::new()))
    }
}

/// One open connection of a key, counted until dropped.
pub struct Counted<K: Eq + std::hash::Hash + Clone> {
    counts: Arc<Counts<K>>,
    key: K,
}

impl<K: Eq + std::hash::Hash + Clone> Counted<K> {
    /// What it is counted under.
    pub fn key(&self) -> &K {
        &self.key
    }
}

impl<K: Eq + std::hash::Hash + Clone> Counts<K> {
    /// Count one more for `key`, unless it has `max` already (`0`: no limit).
    pub fn enter(self: &Arc<Self>, key: K, max: usize) -> Option<Counted<K>> {
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let n = m.entry(key.clone()).or_insert(0);
        if max > 0 && *n >= max {
            return None;
        }
        *n += 1;
        Some(Counted {
            counts: self.clone(),
            key,
        })
    }
}

impl<K: Eq + std::hash::Hash + Clone> Drop for Counted<K> {
    fn drop(&mut self) {
        let mut m = self.counts.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = m.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.key);
            }
        }
    }
}
