//! What a player reads and does from a phone or a game page (issue 31): moves typed as
//! players write them (`{"san": "Nf3"}`), read by the server against the position; an
//! evening's game naming its evening, round and board, with no rematch; a bye asked for a
//! later round from the player's own link and seen in `/me`.

use serde_json::{Value, json};

use crate::evening::{Evening, expect};
use crate::support::*;

/// A typed SAN move and the answer to it: the event it made, or the refusal's reason.
async fn typed(c: &mut Client, san: &str, press: bool) -> Result<Value, String> {
    let v = if press {
        json!({"san": san, "press": true})
    } else {
        json!({"san": san})
    };
    c.send(v).await;
    let id = Value::from(c.last_id.clone().unwrap());
    let m = c.until(|m| m["id"] == id).await;
    match m["type"].as_str() {
        Some("event") => Ok(m),
        Some("refused") => Err(m["reason"].as_str().unwrap().to_string()),
        _ => panic!("neither an event nor a refusal: {m}"),
    }
}

/// One move typed by `mover` and pressed, over the board: the squares stored.
async fn play(mover: &mut Client, other: &mut Client, san: &str) -> String {
    let m = typed(mover, san, false)
        .await
        .unwrap_or_else(|e| panic!("{san} refused: {e}"));
    let stored = m["event"]["move"].as_str().unwrap().to_string();
    let n = m["n"].as_u64().unwrap();
    other.until_n(n).await;
    mover.send(json!({"press": true})).await;
    mover.event().await;
    other.until_n(n + 1).await;
    stored
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_typed_as_players_write_it_is_read_by_the_server() {
    let srv = Server::start().await;
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0","mode":"otb"}"#)
        .await;
    let mut w = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut b = srv.connect(&g.id, Some(&g.tokens.black)).await;

    // Black typing before White has moved: named whose move it is.
    let e = typed(&mut b, "e5", false).await.unwrap_err();
    assert!(e.contains("it is White's move"), "{e}");
    // A move that is not legal: refused in words, nothing stored, the clock not started.
    let e = typed(&mut w, "Nf4", false).await.unwrap_err();
    assert!(e.contains("\"Nf4\" is not a legal move for White"), "{e}");
    assert!(e.contains("squares"), "{e}");
    let st = srv.state(&g.id).await;
    assert_eq!(st["n"], 0, "{st}");
    assert_eq!(st["board_move"], Value::Null, "{st}");

    assert_eq!(play(&mut w, &mut b, "e4").await, "e2e4");
    // With a move on the board (not yet pressed), another typed move is refused.
    let m = typed(&mut b, "d5", false).await.unwrap();
    assert_eq!(m["event"]["move"], "d7d5", "{m}");
    let e = typed(&mut b, "Nf6", false).await.unwrap_err();
    assert!(e.contains("your move is already on the board"), "{e}");
    b.send(json!({"press": true})).await;
    b.event().await;

    assert_eq!(play(&mut w, &mut b, "exd5").await, "e4d5");
    assert_eq!(play(&mut b, &mut w, "Nf6").await, "g8f6");
    assert_eq!(play(&mut w, &mut b, "Nf3").await, "g1f3");
    assert_eq!(play(&mut b, &mut w, "Nxd5").await, "f6d5");
    assert_eq!(play(&mut w, &mut b, "d3").await, "d2d3");
    assert_eq!(play(&mut b, &mut w, "e6").await, "e7e6");
    // Two knights reach d2: the refusal names both.
    let e = typed(&mut w, "Nd2", false).await.unwrap_err();
    assert!(e.contains("fits 2 moves (Nbd2, Nfd2)"), "{e}");
    // Written out in full, it is the one move.
    let m = typed(&mut w, "Ng1d2", false).await.unwrap_err();
    assert!(m.contains("not a legal move"), "{m}");
    assert_eq!(play(&mut w, &mut b, "Be2").await, "f1e2");
    assert_eq!(play(&mut b, &mut w, "Be7").await, "f8e7");
    // Castling as players write it, with zeros or letters; a check mark is ignored.
    assert_eq!(play(&mut w, &mut b, "0-0").await, "e1g1");
    assert_eq!(play(&mut b, &mut w, "O-O").await, "e8g8");
    // With its square of departure, the knight is named.
    assert_eq!(play(&mut w, &mut b, "Nb1d2").await, "b1d2");

    // Frames that are not a typed move: the field named.
    w.send(json!({"san": 5})).await;
    let m = w.until_type("error").await;
    assert!(
        m["message"].as_str().unwrap().contains("field `san`"),
        "{m}"
    );
    w.send(json!({"san": "Nc3", "move": "b1c3"})).await;
    let m = w.until_type("error").await;
    assert!(
        m["message"]
            .as_str()
            .unwrap()
            .contains("goes with `press` only"),
        "{m}"
    );
    // Squares still make any move over the board, legal or not (a bishop as a knight).
    b.send(json!({"move": "e7g6"})).await;
    let m = b.event().await;
    assert_eq!(m["event"]["move"], "e7g6", "{m}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promotion_typed_online_presses_with_the_move() {
    let srv = Server::start().await;
    let g = srv
        .create(
            r#"{"rules":"uscf-2020","time_control":"G/5;d0","mode":"online","fen":"8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"}"#,
        )
        .await;
    let mut w = srv.connect(&g.id, Some(&g.tokens.white)).await;
    // The piece is needed.
    let e = typed(&mut w, "e8", true).await.unwrap_err();
    assert!(e.contains("promotes a pawn: name the piece"), "{e}");
    let m = typed(&mut w, "e8=Q", true).await.unwrap();
    assert_eq!(m["event"]["move"], "e7e8q", "{m}");
    assert_eq!(m["event"]["press"], true, "{m}");
}

/// Two players of an evening on the server's boards: the evening, their tokens by name.
async fn evening_of_two(addr: std::net::SocketAddr, format: &str) -> (Evening, Value) {
    let ev = Evening::create(
        addr,
        json!({"name":"Club night","format":format,"rounds":3,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","mode":"otb","check_in":false}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bo","rating":1900}]}),
            201,
        )
        .await;
    (ev, added)
}

