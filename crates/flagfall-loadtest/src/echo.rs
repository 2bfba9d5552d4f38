//! The baselines: a bare axum WebSocket echo server (`flagfall loadtest --serve-echo
//! ADDR`), the same echo made durable (`--echo-log FILE`), the same echo committing each
//! frame as an event through flagfall's store (`--echo-store URL`), and the closed loop
//! that measures any of them.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

use flagfall_protocol::{Mode, Role};
use flagfall_store::{NewEvent, NewGame, Store};

use crate::bots::{connect, next_text};
use crate::process::cpu_us;
use crate::report::Phase;
use crate::{LoadError, phase};

/// The bare axum WebSocket echo server of the baseline (`flagfall loadtest --serve-echo
/// ADDR`): every text frame back as it came; `GET /` answers `ok`. Runs until killed.
/// With [`Durable::Log`] (`--echo-log FILE`), the durable echo: each frame is written to
/// that file and synced ([`EchoLog`]) before it is echoed. With [`Durable::Store`]
/// (`--echo-store URL`), the store echo: each socket is a game of its own in flagfall's
/// store, and each frame is appended to it as an event by a group-commit task
/// ([`StoreLog`], the server's writer without the games) before it is echoed.
pub async fn serve_echo(addr: SocketAddr, durable: Durable) -> Result<(), LoadError> {
    use axum::extract::WebSocketUpgrade;
    let sink = match durable {
        Durable::None => None,
        Durable::Log(path) => Some(Sink::File(EchoLog::start(&path)?)),
        Durable::Store(url) => Some(Sink::Store(StoreLog::open(&url).await?)),
    };
    let app = axum::Router::new()
        .route("/", axum::routing::get(|| async { "ok" }))
        .route(
            "/echo",
            axum::routing::get(move |ws: WebSocketUpgrade| {
                let sink = sink.clone();
                async move { ws.on_upgrade(|s| echo_socket(s, sink)) }
            }),
        );
    let doing = format!("serving the echo on {addr}");
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(LoadError::io(doing.clone()))?;
    // The same socket options as `flagfall serve`.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app)
        .await
        .map_err(LoadError::io(doing))
}

/// One echo socket: each text frame made durable by `sink` (when there is one), then
/// sent back; the socket ends at the first frame that could not be kept.
async fn echo_socket(mut s: axum::extract::ws::WebSocket, sink: Option<Sink>) {
    use axum::extract::ws::Message as AxMsg;
    let mut keeper = match sink {
        None => Keeper::Bare,
        Some(Sink::File(log)) => Keeper::File(log),
        Some(Sink::Store(store)) => match store.open_stream().await {
            Ok(stream) => Keeper::Store(store, stream),
            Err(e) => {
                tracing::error!(error = %e, "the store echo");
                return;
            }
        },
    };
    while let Some(Ok(m)) = s.next().await {
        if let AxMsg::Text(t) = &m {
            let kept = match &mut keeper {
                Keeper::Bare => Ok(()),
                Keeper::File(log) => log.append(t.as_bytes()).await,
                Keeper::Store(store, stream) => store.append(stream, t.as_str()).await,
            };
            if let Err(e) = kept {
                tracing::error!(error = %e, "the durable echo");
                break;
            }
            if s.send(m).await.is_err() {
                break;
            }
        }
    }
}

/// What one echo socket does with a frame before it answers.
enum Keeper {
    Bare,
    File(EchoLog),
    /// The socket's own game in the store.
    Store(StoreLog, Stream),
}

/// What the echo makes durable before it answers.
#[derive(Debug, Clone)]
pub enum Durable {
    /// Nothing: the bare echo.
    None,
    /// Each frame written to this file and `fdatasync`ed ([`EchoLog`]).
    Log(PathBuf),
    /// Each frame appended as an event to flagfall's store at this database URL
    /// ([`StoreLog`]).
    Store(String),
}

