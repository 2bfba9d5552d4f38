//! Issue 32: a node stalled inside a commit, and a node whose database drops its bytes,
//! hold no game back for longer than about a lease, and store nothing after their lease.
//!
//! The history comes from the database, not the nodes: a trigger on `events` records,
//! for every row inserted, the node whose session inserted it (each node's sessions carry
//! its name as `application_name`), the database's clock, the game's lease as it
//! stood then, the action's id and the inserting transaction. Every insert must have
//! been made by the lease's owner, before its expiry.
//! Two more triggers record every lease granted or renewed (by whom, when, until when:
//! each must run a whole lease from its grant, whatever its statement waited for) and
//! every clock mark written (by whom, at which epoch, and the lease then: a mark is
//! written only by the node holding the game's lease at the mark's epoch).

use std::time::Duration;

use sqlx::Row;
use tokio::time::Instant;

use super::{follow, game_and_owner, seats};
use crate::client::{Incoming, Ws};
use crate::infra::{Cluster, LEASE_MS};
use crate::table::*;

const LEASE: Duration = Duration::from_millis(LEASE_MS);
/// How long a node waits for another's answer over NATS (the server's
/// `cluster::REQUEST_TIMEOUT`).
const ROUTE_TIMEOUT: Duration = Duration::from_secs(3);

