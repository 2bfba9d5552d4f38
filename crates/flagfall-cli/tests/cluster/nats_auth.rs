//! Strangers on NATS (issue 30, item 8): the test's nats-server requires credentials
//! (the nodes log in with nkeys of their own, docs/cluster.md), so a client without any
//! is refused; a user that is not a node cannot reach `flagfall.>`; and even a client
//! holding a node's credentials cannot act beyond the tokens it holds: the owner finds
//! a routed action's role from the game's tokens, bounds its `waited_ms`, and refuses
//! (and counts) what it cannot read. Nothing forged reaches the stored events.

use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;

use std::process::{Child, Command, Stdio};

use crate::infra::{Cluster, Log, Nats, OTHER_USER, PgDb};
use crate::table::{Game, create_game, wait_owner};

/// The hash a node sends for a token (`flagfall_server::token_hash`: SHA-256, hex).
fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A client of the test's nats-server with `options`, whose server errors (a refused
/// subject) arrive on the receiver.
async fn connect(
    nats: &Nats,
    options: async_nats::ConnectOptions,
) -> Result<(async_nats::Client, mpsc::UnboundedReceiver<String>), async_nats::ConnectError> {
    let (tx, rx) = mpsc::unbounded_channel();
    let client = options
        .request_timeout(Some(Duration::from_secs(2)))
        .event_callback(move |e| {
            let tx = tx.clone();
            async move {
                if let async_nats::Event::ServerError(e) = e {
                    let _ = tx.send(e.to_string());
                }
            }
        })
        .connect(nats.url())
        .await?;
    Ok((client, rx))
}

/// A game of the cluster (director present) and its owner's index.
async fn game(c: &Cluster) -> (Game, usize) {
    let g = create_game(c.dir.addrs[0]).await;
    let owner = wait_owner(&c.dir, &g.id, |_| true, Duration::from_secs(10)).await;
    let o = c.dir.index_of(&owner).expect("the owner is a node");
    eprintln!("game {} is owned by {owner}", g.id);
    (g, o)
}

/// Wait for a server error naming `what` on `errors`, within 5 s.
async fn server_error(errors: &mut mpsc::UnboundedReceiver<String>, what: &str) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match tokio::time::timeout_at(deadline, errors.recv()).await {
            Ok(Some(e)) if e.to_lowercase().contains(what) => return e,
            Ok(Some(_)) => continue,
            _ => panic!("no server error naming {what:?} within 5 s"),
        }
    }
}

/// Without credentials nats-server refuses the connection; with a non-node user's it
/// accepts the connection but neither a request to a node nor a subscription to a
/// game's messages gets through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn nats_refuses_strangers_and_keeps_other_users_off_the_cluster() {
    let c = Cluster::start().await;
    let (g, o) = game(&c).await;
    let owner = &c.nodes[o];

    // No credentials: refused at the door.
    let refused = async_nats::ConnectOptions::new()
        .connect(c.nats.url())
        .await
        .err()
        .unwrap_or_else(|| panic!("nats-server accepted a client without credentials"));
    let why = refused.to_string().to_lowercase();
    assert!(
        why.contains("authorization"),
        "refused for the wrong reason: {why}"
    );
    eprintln!("without credentials: {refused}");

    // A user that is not a node: logged in, kept off flagfall.>.
    let routed_before = owner
        .metric("flagfall_cluster_routed_in_total")
        .await
        .expect("the owner counts routed requests");
    let (user, password) = OTHER_USER;
    let (other, mut errors) = connect(
        &c.nats,
        async_nats::ConnectOptions::new().user_and_password(user.into(), password.into()),
    )
    .await
    .expect("the other application's user logs in");
    let ping = json!({"kind": "ping", "game": g.id}).to_string();
    let asked = other
        .request(format!("flagfall.node.{}", owner.name), ping.into())
        .await;
    assert!(
        asked.is_err(),
        "a non-node user's request reached the owner: {asked:?}"
    );
    let e = server_error(&mut errors, "permissions violation").await;
    eprintln!("a non-node user's publish: {e}");
    let mut sub = other
        .subscribe(format!("flagfall.game.{}", g.id))
        .await
        .expect("the subscription is sent");
    let e = server_error(&mut errors, "permissions violation").await;
    eprintln!("a non-node user's subscription: {e}");
    // Nothing of the game reaches it either: a move is played meanwhile.
    let mut white = crate::client::Ws::connect(
        c.dir.addrs[o],
        &g.id,
        Some(&g.white),
        Duration::from_secs(10),
    )
    .await
    .expect("White connects");
    white
        .send(&json!({"move": "e2e4", "press": true, "id": "w1"}))
        .await
        .expect("White moves");
    let got = tokio::time::timeout(
        Duration::from_secs(2),
        futures_util::StreamExt::next(&mut sub),
    )
    .await;
    assert!(
        !matches!(got, Ok(Some(_))),
        "a non-node user read a game's message: {got:?}"
    );
    let routed_after = owner
        .metric("flagfall_cluster_routed_in_total")
        .await
        .expect("the owner counts routed requests");
    assert_eq!(
        routed_before, routed_after,
        "the owner answered a request that was not a node's"
    );
}

