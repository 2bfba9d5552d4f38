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
    /// Evenings (created or imported) one address may make a minute, sustained (bursts
    /// of [`Limits::evening_burst`]); 0: no limit.
    pub evenings_per_minute: u32,
    /// The burst of evenings one address may make at once.
    pub evening_burst: u32,
    /// Players one evening may hold (at its creation, entering players, importing).
    pub evening_players: usize,
    /// Rounds one evening may plan (a Swiss's rounds; a round robin's, from its players).
    pub evening_rounds: u32,
    /// Forbidden pairs one evening may hold.
    pub evening_forbidden: usize,
    /// Bytes one evening's stored log may hold (every change is stored, and replayed
    /// when the evening loads; a pairing or a deleted round records the whole round).
    pub evening_log_bytes: usize,
    /// Deputy directors' tokens one evening may have.
    pub deputies_per_evening: usize,
    /// Threads that run the evenings' CPU-bound work (pairing, standings, exports,
    /// imports) off the async workers; 0: half the cores, at least one.
    pub evening_threads: usize,
    /// Evening requests doing such work that may be in flight on the server at once
    /// (running or waiting for a thread); over it `503`.
    pub evening_queue: usize,
    /// Of those, in flight from one address at once; over it `429`; 0: no limit.
    pub evening_jobs_per_address: usize,
    /// Of those, in flight on one evening at once; over it `429`; 0: no limit.
    pub evening_jobs_per_evening: usize,
    /// The load balancers whose word on the client's address is taken
    /// (`--trusted-proxies`); empty: none, every limit is keyed by the TCP peer.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Where a trusted proxy puts the client's address (`--client-address-from`).
    pub client_address_from: ClientAddressFrom,
}

/// Where the client's address is read on a connection from a trusted proxy
/// (docs/protocol.md "Limits", "Behind a load balancer"). One source, chosen by the
/// operator: a proxy that appends to `X-Forwarded-For` passes a client's own `Forwarded`
/// header on untouched (and the other way round), and a proxy in TCP mode without
/// `send-proxy` passes a client's own PROXY line on; trusting two sources would trust
/// what the client wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAddressFrom {
    /// The rightmost address of `X-Forwarded-For` that is not a trusted proxy (nginx
    /// `$proxy_add_x_forwarded_for`, HAProxy `option forwardfor`).
    XForwardedFor,
    /// The rightmost `for=` of `Forwarded` (RFC 7239) that is not a trusted proxy.
    Forwarded,
    /// The PROXY protocol, version 1 or 2 (HAProxy `send-proxy`/`send-proxy-v2`, nginx's
    /// stream module `proxy_protocol on`): a trusted proxy's connection must begin with
    /// the header.
    ProxyProtocol,
}

impl std::str::FromStr for ClientAddressFrom {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "x-forwarded-for" => Ok(ClientAddressFrom::XForwardedFor),
            "forwarded" => Ok(ClientAddressFrom::Forwarded),
            "proxy-protocol" => Ok(ClientAddressFrom::ProxyProtocol),
            _ => Err(format!(
                "{s:?}: expected x-forwarded-for, forwarded or proxy-protocol"
            )),
        }
    }
}

/// Parse `--trusted-proxies`: addresses or CIDR ranges separated by commas
/// (`10.0.0.0/8,fd00::/8,192.0.2.7`).
pub fn parse_trusted_proxies(s: &str) -> Result<Vec<ipnet::IpNet>, String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| {
            x.parse::<ipnet::IpNet>()
                .or_else(|_| x.parse::<IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| format!("{x:?} is not an address or a CIDR range (10.0.0.0/8)"))
        })
        .collect()
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
            evenings_per_minute: EVENINGS_PER_MINUTE,
            evening_burst: EVENING_BURST,
            evening_players: EVENING_PLAYERS,
            evening_rounds: EVENING_ROUNDS,
            evening_forbidden: EVENING_FORBIDDEN,
            evening_log_bytes: EVENING_LOG_MIB << 20,
            deputies_per_evening: DEPUTIES_PER_EVENING,
            evening_threads: 0,
            evening_queue: EVENING_QUEUE,
            evening_jobs_per_address: EVENING_JOBS_PER_ADDRESS,
            evening_jobs_per_evening: EVENING_JOBS_PER_EVENING,
            trusted_proxies: Vec::new(),
            client_address_from: ClientAddressFrom::XForwardedFor,
        }
    }
}

