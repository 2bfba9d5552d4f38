//! Issue 31: a round's PGN as a Broadcast reads it, and the text an evening writes in
//! one way. Through the real server, as lichess's Broadcast (a public GET of
//! `export/pgn?round=N`, no token) and a director read it:
//!
//! - while a round is played on the server's boards, every game of the round with its
//!   moves so far, each move's `[%clk]`, result `*`; after the round, the results;
//! - the `Round` tag is one rule for every evening (`round.board`, `round.board.game` on
//!   a board of two games) with a `Board` tag, on paper and on the server;
//! - the US Chess notes header is ASCII with the names transliterated;
//! - a player's rank only once a round is complete.
//!
//! `FLAGFALL_PGN_OUT=DIR` writes each round PGN there (`broadcast-*.pgn`) with what an
//! ordinary reader must find in it (`NAME.expect.json`: every game's tags, moves and
//! clocks), for scripts/check_pgn_readers.py (python-chess), in CI.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::evening::{Evening, call, call_raw, expect};
use crate::support::*;

/// The games of a PGN text, each with its text.
fn games_of(pgn: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in pgn.lines() {
        if line.starts_with("[Event ") {
            out.push(String::new());
        }
        if let Some(g) = out.last_mut() {
            g.push_str(line);
            g.push('\n');
        }
    }
    out
}

/// The value of tag `t` of one game.
fn tag(game: &str, t: &str) -> String {
    let prefix = format!("[{t} \"");
    let line = game
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {t} tag: {game}"));
    line[prefix.len()..line.len() - 2].to_string()
}

/// The SAN moves of a game's movetext (comments left out), in order.
fn sans(game: &str) -> Vec<String> {
    let body: String = game
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut plain = String::new();
    let mut depth = 0;
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    plain
        .split_whitespace()
        .filter(|w| {
            !w.ends_with('.') && !["*", "1-0", "0-1", "1/2-1/2"].contains(w) && !w.contains("...")
        })
        .map(str::to_string)
        .collect()
}

/// The round's PGN as a Broadcast reads it: public, no token.
async fn round_pgn(ev: &Evening, r: u32) -> String {
    let (status, head, body) = call_raw(
        ev.addr,
        "GET",
        &ev.path(&format!("/export/pgn?round={r}")),
        None,
        "",
        b"",
    )
    .await;
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("application/x-chess-pgn"), "{head}");
    String::from_utf8(body).unwrap()
}

/// Writes a round's PGN and what python-chess must read in it to `FLAGFALL_PGN_OUT`.
fn write_out(name: &str, pgn: &str, expect: &[Value]) {
    if let Ok(dir) = std::env::var("FLAGFALL_PGN_OUT") {
        std::fs::write(format!("{dir}/{name}.pgn"), pgn).unwrap();
        std::fs::write(
            format!("{dir}/{name}.expect.json"),
            json!({ "games": expect }).to_string(),
        )
        .unwrap();
    }
}

