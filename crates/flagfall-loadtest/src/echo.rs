//! The baselines: a bare axum WebSocket echo server (`flagfall loadtest --serve-echo
//! ADDR`), the same echo made durable (`--echo-log FILE`), and the closed loop that
//! measures either.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

use crate::bots::{connect, next_text};
use crate::process::cpu_us;
use crate::report::Phase;
use crate::{LoadError, phase};

/// The bare axum WebSocket echo server of the baseline (`flagfall loadtest --serve-echo
/// ADDR`): every text frame back as it came; `GET /` answers `ok`. Runs until killed.
/// With `log` (`--echo-log FILE`), the durable echo: each frame is written to that file
/// and synced ([`EchoLog`]) before it is echoed.
pub async fn serve_echo(addr: SocketAddr, log: Option<PathBuf>) -> Result<(), LoadError> {
    use axum::extract::WebSocketUpgrade;
    use axum::extract::ws::Message as AxMsg;
    let log = match log {
        Some(path) => Some(EchoLog::start(&path)?),
        None => None,
    };
    let app = axum::Router::new()
        .route("/", axum::routing::get(|| async { "ok" }))
        .route(
            "/echo",
            axum::routing::get(|ws: WebSocketUpgrade| async move {
                ws.on_upgrade(|mut s| async move {
                    while let Some(Ok(m)) = s.next().await {
                        if let AxMsg::Text(t) = &m {
                            if let Some(log) = &log
                                && log.append(t.as_bytes()).await.is_err()
                            {
                                break;
                            }
                            if s.send(m).await.is_err() {
                                break;
                            }
                        }
                    }
                })
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
