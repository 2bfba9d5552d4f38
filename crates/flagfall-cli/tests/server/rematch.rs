//! Issue 20: a rematch offered after a game, declined, offered again and accepted,
//! through the real server; the allowed actions each role reads from the state; the
//! rulesets the lobby offers.

use serde_json::{Value, json};

use crate::support::*;

async fn rematch(srv: &Server, id: &str, token: &str, action: &str) -> (u16, Value) {
    let body = json!({"token": token, "action": action}).to_string();
    let (status, text) = srv.post(&format!("/api/games/{id}/rematch"), &body).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_is_offered_declined_offered_again_and_accepted() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"fide-b3","time_control":"3+2","mode":"online","white":"Ann","black":"Bob"}"#)
        .await;
    // Not before the game is over.
    let (status, v) = rematch(&srv, &g.id, &g.tokens.white, "offer").await;
    assert_eq!(status, 409, "{v}");
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    white.send(json!({"resign":true})).await;
    white.event().await;
    // The director, a stranger and a bad body are refused with a reason.
    let (status, v) = rematch(&srv, &g.id, &g.tokens.director, "offer").await;
    assert_eq!(status, 403, "{v}");
    assert!(v["error"].as_str().unwrap().contains("players"), "{v}");
    let (status, _) = rematch(&srv, &g.id, "not-a-token", "offer").await;
    assert_eq!(status, 403);
    let (status, text) = srv
        .post(
            &format!("/api/games/{}/rematch", g.id),
            r#"{"token":"x","action":"shout"}"#,
        )
        .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("shout") && text.contains("decline"), "{text}");
    // Black cannot accept what nobody offered.
    let (status, _) = rematch(&srv, &g.id, &g.tokens.black, "accept").await;
    assert_eq!(status, 409);
    // White offers; Black sees it and declines; White sees the decline.
    let (status, v) = rematch(&srv, &g.id, &g.tokens.white, "offer").await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "offered");
    let seen = srv
        .get_json(&format!(
            "/api/games/{}/rematch?token={}",
            g.id, g.tokens.black
        ))
        .await;
    assert_eq!(seen["status"], "offered");
    assert_eq!(seen["by"], "white");
    let (status, _) = rematch(&srv, &g.id, &g.tokens.black, "decline").await;
    assert_eq!(status, 200);
    let seen = srv
        .get_json(&format!(
            "/api/games/{}/rematch?token={}",
            g.id, g.tokens.white
        ))
        .await;
    assert_eq!(seen["status"], "declined");
    assert_eq!(seen["game"], Value::Null);
    // White offers again; Black accepts: a new game, colours and names swapped.
    rematch(&srv, &g.id, &g.tokens.white, "offer").await;
    let (status, v) = rematch(&srv, &g.id, &g.tokens.black, "accept").await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "accepted");
    assert_eq!(v["game"]["color"], "white");
    let new_id = v["game"]["id"].as_str().unwrap().to_string();
    assert_ne!(new_id, g.id);
    let black_url = v["game"]["url"].as_str().unwrap().to_string();
    assert!(
        black_url.starts_with(&format!("/play/{new_id}?token=")),
        "{black_url}"
    );
    let w = srv
        .get_json(&format!(
            "/api/games/{}/rematch?token={}",
            g.id, g.tokens.white
        ))
        .await;
    assert_eq!(w["game"]["id"], new_id);
    assert_eq!(w["game"]["color"], "black");
    let white_url = w["game"]["url"].as_str().unwrap().to_string();
    // Accepting twice changes nothing.
    let (_, again) = rematch(&srv, &g.id, &g.tokens.black, "accept").await;
    assert_eq!(again["game"]["id"], new_id);
    let s = srv.state(&new_id).await;
    assert_eq!(s["setup"]["white"], "Bob");
    assert_eq!(s["setup"]["black"], "Ann");
    assert_eq!(s["setup"]["rules"], "fide-b3");
    assert_eq!(s["setup"]["time_control"], "3+2");
    assert_eq!(s["mode"], "online");
    // Each link's token plays the colour it was given: the old Black now moves first.
    let token_of = |url: &str| url.split("token=").nth(1).unwrap().to_string();
    let mut bob = srv.connect(&new_id, Some(&token_of(&black_url))).await;
    assert_eq!(bob.initial["role"], "white");
    let ann = srv.connect(&new_id, Some(&token_of(&white_url))).await;
    assert_eq!(ann.initial["role"], "black");
    bob.send(json!({"move":"d2d4","press":true})).await;
    assert_eq!(bob.event().await["update"]["to_move"], "black");
    srv.stop().await;
}