/// A client holding a node's NATS credentials (a leaked seed) forges routed requests to
/// a game's owner: the director's action without a token, with a made-up token, with
/// another game's director token, in the old format that named a role, unreadable, a
/// state for a made-up token, one without a reply subject. Each is refused and
/// counted, and the stored events do not change; the same director action with the
/// director's real token is then stored (the refusals were the tokens'). A routed move
/// claiming to have waited 10 s is dated no earlier than the bound (3 s) allows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn forged_routed_requests_are_refused_and_change_nothing() {
    let c = Cluster::start().await;
    let (g, o) = game(&c).await;
    let other_game = create_game(c.dir.addrs[1]).await;
    let owner = &c.nodes[o];
    let subject = format!("flagfall.node.{}", owner.name);
    // Another node's credentials: allowed to publish on flagfall.> by nats-server.
    let thief = if o == 2 { "n1" } else { "n3" };
    let seed = std::fs::read_to_string(c.nats.seed_file(thief)).expect("the node's seed");
    let (nc, _) = connect(
        &c.nats,
        async_nats::ConnectOptions::new().nkey(seed.trim().to_string()),
    )
    .await
    .expect("a node's credentials log in");

    let before = c.events(&g.id).await;
    let refused_before = owner
        .metric("flagfall_cluster_refused_requests_total")
        .await
        .unwrap_or(0.0);
    let add_time = json!({"add_time": {"color": "white", "ms": 60000}, "id": "forged"}).to_string();
    let act = |token_hash: Value| {
        json!({"kind": "act", "game": g.id, "token_hash": token_hash,
               "frame": add_time, "rtt_ms": null, "waited_ms": 0})
        .to_string()
    };
    let made_up = "ab".repeat(32);
    let forged: Vec<(&str, String)> = vec![
        ("no token", act(Value::Null)),
        ("a made-up token", act(json!(made_up))),
        (
            "another game's director token",
            act(json!(token_hash(&other_game.director))),
        ),
        (
            "the old format, naming the director's role",
            json!({"kind": "act", "game": g.id, "role": "director", "frame": add_time,
                   "rtt_ms": null, "waited_ms": 10000})
            .to_string(),
        ),
        ("not JSON", "\u{0}garbage{".to_string()),
        (
            "a state for a made-up token",
            json!({"kind": "state", "game": g.id, "token_hash": made_up}).to_string(),
        ),
    ];
    for (what, body) in &forged {
        let answer = nc
            .request(subject.clone(), body.clone().into())
            .await
            .unwrap_or_else(|e| panic!("{what}: the owner does not answer: {e}"));
        let answer: Value = serde_json::from_slice(&answer.payload)
            .unwrap_or_else(|e| panic!("{what}: an unreadable answer: {e}"));
        eprintln!("{what}: {answer}");
        let refused = match &answer {
            Value::Object(m) if m.contains_key("unavailable") => true,
            Value::Object(m) => m
                .get("direct")
                .and_then(Value::as_str)
                .is_some_and(|t| t.contains("\"refused\"") && t.contains("not one of game")),
            _ => false,
        };
        assert!(refused, "{what}: not refused: {answer}");
    }
    // A request nobody can be answered for: dropped, counted.
    nc.publish(subject.clone(), act(Value::Null).into())
        .await
        .expect("published");
    nc.flush().await.expect("flushed");
    let want = refused_before + forged.len() as f64 + 1.0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let n = owner
            .metric("flagfall_cluster_refused_requests_total")
            .await
            .unwrap_or(0.0);
        if n >= want {
            assert_eq!(n, want, "refused requests counted once each");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the owner counted {n} refused requests, not {want}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        c.events(&g.id).await,
        before,
        "a forged request changed the stored events"
    );

    // The director's real token: the same action is stored, as the director's.
    let answer = nc
        .request(subject.clone(), act(json!(token_hash(&g.director))).into())
        .await
        .expect("the owner answers");
    let answer: Value = serde_json::from_slice(&answer.payload).expect("readable");
    assert!(answer.get("stored").is_some(), "not stored: {answer}");
    let after = c.events(&g.id).await;
    assert_eq!(after.len(), before.len() + 1, "one event stored: {after:?}");
    assert_eq!(after.last().and_then(|e| e.1.as_deref()), Some("director"));

    // waited_ms: White moves (routed, waited 0); 4.5 s later Black's move claims 10 s
    // of waiting. Dated back by at most 3 s: at least 1 s after White's move (it would
    // have been dated at White's move, costing Black nothing, with the old 10 s).
    let mv = |token: &str, uci: &str, id: &str, waited_ms: u64| {
        json!({"kind": "act", "game": g.id, "token_hash": token_hash(token),
               "frame": json!({"move": uci, "press": true, "id": id}).to_string(),
               "rtt_ms": null, "waited_ms": waited_ms})
        .to_string()
    };
    for (token, uci, id, waited, pause) in [
        (&g.white, "e2e4", "w1", 0, Duration::from_millis(4500)),
        (&g.black, "e7e5", "b1", 10_000, Duration::ZERO),
    ] {
        let answer = nc
            .request(subject.clone(), mv(token, uci, id, waited).into())
            .await
            .expect("the owner answers");
        let answer: Value = serde_json::from_slice(&answer.payload).expect("readable");
        assert!(answer.get("stored").is_some(), "{uci} not stored: {answer}");
        tokio::time::sleep(pause).await;
    }
    let events = c.events(&g.id).await;
    let at = |uci: &str| -> u64 {
        events
            .iter()
            .map(|e| serde_json::from_str::<Value>(&e.2).expect("an event"))
            .find(|e| e["move"] == uci)
            .and_then(|e| e["at"].as_u64())
            .unwrap_or_else(|| panic!("no stored {uci} with an `at`: {events:?}"))
    };
    let gap = at("e7e5") - at("e2e4");
    eprintln!(
        "Black's move claiming 10 s of waiting, 4.5 s after White's: dated {gap} ms after it"
    );
    assert!(
        (1000..=6000).contains(&gap),
        "Black's move dated {gap} ms after White's: waited_ms not bounded to 3 s"
    );
}

