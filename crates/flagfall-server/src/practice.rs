//! Practice against the computer: a player of one colour that is a client of the game's
//! task like any socket (it sends actions through the same [`Cmd::Act`] path and the
//! arbiter rules on them; it never touches the `Game`). It chooses moves with a UCI
//! engine (`flagfall serve --engine PATH`) or, without one, a built-in simple opponent
//! that plays legal moves (captures first).
//!
//! Training: the computer sometimes plays an illegal move and presses, lets its flag
//! fall, or leaves a position the player can claim as a threefold repetition (for a
//! while it shuffles a piece out and back, and whenever a move of its own repeats a
//! position that stood before it plays it; it never claims the repetition itself), so the
//! player learns when and how to claim; the page tells whether the claim was right and
//! cites the rule (the arbiter's ruling). It also claims the player's own completed
//! illegal moves (a move the server lists without SAN) and a fallen flag.
//!
//! The computer's settings are stored with the game (`practice` on the game row): when
//! the server starts again, or loads the game again, the computer plays on
//! ([`crate::Shared::load_here`]). At most one computer runs per game.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use flagfall_core::board::{BoardRules, PhysicalMove, PhysicalPosition, RepetitionKey};
use flagfall_game::generate::{self, Rng};
use flagfall_game::script::{Action, ClaimKind};
pub use flagfall_protocol::practice::{ComputerConfig, PracticeBody};
use flagfall_protocol::{ColorName, Role, State};
use futures_util::StreamExt;
use shakmaty::Color;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::oneshot;

use crate::Shared;
use crate::bus::Delivery;
use crate::game::{Act, Cmd, GameHandle, Reply};
use crate::metrics::Metrics;

/// How many of its moves the computer spends shuffling once it starts.
const SHUFFLE_MOVES: usize = 8;

/// A UCI engine process (`flagfall serve --engine PATH`), counted in
/// `flagfall_engine_processes` while it lives; killed when dropped.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    metrics: Arc<Metrics>,
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.metrics.engine_processes.dec();
    }
}

/// How long an engine may take to answer the handshake or a search before the computer
/// falls back to the built-in opponent for that move.
const ENGINE_TIMEOUT: Duration = Duration::from_secs(10);

impl Engine {
    /// Start the engine and set its strength (`Skill Level`, 0-20, where it has one).
    pub async fn start(path: &PathBuf, level: u8, metrics: Arc<Metrics>) -> Result<Engine, String> {
        let mut child = tokio::process::Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start the engine {}: {e}", path.display()))?;
        let stdin = child
            .stdin
            .take()
            .ok_or("the engine has no standard input")?;
        let stdout = child
            .stdout
            .take()
            .ok_or("the engine has no standard output")?;
        metrics.engine_processes.inc();
        let mut e = Engine {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            metrics,
        };
        e.send("uci").await?;
        e.wait_for("uciok").await?;
        e.send(&format!(
            "setoption name Skill Level value {}",
            level.min(20)
        ))
        .await?;
        e.send("isready").await?;
        e.wait_for("readyok").await?;
        Ok(e)
    }

    async fn send(&mut self, line: &str) -> Result<(), String> {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .map_err(|e| format!("engine: {e}"))
    }

    async fn wait_for(&mut self, word: &str) -> Result<String, String> {
        let read = async {
            while let Some(l) = self
                .lines
                .next_line()
                .await
                .map_err(|e| format!("engine: {e}"))?
            {
                if l.split_whitespace().next() == Some(word) {
                    return Ok(l);
                }
            }
            Err(format!("the engine exited before `{word}`"))
        };
        tokio::time::timeout(ENGINE_TIMEOUT, read)
            .await
            .map_err(|_| format!("the engine did not answer `{word}` in time"))?
    }

    /// The engine's move in `fen`, thinking `movetime` ms.
    pub async fn best_move(&mut self, fen: &str, movetime: u64) -> Result<String, String> {
        self.send(&format!("position fen {fen}")).await?;
        self.send(&format!("go movetime {movetime}")).await?;
        let line = self.wait_for("bestmove").await?;
        line.split_whitespace()
            .nth(1)
            .filter(|m| *m != "(none)")
            .map(str::to_string)
            .ok_or_else(|| "the engine has no move".to_string())
    }

