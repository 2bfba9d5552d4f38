//! Issue 31, items 2 and 4, through the real server: a correction of an earlier round
//! said before it is made (`?dry_run=1`: which round is paired again and which boards
//! change, nothing stored), and the preview equal to what the change then does, the live
//! socket bringing the new pairing; the players who played the round before and are not
//! paired named, and brought back into the latest round in one change.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::evening::{Evening, call, expect, next_json};
use crate::support::*;

/// A round's boards as (White, Black) numbers.
fn pairs(round: &Value) -> Vec<(u64, u64)> {
    round["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["white"]["number"].as_u64().unwrap(),
                b["black"]["number"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The boards of `after` whose players differ from `before`'s, counted here from the
/// rounds as the server lists them.
fn differing(before: &Value, after: &Value) -> Vec<u64> {
    let (b, a) = (pairs(before), pairs(after));
    (0..b.len().max(a.len()))
        .filter(|&i| b.get(i) != a.get(i))
        .map(|i| i as u64 + 1)
        .collect()
}

/// A Swiss of 8 on boards, everyone checked in, rounds 1 and 2 played with a fixed
/// spread of results, round 3 paired and not begun.
async fn three_rounds(
    addr: std::net::SocketAddr,
    play: &str,
) -> (Evening, HashMap<String, String>) {
    let ev = Evening::create(
        addr,
        json!({"name":"Corrections","format":"swiss","rounds":5,"time_control":"G/5;d0",
               "rules":"fide-b3","play":play,"mode":"online"}),
    )
    .await;
    let names = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"];
    let players: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n, "rating": 2000 - 50 * i as u32}))
        .collect();
    let added = ev
        .director(
            "POST",
            "/players?check_in=true",
            json!({ "players": players }),
            201,
        )
        .await;
    let tokens = added["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["token"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for r in 1..=2u32 {
        let round = ev.director("POST", "/rounds", Value::Null, 201).await;
        for (i, _) in pairs(&round).iter().enumerate() {
            let result = ["1-0", "0-1", "1/2", "1-0"][(i + r as usize) % 4];
            ev.director(
                "POST",
                &format!("/rounds/{r}/boards/{}/result", i + 1),
                json!({ "result": result }),
                200,
            )
            .await;
        }
    }
    ev.director("POST", "/rounds", Value::Null, 201).await;
    (ev, tokens)
}

