//! Issue 21 on physical boards, through the real server: the 40-player double Swiss of
//! "How it must be shown" (results reported from the players' links, `kill -9` between
//! two rounds), US Chess's rating report, bad uploads, and the evening's known gaps
//! (a deleted round's games, idle evenings, who reads a disagreement).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use flagfall_events::change::{Change, Origin};
use flagfall_events::event::{Event, Format, NewPlayer, ReportInfo, RequestedBye};
use serde_json::{Value, json};

use crate::evening::{Evening, call, call_raw, expect};
use crate::support::*;

/// The details US Chess's report needs, as the create body gives them.
fn details() -> Value {
    json!({"city":"Springfield","state":"IL","zip":"62701","uscf_affiliate":"A1234567",
           "uscf_chief_td":"12345678"})
}

fn details_info() -> ReportInfo {
    ReportInfo {
        city: Some("Springfield".into()),
        state: Some("IL".into()),
        zip: Some("62701".into()),
        uscf_affiliate: Some("A1234567".into()),
        uscf_chief_td: Some("12345678".into()),
        ..ReportInfo::default()
    }
}

/// The result of game `g` (1 or 2) of board `b` in round `r`: a fixed spread of wins,
/// losses and draws.
fn result_of(r: u32, b: u32, g: u32) -> &'static str {
    match (r * 31 + b * 7 + g * 3) % 5 {
        0 | 1 => "1-0",
        2 | 3 => "0-1",
        _ => "1/2",
    }
}

/// The players' numbers by name, as the evening lists them now.
async fn numbers(ev: &Evening) -> HashMap<String, u32> {
    ev.get("").await["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["number"].as_u64().unwrap() as u32,
            )
        })
        .collect()
}

fn paper_apply(paper: &mut Event, change: Change) {
    paper
        .apply(change, &Origin::new("director", 0))
        .expect("the paper event takes the change");
}

/// The round as pairs of numbers and byes, from the server's JSON.
/// A round's boards (White, Black) and byes (player, kind).
type Pairs = (Vec<(u32, u32)>, Vec<(u32, String)>);

