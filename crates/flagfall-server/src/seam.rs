//! The seam between a game's users and where the game is served (issue 33, item 3).
//!
//! The games, the sockets, HTTP and the evenings ask four things of the world outside
//! this process, all through [`Seam`] (`Shared::seam`):
//!
//! - **where a game is owned**: by a task of this node (load it here, under a fence) or
//!   by another node ([`Seam::claiming`], [`Seam::claim`], [`Seam::loaded`],
//!   [`Seam::release`]);
//! - **send its owner a request** ([`Req`], answered [`Resp`]: [`Seam::ask`]), kept at
//!   by one policy when the owner does not answer or the game moves ([`OwnerRetry`]);
//! - **follow its events**: the bus (`crate::bus::Bus::ready` subscribes this node to a
//!   game served elsewhere), below this seam;
//! - **tell an evening's other nodes** a [`Notice`] ([`Seam::tell`]).
//!
//! [`Local`] is the single node: every game is here, there is nobody to ask or to tell.
//! The cluster (`crate::cluster`, at the top of the module order) implements the seam
//! over PostgreSQL's leases and NATS; nothing below it names it.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::{ServerError, Shared};

/// How long a node waits for a game's owner to answer one request.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// What a game's users ask of where games are served (module documentation).
pub trait Seam: Send + Sync {
    /// This node's name among the nodes serving games; `None` on a single node.
    fn node(&self) -> Option<&str>;

    /// Held while finding out who serves game `id` and loading it here: one claim of a
    /// game at a time on this node (in a cluster a claim raises the lease's epoch, and
    /// two at once would fence each other).
    fn claiming<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Claiming>;

    /// Who serves game `id`, which this node has not loaded (asked holding
    /// [`Seam::claiming`]): this node (then load it under the claim's fence), another,
    /// or nobody, there being no such game.
    fn claim<'a>(
        &'a self,
        shared: &'a Shared,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Owner, ServerError>>;

    /// Game `id`, claimed as `claim`, was loaded (`Ok(begun)`: whether its game had
    /// begun) or could not be (`Err`: the claim is let go).
    fn loaded<'a>(
        &'a self,
        shared: &'a Shared,
        id: &'a str,
        claim: &'a Claim,
        loaded: Result<bool, ()>,
    ) -> BoxFuture<'a, ()>;

    /// Forget this node's claim of game `id` at `epoch` (its lease was lost); false when
    /// it holds none at that epoch (a newer one, or none: nothing to drop).
    fn release(&self, shared: &Shared, id: &str, epoch: i64) -> bool;

    /// Whether this node may still act for game `id` at `epoch`: it holds the game's
    /// lease at that epoch and renewed its leases recently enough.
    fn holds(&self, id: &str, epoch: i64) -> bool;

    /// This node's task of game `id` at `epoch` ended without losing it (unloaded): give
    /// the game up, so that any node may serve it next.
    fn give_up(&self, shared: &Arc<Shared>, id: &str, epoch: i64);

    /// Why this node cannot serve now (its links to the other nodes or its leases),
    /// `None` when it can; the health check answers it.
    fn unhealthy(&self) -> Option<&'static str>;

    /// Send `req` to `node`, the owner of its game, and wait for the answer (at most
    /// [`REQUEST_TIMEOUT`]). One try: [`OwnerRetry`] says when to try again.
    fn ask<'a>(
        &'a self,
        shared: &'a Shared,
        node: &'a str,
        req: &'a Req,
    ) -> BoxFuture<'a, Result<Resp, RouteError>>;

    /// Tell the other nodes that have `evening` loaded (in the background: an evening
    /// never waits for them; nothing on a single node).
    fn tell(&self, shared: &Shared, evening: &str, notice: Notice);

    /// How to keep at reaching a game's owner.
    fn retry(&self) -> OwnerRetry;
}