/// A rematch offer outlives a restart of the server: offered, the server restarted, seen
/// by both players and accepted; after another restart the offerer, who never saw the
/// acceptance, finds her link to the new game, and both links play their colours. The
/// database keeps no token of the new game, only hashes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_offer_survives_a_restart_and_is_accepted() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0","white":"Ann","black":"Bob"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    white.send(json!({"resign":true})).await;
    white.event().await;
    let (status, v) = rematch(&srv, &g.id, &g.tokens.white, "offer").await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "offered");
    drop(white);
    let srv = Server::start_on(srv.stop_keeping_db().await).await;

    // After the restart the offer stands, for both players.
    let seen_by = |token: &str| format!("/api/games/{}/rematch?token={token}", g.id);
    for token in [&g.tokens.white, &g.tokens.black] {
        let seen = srv.get_json(&seen_by(token)).await;
        assert_eq!(seen["status"], "offered", "{seen}");
        assert_eq!(seen["by"], "white", "{seen}");
        assert_eq!(seen["game"], Value::Null, "{seen}");
    }
    // Black's own offer now answers White's: accepted.
    let (status, v) = rematch(&srv, &g.id, &g.tokens.black, "offer").await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "accepted");
    assert_eq!(v["game"]["color"], "white");
    let new_id = v["game"]["id"].as_str().unwrap().to_string();
    let token_of = |url: &str| url.split("token=").nth(1).unwrap().to_string();
    let bob_token = token_of(v["game"]["url"].as_str().unwrap());
    let db = srv.stop_keeping_db().await;

    // What the database keeps: the standing and hashes, never a token of the new game.
    let store = flagfall_store::open(&db.url)
        .await
        .expect("the store opens");
    let row = store
        .rematch(&g.id)
        .await
        .unwrap()
        .expect("the rematch row");
    assert_eq!(row.status, flagfall_protocol::RematchStatus::Accepted);
    assert_eq!(row.offered_by, flagfall_protocol::ColorName::White);
    assert_eq!(row.new_game.as_deref(), Some(new_id.as_str()));
    let new_row = store
        .game(&new_id)
        .await
        .unwrap()
        .expect("the new game's row");
    assert_eq!(
        new_row.game.token_white,
        flagfall_server::token_hash(&bob_token)
    );
    assert_eq!(new_row.game.token_black, row.offer_token_hash);
    drop(store);

    // After a second restart White, who never saw the acceptance, finds her link.
    let srv = Server::start_on(db).await;
    let w = srv.get_json(&seen_by(&g.tokens.white)).await;
    assert_eq!(w["status"], "accepted", "{w}");
    assert_eq!(w["game"]["id"], new_id.as_str());
    assert_eq!(w["game"]["color"], "black");
    let ann_token = token_of(w["game"]["url"].as_str().unwrap());
    assert_eq!(
        flagfall_server::token_hash(&ann_token),
        row.offer_token_hash
    );
    assert_ne!(ann_token, bob_token);
    // Accepting again, or offering, changes nothing.
    let (_, again) = rematch(&srv, &g.id, &g.tokens.white, "offer").await;
    assert_eq!(again["game"]["id"], new_id.as_str());
    let (status, _) = rematch(&srv, &g.id, &g.tokens.black, "decline").await;
    assert_eq!(status, 200, "an accepted rematch answers as it stands");
    let s = srv.state(&new_id).await;
    assert_eq!(s["setup"]["white"], "Bob");
    assert_eq!(s["setup"]["black"], "Ann");
    // Each link plays the colour it names.
    let mut bob = srv.connect(&new_id, Some(&bob_token)).await;
    assert_eq!(bob.initial["role"], "white");
    let ann = srv.connect(&new_id, Some(&ann_token)).await;
    assert_eq!(ann.initial["role"], "black");
    bob.send(json!({"move":"d2d4","press":true})).await;
    bob.event().await;
    let s = srv.state(&new_id).await;
    assert_eq!(s["moves"][0]["uci"], "d2d4", "{s}");
    srv.stop().await;
}