fn pairs_of(round: &Value) -> Pairs {
    let boards = round["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["white"]["number"].as_u64().unwrap() as u32,
                b["black"]["number"].as_u64().unwrap() as u32,
            )
        })
        .collect();
    let byes = round["bye"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| {
            (
                b["number"].as_u64().unwrap() as u32,
                b["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (boards, byes)
}

/// The same round in the events library.
fn paper_pairs(paper: &Event, r: u32) -> Pairs {
    let round = &paper.round_list[r as usize - 1];
    let boards = round.boards.iter().map(|b| (b.white, b.black)).collect();
    let byes = round
        .byes
        .iter()
        .map(|b| {
            (
                b.player,
                serde_json::to_value(b.kind)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    (boards, byes)
}

/// A dBase III table read back: field names and each record's values (trimmed).
fn read_dbf(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    assert_eq!(bytes[0], 0x03, "dBase III");
    let records = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let header_len = u16::from_le_bytes(bytes[8..10].try_into().unwrap()) as usize;
    let record_len = u16::from_le_bytes(bytes[10..12].try_into().unwrap()) as usize;
    let mut fields = Vec::new();
    let mut at = 32;
    while bytes[at] != 0x0D {
        let name = String::from_utf8_lossy(&bytes[at..at + 11])
            .trim_end_matches('\0')
            .to_string();
        fields.push((name, bytes[at + 16] as usize));
        at += 32;
    }
    assert_eq!(at + 1, header_len);
    let mut rows = Vec::new();
    for r in 0..records {
        let mut p = header_len + r * record_len + 1;
        let mut row = Vec::new();
        for (_, w) in &fields {
            row.push(String::from_utf8_lossy(&bytes[p..p + w]).trim().to_string());
            p += w;
        }
        rows.push(row);
    }
    assert_eq!(
        bytes[header_len + records * record_len],
        0x1A,
        "end of file"
    );
    (fields.into_iter().map(|f| f.0).collect(), rows)
}

/// The three US Chess files from the server: the same bytes as the events library's
/// report of `paper` (the header's "last update" date aside, bytes 1-3, which is today).
async fn uscf_files_match(addr: SocketAddr, ev: &Evening, paper: &Event) -> Vec<Vec<u8>> {
    let day = flagfall_events::uscf::FileDate {
        year: 2000,
        month: 1,
        day: 1,
    };
    let want = flagfall_events::uscf::report(paper, day).expect("the paper report");
    let mut got = Vec::new();
    for ((kind, name), (_, bytes)) in [
        ("event", "THEXPORT.DBF"),
        ("section", "TSEXPORT.DBF"),
        ("detail", "TDEXPORT.DBF"),
    ]
    .into_iter()
    .zip(want.named())
    {
        let path = ev.path(&format!("/export/uscf-{kind}"));
        // The report is the director's: no token 401.
        assert_eq!(call(addr, "GET", &path, None, "").await.0, 401);
        let (status, head, body) = call_raw(addr, "GET", &path, Some(&ev.director), "", b"").await;
        assert_eq!(status, 200, "{kind}: {}", String::from_utf8_lossy(&body));
        assert!(head.contains("content-type: application/dbase"), "{head}");
        assert!(head.contains(&name.to_ascii_lowercase()), "{head}");
        assert_eq!(body.len(), bytes.len(), "{kind}");
        assert_eq!(body[0], bytes[0]);
        assert_eq!(&body[4..], &bytes[4..], "{kind}: the library's bytes");
        got.push(body);
    }
    got
}

/// Issue 21, "How it must be shown": a 40-player double Swiss of 7 rounds on physical
/// boards, every result reported from the players' links (`confirm: both`): a
/// disagreement the director resolves (seen by the director and the board's players
/// only), a late entry, a withdrawal, a bye requested in advance, a forbidden pairing
/// honoured, a correction of an earlier round with its log, a player's report for a
/// finished round refused, and `kill -9` of `flagfall serve` between rounds 4 and 5 with
/// nothing lost. The events library fed the same changes on paper pairs every round
/// alike; the final standings, the TRF and US Chess's three files are the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forty_player_double_swiss_on_boards() {
    let mut p = Process::start(None).await;
    let mut addr = p.addr;
    let mut ev = Evening::create(
        addr,
        json!({"name":"Forty at the club","format":"double-swiss","rounds":7,
               "time_control":"G/3;d2","rules":"uscf-2020","play":"board","confirm":"both",
               "date":"2026-11-26","report":details()}),
    )
    .await;
    let mut paper = Event::new("Forty at the club", Format::DoubleSwiss, Some(7)).unwrap();
    paper.set_ruleset("uscf-2020").unwrap();
    paper.set_time_control("G/3;d2").unwrap();
    paper.date = Some("2026-11-26".into());
    paper.check_in = true;
    paper.paper_mode = true;
    paper.report = details_info();

    // 39 players entered (36 checked in by the director, 3 check in from their links);
    // a late entry makes 40 from round 3.
    let entered: Vec<NewPlayer> = (1..=39u32)
        .map(|i| NewPlayer {
            name: format!("Player {i:02}"),
            rating: Some(2300 - 15 * i),
            uscf_id: (i % 2 == 0).then(|| format!("{}", 12_000_000 + i)),
            ..NewPlayer::default()
        })
        .collect();
    let mut tokens: HashMap<String, String> = HashMap::new();
    for (chunk, check_in) in [(&entered[..36], true), (&entered[36..], false)] {
        let added = expect(
            addr,
            "POST",
            &ev.path(&format!("/players?check_in={check_in}")),
            Some(&ev.director),
            &json!({ "players": chunk }).to_string(),
            201,
        )
        .await;
        for a in added["players"].as_array().unwrap() {
            tokens.insert(
                a["name"].as_str().unwrap().into(),
                a["token"].as_str().unwrap().into(),
            );
        }
        for np in chunk {
            paper_apply(
                &mut paper,
                Change::AddPlayer {
                    player: np.clone(),
                    check_in,
                },
            );
        }
    }
    let n = numbers(&ev).await;
    for np in &entered[36..] {
        let k = n[&np.name];
        expect(
            addr,
            "POST",
            &ev.path(&format!("/players/{k}/check-in")),
            Some(&tokens[&np.name]),
            "",
            200,
        )
        .await;
        paper_apply(&mut paper, Change::CheckIn { player: k });
    }
    // A forbidden pair: the two round 1 would pair on its first board.
    let mut probe = paper.clone();
    paper_apply(&mut probe, Change::PairNext);
    let (fa, fb) = (
        probe.round_list[0].boards[0].white,
        probe.round_list[0].boards[0].black,
    );
    ev.director(
        "POST",
        "/forbidden",
        json!({"a": fa, "b": fb, "note": "same family"}),
        200,
    )
    .await;
    paper_apply(
        &mut paper,
        Change::Forbid {
            a: fa,
            b: fb,
            note: Some("same family".into()),
        },
    );
    // Player 05 asks, in advance, for a half-point bye in round 4, from their link.
    let p05 = n["Player 05"];
    expect(
        addr,
        "POST",
        &ev.path(&format!("/players/{p05}/bye")),
        Some(&tokens["Player 05"]),
        r#"{"round":4,"kind":"half"}"#,
        200,
    )
    .await;
    paper_apply(
        &mut paper,
        Change::RequestBye {
            player: p05,
            round: 4,
            kind: RequestedBye::Half,
        },
    );
    let mut withdrawn = String::new();
    let mut late_number = 0;
    for r in 1..=7u32 {
        if r == 3 {
            // A late entry, checked in at once: numbered by the events library.
            let late = expect(
                addr,
                "POST",
                &ev.path("/players?check_in=true"),
                Some(&ev.director),
                &json!({"name":"Late Comer","rating":2105,"uscf_id":"12999999"}).to_string(),
                201,
            )
            .await;
            tokens.insert(
                "Late Comer".into(),
                late["players"][0]["token"].as_str().unwrap().into(),
            );
            late_number = late["players"][0]["number"].as_u64().unwrap() as u32;
            paper_apply(
                &mut paper,
                Change::AddPlayer {
                    player: NewPlayer {
                        name: "Late Comer".into(),
                        rating: Some(2105),
                        uscf_id: Some("12999999".into()),
                        ..NewPlayer::default()
                    },
                    check_in: true,
                },
            );
            assert_eq!(
                paper
                    .players
                    .iter()
                    .find(|p| p.name == "Late Comer")
                    .unwrap()
                    .id,
                late_number,
                "the library's pairing number"
            );
        }
        if r == 5 {
            // `kill -9` between rounds 4 and 5: every acknowledged change is there.
            let state = ev.state().await;
            let log = ev.director("GET", "/log", Value::Null, 200).await;
            let standings = ev.get("/standings").await;
            let round4 = ev.get("/rounds/4").await;
            p.kill9();
            p = Process::start(Some(p.into_db())).await;
            addr = p.addr;
            ev = Evening {
                addr,
                id: ev.id.clone(),
                director: ev.director.clone(),
            };
            assert_eq!(ev.state().await, state, "nothing lost");
            assert_eq!(ev.director("GET", "/log", Value::Null, 200).await, log);
            assert_eq!(ev.get("/standings").await, standings);
            assert_eq!(ev.get("/rounds/4").await, round4);
            // A withdrawal before round 5.
            let n = numbers(&ev).await;
            withdrawn = "Player 17".into();
            ev.director(
                "POST",
                &format!("/players/{}/withdraw", n[&withdrawn]),
                Value::Null,
                200,
            )
            .await;
            paper_apply(
                &mut paper,
                Change::Withdraw {
                    player: n[&withdrawn],
                    from_round: None,
                },
            );
        }
        if r == 7 {
            // A correction of round 2 (board 3's first game), logged with what it
            // replaced; the standings follow.
            let before = ev.get("/rounds/2").await["boards"][2]["results"].clone();
            let corrected = if before[0] == "1-0" { "0-1" } else { "1-0" };
            let answer = ev
                .director(
                    "POST",
                    "/rounds/2/boards/3/result",
                    json!({"game": 1, "result": corrected}),
                    200,
                )
                .await;
            assert_eq!(answer["round"]["boards"][2]["results"][0], corrected);
            let log = ev.director("GET", "/log", Value::Null, 200).await;
            let last = log["log"].as_array().unwrap().last().unwrap().clone();
            assert_eq!(last["by"], "director", "{last}");
            assert_eq!(last["change"]["round"], 2, "{last}");
            assert!(last["before"].is_array(), "what it replaced: {last}");
            paper_apply(
                &mut paper,
                Change::SetGameResult {
                    round: 2,
                    board: 3,
                    game: 1,
                    result: corrected.parse().unwrap(),
                },
            );
        }
        let round = ev.director("POST", "/rounds", Value::Null, 201).await;
        paper_apply(&mut paper, Change::PairNext);
        assert_eq!(pairs_of(&round), paper_pairs(&paper, r), "round {r}");
        let (boards, byes) = pairs_of(&round);
        if r == 1 {
            assert!(
                !boards.contains(&(fa, fb)) && !boards.contains(&(fb, fa)),
                "the forbidden pair met"
            );
        }
        let numbers_now = numbers(&ev).await;
        let name_of: HashMap<u32, String> =
            numbers_now.iter().map(|(k, v)| (*v, k.clone())).collect();
        if r == 3 {
            assert!(
                boards
                    .iter()
                    .any(|&(w, b)| w == late_number || b == late_number)
                    || byes.iter().any(|b| b.0 == late_number),
                "the late entry plays round 3"
            );
        }
        if r == 4 {
            assert!(
                byes.contains(&(numbers_now["Player 05"], "half".into())),
                "the requested bye: {byes:?}"
            );
        }
        if r >= 5 {
            let w = numbers_now[&withdrawn];
            assert!(
                !boards.iter().any(|&(a, b)| a == w || b == w)
                    && byes.iter().all(|b| b.0 != w || b.1 == "absent"),
                "the withdrawn player is not paired in round {r}: {byes:?}"
            );
        }
        if r == 2 {
            // A player's report for round 1, finished: refused, nothing changed.
            let before = ev.state().await;
            let w1 = paper.round_list[0].boards[0].white;
            let (status, text) = call(
                addr,
                "POST",
                &ev.path("/rounds/1/boards/1/result"),
                Some(&tokens[&name_of[&w1]]),
                r#"{"results":["0-1","0-1"]}"#,
            )
            .await;
            assert_eq!(status, 409, "{text}");
            assert!(text.contains("round 1"), "{text}");
            assert_eq!(ev.state().await, before);
        }
        for (i, &(w, b)) in boards.iter().enumerate() {
            let board = i as u32 + 1;
            let results = [result_of(r, board, 1), result_of(r, board, 2)];
            let path = ev.path(&format!("/rounds/{r}/boards/{board}/result"));
            let body = json!({ "results": results }).to_string();
            let (wt, bt) = (&tokens[&name_of[&w]], &tokens[&name_of[&b]]);
            if r == 2 && board == 2 {
                // A disagreement: Black reports the other way round.
                expect(addr, "POST", &path, Some(wt), &body, 200).await;
                let other = json!({"results": [results[1], results[0]]}).to_string();
                let other = if other == body {
                    json!({"results": ["1/2", "1/2"]}).to_string()
                } else {
                    other
                };
                expect(addr, "POST", &path, Some(bt), &other, 200).await;
                // The director and the board's players see it; the public does not.
                let director_view = ev.director("GET", "", Value::Null, 200).await;
                assert_eq!(
                    director_view["disagreements"][0]["board"], 2,
                    "{director_view}"
                );
                let public = ev.get("").await;
                assert!(public.get("disagreements").is_none(), "{public}");
                let public_round = ev.get("/rounds/2").await;
                assert!(public_round["boards"][1].get("reported").is_none());
                let mine = expect(addr, "GET", &ev.path("/me"), Some(bt), "", 200).await;
                assert!(mine["reported"]["white"].is_array(), "{mine}");
                let (someone_else, _) = boards[0];
                let theirs = expect(
                    addr,
                    "GET",
                    &ev.path("/rounds/2"),
                    Some(&tokens[&name_of[&someone_else]]),
                    "",
                    200,
                )
                .await;
                assert!(theirs["boards"][1].get("reported").is_none(), "{theirs}");
                // The director decides: White's report stands.
                ev.director(
                    "POST",
                    &format!("/rounds/2/boards/{board}/result"),
                    json!({ "results": results }),
                    200,
                )
                .await;
                let after = ev.director("GET", "", Value::Null, 200).await;
                assert_eq!(after["disagreements"], json!([]), "{after}");
            } else {
                expect(addr, "POST", &path, Some(wt), &body, 200).await;
                if r == 1 && board == 1 {
                    // One report of two (confirm: both): not in yet.
                    let v = ev.get("/rounds/1").await;
                    assert_eq!(v["boards"][0]["results"], json!([null, null]), "{v}");
                    // A player of another board cannot report this one.
                    let (w2, _) = boards[1];
                    let (status, _) =
                        call(addr, "POST", &path, Some(&tokens[&name_of[&w2]]), &body).await;
                    assert_eq!(status, 409);
                }
                expect(addr, "POST", &path, Some(bt), &body, 200).await;
            }
            paper_apply(
                &mut paper,
                Change::SetResults {
                    round: r,
                    board,
                    results: results.iter().map(|t| t.parse().unwrap()).collect(),
                },
            );
        }
        let done = ev.get(&format!("/rounds/{r}")).await;
        assert_eq!(done["complete"], true, "round {r}: {done}");
    }
    // The evening is over.
    ev.director("POST", "/rounds", Value::Null, 409).await;
    assert_eq!(paper.players.len(), 40);
    // The final standings: the same ranks, names, points and tiebreaks as on paper.
    let standings = ev.get("/standings").await;
    assert_eq!(standings["after_round"], 7);
    let st = paper.standings(None, None).unwrap();
    let names: Vec<String> = st.tiebreaks.iter().map(ToString::to_string).collect();
    let rows = standings["rows"].as_array().unwrap();
    assert_eq!(rows.len(), st.rows.len());
    for (got, want) in rows.iter().zip(&st.rows) {
        let p = &paper.players[want.player];
        assert_eq!(got["name"], p.name.as_str());
        assert_eq!(got["rank"], json!(want.rank));
        assert_eq!(got["points"].as_f64().unwrap(), want.score.as_f64());
        for (name, v) in names.iter().zip(&want.values) {
            assert_eq!(
                got["tiebreaks"][name].as_f64(),
                v.map(|v| v.to_f64()),
                "{} {name}",
                p.name
            );
        }
    }
    let total: f64 = rows.iter().map(|r| r["points"].as_f64().unwrap()).sum();
    assert!(total > 7.0 * 2.0 * 18.0, "two games a board: {total}");
    let trf = expect(addr, "GET", &ev.path("/export/trf"), None, "", 200).await;
    assert_eq!(
        trf.as_str().unwrap(),
        flagfall_events::export::trf(&paper).unwrap(),
        "the TRF equals the paper evening's"
    );
    uscf_files_match(addr, &ev, &paper).await;
    p.terminate().await;
}

/// US Chess's rating report from the server: the three dBase III files as the events
/// library writes them; `409` naming what is missing (details, results) until it can be
/// made. With `FLAGFALL_DBF_OUT` the files are written there for
/// `scripts/check_uscf_dbf.py` (Python's dbfread) to read back, as CI does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evening_us_chess_report_exported() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Six for US Chess","format":"double-swiss","rounds":2,
               "time_control":"G/5;d0","rules":"uscf-2020","play":"board","check_in":false,
               "date":"2026-11-20"}),
    )
    .await;
    let players: Vec<Value> = (1..=6u32)
        .map(|i| {
            json!({"name": format!("Ann Player{i}"), "rating": 1800 - 20 * i,
                        "uscf_id": format!("{}", 13_000_000 + i)})
        })
        .collect();
    ev.director("POST", "/players", json!({ "players": players }), 201)
        .await;
    // No details yet: refused, naming each.
    let (status, text) = call(
        addr,
        "GET",
        &ev.path("/export/uscf-detail"),
        Some(&ev.director),
        "",
    )
    .await;
    assert_eq!(status, 409, "{text}");
    assert!(
        text.contains("affiliate") && text.contains("city"),
        "{text}"
    );
    // Bad details: 400 naming the key; nothing changed.
    let before = ev.state().await;
    let (status, text) = call(
        addr,
        "PUT",
        &ev.path("/report"),
        Some(&ev.director),
        r#"{"citty":"Springfield"}"#,
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("citty"), "{text}");
    assert_eq!(ev.state().await, before);
    let mut info = details();
    info["end_date"] = json!("2026-11-21");
    ev.director("PUT", "/report", info, 200).await;
    assert_eq!(ev.get("").await["report"]["city"], "Springfield");
    for r in 1..=2u32 {
        let round = ev.director("POST", "/rounds", Value::Null, 201).await;
        if r == 1 {
            // Results missing: refused, naming the round.
            let (status, text) = call(
                addr,
                "GET",
                &ev.path("/export/uscf-event"),
                Some(&ev.director),
                "",
            )
            .await;
            assert_eq!(status, 409, "{text}");
            assert!(text.contains("round 1"), "{text}");
        }
        for b in round["boards"].as_array().unwrap() {
            let board = b["board"].as_u64().unwrap() as u32;
            ev.director(
                "POST",
                &format!("/rounds/{r}/boards/{board}/result"),
                json!({"results": [result_of(r, board, 1), result_of(r, board, 2)]}),
                200,
            )
            .await;
        }
    }
    // The same report as the events library's of the evening's own event file.
    let file = ev.director("GET", "/export/json", Value::Null, 200).await;
    let event: Event = serde_json::from_value(file).unwrap();
    let files = uscf_files_match(addr, &ev, &event).await;
    let (fields, rows) = read_dbf(&files[2]);
    assert_eq!(rows.len(), 6);
    let rounds: Vec<&String> = fields.iter().filter(|f| f.starts_with("D_RND")).collect();
    assert_eq!(rounds.len(), 4, "two games a round, each a US Chess round");
    let (_, header) = read_dbf(&files[0]);
    assert_eq!(header[0][3], "Six for US Chess");
    // A stranger's token: 403; an unknown file: 404.
    assert_eq!(
        call(
            addr,
            "GET",
            &ev.path("/export/uscf-event"),
            Some("0badc0de"),
            ""
        )
        .await
        .0,
        403
    );
    assert_eq!(
        call(
            addr,
            "GET",
            &ev.path("/export/uscf-other"),
            Some(&ev.director),
            ""
        )
        .await
        .0,
        404
    );
    if let Ok(dir) = std::env::var("FLAGFALL_DBF_OUT") {
        let dir = std::path::Path::new(&dir).join("server-evening");
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in ["THEXPORT.DBF", "TSEXPORT.DBF", "TDEXPORT.DBF"]
            .iter()
            .zip(&files)
        {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        let get = |row: &[String], name: &str| {
            row[fields.iter().position(|f| f == name).unwrap()].clone()
        };
        let players: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({
                    "D_PAIR_NUM": get(r, "D_PAIR_NUM"), "D_NAME": get(r, "D_NAME"),
                    "D_MEM_ID": get(r, "D_MEM_ID"), "D_RATING": get(r, "D_RATING"),
                    "rounds": rounds.iter().map(|f| get(r, f)).collect::<Vec<_>>(),
                })
            })
            .collect();
        let expected = json!({
            "H_NAME": "Six for US Chess", "H_BEG_DATE": "2026-11-20",
            "H_END_DATE": "2026-11-21", "S_TOT_RNDS": "4", "S_TRN_TYPE": "S",
            "players": players,
        });
        std::fs::write(dir.join("expected.json"), expected.to_string()).unwrap();
    }
    srv.stop().await;
}

