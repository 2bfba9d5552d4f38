//! The cluster (issue 22), end to end: three `flagfall serve` nodes (`n1`, `n2`, `n3`,
//! the built binary) on one PostgreSQL database, each through a TCP proxy of the test's,
//! and the test's own nats-server. White plays on n1, Black on n2, a spectator watches
//! on n3: Morphy's Opera game, every move with an `id`, while the test kills the
//! owning node (SIGKILL), pauses it past its lease (SIGSTOP: the zombie), restarts NATS,
//! or cuts the owner off from PostgreSQL (connections dropped, or a partition: nothing
//! gets through, connections hang). Clients do what a browser behind a load
//! balancer does: on a close, a silence or a node taken out of service they reconnect
//! to a node in service and send the same `id` again. Every test ends with the same
//! check: the stored script is the 33 plies, each once, in order, and nothing else; it
//! replays to the result the server reports (checkmate); every client's view is the
//! state.
//!
//! Every test is ignored by `cargo test`: it needs PostgreSQL (`FLAGFALL_TEST_POSTGRES`,
//! default `postgres://postgres@127.0.0.1:5432/test`, where each test makes a throwaway
//! database) and nats-server (Debian's /usr/sbin/nats-server or one on PATH), and fails,
//! never skips, without them. `scripts/test-cluster` provides both and runs
//! `cargo test --workspace --test cluster -- --ignored --test-threads=1`.
//! `FLAGFALL_CLUSTER_LOGS=1` prints the nodes' logs at the end (a failure always does).

mod balancer;
mod client;
mod epochs;
mod evening;
mod history;
mod infra;
mod limits;
mod nats_auth;
mod stall;
mod table;

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use client::{Incoming, Ws, http};
use infra::{Cluster, LEASE_MS};
use table::*;

/// The three clients of a test's game: White on n1, Black on n2, the spectator on n3.
async fn seats(c: &Cluster, g: &Game) -> (Seat, Seat, Seat) {
    let dir = &c.dir;
    let mut white = Seat::new("white", Some(&g.white), &g.id, 0, dir);
    let mut black = Seat::new("black", Some(&g.black), &g.id, 1, dir);
    let mut spectator = Seat::new("spectator", None, &g.id, 2, dir);
    let by = Instant::now() + Duration::from_secs(20);
    for s in [&mut white, &mut black, &mut spectator] {
        s.ensure(by).await;
        assert_eq!(s.node(), Some(s.home), "{} connects to its node", s.role);
    }
    (white, black, spectator)
}

/// The spectator follows the game to its end in a task of its own (reading all along:
/// the server closes a socket that answers no ping for 15 s).
fn follow(mut spectator: Seat) -> tokio::task::JoinHandle<Seat> {
    tokio::spawn(async move {
        spectator
            .sync(OPERA.len() as u64, Duration::from_secs(240))
            .await;
        spectator
    })
}

/// A game created through node `via` and its owner (the node `GET /api/games/{id}`
/// names, and its index). The tests create theirs through different nodes; which node
/// owns the game is the cluster's choice (new games are spread), and every test works
/// whichever it is.
async fn game_and_owner(c: &Cluster, via: usize) -> (Game, String, usize) {
    let g = create_game(c.dir.addrs[via]).await;
    let owner = wait_owner(&c.dir, &g.id, |_| true, Duration::from_secs(10)).await;
    let o = c
        .dir
        .index_of(&owner)
        .unwrap_or_else(|| panic!("the owner {owner:?} is none of n1, n2, n3"));
    eprintln!("game {} is owned by {owner}", g.id);
    (g, owner, o)
}