/// Issue 31, Broadcast: a double Swiss on the server's boards. While round 1 is played
/// its PGN (the URL the console shows, `{}` = 1) holds all four games, the moves so far
/// with their clocks and `*`; the Round tags are `1.b.g` with a Board tag; after the
/// round, the results. A round not paired, a bad round and `?round` on another export are
/// refused with what is wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rounds_pgn_is_public_while_it_is_played_with_moves_and_clocks() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Broadcast blitz","format":"double-swiss","rounds":2,
               "time_control":"G/5;d0","rules":"uscf-2020","play":"server","mode":"otb",
               "check_in":false,"date":"2026-11-28"}),
    )
    .await;
    let names = ["Ann Archer", "Ben Brook", "Cleo Craig", "Dan Dale"];
    let players: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n, "rating": 2000 - 50 * i as u32}))
        .collect();
    let added = ev
        .director("POST", "/players", json!({ "players": players }), 201)
        .await;
    let tokens: HashMap<String, String> = added["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().into(),
                p["token"].as_str().unwrap().into(),
            )
        })
        .collect();
    // No round yet: refused, saying so.
    let (status, text) = call(addr, "GET", &ev.path("/export/pgn?round=1"), None, "").await;
    assert_eq!(status, 404, "{text}");
    assert!(text.contains("no round is paired yet"), "{text}");
    let round = ev.director("POST", "/rounds", Value::Null, 201).await;
    let boards = round["boards"].as_array().unwrap().clone();
    assert_eq!(boards.len(), 2);
    // Game 1 of each board: three moves played and pressed; game 2: none yet.
    let moves = ["e2e4", "e7e5", "g1f3"];
    let mut clients = Vec::new();
    for b in &boards {
        let games: Vec<String> = b["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap().to_string())
            .collect();
        assert_eq!(games.len(), 2, "{b}");
        let w = b["white"]["name"].as_str().unwrap().to_string();
        let bl = b["black"]["name"].as_str().unwrap().to_string();
        let mut white = srv.connect(&games[0], Some(&tokens[&w])).await;
        let mut black = srv.connect(&games[0], Some(&tokens[&bl])).await;
        for (i, mv) in moves.iter().enumerate() {
            let side = if i % 2 == 0 { &mut white } else { &mut black };
            side.send(json!({"move": mv, "press": true})).await;
            side.event().await;
            // A moment on the clock between moves.
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        clients.push((games, w, bl, white, black));
    }

    // While the round is played: every game, the moves so far with clocks, `*`.
    let during = round_pgn(&ev, 1).await;
    let games = games_of(&during);
    assert_eq!(games.len(), 4, "{during}");
    let mut expect_during = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let board = i / 2 + 1;
        let g = i % 2 + 1;
        assert_eq!(tag(game, "Round"), format!("1.{board}.{g}"), "{game}");
        assert_eq!(tag(game, "Board"), board.to_string(), "{game}");
        assert_eq!(tag(game, "Result"), "*", "{game}");
        assert_eq!(tag(game, "Event"), "Broadcast blitz");
        assert_eq!(tag(game, "Date"), "2026.11.28", "the evening's date");
        let (w, bl) = (&clients[board - 1].1, &clients[board - 1].2);
        let (white, black) = if g == 1 { (w, bl) } else { (bl, w) };
        assert_eq!(&tag(game, "White"), white, "{game}");
        assert_eq!(&tag(game, "Black"), black, "{game}");
        let want: Vec<&str> = if g == 1 {
            vec!["e4", "e5", "Nf3"]
        } else {
            vec![]
        };
        assert_eq!(sans(game), want, "{game}");
        assert_eq!(game.matches("[%clk ").count(), want.len(), "{game}");
        if g == 1 {
            // Five minutes less the moments between the moves: under 5:00, over 4:50.
            assert!(game.contains("[%clk 0:04:5"), "{game}");
        }
        expect_during.push(json!({"White": white, "Black": black, "Result": "*",
            "moves": want, "clocks": want.len(), "Round": format!("1.{board}.{g}")}));
    }
    write_out("broadcast-round1-during", &during, &expect_during);

    // The round is played out: game 1 resigned by Black, game 2 drawn by agreement.
    for (games, w, bl, _white, mut black) in clients {
        black.send(json!({"resign": true})).await;
        assert_eq!(black.event().await["result"], "1-0");
        // Game 2: the colours swapped.
        let mut w2 = srv.connect(&games[1], Some(&tokens[&bl])).await;
        let mut b2 = srv.connect(&games[1], Some(&tokens[&w])).await;
        w2.send(json!({"move":"d2d4","press":true})).await;
        w2.event().await;
        w2.send(json!({"offer":"draw"})).await;
        w2.event().await;
        b2.send(json!({"accept":"draw"})).await;
        assert_eq!(b2.event().await["result"], "1/2-1/2");
    }
    // The results reach the evening by themselves.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let r = ev.get("/rounds/1").await;
        if r["complete"] == true {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "round 1 complete: {r}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let after = round_pgn(&ev, 1).await;
    let games = games_of(&after);
    assert_eq!(games.len(), 4, "{after}");
    let mut expect_after = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let g = i % 2 + 1;
        let (result, want) = if g == 1 {
            ("1-0", vec!["e4", "e5", "Nf3"])
        } else {
            ("1/2-1/2", vec!["d4"])
        };
        assert_eq!(tag(game, "Result"), result, "{game}");
        assert_eq!(sans(game), want, "{game}");
        expect_after.push(
            json!({"White": tag(game, "White"), "Black": tag(game, "Black"),
            "Result": result, "moves": want, "clocks": want.len(), "Round": tag(game, "Round")}),
        );
    }
    write_out("broadcast-round1-after", &after, &expect_after);
    // The whole evening's PGN: the same Round rule.
    let all = expect(addr, "GET", &ev.path("/export/pgn"), None, "", 200).await;
    assert_eq!(all.as_str().unwrap().matches("[Round \"1.").count(), 4);

    // What is wrong, said.
    for (q, status, words) in [
        ("/export/pgn?round=2", 404, "rounds 1 to 1 are paired"),
        ("/export/pgn?round=x", 404, r#"no round \"x\""#),
        ("/export/pgn?round=0", 404, r#"no round \"0\""#),
        ("/export/trf?round=1", 400, "PGN export only"),
    ] {
        let (got, text) = call(addr, "GET", &ev.path(q), None, "").await;
        assert_eq!(got, status, "{q}: {text}");
        assert!(text.contains(words), "{q}: {text}");
    }
    srv.stop().await;
}

/// Issue 31, items 14: on the club's boards the same Round rule (`round.board.game`,
/// a Board tag), the round's PGN public as results come in; the US Chess notes header
/// in ASCII (`Jose Nunez-Muller`, not `Jos? N??ez-M?ller`); no rank before a round is
/// complete, and then the rank of the standings every page shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_evenings_write_rounds_names_and_ranks_one_way() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Paper night","format":"double-swiss","rounds":2,
               "time_control":"G/5;d0","rules":"uscf-2020","play":"board","check_in":false,
               "date":"2026-11-20","report":{"city":"Springfield","state":"IL","zip":"62701",
               "uscf_affiliate":"A1234567","uscf_chief_td":"12345678"}}),
    )
    .await;
    let names = ["José Núñez-Müller", "Grete Weiß", "Ann Lee", "Bo Øster"];
    let players: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n, "rating": 1900 - 20 * i as u32}))
        .collect();
    let added = ev
        .director("POST", "/players", json!({ "players": players }), 201)
        .await;
    let token = added["players"][0]["token"].as_str().unwrap().to_string();
    let me = expect(addr, "GET", &ev.path("/me"), Some(&token), "", 200).await;
    assert!(me.get("rank").is_none(), "no rank before any round: {me}");
    let round = ev.director("POST", "/rounds", Value::Null, 201).await;
    let me = expect(addr, "GET", &ev.path("/me"), Some(&token), "", 200).await;
    assert!(
        me.get("rank").is_none(),
        "no rank while round 1 is played: {me}"
    );
    let boards: Vec<u64> = round["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["board"].as_u64().unwrap())
        .collect();
    ev.director(
        "POST",
        &format!("/rounds/1/boards/{}/result", boards[0]),
        json!({"results": ["1-0", "1/2"]}),
        200,
    )
    .await;
    // One board in: the round's PGN has it, the other board `*`.
    let pgn = round_pgn(&ev, 1).await;
    let games = games_of(&pgn);
    assert_eq!(games.len(), 4, "{pgn}");
    let rounds: Vec<String> = games.iter().map(|g| tag(g, "Round")).collect();
    assert_eq!(rounds, ["1.1.1", "1.1.2", "1.2.1", "1.2.2"]);
    let board_tags: Vec<String> = games.iter().map(|g| tag(g, "Board")).collect();
    assert_eq!(board_tags, ["1", "1", "2", "2"]);
    let results: Vec<String> = games.iter().map(|g| tag(g, "Result")).collect();
    assert_eq!(results, ["1-0", "1/2-1/2", "*", "*"]);
    ev.director(
        "POST",
        &format!("/rounds/1/boards/{}/result", boards[1]),
        json!({"results": ["0-1", "0-1"]}),
        200,
    )
    .await;
    // Round 1 complete: a rank, the one the standings give.
    let me = expect(addr, "GET", &ev.path("/me"), Some(&token), "", 200).await;
    let st = ev.get("/standings").await;
    let row = st["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["number"] == 1)
        .unwrap();
    assert_eq!(me["rank"], row["rank"], "{me} {st}");
    // Round 2, then the US Chess report: its notes header is ASCII, names transliterated.
    let round = ev.director("POST", "/rounds", Value::Null, 201).await;
    for b in round["boards"].as_array().unwrap() {
        let board = b["board"].as_u64().unwrap();
        ev.director(
            "POST",
            &format!("/rounds/2/boards/{board}/result"),
            json!({"results": ["1/2", "1-0"]}),
            200,
        )
        .await;
    }
    let (status, head, _) = call_raw(
        addr,
        "GET",
        &ev.path("/export/uscf-event"),
        Some(&ev.director),
        "",
        b"",
    )
    .await;
    assert_eq!(status, 200, "{head}");
    let notes = head
        .lines()
        .find(|l| l.starts_with("x-uscf-notes:"))
        .unwrap_or_else(|| panic!("a notes header: {head}"));
    // (call_raw lowercases the head.)
    for name in ["jose nunez-muller", "grete weiss", "bo oster", "ann lee"] {
        assert!(notes.contains(name), "{name} in {notes}");
    }
    assert!(!notes.contains('?'), "{notes}");
    srv.stop().await;
}