/// Uploads that are not what they say: a CSV sent as `text/csv` (no `?format=`) gets a
/// CSV error naming its line and field, a TRF that is not one and a rating list that
/// is not one a clear error; the evening is unchanged each time. A good CSV sent as
/// `text/csv` and a TRF sent as plain text are read as such.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evening_uploads_read_by_their_type() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Uploads","format":"swiss","rounds":3,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board"}),
    )
    .await;
    let before = ev.state().await;
    let post = |ctype: &'static str, body: &'static str, path: &'static str| {
        let ev_path = ev.path(path);
        let token = ev.director.clone();
        async move {
            let (status, _, text) =
                call_raw(addr, "POST", &ev_path, Some(&token), ctype, body.as_bytes()).await;
            (status, String::from_utf8_lossy(&text).to_string())
        }
    };
    // A malformed CSV as text/csv: the CSV reader's error, its line and field.
    let (status, text) = post("text/csv", "name,rating\nEve,2000\nZed,abc\n", "/players").await;
    assert_eq!(status, 400, "{text}");
    assert!(
        text.contains("line 3") && text.contains("rating") && text.contains("abc"),
        "{text}"
    );
    assert!(
        !text.contains("expected ident"),
        "not the JSON parser's: {text}"
    );
    // The same without a content type: recognised as CSV by its look.
    let (status, text) = post("", "name,rating\nEve,2000\nZed,abc\n", "/players").await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("line 3"), "{text}");
    // A CSV with a column it does not know.
    let (status, text) = post("text/csv", "name,elo\nEve,2000\n", "/players").await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("elo"), "{text}");
    // A TRF that is not one (tag lines, but no player).
    let (status, text) = post("application/x-trf", "012 Not an event\n", "/players").await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("no player line"), "{text}");
    // A TRF player line that is not one, recognised as TRF by its look.
    let (status, text) = post("", "001 abcd Broken line\n", "/players").await;
    assert_eq!(status, 400, "{text}");
    assert!(
        text.contains("TRF upload") && text.contains("line 1"),
        "{text}"
    );
    // A type the route does not take.
    let (status, text) = post("image/png", "name\nEve\n", "/players").await;
    assert_eq!(status, 415, "{text}");
    // A rating list that is not one.
    let (status, text) = post("text/plain", "name,rating\nEve,2000\n", "/ratings").await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("rating list"), "{text}");
    assert_eq!(ev.state().await, before, "nothing changed");
    // A good CSV as text/csv is read as CSV.
    let (status, text) = post("text/csv", "name,rating\nEve,2000\nZed,1900\n", "/players").await;
    assert_eq!(status, 201, "{text}");
    let players = ev.get("").await["players"].clone();
    assert_eq!(players.as_array().unwrap().len(), 2, "{players}");
    srv.stop().await;
}

