//! The server's errors: [`ServerError`], what a task or a request of the server fails
//! with, and [`CreateError`], why a game was not created (its setup, or the server).
//! Re-exported at the crate's root (`crate::ServerError`).

/// A server failure.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Store(#[from] flagfall_store::StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
    /// A stored row the server cannot read (a game's setup or script, a challenge's
    /// body, an evening's base, settings, log or tokens), named: a real damage.
    #[error("stored data damaged: {0}")]
    Corrupt(String),
    /// Something the server made does not serialise (`what` it is): the request that
    /// made it is refused and nothing of it is stored.
    #[error("cannot serialise {what}: {message}")]
    Serialise { what: &'static str, message: String },
    /// The task that would do the work has stopped (an evening's task unloaded or the
    /// server stopping, the evenings' threads closed): asking again may find it.
    #[error("{0} stopped")]
    Stopped(&'static str),
    /// A job of the server's panicked: a bug, logged.
    #[error("{what} failed: {message}")]
    Bug { what: &'static str, message: String },
    #[error("cannot draw random bytes: {0}")]
    Random(String),
    /// A setting that cannot work (`flagfall serve`'s flags).
    #[error("{0}")]
    Config(String),
    /// NATS (a cluster's messages) failed.
    #[error("NATS: {0}")]
    Nats(String),
    /// In a cluster, another node serves the game (it holds its lease).
    #[error("game served by node {node}")]
    Elsewhere { node: String },
}

impl ServerError {
    /// [`ServerError::Serialise`] of `what`.
    pub(crate) fn serialise(what: &'static str) -> impl FnOnce(serde_json::Error) -> ServerError {
        move |e| ServerError::Serialise {
            what,
            message: e.to_string(),
        }
    }
}

/// Why a game was not created: its setup (the client's fault), or the server.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error(transparent)]
    Setup(#[from] flagfall_protocol::SetupError),
    #[error(transparent)]
    Failed(#[from] ServerError),
}

impl From<flagfall_store::StoreError> for CreateError {
    fn from(e: flagfall_store::StoreError) -> CreateError {
        CreateError::Failed(e.into())
    }
}
