//! One socket's life: its first state, then a loop that waits for the next input (a
//! client's frame, a delivery of the game's bus, the deadline of a late event, the ping
//! tick, the server stopping), makes it one [`Input`] and hands it to a short function;
//! then its end ([`End`]: its close frame, if it has one, and what it waits for after
//! it), written once, in [`finish`].

use std::collections::VecDeque;
use std::ops::ControlFlow::{self, Break, Continue};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, close_code};
use flagfall_protocol::{ClientFrame, Role, ServerMsg, parse_frame};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::watch;
use tokio::time::{Instant, Interval};

use super::answer::{Answer, STORED_EVENT_WAIT, answer};
use super::rate::{Admit, RateLimit};
use super::{
    Gone, MOVED_CODE, PING_EVERY, PINGS_UNANSWERED_CLOSE, Target, WRITE_TIMEOUT, close, state_now,
    text, timed,
};
use crate::Shared;
use crate::bus::{BusMsg, Delivery, Subscription};
use crate::lag::Pings;
use crate::limits::Transport;

/// The most stored actions of one socket whose events it waits for on the bus.
const OWN_AWAITED: usize = 64;

/// How long a socket whose read failed waits after its close before it drops the
/// connection.
const LINGER: Duration = Duration::from_millis(200);

/// How long a socket that sent its close reads what the client still sends, waiting
/// for the client's close.
const DRAIN_FOR: Duration = Duration::from_secs(1);

/// What a socket waits for, one at a time.
enum Input {
    /// A frame from the client, and when it came.
    Frame(Message, Instant),
    /// The client's frame could not be read (too long, not UTF-8, a breach of the
    /// protocol).
    Unreadable(axum::Error),
    /// The client's stream ended.
    ClientGone,
    /// The wait for the event of an action stored on another node ran out.
    Late,
    /// An event of the game, from the bus.
    Event(BusMsg),
    /// This node's task stopped serving the game (a cluster node that lost its lease).
    Moved,
    /// The bus dropped events for this socket: it fell behind.
    Lagged,
    /// The game's bus ended.
    BusGone,
    /// Time to ping the client.
    Ping,
    /// The server is stopping.
    Shutdown,
}

/// How a socket ends.
pub(super) enum End {
    /// Without a close frame of its own: the client closed or left, a send failed, the
    /// pongs stopped, the bus ended, the state could not be read again.
    Quiet,
    /// With this close frame, then `after`.
    Close {
        code: u16,
        reason: String,
        after: After,
    },
}

/// What a socket waits for once it sent its close.
pub(super) enum After {
    /// Nothing.
    Nothing,
    /// The client's close: what the client still sends is read (and dropped) until it
    /// answers, for at most [`DRAIN_FOR`].
    Drain,
    /// [`LINGER`]: what the client sent after a bad frame is unread, and closing at once
    /// resets the connection, which may lose the close frame; the client gets a moment
    /// to read it.
    Linger,
}

impl End {
    fn close(code: u16, reason: &str, after: After) -> End {
        End::Close {
            code,
            reason: reason.to_string(),
            after,
        }
    }

    /// This node no longer serves the game (a cluster node that lost its lease): 1012,
    /// the client reconnects (through the load balancer) to the node that does.
    pub(super) fn moved() -> End {
        End::close(MOVED_CODE, crate::game::MOVED, After::Drain)
    }

    /// The server is stopping: 1001.
    pub(super) fn stopping() -> End {
        End::close(close_code::AWAY, "server shutting down", After::Nothing)
    }

    /// The game cannot be served (no such game, the database, its owner not answering).
    fn unavailable() -> End {
        End::close(
            close_code::ERROR,
            "the game is not available",
            After::Nothing,
        )
    }

    /// More than [`super::FLOOD_CLOSE_AFTER`] frames over the limit in a row: 1008.
    fn flooding() -> End {
        End::close(
            close_code::POLICY,
            "flooding: too many messages a second",
            After::Drain,
        )
    }

