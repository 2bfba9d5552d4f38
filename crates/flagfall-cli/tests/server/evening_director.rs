//! Issue 31, the director's evening made and kept in the browser, through the real server:
//! an evening created with the new-evening form's body (dates, site, TD, ids) has complete
//! exports (US Chess, a dated PGN and TRF), and the console's report details change them;
//! a rating that is not a number is refused naming it, nothing changed; a player's
//! details edited (pairing numbers, a new name's link, after a restart too), a player
//! removed before round 1; the exports saved under the evening's name, the CSV with the
//! byte order mark Excel needs for accented names.

use serde_json::{Value, json};

use crate::evening::{Evening, call, call_raw, expect};
use crate::support::*;

/// The body `/events/new` sends (web/src/event/setupmodel.ts `setupBody` with the
/// details of web/src/event/details.ts `createFields`).
fn form_body(name: &str) -> Value {
    json!({
        "name": name, "format": "swiss", "rules": "uscf-2020", "time_control": "G/5;d0",
        "play": "board", "rounds": 2, "confirm": "one",
        "date": "2026-11-27", "site": "Springfield Chess Club",
        "report": {
            "end_date": "2026-11-27", "city": "Springfield", "state": "IL", "zip": "62701",
            "federation": "USA", "chief_arbiter": "Dana Reyes", "uscf_affiliate": "A1234567",
            "uscf_chief_td": "12345678"
        }
    })
}

/// The value of header `name` (lowercase) in a response head `call_raw` answered.
fn header_of(head: &str, name: &str) -> Option<String> {
    head.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")).map(str::to_string))
}

/// Export `kind` with the director's token: status, Content-Disposition, body.
async fn export(ev: &Evening, kind: &str) -> (u16, Option<String>, Vec<u8>) {
    let (status, head, body) = call_raw(
        ev.addr,
        "GET",
        &ev.path(&format!("/export/{kind}")),
        Some(&ev.director),
        "",
        b"",
    )
    .await;
    (status, header_of(&head, "content-disposition"), body)
}

/// Four players with US Chess ids, two rounds played to the end.
async fn play_two_rounds(ev: &Evening) {
    ev.director(
        "POST",
        "/players?check_in=true",
        json!({"players":[
            {"name":"Ann Lee","rating":2000,"uscf_id":"11111111"},
            {"name":"Bo Diaz","rating":1900,"uscf_id":"22222222"},
            {"name":"Zoë Núñez","rating":1800,"uscf_id":"33333333"},
            {"name":"Cy Ott","rating":1700,"uscf_id":"44444444"}]}),
        201,
    )
    .await;
    for round in 1..=2 {
        ev.director("POST", "/rounds", Value::Null, 201).await;
        for board in 1..=2 {
            ev.director(
                "POST",
                &format!("/rounds/{round}/boards/{board}/result"),
                json!({"result":"1-0"}),
                200,
            )
            .await;
        }
    }
}