/// The durable echo's sink, opened.
#[derive(Clone)]
enum Sink {
    File(EchoLog),
    Store(StoreLog),
}

/// A socket of the store echo: its game and the number of its last event.
struct Stream {
    game: String,
    n: i64,
}

/// The store echo's log: the store opened as `flagfall serve` opens it, and one task that
/// commits in groups exactly as the server's writer does (everything that arrived while
/// the previous commit ran, up to [`flagfall_store::ROWS_PER_INSERT`] events, in one
/// [`Store::append`]), answering each sender after the commit. What a move's durable
/// acknowledgement costs through the store with no game, no arbiter and no broadcast: the
/// floor under the server's closed loop.
#[derive(Clone)]
struct StoreLog {
    store: Arc<dyn Store>,
    /// Sockets opened so far (the next one's game number).
    sockets: Arc<AtomicU64>,
    tx: tokio::sync::mpsc::Sender<(NewEvent, tokio::sync::oneshot::Sender<bool>)>,
}

impl StoreLog {
    async fn open(url: &str) -> Result<StoreLog, LoadError> {
        let store = flagfall_store::open(url)
            .await
            .map_err(|source| LoadError::Store {
                doing: "opening its database",
                source,
            })?;
        // As deep as the server's writer queue.
        let (tx, mut rx) =
            tokio::sync::mpsc::channel::<(NewEvent, tokio::sync::oneshot::Sender<bool>)>(8192);
        let writer = store.clone();
        tokio::spawn(async move {
            let mut batch = Vec::new();
            let mut waiting = Vec::new();
            while let Some((event, done)) = rx.recv().await {
                batch.push(event);
                waiting.push(done);
                while batch.len() < flagfall_store::ROWS_PER_INSERT {
                    match rx.try_recv() {
                        Ok((event, done)) => {
                            batch.push(event);
                            waiting.push(done);
                        }
                        Err(_) => break,
                    }
                }
                let ok = match writer.append(&batch).await {
                    Ok(()) => true,
                    Err(e) => {
                        tracing::error!(error = %e, "the store echo's commit");
                        false
                    }
                };
                batch.clear();
                for done in waiting.drain(..) {
                    let _ = done.send(ok);
                }
            }
        });
        Ok(StoreLog {
            store,
            sockets: Arc::default(),
            tx,
        })
    }

    /// A new socket's stream: its game row stored, with an id unique in a database
    /// other runs used too.
    async fn open_stream(&self) -> Result<Stream, LoadError> {
        let game = format!(
            "echo{}-{}",
            std::process::id(),
            self.sockets.fetch_add(1, Relaxed)
        );
        let row = NewGame {
            id: game.clone(),
            setup: r#"{"rules":"fide-2023","time_control":"3+2"}"#.into(),
            mode: Mode::Otb,
            token_white: "0".repeat(64),
            token_black: "1".repeat(64),
            token_director: "2".repeat(64),
            created_ms: 0,
            practice: None,
        };
        self.store
            .create_game(&row)
            .await
            .map_err(|source| LoadError::Store {
                doing: "creating a socket's game",
                source,
            })?;
        Ok(Stream { game, n: 0 })
    }

    /// Append `frame` to the socket's game as its next event (by White, with a client
    /// id, as a move is stored); `Ok` once committed.
    async fn append(&self, stream: &mut Stream, frame: &str) -> Result<(), LoadError> {
        stream.n += 1;
        let event = NewEvent {
            game_id: stream.game.clone(),
            n: stream.n,
            json: frame.to_string(),
            by_role: Some(Role::White),
            client_id: Some(format!("m{}", stream.n)),
            finished: None,
        };
        let (done, answer) = tokio::sync::oneshot::channel();
        self.tx
            .send((event, done))
            .await
            .map_err(|_| LoadError::EchoLog("the store echo's writer stopped"))?;
        match answer.await {
            Ok(true) => Ok(()),
            _ => Err(LoadError::EchoLog("a commit failed")),
        }
    }
}