/// (a) The owner is killed with SIGKILL while an action is in flight; the game goes on
/// on another node, the action retried with its `id` is stored once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn owner_killed_mid_game_the_game_goes_on_on_another_node() {
    let mut c = Cluster::start().await;
    let dir = c.dir.clone();
    let (g, owner, o) = game_and_owner(&c, 0).await;
    let (mut white, mut black, spectator) = seats(&c, &g).await;
    let spectator = follow(spectator);

    let acks = play(&mut white, &mut black, 0, 8, Duration::from_millis(100)).await;
    // White's clock runs from Black's ply 7 on.
    let (ply7_at, ply7) = acks.last().cloned().expect("ply 7 acknowledged");
    // White's ply 8 goes out, and the owner dies before its answer can come back.
    let p8 = ply(8);
    let sent = white.send_now(&p8).await;
    c.nodes[o].kill9();
    let killed = Instant::now();
    eprintln!("{} {owner} killed", utc_now());
    dir.set_usable(o, false);
    let ev = white.complete(&p8, sent).await;
    check_ack(8, &ev);
    let retried = killed.elapsed();
    // The time lost to the takeover is charged to no one: White pays for the time it
    // thought before the kill, and for the moments between the new owner's load and
    // ply 8's arrival there (the heartbeat's period and some slack), not for the outage.
    let white_ms = |ev: &serde_json::Value| ev["clock"]["white_ms"].as_i64().expect("white_ms");
    let charged = white_ms(&ply7) - white_ms(&ev);
    let thought = (killed - ply7_at).as_millis() as i64;
    eprintln!(
        "White's clock: {charged} ms charged from ply 7 to ply 8; {thought} ms thought before the kill, \
         {} ms from the kill to ply 8's acknowledgement",
        retried.as_millis()
    );
    assert!(
        charged <= thought + 1_500,
        "White was charged {charged} ms for ply 8: {thought} ms before the kill, and the takeover's \
         {} ms too?",
        retried.as_millis()
    );
    let ev = black.act(&ply(9)).await;
    check_ack(9, &ev);
    let failover = killed.elapsed();
    let new_owner = wait_owner(&dir, &g.id, |n| n != owner, Duration::from_secs(10)).await;
    eprintln!(
        "failover: SIGKILL of {owner} to ply 8 (in flight at the kill) acknowledged {retried:?}, \
         to the first new event (ply 9) accepted by the new owner {new_owner}: {failover:?}"
    );
    assert!(
        failover < Duration::from_secs(20),
        "failover took {failover:?}"
    );
    // A retried id is recognised on any node: ply 8 again, through a live node White is
    // not on, is answered with the event it made, and stored no second time (the final
    // check counts).
    let elsewhere = (0..dir.addrs.len())
        .find(|&i| dir.usable(i) && Some(i) != white.node())
        .expect("another live node");
    let mut again = Ws::connect(
        dir.addrs[elsewhere],
        &g.id,
        Some(&g.white),
        Duration::from_secs(10),
    )
    .await
    .unwrap_or_else(|e| panic!("White's second socket on {}: {e}", dir.names[elsewhere]));
    again.send(&ply(8)).await.expect("send ply 8 again");
    let answer = loop {
        match again.recv(Duration::from_secs(10)).await {
            Incoming::Msg(m) if m["id"] == "p8" => break m,
            Incoming::Msg(_) => {}
            other => panic!("ply 8 sent again on {}: {other:?}", dir.names[elsewhere]),
        }
    };
    assert_eq!(answer["type"], "event", "ply 8 again: {answer}");
    check_ack(8, &answer);

    play(&mut white, &mut black, 10, OPERA.len(), Duration::ZERO).await;
    let mut spectator = spectator.await.expect("the spectator follows the game");
    check_final(&dir, &g.id, &mut [&mut white, &mut black, &mut spectator]).await;
    for s in [&white, &black, &spectator] {
        s.report();
        s.assert_kept_sockets_except(o);
    }
    for (i, n) in c.nodes.iter_mut().enumerate() {
        assert!(i == o || n.alive(), "{} stayed up", n.name);
    }
    c.print_metrics(&[o]).await;
    let takeovers: f64 = {
        let mut sum = 0.0;
        for (i, n) in c.nodes.iter().enumerate() {
            if i != o {
                sum += n
                    .metric("flagfall_cluster_takeovers_total")
                    .await
                    .unwrap_or(0.0);
            }
        }
        sum
    };
    // The scan's takeovers and a claim of an expired lease (a socket or a GET reaching a
    // node first) are both takeovers.
    assert!(
        takeovers >= 1.0,
        "no live node counts the takeover in flagfall_cluster_takeovers_total (was the game \
         claimed by a request rather than taken by the scan?)"
    );
}