    /// A frame that could not be read: the code RFC 6455 gives its failure
    /// ([`crate::limits::close_code_for`]) and the failure as the reason.
    fn unreadable(e: axum::Error) -> End {
        // A close reason is at most 123 bytes (RFC 6455 5.5).
        let mut reason = format!("closing: {e}");
        while reason.len() > 120 {
            reason.pop();
        }
        End::Close {
            code: crate::limits::close_code_for(e),
            reason,
            after: After::Linger,
        }
    }
}

/// What a socket's loop waits on.
struct Inputs {
    stream: SplitStream<WebSocket>,
    sub: Subscription,
    ping: Interval,
    shutdown: watch::Receiver<bool>,
}

impl Inputs {
    /// The next input; `late_at`: when the event of an action stored elsewhere is late.
    async fn next(&mut self, late_at: Option<Instant>) -> Input {
        tokio::select! {
            frame = self.stream.next() => match frame {
                Some(Ok(m)) => Input::Frame(m, Instant::now()),
                Some(Err(e)) => Input::Unreadable(e),
                None => Input::ClientGone,
            },
            _ = sleep_until_opt(late_at) => Input::Late,
            d = self.sub.next() => match d {
                Some(Delivery::Msg(m)) if m.moved => Input::Moved,
                Some(Delivery::Msg(m)) => Input::Event(m),
                Some(Delivery::Lagged) => Input::Lagged,
                None => Input::BusGone,
            },
            _ = self.ping.tick() => Input::Ping,
            _ = self.shutdown.changed() => Input::Shutdown,
        }
    }
}

/// An action routed to another node and stored there whose event has not come yet.
struct Awaited {
    n: u64,
    /// Until when its event is waited for.
    until: Instant,
    /// The frame, to send again.
    frame: String,
}

/// What a socket knows between its inputs.
struct Session<'a> {
    s: Arc<Shared>,
    id: String,
    role: Role,
    /// The hash of its token (`None`: a spectator's).
    hash: Option<&'a str>,
    transport: Transport,
    /// What the transport vouched for ([`Transport::rtt_bound_us`]) when the last pong
    /// was counted: read with each ping's round trip, not with each press, as the kernel
    /// answers it with a system call (`TCP_INFO`) and its least round trip changes
    /// slowly (issue 34: one system call a move less).
    transport_us: Option<u64>,
    t: Target,
    sink: SplitSink<WebSocket, Message>,
    /// The last event the client has (sent, or covered by a state).
    last_n: u64,
    /// The events of this socket's own stored actions whose bus copy has not come yet:
    /// each is sent even when a state covered it meanwhile (a gap before it), since it
    /// is the sender's acknowledgement (its `id`); the client's view ignores it.
    own: VecDeque<u64>,
    awaited: Option<Awaited>,
    pings: Pings,
    limit: RateLimit,
}

type Flow = ControlFlow<End>;

/// Serve one socket (see [`super::run`]).
pub(super) async fn run(
    s: Arc<Shared>,
    id: String,
    (role, hash): (Role, Option<&str>),
    route: crate::Route,
    socket: WebSocket,
    transport: Transport,
) {
    let (mut sink, stream) = socket.split();
    let shutdown = s.shutdown.clone();
    if *shutdown.borrow() {
        return finish(sink, stream, End::stopping()).await;
    }
    // Subscribed before the view is read: every event after the view's comes.
    let sub = s.bus.subscribe(&id);
    let mut t = match route {
        crate::Route::Local(h) => Target::Local(h),
        crate::Route::Remote { node, .. } => {
            // What the owner publishes reaches this node once its relay subscribed.
            s.bus.ready(&id).await;
            Target::Remote(node)
        }
    };
    let last_n = match greet(&s, &id, &mut t, (role, hash), &mut sink).await {
        Continue(n) => n,
        Break(end) => return finish(sink, stream, end).await,
    };
    let mut inputs = Inputs {
        stream,
        sub,
        ping: tokio::time::interval(PING_EVERY),
        shutdown,
    };
    let limit = RateLimit::new(&s, &id, role);
    let mut session = Session {
        s,
        id,
        role,
        hash,
        transport,
        transport_us: None,
        t,
        sink,
        last_n,
        own: VecDeque::new(),
        awaited: None,
        pings: Pings::default(),
        limit,
    };
    let end = loop {
        let input = inputs.next(session.awaited.as_ref().map(|a| a.until)).await;
        // Boxed: an input's future (a frame through its answer) exists only while it
        // is handled, not in every idle socket's task (issue 34).
        if let Break(end) = Box::pin(session.on(input)).await {
            break end;
        }
    };
    finish(session.sink, inputs.stream, end).await;
}

