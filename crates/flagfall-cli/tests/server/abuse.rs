//! Issue 19's abuse items, end to end against the real server: bounded setups and names,
//! the practice computer that never repeats a refused action, security headers and
//! WebSocket close codes, HTTP timeouts and limits.

use serde_json::{Value, json};

use crate::support::*;

/// The error text of a refused request, checked to name `field`.
fn names_field(status: u16, body: &str, field: &str) {
    assert_eq!(status, 400, "{body}");
    let v: Value = serde_json::from_str(body).expect("a JSON error");
    let e = v["error"].as_str().expect("an error message");
    assert!(e.contains(&format!("`{field}`")), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simultaneous_ms_is_capped_everywhere_a_game_is_made() {
    let srv = Server::start().await;
    let huge = r#"{"rules":"uscf-2020","time_control":"G/5;d0","simultaneous_ms":1000000000}"#;
    let (status, body) = srv.post("/api/games", huge).await;
    names_field(status, &body, "simultaneous_ms");
    assert!(body.contains("2000"), "the limit is named: {body}");
    let (status, body) = srv.post("/api/challenges", huge).await;
    names_field(status, &body, "simultaneous_ms");
    let practice = json!({
        "setup": serde_json::from_str::<Value>(huge).unwrap(),
        "computer": {"color": "black", "level": 1}
    });
    let (status, body) = srv.post("/api/practice", &practice.to_string()).await;
    names_field(status, &body, "simultaneous_ms");
    // The largest allowed window is taken, and the game plays on after it.
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"G/5;d0","simultaneous_ms":2000}"#)
        .await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    white.send(json!({"move":"e2e4","press":true})).await;
    assert_eq!(white.event().await["n"], 1);
    srv.stop().await;
}