/// A server-played round deleted before any of its games began: its games are aborted
/// in the deletion's transaction (status `aborted`, out of the live list, not loaded
/// after a restart) and refuse actions, naming why; so are those a director's pairing
/// replaces; a round with a game begun stays, and its games not begun play on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evening_deleted_rounds_games_are_aborted() {
    use crate::lifecycle::metric;
    let srv = Server::start().await;
    let ev = Evening::create(
        srv.addr,
        json!({"name":"Deleted","format":"round-robin","time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","check_in":false}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900},
                              {"name":"Cy","rating":1800},{"name":"Di","rating":1700}]}),
            201,
        )
        .await;
    let token = |name: &str| {
        added["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    let games: Vec<(String, String)> = r1["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["game"].as_str().unwrap().to_string(),
                token(b["white"]["name"].as_str().unwrap()),
            )
        })
        .collect();
    let mut sockets = Vec::new();
    for (g, white) in &games {
        sockets.push(srv.connect(g, Some(white)).await);
    }
    ev.director("DELETE", "/rounds/1", Value::Null, 200).await;
    let listed = live_ids(&srv).await;
    for ((g, _), socket) in games.iter().zip(&mut sockets) {
        assert!(!listed.contains(g), "{g} left the live list");
        let state = srv.state(g).await;
        assert_eq!(state["aborted"], true, "{state}");
        assert!(
            state["reason"].as_str().unwrap().contains("round"),
            "{state}"
        );
        socket
            .send(json!({"move":"e2e4","press":true,"id":"late"}))
            .await;
        let refused = socket.until_type("refused").await;
        assert!(
            refused["reason"].as_str().unwrap().contains("round"),
            "{refused}"
        );
    }
    drop(sockets);
    // After a restart they are aborted still, and not loaded.
    let db = srv.stop_keeping_db().await;
    let srv = Server::start_on(db).await;
    assert_eq!(metric(&srv, "flagfall_loaded_games").await, 0);
    for (g, _) in &games {
        assert_eq!(srv.state(g).await["aborted"], true);
    }
    let ev = Evening {
        addr: srv.addr,
        id: ev.id.clone(),
        director: ev.director.clone(),
    };
    assert_eq!(ev.get("").await["rounds_paired"], 0);
    // Paired again, then by hand (colours swapped): the computed pairing's games are
    // aborted with the director's pairing, which gets games of its own.
    let computed = ev.director("POST", "/rounds", Value::Null, 201).await;
    let swapped: Vec<(u64, u64)> = computed["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["black"]["number"].as_u64().unwrap(),
                b["white"]["number"].as_u64().unwrap(),
            )
        })
        .collect();
    let over = ev
        .director("PUT", "/rounds/1", json!({ "boards": swapped }), 200)
        .await;
    let r1 = over["round"].clone();
    let listed = live_ids(&srv).await;
    for (old, new) in computed["boards"]
        .as_array()
        .unwrap()
        .iter()
        .zip(r1["boards"].as_array().unwrap())
    {
        let (old, new) = (old["game"].as_str().unwrap(), new["game"].as_str().unwrap());
        assert_ne!(old, new);
        assert_eq!(srv.state(old).await["aborted"], true);
        assert!(!listed.contains(&old.to_string()) && listed.contains(&new.to_string()));
    }
    // One game begins, and the round stays.
    let b1 = r1["boards"][0].clone();
    let game = b1["game"].as_str().unwrap().to_string();
    assert!(games.iter().all(|(g, _)| *g != game));
    let mut w = srv
        .connect(&game, Some(&token(b1["white"]["name"].as_str().unwrap())))
        .await;
    w.send(json!({"move":"e2e4","press":true})).await;
    w.event().await;
    let (status, text) = call(
        srv.addr,
        "DELETE",
        &ev.path("/rounds/1"),
        Some(&ev.director),
        "",
    )
    .await;
    assert_eq!(status, 409, "{text}");
    let other = r1["boards"][1]["game"].as_str().unwrap().to_string();
    let listed = live_ids(&srv).await;
    assert!(
        listed.contains(&game) && listed.contains(&other),
        "{listed:?}"
    );
    assert!(srv.state(&other).await.get("aborted").is_none());
    // The game not begun was held during the attempt and is released: it plays.
    let mut o = srv
        .connect(
            &other,
            Some(&token(r1["boards"][1]["white"]["name"].as_str().unwrap())),
        )
        .await;
    o.send(json!({"move":"d2d4","press":true})).await;
    assert_eq!(o.event().await["n"], 1);
    srv.stop().await;
}