/// Send the first state: its `n`.
async fn greet(
    s: &Arc<Shared>,
    id: &str,
    t: &mut Target,
    (role, hash): (Role, Option<&str>),
    sink: &mut SplitSink<WebSocket, Message>,
) -> ControlFlow<End, u64> {
    match state_now(s, id, t, role, hash).await {
        Ok((n, state)) => match timed(sink, state).await {
            Ok(()) => Continue(n),
            Err(()) => Break(End::Quiet),
        },
        Err(Gone::Moved) => Break(End::moved()),
        Err(Gone::Unavailable(_)) => Break(End::unavailable()),
    }
}

/// End a socket, the one place it is done: its close frame, if it has one, and what it
/// waits for after it, then the connection's close.
pub(super) async fn finish(
    mut sink: SplitSink<WebSocket, Message>,
    mut stream: SplitStream<WebSocket>,
    end: End,
) {
    if let End::Close {
        code,
        reason,
        after,
    } = end
    {
        let _ = timed(&mut sink, close(code, &reason)).await;
        match after {
            After::Nothing => {}
            After::Drain => drain_until_close(&mut stream).await,
            After::Linger => tokio::time::sleep(LINGER).await,
        }
    }
    let _ = tokio::time::timeout(WRITE_TIMEOUT, sink.close()).await;
}

/// The closing handshake after our close: read (and drop) what the client still sends
/// until it answers the close, for at most [`DRAIN_FOR`].
async fn drain_until_close(stream: &mut SplitStream<WebSocket>) {
    let deadline = Instant::now() + DRAIN_FOR;
    while let Ok(Some(Ok(m))) = tokio::time::timeout_at(deadline, stream.next()).await {
        if matches!(m, Message::Close(_)) {
            break;
        }
    }
}

