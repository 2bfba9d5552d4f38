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
//! ([`crate::Shared::handle`]). At most one computer runs per game.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use flagfall_core::board::PhysicalMove;
use flagfall_game::script::{Action, ClaimKind};
pub use flagfall_protocol::practice::{ComputerConfig, PracticeBody};
use flagfall_protocol::{ColorName, Role, State};
use futures_util::StreamExt;
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Position, Role as PieceRole, Square};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::oneshot;

use crate::Shared;
use crate::bus::Delivery;
use crate::game::{Act, Cmd, Reply};

/// How many of its moves the computer spends shuffling once it starts.
const SHUFFLE_MOVES: usize = 8;

/// A small deterministic generator (xorshift64*): the computer's choices need no more.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// The legal chess position of a FEN, if it is one.
fn chess_of(fen: &str) -> Option<Chess> {
    fen.parse::<Fen>()
        .ok()?
        .into_position::<Chess>(CastlingMode::Standard)
        .ok()
}

fn value(r: PieceRole) -> u32 {
    match r {
        PieceRole::Pawn => 1,
        PieceRole::Knight | PieceRole::Bishop => 3,
        PieceRole::Rook => 5,
        PieceRole::Queen => 9,
        PieceRole::King => 100,
    }
}

/// The built-in opponent: a legal move, the most valuable capture first, otherwise a
/// random one (promotions to a queen). `None` when the side to move has no legal move.
pub fn simple_move(pos: &Chess, rng: &mut Rng) -> Option<String> {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let best = moves
        .iter()
        .filter(|m| m.promotion().is_none_or(|p| p == PieceRole::Queen))
        .map(|m| m.capture().map_or(0, value))
        .max()
        .unwrap_or(0);
    let pool: Vec<_> = moves
        .iter()
        .filter(|m| m.promotion().is_none_or(|p| p == PieceRole::Queen))
        .filter(|m| m.capture().map_or(0, value) == best)
        .collect();
    let pool = if pool.is_empty() {
        moves.iter().collect()
    } else {
        pool
    };
    let m = pool[rng.below(pool.len())];
    Some(UciMove::from_standard(*m).to_string())
}

/// An illegal move the physical board allows, as a club player makes one in time
/// trouble: the king onto an attacked square next to it; otherwise a piece one step in a
/// direction it cannot move; otherwise any piece onto an empty square it cannot reach.
/// Never a legal move of `pos` (when the position is legal chess). `None` if the mover
/// has no piece that can be put anywhere.
pub fn illegal_move(
    board: &Board,
    mover: Color,
    legal: &[String],
    rng: &mut Rng,
) -> Option<String> {
    let own = board.by_color(mover);
    let occupied = board.occupied();
    let is_legal =
        |from: Square, to: Square| legal.iter().any(|u| u.starts_with(&format!("{from}{to}")));
    let mut king_moves = Vec::new();
    if let Some(k) = board.king_of(mover) {
        for to in shakmaty::attacks::king_attacks(k) & !own {
            let attacked = board
                .attacks_to(to, !mover, occupied ^ Bitboard::from_square(k))
                .any();
            if attacked && !is_legal(k, to) && board.role_at(to) != Some(PieceRole::King) {
                king_moves.push(format!("{k}{to}"));
            }
        }
    }
    if !king_moves.is_empty() {
        return Some(king_moves[rng.below(king_moves.len())].clone());
    }
    let mut steps = Vec::new();
    for from in own {
        let role = board.role_at(from)?;
        if role == PieceRole::King || role == PieceRole::Pawn {
            continue;
        }
        for to in shakmaty::attacks::king_attacks(from) & !occupied {
            if !is_legal(from, to) {
                steps.push(format!("{from}{to}"));
            }
        }
    }
    if !steps.is_empty() {
        return Some(steps[rng.below(steps.len())].clone());
    }
    let mut any = Vec::new();
    for from in own {
        for to in !occupied {
            let last_rank =
                to.rank() == shakmaty::Rank::Eighth || to.rank() == shakmaty::Rank::First;
            if board.role_at(from) == Some(PieceRole::Pawn) && last_rank {
                continue;
            }
            if !is_legal(from, to) {
                any.push(format!("{from}{to}"));
            }
        }
    }
    if any.is_empty() {
        None
    } else {
        Some(any[rng.below(any.len())].clone())
    }
}

/// A UCI engine process (`flagfall serve --engine PATH`).
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

