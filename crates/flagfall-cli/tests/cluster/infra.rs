//! What the cluster tests stand on: a throwaway PostgreSQL database, the test's own
//! nats-server (restartable on its port), a TCP proxy per node between it and PostgreSQL
//! that the test can cut, and the built `flagfall serve` as three cluster nodes.
//!
//! Every prerequisite missing is a failure with a message naming it, never a skip.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

use crate::client::http;

/// The lease every node is started with (the design's default).
pub const LEASE_MS: u64 = 3_000;

/// The PostgreSQL server the tests make their databases on.
pub fn postgres_base() -> String {
    match std::env::var("FLAGFALL_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => url,
        _ => "postgres://postgres@127.0.0.1:5432/test".to_string(),
    }
}

/// The parts of a `postgres://` URL the tests need.
struct PgUrl {
    /// `user[:password]@`, or empty.
    userinfo: String,
    host: String,
    port: u16,
    /// `?...`, or empty.
    query: String,
}

fn parse_pg_url(url: &str) -> PgUrl {
    let rest = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))
        .unwrap_or_else(|| panic!("FLAGFALL_TEST_POSTGRES={url}: expected a postgres:// URL"));
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let query = path
        .find('?')
        .map(|i| path[i..].to_string())
        .unwrap_or_default();
    let (userinfo, hostport) = match authority.rfind('@') {
        Some(i) => (format!("{}@", &authority[..i]), &authority[i + 1..]),
        None => (String::new(), authority),
    };
    let (host, port) = match hostport.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && !h.starts_with('[') => (
            h.to_string(),
            p.parse().unwrap_or_else(|_| {
                panic!("FLAGFALL_TEST_POSTGRES={url}: the port {p:?} is not a number")
            }),
        ),
        _ if hostport.starts_with('[') => {
            panic!("FLAGFALL_TEST_POSTGRES={url}: name the server by a host name or IPv4 address")
        }
        _ => (hostport.to_string(), 5432),
    };
    if host.is_empty() {
        panic!("FLAGFALL_TEST_POSTGRES={url}: the URL names no host (the proxy needs TCP)");
    }
    PgUrl {
        userinfo,
        host,
        port,
        query,
    }
}

static DB_COUNTER: AtomicU32 = AtomicU32::new(0);

/// A fresh database on the test server (`fft_cluster_<pid>_<n>`), dropped when this is.
pub struct PgDb {
    pub name: String,
    base: String,
    parts: PgUrl,
}

impl PgDb {
    pub async fn create() -> PgDb {
        let base = postgres_base();
        let parts = parse_pg_url(&base);
        let name = format!(
            "fft_cluster_{}_{}",
            std::process::id(),
            DB_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let admin = sqlx::PgPool::connect(&base).await.unwrap_or_else(|e| {
            panic!(
                "the cluster tests need PostgreSQL (FLAGFALL_TEST_POSTGRES, default \
                 postgres://postgres@127.0.0.1:5432/test; scripts/test-cluster starts one): \
                 cannot connect to {base}: {e}"
            )
        });
        sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&admin)
            .await
            .expect("drop an old test database");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&admin)
            .await
            .expect("create a test database");
        admin.close().await;
        PgDb { name, base, parts }
    }

    /// Where PostgreSQL itself listens (the proxies' upstream).
    pub fn upstream(&self) -> SocketAddr {
        use std::net::ToSocketAddrs;
        (self.parts.host.as_str(), self.parts.port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .unwrap_or_else(|| {
                panic!(
                    "cannot resolve the PostgreSQL server {}:{}",
                    self.parts.host, self.parts.port
                )
            })
    }

    /// The database's URL, straight to PostgreSQL (the test's own connections).
    pub fn url(&self) -> String {
        format!(
            "postgres://{}{}:{}/{}{}",
            self.parts.userinfo, self.parts.host, self.parts.port, self.name, self.parts.query
        )
    }

    /// The database's URL through a proxy on loopback port `port` for node `node`: its
    /// sessions carry its name (`application_name`), which the tests' history of inserts
    /// records (`stall.rs`), so that it does not rest on the nodes' word.
    pub fn url_for(&self, port: u16, node: &str) -> String {
        let url = self.url_via(port);
        let sep = if url.contains('?') { '&' } else { '?' };
        format!("{url}{sep}application_name={node}")
    }

    /// The database's URL through a proxy on loopback port `port`.
    pub fn url_via(&self, port: u16) -> String {
        format!(
            "postgres://{}127.0.0.1:{port}/{}{}",
            self.parts.userinfo, self.name, self.parts.query
        )
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        // Drop is not async: a thread with a runtime of its own (also while panicking).
        let base = self.base.clone();
        let name = self.name.clone();
        let done = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async {
                if let Ok(admin) = sqlx::PgPool::connect(&base).await {
                    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .execute(&admin)
                        .await;
                    admin.close().await;
                }
            });
        });
        let _ = done.join();
    }
}

