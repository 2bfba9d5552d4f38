//! Groups of bots: the games of a run split over this process and, when they need more
//! sockets than one process may open, child processes of their own (`flagfall loadtest
//! --bots-worker`). Each group obeys the same commands, in this process over a channel,
//! in a child over its standard input and output (one JSON object a line), so that the
//! run drives them all alike and they play at the same time.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::LoadError;
use crate::bots::{Bots, open_game};

/// What a group is told to do, in this order: open, play (once or more; `killed` while
/// playing), check.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub(crate) enum Cmd {
    /// Open games number `first .. first + games` on `nodes`.
    Open {
        nodes: Vec<SocketAddr>,
        first: usize,
        games: usize,
    },
    /// Move at `rate` moves a second (this group's games together) for `millis`.
    Play { rate: f64, millis: u64 },
    /// A node was killed at this time (microseconds since the Unix epoch): each game
    /// notes its first acknowledgement after it.
    Killed { at_unix_us: u64 },
    /// Check every game's stored script on the first of the nodes `alive` (indexes).
    Check { alive: Vec<usize> },
}

/// What a group answers to each command but `killed`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub(crate) enum Answer {
    /// The games that opened, and each one's owner then (an index into the nodes).
    Opened {
        owners: Vec<usize>,
        errors: u64,
    },
    /// Every latency (microseconds), the bots that failed, and for each game that opened
    /// (in order) its first acknowledgement after a kill (microseconds since the epoch).
    Played {
        latencies_us: Vec<u64>,
        errors: u64,
        /// Sockets the bots reopened on another node.
        reconnects: u64,
        after_kill: Vec<Option<u64>>,
    },
    Checked {
        lost: u64,
        duplicated: u64,
    },
    /// The command could not be carried out.
    Failed {
        error: String,
    },
}

/// Microseconds since the Unix epoch.
pub(crate) fn unix_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// A group of bots and the way to command it.
pub(crate) struct Group {
    tx: mpsc::UnboundedSender<Cmd>,
    rx: mpsc::UnboundedReceiver<Answer>,
    /// The process that holds the bots ("self" for this one).
    pub(crate) pid: String,
    child: Option<tokio::process::Child>,
}

impl Group {
    /// Bots in this process.
    pub(crate) fn local() -> Group {
        let (tx, cmds) = mpsc::unbounded_channel();
        let (answers, rx) = mpsc::unbounded_channel();
        tokio::spawn(serve(cmds, answers));
        Group {
            tx,
            rx,
            pid: "self".into(),
            child: None,
        }
    }

    /// Bots in a child process: `exe loadtest --bots-worker`.
    pub(crate) fn spawn(exe: &Path) -> Result<Group, LoadError> {
        let mut child = tokio::process::Command::new(exe)
            .args(["loadtest", "--bots-worker"])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(LoadError::io(format!("starting {} (bots)", exe.display())))?;
        let pid = child.id().map(|p| p.to_string()).unwrap_or_default();
        let (mut stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => return Err(LoadError::unexpected("a bots process", "no pipes")),
        };
        let (tx, mut cmds) = mpsc::unbounded_channel::<Cmd>();
        let (answers, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(cmd) = cmds.recv().await {
                let Ok(mut line) = serde_json::to_string(&cmd) else {
                    break;
                };
                line.push('\n');
                if stdin.write_all(line.as_bytes()).await.is_err() {
                    break;
                }
            }
        });
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let answer = serde_json::from_str(&line).unwrap_or_else(|e| Answer::Failed {
                    error: format!("a bots process answered {line:?}: {e}"),
                });
                if answers.send(answer).is_err() {
                    break;
                }
            }
        });
        Ok(Group {
            tx,
            rx,
            pid,
            child: Some(child),
        })
    }

    pub(crate) fn send(&self, cmd: Cmd) -> Result<(), LoadError> {
        self.tx
            .send(cmd)
            .map_err(|_| LoadError::unexpected("commanding the bots", "the group is gone"))
    }

    /// The next answer; a failure is an error.
    pub(crate) async fn answer(&mut self) -> Result<Answer, LoadError> {
        match self.rx.recv().await {
            Some(Answer::Failed { error }) => Err(LoadError::unexpected("the bots", error)),
            Some(a) => Ok(a),
            None => Err(LoadError::unexpected(
                format!("the bots (process {})", self.pid),
                "ended without an answer",
            )),
        }
    }

    /// Close the commands and wait for a child to exit.
    pub(crate) async fn finish(self) {
        drop(self.tx);
        if let Some(mut child) = self.child {
            let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
        }
    }
}