/// An evening made with the form's body: every export complete and named by the evening.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evening_made_in_the_form_exports_everything_named() {
    let srv = Server::start().await;
    let ev = Evening::create(srv.addr, form_body("Friday Blitz: Zoë's night")).await;
    let summary = ev.get("").await;
    assert_eq!(summary["date"], "2026-11-27");
    assert_eq!(summary["site"], "Springfield Chess Club");
    assert_eq!(summary["report"]["chief_arbiter"], "Dana Reyes");
    play_two_rounds(&ev).await;

    let stem = "friday-blitz-zoe-s-night";
    for (kind, table) in [
        ("uscf-event", "THEXPORT"),
        ("uscf-section", "TSEXPORT"),
        ("uscf-detail", "TDEXPORT"),
    ] {
        let (status, disposition, body) = export(&ev, kind).await;
        assert_eq!(status, 200, "{kind}: {}", String::from_utf8_lossy(&body));
        assert_eq!(
            disposition.as_deref(),
            Some(
                format!("attachment; filename=\"{stem}-{table}.DBF\"")
                    .to_ascii_lowercase()
                    .as_str()
            ),
            "{kind}"
        );
        assert_eq!(body[0], 0x03, "{kind}: a dBase III file");
        if kind != "uscf-detail" {
            let text = String::from_utf8_lossy(&body);
            assert!(text.contains("20261127"), "{kind}: the dates: {text}");
        }
    }
    let (_, disposition, pgn) = export(&ev, "pgn").await;
    assert_eq!(
        disposition.as_deref(),
        Some(format!("attachment; filename=\"{stem}.pgn\"").as_str())
    );
    let pgn = String::from_utf8(pgn).unwrap();
    assert!(pgn.contains("[Date \"2026.11.27\"]"), "{pgn}");
    assert!(pgn.contains("[Site \"Springfield Chess Club\"]"), "{pgn}");
    assert!(!pgn.contains("????"), "{pgn}");
    let (_, disposition, trf) = export(&ev, "trf").await;
    assert_eq!(
        disposition.as_deref(),
        Some(format!("attachment; filename=\"{stem}.trf\"").as_str())
    );
    let trf = String::from_utf8(trf).unwrap();
    for line in [
        "012 Friday Blitz: Zoë's night",
        "022 Springfield Chess Club",
        "032 USA",
        "042 2026/11/27",
        "052 2026/11/27",
        "102 Dana Reyes",
    ] {
        assert!(
            trf.lines().any(|l| l.trim_end() == line),
            "{line:?} in {trf}"
        );
    }
    // The CSV opens in Excel with its accents: UTF-8 with the byte order mark.
    let (_, disposition, csv) = export(&ev, "csv").await;
    assert_eq!(
        disposition.as_deref(),
        Some(format!("attachment; filename=\"{stem}.standings.csv\"").as_str())
    );
    assert_eq!(&csv[..3], b"\xef\xbb\xbf", "the byte order mark");
    assert!(String::from_utf8(csv).unwrap().contains("Zoë Núñez"));
    let (_, disposition, _) = export(&ev, "json").await;
    assert_eq!(
        disposition.as_deref(),
        Some(format!("attachment; filename=\"{stem}.json\"").as_str())
    );
    // A name with nothing to keep in a file name: `evening`.
    let bare = Evening::create(srv.addr, form_body("★ ★")).await;
    let (_, disposition, _) = export(&bare, "trf").await;
    assert_eq!(
        disposition.as_deref(),
        Some("attachment; filename=\"evening.trf\"")
    );
    srv.stop().await;
}

/// The console's report details: the dates and site with them; a bad date is refused
/// naming its field, and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_details_take_the_dates_and_refuse_bad_ones() {
    let srv = Server::start().await;
    // An evening made without any detail (as before the form had them).
    let ev = Evening::create(
        srv.addr,
        json!({"name":"Club night","format":"swiss","rules":"uscf-2020","time_control":"G/5;d0",
               "play":"board","rounds":2}),
    )
    .await;
    play_two_rounds(&ev).await;
    let (status, _, body) = export(&ev, "uscf-event").await;
    assert_eq!(status, 409);
    let said = String::from_utf8_lossy(&body);
    assert!(
        said.contains("the start date") && said.contains("the director console's Report details"),
        "{said}"
    );
    let before = ev.state().await;
    for (body, field) in [
        (
            json!({"date":"2026-13-01"}),
            "date: \"2026-13-01\" has no month 13",
        ),
        (
            json!({"date":"2026-02-30"}),
            "date: \"2026-02-30\": that month has days 01 to 28",
        ),
        (
            json!({"date":"27/11/2026"}),
            "date: \"27/11/2026\" is not a date",
        ),
        (
            json!({"date":"2026-11-27","end_date":"2026-11-26"}),
            "report.end_date: \"2026-11-26\" is before the start date \"2026-11-27\"",
        ),
        (json!({"end_date":"2026-11-31"}), "report.end_date"),
        (json!({"date": 20261127}), "field `date`: expected text"),
    ] {
        let said = ev.director("PUT", "/report", body.clone(), 400).await;
        let said = said["error"].as_str().unwrap_or_default().to_string();
        assert!(said.contains(field), "{body}: {said}");
    }
    assert_eq!(ev.state().await, before, "a refused detail changes nothing");
    // The console's form sends every detail at once.
    let mut details = form_body("x");
    let mut body = details["report"].take();
    body["date"] = json!("2026-11-27");
    body["site"] = json!("Springfield Chess Club");
    ev.director("PUT", "/report", body, 200).await;
    let summary = ev.get("").await;
    assert_eq!(summary["date"], "2026-11-27");
    assert_eq!(summary["report"]["uscf_affiliate"], "A1234567");
    let (status, disposition, _) = export(&ev, "uscf-event").await;
    assert_eq!(status, 200);
    assert_eq!(
        disposition.as_deref(),
        // (call_raw answers the head in lower case)
        Some("attachment; filename=\"club-night-thexport.dbf\"")
    );
    let (_, _, pgn) = export(&ev, "pgn").await;
    assert!(String::from_utf8_lossy(&pgn).contains("[Date \"2026.11.27\"]"));
    // A body without the date leaves it; the details survive a restart.
    ev.director("PUT", "/report", json!({"city":"Peoria"}), 200)
        .await;
    assert_eq!(ev.get("").await["date"], "2026-11-27");
    let state = ev.state().await;
    let db = srv.stop_keeping_db().await;
    let srv = Server::start_on(db).await;
    let ev = Evening {
        addr: srv.addr,
        id: ev.id.clone(),
        director: ev.director.clone(),
    };
    assert_eq!(ev.state().await, state);
    srv.stop().await;
}