impl Session<'_> {
    /// Handle one input.
    async fn on(&mut self, input: Input) -> Flow {
        match input {
            Input::Frame(m, received) => self.on_frame(m, received).await,
            Input::Unreadable(e) => Break(End::unreadable(e)),
            Input::ClientGone | Input::BusGone => Break(End::Quiet),
            Input::Late => self.on_late().await,
            Input::Event(m) => self.on_event(m).await,
            Input::Moved => self.on_moved(),
            Input::Lagged => self.on_lagged().await,
            Input::Ping => self.on_ping().await,
            Input::Shutdown => Break(End::stopping()),
        }
    }

    /// Send `m`; a send that fails (or times out) ends the socket.
    async fn send(&mut self, m: Message) -> Flow {
        match timed(&mut self.sink, m).await {
            Ok(()) => Continue(()),
            Err(()) => Break(End::Quiet),
        }
    }

    async fn send_text(&mut self, text: &str) -> Flow {
        self.send(Message::Text(Utf8Bytes::from(text))).await
    }

    /// The `state` message now, and its `n`.
    async fn state(&mut self) -> Result<(u64, Message), Gone> {
        state_now(&self.s, &self.id, &mut self.t, self.role, self.hash).await
    }

    /// The round trip a press may be credited from ([`Pings::rtt_for_credit_ms`]).
    fn rtt_ms(&self) -> Option<u64> {
        self.pings.rtt_for_credit_ms(self.transport_us)
    }

    /// A frame from the client. Every frame it sends counts (text, binary, ping, pong,
    /// close aside), in the same bucket and towards the same flood close; the one
    /// exception is the pong that answers this socket's own ping, once.
    async fn on_frame(&mut self, m: Message, received: Instant) -> Flow {
        let is_binary = matches!(m, Message::Binary(_));
        let body = match m {
            Message::Text(t) => Some(t),
            Message::Pong(p) if self.pings.pong(p.as_ref()) => {
                self.transport_us = self.transport.rtt_bound_us();
                return Continue(());
            }
            Message::Close(_) => return Break(End::Quiet),
            Message::Binary(_) | Message::Ping(_) | Message::Pong(_) => None,
        };
        if !self.admit().await? {
            return Continue(());
        }
        match body {
            Some(body) => self.on_text(body.as_str(), received).await,
            // A binary frame is answered; a ping (answered by the WebSocket layer) and an
            // unsolicited pong are not.
            None if is_binary => {
                self.s.metrics.frame_errors.inc();
                let msg = ServerMsg::Error {
                    id: None,
                    message: "text frames only: send JSON".into(),
                };
                self.send(text(&msg)).await
            }
            None => Continue(()),
        }
    }

    /// Take a frame's token: `false` when the frame is dropped (the client told).
    async fn admit(&mut self) -> ControlFlow<End, bool> {
        match self.limit.take() {
            Admit::Yes => Continue(true),
            Admit::Dropped => {
                self.s.metrics.frame_errors.inc();
                let msg = ServerMsg::Error {
                    id: None,
                    message: format!(
                        "rate limit: at most {} messages a second; this one was dropped",
                        self.limit.rate
                    ),
                };
                self.send(text(&msg)).await?;
                Continue(false)
            }
            Admit::Flooding => {
                self.s.metrics.frame_errors.inc();
                Break(End::flooding())
            }
        }
    }

    /// An admitted text frame: its answer, if it has one of its own.
    async fn on_text(&mut self, body: &str, received: Instant) -> Flow {
        let rtt_ms = self.rtt_ms();
        let who = (self.role, self.hash);
        match answer(&self.s, &self.id, &mut self.t, who, rtt_ms, received, body).await {
            Ok(Answer::Text(text)) => self.send_text(&text).await,
            Ok(Answer::None) => Continue(()),
            Ok(Answer::Stored(n)) => {
                self.stored(n, body);
                Continue(())
            }
            Err(_) => Break(End::moved()),
        }
    }

    /// This socket's action was stored as event `n`: its answer is the event.
    fn stored(&mut self, n: u64, frame: &str) {
        if n <= self.last_n {
            return;
        }
        if self.own.len() >= OWN_AWAITED {
            self.own.pop_front();
        }
        self.own.push_back(n);
        // Routed to another node: its event comes over NATS, which may lose it; past a
        // moment without it, ask the owner again.
        if matches!(self.t, Target::Remote(_)) {
            self.awaited = Some(Awaited {
                n,
                until: Instant::now() + STORED_EVENT_WAIT,
                frame: frame.to_string(),
            });
        }
    }

    /// The event of an action stored on another node did not come in time: the same
    /// frame again (a retried id, answered with its event), or, with no id, a state.
    async fn on_late(&mut self) -> Flow {
        let Some(a) = self.awaited.take() else {
            return Continue(());
        };
        if self.last_n >= a.n {
            return Continue(());
        }
        let again = if parse_frame(&a.frame)
            .is_ok_and(|f| matches!(f, ClientFrame::Action { id: Some(_), .. }))
        {
            let (rtt_ms, who) = (self.rtt_ms(), (self.role, self.hash));
            let now = Instant::now();
            answer(&self.s, &self.id, &mut self.t, who, rtt_ms, now, &a.frame).await
        } else {
            Ok(Answer::None)
        };
        let msg = match again {
            // The event again, carrying the whole state's update: what came before it is
            // covered, and the bus's copy, if late, is skipped.
            Ok(Answer::Text(text)) => {
                self.last_n = self.last_n.max(a.n);
                self.own.retain(|&o| o != a.n);
                Message::Text(Utf8Bytes::from(text))
            }
            _ => match self.state().await {
                Ok((n, state)) => {
                    self.last_n = n;
                    state
                }
                Err(_) => return Continue(()),
            },
        };
        self.send(msg).await
    }

    /// This node stopped serving the game: a socket bound to its task closes with 1012
    /// (its client reconnects); one following the game on another node goes on.
    fn on_moved(&self) -> Flow {
        match self.t {
            Target::Local(_) => Break(End::moved()),
            Target::Remote(_) => Continue(()),
        }
    }

    /// An event of the game: sent, unless the client has it already (and it is not the
    /// answer to this socket's own action).
    async fn on_event(&mut self, m: BusMsg) -> Flow {
        if m.n.is_some_and(|n| n > self.last_n + 1) {
            return self.on_gap(m).await;
        }
        let mine = take_own(&mut self.own, m.n);
        if m.n.is_some_and(|n| n <= self.last_n) && !mine {
            return Continue(());
        }
        if let Some(n) = m.n {
            self.last_n = self.last_n.max(n);
        }
        self.send_text(m.text_for(self.role)).await
    }

    /// An event after a gap (a message lost between nodes, NATS restarting, events the
    /// previous owner stored and never published): the state again rather than a
    /// skipped event.
    async fn on_gap(&mut self, m: BusMsg) -> Flow {
        let mine = take_own(&mut self.own, m.n);
        match self.state().await {
            Ok((n, state)) => {
                self.last_n = n;
                self.send(state).await?;
                // The state holds it; the event still answers the sender.
                if mine {
                    return self.send_text(m.text_for(self.role)).await;
                }
                Continue(())
            }
            Err(Gone::Moved) => Break(End::moved()),
            Err(Gone::Unavailable(_)) => Continue(()),
        }
    }

    /// The socket fell behind the bus: a fresh state.
    async fn on_lagged(&mut self) -> Flow {
        let Ok((n, state)) = self.state().await else {
            return Break(End::Quiet);
        };
        self.last_n = n;
        self.send(state).await
    }

    /// Ping the client, unless it left the last pings unanswered (it is gone).
    async fn on_ping(&mut self) -> Flow {
        if self.pings.unanswered() >= PINGS_UNANSWERED_CLOSE {
            tracing::debug!(game = %self.id, "no pong to {PINGS_UNANSWERED_CLOSE} pings: closing");
            return Break(End::Quiet);
        }
        let nonce = self.pings.ping();
        self.send(Message::Ping(nonce.to_vec().into())).await
    }
}

