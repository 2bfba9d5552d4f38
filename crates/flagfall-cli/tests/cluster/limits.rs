//! Issue 32, item 8: a player's limits across the nodes. A player with sockets on every
//! node gets, for its actions, one frame allowance in the whole cluster (each routed
//! action is charged at the game's owner, to the bucket its sockets there take from),
//! not one per node; its sockets are counted per node (docs/cluster.md "What is per
//! node" says why, and what bounds them).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::client::{Incoming, Ws, http};
use crate::infra::Cluster;
use crate::table::*;

/// The nodes' frame limit in this test (`--socket-rate`): frames a second, sustained.
const RATE: f64 = 10.0;
/// Its burst (twice the rate, as `flagfall serve` makes it).
const BURST: f64 = 2.0 * RATE;
/// The server's default sockets per token (`limits::SOCKETS_PER_TOKEN`).
const SOCKETS_PER_TOKEN: usize = 8;

/// An online game (an illegal move is refused unstored there: the flood stores
/// nothing), created on `addr`.
async fn online_game(addr: std::net::SocketAddr) -> Game {
    let (status, body) = http(
        addr,
        "POST",
        "/api/games",
        r#"{"rules":"uscf-2020","time_control":"G/5;d0","mode":"online"}"#,
        Duration::from_secs(10),
    )
    .await
    .unwrap_or_else(|e| panic!("POST /api/games: {e}"));
    assert_eq!(status, 201, "POST /api/games: {body}");
    let v: Value = serde_json::from_str(&body).expect("a create answer");
    let s = |x: &Value| x.as_str().map(str::to_string).expect("a string");
    Game {
        id: s(&v["id"]),
        white: s(&v["tokens"]["white"]),
        black: s(&v["tokens"]["black"]),
        director: s(&v["tokens"]["director"]),
    }
}

/// What the answers to one socket's actions were.
#[derive(Debug, Default)]
struct Answers {
    /// Refused by the game's rules: the action reached the game's task.
    reached: u32,
    /// Dropped by a rate limit (the socket's node's, or the owner's).
    limited: u32,
    /// Dropped by the owner's limit for a routed action (the answer names the action's
    /// id; a node's own socket's frame dropped is answered without one).
    limited_at_owner: u32,
    /// When the last answer came: every charge of these actions was made before.
    last: Option<Instant>,
}

impl Answers {
    fn take(&mut self, m: &Value, who: &str) {
        if matches!(m["type"].as_str(), Some("refused") | Some("error")) {
            self.last = Some(Instant::now());
        }
        match m["type"].as_str() {
            Some("refused") => self.reached += 1,
            Some("error")
                if m["message"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("rate limit")) =>
            {
                self.limited += 1;
                if m["id"].is_string() {
                    self.limited_at_owner += 1;
                }
            }
            // The server's pings' answers, a clock: not an answer to an action.
            Some("pong") | Some("state") | Some("event") => {}
            _ => panic!("{who}: an answer that is neither a refusal nor a rate limit: {m}"),
        }
    }

    fn answered(&self) -> u32 {
        self.reached + self.limited
    }
}