impl Limits {
    /// No per-address limit (the timeouts and the engine cap stay), and evenings as
    /// large as the events library takes: for load tests from one machine.
    pub fn unlimited() -> Limits {
        Limits {
            connections_per_address: 0,
            creates_per_minute: 0,
            sockets_per_token: 0,
            evenings_per_minute: 0,
            evening_players: flagfall_events::event::MAX_PLAYERS,
            evening_rounds: flagfall_events::event::MAX_ROUNDS,
            evening_forbidden: usize::MAX,
            evening_log_bytes: usize::MAX,
            deputies_per_evening: usize::MAX,
            evening_queue: usize::MAX,
            evening_jobs_per_address: 0,
            evening_jobs_per_evening: 0,
            ..Limits::default()
        }
    }

    /// The threads for the evenings' CPU-bound work ([`Limits::evening_threads`], or half
    /// the cores, at least one).
    pub fn evening_threads(&self) -> usize {
        if self.evening_threads > 0 {
            return self.evening_threads;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cores / 2).max(1)
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
/// Default: evenings (created or imported) per address a minute, sustained. A director
/// sets up an evening or two a night; a few more are mistakes made again.
pub const EVENINGS_PER_MINUTE: u32 = 5;
/// Default: evenings per address at once.
pub const EVENING_BURST: u32 = 10;
/// Default: players per evening. A big open blitz has a few hundred; a thousand pair in
/// about a second on one core. A server for larger events raises it (`--evening-players`,
/// up to the events library's [`flagfall_events::event::MAX_PLAYERS`], 9,999; a later
/// round of a Swiss that size pairs for minutes, see BENCHMARKS.md "Dutch pairing").
pub const EVENING_PLAYERS: usize = 1000;
/// Default: rounds per evening (a round robin's from its players): a blitz evening plays
/// 5 to 13; a round robin of 51 players plays 50.
pub const EVENING_ROUNDS: u32 = 50;
/// Default: forbidden pairs per evening (family members, team mates: a few per player).
pub const EVENING_FORBIDDEN: usize = 5000;
/// Default: mebibytes of an evening's stored log. A thousand-player evening of 13 rounds
/// logs about 4 MiB (entries, pairings, results, corrections); a stranger deleting and
/// pairing a round again and again logs the whole round each time.
pub const EVENING_LOG_MIB: usize = 32;
/// Default: deputy directors per evening (one per room or section, a few spare).
pub const DEPUTIES_PER_EVENING: usize = 8;
/// Default: evening requests doing CPU-bound work in flight on the server at once.
pub const EVENING_QUEUE: usize = 64;
/// Default: of those, from one address at once (a director's console asks a few
/// things at once; a script asking more waits its turn).
pub const EVENING_JOBS_PER_ADDRESS: usize = 4;
/// Default: of those, on one evening at once (its console, projector and pages).
pub const EVENING_JOBS_PER_EVENING: usize = 16;

/// The address of the client that sent a request, as every per-address limit keys it:
/// the `ConnectInfo` [`serve`] gives every request ([`client_address`]: the TCP peer, or
/// what a trusted proxy says).
pub fn request_address(extensions: &axum::http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip())
}

/// A token bucket per client address (the `governor` crate): `per_minute` sustained,
/// `burst` at once. What it counts is named in its refusals.
pub struct Bucket {
    limiter: governor::DefaultKeyedRateLimiter<IpAddr>,
    /// What is counted, as a refusal names it ("games created from your address").
    what: &'static str,
    /// The flags that set it.
    flags: &'static str,
    burst: u32,
}

/// A refusal of a [`Bucket`]: its message and the seconds to wait.
#[derive(Debug, Clone)]
pub struct Later {
    /// `429` (the client's share), `503` (the server's).
    pub status: StatusCode,
    pub message: String,
    pub retry_after: u64,
}

impl Later {
    /// The answer, with its `Retry-After`.
    pub fn response(&self) -> Response {
        let mut r = (
            self.status,
            axum::Json(serde_json::json!({ "error": self.message })),
        )
            .into_response();
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(self.retry_after));
        r
    }
}