    /// Ask the engine to quit; kill it when it has not within a second. Either way the
    /// process is gone (and reaped) when this returns.
    async fn quit(mut self) {
        let _ = self.send("quit").await;
        if tokio::time::timeout(Duration::from_secs(1), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

/// What became of an action the computer sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Stored (a claim may have been rejected by the ruling stored with it).
    Taken,
    /// The arbiter or the server refused it.
    Refused,
    /// Not stored (the game is gone, a commit failed): it may be tried again.
    Failed,
}

/// An action in a situation: the action, the position and the number of moves. The
/// computer never sends an action twice in one situation: one that was taken changed
/// the situation, one that was refused or rejected would be again (issue 19, item 18: a
/// rejected illegal-move claim, repeated on every event the rejection itself made,
/// flooded the game with about 100 rulings a second).
fn situation(action: &Action, state: &State) -> String {
    format!("{action:?}|{}|{}", state.fen, state.moves.len())
}

/// The repetition keys of the game's start and of the position after each completed
/// move, while every move was legal.
fn position_keys(state: &State) -> Option<Vec<RepetitionKey>> {
    let start = match state.setup.get("fen").and_then(|f| f.as_str()) {
        Some(f) => PhysicalPosition::from_fen(f).ok()?,
        None => PhysicalPosition::default(),
    };
    let moves = state
        .moves
        .iter()
        .map(|m| m.uci.parse::<PhysicalMove>().ok())
        .collect::<Option<Vec<_>>>()?;
    generate::position_keys(&start, &moves)
}

/// Start the computer's task for game `id`, unless one already plays there.
pub fn spawn(s: Arc<Shared>, id: String, cfg: ComputerConfig, engine: Option<PathBuf>) {
    if !s.computer_starts(&id) {
        return;
    }
    s.metrics.practice_computers.inc();
    s.clone().spawn(async move {
        match Computer::start(s.clone(), &id, cfg, engine).await {
            Ok(mut computer) => {
                computer.play().await;
                computer.stop().await;
            }
            Err(e) => tracing::warn!(game = %id, error = %e, "practice computer stopped"),
        }
        s.computer_stopped(&id);
        s.metrics.practice_computers.dec();
    });
}

/// One game's computer: what it plays with, and what it has done so far.
struct Computer {
    s: Arc<Shared>,
    id: String,
    /// The game's task, taken once: when it ends the computer ends (it never loads the
    /// game again; loading it again starts a new computer).
    game: GameHandle,
    cfg: ComputerConfig,
    color: Color,
    role: Role,
    rng: Rng,
    engine: Option<Engine>,
    /// The chance of an illegal move (training only).
    illegal_rate: f64,
    /// In training, the move at which it lets its flag fall once, and the one from which
    /// it shuffles for a repetition.
    freeze_at: Option<usize>,
    repeat_at: Option<usize>,
    /// The number of its last action's client id.
    seq: u64,
    /// Its moves stored so far.
    played: usize,
    /// The situations of the actions it sent that were stored or refused.
    tried: HashSet<String>,
}

/// What the computer does after an action.
enum Then {
    /// Look at the state again at once (a move was sent: the answer may ask for more).
    Look,
    /// Wait for the game's next message.
    Wait,
    /// The action was not stored (a commit failed): wait, then try it again.
    Retry,
}

/// How long the computer waits before it sends an action that was not stored again.
const RETRY: Duration = Duration::from_millis(500);

impl Computer {
    /// Set up: the generator, the training plan and the engine process (over the cap of
    /// engine processes, the built-in opponent plays; games resumed after a restart are
    /// not refused).
    async fn start(
        s: Arc<Shared>,
        id: &str,
        cfg: ComputerConfig,
        engine_path: Option<PathBuf>,
    ) -> Result<Computer, String> {
        let color: Color = cfg.color.into();
        let role = if color == Color::White {
            Role::White
        } else {
            Role::Black
        };
        let game = match s.load_here(id).await {
            Ok(Some(h)) => h,
            Ok(None) => return Err("no such game".into()),
            Err(e) => return Err(e.to_string()),
        };
        let mut rng = cfg.seed.map_or_else(Rng::new, Rng::with_seed);
        let engine_path = engine_path.filter(|_| s.computers_running() <= s.limits.engines);
        let engine = match &engine_path {
            Some(p) => Some(Engine::start(p, cfg.level, s.metrics.clone()).await?),
            None => None,
        };
        let illegal_rate = if cfg.training {
            cfg.illegal_rate.unwrap_or(0.25)
        } else {
            0.0
        };
        let freeze_at = cfg.training.then(|| rng.usize(8..20));
        let repeat_at = cfg
            .training
            .then(|| cfg.repeat_at.unwrap_or_else(|| rng.usize(4..12)));
        Ok(Computer {
            s,
            id: id.to_string(),
            game,
            cfg,
            color,
            role,
            rng,
            engine,
            illegal_rate,
            freeze_at,
            repeat_at,
            seq: 0,
            played: 0,
            tried: HashSet::new(),
        })
    }

    /// Play: read the state, act on it, wait for the game's next message (an event, or
    /// a flag falling: the game's task publishes both); until the game is over, its task
    /// ends or the server shuts down. Nothing is polled: only an action that could not be
    /// stored is tried again after [`RETRY`].
    async fn play(&mut self) {
        let mut sub = self.s.bus.subscribe(&self.id);
        let mut shutdown = self.s.shutdown.clone();
        loop {
            let Some(state) = self.state().await else {
                break;
            };
            // Over, or aborted (it expired before the player's first move).
            if state.result != "*" || state.aborted {
                break;
            }
            let failed = match self.next_action(&state).await {
                Some(action) => match self.send(action, &state).await {
                    Then::Look => continue,
                    Then::Wait => false,
                    Then::Retry => true,
                },
                None => false,
            };
            let game = self.game.tx.clone();
            tokio::select! {
                d = sub.next() => match d {
                    None => break,
                    Some(Delivery::Msg(_) | Delivery::Lagged) => {}
                },
                _ = shutdown.changed() => break,
                _ = game.closed() => break,
                _ = tokio::time::sleep(RETRY), if failed => {}
            }
        }
    }

    /// Stop: quit the engine.
    async fn stop(self) {
        if let Some(e) = self.engine {
            e.quit().await;
        }
    }

    /// The game's state; `None` when its task has ended.
    async fn state(&self) -> Option<State> {
        let (tx, rx) = oneshot::channel();
        self.game.tx.send(Cmd::State(tx)).await.ok()?;
        rx.await.ok()
    }

    /// Decide: a claim of the opponent's fallen flag or completed illegal move, else a
    /// move when it is the computer's turn; never an action it tried in this situation.
    async fn next_action(&mut self, state: &State) -> Option<Action> {
        let me = ColorName::from(self.color);
        let mine = if self.color == Color::White {
            &state.claims.white
        } else {
            &state.claims.black
        };
        let opponent_last = state.moves.last().filter(|m| m.by != me);
        let claim = if mine.iter().any(|c| c == "flag") {
            Some(Action::Claim {
                claim: ClaimKind::Flag,
                intended: None,
            })
        } else if opponent_last.is_some_and(|m| m.san.is_none())
            && mine.iter().any(|c| c == "illegal")
            && state.board_move.is_none()
        {
            Some(Action::Claim {
                claim: ClaimKind::Illegal,
                intended: None,
            })
        } else {
            None
        };
        // A claim already tried here is not tried again, and does not stop the computer
        // from playing on: it moves as if it had nothing to claim (a rejected claim left
        // it frozen, its clock running, until its flag fell).
        if let Some(claim) = claim.filter(|a| !self.tried.contains(&situation(a, state))) {
            return Some(claim);
        }
        let action = if state.to_move == me
            && state.board_move.is_none()
            && state.pending.is_none()
            && self.freeze_at != Some(self.played)
        {
            self.think_and_move(state).await
        } else {
            None
        };
        action.filter(|a| !self.tried.contains(&situation(a, state)))
    }

    /// Think (a pause that grows with the level), then choose a move and press.
    async fn think_and_move(&mut self, state: &State) -> Option<Action> {
        let think = 150 + 100 * u64::from(self.cfg.level.min(20)) + self.rng.u64(..400);
        tokio::time::sleep(Duration::from_millis(think)).await;
        let shuffling = self
            .repeat_at
            .is_some_and(|r| (r..r + SHUFFLE_MOVES).contains(&self.played));
        let training = Training {
            illegal_rate: if shuffling { 0.0 } else { self.illegal_rate },
            repetition: self.cfg.training,
            shuffling,
        };
        choose(
            state,
            self.color,
            &mut self.rng,
            training,
            self.engine.as_mut(),
            think,
        )
        .await
        .map(|mv| Action::Move { mv, press: true })
    }

    /// Send an action through the game's task, as a socket does, and remember it.
    async fn send(&mut self, action: Action, state: &State) -> Then {
        let was_move = matches!(action, Action::Move { .. });
        let key = situation(&action, state);
        let outcome = self.act(action).await;
        if outcome == Outcome::Taken && was_move {
            self.played += 1;
        }
        // Only an action that was not stored may be tried again.
        if outcome != Outcome::Failed {
            self.tried.insert(key);
        }
        match (outcome, was_move) {
            (Outcome::Failed, _) => Then::Retry,
            (_, true) => Then::Look,
            (_, false) => Then::Wait,
        }
    }

    async fn act(&mut self, action: Action) -> Outcome {
        self.seq += 1;
        let (tx, rx) = oneshot::channel();
        let a = Act {
            role: self.role,
            id: Some(format!("computer-{}", self.seq)),
            lag_ms: None,
            action,
            san: None,
            rtt_ms: None,
            received: tokio::time::Instant::now(),
        };
        if self.game.tx.send(Cmd::Act(Box::new(a), tx)).await.is_err() {
            return Outcome::Failed;
        }
        match rx.await {
            Ok(Reply::Stored(_)) => Outcome::Taken,
            Ok(Reply::Direct(text))
                if serde_json::from_str::<serde_json::Value>(&text)
                    .is_ok_and(|v| v["type"] == "refused") =>
            {
                Outcome::Refused
            }
            _ => Outcome::Failed,
        }
    }
}

/// What training asks of the next move.
#[derive(Debug, Clone, Copy)]
struct Training {
    /// The chance of an illegal move.
    illegal_rate: f64,
    /// Play into a position that stood before when a move does (a claimable repetition).
    repetition: bool,
    /// Shuffle a piece out and back (the repetition phase).
    shuffling: bool,
}

async fn choose(
    state: &State,
    color: Color,
    rng: &mut Rng,
    training: Training,
    engine: Option<&mut Engine>,
    think: u64,
) -> Option<PhysicalMove> {
    let pos = PhysicalPosition::from_fen(&state.fen).ok()?;
    let chess = pos.to_chess();
    if (rng.f64() < training.illegal_rate || chess.is_none())
        && let Some(m) = generate::illegal_move(&pos, color, rng)
    {
        return Some(m);
    }
    let chess = chess?;
    if training.repetition
        && let Some(keys) = position_keys(state)
        && let Some(m) = generate::repetition_move(&pos, &keys, training.shuffling, rng)
    {
        return Some(m);
    }
    if let Some(e) = engine {
        let legal = pos.legal_moves(&BoardRules::default());
        match e.best_move(&state.fen, think).await {
            Ok(m) => match m.parse::<PhysicalMove>() {
                Ok(mv) if legal.contains(&mv) => return Some(mv),
                _ => {
                    tracing::warn!(mv = %m, "the engine's move is not legal here; playing the built-in move")
                }
            },
            Err(err) => tracing::warn!(error = %err, "engine failed; playing the built-in move"),
        }
    }
    generate::simple_move(&chess, rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_round_trip_through_their_stored_json() {
        let cfg: ComputerConfig =
            serde_json::from_str(r#"{"color":"black","training":true,"repeat_at":0}"#).unwrap();
        let back: ComputerConfig =
            serde_json::from_str(&serde_json::to_string(&cfg).unwrap()).unwrap();
        assert_eq!(back.repeat_at, Some(0));
        assert!(back.training);
        assert_eq!(back.color, ColorName::Black);
    }

    #[test]
    fn config_checks_name_the_field() {
        let c = ComputerConfig {
            color: ColorName::Black,
            level: 0,
            training: false,
            illegal_rate: None,
            seed: None,
            repeat_at: None,
        };
        assert!(c.validate().unwrap_err().contains("computer.level"));
        let c = ComputerConfig {
            level: 5,
            illegal_rate: Some(1.5),
            ..c
        };
        assert!(c.validate().unwrap_err().contains("computer.illegal_rate"));
    }
}