fn token_of(added: &Value, name: &str) -> String {
    added["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evenings_game_names_its_evening_and_offers_no_rematch() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let (ev, added) = evening_of_two(addr, "double-swiss").await;
    let round = ev.director("POST", "/rounds", Value::Null, 201).await;
    let board = &round["boards"][0];
    let games: Vec<String> = board["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap().to_string())
        .collect();
    assert_eq!(games.len(), 2, "{round}");

    // Each game's state names its evening, round, board and place on the board.
    for (i, id) in games.iter().enumerate() {
        let st = srv.state(id).await;
        let e = &st["evening"];
        assert_eq!(e["id"], ev.id.as_str(), "{st}");
        assert_eq!(e["name"], "Club night", "{st}");
        assert_eq!(e["round"], 1, "{st}");
        assert_eq!(e["board"], 1, "{st}");
        assert_eq!(e["game"], i as u64 + 1, "{st}");
        assert_eq!(e["games"][1]["id"], games[1].as_str(), "{st}");
        assert_eq!(e["games"][1]["url"], format!("/play/{}", games[1]), "{st}");
    }
    // A game of no evening has none.
    let lone = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
        .await;
    assert!(srv.state(&lone.id).await.get("evening").is_none());

    // Game 1 ends (White resigns): no rematch is offered for an evening's game.
    let white = board["white"]["name"].as_str().unwrap();
    let wt = token_of(&added, white);
    let mut w = srv.connect(&games[0], Some(&wt)).await;
    w.send(json!({"resign": true})).await;
    w.event().await;
    let body = json!({"token": wt, "action": "offer"}).to_string();
    let v = expect(
        addr,
        "POST",
        &format!("/api/games/{}/rematch", games[0]),
        None,
        &body,
        409,
    )
    .await;
    assert!(
        v.to_string()
            .contains("a game of an evening has no rematch"),
        "{v}"
    );
    // The player's page has game 1's result as soon as the evening takes it.
    let me = loop {
        let me = expect(addr, "GET", &ev.path("/me"), Some(&wt), "", 200).await;
        if me["results"][0] != Value::Null {
            break me;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(me["results"], json!(["0-1", null]), "{me}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_books_a_bye_for_a_later_round_and_sees_it() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let (ev, added) = evening_of_two(addr, "double-swiss").await;
    let summary = ev.get("").await;
    assert_eq!(
        summary["bye_kinds"],
        json!(["half", "zero", "full"]),
        "{summary}"
    );
    let ann = token_of(&added, "Ann");
    let n = added["players"][0]["number"].as_u64().unwrap();
    ev.director("POST", "/rounds", Value::Null, 201).await;
    // Round 3, asked from Ann's own link while round 1 is played.
    let path = ev.path(&format!("/players/{n}/bye"));
    expect(
        addr,
        "POST",
        &path,
        Some(&ann),
        r#"{"round":3,"kind":"half"}"#,
        200,
    )
    .await;
    let me = expect(addr, "GET", &ev.path("/me"), Some(&ann), "", 200).await;
    assert_eq!(me["byes"], json!({"3": "half"}), "{me}");
    // A round already paired is refused, in words; nothing changes.
    let (status, text) = crate::evening::call(
        addr,
        "POST",
        &path,
        Some(&ann),
        r#"{"round":1,"kind":"zero"}"#,
    )
    .await;
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("rounds 2 to"), "{text}");
    // Cancelled from the same link.
    let cancel = ev.path(&format!("/players/{n}/cancel-bye"));
    expect(addr, "POST", &cancel, Some(&ann), r#"{"round":3}"#, 200).await;
    let me = expect(addr, "GET", &ev.path("/me"), Some(&ann), "", 200).await;
    assert_eq!(me["byes"], json!({}), "{me}");

    // A round robin allows none, and says so in its summary.
    let (rr, _) = evening_of_two(addr, "round-robin").await;
    assert!(rr.get("").await.get("bye_kinds").is_none());
}
