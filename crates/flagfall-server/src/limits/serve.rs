//! The accept loop: HTTP/1.1 with a header timeout, a deadline for each request's body,
//! and a limit of open connections per client address (the slow-client guards).

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt;

use super::address::{read_proxy_header, trusted};
use super::transport::FdSlot;
use super::{ClientAddressFrom, Counted, Counts, Limits, Transport, client_address};

/// What one connection knows of its client: the TCP peer, whether it is a trusted
/// proxy, the address of a PROXY header, and its place in the per-address count.
struct Conn {
    peer: std::net::SocketAddr,
    trusted: bool,
    proxied: Option<IpAddr>,
    /// Counted under its client's address while open. A trusted proxy's connection
    /// without a PROXY header is counted under the client of its latest request (for a
    /// WebSocket: the upgrade's).
    counted: Mutex<Option<Counted<IpAddr>>>,
    fd: Arc<FdSlot>,
}

/// A connection that holds its client's count as long as it is open (a WebSocket's
/// too, after the upgrade).
struct Guarded {
    tcp: TcpStream,
    conn: Arc<Conn>,
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // Before the socket closes (its field drops after this).
        self.conn.fd.close();
        self.conn
            .counted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// How long a shutdown waits for requests in flight before it returns anyway.
const DRAIN: Duration = Duration::from_secs(5);

/// A request body with a deadline for the whole of it: a client that trickles a byte
/// every few seconds is cut off when the deadline passes, not when it pauses
/// (`tower_http`'s `TimeoutBody` restarts its timer on every chunk).
struct DeadlineBody {
    inner: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl hyper::body::Body for DeadlineBody {
    type Data = bytes::Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<bytes::Bytes>, Self::Error>>> {
        if self.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(
                Err("the request body took longer than allowed".into()),
            ));
        }
        Pin::new(&mut self.inner)
            .poll_frame(cx)
            .map_err(axum::BoxError::from)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

fn too_many_connections() -> Response {
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::CONNECTION, HeaderValue::from_static("close"))],
        axum::Json(serde_json::json!({"error": "too many open connections from your address"})),
    )
        .into_response()
}

/// What every connection's task is given: the app, the limits, the per-address counts.
#[derive(Clone)]
struct Serving {
    app: Router,
    limits: Arc<Limits>,
    counts: Arc<Counts<IpAddr>>,
}

/// A connection just accepted and admitted: not over its address's count (a direct
/// client is counted at once, before anything of it is read; a trusted proxy's client
/// once its address is known).
struct Accepted {
    tcp: TcpStream,
    peer: std::net::SocketAddr,
    trusted: bool,
    counted: Option<Counted<IpAddr>>,
    fd: Arc<FdSlot>,
}

/// Serve `app` on `listener` until `shutdown` completes: HTTP/1.1 with a header timeout,
/// a deadline for each request's body, and a limit of open connections per client
/// address (a connection over it is answered `429` and closed). Every request carries
/// its client's address as `ConnectInfo` ([`client_address`]: the peer, or what a
/// trusted proxy says) and its [`Transport`].
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let serving = Serving {
        app,
        limits: Arc::new(limits),
        counts: Arc::new(Counts::default()),
    };
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    // Out of descriptors and the like: wait a moment, do not spin.
                    tracing::debug!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
            _ = &mut shutdown => break,
        };
        if let Some(a) = admit(&serving, tcp, peer) {
            tasks.spawn(connection(serving.clone(), a, stop_rx.clone()));
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(DRAIN, async { while tasks.join_next().await.is_some() {} }).await;
    Ok(())
}