/// How long an engine may take to answer the handshake or a search before the computer
/// falls back to the built-in opponent for that move.
const ENGINE_TIMEOUT: Duration = Duration::from_secs(10);

impl Engine {
    /// Start the engine and set its strength (`Skill Level`, 0-20, where it has one).
    pub async fn start(path: &PathBuf, level: u8) -> Result<Engine, String> {
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
        let mut e = Engine {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
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

    async fn quit(mut self) {
        let _ = self.send("quit").await;
        let _ = tokio::time::timeout(Duration::from_secs(1), self.child.wait()).await;
    }
}

async fn ask_state(s: &Arc<Shared>, id: &str) -> Option<State> {
    let h = s.handle(id).await.ok()??;
    let (tx, rx) = oneshot::channel();
    h.tx.send(Cmd::State(tx)).await.ok()?;
    rx.await.ok()
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

async fn act(s: &Arc<Shared>, id: &str, role: Role, seq: &mut u64, action: Action) -> Outcome {
    let Ok(Some(h)) = s.handle(id).await else {
        return Outcome::Failed;
    };
    *seq += 1;
    let (tx, rx) = oneshot::channel();
    let a = Act {
        role,
        id: Some(format!("computer-{seq}")),
        lag_ms: None,
        action,
        rtt_ms: None,
        received: tokio::time::Instant::now(),
    };
    if h.tx.send(Cmd::Act(a, tx)).await.is_err() {
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

/// An action in a situation: the action, the position and the number of moves. The
/// computer never sends an action twice in one situation: one that was taken changed
/// the situation, one that was refused or rejected would be again (issue 19, item 18: a
/// rejected illegal-move claim, repeated on every event the rejection itself made,
/// flooded the game with about 100 rulings a second).
fn situation(action: &Action, state: &State) -> String {
    format!("{action:?}|{}|{}", state.fen, state.moves.len())
}

/// Start the computer's task for game `id`, unless one already plays there.
pub fn spawn(s: Arc<Shared>, id: String, cfg: ComputerConfig, engine: Option<PathBuf>) {
    if !s.computer_starts(&id) {
        return;
    }
    tokio::spawn(async move {
        if let Err(e) = run(s.clone(), &id, cfg, engine).await {
            tracing::warn!(game = %id, error = %e, "practice computer stopped");
        }
        s.computer_stopped(&id);
    });
}

/// A position as a repetition compares it: placement, side to move, castling and en
/// passant (only when a capture is possible), from the FEN without its counters.
fn repetition_key(pos: &Chess) -> String {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// The repetition keys of the start position and of the position after every completed
/// move, while the game is legal chess (`None` once a move was illegal or the start
/// position is not legal chess).
fn position_keys(state: &State) -> Option<Vec<String>> {
    let mut pos = match state.setup.get("fen").and_then(|f| f.as_str()) {
        Some(f) => chess_of(f)?,
        None => Chess::default(),
    };
    let mut keys = vec![repetition_key(&pos)];
    for m in &state.moves {
        m.san.as_ref()?;
        let mv = UciMove::from_ascii(m.uci.as_bytes())
            .ok()?
            .to_move(&pos)
            .ok()?;
        pos.play_unchecked(mv);
        keys.push(repetition_key(&pos));
    }
    Some(keys)
}

/// Training: a legal move into a position that has stood before (the one seen most often
/// first), so a repetition the player may claim comes about; else, while `shuffling`, a
/// quiet knight move (another quiet move of a minor piece or the queen when no knight
/// can), to be played back later. `None` when neither applies.
pub fn repetition_move(
    pos: &Chess,
    keys: &[String],
    shuffling: bool,
    rng: &mut Rng,
) -> Option<String> {
    let moves = pos.legal_moves();
    let seen = |m: &shakmaty::Move| {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        let key = repetition_key(&after);
        keys.iter().filter(|k| **k == key).count()
    };
    if let Some((best, m)) = moves
        .iter()
        .map(|m| (seen(m), m))
        .filter(|(n, _)| *n > 0)
        .max_by_key(|(n, _)| *n)
    {
        let _ = best;
        return Some(UciMove::from_standard(*m).to_string());
    }
    if !shuffling {
        return None;
    }
    let quiet = |roles: &[PieceRole]| -> Vec<&shakmaty::Move> {
        moves
            .iter()
            .filter(|m| roles.contains(&m.role()) && !m.is_capture() && !m.is_castle())
            .collect()
    };
    let mut pool = quiet(&[PieceRole::Knight]);
    if pool.is_empty() {
        pool = quiet(&[PieceRole::Bishop, PieceRole::Queen]);
    }
    if pool.is_empty() {
        return None;
    }
    Some(UciMove::from_standard(*pool[rng.below(pool.len())]).to_string())
}

async fn run(
    s: Arc<Shared>,
    id: &str,
    cfg: ComputerConfig,
    engine_path: Option<PathBuf>,
) -> Result<(), String> {
    let color: Color = cfg.color.into();
    let role = if color == Color::White {
        Role::White
    } else {
        Role::Black
    };
    let mut rng = Rng::new(cfg.seed.unwrap_or_else(|| {
        let mut b = [0u8; 8];
        let _ = getrandom::fill(&mut b);
        u64::from_le_bytes(b)
    }));
    // Over the cap of engine processes (games resumed after a restart are not refused),
    // the built-in opponent plays.
    let engine_path = engine_path.filter(|_| s.computers_running() <= s.limits.engines);
    let mut engine = match &engine_path {
        Some(p) => Some(Engine::start(p, cfg.level).await?),
        None => None,
    };
    let illegal_rate = if cfg.training {
        cfg.illegal_rate.unwrap_or(0.25)
    } else {
        0.0
    };
    // In training the computer lets its flag fall once, at a move chosen in advance, and
    // shuffles for a repetition from another.
    let freeze_at = cfg.training.then(|| 8 + rng.below(12));
    let repeat_at = cfg
        .training
        .then(|| cfg.repeat_at.unwrap_or_else(|| 4 + rng.below(8)));
    let mut sub = s.bus.subscribe(id);
    let mut seq = 0u64;
    let mut shutdown = s.shutdown.clone();
    let mut played = 0usize;
    let mut tried: HashSet<String> = HashSet::new();
    loop {
        let Some(state) = ask_state(&s, id).await else {
            break;
        };
        // Over, or aborted (it expired before the player's first move).
        if state.result != "*" || state.aborted {
            break;
        }
        let me = ColorName::from(color);
        let mine = if color == Color::White {
            &state.claims.white
        } else {
            &state.claims.black
        };
        let opponent_last = state.moves.last().filter(|m| m.by != me);
        let action = if mine.iter().any(|c| c == "flag") {
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
        } else if state.to_move == me
            && state.board_move.is_none()
            && state.pending.is_none()
            && freeze_at != Some(played)
        {
            let think = 150 + 100 * u64::from(cfg.level.min(20)) + rng.below(400) as u64;
            tokio::time::sleep(Duration::from_millis(think)).await;
            let shuffling = repeat_at.is_some_and(|r| (r..r + SHUFFLE_MOVES).contains(&played));
            choose(
                &state,
                color,
                &mut rng,
                Training {
                    illegal_rate: if shuffling { 0.0 } else { illegal_rate },
                    repetition: cfg.training,
                    shuffling,
                },
                engine.as_mut(),
                think,
            )
            .await
            .and_then(|u| u.parse::<PhysicalMove>().ok())
            .map(|mv| Action::Move { mv, press: true })
        } else {
            None
        };
        let action = action.filter(|a| !tried.contains(&situation(a, &state)));
        if let Some(a) = action {
            let was_move = matches!(a, Action::Move { .. });
            let key = situation(&a, &state);
            let outcome = act(&s, id, role, &mut seq, a).await;
            if outcome == Outcome::Taken && was_move {
                played += 1;
            }
            // Only an action that was not stored may be tried again.
            if outcome != Outcome::Failed {
                tried.insert(key);
            }
            // Re-read the state at once: the answer may ask for the next action.
            if was_move {
                continue;
            }
        }
        tokio::select! {
            d = sub.next() => match d {
                None => break,
                Some(Delivery::Msg(_) | Delivery::Lagged) => {}
            },
            _ = shutdown.changed() => break,
            // A flag falls without an event: look again now and then.
            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
        }
    }
    if let Some(e) = engine {
        e.quit().await;
    }
    Ok(())
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
) -> Option<String> {
    let illegal_rate = training.illegal_rate;
    let pos = chess_of(&state.fen);
    let legal: Vec<String> = pos
        .as_ref()
        .map(|p| {
            p.legal_moves()
                .iter()
                .map(|m| UciMove::from_standard(*m).to_string())
                .collect()
        })
        .unwrap_or_default();
    let board = state.fen.parse::<Fen>().ok()?.into_setup().board;
    if (rng.chance(illegal_rate) || pos.is_none())
        && let Some(m) = illegal_move(&board, color, &legal, rng)
    {
        return Some(m);
    }
    let pos = pos?;
    if training.repetition
        && let Some(keys) = position_keys(state)
        && let Some(m) = repetition_move(&pos, &keys, training.shuffling, rng)
    {
        return Some(m);
    }
    if let Some(e) = engine {
        match e.best_move(&state.fen, think).await {
            Ok(m) if legal.contains(&m) => return Some(m),
            Ok(m) => {
                tracing::warn!(mv = %m, "the engine's move is not legal here; playing the built-in move")
            }
            Err(err) => tracing::warn!(error = %err, "engine failed; playing the built-in move"),
        }
    }
    simple_move(&pos, rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simple_opponent_plays_legal_moves_and_takes_the_queen() {
        let mut rng = Rng::new(3);
        let start = Chess::default();
        for _ in 0..20 {
            let m = simple_move(&start, &mut rng).expect("a move");
            assert!(
                start
                    .legal_moves()
                    .iter()
                    .any(|l| UciMove::from_standard(*l).to_string() == m),
                "{m}"
            );
        }
        let pos = chess_of("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1").expect("legal");
        assert_eq!(simple_move(&pos, &mut rng).as_deref(), Some("e4d5"));
        let mate = chess_of("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").expect("legal");
        assert_eq!(simple_move(&mate, &mut rng), None);
    }

    #[test]
    fn training_moves_are_never_legal() {
        let mut rng = Rng::new(11);
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1",
        ] {
            let pos = chess_of(fen).expect("legal");
            let legal: Vec<String> = pos
                .legal_moves()
                .iter()
                .map(|m| UciMove::from_standard(*m).to_string())
                .collect();
            for _ in 0..20 {
                let m = illegal_move(pos.board(), pos.turn(), &legal, &mut rng)
                    .expect("an illegal move");
                assert!(!legal.contains(&m), "{fen}: {m} is legal");
                let mv: PhysicalMove = m.parse().expect("a physical move");
                assert_eq!(
                    pos.board().color_at(mv.from),
                    Some(pos.turn()),
                    "{fen}: {m} moves a piece of the mover"
                );
            }
        }
        // Next to the enemy rook, the king steps onto an attacked square.
        let pos = chess_of("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1").expect("legal");
        let m = illegal_move(pos.board(), Color::White, &[], &mut rng).expect("a move");
        assert!(
            ["e1d1", "e1f1", "e1d2", "e1f2"].contains(&m.as_str()) || m == "e1e2",
            "{m}"
        );
    }

    #[test]
    fn training_plays_into_a_repetition_and_shuffles_a_knight() {
        let mut rng = Rng::new(9);
        // 1. Nf3 Nc6 2. Ng1: Black's Nb8 brings back the start position.
        let mut pos = Chess::default();
        let mut keys = vec![repetition_key(&pos)];
        for u in ["g1f3", "b8c6", "f3g1"] {
            let m = UciMove::from_ascii(u.as_bytes())
                .unwrap()
                .to_move(&pos)
                .unwrap();
            pos.play_unchecked(m);
            keys.push(repetition_key(&pos));
        }
        assert_eq!(
            repetition_move(&pos, &keys, false, &mut rng).as_deref(),
            Some("c6b8")
        );
        // Nothing repeats from the start: only the shuffle phase moves a knight.
        let start = Chess::default();
        let keys = vec![repetition_key(&start)];
        assert_eq!(repetition_move(&start, &keys, false, &mut rng), None);
        let m = repetition_move(&start, &keys, true, &mut rng).expect("a knight move");
        assert!(
            ["b1a3", "b1c3", "g1f3", "g1h3"].contains(&m.as_str()),
            "{m}"
        );
        // The settings round-trip through their stored JSON.
        let cfg: ComputerConfig =
            serde_json::from_str(r#"{"color":"black","training":true,"repeat_at":0}"#).unwrap();
        let back: ComputerConfig =
            serde_json::from_str(&serde_json::to_string(&cfg).unwrap()).unwrap();
        assert_eq!(back.repeat_at, Some(0));
        assert!(back.training);
    }

    #[test]
    fn the_generator_is_reproducible_and_bounded() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
            assert!(a.below(7) < 7);
            b.below(7);
        }
        let mut r = Rng::new(5);
        assert!((0..1000).all(|_| !r.chance(0.0)));
        assert!((0..1000).all(|_| r.chance(1.0)));
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
