//! The publish/subscribe path between game tasks and sockets.
//!
//! A game task publishes every message meant for everyone on a game (events after their
//! commit, flag falls); each socket subscribes to its game. Nothing else connects them.
//! [`LocalBus`], in-process (one tokio broadcast channel per game), serves a single
//! node; a cluster's nodes use `crate::cluster::relay::NatsBus`, the local bus plus NATS.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use flagfall_protocol::Role;
use futures_util::Stream;
use tokio::sync::broadcast;

/// One published message: its text frame, and for events the event number (a socket
/// that sent a state with `n` skips events up to `n`).
#[derive(Debug, Clone)]
pub struct BusMsg {
    pub n: Option<u64>,
    pub text: Arc<str>,
    /// The text White's, then Black's, sockets send instead, when theirs differs: it
    /// holds what only that player may read (`flagfall_protocol::Actions::seen_by`).
    pub private: [Option<Arc<str>>; 2],
    /// Not a message to send: this node stopped serving the game (a cluster node lost
    /// its lease, `crate::cluster`); the sockets bound to its task close with 1012 so
    /// that their clients reconnect to the node that serves it now.
    pub moved: bool,
}

impl BusMsg {
    /// A message every socket sends as it is.
    pub fn public(n: Option<u64>, text: Arc<str>) -> BusMsg {
        BusMsg {
            n,
            text,
            private: [None, None],
            moved: false,
        }
    }

    /// The notice that this node no longer serves the game ([`BusMsg::moved`]).
    pub fn moved() -> BusMsg {
        BusMsg {
            n: None,
            text: "".into(),
            private: [None, None],
            moved: true,
        }
    }

    /// The text a socket acting as `role` sends.
    pub fn text_for(&self, role: Role) -> &Arc<str> {
        let own = match role {
            Role::White => self.private[0].as_ref(),
            Role::Black => self.private[1].as_ref(),
            Role::Director | Role::Spectator => None,
        };
        own.unwrap_or(&self.text)
    }
}

/// What a subscription yields.
#[derive(Debug, Clone)]
pub enum Delivery {
    Msg(BusMsg),
    /// Messages were lost because this subscriber fell behind: resynchronise with a
    /// fresh state.
    Lagged,
}

/// A stream of deliveries for one game.
pub type Subscription = Pin<Box<dyn Stream<Item = Delivery> + Send>>;

/// The publish/subscribe interface between game tasks and sockets.
pub trait Bus: Send + Sync {
    fn publish(&self, game: &str, msg: BusMsg);
    /// Publish to this process's subscribers only (a cluster's bus does not send it to
    /// the other nodes).
    fn publish_local(&self, game: &str, msg: BusMsg) {
        self.publish(game, msg);
    }
    /// Another node has a socket on `game` (it asked this node, the owner, for the
    /// game's state, an action or a ping): a cluster's bus carries the game's messages to
    /// the other nodes for a while from now (`crate::cluster::relay::Interest`); nothing
    /// to do on a single node.
    fn wanted_elsewhere(&self, game: &str) {
        let _ = game;
    }
    /// Subscribe to a game's messages; the subscription leaves when it is dropped, and
    /// the game's channel goes with its last subscriber.
    fn subscribe(&self, game: &str) -> Subscription;
    /// Receive what other processes publish on `game` from now on (a cluster's relay,
    /// kept while this process has a subscriber on it), and wait (briefly) until that is
    /// in place; nothing to do on a single node.
    fn ready<'a>(
        &'a self,
        game: &'a str,
    ) -> Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>> {
        let _ = game;
        Box::pin(async {})
    }
    /// How many subscribers a game has now (its open sockets, its practice computer).
    fn subscribers(&self, game: &str) -> usize;
    /// How many games have a channel now.
    fn channels(&self) -> usize;
}

/// Messages a slow subscriber may fall behind before it is resynchronised.
const CAPACITY: usize = 64;

/// The channels hold each message behind an `Arc`: tokio's broadcast allocates all its
/// `CAPACITY` slots when a game's channel is made, so a slot of one pointer rather than a
/// whole `BusMsg` keeps about 3.5 KiB less per live game (issue 34).
type Channels = Mutex<HashMap<String, broadcast::Sender<Arc<BusMsg>>>>;

/// The in-process bus: a channel per game that has a subscriber.
#[derive(Default)]
pub struct LocalBus {
    channels: Arc<Channels>,
}

