//! Issue 30's transport items through the real server: per-client limits behind a load
//! balancer the test runs, lag credit that a held-back pong cannot buy, every frame
//! counted, a request body's total deadline, and the evening's live socket treated as a
//! game's.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;

use crate::evening::Evening;
use crate::support::*;

const USCF_GAME: &str = r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#;

/// The address the test's load balancer connects from (trusted); clients come from
/// other loopback addresses.
const PROXY_IP: &str = "127.0.0.2";

/// A TCP connection to `to` from the loopback address `from`.
async fn connect_from(from: &str, to: SocketAddr) -> TcpStream {
    let sock = TcpSocket::new_v4().expect("a socket");
    sock.bind(SocketAddr::new(from.parse().unwrap(), 0))
        .expect("bind a loopback address");
    sock.connect(to).await.expect("connect")
}

/// How the test's balancer passes the client's address on.
#[derive(Clone, Copy)]
enum Pass {
    /// Adds `X-Forwarded-For: CLIENT` to the request head (appending to what the client
    /// sent, as nginx's `$proxy_add_x_forwarded_for` does).
    XForwardedFor,
    /// Begins the connection with a PROXY protocol v1 line.
    ProxyV1,
    /// Begins the connection with a PROXY protocol v2 header.
    ProxyV2,
}

/// A load balancer: accepts clients, connects to `backend` from [`PROXY_IP`], passes
/// the client's address on as `pass` says, then copies both ways. Its address.
async fn balancer(backend: SocketAddr, pass: Pass) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut client, peer)) = l.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut up = connect_from(PROXY_IP, backend).await;
                let ip = match peer.ip() {
                    IpAddr::V4(v4) => v4,
                    IpAddr::V6(_) => panic!("the test's clients are IPv4"),
                };
                match pass {
                    Pass::ProxyV1 => {
                        let line = format!(
                            "PROXY TCP4 {ip} {} {} {}\r\n",
                            backend.ip(),
                            peer.port(),
                            backend.port()
                        );
                        up.write_all(line.as_bytes()).await.unwrap();
                    }
                    Pass::ProxyV2 => {
                        let mut h = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
                        h.extend([0x21, 0x11, 0, 12]);
                        h.extend(ip.octets());
                        h.extend([127, 0, 0, 1]);
                        h.extend(peer.port().to_be_bytes());
                        h.extend(backend.port().to_be_bytes());
                        up.write_all(&h).await.unwrap();
                    }
                    Pass::XForwardedFor => {
                        // Read the request head, add the header, send it on.
                        let mut head = Vec::new();
                        let mut b = [0u8; 1];
                        while !head.ends_with(b"\r\n\r\n") {
                            if client.read_exact(&mut b).await.is_err() {
                                return;
                            }
                            head.push(b[0]);
                        }
                        let text = String::from_utf8(head).unwrap();
                        let (first, rest) = text.split_once("\r\n").unwrap();
                        let mut lines: Vec<String> = Vec::new();
                        let mut forwarded = None;
                        for l in rest.trim_end().split("\r\n") {
                            match l.split_once(':') {
                                Some((k, v)) if k.eq_ignore_ascii_case("x-forwarded-for") => {
                                    forwarded = Some(v.trim().to_string())
                                }
                                _ => lines.push(l.to_string()),
                            }
                        }
                        let xff = match forwarded {
                            Some(f) => format!("{f}, {ip}"),
                            None => ip.to_string(),
                        };
                        let out = format!(
                            "{first}\r\nX-Forwarded-For: {xff}\r\n{}\r\n\r\n",
                            lines.join("\r\n")
                        );
                        up.write_all(out.as_bytes()).await.unwrap();
                    }
                }
                let _ = tokio::io::copy_bidirectional(&mut client, &mut up).await;
            });
        }
    });
    addr
}

/// One HTTP request from the loopback address `from` to `to`, with extra header lines:
/// the status and the body.
async fn request_from(
    from: &str,
    to: SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> (u16, String) {
    let mut s = connect_from(from, to).await;
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .expect("read");
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, rest.to_string())
}

/// A WebSocket (spectating `game`) from `from` through `to`: kept open, or the status
/// of the refused upgrade.
async fn socket_from(
    from: &str,
    to: SocketAddr,
    game: &str,
) -> Result<tokio_tungstenite::WebSocketStream<TcpStream>, u16> {
    let tcp = connect_from(from, to).await;
    match tokio_tungstenite::client_async(format!("ws://{to}/ws/games/{game}"), tcp).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("unexpected WebSocket error {e}"),
    }
}