/// Held while a game is claimed and loaded ([`Seam::claiming`]).
pub struct Claiming(#[allow(dead_code)] Option<tokio::sync::OwnedMutexGuard<()>>);

impl Claiming {
    /// Nothing to hold (a single node: concurrent loads of a game start one task).
    pub fn free() -> Claiming {
        Claiming(None)
    }

    /// Holding `guard` until dropped.
    pub fn held(guard: tokio::sync::OwnedMutexGuard<()>) -> Claiming {
        Claiming(Some(guard))
    }
}

/// Who serves a game this node has not loaded ([`Seam::claim`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Owner {
    /// This node: load the game under this claim.
    Here(Claim),
    /// Another node, named.
    Node(String),
    /// Nobody this instant (a lease released between two reads): ask again.
    Changing,
    /// No such game.
    Missing,
}

/// This node's claim of a game: load it under `fence`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The lease epoch every commit of the game's task is fenced by (`None`: a single
    /// node, unfenced).
    pub fence: Option<i64>,
    /// The game was stored live when claimed (a live game begun, claimed on demand, was
    /// taken over from a node whose lease expired, or from none).
    pub live: bool,
}

/// The single node: every game is served here; nobody to ask, nobody to tell.
pub struct Local;

impl Seam for Local {
    fn node(&self) -> Option<&str> {
        None
    }

    fn claiming<'a>(&'a self, _id: &'a str) -> BoxFuture<'a, Claiming> {
        Box::pin(async { Claiming::free() })
    }

    fn claim<'a>(
        &'a self,
        _shared: &'a Shared,
        _id: &'a str,
    ) -> BoxFuture<'a, Result<Owner, ServerError>> {
        // Loading reads the game's row: a game that is not stored is `None` there.
        Box::pin(async {
            Ok(Owner::Here(Claim {
                fence: None,
                live: false,
            }))
        })
    }

    fn loaded<'a>(
        &'a self,
        _shared: &'a Shared,
        _id: &'a str,
        _claim: &'a Claim,
        _loaded: Result<bool, ()>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }

    fn release(&self, _shared: &Shared, _id: &str, _epoch: i64) -> bool {
        false
    }

    fn holds(&self, _id: &str, _epoch: i64) -> bool {
        // A single node loads games without a fence; nothing to lose.
        true
    }

    fn give_up(&self, _shared: &Arc<Shared>, _id: &str, _epoch: i64) {}

    fn unhealthy(&self) -> Option<&'static str> {
        None
    }

    fn ask<'a>(
        &'a self,
        _shared: &'a Shared,
        node: &'a str,
        _req: &'a Req,
    ) -> BoxFuture<'a, Result<Resp, RouteError>> {
        Box::pin(async move {
            Err(RouteError::NoAnswer {
                node: node.to_string(),
                why: "a single node has no other node to ask".into(),
            })
        })
    }

    fn tell(&self, _shared: &Shared, _evening: &str, _notice: Notice) {}

    fn retry(&self) -> OwnerRetry {
        OwnerRetry::ONCE
    }
}

/// The one policy for reaching a game's owner (docs/cluster.md, "Reaching the owner"):
/// after a try that got no usable answer (no answer at all, "not owner", "busy",
/// "unavailable", or nobody holding the lease this instant), look the owner up again
/// and try again every [`OwnerRetry::every`], until [`OwnerRetry::within`] has passed
/// since the first try; then the caller answers its client an error to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnerRetry {
    /// The pause between two tries.
    pub every: Duration,
    /// No try starts this long after the first (one started may take
    /// [`REQUEST_TIMEOUT`] more).
    pub within: Duration,
}

impl OwnerRetry {
    /// The pause between two tries.
    pub const EVERY: Duration = Duration::from_millis(250);
    /// Room past the takeover for loading the game on its new node under load.
    pub const SLACK: Duration = Duration::from_millis(1500);
    /// A single node: one try, nothing to wait for.
    pub const ONCE: OwnerRetry = OwnerRetry {
        every: OwnerRetry::EVERY,
        within: Duration::ZERO,
    };