/// One socket sends `count` illegal moves, one every `every` from `start`, reading the
/// answers as they come; then reads until every action is answered.
async fn flood(
    mut ws: Ws,
    who: String,
    start: Instant,
    every: Duration,
    count: u32,
) -> (Ws, Answers) {
    let mut answers = Answers::default();
    for k in 0..count {
        tokio::time::sleep_until(start + every * k).await;
        let action = json!({"move": "e2e5", "id": format!("{who}-{k}")});
        ws.send(&action)
            .await
            .unwrap_or_else(|e| panic!("{who}: send action {k}: {e}"));
        loop {
            match ws.recv(Duration::from_millis(1)).await {
                Incoming::Msg(m) => answers.take(&m, &who),
                Incoming::Silent => break,
                Incoming::Closed(code, reason) => {
                    panic!("{who}: the socket closed ({code} {reason:?}) during the flood")
                }
            }
        }
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while answers.answered() < count {
        match ws
            .recv(deadline.saturating_duration_since(Instant::now()))
            .await
        {
            Incoming::Msg(m) => answers.take(&m, &who),
            Incoming::Silent => panic!(
                "{who}: {} of {count} actions answered 20 s after the last went out: {answers:?}",
                answers.answered()
            ),
            Incoming::Closed(code, reason) => {
                panic!("{who}: the socket closed ({code} {reason:?}) before every answer")
            }
        }
    }
    (ws, answers)
}

/// White, with a socket on each of the three nodes (the owner's and two others), sends
/// illegal moves on all three at once, each socket at 80% of a node's rate (so neither
/// other node's bucket drops one of its socket's frames): 2.4 times the allowance in all. What reaches the
/// game is one player's allowance (the burst and the rate over the flood), not three:
/// the owner charges the routed actions to the bucket of White's socket on it. Then the
/// allowance comes back (a move is acknowledged); the game stored nothing of the flood.
/// White's sockets are counted per node: the ninth on one node is refused (429), one
/// more on another node is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn a_player_on_every_node_gets_one_frame_allowance() {
    let c = Cluster::start_with_rate(&RATE.to_string()).await;
    let dir = c.dir.clone();
    let g = online_game(dir.addrs[0]).await;
    let owner = wait_owner(&dir, &g.id, |_| true, Duration::from_secs(10)).await;
    eprintln!("game {} (online) is owned by {owner}", g.id);
    let wait = Duration::from_secs(5);
    let mut sockets = Vec::new();
    for i in 0..dir.addrs.len() {
        sockets.push(
            Ws::connect(dir.addrs[i], &g.id, Some(&g.white), wait)
                .await
                .unwrap_or_else(|e| panic!("White's socket on {}: {e}", dir.names[i])),
        );
    }

    let per_socket = 0.8 * RATE;
    let every = Duration::from_secs_f64(1.0 / per_socket);
    let flood_for = Duration::from_secs(4);
    let count = (flood_for.as_secs_f64() * per_socket) as u32;
    let start = Instant::now() + Duration::from_millis(100);
    let floods: Vec<_> = sockets
        .into_iter()
        .enumerate()
        .map(|(i, ws)| {
            let who = format!("white@{}", dir.names[i]);
            tokio::spawn(flood(ws, who, start, every, count))
        })
        .collect();
    let mut sockets = Vec::new();
    let mut reached = 0;
    let mut limited = 0;
    let mut limited_at_owner = 0;
    let mut last = start;
    for (i, f) in floods.into_iter().enumerate() {
        let (ws, a) = f.await.expect("a flood's task");
        eprintln!("White's socket on {}: {count} sent, {a:?}", dir.names[i]);
        reached += a.reached;
        limited += a.limited;
        limited_at_owner += a.limited_at_owner;
        last = last.max(a.last.unwrap_or(start));
        sockets.push(ws);
    }
    // Every action was charged between the start and its answer: the allowance is the
    // burst and the rate over that time (one more for the edges). Three nodes' buckets
    // would let every action through (each socket sends under a node's rate).
    let spread = every * (count - 1);
    let charged_within = last - start;
    let allowance = BURST + RATE * charged_within.as_secs_f64() + 1.0;
    let sent = 3 * count;
    eprintln!(
        "White sent {sent} actions over {spread:?} on three nodes ({:.0} a second), the last \
         answered {charged_within:?} after the first went out; {reached} reached the game \
         (one player's allowance over that time: {allowance:.0}; a bucket per node would \
         have let all {sent} through), {limited} dropped, {limited_at_owner} of them routed \
         and dropped by the owner",
        sent as f64 / spread.as_secs_f64(),
    );
    assert!(
        f64::from(reached) <= allowance,
        "{reached} of White's actions reached the game in {charged_within:?}: more than one \
         player's allowance ({allowance:.0}: a burst of {BURST} and {RATE} a second)"
    );
    assert!(
        limited_at_owner > 0,
        "the owner dropped none of White's routed actions ({limited} dropped on the sockets' nodes)"
    );
    // The allowance is one player's, not less: the flood was 2.4 times it, and what
    // reached the game was at least what a single socket sending at the rate would get.
    assert!(
        f64::from(reached) >= RATE * spread.as_secs_f64() * 0.8,
        "only {reached} of White's actions reached the game in {spread:?}: less than one \
         player's allowance"
    );

    // The bucket fills again: after a burst's worth of time, White's move is played.
    tokio::time::sleep(Duration::from_secs_f64(BURST / RATE)).await;
    let mv = json!({"move": "e2e4", "id": "after"});
    let ws = &mut sockets[1];
    ws.send(&mv).await.expect("send e2e4");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match ws
            .recv(deadline.saturating_duration_since(Instant::now()))
            .await
        {
            Incoming::Msg(m) if m["id"] == "after" => {
                assert_eq!(m["type"], "event", "e2e4 after the flood: {m}");
                assert_eq!(m["n"], 1, "e2e4 is the game's first event: {m}");
                break;
            }
            Incoming::Msg(_) => {}
            other => panic!("e2e4 after the flood: {other:?}"),
        }
    }
    let events = c.events(&g.id).await;
    assert_eq!(
        events.len(),
        1,
        "the flood stored something (online illegal moves are refused unstored): {events:?}"
    );

    // Sockets: counted per node. White has one on each node; seven more on n1 make
    // eight there, and the ninth is refused; one more on n2 is taken.
    for k in 1..SOCKETS_PER_TOKEN {
        sockets.push(
            Ws::connect(dir.addrs[0], &g.id, Some(&g.white), wait)
                .await
                .unwrap_or_else(|e| panic!("White's socket {} on n1: {e}", k + 1)),
        );
    }
    match Ws::connect(dir.addrs[0], &g.id, Some(&g.white), wait).await {
        Err(e) => {
            assert!(e.contains("429"), "the ninth socket on n1: {e}");
            eprintln!("White's ninth socket on n1: {e}");
        }
        Ok(_) => panic!("White's ninth socket on n1 was taken"),
    }
    sockets.push(
        Ws::connect(dir.addrs[1], &g.id, Some(&g.white), wait)
            .await
            .unwrap_or_else(|e| panic!("White's second socket on n2: {e}")),
    );
    c.print_metrics(&[]).await;
}

