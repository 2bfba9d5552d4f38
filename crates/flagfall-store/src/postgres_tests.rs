use std::str::FromStr;
use std::sync::Arc;

use sqlx::postgres::{PgConnectOptions, PgPool};

use super::{PgStore, SCHEMA};
use crate::contract_tests::exercise;
use crate::sql::migrator;

/// Runs against PostgreSQL when `FLAGFALL_TEST_POSTGRES` names a server (fails, not
/// skips, when it is set but unreachable).
#[tokio::test]
async fn postgres_round_trip() {
    let Ok(url) = std::env::var("FLAGFALL_TEST_POSTGRES") else {
        return;
    };
    let db = format!("flagfall_store_{}", std::process::id());
    let admin = PgPool::connect(&url)
        .await
        .expect("FLAGFALL_TEST_POSTGRES reachable");
    sqlx::query(&format!("DROP DATABASE IF EXISTS {db}"))
        .execute(&admin)
        .await
        .unwrap();
    sqlx::query(&format!("CREATE DATABASE {db}"))
        .execute(&admin)
        .await
        .unwrap();
    let mut opts = PgConnectOptions::from_str(&url).unwrap();
    opts = opts.database(&db);
    let pool = PgPool::connect_with(opts).await.unwrap();
    let store = PgStore {
        writer: pool.clone(),
        pool,
    };
    migrator(SCHEMA).run(&store.pool).await.unwrap();
    exercise(Arc::new(store)).await;
    sqlx::query(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
        .execute(&admin)
        .await
        .unwrap();
}