/// Whether event `n` is one of the socket's own stored actions (forgotten now, with the
/// older ones, whose events went by).
fn take_own(own: &mut VecDeque<u64>, n: Option<u64>) -> bool {
    let Some(n) = n else { return false };
    while own.front().is_some_and(|&o| o < n) {
        own.pop_front();
    }
    if own.front() == Some(&n) {
        own.pop_front();
        return true;
    }
    false
}

/// Sleep until `at`, or forever.
async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::extract::ws::WebSocketUpgrade;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;
    use tokio::sync::mpsc;

    /// A server whose every socket ends at once with `end`; when each [`finish`]
    /// returned comes on the receiver.
    async fn ending_with(
        end: fn() -> End,
    ) -> (std::net::SocketAddr, mpsc::UnboundedReceiver<Instant>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let upgrade = move |ws: WebSocketUpgrade| {
            let tx = tx.clone();
            async move {
                ws.on_upgrade(move |socket| async move {
                    let (sink, stream) = socket.split();
                    finish(sink, stream, end()).await;
                    let _ = tx.send(Instant::now());
                })
            }
        };
        let app = axum::Router::new().route("/", axum::routing::get(upgrade));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (addr, rx)
    }

    /// A WebSocket client on a bare TCP stream, which sees every frame the server
    /// sends and answers nothing by itself.
    async fn open(addr: std::net::SocketAddr) -> TcpStream {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let hello = "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n\
                     Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
                     Sec-WebSocket-Version: 13\r\n\r\n";
        tcp.write_all(hello.as_bytes()).await.unwrap();
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            head.push(tcp.read_u8().await.unwrap());
        }
        assert!(
            head.starts_with(b"HTTP/1.1 101"),
            "{}",
            String::from_utf8_lossy(&head)
        );
        tcp
    }

    /// The server's next frame, as its opcode and payload; `None` at the end of the
    /// connection.
    async fn frame(tcp: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
        let first = tcp.read_u8().await.ok()?;
        let len = match tcp.read_u8().await.unwrap() & 0x7f {
            126 => usize::from(tcp.read_u16().await.unwrap()),
            127 => panic!("a frame longer than 64 KiB"),
            n => usize::from(n),
        };
        let mut payload = vec![0; len];
        tcp.read_exact(&mut payload).await.unwrap();
        Some((first & 0x0f, payload))
    }

    /// A close frame's code and reason.
    fn close_of(payload: &[u8]) -> (u16, String) {
        let code = u16::from_be_bytes([payload[0], payload[1]]);
        (code, String::from_utf8(payload[2..].to_vec()).unwrap())
    }

    /// The frames the server sends until the connection ends.
    async fn rest(tcp: &mut TcpStream) -> Vec<(u8, Vec<u8>)> {
        let mut frames = Vec::new();
        let until = Duration::from_secs(5);
        while let Some(f) = tokio::time::timeout(until, frame(tcp)).await.unwrap() {
            frames.push(f);
        }
        frames
    }

    /// The client's answer to a close (masked, as a client's frames are): 1000.
    const CLIENT_CLOSE: [u8; 8] = [0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8];

    #[tokio::test]
    async fn a_socket_whose_game_moved_closes_with_1012_once_and_drains() {
        let (addr, mut done) = ending_with(End::moved).await;
        let mut tcp = open(addr).await;
        let (op, payload) = frame(&mut tcp).await.unwrap();
        assert_eq!(op, 0x8, "a close first");
        assert_eq!(close_of(&payload), (1012, crate::game::MOVED.to_string()));
        let closed = Instant::now();
        // What the client still sends is read, and the socket waits for its close.
        tcp.write_all(&[0x81, 0x82, 0, 0, 0, 0, b'h', b'i'])
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(done.try_recv().is_err(), "ended before the client's close");
        tcp.write_all(&CLIENT_CLOSE).await.unwrap();
        assert!(
            rest(&mut tcp).await.is_empty(),
            "one close frame, nothing after it"
        );
        let ended = done.recv().await.unwrap();
        assert!(ended - closed >= Duration::from_millis(300));
    }

    #[tokio::test]
    async fn a_socket_of_a_stopping_server_closes_with_1001_once() {
        let (addr, mut done) = ending_with(End::stopping).await;
        let mut tcp = open(addr).await;
        let (op, payload) = frame(&mut tcp).await.unwrap();
        assert_eq!(op, 0x8, "a close first");
        assert_eq!(
            close_of(&payload),
            (1001, "server shutting down".to_string())
        );
        // It waits for nothing: the connection ends without the client's close.
        assert!(
            rest(&mut tcp).await.is_empty(),
            "one close frame, nothing after it"
        );
        done.recv().await.unwrap();
    }
}
