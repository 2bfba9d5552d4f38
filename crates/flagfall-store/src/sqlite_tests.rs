use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};

use crate::contract_tests::{ev, exercise, game};
use crate::open;
use crate::sql::migrator;

#[tokio::test]
async fn sqlite_round_trip_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let url = format!("sqlite:{}", path.display());
    exercise(open(&url).await.unwrap()).await;
    // Reopening runs the migrations again (nothing to do) and keeps the data.
    let again = open(path.to_str().unwrap()).await.unwrap();
    assert_eq!(again.events("g1").await.unwrap().len(), 2);
    assert_eq!(again.open_challenges(0, 10).await.unwrap().len(), 0);
    assert_eq!(again.backend(), "sqlite");
}

/// The WAL header's checkpoint sequence number: it goes up each time the WAL starts
/// again from its beginning.
fn wal_restarts(db: &std::path::Path) -> u32 {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(db.with_extension("db-wal"))
        .unwrap()
        .read_exact(&mut head)
        .unwrap();
    u32::from_be_bytes(head[12..16].try_into().unwrap())
}

/// Regression: under commits without a pause, the background checkpoint alone never
/// caught up with the writer, so the WAL never started again and grew without end
/// (469 MB after seven seconds of a closed-loop load test).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_starts_again_under_continuous_commits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = open(path.to_str().unwrap()).await.unwrap();
    for g in 0..40 {
        store.create_game(&game(&format!("g{g}"))).await.unwrap();
    }
    // The first background pass runs at once, on a quiet database: that restart
    // proves nothing. Count from the first commit after it.
    tokio::time::sleep(Duration::from_millis(100)).await;
    store.append(&[ev("g0", 1, None)]).await.unwrap();
    let first = wal_restarts(&path);
    // Four appenders, ten games each, so that the writer never waits for work.
    let stop = Arc::new(AtomicBool::new(false));
    let appenders: Vec<_> = (0..4)
        .map(|a| {
            let store = store.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                let games: Vec<String> = (a * 10..a * 10 + 10).map(|g| format!("g{g}")).collect();
                // g0 has its first event already.
                let mut last = vec![0; 10];
                last[0] = i64::from(a == 0);
                while !stop.load(Ordering::Relaxed) {
                    let batch: Vec<_> = games
                        .iter()
                        .enumerate()
                        .map(|(i, g)| ev(g, last[i] + 1, None))
                        .collect();
                    store.append(&batch).await.unwrap();
                    for l in &mut last {
                        *l += 1;
                    }
                }
                (games, last)
            })
        })
        .collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut restarted = false;
    while std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if wal_restarts(&path) > first {
            restarted = true;
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for a in appenders {
        let (games, last) = a.await.unwrap();
        // Nothing was lost on the way.
        for (g, n) in games.iter().zip(last) {
            assert_eq!(store.events(g).await.unwrap().len() as i64, n);
        }
    }
    assert!(restarted, "the WAL did not start again in 20 s of commits");
}

#[tokio::test]
async fn a_schema_1_database_migrates_and_keeps_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let url = format!("sqlite:{}", path.display());
    {
        let opts = SqliteConnectOptions::from_str(&url)
            .unwrap()
            .create_if_missing(true);
        let pool = SqlitePool::connect_with(opts).await.unwrap();
        migrator(&super::SCHEMA[..1]).run(&pool).await.unwrap();
        sqlx::query(
            "INSERT INTO games (id, setup, mode, token_white, token_black, token_director, created_ms) VALUES ('old', '{}', 'otb', 'w', 'b', 'd', 5)",
        )
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;
    }
    let store = open(&url).await.unwrap();
    let row = store.game("old").await.unwrap().expect("kept");
    assert_eq!(row.game.practice, None);
    assert_eq!(row.game.created_ms, 5);
    assert!(store.open_challenges(0, 5).await.unwrap().is_empty());
}

/// Migration 4 keeps what schema 3's per-game heartbeats knew: a game's clock reached
/// is its last beat, and the first heartbeat of a new run does not change it.
#[tokio::test]
async fn schema_3_heartbeats_survive_migration_4() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let url = format!("sqlite:{}", path.display());
    {
        let opts = SqliteConnectOptions::from_str(&url)
            .unwrap()
            .create_if_missing(true);
        let pool = SqlitePool::connect_with(opts).await.unwrap();
        migrator(&super::SCHEMA[..3]).run(&pool).await.unwrap();
        sqlx::query(
            "INSERT INTO games (id, setup, mode, token_white, token_black, token_director, created_ms) VALUES ('old', '{}', 'otb', 'w', 'b', 'd', 5)",
        )
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query("INSERT INTO clock_beats (game_id, at) VALUES ('old', 4321)")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }
    let store = open(&url).await.unwrap();
    assert_eq!(store.last_beat("old").await.unwrap(), Some(4321));
    store.alive("new-run", 10_000, 10_000, &[]).await.unwrap();
    assert_eq!(store.last_beat("old").await.unwrap(), Some(4321));
}

