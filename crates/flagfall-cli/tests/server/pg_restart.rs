//! PostgreSQL stopped and started again during play (issue 19, the fault-injection test's
//! second half). The test makes its own throwaway cluster with Debian's `initdb` and
//! `pg_ctl` (never the machine's shared server), runs the built `flagfall serve` on it,
//! and two pairs of bots play a game each over WebSocket while the cluster is stopped
//! with `pg_ctl stop -m immediate` (the harshest: no checkpoint, every connection cut)
//! and started again 1-2 s later, three times. The server stays up; an action during an
//! outage is answered "not stored, try again" or held and acknowledged once committed;
//! after every outage every acknowledged event is stored, each once, and the live state
//! equals the replay of the stored script; play then goes on to checkmate, and every
//! stored event is one its sender saw acknowledged. About 10 s.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::RwLock;
use tokio::time::Instant;

use crate::support::*;

/// Morphy's Opera game (Paris 1858): 33 plies, the last one mate.
const OPERA: [&str; 33] = [
    "e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4", "d4e5", "g4f3", "d1f3", "d6e5", "f1c4", "g8f6",
    "f3b3", "d8e7", "b1c3", "c7c6", "c1g5", "b7b5", "c3b5", "c6b5", "c4b5", "b8d7", "e1c1", "a8d8",
    "d1d7", "d8d7", "h1d1", "e7e6", "b5d7", "f6d7", "b3b8", "d7b8", "d1d8",
];

/// The longest an action may wait for its answer: the server holds it while the
/// database is down, up to its wait for a connection (10 s), then answers.
const ANSWER_WITHIN: Duration = Duration::from_secs(25);

/// How long each outage lasts.
const OUTAGES_MS: [u64; 3] = [1_000, 1_200, 1_500];

/// A PostgreSQL cluster of the test's own in a temporary directory, on a free loopback
/// port. Dropping it stops the cluster (if running) and removes the directory, also
/// when the test fails.
struct Cluster {
    bin: PathBuf,
    /// The major version of `bin`.
    major: u32,
    /// `Some(user)` when this process is root (initdb refuses root): every tool runs as
    /// that user through `runuser`.
    run_as: Option<String>,
    dir: tempfile::TempDir,
    port: u16,
    running: bool,
}

/// The bin directory of the highest PostgreSQL version Debian installed, and that
/// version's major number.
fn postgres_bin() -> (PathBuf, u32) {
    let root = Path::new("/usr/lib/postgresql");
    let mut found: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir(root)
        .unwrap_or_else(|e| {
            panic!(
                "this test needs PostgreSQL's server binaries (Debian's package postgresql, \
                 in {}/<version>/bin): cannot read {}: {e}",
                root.display(),
                root.display()
            )
        })
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let version: Option<Vec<u32>> = e
                .file_name()
                .to_str()?
                .split('.')
                .map(|p| p.parse().ok())
                .collect();
            let bin = e.path().join("bin");
            (bin.join("initdb").is_file() && bin.join("pg_ctl").is_file())
                .then_some((version?, bin))
        })
        .collect();
    found.sort();
    match found.pop() {
        Some((version, bin)) => (bin, version[0]),
        None => panic!(
            "this test needs PostgreSQL's server binaries (Debian's package postgresql): \
             no {}/<version>/bin with initdb and pg_ctl",
            root.display()
        ),
    }
}