impl Bucket {
    /// `None` when `per_minute` is 0 (no limit).
    pub fn new(
        per_minute: u32,
        burst: u32,
        what: &'static str,
        flags: &'static str,
    ) -> Option<Arc<Bucket>> {
        let every = Duration::from_millis((60_000 / u64::from(per_minute.max(1))).max(1));
        if per_minute == 0 {
            return None;
        }
        let burst = burst.max(1);
        let quota = governor::Quota::with_period(every)?
            .allow_burst(std::num::NonZeroU32::new(burst).unwrap_or(std::num::NonZeroU32::MIN));
        let bucket = Arc::new(Bucket {
            limiter: governor::RateLimiter::keyed(quota),
            what,
            flags,
            burst,
        });
        // Forget addresses that have been quiet (the limiter keeps one entry per address).
        let weak = Arc::downgrade(&bucket);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                match weak.upgrade() {
                    Some(b) => b.limiter.retain_recent(),
                    None => return,
                }
            }
        });
        Some(bucket)
    }

    /// Take `n` from `addr`'s bucket, all or none.
    pub fn take(&self, addr: IpAddr, n: u32) -> Result<(), Later> {
        use governor::clock::Clock;
        let Some(n) = std::num::NonZeroU32::new(n) else {
            return Ok(());
        };
        match self.limiter.check_key_n(&addr, n) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(not_until)) => {
                let wait = not_until.wait_time_from(self.limiter.clock().now());
                let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                let asked = if n.get() > 1 {
                    format!(" ({} at once)", n.get())
                } else {
                    String::new()
                };
                Err(Later {
                    status: StatusCode::TOO_MANY_REQUESTS,
                    message: format!(
                        "too many {}{asked}: wait {secs} s ({})",
                        self.what, self.flags
                    ),
                    retry_after: secs.max(1),
                })
            }
            Err(_) => Err(Later {
                status: StatusCode::TOO_MANY_REQUESTS,
                message: format!(
                    "too many {} at once: {} asked, at most {} on this server ({})",
                    self.what,
                    n.get(),
                    self.burst,
                    self.flags
                ),
                retry_after: 60,
            }),
        }
    }
}

/// A function that puts a route under a per-address bucket (`None`: no limit): a
/// request over it is answered `429` with the seconds to wait (`Retry-After`).
pub fn limited_by<S>(
    bucket: Option<Arc<Bucket>>,
) -> Box<dyn Fn(MethodRouter<S>) -> MethodRouter<S> + Send + Sync>
where
    S: Clone + Send + Sync + 'static,
{
    let Some(bucket) = bucket else {
        return Box::new(|route| route);
    };
    Box::new(move |route: MethodRouter<S>| {
        let bucket = bucket.clone();
        route.layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let bucket = bucket.clone();
                async move {
                    let Some(addr) = request_address(req.extensions()) else {
                        return (
                            StatusCode::INTERNAL_SERVER_ERROR,
                            axum::Json(
                                serde_json::json!({ "error": "cannot tell the client's address" }),
                            ),
                        )
                            .into_response();
                    };
                    match bucket.take(addr, 1) {
                        Ok(()) => next.run(req).await,
                        Err(later) => later.response(),
                    }
                }
            },
        ))
    })
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

/// Whether `ip` is one of the trusted proxies.
fn trusted(limits: &Limits, ip: IpAddr) -> bool {
    let ip = ip.to_canonical();
    limits.trusted_proxies.iter().any(|n| n.contains(&ip))
}

