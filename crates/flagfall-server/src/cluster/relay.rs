//! The bus over NATS: a game's messages reach every node with sockets on it.
//!
//! [`NatsBus`] is the in-process [`LocalBus`] plus NATS. What a game's task publishes
//! goes to its node's subscribers at once and, on the subject `flagfall.game.<id>`, to
//! the other nodes; a node whose sockets watch a game served elsewhere subscribes to
//! that subject ([`Bus::ready`], a relay) while it has a subscriber on the game, and
//! hands what arrives to them.
//!
//! A game's messages go on NATS only while another node has a socket on it ([`Interest`]):
//! in steady state a game's sockets are on its own node (docs/cluster.md, "Sockets land on
//! the game's node") and its owner publishes nothing on NATS. A node that relays a game
//! says so on `flagfall.interest` when its relay starts and every [`IDLE_CHECK`] while it
//! runs (every node hears it, so a node that takes the game over knows it too); and the
//! owner counts a game wanted the moment it answers another node's request of a socket on
//! it (its state, an action, a ping), before it reads the state: every event after the
//! state a remote socket starts from goes on NATS. Core NATS
//! delivers at most once: a socket that sees a gap in event numbers reads a fresh state
//! from the owner (`crate::socket`), so a message lost while NATS restarts costs a state,
//! never a wrong board.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::throttle::{Throttle, warn_throttled};
use crate::bus::{Bus, BusMsg, LocalBus, Subscription};
use crate::metrics::Metrics;

/// Messages waiting to be published on NATS before the newest are dropped (the sockets
/// of other nodes then see a gap and read a fresh state).
const OUTBOX: usize = 65_536;
/// How often a relay with no local subscriber left checks whether to stop (and, while it
/// has one, says again that its node wants the game's messages).
const IDLE_CHECK: Duration = Duration::from_secs(2);
/// How long a node that hears of another node's interest in a game (or answers another
/// node's socket on it) publishes the game's messages on NATS: five of a relay's renewals.
pub const INTEREST_FOR: Duration = Duration::from_secs(10);
/// The subject on which a node with a relay says which game it wants.
const INTEREST_SUBJECT: &str = "flagfall.interest";

/// The games whose messages another node wants, and until when.
#[derive(Default)]
pub struct Interest {
    until: Mutex<HashMap<String, Instant>>,
}

impl Interest {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Instant>> {
        self.until.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Another node wants `game`'s messages from `now` for [`INTEREST_FOR`].
    pub fn mark(&self, game: &str, now: Instant) {
        let until = now + INTEREST_FOR;
        let mut map = self.map();
        match map.get_mut(game) {
            Some(u) => *u = (*u).max(until),
            None => {
                map.insert(game.to_string(), until);
            }
        }
    }

    /// Whether another node wants `game`'s messages at `now`.
    pub fn wanted(&self, game: &str, now: Instant) -> bool {
        self.map().get(game).is_some_and(|u| *u > now)
    }

    /// Forget the interests that ran out by `now`.
    pub fn prune(&self, now: Instant) {
        self.map().retain(|_, u| *u > now);
    }
}

/// A relay of one game served elsewhere: whether its NATS subscription is in place.
struct Relay {
    ready: watch::Receiver<bool>,
}

/// The bus of a cluster node ([`crate::bus::Bus`] over NATS).
pub struct NatsBus {
    node: String,
    local: Arc<LocalBus>,
    nats: async_nats::Client,
    outbox: mpsc::Sender<(String, Bytes)>,
    relays: Arc<Mutex<HashMap<String, Relay>>>,
    /// The games of this node whose messages another node wants ([`Interest`]).
    interest: Arc<Interest>,
    metrics: Arc<Metrics>,
}

impl NatsBus {
    pub fn new(node: &str, nats: async_nats::Client, metrics: Arc<Metrics>) -> NatsBus {
        let (outbox, mut rx) = mpsc::channel::<(String, Bytes)>(OUTBOX);
        let client = nats.clone();
        tokio::spawn(async move {
            while let Some((subject, payload)) = rx.recv().await {
                if let Err(e) = client.publish(subject, payload).await {
                    tracing::warn!(error = %e, "a game's message not published on NATS");
                }
            }
        });
        let interest = Arc::new(Interest::default());
        tokio::spawn(hear_interest(
            nats.clone(),
            interest.clone(),
            metrics.clone(),
        ));
        NatsBus {
            node: node.to_string(),
            local: Arc::new(LocalBus::new()),
            nats,
            outbox,
            relays: Arc::default(),
            interest,
            metrics,
        }
    }