/// `flagfall loadtest --bots-worker`: serve the commands read from standard input, one
/// JSON object a line, answering on standard output.
pub async fn bots_worker() -> Result<(), LoadError> {
    let (tx, cmds) = mpsc::unbounded_channel();
    let (answers, mut rx) = mpsc::unbounded_channel();
    let served = tokio::spawn(serve(cmds, answers));
    let reader = tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            match serde_json::from_str::<Cmd>(&line) {
                Ok(cmd) => {
                    if tx.send(cmd).is_err() {
                        break;
                    }
                }
                Err(e) => tracing::warn!(error = %e, line, "not a command"),
            }
        }
    });
    let mut stdout = tokio::io::stdout();
    while let Some(answer) = rx.recv().await {
        let mut line = serde_json::to_string(&answer)
            .map_err(|e| LoadError::unexpected("writing an answer", e.to_string()))?;
        line.push('\n');
        stdout
            .write_all(line.as_bytes())
            .await
            .map_err(LoadError::io("writing to standard output"))?;
        stdout
            .flush()
            .await
            .map_err(LoadError::io("writing to standard output"))?;
    }
    reader.abort();
    served.await?;
    Ok(())
}

/// Carry out the commands of one group until they end.
async fn serve(mut cmds: mpsc::UnboundedReceiver<Cmd>, answers: mpsc::UnboundedSender<Answer>) {
    let mut bots: Vec<Bots> = Vec::new();
    let mut nodes: Arc<[SocketAddr]> = Arc::from(Vec::new());
    let kill_at = Arc::new(AtomicU64::new(0));
    while let Some(cmd) = cmds.recv().await {
        let answer = match cmd {
            Cmd::Open {
                nodes: n,
                first,
                games,
            } => {
                nodes = Arc::from(n);
                let (opened, errors) = open_games(nodes.clone(), first, games).await;
                bots = opened;
                Answer::Opened {
                    owners: bots.iter().map(|b| b.owner).collect(),
                    errors,
                }
            }
            Cmd::Play { rate, millis } => {
                let playing = play_at_rate(
                    std::mem::take(&mut bots),
                    rate,
                    Duration::from_millis(millis),
                    kill_at.clone(),
                );
                tokio::pin!(playing);
                // A kill is told while the games play.
                let played = loop {
                    tokio::select! {
                        played = &mut playing => break played,
                        cmd = cmds.recv() => match cmd {
                            Some(Cmd::Killed { at_unix_us }) => kill_at.store(at_unix_us, Relaxed),
                            Some(other) => tracing::warn!(?other, "a command while playing"),
                            None => {}
                        },
                    }
                };
                match played {
                    Ok(p) => {
                        bots = p.bots;
                        Answer::Played {
                            latencies_us: p.latencies_us,
                            errors: p.errors,
                            reconnects: p.reconnects,
                            after_kill: p.after_kill,
                        }
                    }
                    Err(e) => Answer::Failed {
                        error: e.to_string(),
                    },
                }
            }
            Cmd::Killed { at_unix_us } => {
                kill_at.store(at_unix_us, Relaxed);
                continue;
            }
            Cmd::Check { alive } => match alive.first().and_then(|&i| nodes.get(i)) {
                Some(&addr) => match check_all(std::mem::take(&mut bots), addr).await {
                    Ok((lost, duplicated)) => Answer::Checked { lost, duplicated },
                    Err(e) => Answer::Failed {
                        error: e.to_string(),
                    },
                },
                None => Answer::Failed {
                    error: "no node left to check the games on".into(),
                },
            },
        };
        if answers.send(answer).is_err() {
            break;
        }
    }
}