/// The durable echo's log: one thread owns a preallocated file (so a sync never has to
/// record a new file size) and commits in groups, as the server's writer does: it takes
/// every frame that arrived while the previous sync ran, writes them in one call,
/// `fdatasync`s, and only then answers each sender. The file is used as a ring: past its
/// end, writing starts again at the beginning (the baseline keeps no history).
#[derive(Clone)]
struct EchoLog {
    tx: tokio::sync::mpsc::UnboundedSender<(Vec<u8>, tokio::sync::oneshot::Sender<bool>)>,
}

/// The durable echo's file size.
const ECHO_LOG_BYTES: u64 = 256 << 20;

impl EchoLog {
    fn start(path: &Path) -> Result<EchoLog, LoadError> {
        let doing = || format!("the echo log {}", path.display());
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(path)
            .map_err(LoadError::io(doing()))?;
        preallocate(&file, ECHO_LOG_BYTES).map_err(LoadError::io(doing()))?;
        let (tx, mut rx) =
            tokio::sync::mpsc::unbounded_channel::<(Vec<u8>, tokio::sync::oneshot::Sender<bool>)>();
        std::thread::Builder::new()
            .name("echo-log".into())
            .spawn(move || {
                use std::io::{Seek, SeekFrom, Write};
                let mut offset = 0u64;
                let mut batch = Vec::new();
                let mut waiting = Vec::new();
                while let Some((frame, done)) = rx.blocking_recv() {
                    batch.clear();
                    batch.extend_from_slice(&frame);
                    waiting.push(done);
                    while let Ok((frame, done)) = rx.try_recv() {
                        batch.extend_from_slice(&frame);
                        waiting.push(done);
                    }
                    let mut ok = true;
                    if offset + batch.len() as u64 > ECHO_LOG_BYTES {
                        ok = file.seek(SeekFrom::Start(0)).is_ok();
                        offset = 0;
                    }
                    ok = ok && file.write_all(&batch).is_ok() && file.sync_data().is_ok();
                    offset += batch.len() as u64;
                    for done in waiting.drain(..) {
                        let _ = done.send(ok);
                    }
                }
            })
            .map_err(LoadError::io("starting the echo log's thread"))?;
        Ok(EchoLog { tx })
    }

    /// Append a frame; `Err` when it could not be written and synced.
    async fn append(&self, frame: &[u8]) -> Result<(), LoadError> {
        let (done, answer) = tokio::sync::oneshot::channel();
        let mut line = Vec::with_capacity(frame.len() + 1);
        line.extend_from_slice(frame);
        line.push(b'\n');
        self.tx
            .send((line, done))
            .map_err(|_| LoadError::EchoLog("its thread stopped"))?;
        match answer.await {
            Ok(true) => Ok(()),
            _ => Err(LoadError::EchoLog("a write or sync failed")),
        }
    }
}

/// Give `file` `len` bytes of real blocks (not a sparse file), synced.
fn preallocate(file: &std::fs::File, len: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: posix_fallocate on an open file descriptor we own.
        let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len as libc::off_t) };
        if rc != 0 {
            return Err(std::io::Error::from_raw_os_error(rc));
        }
    }
    #[cfg(not(unix))]
    file.set_len(len)?;
    file.sync_all()
}

