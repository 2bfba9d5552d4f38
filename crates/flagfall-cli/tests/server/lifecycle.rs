//! Lifecycles (issue 19, items 12 and 17): a game never started expires and is
//! unloaded; a finished game with no sockets is unloaded; a bus channel goes with its
//! last subscriber. Seen from outside: the state, the lists and `/metrics`.

use std::time::Duration;

use serde_json::json;

use crate::support::*;

const USCF: &str = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;

/// The value of a metric line `name v` in `/metrics`.
pub async fn metric(api: &Api, name: &str) -> u64 {
    let text = api.get_text("/metrics").await;
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no metric {name} in:\n{text}"))
}

/// Wait (at most `within`) until `metric` reads `want`.
pub async fn metric_becomes(api: &Api, name: &str, want: u64, within: Duration) {
    let until = tokio::time::Instant::now() + within;
    loop {
        let v = metric(api, name).await;
        if v == want {
            return;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "{name} is {v}, not {want}, after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn ids(api: &Api, status: &str) -> Vec<String> {
    let list = api.get_json(&format!("/api/games?status={status}")).await;
    list.as_array()
        .expect("a list")
        .iter()
        .map(|g| g["id"].as_str().expect("an id").to_string())
        .collect()
}

fn expiring(secs: u64) -> flagfall_server::limits::Limits {
    flagfall_server::limits::Limits {
        unstarted_expiry: Duration::from_secs(secs),
        ..flagfall_server::limits::Limits::unlimited()
    }
}

/// Item 12: a game nobody acted on expires: aborted (no result, nothing deleted), out
/// of the live list, unloaded, its actions refused naming why; a game that started
/// does not expire; at start-up the expired ones are aborted and never loaded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_never_started_expires_aborted_and_is_unloaded() {
    let srv = Server::start_on_with(Db::new().await, expiring(2)).await;
    let idle = srv.create(USCF).await;
    let played = srv.create(USCF).await;
    // A player who connects and waits does not start the game.
    let mut waiting = srv.connect(&idle.id, Some(&idle.tokens.white)).await;
    let mut white = srv.connect(&played.id, Some(&played.tokens.white)).await;
    white
        .send(json!({"move":"e2e4","press":true,"id":"w1"}))
        .await;
    assert_eq!(white.event().await["n"], 1);
    assert_eq!(metric(&srv, "flagfall_loaded_games").await, 2);
    let live = ids(&srv, "live").await;
    assert!(live.contains(&idle.id) && live.contains(&played.id));

    metric_becomes(
        &srv,
        "flagfall_aborted_games_total",
        1,
        Duration::from_secs(6),
    )
    .await;
    metric_becomes(&srv, "flagfall_loaded_games", 1, Duration::from_secs(2)).await;
    assert_eq!(metric(&srv, "flagfall_live_games").await, 1);
    assert_eq!(ids(&srv, "live").await, vec![played.id.clone()]);
    assert_eq!(ids(&srv, "aborted").await, vec![idle.id.clone()]);

    let state = srv.state(&idle.id).await;
    assert_eq!(state["aborted"], true, "{state}");
    assert_eq!(state["result"], "*", "no result: {state}");
    let reason = state["reason"].as_str().expect("a reason");
    assert!(
        reason.contains("aborted") && reason.contains("2 seconds"),
        "{reason}"
    );
    assert!(srv.state(&played.id).await.get("aborted").is_none());
    // The waiting player's action is refused, naming why; nothing is stored.
    waiting
        .send(json!({"move":"e2e4","press":true,"id":"late"}))
        .await;
    let refused = waiting.until_type("refused").await;
    assert_eq!(refused["id"], "late");
    let why = refused["reason"].as_str().expect("a reason");
    assert!(why.contains("aborted") && why.contains("expired"), "{why}");
    assert_eq!(
        srv.get_text(&format!("/api/games/{}/script", idle.id))
            .await
            .lines()
            .count(),
        1
    );
    // Still there, with its setup: nothing deleted.
    let all = ids(&srv, "aborted").await;
    assert_eq!(all.len(), 1);

    // At start-up: a game that expired while the server was down is aborted, not loaded.
    let later = srv.create(USCF).await;
    let db = srv.stop_keeping_db().await;
    tokio::time::sleep(Duration::from_millis(2_300)).await;
    let srv = Server::start_on_with(db, expiring(2)).await;
    assert_eq!(
        metric(&srv, "flagfall_loaded_games").await,
        1,
        "only the started game is loaded"
    );
    assert_eq!(ids(&srv, "live").await, vec![played.id.clone()]);
    let state = srv.state(&later.id).await;
    assert_eq!(state["aborted"], true, "{state}");
    let mut aborted = ids(&srv, "aborted").await;
    aborted.sort();
    let mut want = vec![idle.id.clone(), later.id.clone()];
    want.sort();
    assert_eq!(aborted, want);
    srv.stop().await;
}

/// Item 17: a finished game stays loaded while a socket watches it; once its last
/// socket closes, its bus channel goes at once and the game is unloaded after the
/// grace; a later `GET` loads it again from the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_without_sockets_is_unloaded_and_its_channel_goes() {
    let srv = Server::start().await;
    let g = srv.create(USCF).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    let watcher = srv.connect(&g.id, None).await;
    assert_eq!(metric(&srv, "flagfall_bus_channels").await, 1);
    assert_eq!(metric(&srv, "flagfall_loaded_games").await, 1);
    white.send(json!({"resign": true, "id": "r"})).await;
    let ev = white.event().await;
    assert_eq!(ev["result"], "0-1", "{ev}");
    assert_eq!(metric(&srv, "flagfall_live_games").await, 0);

    // Watched: still loaded after the grace.
    let grace = flagfall_server::lifecycle::FINISHED_GRACE;
    tokio::time::sleep(grace + Duration::from_millis(1_500)).await;
    assert_eq!(metric(&srv, "flagfall_loaded_games").await, 1);
    assert_eq!(metric(&srv, "flagfall_bus_channels").await, 1);

    drop(white);
    drop(black);
    assert_eq!(
        metric(&srv, "flagfall_bus_channels").await,
        1,
        "a spectator is left"
    );
    drop(watcher);
    metric_becomes(&srv, "flagfall_bus_channels", 0, Duration::from_secs(3)).await;
    metric_becomes(
        &srv,
        "flagfall_loaded_games",
        0,
        grace * 2 + Duration::from_secs(2),
    )
    .await;
    assert_eq!(metric(&srv, "flagfall_sockets").await, 0);

    // Asked again, it is loaded from the store, as it was.
    let state = srv.state(&g.id).await;
    assert_eq!(state["result"], "0-1", "{state}");
    assert_eq!(state["n"], 1);
    assert_eq!(metric(&srv, "flagfall_loaded_games").await, 1);
    metric_becomes(
        &srv,
        "flagfall_loaded_games",
        0,
        grace * 2 + Duration::from_secs(2),
    )
    .await;
    srv.stop().await;
}

