//! What can go wrong in the store.

/// A storage failure, with what was being done.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database URL {url:?}: {message}")]
    Url { url: String, message: String },
    #[error("cannot open the database: {0}")]
    Open(sqlx::Error),
    #[error("schema migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("database error while {doing}: {source}")]
    Query {
        doing: &'static str,
        source: sqlx::Error,
    },
    /// A text column holds a value its type does not know.
    #[error(
        "stored data is damaged: column `{column}` holds {value:?}, expected one of {expected}"
    )]
    BadValue {
        column: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
    /// A write refused because what it depends on changed (nothing was written).
    #[error("{0}")]
    Conflict(String),
    /// This backend does not do that (a cluster's leases on SQLite).
    #[error("not supported here: {0}")]
    Unsupported(&'static str),
    /// A caller's argument out of range (nothing was done).
    #[error("invalid argument: {0}")]
    Invalid(String),
}

impl StoreError {
    /// The database did not answer or asked to be asked again (its connection lost or
    /// refused, no connection free in time, PostgreSQL shutting down or starting, a lock
    /// not had within `lock_timeout`, SQLite busy): the same request may succeed in a
    /// moment. (Only a connection lost while a commit was under way leaves unknown
    /// whether the write was stored.) Anything else (damaged data, a refused write, a
    /// bug) is not worth asking again.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Open(e) | StoreError::Query { source: e, .. } => unavailable(e),
            _ => false,
        }
    }
}

fn unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(d) => {
            let Some(code) = d.code() else {
                return false;
            };
            if d.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                // SQLite's primary codes 5 and 6 (busy, locked), extended ones too.
                code.parse::<u32>().is_ok_and(|n| matches!(n & 0xff, 5 | 6))
            } else {
                // PostgreSQL: class 08 (connection exception); 57P01-57P03 (shut down
                // by the administrator, crashed, cannot connect now); 55P03 (lock not
                // available within lock_timeout).
                code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03" | "55P03")
            }
        }
        _ => false,
    }
}

pub(crate) fn q(doing: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
    move |source| StoreError::Query { doing, source }
}

pub type Result<T> = std::result::Result<T, StoreError>;

#[cfg(test)]
mod tests {
    use super::*;

    fn query(source: sqlx::Error) -> StoreError {
        StoreError::Query {
            doing: "reading a game",
            source,
        }
    }

    #[test]
    fn a_lost_or_busy_database_is_unavailable_and_damage_is_not() {
        let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        assert!(query(sqlx::Error::Io(reset)).is_unavailable());
        assert!(query(sqlx::Error::PoolTimedOut).is_unavailable());
        assert!(query(sqlx::Error::PoolClosed).is_unavailable());
        assert!(!query(sqlx::Error::RowNotFound).is_unavailable());
        assert!(!StoreError::Corrupt("a bad row".into()).is_unavailable());
        assert!(!StoreError::Conflict("the lease moved".into()).is_unavailable());
    }

    /// SQLite's own "database is locked" (a second writer, no busy wait) is classed
    /// from the error SQLite gives, and a constraint it refuses is not.
    #[tokio::test]
    async fn sqlite_busy_is_unavailable() {
        use sqlx::Connection;
        use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
        let dir = tempfile::tempdir().expect("a scratch directory");
        let opts = SqliteConnectOptions::new()
            .filename(dir.path().join("busy.db"))
            .create_if_missing(true)
            .busy_timeout(std::time::Duration::ZERO);
        let mut a = SqliteConnection::connect_with(&opts).await.expect("open");
        let mut b = SqliteConnection::connect_with(&opts).await.expect("open");
        sqlx::query("CREATE TABLE t (x INTEGER PRIMARY KEY)")
            .execute(&mut a)
            .await
            .expect("create");
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut a)
            .await
            .expect("begin");
        let busy = sqlx::query("INSERT INTO t VALUES (1)")
            .execute(&mut b)
            .await
            .expect_err("a second writer waits for nobody");
        assert!(query(busy).is_unavailable());
        sqlx::query("INSERT INTO t VALUES (1)")
            .execute(&mut a)
            .await
            .expect("insert");
        sqlx::query("COMMIT").execute(&mut a).await.expect("commit");
        let twice = sqlx::query("INSERT INTO t VALUES (1)")
            .execute(&mut b)
            .await
            .expect_err("the key is taken");
        let what = format!("{twice:?}");
        assert!(!query(twice).is_unavailable(), "{what}");
    }
}