/// The client's address, the one source of it for every per-address limit (open
/// connections, creations, and whatever else is keyed by address: they read the
/// `ConnectInfo` that [`serve`] sets from this). `peer` is the TCP peer; `proxied` the
/// address a PROXY protocol header gave. A peer that is not a trusted proxy is the
/// client, whatever headers it sends; a trusted proxy's word is taken from the one
/// source the operator chose ([`ClientAddressFrom`]): the rightmost address that is
/// not itself a trusted proxy (each proxy appends the address it saw; what is left of
/// the last untrusted one was written by the client). A header missing or unreadable
/// leaves the proxy's own address: its clients share one bucket, never a forged one.
pub fn client_address(
    limits: &Limits,
    peer: IpAddr,
    proxied: Option<IpAddr>,
    headers: &axum::http::HeaderMap,
) -> IpAddr {
    let peer = peer.to_canonical();
    if !trusted(limits, peer) {
        return peer;
    }
    let chain: Vec<Option<IpAddr>> = match limits.client_address_from {
        ClientAddressFrom::ProxyProtocol => return proxied.unwrap_or(peer),
        ClientAddressFrom::XForwardedFor => headers
            .get_all("x-forwarded-for")
            .iter()
            .flat_map(|v| v.to_str().unwrap_or("\u{0}").split(','))
            .map(|a| parse_node(a.trim()))
            .collect(),
        ClientAddressFrom::Forwarded => headers
            .get_all(header::FORWARDED)
            .iter()
            .flat_map(|v| v.to_str().unwrap_or("\u{0}").split(','))
            .map(|element| {
                element
                    .split(';')
                    .filter_map(|pair| pair.trim().split_once('='))
                    .find(|(k, _)| k.trim().eq_ignore_ascii_case("for"))
                    .and_then(|(_, v)| parse_node(v.trim().trim_matches('"')))
            })
            .collect(),
    };
    for hop in chain.iter().rev() {
        match hop {
            Some(ip) if trusted(limits, *ip) => continue,
            Some(ip) => return ip.to_canonical(),
            // `unknown`, an obfuscated name, garbage: nothing left of it can be trusted.
            None => return peer,
        }
    }
    // Every hop a trusted proxy (a proxy's own request): the innermost one.
    chain.first().copied().flatten().unwrap_or(peer)
}

/// An address of `X-Forwarded-For` or of a `for=`: `192.0.2.1`, `192.0.2.1:4711`,
/// `2001:db8::1`, `[2001:db8::1]:4711`.
fn parse_node(s: &str) -> Option<IpAddr> {
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sa) = s.parse::<std::net::SocketAddr>() {
        return Some(sa.ip());
    }
    let inner = s.strip_prefix('[')?.split(']').next()?;
    inner.parse().ok()
}

/// The header a trusted proxy puts the round trip it measured to the client in,
/// microseconds (nginx `$tcpinfo_rtt`, HAProxy `%[fc_rtt(us)]`); with its variation in
/// [`RTTVAR_HEADER`] (`$tcpinfo_rttvar`, `%[fc_rttvar(us)]`). Read from trusted proxies
/// only (docs/protocol.md "Lag compensation").
pub const RTT_HEADER: &str = "x-client-rtt";
/// See [`RTT_HEADER`].
pub const RTTVAR_HEADER: &str = "x-client-rttvar";

/// The round trip to the client as the transport measured it, which the client's
/// application cannot stretch (the kernel times the TCP acknowledgements; its
/// WebSocket pongs it may hold back): the bound of a socket's lag credit
/// (docs/protocol.md "Lag compensation"). Every request carries one.
#[derive(Clone, Default)]
pub struct Transport {
    /// The accepted socket, for `TCP_INFO` (a direct client).
    kernel: Option<Arc<FdSlot>>,
    /// What a trusted proxy measured (µs): round trip and its variation.
    forwarded_us: Option<(u64, Option<u64>)>,
}

impl Transport {
    /// The largest round trip the transport vouches for, in microseconds. On a direct
    /// connection twice the least round trip the kernel has measured (`tcpi_min_rtt`):
    /// the smoothed round trip will not do, as a client that holds its pongs back also
    /// leaves the server's pings to its kernel's delayed acknowledgement (40 to 200 ms),
    /// which the smoothed round trip and its variation take in. Behind a trusted proxy,
    /// the smoothed round trip it passes plus four times its variation, twice the round
    /// trip when no variation is passed. `None`: no transport measurement (a trusted
    /// proxy that forwards none, a system without `TCP_INFO`).
    pub fn rtt_bound_us(&self) -> Option<u64> {
        if let Some(k) = &self.kernel {
            return k.min_rtt_us().map(|m| m.saturating_mul(2));
        }
        let (rtt, var) = self.forwarded_us?;
        Some(match var {
            Some(v) => rtt.saturating_add(v.saturating_mul(4)),
            None => rtt.saturating_mul(2),
        })
    }
}