    /// The policy of a cluster whose leases last `lease` and whose nodes look for games
    /// to take over every `scan`: long enough for a dead owner's game to be taken over
    /// and answer (its lease runs out, a scan takes it, and a request sent to the dead
    /// owner just before waits out [`REQUEST_TIMEOUT`]), plus [`OwnerRetry::SLACK`].
    /// The default lease (3 s) gives 8 s.
    pub fn for_lease(lease: Duration, scan: Duration) -> OwnerRetry {
        OwnerRetry {
            every: OwnerRetry::EVERY,
            within: lease + scan + REQUEST_TIMEOUT + OwnerRetry::SLACK,
        }
    }

    /// Start counting: the first try is now.
    pub fn start(self) -> Retrying {
        Retrying {
            every: self.every,
            until: Instant::now() + self.within,
            tries: 1,
        }
    }
}

/// One operation's tries under an [`OwnerRetry`].
#[derive(Debug)]
pub struct Retrying {
    every: Duration,
    until: Instant,
    tries: u32,
}

impl Retrying {
    /// A try failed: wait for the next and say `true`, or `false` when the policy's time
    /// is up (then the caller gives up).
    pub async fn again(&mut self) -> bool {
        if Instant::now() >= self.until {
            return false;
        }
        tokio::time::sleep(self.every).await;
        self.tries += 1;
        true
    }

    /// The tries so far, the first included.
    pub fn tries(&self) -> u32 {
        self.tries
    }
}

/// The most of an action's `waited_ms` the owner believes: one request's timeout (an
/// asking node that waited longer tried an owner that did not answer, and a game
/// loaded anew never dates an action before its loading anyway). Never earlier than
/// the game's last event either (`crate::game`'s `stamp`).
pub const MAX_ROUTED_WAIT: Duration = REQUEST_TIMEOUT;

/// An evening's hold, release or abort of one of its games while a change of its round
/// is stored (`crate::evening::task`): `Hold` answers whether the game has begun (an
/// event stored, or one waiting) and, when it has not, the game refuses every action until
/// `Release` (the change was refused or not stored) or `Abort` (the game is stored as
/// aborted in the same transaction as the change): no move can slip in between the
/// evening's check and its commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundCmd {
    Hold,
    Release,
    Abort,
}

/// A request to a game's owner.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Req {
    /// A client's action frame (parsed again by the owner).
    Act {
        game: String,
        /// The hash of the socket's token ([`crate::token_hash`]); the owner finds its
        /// role. `None`: a spectator's socket (refused: spectators do not act).
        token_hash: Option<String>,
        frame: String,
        rtt_ms: Option<u64>,
        /// How long the asking node held it before sending (charged to no one, as the
        /// time an action waits in a game's queue), at most [`MAX_ROUTED_WAIT`].
        waited_ms: u64,
    },
    /// The `state` message for the socket of `token_hash` (`None`: a spectator's), and
    /// its event number.
    State {
        game: String,
        token_hash: Option<String>,
    },
    /// The game clock now (a ping's answer).
    Ping { game: String },
    /// The state object `GET /api/games/{id}` answers.
    Get { game: String },
    /// The game's evening holds, releases or aborts it while a change of its round is
    /// stored: answered [`Resp::Round`].
    Round { game: String, cmd: RoundCmd },
}

impl Req {
    /// The game the request is about.
    pub fn game(&self) -> &str {
        match self {
            Req::Act { game, .. }
            | Req::State { game, .. }
            | Req::Ping { game }
            | Req::Get { game }
            | Req::Round { game, .. } => game,
        }
    }
}

/// The owner's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resp {
    /// The action was stored as event `n` (it reaches the sender through the bus).
    Stored(u64),
    /// An answer for the sender only.
    Direct(String),
    /// A `state` message with its role, as of event `n`.
    State { n: u64, text: String },
    /// The game clock.
    Now(u64),
    /// The state object.
    Get(serde_json::Value),
    /// Whether the game had begun when its evening's round command arrived.
    Round(bool),
    /// This node does not serve the game (any more): look its lease up again.
    NotOwner,
    /// No such game.
    NotFound,
    /// The owner could not answer (its database, a damaged game).
    Unavailable(String),
    /// The owner answers as many requests as it may at once: try again shortly
    /// ([`OwnerRetry`]).
    Busy,
}