/// An evening with nothing to do and nobody on its live socket is unloaded after the
/// idle time, and loaded again, unchanged, by the next request; a live socket keeps it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evening_idle_is_unloaded_and_loaded_again() {
    use crate::lifecycle::{metric, metric_becomes};
    let limits = flagfall_server::limits::Limits {
        evening_idle: Duration::from_millis(300),
        ..flagfall_server::limits::Limits::unlimited()
    };
    let srv = Server::start_with(limits).await;
    let ev = Evening::create(
        srv.addr,
        json!({"name":"Idle","format":"swiss","rounds":3,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board","check_in":false}),
    )
    .await;
    ev.director(
        "POST",
        "/players",
        json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900}]}),
        201,
    )
    .await;
    ev.director("POST", "/rounds", Value::Null, 201).await;
    let before = ev.state().await;
    let log = ev.director("GET", "/log", Value::Null, 200).await;
    assert_eq!(metric(&srv, "flagfall_loaded_evenings").await, 1);
    metric_becomes(&srv, "flagfall_loaded_evenings", 0, Duration::from_secs(5)).await;
    // Loaded again by a read, as it was.
    assert_eq!(ev.state().await, before);
    assert_eq!(metric(&srv, "flagfall_loaded_evenings").await, 1);
    metric_becomes(&srv, "flagfall_loaded_evenings", 0, Duration::from_secs(5)).await;
    // A change loads it too, and is stored after the log as it was.
    ev.director(
        "POST",
        "/rounds/1/boards/1/result",
        json!({"result":"1-0"}),
        200,
    )
    .await;
    let after = ev.director("GET", "/log", Value::Null, 200).await;
    assert_eq!(
        after["log"].as_array().unwrap().len(),
        log["log"].as_array().unwrap().len() + 1
    );
    // The projector's socket keeps it loaded.
    let (mut projector, _) =
        tokio_tungstenite::connect_async(format!("ws://{}/ws/events/{}", srv.addr, ev.id))
            .await
            .unwrap();
    assert_eq!(
        crate::evening::next_json(&mut projector).await["type"],
        "state"
    );
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(metric(&srv, "flagfall_loaded_evenings").await, 1);
    drop(projector);
    metric_becomes(&srv, "flagfall_loaded_evenings", 0, Duration::from_secs(5)).await;
    srv.stop().await;
}

