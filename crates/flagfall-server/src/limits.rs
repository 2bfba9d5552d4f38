//! What a stranger may do (issue 19's abuse items, docs/protocol.md "Limits"): the
//! security headers every answer carries, and the WebSocket close code for a failed read.

use std::collections::HashMap;
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
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt;
use tower_http::timeout::TimeoutBody;

/// The Content-Security-Policy of every answer. The web UI (`web/dist`) loads its own
/// script and stylesheet, opens a WebSocket to its own origin, and shows `data:` images
/// (its icon, the stylesheet's SVG pieces); nothing inline, nothing from elsewhere, and
/// it is never framed.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Add the security headers: the CSP, no framing (`X-Frame-Options: DENY`), and no
/// `Referer` (tokens travel in page URLs), and no MIME sniffing.
pub async fn security_headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// The close code for a socket whose read failed, as RFC 6455 section 7.4.1 says: 1009
/// for a message too big, 1007 for a text message that is not UTF-8, 1002 for a breach
/// of the protocol, 1011 otherwise.
pub fn close_code_for(e: axum::Error) -> u16 {
    use axum::extract::ws::close_code;
    use tokio_tungstenite::tungstenite::Error as WsError;
    match e.into_inner().downcast::<WsError>() {
        Ok(e) => match *e {
            WsError::Capacity(_) => close_code::SIZE,
            WsError::Utf8(_) => close_code::INVALID,
            WsError::Protocol(_) => close_code::PROTOCOL,
            _ => close_code::ERROR,
        },
        Err(_) => close_code::ERROR,
    }
}

/// The limits a server enforces on what comes from one client address (docs/protocol.md
/// "Limits"). [`Limits::default`] suits a public server; [`Limits::unlimited`] is for the
/// load generator and the test suite, which open thousands of connections from loopback.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Open TCP connections (WebSockets included) one address may hold; 0: no limit.
    pub connections_per_address: usize,
    /// How long a client may take to send a request's headers.
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body.
    pub body_timeout: Duration,
    /// Games, practice games, challenges and accepts one address may create a minute,
    /// sustained (bursts of [`Limits::create_burst`]); 0: no limit.
    pub creates_per_minute: u32,
    /// The burst of creations one address may make at once.
    pub create_burst: u32,
    /// WebSockets open with one token (a player's or the director's); 0: no limit.
    pub sockets_per_token: usize,
    /// Practice computers with an engine process (`--engine`) at once; over it a new
    /// practice game is refused (`503`).
    pub engines: usize,
    /// How long a game may wait for its first action before it expires (status
    /// `aborted`, unloaded; docs/protocol.md "Lifecycles").
    pub unstarted_expiry: Duration,
    /// How long an evening's task stays loaded without a command and with no live
    /// socket before it is unloaded (loaded again on the next request).
    pub evening_idle: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections_per_address: CONNECTIONS_PER_ADDRESS,
            header_timeout: HEADER_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
            creates_per_minute: CREATES_PER_MINUTE,
            create_burst: CREATE_BURST,
            engines: ENGINES,
            sockets_per_token: SOCKETS_PER_TOKEN,
            unstarted_expiry: UNSTARTED_EXPIRY,
            evening_idle: EVENING_IDLE,
        }
    }
}

impl Limits {
    /// No per-address limit (the timeouts and the engine cap stay): for load tests from
    /// one machine.
    pub fn unlimited() -> Limits {
        Limits {
            connections_per_address: 0,
            creates_per_minute: 0,
            sockets_per_token: 0,
            ..Limits::default()
        }
    }
}

/// Default: open connections per address. A household, a club or a school behind one
/// address plays a few games at once with a few tabs each; an address holding more
/// than this is a flood.
pub const CONNECTIONS_PER_ADDRESS: usize = 256;
/// Default: the time a client has to send a request's headers (a browser needs
/// milliseconds; slowloris needs minutes).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default: the time a client has to send a request's body (at most 16 KiB).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Default: creations per address a minute, sustained. A person starts a game every few
/// minutes; a director sets up a round's boards at once, within the burst.
pub const CREATES_PER_MINUTE: u32 = 30;
/// Default: WebSockets with one token at once. A player has a phone and a laptop and a
/// tab or two that reconnects; 40 sockets with one token were a flood.
pub const SOCKETS_PER_TOKEN: usize = 8;
/// Default: engine processes at once. A search takes a core for its thinking time; a
/// small server has a few cores, and more engines than that only slow every game.
pub const ENGINES: usize = 8;
/// Default: how long a game may wait for its first action. A challenge waits 30 minutes
/// to be accepted ([`crate::challenge::CHALLENGE_TTL_MS`]); a game created and never
/// played waits as long, then expires (issue 19, item 12).
pub const UNSTARTED_EXPIRY: Duration = Duration::from_secs(30 * 60);
/// Default: how long an evening with nothing to do and nobody watching stays loaded.
/// Between two rounds of a blitz evening a few minutes pass; an evening idle this long
/// is over or paused, and a server that holds many leaves their memory free.
pub const EVENING_IDLE: Duration = Duration::from_secs(15 * 60);
/// Default: creations per address at once.
pub const CREATE_BURST: u32 = 60;

