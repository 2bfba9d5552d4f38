//! The publish/subscribe path between game tasks and sockets.
//!
//! A game task publishes every message meant for everyone on a game (events after their
//! commit, flag falls); each socket subscribes to its game. Nothing else connects them.
//! [`LocalBus`], in-process (one tokio broadcast channel per game), is the only
//! implementation: a game's task and all its sockets live in one server process. The
//! trait is where a bus over a message broker would go; nothing places a game on one of
//! several servers yet.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use futures_util::Stream;
use tokio::sync::broadcast;

/// One published message: its text frame, and for events the event number (a socket
/// that sent a state with `n` skips events up to `n`).
#[derive(Debug, Clone)]
pub struct BusMsg {
    pub n: Option<u64>,
    pub text: Arc<str>,
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
    fn subscribe(&self, game: &str) -> Subscription;
}

/// Messages a slow subscriber may fall behind before it is resynchronised.
const CAPACITY: usize = 64;

/// The in-process bus.
#[derive(Default)]
pub struct LocalBus {
    channels: Mutex<HashMap<String, broadcast::Sender<BusMsg>>>,
}

impl LocalBus {
    pub fn new() -> LocalBus {
        LocalBus::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<BusMsg>>> {
        // A panic while holding this lock cannot leave the map inconsistent (single
        // insert/remove calls), so a poisoned lock is still usable.
        self.channels.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Bus for LocalBus {
    fn publish(&self, game: &str, msg: BusMsg) {
        let mut map = self.lock();
        if let Some(tx) = map.get(game) {
            if tx.receiver_count() == 0 {
                map.remove(game);
            } else {
                let _ = tx.send(msg);
            }
        }
    }

    fn subscribe(&self, game: &str) -> Subscription {
        let rx = self
            .lock()
            .entry(game.to_string())
            .or_insert_with(|| broadcast::channel(CAPACITY).0)
            .subscribe();
        Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
            match rx.recv().await {
                Ok(m) => Some((Delivery::Msg(m), rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => Some((Delivery::Lagged, rx)),
                Err(broadcast::error::RecvError::Closed) => None,
            }
        }))
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
        bus.publish(
            "a",
            BusMsg {
                n: Some(1),
                text: "one".into(),
            },
        );
        bus.publish(
            "b",
            BusMsg {
                n: None,
                text: "two".into(),
            },
        );
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
    async fn a_slow_subscriber_is_told_it_lagged() {
        let bus = LocalBus::new();
        let mut a = bus.subscribe("a");
        for i in 0..(CAPACITY as u64 + 5) {
            bus.publish(
                "a",
                BusMsg {
                    n: Some(i),
                    text: "x".into(),
                },
            );
        }
        assert!(matches!(a.next().await, Some(Delivery::Lagged)));
    }
}