fn run(what: &str, cmd: &mut Command) -> Output {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

impl Cluster {
    /// `initdb` into a new temporary directory and start the cluster.
    fn new() -> Cluster {
        let (bin, major) = postgres_bin();
        let dir = tempfile::tempdir().expect("a temporary directory");
        let is_root = std::fs::metadata("/proc/self")
            .map(|m| m.uid() == 0)
            .unwrap_or(false);
        let run_as = is_root.then(|| {
            // initdb refuses root: the cluster belongs to the machine's postgres user.
            let id = |flag: &str| -> u32 {
                let out = run(
                    "initdb refuses root: look up the user postgres (Debian's package postgresql makes it) to run the cluster as",
                    Command::new("id").args([flag, "postgres"]),
                );
                String::from_utf8_lossy(&out.stdout)
                    .trim()
                    .parse()
                    .expect("a numeric id")
            };
            std::os::unix::fs::chown(dir.path(), Some(id("-u")), Some(id("-g")))
                .expect("give the temporary directory to the postgres user");
            "postgres".to_string()
        });
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut c = Cluster {
            bin,
            major,
            run_as,
            dir,
            port,
            running: false,
        };
        let data = c.data();
        // --no-sync only skips initdb's own final flush; the server runs with fsync on.
        run(
            "initdb",
            c.tool("initdb")
                .arg("-D")
                .arg(&data)
                .args(["-U", "postgres", "-A", "trust", "--locale=C", "-E", "UTF8"])
                .arg("--no-sync"),
        );
        c.start();
        c
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("postgres.log")
    }

    /// A PostgreSQL tool, as the cluster's owner, in the cluster's directory.
    fn tool(&self, name: &str) -> Command {
        let exe = self.bin.join(name);
        let mut cmd = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(exe);
                c
            }
            None => Command::new(exe),
        };
        cmd.current_dir(self.dir.path());
        cmd
    }

    /// Start the cluster and wait until it accepts connections.
    fn start(&mut self) {
        let mut options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=on \
             -c synchronous_commit=on -c max_connections=30",
            self.port,
            self.dir.path().display()
        );
        if self.major >= 14 {
            // After a crash PostgreSQL flushes its whole data directory before recovery:
            // file by file (the default) that takes seconds on a busy disk, one
            // syncfs(2) a fraction of one. Durability is the same.
            options.push_str(" -c recovery_init_sync_method=syncfs");
        }
        let out = self
            .tool("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.log())
            .args(["-w", "-t", "30", "-o", &options, "start"])
            .stdin(Stdio::null())
            .output()
            .expect("run pg_ctl start");
        if !out.status.success() {
            panic!(
                "pg_ctl start failed: {}{}\nthe cluster's log:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(self.log()).unwrap_or_default()
            );
        }
        self.running = true;
    }

    /// `pg_ctl stop -m immediate`: every server process quits at once, no checkpoint;
    /// the next start recovers from the write-ahead log.
    fn stop_immediate(&mut self) {
        self.running = false;
        run(
            "pg_ctl stop -m immediate",
            self.tool("pg_ctl")
                .arg("-D")
                .arg(self.data())
                .args(["-w", "-m", "immediate", "stop"]),
        );
    }

    fn url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.running {
            let _ = self
                .tool("pg_ctl")
                .arg("-D")
                .arg(self.data())
                .args(["-w", "-m", "immediate", "stop"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        // The temporary directory goes when `dir` drops, after this.
    }
}

/// What the bots of one game saw: the acknowledged plies (id → n), how many answers were
/// "not stored, try again", and each acknowledged ply's send and answer times.
#[derive(Default)]
struct Seen {
    acked: HashMap<String, u64>,
    errors: u32,
    spans: Vec<(Instant, Instant)>,
}

/// Play game `g` to its end: each ply is sent until it is acknowledged (the same `id`
/// again after a "not stored, try again"), under a read lock of `gate` (the checks take
/// the write lock: no ply is in flight while they read). The last plies wait for
/// `chaos_over`: play goes on to a result after the outages.
async fn bot(
    addr: std::net::SocketAddr,
    g: flagfall_protocol::Created,
    seen: Arc<Mutex<Seen>>,
    gate: Arc<RwLock<()>>,
    mut chaos_over: tokio::sync::watch::Receiver<bool>,
) -> (Client, Client) {
    let api = Api { addr };
    let mut white = api.connect(&g.id, Some(&g.tokens.white)).await;
    let mut black = api.connect(&g.id, Some(&g.tokens.black)).await;
    for (i, mv) in OPERA.iter().enumerate() {
        if i == OPERA.len() - 3 {
            tokio::time::timeout(Duration::from_secs(60), chaos_over.wait_for(|&over| over))
                .await
                .expect("the outages end in time")
                .expect("the test is still there");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let _pass = gate.read().await;
        let side = if i.is_multiple_of(2) {
            &mut white
        } else {
            &mut black
        };
        let id = format!("p{i}");
        let sent = Instant::now();
        for attempt in 0.. {
            assert!(attempt < 100, "game {}: {id} never stored", g.id);
            side.send(json!({"move": mv, "press": true, "id": id}))
                .await;
            // Held while the database is down: up to the server's wait for a connection
            // (10 s), then an error at the latest.
            let answer = side
                .until_within(ANSWER_WITHIN, |m| m["id"] == id.as_str())
                .await;
            match answer["type"].as_str() {
                Some("event") => {
                    let mut s = seen.lock().unwrap();
                    s.acked.insert(id.clone(), answer["n"].as_u64().expect("n"));
                    s.spans.push((sent, Instant::now()));
                    break;
                }
                Some("error") => {
                    let message = answer["message"].as_str().unwrap_or_default();
                    assert!(
                        message.starts_with("not stored, try again"),
                        "a clear error: {answer}"
                    );
                    seen.lock().unwrap().errors += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                _ => panic!("game {}: {id} answered {answer}", g.id),
            }
        }
    }
    (white, black)
}

/// The stored script of game `id` is the first plies of the game, in order, each once;
/// every ply acknowledged before the script was read is in it, at the number it was
/// acknowledged with.
async fn check_stored_once(api: &Api, id: &str, acked: &HashMap<String, u64>) -> usize {
    let script = api.get_text(&format!("/api/games/{id}/script")).await;
    let events: Vec<Value> = script
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("a JSON event"))
        .collect();
    assert!(events.len() <= OPERA.len(), "game {id}: {script}");
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["move"], OPERA[i], "game {id}: event {}: {script}", i + 1);
    }
    for (cid, n) in acked {
        let i: usize = cid[1..].parse().expect("a ply number");
        assert_eq!(*n as usize, i + 1, "game {id}: {cid} acknowledged as {n}");
        assert!(
            i < events.len(),
            "game {id}: acknowledged {cid} lost: {script}"
        );
    }
    events.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stopped_and_started_during_play_loses_and_doubles_nothing() {
    let mut cluster = Cluster::new();
    {
        use sqlx::Connection;
        let mut admin = sqlx::PgConnection::connect(&cluster.url("postgres"))
            .await
            .expect("connect to the test's own cluster");
        sqlx::query("CREATE DATABASE flagfall")
            .execute(&mut admin)
            .await
            .expect("create the database");
        admin.close().await.expect("close");
    }
    let mut proc = Process::start(Some(Db::at(cluster.url("flagfall")))).await;
    let mut games = Vec::new();
    for _ in 0..2 {
        games.push(
            proc.create(r#"{"rules":"uscf-2020","time_control":"G/5;d0"}"#)
                .await,
        );
    }
    let seen: Vec<Arc<Mutex<Seen>>> = games.iter().map(|_| Arc::default()).collect();
    let gate = Arc::new(RwLock::new(()));
    let (chaos_over, over_rx) = tokio::sync::watch::channel(false);
    let bots: Vec<_> = games
        .iter()
        .zip(&seen)
        .map(|(g, s)| {
            tokio::spawn(bot(
                proc.addr,
                g.clone(),
                s.clone(),
                gate.clone(),
                over_rx.clone(),
            ))
        })
        .collect();

    let mut windows = Vec::new();
    for (round, down_ms) in OUTAGES_MS.into_iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let stopped = Instant::now();
        tokio::task::block_in_place(|| cluster.stop_immediate());
        tokio::time::sleep(Duration::from_millis(down_ms)).await;
        tokio::task::block_in_place(|| cluster.start());
        windows.push((stopped, Instant::now()));
        assert!(proc.alive(), "flagfall serve died in outage {round}");
        // Check with no ply in flight (the held ones answered first).
        let _stop_play = gate.write().await;
        for (g, s) in games.iter().zip(&seen) {
            let acked = s.lock().unwrap().acked.clone();
            let stored = check_stored_once(&proc, &g.id, &acked).await;
            assert_eq!(
                stored,
                acked.len(),
                "game {}: after outage {round}, every stored event was acknowledged",
                g.id
            );
            proc.assert_replay_matches(&g.id).await;
        }
    }
    chaos_over.send_replace(true);

    let mut held_or_refused = 0;
    for ((g, s), b) in games.iter().zip(&seen).zip(bots) {
        let (mut white, mut black) = b.await.expect("the bots play to the end");
        let state = proc.state(&g.id).await;
        assert_eq!(state["result"], "1-0", "checkmate: {state}");
        assert_eq!(state["reason"], "checkmate", "{state}");
        assert_eq!(state["n"].as_u64(), Some(OPERA.len() as u64), "{state}");
        let (acked, errors, overlapping) = {
            let s = s.lock().unwrap();
            let overlapping = s
                .spans
                .iter()
                .filter(|(sent, answered)| {
                    windows
                        .iter()
                        .any(|(down, up)| sent < up && answered > down)
                })
                .count();
            (s.acked.clone(), s.errors as usize, overlapping)
        };
        assert_eq!(acked.len(), OPERA.len(), "every ply acknowledged");
        // Nothing unacknowledged: every stored event is a ply its sender saw acknowledged
        // at that number, and what the players were shown is the state.
        assert_eq!(check_stored_once(&proc, &g.id, &acked).await, OPERA.len());
        for c in [&mut white, &mut black] {
            if c.view["n"].as_u64() != Some(OPERA.len() as u64) {
                c.until_n(OPERA.len() as u64).await;
            }
            c.assert_view_is(&state);
        }
        proc.connect(&g.id, None).await.assert_view_is(&state);
        proc.assert_replay_matches(&g.id).await;
        eprintln!(
            "game {}: {errors} answered \"not stored, try again\", {overlapping} plies in flight across an outage",
            g.id
        );
        held_or_refused += errors + overlapping;
    }
    assert!(
        held_or_refused > 0,
        "the outages hit play: some ply was held or refused"
    );
    assert!(proc.alive(), "flagfall serve stayed up");
    assert_eq!(proc.get_status("/healthz").await, 200);
    proc.terminate().await;
    drop(cluster);
}