    fn relays(&self) -> std::sync::MutexGuard<'_, HashMap<String, Relay>> {
        self.relays.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait until this node receives game `game`'s messages from the other nodes (its
    /// relay's NATS subscription reached the server), at most `wait`.
    pub async fn relay_ready(&self, game: &str, wait: Duration) -> bool {
        let rx = self.relays().get(game).map(|r| r.ready.clone());
        let Some(mut rx) = rx else { return false };
        matches!(
            tokio::time::timeout(wait, rx.wait_for(|r| *r)).await,
            Ok(Ok(_))
        )
    }

    /// Start the relay of `game` unless it runs.
    fn relay(&self, game: &str) {
        let mut relays = self.relays();
        if relays.contains_key(game) {
            return;
        }
        let (ready_tx, ready) = watch::channel(false);
        relays.insert(game.to_string(), Relay { ready });
        let game = game.to_string();
        let nats = self.nats.clone();
        let local = self.local.clone();
        let relays = self.relays.clone();
        let node = self.node.clone();
        let metrics = self.metrics.clone();
        tokio::spawn(async move {
            let stop = |relays: &Mutex<HashMap<String, Relay>>| {
                let mut map = relays.lock().unwrap_or_else(|p| p.into_inner());
                if local.subscribers(&game) == 0 {
                    map.remove(&game);
                    true
                } else {
                    false
                }
            };
            let mut sub = loop {
                match nats.subscribe(super::game_subject(&game)).await {
                    Ok(s) => break s,
                    Err(e) => {
                        tracing::warn!(game = %game, error = %e, "cannot subscribe to a game on NATS; again");
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        if stop(&relays) {
                            return;
                        }
                    }
                }
            };
            // Every node hears that this one wants the game (the owner, and whoever takes
            // it over); the owner marks it again when it answers the socket's state.
            let want = || nats.publish(INTEREST_SUBJECT, Bytes::from(game.clone()));
            if let Err(e) = want().await {
                tracing::warn!(game = %game, error = %e, "interest in a game not published on NATS");
            }
            // The subscription (and the interest) are at the server once a flush returns.
            let _ = nats.flush().await;
            let _ = ready_tx.send(true);
            let mut idle = tokio::time::interval(IDLE_CHECK);
            loop {
                tokio::select! {
                    m = sub.next() => {
                        let Some(m) = m else { break };
                        match decode(&m.payload) {
                            Some((from, msg)) if from != node => {
                                metrics.cluster.relayed.inc();
                                local.publish(&game, msg);
                            }
                            Some(_) => {}
                            None => {
                                metrics.cluster.unreadable.inc();
                                static UNREADABLE: Throttle = Throttle::new();
                                warn_throttled!(UNREADABLE, game = %game, "an unreadable message on the game's subject: dropped");
                            }
                        }
                    }
                    _ = idle.tick() => {
                        if stop(&relays) {
                            return;
                        }
                        if let Err(e) = want().await {
                            tracing::warn!(game = %game, error = %e, "interest in a game not published on NATS");
                        }
                    }
                }
            }
            // The client is closing: forget the relay so that a new subscriber makes one.
            relays
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&game);
        });
    }
}