/// Open games `first .. first + games`, 64 at a time: the bots of those that opened, and
/// how many did not.
async fn open_games(nodes: Arc<[SocketAddr]>, first: usize, games: usize) -> (Vec<Bots>, u64) {
    let opening =
        futures_util::stream::iter((first..first + games).map(|i| open_game(nodes.clone(), i)))
            .buffer_unordered(64)
            .collect::<Vec<_>>()
            .await;
    let mut bots = Vec::with_capacity(games);
    let mut errors = 0;
    for b in opening {
        match b {
            Ok(b) => bots.push(b),
            Err(e) => {
                errors += 1;
                tracing::warn!(error = %e, "a bot game did not open");
            }
        }
    }
    (bots, errors)
}

/// What [`play_at_rate`] leaves.
struct Played {
    bots: Vec<Bots>,
    latencies_us: Vec<u64>,
    errors: u64,
    reconnects: u64,
    after_kill: Vec<Option<u64>>,
}

/// Every game moves once an interval (`games / rate`), spread over the interval, for
/// `duration`. Each game notes its first acknowledgement after `kill_at` (once set).
async fn play_at_rate(
    bots: Vec<Bots>,
    rate: f64,
    duration: Duration,
    kill_at: Arc<AtomicU64>,
) -> Result<Played, LoadError> {
    let games = bots.len();
    let per_game_interval = if rate > 0.0 {
        Duration::from_secs_f64(games as f64 / rate)
    } else {
        Duration::ZERO
    };
    let stop = Arc::new(AtomicBool::new(false));
    let err_count = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for (i, mut b) in bots.into_iter().enumerate() {
        let stop = stop.clone();
        let errs = err_count.clone();
        let kill_at = kill_at.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut after_kill = None;
            // Spread the games over one interval.
            let offset = per_game_interval.mul_f64(i as f64 / games.max(1) as f64);
            let mut next = tokio::time::Instant::now() + offset;
            while !stop.load(Relaxed) {
                tokio::time::sleep_until(next).await;
                match b.step().await {
                    Ok(d) => {
                        lat.push(d.as_micros() as u64);
                        let k = kill_at.load(Relaxed);
                        if after_kill.is_none() && k != 0 {
                            let now = unix_us();
                            if now > k {
                                after_kill = Some(now);
                            }
                        }
                    }
                    Err(e) => {
                        errs.fetch_add(1, Relaxed);
                        tracing::warn!(error = %e, "bot");
                        break;
                    }
                }
                next += per_game_interval;
                let now = tokio::time::Instant::now();
                if next < now {
                    next = now;
                }
            }
            (b, lat, after_kill)
        }));
    }
    tokio::time::sleep(duration).await;
    stop.store(true, Relaxed);
    let mut played = Played {
        bots: Vec::with_capacity(games),
        latencies_us: Vec::new(),
        errors: 0,
        reconnects: 0,
        after_kill: Vec::with_capacity(games),
    };
    for t in tasks {
        let (mut b, lat, after) = t.await?;
        played.reconnects += std::mem::take(&mut b.reconnects);
        played.latencies_us.extend(lat);
        played.bots.push(b);
        played.after_kill.push(after);
    }
    played.errors = err_count.load(Relaxed);
    Ok(played)
}

/// Check every game's stored script, 32 at a time: (lost, duplicated) events.
async fn check_all(bots: Vec<Bots>, addr: SocketAddr) -> Result<(u64, u64), LoadError> {
    let checked = futures_util::stream::iter(bots.into_iter().map(|b| b.check(addr)))
        .buffer_unordered(32)
        .collect::<Vec<_>>()
        .await;
    let (mut lost, mut dup) = (0, 0);
    for c in checked {
        let (l, d) = c?;
        lost += l;
        dup += d;
    }
    Ok((lost, dup))
}