/// A connection just accepted, unless its address holds too many (then it is answered
/// `429` and closed).
fn admit(serving: &Serving, tcp: TcpStream, peer: std::net::SocketAddr) -> Option<Accepted> {
    // Small frames go out at once: without TCP_NODELAY, Nagle's algorithm holds an
    // event back until the peer's delayed acknowledgement of the previous one.
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "TCP_NODELAY not set");
    }
    let limits = &serving.limits;
    let is_trusted = trusted(limits, peer.ip());
    // A direct client is counted at once, before anything of it is read.
    let counted = if is_trusted {
        None
    } else {
        let Some(c) = serving
            .counts
            .enter(peer.ip().to_canonical(), limits.connections_per_address)
        else {
            let _ = tcp.try_write(TOO_MANY_CONNECTIONS);
            return None;
        };
        Some(c)
    };
    let fd = Arc::new(FdSlot::default());
    #[cfg(unix)]
    if !is_trusted {
        use std::os::fd::AsRawFd;
        fd.set(tcp.as_raw_fd());
    }
    Some(Accepted {
        tcp,
        peer,
        trusted: is_trusted,
        counted,
        fd,
    })
}

/// One connection's task: its PROXY header first (from a trusted proxy that sends
/// one), then HTTP/1.1 until the client leaves or the server stops (`stop`: the
/// requests in flight finish).
async fn connection(serving: Serving, mut a: Accepted, mut stop: watch::Receiver<bool>) {
    let limits = serving.limits.clone();
    let mut proxied = None;
    if a.trusted && limits.client_address_from == ClientAddressFrom::ProxyProtocol {
        match tokio::time::timeout(limits.header_timeout, read_proxy_header(&mut a.tcp)).await {
            Ok(Ok(addr)) => proxied = addr,
            Ok(Err(e)) => {
                let peer = a.peer;
                tracing::debug!(%peer, error = %e, "refused a trusted proxy's connection");
                return;
            }
            Err(_) => return,
        }
    }
    let conn = Arc::new(Conn {
        peer: a.peer,
        trusted: a.trusted,
        proxied,
        counted: Mutex::new(a.counted),
        fd: a.fd,
    });
    if let Some(client) = proxied {
        match serving
            .counts
            .enter(client.to_canonical(), limits.connections_per_address)
        {
            Some(c) => *conn.counted.lock().unwrap_or_else(|p| p.into_inner()) = Some(c),
            None => {
                let _ = a.tcp.try_write(TOO_MANY_CONNECTIONS);
                return;
            }
        }
    }
    let io = TokioIo::new(Guarded {
        tcp: a.tcp,
        conn: conn.clone(),
    });
    let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
        request(serving.clone(), conn.clone(), req)
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .serve_connection(io, svc)
        .with_upgrades();
    tokio::pin!(conn);
    tokio::select! {
        r = conn.as_mut() => {
            if let Err(e) = r {
                tracing::debug!(error = %e, "connection ended");
            }
        }
        _ = stop.changed() => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

/// One request of a connection, to the app: with its client's address (`ConnectInfo`),
/// its [`Transport`], and a deadline for its body. A trusted proxy's connection without
/// a PROXY header is counted under the client of its latest request.
async fn request(
    serving: Serving,
    conn: Arc<Conn>,
    req: Request<Incoming>,
) -> Result<Response, std::convert::Infallible> {
    let limits = &serving.limits;
    let client = client_address(limits, conn.peer.ip(), conn.proxied, req.headers());
    if conn.trusted && conn.proxied.is_none() {
        // Counted under the client of this request.
        let mut slot = conn.counted.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().map(|c| *c.key()) != Some(client) {
            match serving.counts.enter(client, limits.connections_per_address) {
                Some(c) => *slot = Some(c),
                None => return Ok(too_many_connections()),
            }
        }
    }
    let transport = if conn.trusted {
        Transport::forwarded(req.headers())
    } else {
        Transport::direct(conn.fd.clone())
    };
    let deadline = Box::pin(tokio::time::sleep(limits.body_timeout));
    let mut req = req.map(|inner| Body::new(DeadlineBody { inner, deadline }));
    req.extensions_mut()
        .insert(ConnectInfo(std::net::SocketAddr::new(
            client,
            conn.peer.port(),
        )));
    req.extensions_mut().insert(transport);
    serving.app.oneshot(req).await
}

const TOO_MANY_CONNECTIONS: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: 56\r\nConnection: close\r\n\r\n{\"error\":\"too many open connections from your address\"}\n";