impl Bus for NatsBus {
    fn publish(&self, game: &str, msg: BusMsg) {
        // Only while another node wants it: with the game's sockets all here, NATS
        // carries nothing.
        let payload = self
            .interest
            .wanted(game, Instant::now())
            .then(|| encode(&self.node, &msg));
        self.local.publish(game, msg);
        let Some(payload) = payload else { return };
        self.metrics.cluster.published.inc();
        if self
            .outbox
            .try_send((super::game_subject(game), payload))
            .is_err()
        {
            tracing::warn!(game = %game, "NATS outbox full: a message dropped (the other nodes' sockets resynchronise)");
        }
    }

    fn publish_local(&self, game: &str, msg: BusMsg) {
        self.local.publish(game, msg);
    }

    fn wanted_elsewhere(&self, game: &str) {
        self.interest.mark(game, Instant::now());
    }

    fn subscribe(&self, game: &str) -> Subscription {
        // Sockets on a game this node serves need no relay: its task publishes here.
        // A socket on a game served elsewhere asks for one (`Bus::ready`).
        self.local.subscribe(game)
    }

    fn ready<'a>(
        &'a self,
        game: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>> {
        Box::pin(async move {
            self.relay(game);
            if !self.relay_ready(game, Duration::from_secs(2)).await {
                tracing::warn!(game = %game, "the game's relay is not subscribed yet");
            }
        })
    }

    fn subscribers(&self, game: &str) -> usize {
        self.local.subscribers(game)
    }

    fn channels(&self) -> usize {
        self.local.channels()
    }
}

