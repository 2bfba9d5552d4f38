//! Issue 33: the evening's answers and live messages are the protocol's types
//! (`flagfall_protocol::evening`, whose TypeScript the pages read): each one a reader gets
//! reads as its type and writes back as the same JSON (no field the type lacks, none it
//! adds), and the fields some readers are not shown are absent for them.

use flagfall_protocol::evening::{
    ChangeAnswer, Crosstable, EveningLog, EveningSummary, LiveMessage, Me, PlayerLinks,
    PlayersAdded, ResultsAnswer, RoundView, Standings,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::evening::{Evening, expect, next_json};
use crate::support::*;

/// `v` read as `T` and written back: the same JSON.
fn typed<T: DeserializeOwned + Serialize>(v: &Value, what: &str) -> T {
    let t: T = serde_json::from_value(v.clone())
        .unwrap_or_else(|e| panic!("{what} does not read as its type: {e}\n{v}"));
    let back = serde_json::to_value(&t).expect("a wire type serialises");
    assert_eq!(&back, v, "{what} written back differs");
    t
}

#[tokio::test]
async fn evening_answers_and_live_messages_are_the_protocol_types() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Wire","format":"swiss","rounds":2,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board","confirm":"both","check_in":false}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900},
                              {"name":"Cy","rating":1800}]}),
            201,
        )
        .await;
    let added: PlayersAdded = typed(&added, "the players added");
    let token = |name: &str| {
        added
            .players
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.token.clone())
            .unwrap()
    };
    let url = |q: &str| format!("ws://{addr}/ws/events/{}{q}", ev.id);
    let (mut public_ws, _) = tokio_tungstenite::connect_async(url("")).await.unwrap();
    let (mut director_ws, _) =
        tokio_tungstenite::connect_async(url(&format!("?token={}", ev.director)))
            .await
            .unwrap();
    let state: LiveMessage = typed(&next_json(&mut public_ws).await, "the public's state");
    assert!(
        matches!(state, LiveMessage::State { round: None, .. }),
        "no round yet"
    );
    typed::<LiveMessage>(&next_json(&mut director_ws).await, "the director's state");

    // Round 1: three players, one bye; the board's players report different results.
    let r1: RoundView = typed(
        &ev.director("POST", "/rounds", Value::Null, 201).await,
        "the round paired",
    );
    assert_eq!(r1.bye.as_ref().map(Vec::len), Some(1), "{r1:?}");
    let board = &r1.boards[0];
    let (white, black) = (token(&board.white.name), token(&board.black.name));
    let path = ev.path("/rounds/1/boards/1/result");
    for (t, result) in [(&white, "1-0"), (&black, "0-1")] {
        let body = json!({ "result": result }).to_string();
        let a = expect(addr, "POST", &path, Some(t), &body, 200).await;
        typed::<ResultsAnswer>(&a, "a player's report");
    }
    for ws in [&mut public_ws, &mut director_ws] {
        // Paired, then the two reports.
        for _ in 0..3 {
            let m: LiveMessage = typed(&next_json(ws).await, "a change");
            assert!(matches!(m, LiveMessage::Change { .. }), "{m:?}");
        }
    }

    // The evening, the round and the player's view, as each reader reads them.
    let read = |tail: &str, t: Option<String>| {
        let path = ev.path(tail);
        async move { expect(addr, "GET", &path, t.as_deref(), "", 200).await }
    };
    let public = read("", None).await;
    let public: EveningSummary = typed(&public, "the evening as the public reads it");
    assert_eq!(
        public.disagreements, None,
        "the public reads no disagreement"
    );
    assert_eq!(public.disputes, None, "the public reads no dispute");
    let player = read("", Some(white.clone())).await;
    let player: EveningSummary = typed(&player, "the evening as a player reads it");
    assert_eq!(
        player.disagreements.as_ref().map(Vec::len),
        Some(1),
        "{player:?}"
    );
    assert_eq!(player.disputes, None, "a player reads no dispute");
    let director = read("", Some(ev.director.clone())).await;
    let director: EveningSummary = typed(&director, "the evening as the director reads it");
    assert_eq!(director.disagreements.as_ref().map(Vec::len), Some(1));
    assert_eq!(director.disputes, Some(vec![]));

    let round: RoundView = typed(&read("/rounds/1", None).await, "the round, public");
    assert_eq!(round.boards[0].reported, None, "the public reads no report");
    let round: RoundView = typed(&read("/rounds/1", Some(white.clone())).await, "the round");
    assert!(round.boards[0].reported.is_some(), "{round:?}");

    let me: Me = typed(&read("/me", Some(white.clone())).await, "a player's view");
    assert_eq!((me.in_event, me.board, me.round), (true, Some(1), Some(1)));
    assert!(me.reported.is_some(), "{me:?}");

    // The director settles the board; the standings and the crosstable count it.
    let a = ev
        .director(
            "POST",
            "/rounds/1/boards/1/result",
            json!({"result":"1/2"}),
            200,
        )
        .await;
    typed::<ResultsAnswer>(&a, "the director's result");
    let change: LiveMessage = typed(&next_json(&mut director_ws).await, "the result's change");
    let LiveMessage::Change {
        disputes,
        standings,
        ..
    } = change
    else {
        panic!("a change after a result");
    };
    assert_eq!(
        disputes,
        Some(vec![]),
        "the director's socket has the disputes"
    );
    assert!(
        matches!(standings, Some(Some(_))),
        "the round complete: standings"
    );
    let change: LiveMessage = typed(&next_json(&mut public_ws).await, "the public's change");
    assert!(
        matches!(change, LiveMessage::Change { disputes: None, .. }),
        "{change:?}"
    );
    let st: Standings = typed(&read("/standings", None).await, "the standings");
    assert_eq!((st.after_round, st.rows.len()), (1, 3));
    typed::<Crosstable>(&read("/crosstable", None).await, "the crosstable");
    typed::<PlayerLinks>(
        &read("/links", Some(ev.director.clone())).await,
        "the players' links",
    );
    let log: EveningLog = typed(&read("/log", Some(ev.director.clone())).await, "the log");
    assert!(log.log.len() >= 3, "{log:?}");
    let a = ev
        .director(
            "POST",
            &format!("/players/{}/pause", r1.boards[0].white.number),
            Value::Null,
            200,
        )
        .await;
    typed::<ChangeAnswer>(&a, "a player action's answer");
    srv.stop().await;
}

