//! One evening served by two servers on the same database without a cluster (issue 22,
//! part E): two writers of its log. Each catches up with the other's stored changes
//! before it applies one of its own (its live socket sees them as its own), and a change
//! whose seq the other took first is applied again on top of it, or refused when it no
//! longer applies. The notices between a cluster's nodes are tested by the `cluster`
//! binary.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};

use crate::evening::{Evening, call, expect, next_json};
use crate::support::*;

/// The players' names of an evening as `GET` answers it on `addr`.
async fn names(addr: std::net::SocketAddr, ev: &Evening) -> Vec<String> {
    let v = expect(addr, "GET", &ev.path(""), None, "", 200).await;
    let mut names: Vec<String> = v["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// The director adds `name` on `addr`: the status and the body.
async fn add(addr: std::net::SocketAddr, ev: &Evening, name: &str) -> (u16, Value) {
    let (status, text) = call(
        addr,
        "POST",
        &ev.path("/players"),
        Some(&ev.director),
        &json!({"players":[{"name": name}]}).to_string(),
    )
    .await;
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn players_of(msg: &Value) -> Vec<String> {
    let mut v: Vec<String> = msg["players"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| p["name"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_database_catch_up_and_retry_a_lost_seq() {
    let a = Server::start().await;
    let (b, faults) = Server::start_faulty_on(Db::at(a.db_url())).await;
    let ev = Evening::create(
        a.addr,
        json!({"name":"Two doors","format":"swiss","rounds":3,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board"}),
    )
    .await;
    // The director's console on B (B loads the evening from the store).
    let (mut console, _) = tokio_tungstenite::connect_async(format!(
        "ws://{}/ws/events/{}?token={}",
        b.addr, ev.id, ev.director
    ))
    .await
    .unwrap();
    let first = next_json(&mut console).await;
    assert_eq!(first["type"], "state", "{first}");

    // Catch-up: two players entered on A; B hears nothing of it (no cluster, no
    // notices) until its own next change, which it makes on top of A's.
    assert_eq!(add(a.addr, &ev, "Ann").await.0, 201);
    assert_eq!(add(a.addr, &ev, "Bob").await.0, 201);
    let (status, body) = add(b.addr, &ev, "Cy").await;
    assert_eq!(status, 201, "{body}");
    // A's two rows reach B's console as A's own changes would, then B's.
    let caught = next_json(&mut console).await;
    assert_eq!(caught["type"], "change", "{caught}");
    assert_eq!(caught["seq"], 2, "{caught}");
    assert_eq!(caught["rows"].as_array().unwrap().len(), 2, "{caught}");
    assert_eq!(players_of(&caught), ["Ann", "Bob"], "{caught}");
    let own = next_json(&mut console).await;
    assert_eq!(own["seq"], 3, "{own}");
    assert_eq!(players_of(&own), ["Ann", "Bob", "Cy"], "{own}");
    // Cy's link works on B at once (its token came with the row), and on A after A's
    // next change.
    let cy = body["players"][0]["token"].as_str().unwrap().to_string();
    let listed = expect(b.addr, "GET", &ev.path(""), None, "", 200).await;
    let cy_number = listed["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Cy")
        .unwrap()["number"]
        .as_u64()
        .unwrap();
    let check_in = ev.path(&format!("/players/{cy_number}/check-in"));
    let (status, text) = call(b.addr, "POST", &check_in, Some(&cy), "").await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(names(b.addr, &ev).await, ["Ann", "Bob", "Cy"]);

    // Two writers at once: B's commit waits while A stores a change with the seq B
    // meant to take. B's commit is refused by the log's key, B reads A's row and
    // stores its change after it: both land, in A's order first.
    faults.evening_stall_ms.store(1500, Ordering::SeqCst);
    let slow = {
        let ev = Evening {
            addr: b.addr,
            id: ev.id.clone(),
            director: ev.director.clone(),
        };
        tokio::spawn(async move { add(ev.addr, &ev, "Dee").await })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(add(a.addr, &ev, "Eve").await.0, 201, "A is not held up");
    let (status, body) = slow.await.unwrap();
    assert_eq!(
        status, 201,
        "B's change applied again on top of A's: {body}"
    );
    let all = ["Ann", "Bob", "Cy", "Dee", "Eve"];
    assert_eq!(names(b.addr, &ev).await, all);
    // The console saw the check-in (B's), then Eve (A's, caught up), then Dee.
    let checked = next_json(&mut console).await;
    assert_eq!(checked["seq"], 4, "{checked}");
    let eve = next_json(&mut console).await;
    assert_eq!(eve["seq"], 5, "{eve}");
    assert!(players_of(&eve).contains(&"Eve".to_string()), "{eve}");
    assert!(!players_of(&eve).contains(&"Dee".to_string()), "{eve}");
    let dee = next_json(&mut console).await;
    assert_eq!(dee["seq"], 6, "{dee}");
    assert_eq!(players_of(&dee), all, "{dee}");

    // The same race when the change no longer applies on top of the other's: the same
    // name entered on both. B's is refused, saying why; Fay is in the event once.
    let slow = {
        let ev = Evening {
            addr: b.addr,
            id: ev.id.clone(),
            director: ev.director.clone(),
        };
        tokio::spawn(async move { add(ev.addr, &ev, "Fay").await })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(add(a.addr, &ev, "Fay").await.0, 201);
    let (status, body) = slow.await.unwrap();
    assert_eq!(status, 409, "{body}");
    let said = body["error"].as_str().unwrap_or_default();
    assert!(said.contains("Fay") && said.contains("already"), "{body}");
    faults.evening_stall_ms.store(0, Ordering::SeqCst);
    let all = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"];
    assert_eq!(names(b.addr, &ev).await, all);

    // A, stale since its last change, catches up with B's before its next one; both
    // servers then agree on the whole evening, seq included.
    assert_eq!(add(a.addr, &ev, "Gus").await.0, 201);
    let on_a = expect(a.addr, "GET", &ev.path(""), None, "", 200).await;
    assert_eq!(on_a["seq"], 8, "{on_a}");
    let gus_on_b = {
        // B learns of Gus at its next change: a refused one reads the log too.
        let (status, _) = add(b.addr, &ev, "Gus").await;
        assert_eq!(status, 409, "Gus is in already, as B now knows");
        expect(b.addr, "GET", &ev.path(""), None, "", 200).await
    };
    assert_eq!(gus_on_b, on_a);
    // A server loading the evening afresh reads the same: one row per change, in order.
    b.stop().await;
    let c = Server::start_on(Db::at(a.db_url())).await;
    assert_eq!(
        expect(c.addr, "GET", &ev.path(""), None, "", 200).await,
        on_a
    );
    c.stop().await;
    a.stop().await;
}