fn lock(
    channels: &Channels,
) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<Arc<BusMsg>>>> {
    // A panic while holding this lock cannot leave the map inconsistent (single
    // insert/remove calls), so a poisoned lock is still usable.
    channels.lock().unwrap_or_else(|p| p.into_inner())
}

/// A subscription that, dropped, removes its game's channel if it was the last
/// subscriber (issue 19, item 17: a finished game's channel does not outlive its
/// sockets).
struct Leaving {
    inner: Option<Subscription>,
    channels: std::sync::Weak<Channels>,
    game: String,
}

impl Stream for Leaving {
    type Item = Delivery;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Delivery>> {
        match self.inner.as_mut() {
            Some(s) => s.as_mut().poll_next(cx),
            None => std::task::Poll::Ready(None),
        }
    }
}

impl Drop for Leaving {
    fn drop(&mut self) {
        // The receiver first, then, under the lock (where `subscribe` adds receivers),
        // the channel if nobody receives on it any more.
        self.inner.take();
        if let Some(channels) = self.channels.upgrade() {
            let mut map = lock(&channels);
            if map
                .get(&self.game)
                .is_some_and(|tx| tx.receiver_count() == 0)
            {
                map.remove(&self.game);
            }
        }
    }
}

impl LocalBus {
    pub fn new() -> LocalBus {
        LocalBus::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<Arc<BusMsg>>>> {
        lock(&self.channels)
    }
}

impl Bus for LocalBus {
    fn publish(&self, game: &str, msg: BusMsg) {
        let mut map = self.lock();
        if let Some(tx) = map.get(game) {
            if tx.receiver_count() == 0 {
                map.remove(game);
            } else {
                let _ = tx.send(Arc::new(msg));
            }
        }
    }

    fn subscribe(&self, game: &str) -> Subscription {
        let rx = self
            .lock()
            .entry(game.to_string())
            .or_insert_with(|| broadcast::channel(CAPACITY).0)
            .subscribe();
        let inner: Subscription = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
            match rx.recv().await {
                Ok(m) => Some((Delivery::Msg(Arc::unwrap_or_clone(m)), rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => Some((Delivery::Lagged, rx)),
                Err(broadcast::error::RecvError::Closed) => None,
            }
        }));
        Box::pin(Leaving {
            inner: Some(inner),
            channels: Arc::downgrade(&self.channels),
            game: game.to_string(),
        })
    }

    fn subscribers(&self, game: &str) -> usize {
        self.lock().get(game).map_or(0, |tx| tx.receiver_count())
    }

    fn channels(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    #[tokio::test]
    async fn subscribers_get_what_is_published_on_their_game_only() {
        let bus = LocalBus::new();
        let mut a = bus.subscribe("a");
        let mut b = bus.subscribe("b");
        bus.publish("a", BusMsg::public(Some(1), "one".into()));
        bus.publish("b", BusMsg::public(None, "two".into()));
        match a.next().await {
            Some(Delivery::Msg(m)) => assert_eq!((m.n, &*m.text), (Some(1), "one")),
            other => panic!("{other:?}"),
        }
        match b.next().await {
            Some(Delivery::Msg(m)) => assert_eq!(&*m.text, "two"),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_channel_goes_with_its_last_subscriber() {
        let bus = LocalBus::new();
        let a = bus.subscribe("g");
        let b = bus.subscribe("g");
        let _other = bus.subscribe("h");
        assert_eq!((bus.channels(), bus.subscribers("g")), (2, 2));
        drop(a);
        assert_eq!((bus.channels(), bus.subscribers("g")), (2, 1));
        drop(b);
        assert_eq!((bus.channels(), bus.subscribers("g")), (1, 0));
        // A new subscriber gets a new channel, and what is published reaches it.
        let mut c = bus.subscribe("g");
        bus.publish("g", BusMsg::public(Some(1), "again".into()));
        assert!(matches!(c.next().await, Some(Delivery::Msg(m)) if &*m.text == "again"));
    }

    #[tokio::test]
    async fn a_slow_subscriber_is_told_it_lagged() {
        let bus = LocalBus::new();
        let mut a = bus.subscribe("a");
        for i in 0..(CAPACITY as u64 + 5) {
            bus.publish("a", BusMsg::public(Some(i), "x".into()));
        }
        assert!(matches!(a.next().await, Some(Delivery::Lagged)));
    }
}