/// The trigger recording who inserted each event, when, under which lease.
pub(crate) async fn record_inserts(db: &sqlx::PgPool) {
    for sql in [
        // `client_id`: the action's id (which request stored it); `xid`: the inserting
        // transaction (events with one `xid` were stored by one group commit).
        "CREATE TABLE inserts_seen (game_id TEXT, n BIGINT, by_node TEXT, \
         at TIMESTAMPTZ, lease_owner TEXT, lease_epoch BIGINT, lease_expires TIMESTAMPTZ, \
         client_id TEXT, xid TEXT)",
        "CREATE FUNCTION see_insert() RETURNS trigger LANGUAGE plpgsql AS $$ \
         BEGIN \
           INSERT INTO inserts_seen \
             SELECT NEW.game_id, NEW.n, current_setting('application_name'), \
               clock_timestamp(), l.owner, l.epoch, l.expires, NEW.client_id, \
               pg_current_xact_id()::TEXT \
             FROM (SELECT 1) AS one LEFT JOIN game_leases l ON l.game_id = NEW.game_id; \
           RETURN NULL; \
         END $$",
        // After the foreign key's check (triggers fire in name order, `RI_...` first):
        // as late in the statement as a trigger runs.
        "CREATE TRIGGER see_insert AFTER INSERT ON events \
         FOR EACH ROW EXECUTE FUNCTION see_insert()",
        // Every lease written: its expiry against the database's clock as the row is
        // written (a row trigger runs after its row's new values were computed).
        "CREATE TABLE leases_seen (game_id TEXT, owner TEXT, epoch BIGINT, \
         expires TIMESTAMPTZ, by_node TEXT, at TIMESTAMPTZ, grant_kind TEXT)",
        "CREATE FUNCTION see_lease() RETURNS trigger LANGUAGE plpgsql AS $$ \
         BEGIN \
           INSERT INTO leases_seen VALUES (NEW.game_id, NEW.owner, NEW.epoch, NEW.expires, \
             current_setting('application_name'), clock_timestamp(), \
             CASE WHEN TG_OP = 'INSERT' THEN 'insert' WHEN NEW.owner = '' THEN 'release' \
               WHEN OLD.epoch <> NEW.epoch THEN 'take' ELSE 'renew' END); \
           RETURN NULL; \
         END $$",
        "CREATE TRIGGER see_lease AFTER INSERT OR UPDATE ON game_leases \
         FOR EACH ROW EXECUTE FUNCTION see_lease()",
        // Every clock mark written, and the game's lease as it stood.
        "CREATE TABLE marks_seen (game_id TEXT, epoch BIGINT, by_node TEXT, at TIMESTAMPTZ, \
         lease_owner TEXT, lease_epoch BIGINT)",
        "CREATE FUNCTION see_mark() RETURNS trigger LANGUAGE plpgsql AS $$ \
         BEGIN \
           INSERT INTO marks_seen \
             SELECT NEW.game_id, NEW.epoch, current_setting('application_name'), \
               clock_timestamp(), l.owner, l.epoch \
             FROM (SELECT 1) AS one LEFT JOIN game_leases l ON l.game_id = NEW.game_id; \
           RETURN NULL; \
         END $$",
        "CREATE TRIGGER see_mark AFTER INSERT OR UPDATE ON clock_marks \
         FOR EACH ROW EXECUTE FUNCTION see_mark()",
    ] {
        sqlx::query(sql)
            .execute(db)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// Every insert the trigger saw was made by the game's lease owner before its expiry;
/// how many inserts each node made, printed; and the leases' and marks' checks.
async fn check_inserts(db: &sqlx::PgPool, game: &str) {
    check_history(db).await;
    let by: Vec<(String, i64)> = sqlx::query(
        "SELECT by_node, count(*) FROM inserts_seen WHERE game_id = $1 \
         GROUP BY by_node ORDER BY by_node",
    )
    .bind(game)
    .fetch_all(db)
    .await
    .expect("count the inserts seen")
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect();
    eprintln!("events of {game} inserted, by node: {by:?}");
}

/// The database's record of every game: each event inserted by the node holding its
/// game's lease, before the lease's expiry; each lease written a whole lease; each
/// clock mark written by the lease's holder at its epoch.
pub(crate) async fn check_history(db: &sqlx::PgPool) {
    let bad = sqlx::query(
        "SELECT n, by_node, at::TEXT, lease_owner, lease_expires::TEXT FROM inserts_seen \
         WHERE lease_owner IS DISTINCT FROM by_node OR lease_expires <= at ORDER BY at",
    )
    .fetch_all(db)
    .await
    .expect("read the inserts seen");
    let bad: Vec<String> = bad
        .iter()
        .map(|r| {
            format!(
                "event {} inserted by {:?} at {} under the lease of {:?} expiring {:?}",
                r.get::<i64, _>(0),
                r.get::<String, _>(1),
                r.get::<String, _>(2),
                r.get::<Option<String>, _>(3),
                r.get::<Option<String>, _>(4),
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "inserts not under the inserter's lease: {bad:#?}"
    );
    let all: i64 = sqlx::query("SELECT count(*) FROM inserts_seen")
        .fetch_one(db)
        .await
        .expect("count the inserts seen")
        .get(0);
    eprintln!("events inserted: {all}, each by its game's lease holder before the expiry");
    check_leases(db).await;
    check_marks(db).await;
}

/// Every lease written ran a whole lease from when it was written (less what the
/// statement took between computing the expiry and the trigger: a few milliseconds;
/// before issue 32 a claim that waited for a lock lost the wait); the shortest printed.
pub(crate) async fn check_leases(db: &sqlx::PgPool) {
    // The row trigger runs at the end of its statement: a renewal of many rows, or a
    // loaded machine, puts some milliseconds between the expiry's computation and it.
    let slack_ms = 250.0;
    let rows = sqlx::query(
        "SELECT game_id, owner, epoch, by_node, at::TEXT, grant_kind, \
         (EXTRACT(EPOCH FROM (expires - at)) * 1000)::FLOAT8 FROM leases_seen ORDER BY at",
    )
    .fetch_all(db)
    .await
    .expect("read the leases seen");
    let mut shortest: Option<(f64, String)> = None;
    let mut short = Vec::new();
    let mut kinds = std::collections::BTreeMap::<String, u32>::new();
    for r in &rows {
        let ms: f64 = r.get(6);
        let what = format!(
            "{} of {} by {} (written by {:?}) at epoch {} at {}: {ms:.0} ms",
            r.get::<String, _>(5),
            r.get::<String, _>(0),
            r.get::<String, _>(1),
            r.get::<String, _>(3),
            r.get::<i64, _>(2),
            r.get::<String, _>(4),
        );
        *kinds.entry(r.get::<String, _>(5)).or_default() += 1;
        // A release grants nothing: it ends the lease (expired, owned by nobody).
        if r.get::<String, _>(5) == "release" {
            assert_eq!(
                r.get::<String, _>(1),
                "",
                "a release leaves no owner: {what}"
            );
            assert!(ms <= 0.0, "a release leaves the lease expired: {what}");
            continue;
        }
        if shortest.as_ref().is_none_or(|(s, _)| ms < *s) {
            shortest = Some((ms, what.clone()));
        }
        if ms < LEASE_MS as f64 - slack_ms {
            short.push(what);
        }
    }
    eprintln!(
        "leases written: {kinds:?}; the shortest from its writing: {:?}",
        shortest.map(|(_, w)| w)
    );
    assert!(
        short.is_empty(),
        "leases granted or renewed for less than a lease ({LEASE_MS} ms) from when they were \
         written: {short:#?}"
    );
}

/// Every clock mark of a cluster's task was written by the node holding the game's
/// lease, at the mark's epoch.
pub(crate) async fn check_marks(db: &sqlx::PgPool) {
    let bad: Vec<String> = sqlx::query(
        "SELECT game_id, epoch, by_node, at::TEXT, lease_owner, lease_epoch FROM marks_seen \
         WHERE epoch IS NOT NULL AND (lease_epoch IS DISTINCT FROM epoch \
           OR lease_owner IS DISTINCT FROM by_node) ORDER BY at",
    )
    .fetch_all(db)
    .await
    .expect("read the marks seen")
    .iter()
    .map(|r| {
        format!(
            "mark of {} at epoch {:?} written by {:?} at {} under the lease of {:?} at epoch {:?}",
            r.get::<String, _>(0),
            r.get::<Option<i64>, _>(1),
            r.get::<String, _>(2),
            r.get::<String, _>(3),
            r.get::<Option<String>, _>(4),
            r.get::<Option<i64>, _>(5),
        )
    })
    .collect();
    let all: i64 = sqlx::query("SELECT count(*) FROM marks_seen")
        .fetch_one(db)
        .await
        .expect("count the marks seen")
        .get(0);
    eprintln!("clock marks written: {all}");
    assert!(
        bad.is_empty(),
        "clock marks written by a node not holding the lease at their epoch: {bad:#?}"
    );
}

/// Wait until `node`'s group commit waits for a lock inside the database.
pub(crate) async fn commit_waits(db: &sqlx::PgPool, node: &str) {
    insert_waits(db, node, "events").await;
}

/// Wait (at most 10 s) until an `INSERT INTO table` of `node` waits for a lock inside
/// the database.
pub(crate) async fn insert_waits(db: &sqlx::PgPool, node: &str, table: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let waiting: i64 = sqlx::query(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
             AND application_name = $1 AND wait_event_type = 'Lock' \
             AND query LIKE $2",
        )
        .bind(node)
        .bind(format!("%INSERT INTO {table}%"))
        .fetch_one(db)
        .await
        .unwrap()
        .get(0);
        if waiting > 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{node}'s insert into {table} never waited for a lock within 10 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The latest insert by `node`, by the database's clock, and the lease it ran under.
async fn last_insert_by(db: &sqlx::PgPool, node: &str) -> Option<(String, String)> {
    sqlx::query(
        "SELECT at::TEXT, lease_expires::TEXT FROM inserts_seen WHERE by_node = $1 \
         ORDER BY at DESC LIMIT 1",
    )
    .bind(node)
    .fetch_optional(db)
    .await
    .expect("read the inserts seen")
    .map(|r| (r.get(0), r.get(1)))
}

/// Issue 32, item 1: the owner is stopped (SIGSTOP) while its commit is inside the
/// database: the test holds the events table locked until the owner's commit waits on
/// it, stops the owner, then lets the commit go. The owner holds no lock across its own
/// round trips, so the game is taken over within about a lease of the stop (before, the
/// commit's transaction held the lease row until PostgreSQL's 5 s idle timeout), the
/// move in flight is acknowledged once, and nothing is stored by the stopped node after
/// its lease ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn owner_stopped_inside_a_commit_holds_the_game_back_no_longer_than_a_lease() {
    let mut c = Cluster::start().await;
    let db = c.sql().await;
    record_inserts(&db).await;
    let dir = c.dir.clone();
    let (g, owner, o) = game_and_owner(&c, 0).await;
    let (mut white, mut black, spectator) = seats(&c, &g).await;
    let spectator = follow(spectator);
    play(&mut white, &mut black, 0, 6, Duration::from_millis(100)).await;

    // The events table held: the owner's commit of ply 6 waits for it in the database.
    let mut lock = db.begin().await.unwrap();
    sqlx::query("LOCK TABLE events IN EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    let sent = white.send_now(&ply(6)).await;
    assert!(sent, "White's ply 6 went out");
    commit_waits(&db, &owner).await;
    c.nodes[o].pause();
    let stopped = Instant::now();
    dir.set_usable(o, false);
    lock.commit().await.unwrap();
    eprintln!("{owner} stopped with its commit of ply 6 waiting inside the database");

    let new_owner = wait_owner(&dir, &g.id, |n| n != owner, Duration::from_secs(20)).await;
    let moved = stopped.elapsed();
    eprintln!("{new_owner} named the owner {moved:?} after the stop (lease {LEASE_MS} ms)");
    // The game may move at most a lease after the owner's last renewal, which was before
    // the stop; a scan (0.5 s) and a loaded machine's second on top.
    assert!(
        moved < LEASE + Duration::from_millis(1500),
        "the game moved {moved:?} after its owner stopped inside a commit: more than a lease"
    );
    let ack = white.complete(&ply(6), true).await;
    check_ack(6, &ack);
    let first_move = stopped.elapsed();
    eprintln!("ply 6 acknowledged {first_move:?} after the stop");
    assert!(
        first_move < 2 * LEASE,
        "no move acknowledged for {first_move:?} after the owner stopped: more than two leases"
    );
    black.drain().await;
    // Black's reply, on its socket as it stands: on the node that took the game over,
    // that socket still routes to the stopped owner; once that request times out the
    // action goes to the new owner's task. Its event answers Black there, though Black's
    // socket never saw event 7 (the stopped owner stored it and published nothing): the
    // socket reads a fresh state over that gap, then sends the event that acknowledges
    // its move. Before, only the state came, and Black heard nothing until it
    // reconnected (12 s).
    let reconnects = black.reconnects;
    let asked = Instant::now();
    let ack = black.act(&ply(7)).await;
    check_ack(7, &ack);
    let took = asked.elapsed();
    eprintln!(
        "ply 7 acknowledged {took:?} after it was sent, {:?} after the stop",
        stopped.elapsed()
    );
    assert_eq!(
        black.reconnects, reconnects,
        "Black reconnected to have its ply 7 acknowledged: {:#?}",
        black.history
    );
    // The request to the stopped owner (its timeout) and the new owner's commit, within
    // a lease on a loaded machine.
    assert!(
        took < ROUTE_TIMEOUT + LEASE,
        "ply 7 acknowledged {took:?} after it was sent: more than the routing timeout and a lease"
    );
    white.drain().await;
    play(&mut white, &mut black, 8, 12, Duration::from_millis(100)).await;
    // Stopped for twice the lease, then resumed: it must store nothing more.
    tokio::time::sleep_until(stopped + 2 * LEASE).await;
    c.nodes[o].resume();
    play(&mut white, &mut black, 12, OPERA.len(), Duration::ZERO).await;
    let mut spectator = spectator.await.expect("the spectator follows the game");
    check_final(&dir, &g.id, &mut [&mut white, &mut black, &mut spectator]).await;
    check_inserts(&db, &g.id).await;
    eprintln!(
        "{owner}'s last insert (at, its lease's expiry): {:?}",
        last_insert_by(&db, &owner).await
    );
    for s in [&white, &black, &spectator] {
        s.report();
    }
    db.close().await;
    c.print_metrics(&[]).await;
}

/// Issue 32, item 3: the owner's database drops its bytes (the proxy blackholes: its
/// renewal hangs, no error comes). By its own clock, when its validity runs out, the
/// owner stops acting and closes its sockets with 1012, within about a lease of the
/// cut (before, it waited out its pool's 10 s); the game moves on another node and
/// goes on; the cut node stores nothing after its lease.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn owner_whose_database_drops_its_bytes_closes_its_sockets_within_a_lease() {
    owner_with_a_faulty_database_link(Fault::Held).await;
}

/// The same, the bytes lost for good: when the route comes back, the connections that
/// held them are gone (TCP gave up on them), and the node connects anew.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn owner_whose_database_loses_its_bytes_closes_its_sockets_within_a_lease() {
    owner_with_a_faulty_database_link(Fault::Lost).await;
}

/// The owner's link to its database delays every byte by more than a lease (a
/// congested route): its renewals and its commit of the move in flight reach
/// PostgreSQL after its lease ran out. It stops acting by its own clock, the game moves,
/// and the late commit is refused by the database's clock: nothing stored by it after
/// its lease.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn owner_whose_database_delays_its_bytes_stores_nothing_late() {
    owner_with_a_faulty_database_link(Fault::Delayed(LEASE + Duration::from_millis(500))).await;
}

/// What goes wrong between the owner and PostgreSQL.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// Nothing gets through, the connections stay open; what they held is delivered
    /// when the route is back (TCP's retransmissions).
    Held,
    /// Nothing gets through; when the route is back, the connections are gone and what
    /// they held lost.
    Lost,
    /// Every byte arrives this long after it was sent.
    Delayed(Duration),
}

/// The owner's database link fails as `fault` says for 8 s while White's ply 6 is in
/// flight (sent at the fault): the owner's sockets close with 1012 within a lease, the
/// game moves to another node within about a lease, ply 6 is acknowledged once, the
/// cut node stores nothing after its lease (the database's record), the game ends as
/// the players saw it.
async fn owner_with_a_faulty_database_link(fault: Fault) {
    let c = Cluster::start().await;
    let db = c.sql().await;
    record_inserts(&db).await;
    let dir = c.dir.clone();
    let (g, owner, o) = game_and_owner(&c, 1).await;
    let (mut white, mut black, spectator) = seats(&c, &g).await;
    let spectator = follow(spectator);
    // Two more sockets on the owner itself: they must be closed, not left silent.
    let wait = Duration::from_secs(5);
    let mut on_owner = Vec::new();
    for token in [&g.white, &g.black] {
        on_owner.push(
            Ws::connect(dir.addrs[o], &g.id, Some(token), wait)
                .await
                .unwrap_or_else(|e| panic!("a socket on {owner}: {e}")),
        );
    }
    play(&mut white, &mut black, 0, 6, Duration::from_millis(100)).await;
    for ws in &mut on_owner {
        if let Some(closed) = ws.drain().await {
            panic!("a socket on {owner} closed before the cut: {closed:?}");
        }
    }

    match fault {
        Fault::Held | Fault::Lost => c.nodes[o].proxy.blackhole(),
        Fault::Delayed(d) => c.nodes[o].proxy.delay(d),
    }
    let cut = Instant::now();
    eprintln!("{owner}'s database link: {fault:?}");
    dir.set_usable(o, false);
    // White's ply 6 goes out at the fault: the owner's commit of it (its own socket's,
    // or routed to it) meets the fault.
    let sent = white.send_now(&ply(6)).await;
    for (i, ws) in on_owner.iter_mut().enumerate() {
        let deadline = cut + 3 * LEASE;
        let (code, reason) = loop {
            match ws
                .recv(deadline.saturating_duration_since(Instant::now()))
                .await
            {
                Incoming::Msg(_) => {}
                Incoming::Closed(code, reason) => break (code, reason),
                Incoming::Silent => {
                    panic!(
                        "socket {i} on {owner} still open 3 leases after its database went silent"
                    )
                }
            }
        };
        let after = cut.elapsed();
        eprintln!("socket {i} on {owner} closed {code} {reason:?} {after:?} after the cut");
        assert_eq!(
            code, 1012,
            "socket {i} on {owner} closed with {code} {reason:?}"
        );
        // Its validity: at most a lease (less 500 ms) after its last renewal, which was
        // before the cut; a loaded machine's second on top.
        assert!(
            after < LEASE + Duration::from_millis(1000),
            "socket {i} on {owner} closed {after:?} after the cut: more than a lease"
        );
    }
    let new_owner = wait_owner(&dir, &g.id, |n| n != owner, Duration::from_secs(20)).await;
    eprintln!(
        "{new_owner} named the owner {:?} after the cut",
        cut.elapsed()
    );
    let ack = white.complete(&ply(6), sent).await;
    check_ack(6, &ack);
    let first_move = cut.elapsed();
    eprintln!("ply 6 (in flight at the fault) acknowledged {first_move:?} after it");
    black.drain().await;
    let acks = play(&mut white, &mut black, 7, 8, Duration::ZERO).await;
    eprintln!("ply 7 acknowledged {:?} after the fault", acks[0].0 - cut);
    assert!(
        first_move < 2 * LEASE + Duration::from_millis(1000),
        "the game made no move for {first_move:?} after its owner's cut"
    );
    play(&mut white, &mut black, 8, 14, Duration::from_millis(100)).await;
    // The bytes held are delivered late when the route comes back (or lost, or still
    // arriving late): still nothing stored.
    tokio::time::sleep_until(cut + Duration::from_secs(8)).await;
    match fault {
        Fault::Held => c.nodes[o].proxy.restore(),
        Fault::Lost => c.nodes[o].proxy.restore_dropping(),
        Fault::Delayed(_) => c.nodes[o].proxy.delay(Duration::ZERO),
    }
    c.wait_health(&c.nodes[o], 200, Duration::from_secs(20))
        .await;
    dir.set_usable(o, true);
    play(&mut white, &mut black, 14, OPERA.len(), Duration::ZERO).await;
    let mut spectator = spectator.await.expect("the spectator follows the game");
    check_final(&dir, &g.id, &mut [&mut white, &mut black, &mut spectator]).await;
    check_inserts(&db, &g.id).await;
    for s in [&white, &black, &spectator] {
        s.report();
    }
    db.close().await;
    c.print_metrics(&[]).await;
}

/// Issue 32, item 2: a claim that waits on a lock gets a whole lease from its grant.
/// The owner is killed (SIGKILL); the test locks the game's lease row (`FOR UPDATE`)
/// before the lease runs out, so that the scans skip it and a node's claim (a socket
/// opened there for the game) waits for it; it lets the row go 1.5 s after the expiry.
/// The lease the waiting claim was granted, as the database recorded it, runs a whole
/// lease from its grant (before, the expiry was computed before the wait: 1.5 s of it
/// lost); the game moves again within about a lease of the row's release.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn a_claim_that_waited_on_a_lock_is_granted_a_whole_lease() {
    let mut c = Cluster::start().await;
    let db = c.sql().await;
    record_inserts(&db).await;
    let dir = c.dir.clone();
    let (g, owner, o) = game_and_owner(&c, 2).await;
    let (mut white, mut black, spectator) = seats(&c, &g).await;
    let spectator = follow(spectator);
    play(&mut white, &mut black, 0, 6, Duration::from_millis(100)).await;

    c.nodes[o].kill9();
    let killed = Instant::now();
    dir.set_usable(o, false);
    let mut lock = db.begin().await.unwrap();
    let left_ms: i64 = sqlx::query(
        "SELECT floor(EXTRACT(EPOCH FROM (expires - clock_timestamp())) * 1000)::BIGINT \
         FROM game_leases WHERE game_id = $1 FOR UPDATE",
    )
    .bind(&g.id)
    .fetch_one(&mut *lock)
    .await
    .expect("lock the game's lease row")
    .get(0);
    eprintln!(
        "{owner} killed; the test holds the game's lease row, {left_ms} ms before it expires"
    );
    assert!(
        left_ms > 0,
        "the lease had expired ({left_ms} ms) before the test held its row: too slow a machine?"
    );
    let expires = Instant::now() + Duration::from_millis(left_ms as u64);
    // After the expiry, a socket for the game on a live node: its node claims the game,
    // and the claim waits for the row.
    tokio::time::sleep_until(expires + Duration::from_millis(100)).await;
    let claimer = (0..dir.addrs.len()).find(|&i| i != o).expect("a live node");
    let claim_socket = {
        let addr = dir.addrs[claimer];
        let id = g.id.clone();
        tokio::spawn(async move { Ws::connect(addr, &id, None, Duration::from_secs(20)).await })
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    let waiting = loop {
        let waiting: Vec<String> = sqlx::query(
            "SELECT application_name FROM pg_stat_activity WHERE datname = current_database() \
             AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO game_leases%'",
        )
        .fetch_all(&db)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
        if !waiting.is_empty() {
            break waiting;
        }
        assert!(
            Instant::now() < deadline,
            "no claim of the game waited for its lease row within 5 s of its expiry"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    eprintln!("claims waiting for the lease row: {waiting:?}");
    tokio::time::sleep_until(expires + Duration::from_millis(1500)).await;
    lock.commit().await.unwrap();
    let released = Instant::now();
    eprintln!(
        "the lease row let go {:?} after its expiry",
        released - expires
    );
    let new_owner = wait_owner(&dir, &g.id, |n| n != owner, Duration::from_secs(20)).await;
    eprintln!(
        "{new_owner} named the owner {:?} after the row was let go",
        released.elapsed()
    );
    let acks = play(&mut white, &mut black, 6, 8, Duration::ZERO).await;
    let first_move = acks[0].0 - released;
    eprintln!(
        "ply 6 acknowledged {first_move:?} after the row was let go ({:?} after the kill)",
        acks[0].0 - killed
    );
    assert!(
        first_move < LEASE + Duration::from_millis(1500),
        "no move {first_move:?} after the lease row was let go: more than about a lease"
    );
    let claimed = claim_socket
        .await
        .expect("the claiming socket's task")
        .unwrap_or_else(|e| panic!("the socket whose node claimed the game: {e}"));
    drop(claimed);
    // The grant after the wait, as the database recorded it: a whole lease from then.
    let grants: Vec<(String, String, f64)> = sqlx::query(
        "SELECT by_node, grant_kind, \
         (EXTRACT(EPOCH FROM (expires - at)) * 1000)::FLOAT8 FROM leases_seen \
         WHERE game_id = $1 AND grant_kind NOT IN ('renew', 'release') ORDER BY at",
    )
    .bind(&g.id)
    .fetch_all(&db)
    .await
    .expect("the game's grants")
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2)))
    .collect();
    eprintln!("the game's leases granted (node, how, ms from the grant): {grants:?}");
    assert!(
        grants.len() >= 2,
        "the game was granted no lease after its owner died: {grants:?}"
    );
    play(&mut white, &mut black, 8, OPERA.len(), Duration::ZERO).await;
    let mut spectator = spectator.await.expect("the spectator follows the game");
    check_final(&dir, &g.id, &mut [&mut white, &mut black, &mut spectator]).await;
    // Every lease (the one granted after the wait among them) ran a whole lease.
    check_inserts(&db, &g.id).await;
    for s in [&white, &black, &spectator] {
        s.report();
    }
    db.close().await;
    c.print_metrics(&[o]).await;
}