/// Hear the other nodes' interests in games ([`Interest`]) until the client closes,
/// forgetting those that ran out every [`IDLE_CHECK`]. A payload that is not a game's id
/// is dropped and counted.
async fn hear_interest(nats: async_nats::Client, interest: Arc<Interest>, metrics: Arc<Metrics>) {
    let mut sub = loop {
        match nats.subscribe(INTEREST_SUBJECT).await {
            Ok(s) => break s,
            Err(e) => {
                tracing::warn!(error = %e, "cannot subscribe to the nodes' interests on NATS; again");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    let mut prune = tokio::time::interval(IDLE_CHECK);
    loop {
        tokio::select! {
            m = sub.next() => {
                let Some(m) = m else { return };
                match std::str::from_utf8(&m.payload) {
                    Ok(game) if super::seam::plausible_id(game) => interest.mark(game, Instant::now()),
                    _ => {
                        metrics.cluster.unreadable.inc();
                        static UNREADABLE: Throttle = Throttle::new();
                        warn_throttled!(UNREADABLE, "an unreadable interest on NATS: dropped");
                    }
                }
            }
            _ = prune.tick() => {
                interest.prune(Instant::now());
            }
        }
    }
}

/// A message on a game's subject: `from\nN\nL0\nL1\n` then the public text and the two
/// private texts (`N` the event number or `-`; `L0`, `L1` the private texts' lengths in
/// bytes or `-` when there is none). A moved notice is never relayed (it is local).
fn encode(from: &str, msg: &BusMsg) -> Bytes {
    let n = msg.n.map_or_else(|| "-".to_string(), |n| n.to_string());
    let len = |p: &Option<Arc<str>>| {
        p.as_ref()
            .map_or_else(|| "-".to_string(), |t| t.len().to_string())
    };
    let mut out = format!(
        "{from}\n{n}\n{}\n{}\n",
        len(&msg.private[0]),
        len(&msg.private[1])
    );
    let extra: usize = msg.private.iter().flatten().map(|t| t.len()).sum();
    out.reserve(msg.text.len() + extra);
    out.push_str(&msg.text);
    for p in msg.private.iter().flatten() {
        out.push_str(p);
    }
    Bytes::from(out)
}

fn decode(payload: &[u8]) -> Option<(String, BusMsg)> {
    let text = std::str::from_utf8(payload).ok()?;
    let mut parts = text.splitn(5, '\n');
    let from = parts.next()?.to_string();
    let n = match parts.next()? {
        "-" => None,
        s => Some(s.parse().ok()?),
    };
    let len = |s: &str| -> Option<Option<usize>> {
        match s {
            "-" => Some(None),
            s => Some(Some(s.parse().ok()?)),
        }
    };
    let l0 = len(parts.next()?)?;
    let l1 = len(parts.next()?)?;
    let rest = parts.next()?;
    let privates = l0.unwrap_or(0) + l1.unwrap_or(0);
    let public_len = rest.len().checked_sub(privates)?;
    let (public, mut tail) = (rest.get(..public_len)?, rest.get(public_len..)?);
    let mut private: [Option<Arc<str>>; 2] = [None, None];
    for (slot, l) in private.iter_mut().zip([l0, l1]) {
        if let Some(l) = l {
            *slot = Some(tail.get(..l)?.into());
            tail = tail.get(l..)?;
        }
    }
    Some((
        from,
        BusMsg {
            n,
            text: public.into(),
            private,
            moved: false,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_is_wanted_elsewhere_for_a_while_after_each_word() {
        let interest = Interest::default();
        let t0 = Instant::now();
        // Nobody said anything: nothing goes on NATS.
        assert!(!interest.wanted("ab12", t0));
        interest.mark("ab12", t0);
        assert!(interest.wanted("ab12", t0));
        assert!(interest.wanted("ab12", t0 + INTEREST_FOR - Duration::from_millis(1)));
        assert!(!interest.wanted("ab12", t0 + INTEREST_FOR));
        assert!(!interest.wanted("cd34", t0), "another game is not wanted");
        // A renewal moves the end on; an older word heard late does not move it back.
        interest.mark("ab12", t0 + Duration::from_secs(2));
        interest.mark("ab12", t0);
        assert!(interest.wanted("ab12", t0 + INTEREST_FOR + Duration::from_secs(1)));
        assert!(!interest.wanted("ab12", t0 + INTEREST_FOR + Duration::from_secs(2)));
        // What ran out is forgotten.
        interest.mark("cd34", t0 + Duration::from_secs(5));
        interest.prune(t0 + Duration::from_secs(1));
        assert_eq!(interest.map().len(), 2);
        interest.prune(t0 + INTEREST_FOR + Duration::from_secs(2));
        assert_eq!(interest.map().len(), 1);
        assert!(interest.wanted("cd34", t0 + INTEREST_FOR + Duration::from_secs(2)));
        interest.prune(t0 + INTEREST_FOR + Duration::from_secs(5));
        assert!(interest.map().is_empty());
    }

    #[test]
    fn a_message_crosses_nats_as_it_was() {
        let msg = BusMsg {
            n: Some(12),
            text: "{\"event\":\"é\"}".into(),
            private: [None, Some("{\"own\":\"\n\"}".into())],
            moved: false,
        };
        let (from, back) = decode(&encode("n-1", &msg)).expect("readable");
        assert_eq!(from, "n-1");
        assert_eq!(back.n, Some(12));
        assert_eq!(&*back.text, "{\"event\":\"é\"}");
        assert!(back.private[0].is_none());
        assert_eq!(back.private[1].as_deref(), Some("{\"own\":\"\n\"}"));
        let flag = BusMsg::public(None, "{}".into());
        let (_, back) = decode(&encode("a", &flag)).expect("readable");
        assert_eq!((back.n, &*back.text), (None, "{}"));
        // Damaged payloads are refused, not misread.
        for bad in [
            "",
            "a\n1\n",
            "a\nx\n-\n-\n{}",
            "a\n1\n99\n-\n{}",
            "a\n1\n-\n-",
        ] {
            assert!(decode(bad.as_bytes()).is_none(), "{bad:?}");
        }
    }
}