/// A function that puts a route under the per-address creation limit (`tower_governor`,
/// keyed by the peer's IP address, a token bucket shared by every route it is given): a
/// request over it is answered `429` with the seconds to wait.
pub fn creation_limit<S>(limits: &Limits) -> Box<dyn Fn(MethodRouter<S>) -> MethodRouter<S>>
where
    S: Clone + Send + Sync + 'static,
{
    let unlimited = Box::new(|route| route);
    if limits.creates_per_minute == 0 {
        return unlimited;
    }
    let every_ms = (60_000 / u64::from(limits.creates_per_minute)).max(1);
    let Some(config) = tower_governor::governor::GovernorConfigBuilder::default()
        .per_millisecond(every_ms)
        .burst_size(limits.create_burst.max(1))
        .finish()
    else {
        return unlimited;
    };
    let limiter = config.limiter().clone();
    // Forget addresses that have been quiet (the limiter keeps one entry per address).
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(60));
        loop {
            tick.tick().await;
            limiter.retain_recent();
        }
    });
    let layer = tower_governor::GovernorLayer::new(config).error_handler(|e| {
        let (status, message) = match e {
            tower_governor::GovernorError::TooManyRequests { wait_time, .. } => (
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "too many games or challenges created from your address: wait {wait_time} s"
                ),
            ),
            tower_governor::GovernorError::UnableToExtractKey => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot tell the client's address".to_string(),
            ),
            tower_governor::GovernorError::Other { code, msg, .. } => {
                (code, msg.unwrap_or_else(|| "refused".into()))
            }
        };
        (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
    });
    Box::new(move |route| route.layer(layer.clone()))
}

/// A request whose `Content-Length` is over the body limit is refused at once (`413`),
/// before its body is read.
pub async fn refuse_long_bodies(req: Request, next: Next) -> Response {
    let length = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(n) = length
        && n > flagfall_protocol::MAX_BODY_BYTES as u64
    {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            axum::Json(serde_json::json!({
                "error": format!(
                    "body of {n} bytes: more than the {} allowed",
                    flagfall_protocol::MAX_BODY_BYTES
                )
            })),
        )
            .into_response();
    }
    next.run(req).await
}

/// Open connections (or sockets) per key: an address, a token's hash.
pub struct Counts<K>(Mutex<HashMap<K, usize>>);

impl<K> Default for Counts<K> {
    fn default() -> Self {
        Counts(Mutex::new(HashMap::new()))
    }
}

/// One open connection of a key, counted until dropped.
pub struct Counted<K: Eq + std::hash::Hash + Clone> {
    counts: Arc<Counts<K>>,
    key: K,
}

impl<K: Eq + std::hash::Hash + Clone> Counts<K> {
    /// Count one more for `key`, unless it has `max` already (`0`: no limit).
    pub fn enter(self: &Arc<Self>, key: K, max: usize) -> Option<Counted<K>> {
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let n = m.entry(key.clone()).or_insert(0);
        if max > 0 && *n >= max {
            return None;
        }
        *n += 1;
        Some(Counted {
            counts: self.clone(),
            key,
        })
    }
}

impl<K: Eq + std::hash::Hash + Clone> Drop for Counted<K> {
    fn drop(&mut self) {
        let mut m = self.counts.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = m.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.key);
            }
        }
    }
}

/// A connection that holds its address's count as long as it is open (a WebSocket's
/// too, after the upgrade).
struct Guarded {
    tcp: TcpStream,
    _counted: Counted<IpAddr>,
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

/// Serve `app` on `listener` until `shutdown` completes: HTTP/1.1 with a header timeout,
/// a body timeout, and a limit of open connections per address (a connection over it
/// is answered `429` and closed). Every request carries its peer's address
/// (`ConnectInfo`) for the per-address creation limit.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let counts: Arc<Counts<IpAddr>> = Arc::new(Counts::default());
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
        // Small frames go out at once: without TCP_NODELAY, Nagle's algorithm holds an
        // event back until the peer's delayed acknowledgement of the previous one.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
        let Some(counted) = counts.enter(peer.ip(), limits.connections_per_address) else {
            let _ = tcp.try_write(TOO_MANY_CONNECTIONS);
            continue;
        };
        let io = TokioIo::new(Guarded {
            tcp,
            _counted: counted,
        });
        let app = app.clone();
        let body_timeout = limits.body_timeout;
        let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
            let mut req = req.map(|b| Body::new(TimeoutBody::new(body_timeout, b)));
            req.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(req)
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .serve_connection(io, svc)
            .with_upgrades();
        let mut stop = stop_rx.clone();
        tasks.spawn(async move {
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
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(DRAIN, async { while tasks.join_next().await.is_some() {} }).await;
    Ok(())
}

const TOO_MANY_CONNECTIONS: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: 56\r\nConnection: close\r\n\r\n{\"error\":\"too many open connections from your address\"}\n";