/// Junk from a client holding a node's credentials (a buggy node, or stolen
/// credentials) on the subjects every node hears: each message is dropped and counted
/// (`flagfall_cluster_unreadable_total`, `flagfall_cluster_refused_requests_total`),
/// but each kind is logged once, not once a message, and the games go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn junk_on_the_cluster_subjects_is_counted_not_logged_a_line_each() {
    const EACH: usize = 300;
    let c = Cluster::start().await;
    let (g, o) = game(&c).await;
    let before = c.events(&g.id).await;
    let seed = std::fs::read_to_string(c.nats.seed_file("n1")).expect("the node's seed");
    let (nc, _) = connect(
        &c.nats,
        async_nats::ConnectOptions::new().nkey(seed.trim().to_string()),
    )
    .await
    .expect("a node's credentials log in");
    let mut refused_before = Vec::new();
    for n in &c.nodes {
        let r = n.metric("flagfall_cluster_refused_requests_total").await;
        refused_before.push(r.unwrap_or(0.0));
    }
    for i in 0..EACH {
        nc.publish("flagfall.interest", format!("\u{0}../{i}").into())
            .await
            .expect("published");
        nc.publish("flagfall.evening.e1", format!("not a notice {i}").into())
            .await
            .expect("published");
        // A request with nobody to answer: every node's own subject.
        for n in &c.nodes {
            nc.publish(format!("flagfall.node.{}", n.name), "{".into())
                .await
                .expect("published");
        }
    }
    nc.flush().await.expect("flushed");

    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    for (i, n) in c.nodes.iter().enumerate() {
        let want_refused = refused_before[i] + EACH as f64;
        loop {
            let unreadable = n.metric("flagfall_cluster_unreadable_total").await;
            let refused = n.metric("flagfall_cluster_refused_requests_total").await;
            if unreadable == Some(2.0 * EACH as f64) && refused == Some(want_refused) {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{}: unreadable {unreadable:?} (want {}), refused {refused:?} (want {want_refused})",
                n.name,
                2 * EACH
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let lines = n.log.lines();
        for what in [
            "an unreadable interest on NATS",
            "an unreadable evening notice",
            "a message without a reply subject",
        ] {
            let logged = lines.iter().filter(|l| l.contains(what)).count();
            assert_eq!(
                logged,
                1,
                "{}: {what:?} logged {logged} times for {EACH} messages:\n{}",
                n.name,
                n.log.grep(&n.name, &[what])
            );
        }
    }
    assert_eq!(
        c.events(&g.id).await,
        before,
        "junk changed the stored events"
    );
    let owner = &c.nodes[o];
    assert_eq!(
        owner.health(Duration::from_secs(2)).await,
        Some(200),
        "the owner is healthy after the junk"
    );
}

/// `flagfall serve` as a cluster node `n9` with `args` after the common ones and `env`:
/// its log, and its exit status if it exited within `within`, else the running child.
async fn serve_node(
    nats: &Nats,
    db: &PgDb,
    args: &[&str],
    env: &[(&str, &str)],
    within: Duration,
) -> (Log, Result<std::process::ExitStatus, Child>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flagfall"));
    cmd.args([
        "serve",
        "--node",
        "n9",
        "--nats",
        &nats.url(),
        "--database",
        &db.url_via(db.upstream().port()),
        "--listen",
        "127.0.0.1:0",
    ])
    .args(args)
    .env("NO_COLOR", "1")
    .env_remove("FLAGFALL_NATS_PASSWORD")
    .env_remove("FLAGFALL_NATS_TOKEN")
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("start flagfall serve");
    let log = Log::default();
    log.follow(child.stderr.take().expect("stderr"), |_| {});
    let deadline = tokio::time::Instant::now() + within;
    while tokio::time::Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            // The last lines reach the log a moment after the exit.
            tokio::time::sleep(Duration::from_millis(200)).await;
            return (log, Ok(status));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (log, Err(child))
}

/// A node given bad credentials stops at start naming the flag (or the variable) and
/// why; a node given none starts with a warning, is refused by the test's nats-server
/// (logged as an error) and answers 503 on /healthz: it never joins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn a_node_without_good_credentials_does_not_join() {
    let db = PgDb::create().await;
    let nats = Nats::start().await;
    let dir = tempfile::tempdir().expect("a directory");
    let garbage = dir.path().join("garbage.nk");
    std::fs::write(&garbage, "not a seed\n").expect("write");
    let missing = dir.path().join("missing.nk");
    let (g, m) = (garbage.to_str().unwrap(), missing.to_str().unwrap());
    let (user, password) = OTHER_USER;
    type Case<'a> = (
        &'a str,
        Vec<&'a str>,
        Vec<(&'a str, &'a str)>,
        &'a [&'a str],
    );
    let cases: [Case; 5] = [
        (
            "a missing seed file",
            vec!["--nats-nkey", m],
            vec![],
            &["--nats-nkey", "cannot read"],
        ),
        (
            "a file with no seed",
            vec!["--nats-nkey", g],
            vec![],
            &["--nats-nkey", "no user nkey seed"],
        ),
        (
            "a user without a password",
            vec!["--nats-user", user],
            vec![],
            &["FLAGFALL_NATS_PASSWORD"],
        ),
        (
            "a user and a token",
            vec!["--nats-user", user],
            vec![
                ("FLAGFALL_NATS_PASSWORD", password),
                ("FLAGFALL_NATS_TOKEN", "t"),
            ],
            &["one way"],
        ),
        (
            "a seed and a user",
            vec!["--nats-nkey", m, "--nats-user", user],
            vec![],
            &["--nats-user"],
        ),
    ];
    for (what, args, env, words) in cases {
        let (log, status) = serve_node(&nats, &db, &args, &env, Duration::from_secs(20)).await;
        let status = match status {
            Ok(s) => s,
            Err(mut child) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what}: the node kept running:\n{}", log.tail("n9", 20));
            }
        };
        assert!(!status.success(), "{what}: exited {status}");
        let text = log.lines().join("\n");
        for w in words {
            assert!(
                text.contains(w),
                "{what}: the error does not name {w:?}:\n{text}"
            );
        }
        eprintln!(
            "{what}: {}",
            log.lines().last().cloned().unwrap_or_default()
        );
    }

    // No credentials at all: a warning, refused by NATS, never healthy.
    let (log, running) = serve_node(&nats, &db, &[], &[], Duration::from_secs(5)).await;
    let mut child = match running {
        Err(child) => child,
        Ok(status) => panic!(
            "the node without credentials exited ({status}):\n{}",
            log.tail("n9", 20)
        ),
    };
    let text = log.lines().join("\n");
    let addr: Option<std::net::SocketAddr> = text
        .lines()
        .find(|l| l.contains("flagfall serve listening"))
        .and_then(|l| l.split("addr=").nth(1))
        .and_then(|a| a.split_whitespace().next())
        .and_then(|a| a.parse().ok());
    let health = match addr {
        Some(addr) => {
            crate::client::http(addr, "GET", "/healthz", "", Duration::from_secs(5)).await
        }
        None => Err("no listening address in the log".to_string()),
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        text.contains("NATS without credentials"),
        "no warning:\n{text}"
    );
    assert!(
        text.to_lowercase().contains("authorization violation"),
        "NATS's refusal is not in the log:\n{text}"
    );
    assert!(
        !text.contains("NATS connected"),
        "the node without credentials connected:\n{text}"
    );
    let (status, body) = health.unwrap_or_else(|e| panic!("/healthz: {e}:\n{text}"));
    assert_eq!(status, 503, "/healthz of a node NATS refused: {body}");
    eprintln!("without credentials: /healthz {status} {}", body.trim());
}