fn behind(from: flagfall_server::limits::ClientAddressFrom) -> flagfall_server::limits::Limits {
    flagfall_server::limits::Limits {
        connections_per_address: 2,
        creates_per_minute: 1,
        create_burst: 2,
        trusted_proxies: flagfall_server::limits::parse_trusted_proxies(PROXY_IP).unwrap(),
        client_address_from: from,
        ..flagfall_server::limits::Limits::default()
    }
}

/// Two clients behind the balancer get a creation bucket and a connection count each;
/// a header the client wrote itself, through the balancer or straight to the server,
/// gets nobody a new bucket.
async fn limits_follow_the_client(pass: Pass) {
    use flagfall_server::limits::ClientAddressFrom;
    let from = match pass {
        Pass::XForwardedFor => ClientAddressFrom::XForwardedFor,
        Pass::ProxyV1 | Pass::ProxyV2 => ClientAddressFrom::ProxyProtocol,
    };
    let srv = Server::start_with(behind(from)).await;
    let lb = balancer(srv.addr, pass).await;
    let forged = "X-Forwarded-For: 198.51.100.1\r\nForwarded: for=198.51.100.2\r\n";
    // Client A: its burst of 2, then refused, with or without a forged header.
    for _ in 0..2 {
        let (st, body) = request_from("127.0.0.11", lb, "POST", "/api/games", "", USCF_GAME).await;
        assert_eq!(st, 201, "{body}");
    }
    let (st, body) = request_from("127.0.0.11", lb, "POST", "/api/games", forged, USCF_GAME).await;
    assert_eq!(
        st, 429,
        "a forged header behind the balancer is a new bucket: {body}"
    );
    // Client B, behind the same balancer: its own bucket.
    let (st, body) = request_from("127.0.0.12", lb, "POST", "/api/games", "", USCF_GAME).await;
    assert_eq!(
        st, 201,
        "the second client shares the first one's bucket: {body}"
    );
    // A client straight to the server, forging the balancer's header: its own address's
    // bucket, used up after two whatever it writes.
    for i in 0..4 {
        let headers =
            format!("X-Forwarded-For: 198.51.100.{i}\r\nForwarded: for=198.51.100.{i}\r\n");
        let (st, body) = request_from(
            "127.0.0.13",
            srv.addr,
            "POST",
            "/api/games",
            &headers,
            USCF_GAME,
        )
        .await;
        let want = if i < 2 { 201 } else { 429 };
        assert_eq!(st, want, "direct request {i} with a forged header: {body}");
    }
    // Connections: two sockets each through the balancer, the third of A refused, B's
    // own two still open.
    let (_, body) = request_from("127.0.0.12", lb, "POST", "/api/games", "", USCF_GAME).await;
    let g: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let game = match g["id"].as_str() {
        Some(id) => id.to_string(),
        None => srv.create(USCF_GAME).await.id,
    };
    let a1 = socket_from("127.0.0.11", lb, &game)
        .await
        .expect("A's first socket");
    let a2 = socket_from("127.0.0.11", lb, &game)
        .await
        .expect("A's second socket");
    assert_eq!(
        socket_from("127.0.0.11", lb, &game).await.err(),
        Some(429),
        "A's third connection"
    );
    let b1 = socket_from("127.0.0.12", lb, &game)
        .await
        .expect("B's first socket");
    let b2 = socket_from("127.0.0.12", lb, &game)
        .await
        .expect("B's second socket");
    drop((a1, a2, b1, b2));
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_follow_the_client_behind_x_forwarded_for() {
    limits_follow_the_client(Pass::XForwardedFor).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_follow_the_client_behind_the_proxy_protocol() {
    limits_follow_the_client(Pass::ProxyV1).await;
    limits_follow_the_client(Pass::ProxyV2).await;
}

/// With no trusted proxy (the default), the balancer is one client: its header counts
/// for nothing, and a PROXY line sent by anyone is a bad request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_proxy_is_trusted_by_default() {
    let srv = Server::start_with(flagfall_server::limits::Limits {
        trusted_proxies: Vec::new(),
        ..behind(flagfall_server::limits::ClientAddressFrom::XForwardedFor)
    })
    .await;
    let lb = balancer(srv.addr, Pass::XForwardedFor).await;
    for (i, from) in ["127.0.0.21", "127.0.0.22", "127.0.0.23"]
        .iter()
        .enumerate()
    {
        let (st, body) = request_from(from, lb, "POST", "/api/games", "", USCF_GAME).await;
        assert_eq!(st, if i < 2 { 201 } else { 429 }, "{from}: {body}");
    }
    let mut s = connect_from("127.0.0.24", srv.addr).await;
    s.write_all(
        b"PROXY TCP4 198.51.100.9 127.0.0.1 1 2\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .await
    .unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out)).await;
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 400"), "{text}");
    srv.stop().await;
}