/// (b) The zombie: the owner is paused (SIGSTOP) past its lease; another node takes
/// over and play continues there; then actions are sent to the paused node's sockets
/// (they wait in the kernel) and it is resumed: none of them is committed, those
/// sockets are closed (1012) or answered with an error, and the zombie counts a fenced
/// write or a dropped game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn zombie_owner_resumed_after_its_lease_commits_nothing() {
    let mut c = Cluster::start().await;
    let dir = c.dir.clone();
    let (g, owner, o) = game_and_owner(&c, 1).await;
    let (mut white, mut black, spectator) = seats(&c, &g).await;
    let spectator = follow(spectator);
    // The players' second sockets, on the owner: the zombie's clients.
    let wait = Duration::from_secs(5);
    let mut zombie_white = Ws::connect(dir.addrs[o], &g.id, Some(&g.white), wait)
        .await
        .unwrap_or_else(|e| panic!("White's socket on {owner}: {e}"));
    let mut zombie_black = Ws::connect(dir.addrs[o], &g.id, Some(&g.black), wait)
        .await
        .unwrap_or_else(|e| panic!("Black's socket on {owner}: {e}"));

    for i in 0..6 {
        play(&mut white, &mut black, i, i + 1, Duration::from_millis(100)).await;
        for (who, z) in [("White", &mut zombie_white), ("Black", &mut zombie_black)] {
            if let Some(closed) = z.drain().await {
                panic!("{who}'s socket on the owner closed before the pause: {closed:?}");
            }
        }
    }

    c.nodes[o].pause();
    let paused = Instant::now();
    dir.set_usable(o, false);
    let new_owner = wait_owner(&dir, &g.id, |n| n != owner, Duration::from_secs(20)).await;
    eprintln!(
        "{owner} paused; {new_owner} named the owner {:?} later (lease {LEASE_MS} ms)",
        paused.elapsed()
    );
    play(&mut white, &mut black, 6, 10, Duration::from_millis(100)).await;
    // Well past its lease (3 s): about 6 s paused.
    tokio::time::sleep_until(paused + Duration::from_secs(6)).await;

    // Ply 10 is White's: White's zombie socket sends a move that is not the game's, and
    // Black's resigns. Neither may be committed.
    let zombie_move = json!({"move": "h2h4", "press": true, "id": "zombie-w"});
    let zombie_resign = json!({"resign": true, "id": "zombie-b"});
    zombie_white
        .send(&zombie_move)
        .await
        .unwrap_or_else(|e| panic!("queue White's action for the zombie: {e}"));
    zombie_black
        .send(&zombie_resign)
        .await
        .unwrap_or_else(|e| panic!("queue Black's action for the zombie: {e}"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let paused_for = paused.elapsed();
    c.nodes[o].resume();
    let resumed = Instant::now();
    eprintln!("{owner} resumed after {paused_for:?} with two actions queued");

    for (who, z, id) in [
        ("White", &mut zombie_white, "zombie-w"),
        ("Black", &mut zombie_black, "zombie-b"),
    ] {
        let deadline = resumed + Duration::from_secs(15);
        let outcome = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match z.recv(left).await {
                Incoming::Msg(m) if m["id"] == id => {
                    assert_ne!(
                        m["type"], "event",
                        "the zombie {owner} committed {who}'s {id}: {m}"
                    );
                    break format!("answered {m}");
                }
                Incoming::Msg(_) => {}
                Incoming::Closed(code, reason) => {
                    // A reset instead: the server closed the connection with the
                    // client's frames unread (the kernel then sends RST, and the close
                    // frame may be lost); after its close it should read until the
                    // client's (RFC 6455 7.1.1).
                    assert_eq!(
                        code, 1012,
                        "{who}'s socket on the zombie {owner} closed with {code} {reason:?}, not 1012"
                    );
                    break format!("closed {code} {reason:?}");
                }
                Incoming::Silent => panic!(
                    "{who}'s socket on the zombie {owner}: neither closed nor {id} answered \
                     within 15 s of SIGCONT"
                ),
            }
        };
        eprintln!("{who}'s socket on the zombie: {outcome}");
    }

    // The zombie saw that it lost the game.
    let deadline = resumed + Duration::from_secs(10);
    let (fenced, dropped) = loop {
        let zombie = &c.nodes[o];
        let fenced = zombie
            .metric("flagfall_cluster_fenced_writes_total")
            .await
            .unwrap_or(0.0);
        let dropped = zombie
            .metric("flagfall_cluster_dropped_games_total")
            .await
            .unwrap_or(0.0);
        if fenced + dropped > 0.0 || Instant::now() > deadline {
            break (fenced, dropped);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    eprintln!("the zombie {owner}: fenced writes {fenced}, dropped games {dropped}; its log:");
    eprint!(
        "{}",
        c.nodes[o]
            .log
            .grep(&owner, &["lease", "fenc", "drop", "1012", "WARN", "ERROR"])
    );
    assert!(
        fenced + dropped > 0.0,
        "the zombie counts neither a fenced write nor a dropped game"
    );

    // Play goes on to the end on the live nodes; the script has neither zombie action.
    play(&mut white, &mut black, 10, OPERA.len(), Duration::ZERO).await;
    // The resumed node is a healthy node again (it serves other games).
    c.wait_health(&c.nodes[o], 200, Duration::from_secs(15))
        .await;
    let mut spectator = spectator.await.expect("the spectator follows the game");
    check_final(&dir, &g.id, &mut [&mut white, &mut black, &mut spectator]).await;
    for s in [&white, &black, &spectator] {
        s.report();
        s.assert_kept_sockets_except(o);
    }
    c.print_metrics(&[]).await;
}

/// (c) NATS is killed and started again on its port during play: play goes on after it,
/// nothing lost or doubled (an action answered with an error is sent again, same `id`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn nats_restarted_during_play_loses_and_doubles_nothing() {
    let mut c = Cluster::start().await;
    let dir = c.dir.clone();
    let (g, _owner, _) = game_and_owner(&c, 0).await;
    let (mut white, mut black, spectator) = seats(&c, &g).await;
    let spectator = follow(spectator);
    play(&mut white, &mut black, 0, 4, Duration::from_millis(100)).await;

    let players = tokio::spawn(async move {
        let times = play(
            &mut white,
            &mut black,
            4,
            OPERA.len(),
            Duration::from_millis(150),
        )
        .await;
        (white, black, times)
    });
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    c.nats.kill();
    let down = Instant::now();
    // What a node's health check says without NATS (for the report).
    let health_down = c.nodes[0].health(Duration::from_secs(1)).await;
    tokio::time::sleep_until(down + Duration::from_millis(1_500)).await;
    c.nats.restart().await;
    let up = Instant::now();
    eprintln!(
        "NATS down for {:?}; n1's /healthz meanwhile: {health_down:?}",
        up - down
    );

    let (mut white, mut black, times) = tokio::time::timeout(Duration::from_secs(240), players)
        .await
        .expect("the game is played to its end")
        .expect("the players play to the end");
    let before = times.iter().filter(|(t, _)| *t < down).count();
    let after = times.iter().filter(|(t, _)| *t > up).count();
    eprintln!(
        "plies acknowledged: {before} before NATS went down, {} during, {after} after",
        times.len() - before - after
    );
    assert!(
        before > 0 && after > 0,
        "the restart fell during play ({before} plies before, {after} after)"
    );
    let mut spectator = spectator.await.expect("the spectator follows the game");
    check_final(&dir, &g.id, &mut [&mut white, &mut black, &mut spectator]).await;
    for s in [&white, &black, &spectator] {
        s.report();
    }
    for n in &c.nodes {
        c.wait_health(n, 200, Duration::from_secs(15)).await;
    }
    c.print_metrics(&[]).await;
}

/// (d) The owner is cut off from PostgreSQL (its proxy drops every connection and
/// refuses new ones) for longer than its lease: the game goes on on a node that reaches
/// the database, nothing lost or doubled; once the proxy lets connections through again
/// the cut node is healthy and serves again (White plays the rest through it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn owner_cut_off_from_postgres_the_game_goes_on_elsewhere() {
    owner_partitioned_from_postgres(false, 2).await;
}