/// An enumerated column holding a value its type does not know is an error naming the
/// column and the value, never a default; so is a bad value in a nullable one.
#[tokio::test]
async fn a_bad_value_in_a_typed_column_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = open(path.to_str().unwrap()).await.unwrap();
    store.create_game(&game("g1")).await.unwrap();
    store.append(&[ev("g1", 1, None)]).await.unwrap();
    store
        .create_challenge(&crate::contract_tests::challenge("c1", 1))
        .await
        .unwrap();
    let pool = SqlitePool::connect_with(
        SqliteConnectOptions::from_str(&format!("sqlite:{}", path.display())).unwrap(),
    )
    .await
    .unwrap();
    for (sql, column, value) in [
        ("UPDATE games SET mode = 'blitz'", "games.mode", "blitz"),
        (
            "UPDATE games SET mode = 'otb', result = '2-0'",
            "games.result",
            "2-0",
        ),
        (
            "UPDATE games SET result = '*', status = 'paused'",
            "games.status",
            "paused",
        ),
    ] {
        sqlx::query(sql).execute(&pool).await.unwrap();
        let err = store.game("g1").await.unwrap_err();
        assert!(
            matches!(&err, crate::StoreError::BadValue { column: c, value: v, .. } if *c == column && v == value),
            "{err:?}"
        );
        assert!(err.to_string().contains(column), "{err}");
        assert!(
            store.list(None, 10).await.unwrap().is_empty(),
            "a listing leaves the damaged row out"
        );
    }
    sqlx::query("UPDATE events SET by_role = 'umpire'")
        .execute(&pool)
        .await
        .unwrap();
    let err = store.events("g1").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "stored data is damaged: column `events.by_role` holds \"umpire\", expected one of white, black, director, spectator"
    );
    sqlx::query("UPDATE challenges SET color = 'green'")
        .execute(&pool)
        .await
        .unwrap();
    let err = store.challenge("c1").await.unwrap_err();
    assert!(
        err.to_string()
            .contains("`challenges.color` holds \"green\""),
        "{err}"
    );
    sqlx::query("UPDATE challenges SET color = 'white', creator_color = 'random'")
        .execute(&pool)
        .await
        .unwrap();
    let err = store.challenge("c1").await.unwrap_err();
    assert!(
        err.to_string()
            .contains("`challenges.creator_color` holds \"random\""),
        "{err}"
    );
    // A rematch whose standing is not one the server writes.
    store
        .offer_rematch("g1", flagfall_protocol::ColorName::White, "h", 1)
        .await
        .unwrap();
    sqlx::query("UPDATE rematches SET status = 'none'")
        .execute(&pool)
        .await
        .unwrap();
    let err = store.rematch("g1").await.unwrap_err();
    assert!(
        err.to_string().contains(
            "`rematches.status` holds \"none\", expected one of offered, declined, accepted"
        ),
        "{err}"
    );
    // A listing leaves the damaged row out and keeps the others.
    store
        .create_challenge(&crate::contract_tests::challenge("c2", 2))
        .await
        .unwrap();
    let open = store.open_challenges(0, 10).await.unwrap();
    assert_eq!(
        open.iter()
            .map(|c| c.challenge.id.as_str())
            .collect::<Vec<_>>(),
        ["c2"]
    );
}

/// A cluster's leases need PostgreSQL: SQLite says so for each of its methods.
#[tokio::test]
async fn sqlite_has_no_leases() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path().join("t.db").to_str().unwrap())
        .await
        .unwrap();
    store.create_game(&game("g")).await.unwrap();
    let epochs = [1];
    let unsupported = |r: crate::Result<()>| matches!(r, Err(crate::StoreError::Unsupported(_)));
    assert!(unsupported(
        store.lease_claim("g", "A", 1000).await.map(drop)
    ));
    assert!(unsupported(store.lease_of("g").await.map(drop)));
    assert!(unsupported(store.lease_renew("A", 1000).await.map(drop)));
    assert!(unsupported(store.lease_release("g", "A", 1).await));
    assert!(unsupported(
        store
            .lease_take_over("A", 1000, 5, crate::Unleased::All)
            .await
            .map(drop)
    ));
    assert!(unsupported(
        store
            .append_fenced(&[ev("g", 1, None)], "A", &epochs)
            .await
            .map(drop)
    ));
    assert!(store.events("g").await.unwrap().is_empty());
}