async fn live_ids(api: &Api) -> Vec<String> {
    api.get_json("/api/games?status=live")
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_string())
        .collect()
}

/// A player's report reaches the director's live socket (`?token=`), not the public's;
/// a player's token there is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evening_reports_live_to_the_director_only() {
    use crate::evening::next_json;
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Reports","format":"swiss","rounds":3,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board","confirm":"both","check_in":false}),
    )
    .await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob","rating":1900}]}),
            201,
        )
        .await;
    let ann = added["players"][0]["token"].as_str().unwrap().to_string();
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    let white = r1["boards"][0]["white"]["name"].as_str().unwrap();
    let white_token = added["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == white)
        .unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let url = |q: &str| format!("ws://{addr}/ws/events/{}{q}", ev.id);
    let refused = tokio_tungstenite::connect_async(url(&format!("?token={ann}"))).await;
    assert!(
        refused.is_err(),
        "a player's token on the director's socket"
    );
    let (mut public, _) = tokio_tungstenite::connect_async(url("")).await.unwrap();
    let (mut director, _) =
        tokio_tungstenite::connect_async(url(&format!("?token={}", ev.director)))
            .await
            .unwrap();
    assert_eq!(next_json(&mut public).await["type"], "state");
    assert_eq!(next_json(&mut director).await["type"], "state");
    expect(
        addr,
        "POST",
        &ev.path("/rounds/1/boards/1/result"),
        Some(&white_token),
        r#"{"result":"1-0"}"#,
        200,
    )
    .await;
    let seen = next_json(&mut director).await;
    assert_eq!(seen["type"], "change");
    assert_eq!(seen["rows"][0]["report"]["player"], white, "{seen}");
    let seen = next_json(&mut public).await;
    assert_eq!(seen["type"], "change");
    assert_eq!(seen["rows"], json!([]), "{seen}");
    assert!(!seen.to_string().contains("reported"), "{seen}");
    srv.stop().await;
}