/// (d') The same with a partition rather than a cut: the proxy lets nothing through
/// but keeps every connection open (the owner's queries hang, a transaction it began
/// may be left open holding its locks), and delivers what it held once restored (a
/// renewal or a commit sent during the partition reaches the database late).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn owner_partitioned_from_postgres_the_game_goes_on_elsewhere() {
    owner_partitioned_from_postgres(true, 1).await;
}

/// (d) and (d'): the owner's proxy cut (or blackholed) for 8 s, the game created
/// through node `via`.
async fn owner_partitioned_from_postgres(blackhole: bool, via: usize) {
    let c = Cluster::start().await;
    let dir = c.dir.clone();
    let (g, owner, o) = game_and_owner(&c, via).await;
    let (mut white, mut black, spectator) = seats(&c, &g).await;
    let spectator = follow(spectator);
    play(&mut white, &mut black, 0, 6, Duration::from_millis(100)).await;

    if blackhole {
        c.nodes[o].proxy.blackhole();
    } else {
        c.nodes[o].proxy.cut();
    }
    let how = if blackhole { "partitioned" } else { "cut off" };
    let cut = Instant::now();
    dir.set_usable(o, false);
    let new_owner = wait_owner(&dir, &g.id, |n| n != owner, Duration::from_secs(20)).await;
    eprintln!(
        "{owner} {how} from PostgreSQL; {new_owner} named the owner {:?} later",
        cut.elapsed()
    );
    // The cut node says it is unwell (503, or no answer within a second).
    let deadline = cut + Duration::from_secs(15);
    let unwell = loop {
        let h = c.nodes[o].health(Duration::from_secs(1)).await;
        if h != Some(200) {
            break h;
        }
        assert!(
            Instant::now() < deadline,
            "{owner}'s /healthz still answers 200 15 s after it lost PostgreSQL"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    eprintln!("{owner}'s /healthz while {how}: {unwell:?}");
    if !blackhole {
        // A request that needs the database is told to come back in a moment (503),
        // not that the server failed (500).
        let path = "/api/games/0123456789abcdef01234567";
        let (status, body) = http(dir.addrs[o], "GET", path, "", Duration::from_secs(20))
            .await
            .unwrap_or_else(|e| panic!("GET {path} on {owner} while {how}: {e}"));
        assert_eq!(status, 503, "GET {path} on {owner} while {how}: {body}");
        assert!(body.contains("the database is not answering"), "{body}");
    }
    play(&mut white, &mut black, 6, 14, Duration::from_millis(100)).await;
    // Longer than its lease: about 8 s in all.
    tokio::time::sleep_until(cut + Duration::from_secs(8)).await;
    c.nodes[o].proxy.restore();
    let restored = Instant::now();
    eprintln!("{owner}'s database restored after {:?}", restored - cut);
    c.wait_health(&c.nodes[o], 200, Duration::from_secs(20))
        .await;
    eprintln!("{owner} healthy again {:?} later", restored.elapsed());
    // Its lease renewals (every lease/3) go through again.
    let renewals = || async {
        c.nodes[o]
            .metric("flagfall_cluster_lease_renewals_total")
            .await
            .unwrap_or_else(|| panic!("{owner} has no flagfall_cluster_lease_renewals_total"))
    };
    let before = renewals().await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while renewals().await <= before {
        assert!(
            Instant::now() < deadline,
            "{owner} renewed no lease within 10 s of its database coming back ({before} renewals in all)"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    dir.set_usable(o, true);

    // It serves again: a new socket there gets the game as it stands, and White plays
    // the rest through it.
    let fresh = Ws::connect(dir.addrs[o], &g.id, None, Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("a socket on {owner} after the cut: {e}"));
    assert_eq!(fresh.view["n"], 14, "{owner} serves the game as it stands");
    let named = owner_via(&dir, &g.id, o)
        .await
        .expect("GET on the node back");
    eprintln!("{owner} names the owner {named:?}");
    white.home = o;
    white.go_home().await;

    play(&mut white, &mut black, 14, OPERA.len(), Duration::ZERO).await;
    let mut spectator = spectator.await.expect("the spectator follows the game");
    check_final(&dir, &g.id, &mut [&mut white, &mut black, &mut spectator]).await;
    for s in [&white, &black, &spectator] {
        s.report();
        s.assert_kept_sockets_except(o);
    }
    c.print_metrics(&[]).await;
}
