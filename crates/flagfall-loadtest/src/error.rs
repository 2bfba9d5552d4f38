//! What can stop a load test.

use std::net::SocketAddr;
use std::path::PathBuf;

use tokio_tungstenite::tungstenite;

/// A load test that could not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A system call of the tool itself failed (a socket, a file, a thread).
    #[error("{doing}: {source}")]
    Io {
        doing: String,
        #[source]
        source: std::io::Error,
    },
    /// A WebSocket could not be opened.
    #[error("connecting to {url}: {source}")]
    Connect {
        url: String,
        #[source]
        source: tungstenite::Error,
    },
    /// An open WebSocket failed or was closed.
    #[error("socket: {0}")]
    Socket(String),
    /// The server answered something the bots did not expect.
    #[error("unexpected answer ({context}): {got}")]
    Unexpected { context: String, got: String },
    /// A child process (the server or an echo server) could not be started, exited, or
    /// did not stop.
    #[error("{program} ({addr}): {problem}")]
    Child {
        program: PathBuf,
        addr: SocketAddr,
        problem: String,
    },
    /// The durable echo's log could not take a frame.
    #[error("the durable echo's log: {0}")]
    EchoLog(&'static str),
    /// The store echo's database could not be opened or written.
    #[error("the store echo, {doing}: {source}")]
    Store {
        doing: &'static str,
        #[source]
        source: flagfall_store::StoreError,
    },
    /// The run asked for something that cannot be (a cluster without NATS, ...).
    #[error("{0}")]
    Usage(String),
    /// A bot task panicked or was cancelled.
    #[error("a bot task: {0}")]
    Task(#[from] tokio::task::JoinError),
}

impl LoadError {
    /// An [`LoadError::Io`] while `doing`.
    pub(crate) fn io(doing: impl Into<String>) -> impl FnOnce(std::io::Error) -> LoadError {
        let doing = doing.into();
        move |source| LoadError::Io { doing, source }
    }

    pub(crate) fn unexpected(context: impl Into<String>, got: impl Into<String>) -> LoadError {
        LoadError::Unexpected {
            context: context.into(),
            got: got.into(),
        }
    }
}
