//! Issue 33 item 5: one permission model. The server refuses exactly what the state's
//! `actions` (`flagfall_protocol::Actions::of`) do not offer a role, across the draw-offer
//! cases, for every role, over the board and online.

use serde_json::{Value, json};

use crate::support::*;

const BODIES: [(&str, &str); 2] = [
    (
        "over the board",
        r#"{"rules":"uscf-2020","time_control":"G/5;d0","director":true}"#,
    ),
    (
        "online",
        r#"{"rules":"fide-b3","time_control":"3+2","director":true,"mode":"online"}"#,
    ),
];

/// Whether the answer to the sender of an action is a refusal: screened (`refused`), or
/// stored with the arbiter's refusal among its rulings.
fn is_refusal(answer: &Value) -> bool {
    answer["type"] == "refused"
        || answer["rulings"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["kind"] == "refused"))
}

/// Whether the state's `actions` offer `role` the action of `frame`.
fn offered(state: &Value, role: &str, frame: &Value) -> bool {
    let field = if frame.get("offer").is_some() {
        "offer_draw"
    } else if frame.get("resign").is_some() {
        "resign"
    } else {
        "answer_draw"
    };
    state["actions"][role][field] == true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_refuses_exactly_what_actions_do_not_offer_around_draw_offers() {
    let srv = Server::start().await;
    let cases: [(&str, &[(&str, Value)]); 5] = [
        ("no offer", &[]),
        (
            "White's offer stands",
            &[
                ("white", json!({"move":"e2e4","press":true})),
                ("white", json!({"offer":"draw"})),
            ],
        ),
        (
            "Black's offer stands",
            &[
                ("white", json!({"move":"e2e4","press":true})),
                ("black", json!({"move":"e7e5","press":true})),
                ("black", json!({"offer":"draw"})),
            ],
        ),
        (
            "White's offer declined",
            &[
                ("white", json!({"offer":"draw"})),
                ("black", json!({"decline":"draw"})),
            ],
        ),
        ("Black resigned", &[("black", json!({"resign":true}))]),
    ];
    let frames = [
        json!({"offer":"draw"}),
        json!({"accept":"draw"}),
        json!({"decline":"draw"}),
        json!({"resign":true}),
    ];
    let mut refused = 0;
    for (mode, body) in BODIES {
        for (when, prefix) in &cases {
            for frame in &frames {
                let g = srv.create(body).await;
                let mut sockets = [
                    ("white", srv.connect(&g.id, Some(&g.tokens.white)).await),
                    ("black", srv.connect(&g.id, Some(&g.tokens.black)).await),
                    (
                        "director",
                        srv.connect(&g.id, Some(&g.tokens.director)).await,
                    ),
                    ("spectator", srv.connect(&g.id, None).await),
                ];
                for (i, (role, f)) in prefix.iter().enumerate() {
                    let id = format!("p{i}");
                    let mut f = f.clone();
                    f["id"] = json!(id);
                    let socket = &mut sockets.iter_mut().find(|s| s.0 == *role).unwrap().1;
                    socket.send(f).await;
                    let answer = socket.until(|m| m["id"] == id.as_str()).await;
                    assert!(!is_refusal(&answer), "{mode}, {when}: {answer}");
                }
                // Those refused first, so that the state stays the case's for them.
                for (role, socket) in sockets.iter_mut().rev() {
                    let state = srv.state(&g.id).await;
                    let may = offered(&state, role, frame);
                    // Every socket reads every event with its id: one id per sender.
                    let id = format!("x-{role}");
                    let mut f = frame.clone();
                    f["id"] = json!(id);
                    socket.send(f).await;
                    let answer = socket.until(|m| m["id"] == id.as_str()).await;
                    assert_eq!(
                        is_refusal(&answer),
                        !may,
                        "{mode}, {when}: {role} sends {frame}: {answer} (actions {})",
                        state["actions"]
                    );
                    refused += usize::from(!may);
                }
            }
        }
    }
    assert!(refused > 0, "some action was refused");
    srv.stop().await;
}

/// A player's draw offer while the opponent's stands is refused (it used to replace the
/// standing offer), naming the offer and the agreement rule, and not stored; the
/// opponent's offer still stands and is accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offer_while_the_opponents_stands_is_refused_and_not_stored() {
    let srv = Server::start().await;
    let g = srv.create(BODIES[0].1).await;
    let mut white = srv.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = srv.connect(&g.id, Some(&g.tokens.black)).await;
    white.send(json!({"offer":"draw","id":"w"})).await;
    white.until(|m| m["id"] == "w").await;
    black.send(json!({"offer":"draw","id":"b"})).await;
    let answer = black.until(|m| m["id"] == "b").await;
    assert_eq!(answer["type"], "refused", "{answer}");
    assert_eq!(
        answer["reason"], "White's draw offer stands: accept or decline it",
        "{answer}"
    );
    assert_eq!(answer["rule"], "uscf-2020 8b", "{answer}");
    let state = srv.state(&g.id).await;
    assert_eq!(
        (state["n"].as_u64(), &state["draw_offer"]),
        (Some(1), &json!("white"))
    );
    black.send(json!({"accept":"draw","id":"a"})).await;
    let ev = black.until(|m| m["id"] == "a").await;
    assert_eq!(ev["result"], "1/2-1/2", "{ev}");
    srv.stop().await;
}