/// A free loopback port (free when asked: the usual small race).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A process's standard error, kept line by line (without colour codes) for the report
/// of a failure.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    /// Read `from` on a thread of its own; `on_line` sees every line first.
    pub fn follow(
        &self,
        from: impl std::io::Read + Send + 'static,
        mut on_line: impl FnMut(&str) + Send + 'static,
    ) {
        let lines = self.0.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(from).lines() {
                let Ok(line) = line else { break };
                let line = strip_ansi(&line);
                on_line(&line);
                lines.lock().unwrap_or_else(|e| e.into_inner()).push(line);
            }
        });
    }

    pub fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The last `n` lines, each prefixed with `who`.
    pub fn tail(&self, who: &str, n: usize) -> String {
        let lines = self.lines();
        let from = lines.len().saturating_sub(n);
        lines[from..]
            .iter()
            .map(|l| format!("[{who}] {l}\n"))
            .collect()
    }

    /// The lines that contain any of `words` (a failure report's interesting part).
    pub fn grep(&self, who: &str, words: &[&str]) -> String {
        self.lines()
            .iter()
            .filter(|l| words.iter().any(|w| l.contains(w)))
            .map(|l| format!("[{who}] {l}\n"))
            .collect()
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The nats-server binary: Debian's (/usr/sbin), else one on PATH; a failure otherwise.
pub fn nats_binary() -> PathBuf {
    let debian = Path::new("/usr/sbin/nats-server");
    if debian.is_file() {
        return debian.to_path_buf();
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join("nats-server");
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!(
        "the cluster tests need nats-server (Debian's package nats-server; scripts/test-cluster \
         installs it): not at /usr/sbin/nats-server nor on PATH"
    )
}

/// The nodes the test's nats-server has credentials for.
pub const NODE_NAMES: [&str; 3] = ["n1", "n2", "n3"];
/// A user of the test's nats-server that is not a node (another application sharing
/// it, a monitor): it may log in, but neither publish nor subscribe on `flagfall.>`.
pub const OTHER_USER: (&str, &str) = ("other-app", "other-app-password");

/// The test's own nats-server on a loopback port (core NATS: no JetStream), with
/// authorization as docs/cluster.md configures it: each node logs in with an nkey of
/// its own, allowed `flagfall.>` (and its replies' inboxes) only; [`OTHER_USER`] with a
/// password, kept off `flagfall.>`; nobody without credentials.
pub struct Nats {
    pub port: u16,
    bin: PathBuf,
    child: Option<Child>,
    pub log: Log,
    /// The configuration file and the nodes' seed files.
    dir: tempfile::TempDir,
}

impl Nats {
    pub async fn start() -> Nats {
        let dir = tempfile::tempdir().expect("a directory for nats-server's configuration");
        let port = free_port();
        let mut users = String::new();
        for name in NODE_NAMES {
            let key = nkeys::KeyPair::new_user();
            let seed = key.seed().expect("an nkey seed");
            std::fs::write(dir.path().join(format!("{name}.nk")), format!("{seed}\n"))
                .expect("write a node's seed");
            users.push_str(&format!(
                "    {{ nkey: \"{}\", permissions: {{ publish: [\"flagfall.>\"], \
                 subscribe: [\"flagfall.>\", \"_INBOX.>\"], allow_responses: true }} }}\n",
                key.public_key()
            ));
        }
        let (user, password) = OTHER_USER;
        users.push_str(&format!(
            "    {{ user: \"{user}\", password: \"{password}\", permissions: {{ \
             publish: {{ deny: [\"flagfall.>\"] }}, subscribe: {{ deny: [\"flagfall.>\"] }} }} }}\n"
        ));
        let conf =
            format!("listen: \"127.0.0.1:{port}\"\nauthorization {{\n  users: [\n{users}  ]\n}}\n");
        std::fs::write(dir.path().join("nats.conf"), conf).expect("write nats.conf");
        let mut n = Nats {
            port,
            bin: nats_binary(),
            child: None,
            log: Log::default(),
            dir,
        };
        n.launch().await;
        n
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// The file holding node `name`'s nkey seed (`flagfall serve --nats-nkey`).
    pub fn seed_file(&self, name: &str) -> PathBuf {
        assert!(
            NODE_NAMES.contains(&name),
            "the test's nats-server has no credentials for a node {name:?} (NODE_NAMES)"
        );
        self.dir.path().join(format!("{name}.nk"))
    }

    /// Node `name`'s credentials, for a node started in the test's process.
    pub fn auth(&self, name: &str) -> flagfall_server::cluster::NatsAuth {
        flagfall_server::cluster::NatsAuth::Nkey(self.seed_file(name))
    }

    async fn launch(&mut self) {
        let conf = self.dir.path().join("nats.conf");
        let mut child = Command::new(&self.bin)
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.bin.display()));
        if let Some(err) = child.stderr.take() {
            self.log.follow(err, |_| {});
        }
        self.child = Some(child);
        // Up when it greets a client with its INFO line.
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(c) = self.child.as_mut()
                && let Ok(Some(status)) = c.try_wait()
            {
                panic!(
                    "nats-server on port {} exited at start ({status}):\n{}",
                    self.port,
                    self.log.tail("nats", 30)
                );
            }
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)).await {
                let mut buf = [0u8; 4];
                let read = tokio::time::timeout(Duration::from_secs(2), s.read_exact(&mut buf));
                if matches!(read.await, Ok(Ok(_))) && &buf == b"INFO" {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "nats-server did not come up on port {}:\n{}",
                self.port,
                self.log.tail("nats", 30)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGKILL, and wait for it to be gone.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Start it again on the same port.
    pub async fn restart(&mut self) {
        self.kill();
        self.launch().await;
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What a [`Proxy`] does with its connections.
#[derive(Clone, Copy, Default)]
struct ProxyState {
    /// Bumped by every cut: the connections of before are dropped.
    generation: u64,
    /// New connections are closed at once.
    refuse: bool,
    /// Nothing goes through (both ways, new connections included): the bytes wait in
    /// the proxy, as packets a lost route drops would be sent again by TCP, until the
    /// route is back.
    blackhole: bool,
    /// Every byte is delivered this long after it was read (a slow or congested route;
    /// zero: at once), in order.
    delay: Duration,
}

/// A TCP proxy on a loopback port to `upstream` (PostgreSQL) that the test controls:
/// [`Proxy::cut`] drops every connection through it and refuses new ones;
/// [`Proxy::blackhole`] lets nothing through but keeps every connection open (a network
/// partition: the node's queries hang); [`Proxy::restore`] ends either.
pub struct Proxy {
    pub port: u16,
    state: Arc<tokio::sync::watch::Sender<ProxyState>>,
    task: tokio::task::JoinHandle<()>,
}

/// Copy `from` to `to`, holding what is read while the proxy is blackholed, each chunk
/// delivered the proxy's delay after it was read; nothing more once the connection's
/// `generation` is cut (what a blackhole held is then lost, never delivered).
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut state: tokio::sync::watch::Receiver<ProxyState>,
    generation: u64,
) {
    use tokio::io::AsyncWriteExt;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let read = async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = from.read(&mut buf).await.unwrap_or(0);
            // Held while blackholed (the end of the stream too).
            while state.borrow_and_update().blackhole {
                if state.changed().await.is_err() {
                    return;
                }
            }
            let now = *state.borrow();
            if now.generation != generation || n == 0 {
                return;
            }
            if tx
                .send((Instant::now() + now.delay, buf[..n].to_vec()))
                .is_err()
            {
                return;
            }
        }
    };
    let write = async move {
        // In order: a chunk read after the delay was shortened waits for those before.
        while let Some((due, bytes)) = rx.recv().await {
            tokio::time::sleep_until(due).await;
            if to.write_all(&bytes).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(read, write);
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("the proxy listens");
        let port = listener.local_addr().expect("the proxy's address").port();
        let state = Arc::new(tokio::sync::watch::Sender::new(ProxyState::default()));
        let task = {
            let state = state.clone();
            tokio::spawn(async move {
                loop {
                    let Ok((client, _)) = listener.accept().await else {
                        continue;
                    };
                    let mut watch = state.subscribe();
                    let at_accept = *watch.borrow_and_update();
                    if at_accept.refuse {
                        // Refused: closed before a byte.
                        drop(client);
                        continue;
                    }
                    tokio::spawn(async move {
                        // Connected upstream only once the route is there.
                        while watch.borrow_and_update().blackhole {
                            if watch.changed().await.is_err() {
                                return;
                            }
                        }
                        let generation = watch.borrow().generation;
                        if generation != at_accept.generation {
                            return;
                        }
                        let Ok(server) = TcpStream::connect(upstream).await else {
                            return;
                        };
                        let (cr, cw) = client.into_split();
                        let (sr, sw) = server.into_split();
                        let up = pump(cr, sw, watch.clone(), generation);
                        let down = pump(sr, cw, watch.clone(), generation);
                        // Cut: both sockets dropped (closed) when the generation moves.
                        let cut = async {
                            while watch.borrow_and_update().generation == generation {
                                if watch.changed().await.is_err() {
                                    return;
                                }
                            }
                        };
                        tokio::select! {
                            _ = async { tokio::join!(up, down) } => {}
                            _ = cut => {}
                        }
                    });
                }
            })
        };
        Proxy { port, state, task }
    }

    /// Drop every connection and refuse new ones.
    pub fn cut(&self) {
        self.state.send_modify(|s| {
            s.generation += 1;
            s.refuse = true;
        });
    }

    /// Let nothing through, keeping every connection open.
    pub fn blackhole(&self) {
        self.state.send_modify(|s| s.blackhole = true);
    }

    /// Deliver every byte `delay` after it was read (zero: at once again; what was
    /// read before goes on at its own time, in order).
    pub fn delay(&self, delay: Duration) {
        self.state.send_modify(|s| s.delay = delay);
    }

    /// End a blackhole with its bytes lost: the connections it held are dropped (as TCP
    /// connections whose retransmissions timed out), what they held never delivered;
    /// new connections go through.
    pub fn restore_dropping(&self) {
        self.state.send_modify(|s| {
            s.generation += 1;
            s.refuse = false;
            s.blackhole = false;
        });
    }

    /// Let connections through again (what a blackhole held goes on its way).
    pub fn restore(&self) {
        self.state.send_modify(|s| {
            s.refuse = false;
            s.blackhole = false;
        });
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.state.send_modify(|s| {
            s.generation += 1;
            s.blackhole = false;
        });
        self.task.abort();
    }
}

/// Which nodes a client may use: their addresses, and whether the test lets clients
/// connect there (a load balancer's health check: a node killed, paused or cut off is
/// marked unusable by the test).
pub struct Directory {
    pub addrs: Vec<SocketAddr>,
    pub names: Vec<String>,
    usable: Vec<AtomicBool>,
}

impl Directory {
    pub fn usable(&self, i: usize) -> bool {
        self.usable[i].load(Ordering::SeqCst)
    }

    pub fn set_usable(&self, i: usize, yes: bool) {
        self.usable[i].store(yes, Ordering::SeqCst);
    }

    /// A usable node: `i` itself if it is, else the next one that is.
    pub fn pick_from(&self, i: usize) -> Option<usize> {
        (0..self.addrs.len())
            .map(|k| (i + k) % self.addrs.len())
            .find(|&k| self.usable(k))
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

/// One `flagfall serve` cluster node (a child process), its log and its proxy.
pub struct Node {
    pub name: String,
    pub addr: SocketAddr,
    child: Child,
    pub log: Log,
    pub proxy: Proxy,
    paused: bool,
}

impl Node {
    /// A node started with `--socket-rate rate` (`"0"`, the tests' usual: no frame
    /// limit, their clients move faster than people).
    pub async fn start(name: &str, nats: &Nats, db: &PgDb, rate: &str) -> Node {
        Node::start_on(name, nats, db, rate, "127.0.0.1:0").await
    }

    /// The same, listening on `listen`.
    async fn start_on(name: &str, nats: &Nats, db: &PgDb, rate: &str, listen: &str) -> Node {
        let proxy = Proxy::start(db.upstream()).await;
        let log = Log::default();
        let mut child = Command::new(env!("CARGO_BIN_EXE_flagfall"))
            .args([
                "serve",
                "--node",
                name,
                "--nats",
                &nats.url(),
                "--nats-nkey",
                nats.seed_file(name).to_str().expect("a UTF-8 path"),
                "--database",
                &db.url_for(proxy.port, name),
                "--lease-ms",
                &LEASE_MS.to_string(),
                "--listen",
                listen,
                "--socket-rate",
                rate,
            ])
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start flagfall serve");
        let (tx, rx) = std::sync::mpsc::channel::<SocketAddr>();
        if let Some(err) = child.stderr.take() {
            log.follow(err, move |line| {
                if line.contains("flagfall serve listening")
                    && let Some(addr) = field(line, "addr").and_then(|a| a.parse().ok())
                {
                    let _ = tx.send(addr);
                }
            });
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        let addr = loop {
            if let Ok(addr) = rx.try_recv() {
                break addr;
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "flagfall serve --node {name} exited at start ({status}):\n{}",
                    log.tail(name, 40)
                );
            }
            assert!(
                Instant::now() < deadline,
                "flagfall serve --node {name} did not say where it listens within 30 s:\n{}",
                log.tail(name, 40)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        Node {
            name: name.to_string(),
            addr,
            child,
            log,
            proxy,
            paused: false,
        }
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// SIGKILL, and wait for the process to be gone.
    pub fn kill9(&mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("reaped");
    }

    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn signal(&self, sig: i32, what: &str) {
        // SAFETY: kill(2) on our own child's pid.
        let r = unsafe { libc::kill(self.pid(), sig) };
        assert_eq!(
            r,
            0,
            "{what} {}: {}",
            self.name,
            std::io::Error::last_os_error()
        );
    }

    /// SIGSTOP: the process is frozen (its sockets still accept into the kernel's
    /// buffers).
    pub fn pause(&mut self) {
        self.signal(libc::SIGSTOP, "SIGSTOP");
        self.paused = true;
    }

    /// SIGTERM (a rolling restart's stop): the node closes its sockets, finishes its
    /// commits and releases its leases; waited for to exit, within `within`.
    pub async fn sigterm(&mut self, within: Duration) {
        self.signal(libc::SIGTERM, "SIGTERM");
        let deadline = Instant::now() + within;
        while self.alive() {
            assert!(
                Instant::now() < deadline,
                "{} still running {within:?} after SIGTERM",
                self.name
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// SIGCONT.
    pub fn resume(&mut self) {
        self.signal(libc::SIGCONT, "SIGCONT");
        self.paused = false;
    }

    /// `GET /healthz`'s status, or `None` without an answer within `wait`.
    pub async fn health(&self, wait: Duration) -> Option<u16> {
        http(self.addr, "GET", "/healthz", "", wait)
            .await
            .ok()
            .map(|(s, _)| s)
    }

    /// `/metrics` as text.
    pub async fn metrics(&self) -> String {
        let (status, body) = http(self.addr, "GET", "/metrics", "", Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("GET /metrics on {}: {e}", self.name));
        assert_eq!(status, 200, "GET /metrics on {}: {body}", self.name);
        body
    }

    /// A metric's value (summed over its labels), `None` when the node has no such
    /// metric.
    pub async fn metric(&self, name: &str) -> Option<f64> {
        metric_value(&self.metrics().await, name)
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `name=value` in a log line (tracing's fmt output).
fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("{name}=");
    let at = line.find(&key)? + key.len();
    line[at..].split_whitespace().next()
}

/// A metric's value in Prometheus' text format, summed over its label sets.
pub fn metric_value(text: &str, name: &str) -> Option<f64> {
    let mut found = None;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((key, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let metric = key.split('{').next().unwrap_or(key);
        if metric == name
            && let Ok(v) = value.trim().parse::<f64>()
        {
            found = Some(found.unwrap_or(0.0) + v);
        }
    }
    found
}

/// PostgreSQL, NATS and three nodes (`n1`, `n2`, `n3`). Dropped while a test panics, it
/// prints the end of every node's log.
pub struct Cluster {
    pub nodes: Vec<Node>,
    pub nats: Nats,
    pub dir: Arc<Directory>,
    /// Dropped last: after the nodes are gone.
    db: PgDb,
}

impl Cluster {
    pub async fn start() -> Cluster {
        Cluster::start_with_rate("0").await
    }

    /// Three nodes started with `--socket-rate rate` (`"0"`: no frame limit).
    pub async fn start_with_rate(rate: &str) -> Cluster {
        let db = PgDb::create().await;
        let nats = Nats::start().await;
        let mut nodes = Vec::new();
        for name in ["n1", "n2", "n3"] {
            nodes.push(Node::start(name, &nats, &db, rate).await);
        }
        let dir = Arc::new(Directory {
            addrs: nodes.iter().map(|n| n.addr).collect(),
            names: nodes.iter().map(|n| n.name.clone()).collect(),
            usable: nodes.iter().map(|_| AtomicBool::new(true)).collect(),
        });
        let c = Cluster {
            nodes,
            nats,
            dir,
            db,
        };
        // Every node healthy (its database and NATS reached) before a test begins.
        for n in &c.nodes {
            c.wait_health(n, 200, Duration::from_secs(15)).await;
        }
        c
    }

    /// Start node `i` again (killed or stopped before) under its name, on its address,
    /// with a new proxy; healthy before this returns.
    pub async fn restart_node(&mut self, i: usize) {
        let name = self.nodes[i].name.clone();
        let addr = self.nodes[i].addr.to_string();
        assert!(
            !self.nodes[i].alive(),
            "{name} is still running: stop it first"
        );
        let node = Node::start_on(&name, &self.nats, &self.db, "0", &addr).await;
        self.nodes[i] = node;
        self.wait_health(&self.nodes[i], 200, Duration::from_secs(20))
            .await;
    }

    /// Game `game`'s stored events, in order: `(n, by_role, json)`.
    pub async fn events(&self, game: &str) -> Vec<(i64, Option<String>, String)> {
        let pool = sqlx::PgPool::connect(&self.db.url_via(self.db.upstream().port()))
            .await
            .expect("connect to the test's database");
        let rows: Vec<(i64, Option<String>, String)> =
            sqlx::query_as("SELECT n, by_role, json FROM events WHERE game_id = $1 ORDER BY n")
                .bind(game)
                .fetch_all(&pool)
                .await
                .expect("read the game's events");
        pool.close().await;
        rows
    }

    /// A connection pool of the test's own to the cluster's database (no proxy).
    pub async fn sql(&self) -> sqlx::PgPool {
        sqlx::PgPool::connect(&self.db.url())
            .await
            .expect("the test connects to the cluster's database")
    }

    /// Poll `node`'s /healthz until it answers `want` (any other answer, or none within
    /// a second, is "not yet"); a failure after `within`.
    pub async fn wait_health(&self, node: &Node, want: u16, within: Duration) {
        let deadline = Instant::now() + within;
        let mut last = None;
        while Instant::now() < deadline {
            last = node.health(Duration::from_secs(1)).await;
            if last == Some(want) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        panic!(
            "{}'s /healthz did not answer {want} within {within:?} (last: {last:?})",
            node.name
        );
    }

    /// Print every node's metrics of the cluster (for the report).
    pub async fn print_metrics(&self, skip: &[usize]) {
        for (i, n) in self.nodes.iter().enumerate() {
            if skip.contains(&i) {
                continue;
            }
            let text = n.metrics().await;
            let line: Vec<String> = [
                "flagfall_cluster_owned_games",
                "flagfall_cluster_routed_total",
                "flagfall_cluster_routed_in_total",
                "flagfall_cluster_lease_renewals_total",
                "flagfall_cluster_lease_renewal_failures_total",
                "flagfall_cluster_takeovers_total",
                "flagfall_cluster_fenced_writes_total",
                "flagfall_cluster_dropped_games_total",
            ]
            .iter()
            .map(|m| {
                let short = m.trim_start_matches("flagfall_cluster_");
                match metric_value(&text, m) {
                    Some(v) => format!("{short}={v}"),
                    None => format!("{short}=absent"),
                }
            })
            .collect();
            eprintln!("metrics of {}: {}", n.name, line.join(" "));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let show = std::thread::panicking() || std::env::var_os("FLAGFALL_CLUSTER_LOGS").is_some();
        if show {
            let lines = std::env::var("FLAGFALL_CLUSTER_LOG_LINES")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(80);
            for n in &mut self.nodes {
                if n.paused {
                    // A stopped process still dies of SIGKILL; resume it for its log.
                    let _ = unsafe { libc::kill(n.pid(), libc::SIGCONT) };
                }
            }
            for n in &self.nodes {
                eprintln!("---- the last {lines} lines of {}'s log ----", n.name);
                eprint!("{}", n.log.tail(&n.name, lines));
                let cluster_metrics: String = blocking_get(n.addr, "/metrics")
                    .lines()
                    .filter(|l| l.starts_with("flagfall_cluster_"))
                    .map(|l| format!("{l}; "))
                    .collect();
                let cluster_metrics = if cluster_metrics.is_empty() {
                    blocking_get(n.addr, "/metrics").chars().take(120).collect()
                } else {
                    cluster_metrics
                };
                eprintln!("[{}] metrics: {cluster_metrics}", n.name);
            }
            eprintln!("---- nats-server ----");
            eprint!("{}", self.nats.log.tail("nats", 20));
        }
    }
}

/// A GET without the async runtime (for a failure's report in `Drop`): the body, or
/// why there is none.
fn blocking_get(addr: SocketAddr, path: &str) -> String {
    use std::io::{Read, Write};
    let get = || -> std::io::Result<String> {
        let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
        s.set_read_timeout(Some(Duration::from_secs(2)))?;
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )?;
        let mut raw = String::new();
        s.read_to_string(&mut raw)?;
        Ok(raw)
    };
    match get() {
        Ok(raw) => raw
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or(raw),
        Err(e) => format!("no answer: {e}"),
    }
}