/// The evening's routes take the evening and the token through their extractors, in this
/// order: an unknown evening is 404 before any token is read, then no token 401, a token
/// not the evening's 403, a player's token on a director's route 403; a player's action
/// is one the server knows (404 otherwise, after the token: a player is told it is the
/// director's), and a player may do their own check-in, check-out and byes only.
#[tokio::test]
async fn evening_routes_read_the_evening_then_the_token_then_the_action() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Order","format":"swiss","rounds":2,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board","confirm":"one","check_in":true}),
    )
    .await;
    let other = Evening::create(
        addr,
        json!({"name":"Other","format":"swiss","rounds":2,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board","confirm":"one"}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann"},{"name":"Bob"}]}),
            201,
        )
        .await;
    let added: PlayersAdded = typed(&added, "the players added");
    let (ann, bob) = (&added.players[0], &added.players[1]);
    let (ann_n, bob_n) = (ann.number.unwrap(), bob.number.unwrap());
    let error = |v: &Value| v["error"].as_str().unwrap_or_default().to_string();
    let before = ev.director("GET", "/log", Value::Null, 200).await;

    // No such evening: 404, whatever the token.
    for t in [None, Some(ev.director.as_str()), Some("nonsense")] {
        let v = expect(addr, "POST", "/api/events/nope/rounds", t, "", 404).await;
        assert!(error(&v).contains("no event \"nope\""), "{v}");
    }
    // No token, a token of another evening, a player's token on a director's route.
    let pair = ev.path("/rounds");
    let v = expect(addr, "POST", &pair, None, "", 401).await;
    assert!(error(&v).contains("Authorization: Bearer"), "{v}");
    let v = expect(addr, "POST", &pair, Some(&other.director), "", 403).await;
    assert!(error(&v).contains("not one of event"), "{v}");
    let v = expect(addr, "POST", &pair, Some(&ann.token), "", 403).await;
    assert!(error(&v).contains("only the event's director"), "{v}");
    let v = expect(addr, "GET", &ev.path("/log"), Some(&bob.token), "", 403).await;
    assert!(error(&v).contains("only the event's director"), "{v}");
    // A deputy's token is made by the director only: a player is told so.
    let v = expect(addr, "POST", &ev.path("/deputy"), Some(&ann.token), "", 403).await;
    assert!(
        error(&v).contains("only the director makes a deputy"),
        "{v}"
    );

    // The players' actions.
    let action = |n: u32, a: &str| ev.path(&format!("/players/{n}/{a}"));
    let v = expect(
        addr,
        "POST",
        &action(ann_n, "dance"),
        Some(&ev.director),
        "",
        404,
    )
    .await;
    assert!(
        error(&v).contains("no player action \"dance\" (check-in, check-out"),
        "{v}"
    );
    let v = expect(
        addr,
        "POST",
        &action(ann_n, "dance"),
        Some(&ann.token),
        "",
        403,
    )
    .await;
    assert!(error(&v).contains("only the director may dance"), "{v}");
    let v = expect(
        addr,
        "POST",
        &action(bob_n, "check-in"),
        Some(&ann.token),
        "",
        403,
    )
    .await;
    assert!(
        error(&v).contains("(or the player, with their own link)"),
        "{v}"
    );
    let v = expect(
        addr,
        "POST",
        &action(ann_n, "pause"),
        Some(&ann.token),
        "",
        403,
    )
    .await;
    assert!(error(&v).contains("only the director may pause"), "{v}");
    assert_eq!(
        ev.director("GET", "/log", Value::Null, 200).await,
        before,
        "nothing refused changed the evening"
    );
    // Her own check-in, then the director's pause of Bob.
    let a = expect(
        addr,
        "POST",
        &action(ann_n, "check-in"),
        Some(&ann.token),
        "",
        200,
    )
    .await;
    typed::<ChangeAnswer>(&a, "a player's own check-in");
    let a = expect(
        addr,
        "POST",
        &action(bob_n, "pause"),
        Some(&ev.director),
        "",
        200,
    )
    .await;
    typed::<ChangeAnswer>(&a, "the director's pause");
    let summary: EveningSummary = typed(&ev.get("").await, "the evening");
    let by_name = |name: &str| summary.players.iter().find(|p| p.name == name).unwrap();
    assert!(by_name("Ann").checked_in && !by_name("Ann").paused);
    assert!(by_name("Bob").paused && !by_name("Bob").checked_in);
    srv.stop().await;
}