/// An accepted socket's descriptor while its connection is open (`None` once it is
/// closed: a number the system may give to another socket is never asked).
#[derive(Default)]
struct FdSlot(Mutex<Option<i32>>);

impl FdSlot {
    /// `tcpi_min_rtt` (µs) of the socket, where the system tells it.
    fn min_rtt_us(&self) -> Option<u64> {
        let fd = self.0.lock().unwrap_or_else(|p| p.into_inner());
        tcp_min_rtt_us((*fd)?)
    }

    fn close(&self) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

#[cfg(target_os = "linux")]
fn tcp_min_rtt_us(fd: i32) -> Option<u64> {
    let mut info = std::mem::MaybeUninit::<libc::tcp_info>::zeroed();
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: `fd` is an open TCP socket (the slot is emptied under its lock before the
    // socket closes, and this runs under that lock); `info` and `len` describe a
    // writable buffer of `len` bytes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            info.as_mut_ptr().cast(),
            &mut len,
        )
    };
    // An older kernel fills less of the structure: it must reach `tcpi_min_rtt`.
    let needed = std::mem::offset_of!(libc::tcp_info, tcpi_min_rtt) + 4;
    if r != 0 || (len as usize) < needed {
        return None;
    }
    // SAFETY: the structure was zeroed, and getsockopt wrote the first `len` bytes.
    let info = unsafe { info.assume_init() };
    // No sample yet: the kernel's "infinite" minimum.
    (info.tcpi_min_rtt != u32::MAX).then(|| u64::from(info.tcpi_min_rtt))
}

#[cfg(not(target_os = "linux"))]
fn tcp_min_rtt_us(_fd: i32) -> Option<u64> {
    None
}

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

/// The longest PROXY protocol header read: version 1 is at most 107 bytes; version 2
/// is 16 bytes and what they announce (addresses and TLVs).
const PROXY_V2_SIGNATURE: &[u8; 12] = b"\r\n\r\n\0\r\nQUIT\n";

