//! A socket's rate limit: a token bucket per player, shared by all the sockets of the
//! player's token (and charged for the actions other nodes route to this one), or a
//! spectator's socket's own; and the flood close after too many frames dropped in a row.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flagfall_protocol::Role;
use tokio::time::Instant;

use super::FLOOD_CLOSE_AFTER;
use crate::Shared;

/// A token bucket: `rate` frames a second sustained, `burst` at once.
struct Bucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    refill_at: Instant,
}

impl Bucket {
    fn new((rate, burst): (f64, f64)) -> Bucket {
        Bucket {
            rate,
            burst,
            tokens: burst,
            refill_at: Instant::now(),
        }
    }

    /// Add the tokens earned since the last refill.
    fn refill(&mut self) {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.refill_at).as_secs_f64() * self.rate)
            .min(self.burst);
        self.refill_at = now;
    }

    /// Take one frame's token, if there is one.
    fn take(&mut self) -> bool {
        self.refill();
        if self.tokens < 1.0 {
            return false;
        }
        self.tokens -= 1.0;
        true
    }
}

type PlayerKey = (String, Role);

type Buckets = HashMap<PlayerKey, Arc<Mutex<Bucket>>>;

/// The buckets of the players with a socket open, one per game and role, shared by all
/// the sockets of that token: a player who opens more sockets gets no more frames. An
/// entry stays after the player's last socket closed until its bucket is full again
/// (burst / rate: 2 s by default), so closing every socket and opening new ones gives
/// no fresh burst.
#[derive(Default)]
pub struct PlayerBuckets(Mutex<Buckets>);

impl PlayerBuckets {
    fn lock(&self) -> std::sync::MutexGuard<'_, Buckets> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One socket's share of a bucket: the player's (kept in [`PlayerBuckets`]) or, for a
/// spectator, its own.
struct Share {
    bucket: Arc<Mutex<Bucket>>,
    /// The shared entry, removed when its last socket closes.
    entry: Option<(Arc<PlayerBuckets>, PlayerKey)>,
    /// The server's tasks ([`Shared::tasks`]), for the one that forgets the entry.
    tasks: tokio_util::task::TaskTracker,
}

impl Share {
    fn new(s: &Shared, id: &str, role: Role) -> Share {
        if role == Role::Spectator {
            return Share {
                bucket: Arc::new(Mutex::new(Bucket::new(s.rate))),
                entry: None,
                tasks: s.tasks.clone(),
            };
        }
        let key = (id.to_string(), role);
        let bucket = s
            .player_buckets
            .lock()
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Mutex::new(Bucket::new(s.rate))))
            .clone();
        Share {
            bucket,
            entry: Some((s.player_buckets.clone(), key)),
            tasks: s.tasks.clone(),
        }
    }

    fn take(&self) -> bool {
        self.bucket.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let Some((buckets, key)) = self.entry.take() else {
            return;
        };
        // Held by the map and this socket only: the player's last socket.
        if Arc::strong_count(&self.bucket) > 2 {
            return;
        }
        let full_after = {
            let b = self.bucket.lock().unwrap_or_else(|p| p.into_inner());
            b.burst / b.rate
        };
        // Forget the bucket once it is full again (a new one is the same then), unless
        // a socket took it up meanwhile (its next close looks again). `unused`: the
        // count of a bucket only the map holds.
        let forget = move |unused: usize| -> bool {
            let mut map = buckets.lock();
            let Some(b) = map.get(&key) else { return true };
            if Arc::strong_count(b) > unused {
                return true;
            }
            let full = {
                let mut b = b.lock().unwrap_or_else(|p| p.into_inner());
                b.refill();
                b.tokens >= b.burst
            };
            if full {
                map.remove(&key);
            }
            full
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) if full_after.is_finite() && full_after > 0.0 => {
                let wait = Duration::from_secs_f64(full_after.min(60.0));
                let forgetting = async move {
                    loop {
                        tokio::time::sleep(wait).await;
                        if forget(1) {
                            break;
                        }
                    }
                };
                self.tasks.spawn_on(forgetting, &rt);
            }
            _ => {
                forget(2);
            }
        }
    }
}

/// Charge an action routed from another node to its player's bucket here, on the
/// game's owner (issue 32, item 8): the bucket the player's sockets on this node take
/// from, so that a player with sockets on several nodes gets, for its actions, one
/// allowance in the whole cluster rather than one per node. Each asking node charged
/// the frame to its own bucket too (every frame counts there, pings included); the
/// owner's charge bounds what reaches the game. `false`: over the limit, the action
/// is dropped.
pub(crate) fn charge_routed_action(s: &Shared, id: &str, role: Role) -> bool {
    if role == Role::Spectator {
        return true;
    }
    // A share taken and given back at once: the bucket stays in the map, as after a
    // socket's close, until it is full again.
    Share::new(s, id, role).take()
}

/// A socket's rate limit: its player's bucket, and the frames it had dropped in a row.
pub(crate) struct RateLimit {
    pub(crate) rate: f64,
    share: Share,
    /// Frames dropped in a row on this socket.
    over_limit: u32,
}

/// What the limit does with a frame.
pub(crate) enum Admit {
    Yes,
    /// Over the limit: dropped, the client told.
    Dropped,
    /// More than [`FLOOD_CLOSE_AFTER`] dropped in a row: the socket closes.
    Flooding,
}

impl RateLimit {
    pub(super) fn new(s: &Shared, id: &str, role: Role) -> RateLimit {
        RateLimit {
            rate: s.rate.0,
            share: Share::new(s, id, role),
            over_limit: 0,
        }
    }

    /// A socket's own bucket (a spectator's; an evening's live socket).
    pub(crate) fn own(s: &Shared) -> RateLimit {
        RateLimit::new(s, "", Role::Spectator)
    }

    pub(crate) fn take(&mut self) -> Admit {
        if !self.share.take() {
            self.over_limit += 1;
            return if self.over_limit > FLOOD_CLOSE_AFTER {
                Admit::Flooding
            } else {
                Admit::Dropped
            };
        }
        self.over_limit = 0;
        Admit::Yes
    }
}