/// Closed loop against the echo server at `addr` over `conns` sockets: round trips/s.
pub(crate) async fn echo_baseline(
    addr: SocketAddr,
    pid: &str,
    conns: usize,
    d: Duration,
) -> Result<Phase, LoadError> {
    let stop = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU64::new(0));
    let mut sockets = Vec::new();
    for _ in 0..conns {
        sockets.push(connect(&format!("ws://{addr}/echo")).await?);
    }
    let cpu0 = (crate::process::cpu_us(pid), crate::process::cpu_us("self"));
    let t = Instant::now();
    let tasks: Vec<_> = sockets
        .into_iter()
        .map(|mut ws| {
            let stop = stop.clone();
            let count = count.clone();
            tokio::spawn(async move {
                let frame = r#"{"move":"g1f3","press":true,"id":"m0"}"#;
                while !stop.load(Relaxed) {
                    if ws.send(Message::Text(frame.into())).await.is_err() {
                        break;
                    }
                    if next_text(&mut ws).await.is_err() {
                        break;
                    }
                    count.fetch_add(1, Relaxed);
                }
            })
        })
        .collect();
    tokio::time::sleep(d).await;
    stop.store(true, Relaxed);
    for task in tasks {
        let _ = task.await;
    }
    Ok(phase(count.load(Relaxed), t, cpu0, cpu_us(pid)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The store echo answers a frame only once it is stored: each socket's frames are
    /// its own game's events, in order, numbered from 1, as a player's moves are.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_store_echo_stores_each_frame_as_its_sockets_next_event() {
        let dir = std::env::temp_dir().join(format!("flagfall-store-echo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let url = format!("sqlite:{}", dir.join("echo.db").display());
        let addr = crate::process::free_port().expect("a free port");
        let server = tokio::spawn(serve_echo(addr, Durable::Store(url.clone())));
        let echo_url = format!("ws://{addr}/echo");
        let mut first = None;
        for _ in 0..100 {
            match connect(&echo_url).await {
                Ok(ws) => {
                    first = Some(ws);
                    break;
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
        let mut first = first.expect("the store echo listens");
        let mut sent: Vec<Vec<String>> = vec![Vec::new(), Vec::new()];
        // The first socket's first frame answered before the second connects, so the
        // first is game 0.
        let frame =
            |s: usize, i: usize| format!(r#"{{"move":"g1f3","press":true,"id":"s{s}m{i}"}}"#);
        first
            .send(Message::Text(frame(0, 0).into()))
            .await
            .expect("send");
        assert_eq!(next_text(&mut first).await.expect("an echo"), frame(0, 0));
        sent[0].push(frame(0, 0));
        let mut second = connect(&echo_url).await.expect("a second socket");
        for i in 1..4 {
            for (s, ws) in [&mut first, &mut second].into_iter().enumerate() {
                let f = frame(s, i);
                ws.send(Message::Text(f.clone().into()))
                    .await
                    .expect("send");
                assert_eq!(next_text(ws).await.expect("an echo"), f);
                sent[s].push(f);
            }
        }
        server.abort();
        let store = flagfall_store::open(&url)
            .await
            .expect("the echo's database");
        for (s, frames) in sent.iter().enumerate() {
            let game = format!("echo{}-{s}", std::process::id());
            let events = store.events(&game).await.expect("the game's events");
            let got: Vec<(i64, &str, Option<Role>)> = events
                .iter()
                .map(|e| (e.n, e.json.as_str(), e.by_role))
                .collect();
            let want: Vec<(i64, &str, Option<Role>)> = frames
                .iter()
                .enumerate()
                .map(|(i, f)| (i as i64 + 1, f.as_str(), Some(Role::White)))
                .collect();
            assert_eq!(got, want, "socket {s}'s game");
        }
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A database the store echo cannot open is named in its error, before it listens.
    #[tokio::test]
    async fn the_store_echo_names_a_database_it_cannot_open() {
        let addr = crate::process::free_port().expect("a free port");
        let nowhere = std::env::temp_dir()
            .join(format!("flagfall-no-such-dir-{}", std::process::id()))
            .join("echo.db");
        let err = serve_echo(
            addr,
            Durable::Store(format!("sqlite:{}", nowhere.display())),
        )
        .await
        .expect_err("no database there");
        assert!(
            matches!(
                err,
                LoadError::Store {
                    doing: "opening its database",
                    ..
                }
            ),
            "{err}"
        );
        assert!(
            std::net::TcpListener::bind(addr).is_ok(),
            "it never listened"
        );
    }
}