/// A WebSocket client written by hand, so that it answers the server's pings when it
/// chooses (a library answers them itself): the text messages it receives, and a
/// handle to send with.
struct RawWs {
    texts: tokio::sync::mpsc::UnboundedReceiver<Value>,
    wr: std::sync::Arc<tokio::sync::Mutex<tokio::io::WriteHalf<TcpStream>>>,
}

/// Write one masked client frame.
async fn write_frame(
    wr: &tokio::sync::Mutex<tokio::io::WriteHalf<TcpStream>>,
    opcode: u8,
    payload: &[u8],
) -> bool {
    let mut f = vec![0x80 | opcode];
    match payload.len() {
        n if n < 126 => f.push(0x80 | n as u8),
        n if n < 65536 => {
            f.push(0x80 | 126);
            f.extend((n as u16).to_be_bytes());
        }
        n => {
            f.push(0x80 | 127);
            f.extend((n as u64).to_be_bytes());
        }
    }
    let mask = [0x37, 0xfa, 0x21, 0x3d];
    f.extend(mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    wr.lock().await.write_all(&f).await.is_ok()
}

impl RawWs {
    /// Connect to `path`; each server ping is answered after `pong_after` (with its
    /// payload, as a library would, only late).
    async fn connect(addr: SocketAddr, path: &str, pong_after: Duration) -> RawWs {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        tcp.set_nodelay(true).unwrap();
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        tcp.write_all(req.as_bytes()).await.unwrap();
        let mut head = Vec::new();
        let mut b = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            tcp.read_exact(&mut b).await.expect("the upgrade's answer");
            head.push(b[0]);
        }
        let head = String::from_utf8_lossy(&head).to_string();
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        let (mut rd, wr) = tokio::io::split(tcp);
        let wr = std::sync::Arc::new(tokio::sync::Mutex::new(wr));
        let (tx, texts) = tokio::sync::mpsc::unbounded_channel();
        let pong_wr = wr.clone();
        tokio::spawn(async move {
            loop {
                let mut h = [0u8; 2];
                if rd.read_exact(&mut h).await.is_err() {
                    return;
                }
                let len = match h[1] & 0x7f {
                    126 => {
                        let mut l = [0u8; 2];
                        rd.read_exact(&mut l).await.unwrap();
                        u16::from_be_bytes(l) as usize
                    }
                    127 => {
                        let mut l = [0u8; 8];
                        rd.read_exact(&mut l).await.unwrap();
                        u64::from_be_bytes(l) as usize
                    }
                    n => n as usize,
                };
                let mut payload = vec![0u8; len];
                if rd.read_exact(&mut payload).await.is_err() {
                    return;
                }
                match h[0] & 0x0f {
                    0x1 => {
                        let v: Value = serde_json::from_slice(&payload).expect("JSON");
                        if tx.send(v).is_err() {
                            return;
                        }
                    }
                    0x9 => {
                        let wr = pong_wr.clone();
                        tokio::spawn(async move {
                            tokio::time::sleep(pong_after).await;
                            write_frame(&wr, 0xA, &payload).await;
                        });
                    }
                    0x8 => return,
                    _ => {}
                }
            }
        });
        RawWs { texts, wr }
    }

    async fn send(&self, v: Value) {
        assert!(write_frame(&self.wr, 0x1, v.to_string().as_bytes()).await);
    }

    /// The next text message that `pred` accepts.
    async fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = tokio::time::timeout(Duration::from_secs(10), self.texts.recv())
                .await
                .expect("a message in time")
                .expect("the socket is open");
            if pred(&v) {
                return v;
            }
        }
    }
}