/// A correction of round 1 that pairs round 3 again: tried as dry runs (which change
/// nothing) until one does.
async fn repairing_correction(ev: &Evening) -> (u32, &'static str, Value) {
    for board in 1..=4u32 {
        for result in ["0-1", "1-0", "1/2", "--", "+-"] {
            let (status, text) = call(
                ev.addr,
                "POST",
                &ev.path(&format!("/rounds/1/boards/{board}/result?dry_run=1")),
                Some(&ev.director),
                &json!({ "result": result }).to_string(),
            )
            .await;
            assert_eq!(status, 200, "{text}");
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["repaired"].as_array().is_some_and(|r| !r.is_empty()) {
                return (board, result, v);
            }
        }
    }
    panic!("no correction of round 1 pairs round 3 again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correction_is_previewed_the_preview_changes_nothing_and_the_change_does_what_it_said() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let (ev, tokens) = three_rounds(addr, "board").await;
    let round3 = ev.get("/rounds/3").await;
    let state = ev.state().await;
    let log = ev.director("GET", "/log", Value::Null, 200).await;
    let seq = ev.get("").await["seq"].clone();

    let (board, result, preview) = repairing_correction(&ev).await;
    // Nothing stored by any of the dry runs: the evening, its log, its round 3, its seq.
    assert_eq!(ev.state().await, state);
    assert_eq!(ev.director("GET", "/log", Value::Null, 200).await, log);
    assert_eq!(ev.get("/rounds/3").await, round3);
    assert_eq!(ev.get("").await["seq"], seq);
    assert_eq!(preview["seq"], seq, "{preview}");
    // The preview names round 3, its boards as they are, as they would be, and which change.
    let rep = &preview["repaired"][0];
    assert_eq!(rep["round"], 3, "{preview}");
    assert_eq!(pairs(&rep["before"]), pairs(&round3));
    let said: Vec<u64> = rep["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect();
    assert!(!said.is_empty(), "{preview}");
    assert_eq!(said, differing(&round3, &rep["after"]), "{preview}");
    assert!(
        preview["effects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["effect"] == "repaired" && e["round"] == 3),
        "{preview}"
    );
    assert_eq!(preview["kept"], json!([]));

    // A player's phone and the projector read the live socket.
    let (mut live, _) =
        tokio_tungstenite::connect_async(format!("ws://{addr}/ws/events/{}", ev.id))
            .await
            .unwrap();
    assert_eq!(next_json(&mut live).await["type"], "state");
    // The correction itself does what the preview said.
    let done = ev
        .director(
            "POST",
            &format!("/rounds/1/boards/{board}/result"),
            json!({ "result": result }),
            200,
        )
        .await;
    assert!(
        done["effects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["effect"] == "repaired" && e["round"] == 3),
        "{done}"
    );
    let now = ev.get("/rounds/3").await;
    assert_eq!(
        pairs(&now),
        pairs(&rep["after"]),
        "the preview's boards are the round's"
    );
    assert_eq!(differing(&round3, &now), said);
    assert_eq!(now["bye"], rep["after"]["bye"]);
    // The live socket brings the new round 3 (what the projector and the phones show).
    let change = next_json(&mut live).await;
    assert_eq!(change["type"], "change", "{change}");
    assert_eq!(change["round"]["round"], 3, "{change}");
    assert_eq!(pairs(&change["round"]), pairs(&now), "{change}");
    // A player's own view names the new board.
    let moved = said[0];
    let b = &now["boards"][moved as usize - 1];
    let name = b["white"]["name"].as_str().unwrap();
    let me = expect(addr, "GET", &ev.path("/me"), Some(&tokens[name]), "", 200).await;
    assert_eq!(me["round"], 3);
    assert_eq!(me["board"], moved);

    // Once a result of round 3 is in, a correction keeps round 3: the preview says so.
    ev.director(
        "POST",
        "/rounds/3/boards/1/result",
        json!({"result":"1-0"}),
        200,
    )
    .await;
    let before = ev.get("/rounds/3").await;
    let kept = ev
        .director(
            "POST",
            "/rounds/2/boards/1/result?dry_run=1",
            json!({"result":"--"}),
            200,
        )
        .await;
    assert_eq!(kept["repaired"], json!([]), "{kept}");
    assert_eq!(kept["kept"][0]["round"], 3, "{kept}");
    assert!(
        kept["kept"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("round 3 has begun"),
        "{kept}"
    );
    assert_eq!(ev.get("/rounds/3").await, before);

    // Bad input changes nothing and says what is wrong.
    let state = ev.state().await;
    let (status, text) = call(
        addr,
        "POST",
        &ev.path("/rounds/1/boards/1/result?dry_run=maybe"),
        Some(&ev.director),
        r#"{"result":"1-0"}"#,
    )
    .await;
    assert_eq!(status, 400, "{text}");
    let said: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        said["error"], "dry_run=\"maybe\": expected 1, true, 0 or false",
        "{text}"
    );
    let (status, text) = call(
        addr,
        "POST",
        &ev.path("/rounds/1/boards/9/result?dry_run=1"),
        Some(&ev.director),
        r#"{"result":"1-0"}"#,
    )
    .await;
    assert_eq!(status, 404, "{text}");
    assert!(text.contains("board 9"), "{text}");
    let (status, text) = call(
        addr,
        "POST",
        &ev.path("/rounds/1/boards/1/result?dry_run=1"),
        Some(&ev.director),
        r#"{"result":"2-0"}"#,
    )
    .await;
    assert_eq!(status, 400, "{text}");
    // A player's token has no dry run (and no correction).
    let (status, _) = call(
        addr,
        "POST",
        &ev.path("/rounds/3/boards/2/result?dry_run=1"),
        Some(&tokens["Ann"]),
        r#"{"result":"1-0"}"#,
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(ev.state().await, state);
    srv.stop().await;
}

/// On the server's boards, a game of round 3 begun (a move played; the evening does not
/// know it yet) keeps round 3: the preview asks the games, as the change does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preview_knows_a_server_game_has_begun() {
    let srv = Server::start().await;
    let (ev, tokens) = three_rounds(srv.addr, "server").await;
    let round3 = ev.get("/rounds/3").await;
    let (board, result, preview) = repairing_correction(&ev).await;
    assert_eq!(preview["repaired"][0]["round"], 3);
    // White of board 1 of round 3 moves.
    let b = &round3["boards"][0];
    let game = b["game"].as_str().unwrap();
    let white = b["white"]["name"].as_str().unwrap();
    let mut c = srv.connect(game, Some(&tokens[white])).await;
    c.send(json!({"move":"e2e4","press":true})).await;
    c.event().await;
    let path = format!("/rounds/1/boards/{board}/result");
    let preview = ev
        .director(
            "POST",
            &format!("{path}?dry_run=1"),
            json!({ "result": result }),
            200,
        )
        .await;
    assert_eq!(preview["repaired"], json!([]), "{preview}");
    assert!(
        preview["kept"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("has begun"),
        "{preview}"
    );
    // The game still plays (the preview held nothing): Black answers.
    let black = b["black"]["name"].as_str().unwrap();
    let mut d = srv.connect(game, Some(&tokens[black])).await;
    d.send(json!({"move":"e7e5","press":true})).await;
    assert_eq!(d.event().await["type"], "event");
    // The change does what the preview said: round 3 stays as it was.
    let done = ev
        .director("POST", &path, json!({ "result": result }), 200)
        .await;
    assert!(
        done["effects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["effect"] == "pairing-kept" && e["round"] == 3),
        "{done}"
    );
    assert_eq!(pairs(&ev.get("/rounds/3").await), pairs(&round3));
    srv.stop().await;
}

/// A player checks out after round 1; round 2 is paired without her: the director's
/// round names her and why (the public's does not), and bringing her back pairs round 2
/// again with her, in one change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_left_is_named_and_brought_back_into_the_round() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Absences","format":"swiss","rounds":4,"time_control":"G/5;d0",
               "rules":"fide-b3","play":"board"}),
    )
    .await;
    let players: Vec<Value> = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay"]
        .iter()
        .map(|n| json!({ "name": n }))
        .collect();
    let added = ev
        .director(
            "POST",
            "/players?check_in=true",
            json!({ "players": players }),
            201,
        )
        .await;
    let token = |name: &str| {
        added["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let number = |name: &str| {
        added["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()["number"]
            .as_u64()
            .unwrap()
    };
    ev.director("POST", "/rounds", Value::Null, 201).await;
    for b in 1..=3 {
        ev.director(
            "POST",
            &format!("/rounds/1/boards/{b}/result"),
            json!({"result":"1/2"}),
            200,
        )
        .await;
    }
    // Di checks out from her phone; Fay is withdrawn by the director.
    let di = number("Di");
    let fay = number("Fay");
    expect(
        addr,
        "POST",
        &ev.path(&format!("/players/{di}/check-out")),
        Some(&token("Di")),
        "",
        200,
    )
    .await;
    ev.director(
        "POST",
        &format!("/players/{fay}/withdraw"),
        Value::Null,
        200,
    )
    .await;
    let round2 = ev.director("POST", "/rounds", Value::Null, 201).await;
    assert_eq!(round2["boards"].as_array().unwrap().len(), 2, "{round2}");
    assert_eq!(
        round2["left"],
        json!([
            {"name":"Di","number":di,"why":"not_checked_in"},
            {"name":"Fay","number":fay,"why":"withdrawn"},
        ]),
        "{round2}"
    );
    // The public round does not carry it.
    assert!(ev.get("/rounds/2").await.get("left").is_none());
    // Round 1 had nobody before it.
    assert!(
        ev.director("GET", "/rounds/1", Value::Null, 200)
            .await
            .get("left")
            .is_none()
    );

    // A name that is not a player: refused, nothing changed.
    let state = ev.state().await;
    let refused = ev
        .director("POST", "/rounds/2/pair-again", json!({"players":[99]}), 404)
        .await;
    assert!(
        refused["error"].as_str().unwrap().contains("99"),
        "{refused}"
    );
    let refused = ev
        .director("POST", "/rounds/1/pair-again", json!({"players":[di]}), 409)
        .await;
    assert!(
        refused["error"].as_str().unwrap().contains("latest"),
        "{refused}"
    );
    ev.director("POST", "/rounds/2/pair-again", json!({"who":[di]}), 400)
        .await;
    assert_eq!(ev.state().await, state);

    // Di brought back: checked in, round 2 paired again with her; Fay stays out.
    let done = ev
        .director("POST", "/rounds/2/pair-again", json!({"players":[di]}), 200)
        .await;
    let kinds: Vec<&str> = done["effects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["effect"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"round-deleted") && kinds.contains(&"round-paired"),
        "{done}"
    );
    let round2 = ev.director("GET", "/rounds/2", Value::Null, 200).await;
    assert!(
        pairs(&round2).iter().any(|&(w, b)| w == di || b == di),
        "{round2}"
    );
    assert_eq!(
        round2["left"],
        json!([{"name":"Fay","number":fay,"why":"withdrawn"}])
    );
    let me = expect(addr, "GET", &ev.path("/me"), Some(&token("Di")), "", 200).await;
    assert_eq!(me["checked_in"], true);
    assert!(me["board"].as_u64().is_some(), "{me}");
    // The log says who did it, in one entry per change.
    let log = ev.director("GET", "/log", Value::Null, 200).await;
    let changes: Vec<&str> = log["log"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .take(3)
        .map(|l| l["change"]["change"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["pair-next", "delete-round", "check-in"]);

    // Once a result of round 2 is in, it cannot be paired again: refused, Fay stays out.
    ev.director(
        "POST",
        "/rounds/2/boards/1/result",
        json!({"result":"1-0"}),
        200,
    )
    .await;
    let state = ev.state().await;
    let refused = ev
        .director(
            "POST",
            "/rounds/2/pair-again",
            json!({"players":[fay]}),
            409,
        )
        .await;
    assert!(!refused["error"].as_str().unwrap().is_empty());
    assert_eq!(ev.state().await, state);
    srv.stop().await;
}

/// A Double Swiss board is two games: its correction is previewed with both results, and
/// the preview is what the change then does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_game_board_is_previewed_with_both_results() {
    let srv = Server::start().await;
    let ev = Evening::create(
        srv.addr,
        json!({"name":"Double","format":"double-swiss","rounds":4,"time_control":"G/3;d2",
               "rules":"uscf-2020","play":"board"}),
    )
    .await;
    let players: Vec<Value> = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n, "rating": 1900 - 30 * i as u32}))
        .collect();
    ev.director(
        "POST",
        "/players?check_in=true",
        json!({ "players": players }),
        201,
    )
    .await;
    for r in 1..=2u32 {
        let round = ev.director("POST", "/rounds", Value::Null, 201).await;
        for (i, _) in pairs(&round).iter().enumerate() {
            let results = [
                ["1-0", "1/2"],
                ["0-1", "0-1"],
                ["1/2", "1-0"],
                ["1-0", "1-0"],
            ][(i + r as usize) % 4];
            ev.director(
                "POST",
                &format!("/rounds/{r}/boards/{}/result", i + 1),
                json!({ "results": results }),
                200,
            )
            .await;
        }
    }
    ev.director("POST", "/rounds", Value::Null, 201).await;
    let round3 = ev.get("/rounds/3").await;
    let log = ev.director("GET", "/log", Value::Null, 200).await;
    let mut found = None;
    'search: for board in 1..=4u32 {
        for results in [["0-1", "0-1"], ["1-0", "1-0"], ["1/2", "1/2"]] {
            let p = ev
                .director(
                    "POST",
                    &format!("/rounds/1/boards/{board}/result?dry_run=1"),
                    json!({ "results": results }),
                    200,
                )
                .await;
            if p["repaired"].as_array().is_some_and(|r| !r.is_empty()) {
                found = Some((board, results, p));
                break 'search;
            }
        }
    }
    let (board, results, preview) =
        found.expect("a correction of round 1 that pairs round 3 again");
    assert_eq!(ev.director("GET", "/log", Value::Null, 200).await, log);
    assert_eq!(ev.get("/rounds/3").await, round3);
    // One result only, on a two-game board: refused, naming the count.
    let (status, text) = call(
        srv.addr,
        "POST",
        &ev.path(&format!("/rounds/1/boards/{board}/result?dry_run=1")),
        Some(&ev.director),
        r#"{"result":"1-0"}"#,
    )
    .await;
    assert_eq!(status, 400, "{text}");
    ev.director(
        "POST",
        &format!("/rounds/1/boards/{board}/result"),
        json!({ "results": results }),
        200,
    )
    .await;
    let now = ev.get("/rounds/3").await;
    let rep = &preview["repaired"][0];
    assert_eq!(pairs(&now), pairs(&rep["after"]));
    let said: Vec<u64> = rep["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect();
    assert_eq!(differing(&round3, &now), said);
    srv.stop().await;
}
