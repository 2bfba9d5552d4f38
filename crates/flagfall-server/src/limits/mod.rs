//! What a stranger may do (issue 19's abuse items, docs/protocol.md "Limits"): the limits
//! a server enforces on one client and their defaults, here; in its files, the security
//! headers and close codes (`headers`), the per-address token buckets and the counts of
//! open connections (`buckets`), the client's address from one function (`address`), the
//! round trip the transport measured (`transport`), and the accept loop with its HTTP
//! timeouts (`serve`).

use std::net::IpAddr;
use std::time::Duration;

mod address;
mod buckets;
mod headers;
mod serve;
mod transport;

pub use address::{ClientAddress, client_address, request_address};
pub use buckets::{Bucket, Counted, Counts, Later, limited_by};
pub use headers::{CONTENT_SECURITY_POLICY, close_code_for, refuse_long_bodies, security_headers};
pub use serve::serve;
pub use transport::{RTT_HEADER, RTTVAR_HEADER, Transport};

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
/// up to the events library's [`flagfall_events::event::MAX_PLAYERS`], 10,000; a later
/// round of a Swiss that size pairs in tens of seconds, see BENCHMARKS.md "Issue 34"; the
/// TRF and US Chess exports of more than 9,999 players are refused, their pairing numbers
/// having four columns).
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