/// Item 3's heartbeat in O(1) rows a beat: the server stores one "alive at" row a beat
/// and each running game's clock mark once, not a row per game per beat; a finished
/// game's clock leaves the heartbeat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_heartbeat_stores_each_games_mark_once_not_a_row_per_beat() {
    use std::sync::atomic::Ordering::SeqCst;
    let (srv, faults) = Server::start_faulty().await;
    let mut games = Vec::new();
    for i in 0..10 {
        let g = srv.create(USCF).await;
        let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
        white
            .send(json!({"move":"e2e4","press":true,"id":format!("w{i}")}))
            .await;
        assert_eq!(white.event().await["n"], 1);
        games.push((g, white));
    }
    assert_eq!(metric(&srv, "flagfall_clocks_beating").await, 10);
    let (beats0, marks0) = (faults.beats.load(SeqCst), faults.marks.load(SeqCst));
    // Every mark is stored at the first beat after its game started.
    tokio::time::sleep(Duration::from_millis(900)).await;
    let marks1 = faults.marks.load(SeqCst);
    assert!(marks1 <= 10, "{marks1} marks for 10 games");
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    let (beats2, marks2) = (faults.beats.load(SeqCst), faults.marks.load(SeqCst));
    assert!(beats2 - beats0 >= 4, "{} beats in 2.9 s", beats2 - beats0);
    assert_eq!(
        marks2, 10,
        "each game's mark once (had {marks0} before the wait)"
    );
    // A finished game's clock stops beating.
    let (_, white) = &mut games[0];
    white.send(json!({"resign": true})).await;
    white.event().await;
    assert_eq!(metric(&srv, "flagfall_clocks_beating").await, 9);
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(faults.marks.load(SeqCst), 10, "no mark for anything after");
    srv.stop().await;
}

/// Item 12 with the practice computer: a practice game whose player never moves
/// expires like any other, and its computer stops with it (no subscription, no task
/// loaded again and again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_practice_game_stops_its_computer() {
    let srv = Server::start_on_with(Db::new().await, expiring(2)).await;
    let body = json!({
        "setup": {"rules": "uscf-2020", "time_control": "G/5;d0"},
        "computer": {"color": "black", "level": 1}
    });
    let (status, text) = srv.post("/api/practice", &body.to_string()).await;
    assert_eq!(status, 201, "{text}");
    let g: serde_json::Value = serde_json::from_str(&text).unwrap();
    let id = g["id"].as_str().unwrap();
    // The computer listens.
    metric_becomes(&srv, "flagfall_bus_channels", 1, Duration::from_secs(2)).await;
    metric_becomes(
        &srv,
        "flagfall_aborted_games_total",
        1,
        Duration::from_secs(6),
    )
    .await;
    let grace = flagfall_server::lifecycle::FINISHED_GRACE;
    metric_becomes(&srv, "flagfall_bus_channels", 0, Duration::from_secs(3)).await;
    metric_becomes(
        &srv,
        "flagfall_loaded_games",
        0,
        grace * 2 + Duration::from_secs(2),
    )
    .await;
    assert_eq!(srv.state(id).await["aborted"], true);
    srv.stop().await;
}