/// Read the PROXY protocol header a trusted proxy's connection begins with (exactly
/// its bytes: what follows is the HTTP request) and the client's address in it (`None`
/// for a `LOCAL` or `UNKNOWN` header: the proxy's own connection, a health check).
async fn read_proxy_header(tcp: &mut TcpStream) -> Result<Option<IpAddr>, String> {
    use tokio::io::AsyncReadExt;
    let mut head = [0u8; 16];
    tcp.read_exact(&mut head[..6])
        .await
        .map_err(|e| e.to_string())?;
    if &head[..6] == b"PROXY " {
        let mut line = head[..6].to_vec();
        while !line.ends_with(b"\r\n") {
            if line.len() >= 107 {
                return Err("a PROXY line longer than 107 bytes".into());
            }
            let mut b = [0u8; 1];
            tcp.read_exact(&mut b).await.map_err(|e| e.to_string())?;
            line.push(b[0]);
        }
        let text = std::str::from_utf8(&line).map_err(|_| "a PROXY line that is not text")?;
        let h = ppp::v1::Header::try_from(text).map_err(|e| format!("PROXY line: {e}"))?;
        return Ok(match h.addresses {
            ppp::v1::Addresses::Tcp4(a) => Some(IpAddr::V4(a.source_address)),
            ppp::v1::Addresses::Tcp6(a) => Some(IpAddr::V6(a.source_address)),
            ppp::v1::Addresses::Unknown => None,
        });
    }
    tcp.read_exact(&mut head[6..])
        .await
        .map_err(|e| e.to_string())?;
    if &head[..12] != PROXY_V2_SIGNATURE {
        return Err("the connection does not begin with a PROXY protocol header".into());
    }
    let len = usize::from(u16::from_be_bytes([head[14], head[15]]));
    let mut all = head.to_vec();
    all.resize(16 + len, 0);
    tcp.read_exact(&mut all[16..])
        .await
        .map_err(|e| e.to_string())?;
    let h = ppp::v2::Header::try_from(&all[..]).map_err(|e| format!("PROXY header: {e}"))?;
    if h.command == ppp::v2::Command::Local {
        return Ok(None);
    }
    Ok(match h.addresses {
        ppp::v2::Addresses::IPv4(a) => Some(IpAddr::V4(a.source_address)),
        ppp::v2::Addresses::IPv6(a) => Some(IpAddr::V6(a.source_address)),
        _ => None,
    })
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
    let counts: Arc<Counts<IpAddr>> = Arc::new(Counts::default());
    let limits = Arc::new(limits);
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (mut tcp, peer) = tokio::select! {
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
        let is_trusted = trusted(&limits, peer.ip());
        // A direct client is counted at once, before anything of it is read.
        let counted = if is_trusted {
            None
        } else {
            let Some(c) = counts.enter(peer.ip().to_canonical(), limits.connections_per_address)
            else {
                let _ = tcp.try_write(TOO_MANY_CONNECTIONS);
                continue;
            };
            Some(c)
        };
        let fd = Arc::new(FdSlot::default());
        #[cfg(unix)]
        if !is_trusted {
            use std::os::fd::AsRawFd;
            *fd.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(tcp.as_raw_fd());
        }
        let app = app.clone();
        let limits = limits.clone();
        let counts = counts.clone();
        let mut stop = stop_rx.clone();
        tasks.spawn(async move {
            let mut proxied = None;
            if is_trusted && limits.client_address_from == ClientAddressFrom::ProxyProtocol {
                match tokio::time::timeout(limits.header_timeout, read_proxy_header(&mut tcp)).await
                {
                    Ok(Ok(a)) => proxied = a,
                    Ok(Err(e)) => {
                        tracing::debug!(%peer, error = %e, "refused a trusted proxy's connection");
                        return;
                    }
                    Err(_) => return,
                }
            }
            let conn = Arc::new(Conn {
                peer,
                trusted: is_trusted,
                proxied,
                counted: Mutex::new(counted),
                fd,
            });
            if let Some(client) = proxied {
                match counts.enter(client.to_canonical(), limits.connections_per_address) {
                    Some(c) => *conn.counted.lock().unwrap_or_else(|p| p.into_inner()) = Some(c),
                    None => {
                        let _ = tcp.try_write(TOO_MANY_CONNECTIONS);
                        return;
                    }
                }
            }
            let io = TokioIo::new(Guarded {
                tcp,
                conn: conn.clone(),
            });
            let body_timeout = limits.body_timeout;
            let header_timeout = limits.header_timeout;
            let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
                let app = app.clone();
                let conn = conn.clone();
                let limits = limits.clone();
                let counts = counts.clone();
                async move {
                    let client =
                        client_address(&limits, conn.peer.ip(), conn.proxied, req.headers());
                    if conn.trusted && conn.proxied.is_none() {
                        // Counted under the client of this request.
                        let mut slot = conn.counted.lock().unwrap_or_else(|p| p.into_inner());
                        if slot.as_ref().map(|c| c.key) != Some(client) {
                            match counts.enter(client, limits.connections_per_address) {
                                Some(c) => *slot = Some(c),
                                None => return Ok(too_many_connections()),
                            }
                        }
                    }
                    let transport = Transport {
                        kernel: (!conn.trusted).then(|| conn.fd.clone()),
                        forwarded_us: if conn.trusted {
                            forwarded_rtt(req.headers())
                        } else {
                            None
                        },
                    };
                    let deadline = Box::pin(tokio::time::sleep(body_timeout));
                    let mut req = req.map(|inner| Body::new(DeadlineBody { inner, deadline }));
                    req.extensions_mut()
                        .insert(ConnectInfo(std::net::SocketAddr::new(
                            client,
                            conn.peer.port(),
                        )));
                    req.extensions_mut().insert(transport);
                    app.oneshot(req).await
                }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
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
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(DRAIN, async { while tasks.join_next().await.is_some() {} }).await;
    Ok(())
}

/// The round trip a trusted proxy measured, from [`RTT_HEADER`] and [`RTTVAR_HEADER`].
fn forwarded_rtt(headers: &axum::http::HeaderMap) -> Option<(u64, Option<u64>)> {
    let read = |name: &str| -> Option<u64> {
        headers.get(name)?.to_str().ok()?.trim().parse::<u64>().ok()
    };
    Some((read(RTT_HEADER)?, read(RTTVAR_HEADER)))
}

const TOO_MANY_CONNECTIONS: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: 56\r\nConnection: close\r\n\r\n{\"error\":\"too many open connections from your address\"}\n";

/// The client's address as a handler's argument ([`request_address`]; `None` when the
/// request did not come through [`serve`], as in a unit test's router).
pub struct ClientAddress(pub Option<IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(ClientAddress(request_address(&parts.extensions)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn behind(from: ClientAddressFrom) -> Limits {
        Limits {
            trusted_proxies: parse_trusted_proxies("10.0.0.0/8, 192.0.2.7").unwrap(),
            client_address_from: from,
            ..Limits::default()
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> axum::http::HeaderMap {
        let mut h = axum::http::HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn the_client_is_the_rightmost_untrusted_hop() {
        let l = behind(ClientAddressFrom::XForwardedFor);
        let proxy: IpAddr = "10.1.2.3".parse().unwrap();
        let stranger: IpAddr = "203.0.113.9".parse().unwrap();
        let xff = headers(&[("x-forwarded-for", "1.1.1.1, 198.51.100.4, 10.9.9.9")]);
        // A trusted proxy: the last hop not trusted.
        assert_eq!(
            client_address(&l, proxy, None, &xff),
            "198.51.100.4".parse::<IpAddr>().unwrap()
        );
        // A stranger's header is nothing.
        assert_eq!(client_address(&l, stranger, None, &xff), stranger);
        // No header, garbage, `unknown`: the proxy itself.
        assert_eq!(client_address(&l, proxy, None, &headers(&[])), proxy);
        let junk = headers(&[("x-forwarded-for", "1.1.1.1, junk")]);
        assert_eq!(client_address(&l, proxy, None, &junk), proxy);
        // Two header lines are one list; IPv6 with a port.
        let two = headers(&[
            ("x-forwarded-for", "1.1.1.1"),
            ("x-forwarded-for", "[2001:db8::1]:4711"),
        ]);
        assert_eq!(
            client_address(&l, proxy, None, &two),
            "2001:db8::1".parse::<IpAddr>().unwrap()
        );
        // Forwarded is not read when X-Forwarded-For is the source.
        let fwd = headers(&[("forwarded", "for=198.51.100.77")]);
        assert_eq!(client_address(&l, proxy, None, &fwd), proxy);
    }

    #[test]
    fn forwarded_and_proxy_protocol_sources() {
        let l = behind(ClientAddressFrom::Forwarded);
        let proxy: IpAddr = "192.0.2.7".parse().unwrap();
        let h = headers(&[(
            "forwarded",
            "for=1.1.1.1;proto=https, for=\"[2001:db8::2]:80\";by=10.0.0.1, for=10.0.0.5",
        )]);
        assert_eq!(
            client_address(&l, proxy, None, &h),
            "2001:db8::2".parse::<IpAddr>().unwrap()
        );
        let xff = headers(&[("x-forwarded-for", "198.51.100.4")]);
        assert_eq!(client_address(&l, proxy, None, &xff), proxy);
        let l = behind(ClientAddressFrom::ProxyProtocol);
        let from: IpAddr = "198.51.100.8".parse().unwrap();
        assert_eq!(client_address(&l, proxy, Some(from), &xff), from);
        assert_eq!(client_address(&l, proxy, None, &xff), proxy);
        assert!(parse_trusted_proxies("10.0.0.0/33").is_err());
        assert!(parse_trusted_proxies("nope").is_err());
    }
}