/// Play 30 moves as White thinking 1 s each, claiming 2 s of lag on every press, with
/// pongs answered after `pong_after`; Black answers at once. The game's id.
async fn thirty_moves(srv: &Api, pong_after: Duration) -> String {
    let g = srv
        .create(r#"{"rules":"uscf-2020","time_control":"3+2","mode":"online"}"#)
        .await;
    let mut white = RawWs::connect(
        srv.addr,
        &format!("/ws/games/{}?token={}", g.id, g.tokens.white),
        pong_after,
    )
    .await;
    let mut black = RawWs::connect(
        srv.addr,
        &format!("/ws/games/{}?token={}", g.id, g.tokens.black),
        Duration::ZERO,
    )
    .await;
    // Black's pawns walk down the board (no position repeats); White's knight shuffles.
    let mut black_moves = Vec::new();
    for file in ["a", "b", "c", "d", "e", "h", "g"] {
        for rank in [7, 6, 5, 4] {
            black_moves.push(format!("{file}{rank}{file}{}", rank - 1));
        }
    }
    black_moves.extend(["f7f6".to_string(), "f6f5".to_string()]);
    for (i, b) in black_moves.iter().enumerate() {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let w = if i % 2 == 0 { "g1f3" } else { "f3g1" };
        let id = format!("w{i}");
        white
            .send(json!({"move": w, "press": true, "lag_ms": 2000, "id": id}))
            .await;
        let ev = white.until(|m| m["id"] == id.as_str()).await;
        assert_eq!(ev["type"], "event", "{ev}");
        let id = format!("b{i}");
        black
            .send(json!({"move": b, "press": true, "id": id}))
            .await;
        let ev = black.until(|m| m["id"] == id.as_str()).await;
        assert_eq!(ev["type"], "event", "{ev}");
        let n = ev["n"].as_u64().unwrap();
        white.until(|m| m["type"] == "event" && m["n"] == n).await;
    }
    g.id
}

/// White's presses in the stored script: the lag credited in all, and the time charged
/// (from the previous event to the press, less the credit).
async fn white_credit_and_charge(srv: &Api, id: &str) -> (u64, u64) {
    let script = srv.get_text(&format!("/api/games/{id}/script")).await;
    let (mut credit, mut charged, mut prev_at, mut presses) = (0, 0, 0, 0);
    for line in script.lines() {
        let v: Value = serde_json::from_str(line).expect("a JSON line");
        let Some(at) = v["at"].as_u64() else { continue };
        if v["by"] == "white" && v["press"] == true {
            let lag = v["lag_ms"].as_u64().unwrap_or(0);
            credit += lag;
            charged += (at - prev_at).saturating_sub(lag);
            presses += 1;
        }
        prev_at = at;
    }
    assert_eq!(presses, 30, "{script}");
    (credit, charged)
}

/// Item 4: a player who holds every pong back 4 s (its round trip as the pings see it)
/// earns no more lag credit over 30 moves than an honest player on the same network,
/// and is charged its thinking time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_back_pong_buys_no_time() {
    let srv = Server::start().await;
    let (honest, cheat) = tokio::join!(
        thirty_moves(&srv, Duration::ZERO),
        thirty_moves(&srv, Duration::from_secs(4))
    );
    let (honest_credit, honest_charged) = white_credit_and_charge(&srv, &honest).await;
    let (cheat_credit, cheat_charged) = white_credit_and_charge(&srv, &cheat).await;
    println!(
        "30 moves: honest credited {honest_credit} ms, charged {honest_charged} ms; \
         pongs held 4 s credited {cheat_credit} ms, charged {cheat_charged} ms"
    );
    assert!(
        cheat_credit <= honest_credit + 30,
        "holding pongs back earned {cheat_credit} ms against an honest {honest_credit} ms"
    );
    assert!(
        cheat_charged >= 28_500,
        "the pong holder was charged {cheat_charged} ms for 30 s of thinking"
    );
    assert!(honest_charged >= 28_500, "{honest_charged}");
    srv.stop().await;
}

