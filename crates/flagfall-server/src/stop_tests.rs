//! A stop forgets the loaded games and evenings (step 3 of [`crate::Node::serve`]); from
//! then on nothing is loaded or started again, so that nothing put in after that step
//! holds the server's shared state until the stop's deadline.

use std::sync::Arc;

use flagfall_events::event::Event;
use flagfall_events::format::Format;
use flagfall_protocol::Mode;
use flagfall_protocol::evening::{Confirm, Play};

use crate::evening::model::Settings;
use crate::{Config, Node, ServerError, Shared};

async fn node(dir: &tempfile::TempDir) -> Node {
    let database = format!("sqlite:{}", dir.path().join("stop.db").display());
    let config = Config {
        listen: "127.0.0.1:0".into(),
        database: database.clone(),
        engine: None,
        socket_rate: None,
        limits: crate::limits::Limits::unlimited(),
        cluster: None,
    };
    let store = flagfall_store::open(&database)
        .await
        .expect("the store opens");
    Node::start(&config, store).await.expect("the node starts")
}

fn stopped<T>(what: &str, r: Result<Option<T>, ServerError>) {
    match r {
        Err(ServerError::Stopped("the server")) => {}
        Err(e) => panic!("{what}: {e}, not refused as the server stopping"),
        Ok(found) => panic!(
            "{what}: {} while stopping",
            if found.is_some() {
                "loaded"
            } else {
                "not found"
            }
        ),
    }
}

fn no_games_loaded(shared: &Arc<Shared>) -> bool {
    shared.lock().is_empty() && shared.evenings.loaded() == 0
}

/// The games `ids` and the evening load (they are stored and the server serves them).
async fn loads(shared: &Arc<Shared>, ids: &[&String], evening: &str) {
    for id in ids {
        assert!(shared.load_here(id).await.expect("loads").is_some(), "{id}");
    }
    let h = crate::evening::task::handle(shared, evening).await;
    assert!(h.expect("loads").is_some(), "{evening}");
}

#[tokio::test]
async fn nothing_is_loaded_or_started_once_the_stop_has_begun() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let node = node(&dir).await;
    let shared = node.shared.clone();
    let body = serde_json::from_str(r#"{"rules":"uscf-2020","time_control":"G/10;d0"}"#)
        .expect("a game's body");
    let game = shared.create(&body).await.expect("a game");
    let settings = Settings {
        play: Play::Board,
        mode: Mode::Otb,
        confirm: Confirm::One,
        auto: false,
    };
    let event = Event::new("Club", Format::Swiss, Some(3)).expect("an event");
    let (evening, _director) = crate::evening::task::create(&shared, event, settings, None)
        .await
        .expect("an evening");
    // Loaded before the stop.
    loads(&shared, &[&game.id], &evening).await;

    // The stop begins (step 2), and forgets what is loaded (step 3).
    node.down.send(true).expect("the tasks are told");
    assert!(shared.stopping());
    assert_eq!(shared.stop_games(), 2);

    // What would load them again (a socket's or a routed request, a game's result told
    // to its evening, a lease held in the database) is refused and puts nothing in.
    stopped("the game", shared.load_here(&game.id).await);
    stopped("the game's route", shared.route(&game.id).await);
    stopped(
        "the evening",
        crate::evening::task::handle(&shared, &evening).await,
    );
    assert!(no_games_loaded(&shared));
    // A game an evening's change stores as the stop begins is stored, not started: it is
    // served when the server starts again.
    let second = shared.create(&body).await.expect("stored while stopping");
    assert!(no_games_loaded(&shared));
    assert!(
        shared
            .store
            .game(&second.id)
            .await
            .expect("the store answers")
            .is_some(),
        "the game is stored"
    );

    // Nothing holds the tasks: they end at once, not at the stop's deadline.
    shared.tasks.close();
    tokio::time::timeout(std::time::Duration::from_secs(5), shared.tasks.wait())
        .await
        .expect("every task ended once the loaded games were forgotten");
    drop(shared);
    node.finish().await.expect("the node stops");

    // Started again on the same database, both games and the evening are served.
    let node = self::node(&dir).await;
    let shared = node.shared.clone();
    loads(&shared, &[&game.id, &second.id], &evening).await;
    node.down.send(true).expect("told");
    shared.stop_games();
    drop(shared);
    node.finish().await.expect("the node stops");
}