/// Issue 32, item 6: a stale clock mark is not stored. The test holds the clock marks'
/// table so that the owner's first mark of a new game waits inside the database, stops
/// the owner (SIGSTOP), waits until another node took the game over (its own mark then
/// waits too), and lets the table go: the stopped node's mark, of the epoch it lost,
/// is refused by the database (the fence reads the lease as the statement runs), the
/// new owner's stored. The database's record shows every mark written by the lease's
/// holder at its epoch, and the game's mark at the lease's epoch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL and nats-server: scripts/test-cluster runs it"]
async fn a_stale_clock_mark_is_not_stored() {
    let mut c = Cluster::start().await;
    let db = c.sql().await;
    record_inserts(&db).await;
    let dir = c.dir.clone();
    let mut lock = db.begin().await.unwrap();
    sqlx::query("LOCK TABLE clock_marks IN EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    let (g, owner, o) = game_and_owner(&c, 0).await;
    let (mut white, mut black, spectator) = seats(&c, &g).await;
    let spectator = follow(spectator);
    // The clock starts: the owner's mark is due at its next beat, and waits.
    play(&mut white, &mut black, 0, 2, Duration::from_millis(100)).await;
    insert_waits(&db, &owner, "clock_marks").await;
    let epoch_then: i64 = sqlx::query("SELECT epoch FROM game_leases WHERE game_id = $1")
        .bind(&g.id)
        .fetch_one(&db)
        .await
        .unwrap()
        .get(0);
    dir.set_usable(o, false);
    c.nodes[o].pause();
    let stopped = Instant::now();
    eprintln!("{owner} stopped with its mark of epoch {epoch_then} waiting inside the database");
    let new_owner = wait_owner(&dir, &g.id, |n| n != owner, Duration::from_secs(20)).await;
    eprintln!(
        "{new_owner} named the owner {:?} after the stop",
        stopped.elapsed()
    );
    // The game moves on the new owner meanwhile (its commits do not touch the marks).
    play(&mut white, &mut black, 2, 4, Duration::from_millis(100)).await;
    insert_waits(&db, &new_owner, "clock_marks").await;
    lock.commit().await.unwrap();
    eprintln!(
        "the clock marks' table let go {:?} after the stop",
        stopped.elapsed()
    );
    play(&mut white, &mut black, 4, 8, Duration::from_millis(100)).await;
    tokio::time::sleep_until(stopped + 2 * LEASE).await;
    c.nodes[o].resume();
    c.wait_health(&c.nodes[o], 200, Duration::from_secs(20))
        .await;
    dir.set_usable(o, true);
    play(&mut white, &mut black, 8, 12, Duration::from_millis(100)).await;
    // The stored mark is the lease holder's, at its epoch.
    let (mark_epoch, lease_epoch, lease_owner): (Option<i64>, i64, String) = sqlx::query_as(
        "SELECT m.epoch, l.epoch, l.owner FROM clock_marks m JOIN game_leases l \
         ON l.game_id = m.game_id WHERE m.game_id = $1",
    )
    .bind(&g.id)
    .fetch_one(&db)
    .await
    .expect("the game's clock mark and lease");
    let writes: Vec<(String, Option<i64>)> =
        sqlx::query_as("SELECT by_node, epoch FROM marks_seen WHERE game_id = $1 ORDER BY at")
            .bind(&g.id)
            .fetch_all(&db)
            .await
            .unwrap();
    eprintln!(
        "the game's marks written (node, epoch): {writes:?}; stored: epoch {mark_epoch:?}; \
         the lease: {lease_owner} at epoch {lease_epoch}"
    );
    assert_eq!(
        mark_epoch,
        Some(lease_epoch),
        "the game's stored clock mark is not of its lease's epoch"
    );
    assert!(
        !writes
            .iter()
            .any(|(n, e)| *n == owner && *e == Some(epoch_then)),
        "the stopped {owner}'s mark of epoch {epoch_then} was stored: {writes:?}"
    );
    play(&mut white, &mut black, 12, OPERA.len(), Duration::ZERO).await;
    let mut spectator = spectator.await.expect("the spectator follows the game");
    check_final(&dir, &g.id, &mut [&mut white, &mut black, &mut spectator]).await;
    check_inserts(&db, &g.id).await;
    db.close().await;
    c.print_metrics(&[]).await;
}