/// A rating that is not a number is refused naming the line or field, in every upload.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rating_that_is_not_a_number_is_refused() {
    let srv = Server::start().await;
    let ev = Evening::create(srv.addr, form_body("Ratings")).await;
    ev.director(
        "POST",
        "/players",
        json!({"name":"Ann","rating":"1850"}),
        201,
    )
    .await;
    let before = ev.state().await;
    assert_eq!(
        before["players"][0]["rating"], 1850,
        "digits as text are a rating"
    );
    let said = ev
        .director(
            "POST",
            "/players",
            json!({"name":"Bob","rating":"19x0"}),
            400,
        )
        .await;
    assert_eq!(
        said["error"],
        "rating: \"19x0\" is not a rating (a whole number, 0 to 4000)"
    );
    // A number that is no rating at all (a fraction, a negative, 1e30) is refused the
    // same way, naming the field.
    for bad in [json!(1850.5), json!(-5), json!(1e30)] {
        let said = ev
            .director("POST", "/players", json!({"name":"Bob","rating":bad}), 400)
            .await;
        assert_eq!(
            said["error"],
            format!("rating: {bad} is not a rating (a whole number, 0 to 4000)"),
            "{said}"
        );
    }
    let said = ev
        .director(
            "POST",
            "/players",
            json!({"players":[{"name":"Bob","rating":1900},{"name":"Cy","rating":"l800"}]}),
            400,
        )
        .await;
    assert!(
        said["error"]
            .as_str()
            .unwrap()
            .starts_with("players[2].rating: \"l800\""),
        "{said}"
    );
    let (status, _, body) = call_raw(
        srv.addr,
        "POST",
        &ev.path("/players"),
        Some(&ev.director),
        "text/csv",
        b"name,rating\nBob,1900\nCy,19x0\n",
    )
    .await;
    let body = String::from_utf8_lossy(&body);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("line 3: rating \\\"19x0\\\""), "{body}");
    assert_eq!(ev.state().await, before, "nobody entered");
    srv.stop().await;
}

fn number_of(summary: &Value, name: &str) -> u64 {
    summary["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {summary}"))["number"]
        .as_u64()
        .unwrap()
}