/// A declined offer stays declined over a restart: the offerer reads the decline, and
/// the decliner's answer cannot be given twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_offer_is_still_declined_after_a_restart() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"fide-b3","time_control":"3+2","mode":"online"}"#)
        .await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    black.send(json!({"resign":true})).await;
    black.event().await;
    drop(black);
    let (status, _) = rematch(&srv, &g.id, &g.tokens.black, "offer").await;
    assert_eq!(status, 200);
    let (status, v) = rematch(&srv, &g.id, &g.tokens.white, "decline").await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "declined");
    let srv = Server::start_on(srv.stop_keeping_db().await).await;
    let seen = srv
        .get_json(&format!(
            "/api/games/{}/rematch?token={}",
            g.id, g.tokens.black
        ))
        .await;
    assert_eq!(seen["status"], "declined", "{seen}");
    assert_eq!(seen["by"], "black", "{seen}");
    let (status, v) = rematch(&srv, &g.id, &g.tokens.white, "decline").await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("no rematch offer"),
        "{v}"
    );
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_state_says_what_each_role_may_do() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let a = &white.initial["actions"];
    assert_eq!(a["white"]["move"], true);
    assert_eq!(a["white"]["take_back"], false);
    // The director's offences are the director's: not in a player's state.
    assert!(a["director"].get("offences").is_none(), "{a}");
    let d = srv.connect(&g.id, Some(&g.tokens.director)).await;
    let offences = &d.initial["actions"]["director"]["offences"];
    assert_eq!(offences.as_array().unwrap().len(), 5);
    // A legal move on the board: press, but no take back (uscf-2020 15).
    white.send(json!({"move":"e2e4"})).await;
    let ev = white.event().await;
    let a = &ev["update"]["actions"];
    assert_eq!(a["white"]["press"], true);
    assert_eq!(a["white"]["take_back"], false);
    // The offences are as in the state on connect: the event leaves them out.
    assert!(a["director"].get("offences").is_none(), "{ev}");
    white.send(json!({"press":true})).await;
    white.event().await;
    // After an offence the director's next penalty counts it.
    let mut director = srv.connect(&g.id, Some(&g.tokens.director)).await;
    director
        .send(json!({"offence":{"player":"black","kind":"two_hands"}}))
        .await;
    let ev = director.event().await;
    let two = ev["update"]["actions"]["director"]["offences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "two_hands")
        .unwrap()
        .clone();
    assert_eq!(two["black"]["recorded"], 1);
    assert_eq!(two["white"]["recorded"], 0);
    assert_eq!(two["black"]["rule"], "uscf-2020 4");
    // Online: nobody is offered a press.
    let o = srv
        .create(r#"{"rules":"fide-b3","time_control":"3+2","mode":"online"}"#)
        .await;
    let s = srv.state(&o.id).await;
    for c in ["white", "black"] {
        assert_eq!(s["actions"][c]["press"], false);
        assert_eq!(s["actions"][c]["take_back"], false);
        assert_eq!(s["actions"][c]["move_and_press"], false);
    }
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rulesets_route_lists_every_ruleset_and_the_quick_buttons() {
    let srv = Server::start().await;
    let v = srv.get_json("/api/rulesets").await;
    let ids: Vec<&str> = v["rulesets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    for id in [
        "uscf-2020",
        "fide-b3",
        "blitz-2006",
        "uscf-classic",
        "club-ilc",
    ] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    // Every listed control creates a game under its ruleset.
    for r in v["rulesets"].as_array().unwrap() {
        for tc in r["controls"].as_array().unwrap() {
            let body = json!({"rules": r["id"], "time_control": tc}).to_string();
            let (status, text) = srv.post("/api/games", &body).await;
            assert_eq!(status, 201, "{body}: {text}");
        }
    }
    assert_eq!(v["quick"][0]["time_control"], "1+0");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_practice_computer_accepts_a_rematch_and_plays_the_other_colour() {
    let srv = Server::start().await;
    let body = json!({
        "setup": {"rules": "uscf-2020", "time_control": "G/5;d0", "black": "Computer"},
        "computer": {"color": "black", "level": 1, "training": false, "seed": 7},
    });
    let (status, text) = srv.post("/api/practice", &body.to_string()).await;
    assert_eq!(status, 201, "{text}");
    let g: Value = serde_json::from_str(&text).unwrap();
    let id = g["id"].as_str().unwrap().to_string();
    let token = g["tokens"]["white"].as_str().unwrap().to_string();
    let mut white = srv.connect(&id, Some(&token)).await;
    white.send(json!({"resign":true})).await;
    white.event().await;
    // The computer accepts at once: the offer answers with the new game.
    let (status, v) = rematch(&srv, &id, &token, "offer").await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "accepted");
    assert_eq!(v["game"]["color"], "black");
    let new_id = v["game"]["id"].as_str().unwrap().to_string();
    let s = srv.state(&new_id).await;
    assert_eq!(s["setup"]["white"], "Computer");
    // The computer now plays White: it makes the first move by itself.
    let mut waited = 0;
    loop {
        let s = srv.state(&new_id).await;
        if s["moves"].as_array().is_some_and(|m| !m.is_empty()) {
            assert_eq!(s["moves"][0]["by"], "white");
            break;
        }
        waited += 1;
        assert!(waited < 200, "the computer never moved as White: {s}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    srv.stop().await;
}

/// A finished game's rematch, offered by White and accepted by Black: the new game's id.
async fn finished_and_rematched(srv: &Server, setup: &str) -> (flagfall_protocol::Created, String) {
    let g = srv.create(setup).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    white.send(json!({"resign":true})).await;
    white.event().await;
    let (status, v) = rematch(srv, &g.id, &g.tokens.white, "offer").await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = rematch(srv, &g.id, &g.tokens.black, "accept").await;
    assert_eq!(status, 200, "{v}");
    let new_id = v["game"]["id"].as_str().expect("the new game").to_string();
    (g, new_id)
}

/// Issue 30 (5): a rematch of a directed game keeps its director. The director's token
/// of the finished game shows the director the new game's console link, and directs the
/// new game: a player's call for the director there is answered (the clock runs again),
/// never left to freeze the clocks for good. The director still cannot offer or accept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_of_a_directed_game_is_directed_with_the_same_token() {
    let srv = Server::start().await;
    let (g, new_id) = finished_and_rematched(
        &srv,
        r#"{"rules":"uscf-2020","time_control":"G/5;d0","white":"Ann","black":"Bob"}"#,
    )
    .await;
    let d = srv
        .get_json(&format!(
            "/api/games/{}/rematch?token={}",
            g.id, g.tokens.director
        ))
        .await;
    assert_eq!(d["status"], "accepted", "{d}");
    assert_eq!(d["game"]["id"], new_id, "{d}");
    assert_eq!(d["game"]["color"], Value::Null, "{d}");
    assert_eq!(
        d["game"]["url"],
        format!("/direct/{new_id}?token={}", g.tokens.director),
        "{d}"
    );
    let (status, v) = rematch(&srv, &g.id, &g.tokens.director, "accept").await;
    assert_eq!(status, 403, "the director answers no rematch: {v}");
    // The players' links to the new game.
    let token_of = |v: &Value| {
        v["game"]["url"]
            .as_str()
            .unwrap()
            .split("token=")
            .nth(1)
            .unwrap()
            .to_string()
    };
    let path = |token: &str| format!("/api/games/{}/rematch?token={token}", g.id);
    let bob_token = token_of(&srv.get_json(&path(&g.tokens.black)).await);
    let ann_token = token_of(&srv.get_json(&path(&g.tokens.white)).await);
    let mut bob = srv.connect(&new_id, Some(&bob_token)).await;
    let mut ann = srv.connect(&new_id, Some(&ann_token)).await;
    let mut director = srv.connect(&new_id, Some(&g.tokens.director)).await;
    assert_eq!(director.initial["role"], "director");
    assert_eq!(ann.initial["actions"]["black"]["call_director"], true);
    bob.send(json!({"move":"d2d4","press":true})).await;
    bob.event().await;
    ann.send(json!({"call_director":true,"reason":"he is talking"}))
        .await;
    let ev = ann.event().await;
    assert_eq!(ev["update"]["called"]["by"], "black", "{ev}");
    assert_eq!(ev["update"]["running"], Value::Null, "{ev}");
    let seen = director.until_n(2).await;
    assert_eq!(seen["update"]["called"]["by"], "black");
    // The director answers the call: the clock runs again.
    director.send(json!({"start_clock":true})).await;
    let ev = director.event().await;
    assert_eq!(ev["update"]["called"], Value::Null, "{ev}");
    assert_eq!(ev["update"]["running"], "black", "{ev}");
    ann.send(json!({"move":"d7d5","press":true})).await;
    assert_eq!(ann.event().await["update"]["running"], "white");
    srv.assert_replay_matches(&new_id).await;
    srv.stop().await;
}

/// Issue 30 (5): a game without a director has none in its rematch: its players are
/// not offered a call, a call is refused and the clock keeps running; the director's
/// token of the finished game (which nobody uses) directs nothing there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_of_an_undirected_game_offers_no_call() {
    let srv = Server::start().await;
    let (g, new_id) = finished_and_rematched(
        &srv,
        r#"{"rules":"uscf-2020","time_control":"G/5;d0","director":false}"#,
    )
    .await;
    let state = srv.state(&new_id).await;
    assert_eq!(state["setup"]["director"], false, "{state}");
    let link = srv
        .get_json(&format!(
            "/api/games/{}/rematch?token={}",
            g.id, g.tokens.black
        ))
        .await;
    let token = link["game"]["url"]
        .as_str()
        .unwrap()
        .split("token=")
        .nth(1)
        .unwrap()
        .to_string();
    let mut white = srv.connect(&new_id, Some(&token)).await;
    assert_eq!(white.initial["actions"]["white"]["call_director"], false);
    white.send(json!({"move":"e2e4","press":true})).await;
    white.event().await;
    white.send(json!({"call_director":true,"id":"c"})).await;
    let r = white.until_type("refused").await;
    assert_eq!(r["id"], "c", "{r}");
    assert_eq!(srv.state(&new_id).await["running"], "black");
    assert_eq!(
        srv.ws_status(&new_id, Some(&g.tokens.director)).await,
        403,
        "the finished game's director token directs nothing in an undirected rematch"
    );
    srv.stop().await;
}