/// Issue 34's leftover: a node answers at most `ANSWERING_AT_ONCE` (512) requests from
/// other nodes at once. Six hundred actions sent on the owner's request subject at once
/// (with another node's credentials, as a node far behind would send them), while
/// every byte between the owner and PostgreSQL takes 150 ms each way (a commit takes a
/// few round trips of 300 ms; a renewal still ends within its deadline of half a lease): the 88 past the cap are answered busy at once, before any
/// other answer; the 512 are answered once the database answers (one stored, the rest
/// refused unstored); the places are given back (a ping is answered); the node counts
/// 512 + 1 requests answered; and the database holds the one move, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn requests_past_the_cap_are_answered_busy_at_once() {
    use flagfall_server::cluster::route::ANSWERING_AT_ONCE;
    use flagfall_server::seam::{Req, Resp};
    use futures_util::StreamExt;

    const SENT: usize = 600;
    let c = Cluster::start().await;
    let g = online_game(c.dir.addrs[0]).await;
    let owner = wait_owner(&c.dir, &g.id, |_| true, Duration::from_secs(10)).await;
    let o = c.dir.index_of(&owner).expect("the owner is a node");
    let node = &c.nodes[o];
    let answered_before = node
        .metric("flagfall_cluster_routed_in_total")
        .await
        .unwrap_or(0.0);

    // Another node's credentials (the test's nats-server lets nobody else on
    // `flagfall.>`): the flood comes as from a node far behind, or taken over.
    let peer = &c.dir.names[(o + 1) % 3];
    let seed = std::fs::read_to_string(c.nats.seed_file(peer)).unwrap();
    let nats = async_nats::ConnectOptions::new()
        .nkey(seed.trim().to_string())
        .connect(c.nats.url())
        .await
        .expect("a client of the test's nats-server, with a node's nkey");
    let mut answers = nats.subscribe("_INBOX.flood.*").await.unwrap();
    nats.flush().await.unwrap();
    let act = |i: usize| Req::Act {
        game: g.id.clone(),
        token_hash: Some(flagfall_server::token_hash(&g.white)),
        frame: json!({"move": "e2e4", "id": format!("f{i}")}).to_string(),
        rtt_ms: None,
        waited_ms: 0,
    };
    node.proxy.delay(Duration::from_millis(150));
    let subject = format!("flagfall.node.{owner}");
    for i in 0..SENT {
        let body = serde_json::to_vec(&act(i)).unwrap();
        nats.publish_with_reply(subject.clone(), format!("_INBOX.flood.{i}"), body.into())
            .await
            .unwrap();
    }
    nats.flush().await.unwrap();
    let sent = Instant::now();

    // Every answer, in the order they came.
    let mut got: Vec<(usize, Resp, Duration)> = Vec::new();
    while got.len() < SENT {
        let msg = tokio::time::timeout(Duration::from_secs(30), answers.next())
            .await
            .unwrap_or_else(|_| panic!("{} answers of {SENT} within 30 s", got.len()))
            .expect("the subscription stays open");
        let i: usize = msg.subject.rsplit('.').next().unwrap().parse().unwrap();
        let resp: Resp = serde_json::from_slice(&msg.payload)
            .unwrap_or_else(|e| panic!("answer {i} unreadable ({e}): {:?}", msg.payload));
        got.push((i, resp, sent.elapsed()));
    }
    node.proxy.delay(Duration::ZERO);
    let busy = got
        .iter()
        .filter(|(_, r, _)| matches!(r, Resp::Busy))
        .count();
    let last_busy = got.iter().rev().find(|(_, r, _)| matches!(r, Resp::Busy));
    eprintln!(
        "{busy} busy answers, the last after {:?}; the last answer after {:?}",
        last_busy.map(|b| b.2),
        got[SENT - 1].2
    );
    assert_eq!(busy, SENT - ANSWERING_AT_ONCE, "busy answers: {busy}");
    let first_other = got
        .iter()
        .position(|(_, r, _)| !matches!(r, Resp::Busy))
        .expect("some answered");
    assert_eq!(
        first_other,
        busy,
        "every busy answer came before the first other: {:?}",
        got.iter().take(first_other + 3).collect::<Vec<_>>()
    );
    let stored: Vec<_> = got
        .iter()
        .filter(|(_, r, _)| matches!(r, Resp::Stored(_)))
        .collect();
    assert_eq!(stored.len(), 1, "one of the moves stored: {stored:?}");
    assert!(matches!(stored[0].1, Resp::Stored(1)), "{stored:?}");
    for (i, r, _) in &got {
        match r {
            Resp::Busy | Resp::Stored(_) => {}
            Resp::Direct(text) => assert!(text.contains("refused"), "answer {i}: {text}"),
            other => panic!("answer {i}: {other:?}"),
        }
    }

    // The places are given back: a ping is answered, not refused busy.
    let ping = serde_json::to_vec(&Req::Ping { game: g.id.clone() }).unwrap();
    let reply = tokio::time::timeout(
        Duration::from_secs(10),
        nats.request(subject.clone(), ping.into()),
    )
    .await
    .expect("a ping answered within 10 s")
    .expect("a ping answered");
    assert!(
        matches!(serde_json::from_slice(&reply.payload), Ok(Resp::Now(_))),
        "{:?}",
        reply.payload
    );
    let answered = node
        .metric("flagfall_cluster_routed_in_total")
        .await
        .unwrap_or(0.0)
        - answered_before;
    assert_eq!(answered, (ANSWERING_AT_ONCE + 1) as f64);
    c.wait_health(node, 200, Duration::from_secs(10)).await;
    // The database's record: the move, once.
    let events = c.events(&g.id).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(events[0].2.contains("e2e4"), "{events:?}");
}