/// Item 10: binary frames, pings and unsolicited pongs count against the frame limit,
/// and a flood of any of them closes the socket (1008).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_frame_counts_and_floods_close() {
    let srv = Server::start().await;
    let g = srv.create(USCF_GAME).await;
    for (kind, frame) in [
        ("binary", Message::Binary(vec![1, 2, 3].into())),
        ("ping", Message::Ping(vec![9; 8].into())),
        ("pong", Message::Pong(vec![0; 8].into())),
    ] {
        let mut c = srv.connect(&g.id, None).await;
        for _ in 0..200 {
            if !c.send_message(frame.clone()).await {
                break;
            }
        }
        assert_eq!(c.until_close().await.0, 1008, "a {kind} flood");
    }
    // Under the limit, a binary frame is answered with an error and the socket lives.
    let mut c = srv.connect(&g.id, None).await;
    assert!(c.send_message(Message::Binary(vec![1].into())).await);
    let m = c.until_type("error").await;
    assert!(
        m["message"].as_str().unwrap().contains("text frames only"),
        "{m}"
    );
    srv.stop().await;
}

/// Item 11: a request body trickled a byte at a time (each pause shorter than the body
/// timeout) is cut off when the timeout has passed since its headers, not kept open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_body_is_cut_off_on_time() {
    let srv = Server::start_with(flagfall_server::limits::Limits {
        body_timeout: Duration::from_secs(2),
        ..flagfall_server::limits::Limits::unlimited()
    })
    .await;
    let mut s = TcpStream::connect(srv.addr).await.unwrap();
    s.write_all(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
        .await
        .unwrap();
    let start = tokio::time::Instant::now();
    let (mut rd, mut wr) = s.into_split();
    let trickle = tokio::spawn(async move {
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if wr.write_all(b" ").await.is_err() {
                return;
            }
        }
    });
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(8), rd.read_to_end(&mut out)).await;
    assert!(
        read.is_ok(),
        "a trickled body kept the request open 8 s (timeout 2 s)"
    );
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(1500),
        "cut off early: {took:?}"
    );
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 4"), "{text}");
    trickle.abort();
    // A body sent in time is taken as ever.
    assert_eq!(srv.post("/api/games", USCF_GAME).await.0, 201);
    srv.stop().await;
}

async fn new_evening(addr: SocketAddr) -> Evening {
    Evening::create(
        addr,
        json!({"name":"Live socket night","format":"swiss","rounds":3,"time_control":"G/5;d0",
               "rules":"uscf-2020","play":"board"}),
    )
    .await
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

async fn live_socket(addr: SocketAddr, ev: &Evening, token: Option<&str>) -> Result<Ws, u16> {
    let url = match token {
        Some(t) => format!("ws://{addr}/ws/events/{}?token={t}", ev.id),
        None => format!("ws://{addr}/ws/events/{}", ev.id),
    };
    match tokio_tungstenite::connect_async(url).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("unexpected WebSocket error {e}"),
    }
}

/// Read until the server closes: its close code (1006 for a connection dropped without
/// one), within `wait`.
async fn close_code_within(ws: &mut Ws, wait: Duration) -> u16 {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Err(_) => panic!("the socket is still open after {wait:?}"),
            Ok(Some(Ok(Message::Close(Some(f))))) => return f.code.into(),
            Ok(Some(Ok(Message::Close(None)))) | Ok(None) => return 1005,
            Ok(Some(Ok(_))) => continue,
            Ok(Some(Err(_))) => return 1006,
        }
    }
}

