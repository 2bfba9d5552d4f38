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

pub(crate) fn q(doing: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
    move |source| StoreError::Query { doing, source }
}

pub type Result<T> = std::result::Result<T, StoreError>;