/// A player's details corrected from the console: before round 1 the numbers follow the
/// rating; a new name gives a new link (the old one stops); a removal before round 1 and
/// the same name entered again; after round 1 the numbers stay and removal is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_are_edited_and_removed() {
    let srv = Server::start().await;
    let addr = srv.addr;
    let ev = Evening::create(addr, form_body("Edits")).await;
    let added = ev
        .director(
            "POST",
            "/players?check_in=true",
            json!({"players":[{"name":"Ann","rating":2000},{"name":"Bob"},
                              {"name":"Cy","rating":1800},{"name":"Di","rating":1700}]}),
            201,
        )
        .await;
    let link_of = |name: &str| {
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
    let s = ev.get("").await;
    assert_eq!(number_of(&s, "Bob"), 4, "unrated: last");
    // Bob's rating was mistyped: 1950 moves him to number 2.
    let a = ev
        .director(
            "PUT",
            "/players/4",
            json!({"name":"Bob","rating":"1950","federation":"usa","fide_id":"","uscf_id":"12345678"}),
            200,
        )
        .await;
    assert!(a["link"].is_null(), "the same name keeps its link: {a}");
    assert!(
        a["effects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["effect"] == "renumbered"),
        "{a}"
    );
    let s = ev.get("").await;
    assert_eq!(number_of(&s, "Bob"), 2);
    assert_eq!(number_of(&s, "Cy"), 3);
    let bob = &s["players"][1];
    assert_eq!(
        (&bob["rating"], &bob["federation"], &bob["uscf_id"]),
        (&json!(1950), &json!("USA"), &json!("12345678"))
    );
    // Refusals name the field and change nothing.
    let before = ev.state().await;
    for (body, said) in [
        (
            json!({"name":"Bob","rating":"19x0"}),
            "rating: \"19x0\" is not a rating",
        ),
        (json!({"name":"Bob","federation":"US"}), "federation"),
        (json!({"name":"Bob","uscf_id":"12"}), "12"),
        (
            json!({"name":"Bob","fide_id":"x1"}),
            "fide_id: \"x1\" is not a FIDE id",
        ),
        (
            json!({"name":"Ann"}),
            "\"Ann\" is the name of another player",
        ),
        (json!({"name":"  "}), "name"),
        (json!({"name":"Bob","age":3}), "unknown field `age`"),
    ] {
        let v = ev.director("PUT", "/players/2", body.clone(), 400).await;
        let text = v["error"].as_str().unwrap_or_default().to_string();
        assert!(text.contains(said), "{body}: {text}");
    }
    let (status, _) = call(
        addr,
        "PUT",
        &ev.path("/players/2"),
        Some(&link_of("Ann")),
        r#"{"name":"Bobby"}"#,
    )
    .await;
    assert_eq!(status, 403, "a player does not edit players");
    let (status, _) = call(
        addr,
        "PUT",
        &ev.path("/players/9"),
        Some(&ev.director),
        r#"{"name":"Zed"}"#,
    )
    .await;
    assert_eq!(status, 404, "no player 9");
    assert_eq!(ev.state().await, before);
    // A new name: a new link; the old link no longer opens the player's page.
    let a = ev
        .director(
            "PUT",
            "/players/3",
            json!({"name":"Cyrus Ott","rating":1800}),
            200,
        )
        .await;
    let link = a["link"].as_str().expect("a new link").to_string();
    let token = link.split("token=").nth(1).unwrap().to_string();
    let me = expect(addr, "GET", &ev.path("/me"), Some(&token), "", 200).await;
    assert_eq!(me["name"], "Cyrus Ott");
    let (status, _) = call(addr, "GET", &ev.path("/me"), Some(&link_of("Cy")), "").await;
    assert_ne!(status, 200, "the old name's link");
    // The director reads the new link again for the QR cards.
    let links = ev.director("GET", "/links", Value::Null, 200).await;
    let listed = links["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Cyrus Ott")
        .unwrap()["link"]
        .clone();
    assert_eq!(listed, json!(link));
    // Removed before round 1, then entered again under the same name.
    ev.director("POST", "/players/4/remove", Value::Null, 200)
        .await;
    let s = ev.get("").await;
    assert_eq!(s["players"].as_array().unwrap().len(), 3);
    ev.director(
        "POST",
        "/players?check_in=true",
        json!({"name":"Di","rating":1700}),
        201,
    )
    .await;
    // After round 1 the numbers stay; removal is refused and says what to do instead.
    ev.director("POST", "/rounds", Value::Null, 201).await;
    let numbers = |s: &Value| -> Vec<(String, u64)> {
        s["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().into(),
                    p["number"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let paired = numbers(&ev.get("").await);
    ev.director("PUT", "/players/4", json!({"name":"Di","rating":2400}), 200)
        .await;
    let s = ev.get("").await;
    assert_eq!(numbers(&s), paired, "the numbers stay after round 1");
    assert_eq!(s["players"][3]["rating"], 2400);
    let said = ev
        .director("POST", "/players/4/remove", Value::Null, 409)
        .await;
    assert!(
        said["error"].as_str().unwrap().contains("withdraw"),
        "{said}"
    );
    // The log names the edits; everything (the new link too) survives a restart.
    let log = ev.director("GET", "/log", Value::Null, 200).await;
    let edits = log["log"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["change"]["change"] == "edit-player")
        .count();
    assert_eq!(edits, 3);
    let state = ev.state().await;
    let db = srv.stop_keeping_db().await;
    let srv = Server::start_on(db).await;
    let ev = Evening {
        addr: srv.addr,
        id: ev.id.clone(),
        director: ev.director.clone(),
    };
    assert_eq!(ev.state().await, state);
    let me = expect(srv.addr, "GET", &ev.path("/me"), Some(&token), "", 200).await;
    assert_eq!(me["name"], "Cyrus Ott");
    srv.stop().await;
}