/// Item 12: the evening's live socket is pinged and closed when its pings go
/// unanswered, counts every frame against the rate limit and closes on a flood (1008),
/// closes on a message over its read limit (1009), and the director's sockets count
/// against the per-token cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_evening_socket_is_treated_as_a_games() {
    let srv = Server::start_with(flagfall_server::limits::Limits {
        sockets_per_token: 2,
        ..flagfall_server::limits::Limits::unlimited()
    })
    .await;
    let ev = new_evening(srv.addr).await;
    // A client that never answers a ping: closed once three went unanswered.
    let silent = RawWs::connect(
        srv.addr,
        &format!("/ws/events/{}", ev.id),
        Duration::from_secs(3600),
    )
    .await;
    let silent_closed = tokio::spawn(async move {
        let start = tokio::time::Instant::now();
        let mut silent = silent;
        while silent.texts.recv().await.is_some() {}
        start.elapsed()
    });
    // Pinged, and an honest client (answering each ping at once) stays open.
    let mut honest = live_socket(srv.addr, &ev, None).await.unwrap();
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let honest = tokio::spawn(async move {
        let mut pings = 0;
        loop {
            tokio::select! {
                _ = &mut stopped => return (pings, true),
                m = honest.next() => match m {
                    Some(Ok(Message::Ping(_))) => {
                        pings += 1;
                        // tungstenite queued the pong: send it now.
                        if honest.flush().await.is_err() {
                            return (pings, false);
                        }
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return (pings, false),
                    Some(Ok(_)) => {}
                },
            }
        }
    });
    // Floods of text, binary and ping frames: closed with 1008.
    for frame in [
        Message::Text("hello".into()),
        Message::Binary(vec![0; 16].into()),
        Message::Ping(vec![1; 8].into()),
    ] {
        let mut ws = live_socket(srv.addr, &ev, None).await.unwrap();
        for _ in 0..200 {
            if ws.send(frame.clone()).await.is_err() {
                break;
            }
        }
        assert_eq!(
            close_code_within(&mut ws, Duration::from_secs(10)).await,
            1008
        );
    }
    // A message over the read limit: 1009.
    let mut ws = live_socket(srv.addr, &ev, None).await.unwrap();
    let _ = ws.send(Message::Text("x".repeat(8 * 1024).into())).await;
    assert_eq!(
        close_code_within(&mut ws, Duration::from_secs(10)).await,
        1009
    );
    // The director's token: two sockets, the third refused; the public is not counted.
    let d1 = live_socket(srv.addr, &ev, Some(&ev.director))
        .await
        .unwrap();
    let d2 = live_socket(srv.addr, &ev, Some(&ev.director))
        .await
        .unwrap();
    assert_eq!(
        live_socket(srv.addr, &ev, Some(&ev.director)).await.err(),
        Some(429)
    );
    let public = live_socket(srv.addr, &ev, None).await.unwrap();
    drop((d1, d2, public));
    // The silent client: three pings unanswered (5 s apart), closed at the fourth.
    let took = tokio::time::timeout(Duration::from_secs(30), silent_closed)
        .await
        .expect("a socket that answers no ping is closed within 30 s")
        .unwrap();
    assert!(took >= Duration::from_secs(10), "closed after {took:?}");
    // The answering one is still open, and was pinged all along.
    let _ = stop.send(());
    let (pings, open) = honest.await.unwrap();
    assert!(open, "the socket that answered its pings was closed");
    assert!(pings >= 3, "{pings} pings on the live socket");
    srv.stop().await;
}

/// Resident memory of a process, in KiB (Linux `/proc`).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS")
}

/// Open `n` sockets at `url` and read each one's first message: the server's resident
/// memory grown by them, per socket, in KiB. The sockets stay open until returned.
async fn rss_per_socket(pid: u32, url: &str, n: usize) -> (f64, Vec<Ws>) {
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rss_kib(pid);
    let mut open = Vec::with_capacity(n);
    for _ in 0..n {
        let (mut ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("a socket");
        loop {
            match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
                Ok(Some(Ok(Message::Text(_)))) => break,
                Ok(Some(Ok(_))) => continue,
                other => panic!("no first message: {other:?}"),
            }
        }
        open.push(ws);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_kib(pid);
    (after.saturating_sub(before) as f64 / n as f64, open)
}

/// Item 12: an evening's live socket costs the server about what a game's socket does
/// (it cost 136 KiB against 10.6 KiB: tungstenite's default 128 KiB read buffer).
/// `FLAGFALL_SOCKETS` sets how many of each are opened (default 1000).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_evening_socket_is_as_small_as_a_games() {
    let n: usize = std::env::var("FLAGFALL_SOCKETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let srv = Process::start_with(
        None,
        &["--connections-per-address", "0", "--sockets-per-token", "0"],
    )
    .await;
    let pid = srv.pid();
    let g = srv.create(USCF_GAME).await;
    let ev = new_evening(srv.addr).await;
    let (game, games) =
        rss_per_socket(pid, &format!("ws://{}/ws/games/{}", srv.addr, g.id), n).await;
    let (evening, evenings) =
        rss_per_socket(pid, &format!("ws://{}/ws/events/{}", srv.addr, ev.id), n).await;
    println!("server memory per socket over {n}: game {game:.1} KiB, evening {evening:.1} KiB");
    assert!(
        evening <= game * 1.5 + 2.0,
        "an evening's socket takes {evening:.1} KiB against a game's {game:.1} KiB"
    );
    drop((games, evenings));
    srv.terminate().await;
}