/// Why a request got no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error("the game's server {node} does not answer: {why}")]
    NoAnswer { node: String, why: String },
    #[error("the game's server {node} answered something unreadable: {why}")]
    Unreadable { node: String, why: String },
}

/// What one node tells the others of an evening.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Notice {
    /// A change was stored: the log runs to `seq` now.
    Seq { seq: i64 },
    /// A game of the evening began (`dispute`) or stopped (`null`) waiting for the
    /// director, with its `n`th stored event.
    Dispute {
        game: String,
        n: u64,
        dispute: Option<flagfall_protocol::evening::DisputeWhat>,
    },
    /// This node loaded the evening: the others tell it their disputes.
    Hello,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default lease's policy tries every 250 ms for 8 s: 33 tries when every try
    /// fails at once, and a try that waits out the request timeout counts against the
    /// bound (the time, not the number of tries, is the policy).
    #[tokio::test(start_paused = true)]
    async fn the_owner_retry_policy_bounds_the_time_spent() {
        let policy = OwnerRetry::for_lease(Duration::from_secs(3), Duration::from_millis(500));
        assert_eq!(policy.within, Duration::from_secs(8));
        assert_eq!(policy.every, Duration::from_millis(250));

        let start = Instant::now();
        let mut r = policy.start();
        while r.again().await {}
        assert_eq!(r.tries(), 33);
        assert_eq!(start.elapsed(), Duration::from_secs(8));

        // Every try waits out the owner's silence: fewer tries, the same bound (the last
        // one started before it, and its own timeout is all it may add).
        let start = Instant::now();
        let mut r = policy.start();
        loop {
            tokio::time::sleep(REQUEST_TIMEOUT).await;
            if !r.again().await {
                break;
            }
        }
        assert_eq!(r.tries(), 3);
        assert!(start.elapsed() <= policy.within + REQUEST_TIMEOUT);
        assert!(start.elapsed() >= policy.within);

        // A longer lease waits longer: the takeover it waits for comes later.
        let long = OwnerRetry::for_lease(Duration::from_secs(10), Duration::from_millis(500));
        assert_eq!(long.within, Duration::from_secs(15));

        // A single node tries once and never waits.
        let start = Instant::now();
        let mut once = OwnerRetry::ONCE.start();
        assert!(!once.again().await);
        assert_eq!((once.tries(), start.elapsed()), (1, Duration::ZERO));
    }

    #[test]
    fn a_request_names_a_token_hash_never_a_role() {
        let ok = r#"{"kind":"act","game":"ab","token_hash":null,"frame":"{}","rtt_ms":null,"waited_ms":0}"#;
        assert!(matches!(
            serde_json::from_str::<Req>(ok),
            Ok(Req::Act {
                token_hash: None,
                ..
            })
        ));
        // The format before issue 30 named the role: refused, not read as a spectator's.
        for bad in [
            r#"{"kind":"act","game":"ab","role":"director","token_hash":null,"frame":"{}","rtt_ms":null,"waited_ms":0}"#,
            r#"{"kind":"act","game":"ab","role":"director","frame":"{}","rtt_ms":null,"waited_ms":0}"#,
            r#"{"kind":"state","game":"ab","role":"director"}"#,
            r#"{"kind":"state","game":"ab","token_hash":null,"extra":1}"#,
            r#"{"kind":"shout","game":"ab"}"#,
            "not json",
        ] {
            assert!(serde_json::from_str::<Req>(bad).is_err(), "{bad}");
        }
        let round = r#"{"kind":"round","game":"ab","cmd":"hold"}"#;
        assert!(matches!(
            serde_json::from_str::<Req>(round),
            Ok(Req::Round {
                cmd: RoundCmd::Hold,
                ..
            })
        ));
    }

    #[test]
    fn answers_on_the_wire() {
        assert_eq!(serde_json::to_string(&Resp::Busy).unwrap(), r#""busy""#);
        assert!(matches!(
            serde_json::from_str::<Resp>(r#"{"unavailable":"x"}"#),
            Ok(Resp::Unavailable(w)) if w == "x"
        ));
    }
}
