//! One task per live game: it owns the game's [`Game`] and its flag timer, stamps every
//! action with the game's clock (`at`) and the sender's role (`by`), runs it through the
//! arbiter, has the writer commit it, and only then publishes it. Sockets and HTTP
//! handlers talk to it through a [`GameHandle`] (an mpsc channel); no lock is held
//! across an `.await`. After each commit, before the bus carries it, the task publishes
//! the game as stored in a `watch` ([`View`]): a socket's state on connect and the
//! answer to a ping are read from it, without a place in the task's queue.

mod act;
mod clock;
mod commit;
mod phase;
mod publish;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use flagfall_game::script::{self, Action, Event, Party};
use flagfall_game::{Game, MoveList};
use flagfall_protocol::{Mode, OffencesKey, Role, ServerMsg, State};
use flagfall_store::StoredEvent;
use serde_json::Value;
use shakmaty::Color;
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::lag::Quota;
use crate::{ServerError, Shared};
use commit::{RefusalKey, Uncertain};
use phase::Phase;

pub use publish::{GameCopy, STATE_TEXT_SERVES, View};

/// What the server keeps about a game besides its events.
#[derive(Debug, Clone)]
pub struct GameMeta {
    pub id: String,
    pub setup_line: String,
    pub setup: Value,
    pub mode: Mode,
    /// Token hashes: white, black, director.
    pub token_hashes: [String; 3],
    /// When the game was created (Unix milliseconds): a game never started expires
    /// [`crate::limits::Limits::unstarted_expiry`] after it.
    pub created_ms: i64,
}

/// An action from a socket, already parsed.
#[derive(Debug)]
pub struct Act {
    pub role: Role,
    pub id: Option<String>,
    pub lag_ms: Option<u64>,
    pub action: Action,
    /// A move typed in SAN: `action` is that move once the game reads it against its
    /// position (refused, in words, when it names no legal move of the sender's).
    pub san: Option<String>,
    /// The round trip the server last measured on this socket: its own WebSocket ping
    /// to the pong that answered it ([`crate::lag::Pings`]).
    pub rtt_ms: Option<u64>,
    /// When the server received it: its `at` (no earlier than the game's last event),
    /// so time it spends waiting in the game's queue is charged to no one.
    pub received: Instant,
}

/// The direct answer to the sender of an action. Accepted events reach the sender, as
/// everyone, through the bus; this carries refusals, errors and retried ids.
#[derive(Debug)]
pub enum Reply {
    /// Stored and published as event `n`.
    Stored(u64),
    /// An answer for this sender only (refused, error, or a retried id's event again).
    Direct(String),
    /// Not taken: this node no longer serves the game (a cluster node that lost its
    /// lease, `crate::cluster`); the client should reconnect.
    Moved,
}

/// What a client is told when its action reaches a node that lost the game's lease.
pub const MOVED: &str = "the game moved to another server: reconnect";

pub enum Cmd {
    /// Boxed: every game's queue allocates its first block of 32 commands when it is
    /// made, and a command is then a few words, not an action's size (issue 34).
    Act(Box<Act>, oneshot::Sender<Reply>),
    State(oneshot::Sender<State>),
    /// The game's evening deletes or re-pairs its round (`crate::evening`); the answer
    /// is whether the game has begun.
    Round(RoundCmd, oneshot::Sender<bool>),
    /// This node lost the game's lease (`crate::cluster::leases`): stop serving it.
    Lost,
}

// What an evening asks of a game of a round it deletes or re-pairs (`Hold` answers
// whether the game has begun): defined with the requests between nodes, which carry it.
pub use crate::seam::RoundCmd;

/// Why a game of a deleted or re-paired round refuses actions.
pub const ROUND_REMOVED: &str =
    "game aborted: the director deleted or re-paired its round of the evening before it began";

/// Why a game refuses actions while its evening decides on its round.
const ROUND_HELD: &str =
    "the director is changing this game's round of the evening: try again in a moment";

/// How long an evening's hold ([`RoundCmd::Hold`]) lasts, in a cluster, without its
/// release or abort (a NATS request lost, the evening's node dead): then the game is as
/// its stored row says, aborted if the round's change was stored, else playable again. An evening's
/// change slower than this finds the game begun if a move came meanwhile, and is refused
/// (the store aborts only a game with no event, and never one whose event is being
/// stored: docs/cluster.md "Evenings across nodes").
pub const ROUND_HOLD: Duration = Duration::from_secs(10);

/// A handle to a game's task.
#[derive(Clone)]
pub struct GameHandle {
    pub meta: Arc<GameMeta>,
    pub tx: mpsc::Sender<Cmd>,
    /// What its task last stored, published after every commit.
    pub view: watch::Receiver<Arc<View>>,
    /// Asks the task for a copy of the stored game ([`GameHandle::copy`]).
    want: Arc<Notify>,
}

impl GameHandle {
    /// The game as its task last stored it, with its moves: the copy the task made for
    /// this view, or, when none was wanted yet, one made now. The task copies its game
    /// at most once per stored view, however many readers want it (a crowd of
    /// spectators connecting costs one copy per commit, and none when nobody connects),
    /// and the request waits in no queue of actions. `None` once the task has stopped.
    pub async fn copy(&self) -> Option<Arc<GameCopy>> {
        let mut rx = self.view.clone();
        loop {
            if let Some(copy) = &rx.borrow_and_update().copy {
                return Some(copy.clone());
            }
            self.want.notify_one();
            rx.changed().await.ok()?;
        }
    }
}

/// Commands a game task may have queued.
const QUEUE: usize = 256;

/// An action waiting in an open simultaneity window, with its answer channel.
struct Held {
    event: Event,
    role: Option<Role>,
    id: Option<String>,
    reply: Option<oneshot::Sender<Reply>>,
    /// Answers owed to retries of this action's `id` that arrived while it was held
    /// (a reconnect during the simultaneity window): the action is stored once.
    also: Vec<oneshot::Sender<Reply>>,
}

/// What a game's task owns: the game as stored (and, while a commit runs, the batch on
/// its way), its clock, phase, simultaneity window and the rest it answers requests from.
struct GameTask {
    shared: Arc<Shared>,
    meta: Arc<GameMeta>,
    game: Game,
    moves: MoveList,
    /// Stored events (their JSON), in order.
    n: u64,
    /// The `at` of event 0 of this run: the game clock reads `base + (now - epoch)`.
    epoch: Instant,
    base: u64,
    /// Where the game is in its life ([`Phase`]).
    phase: Phase,
    /// Client ids already stored, per role: the event number they made.
    seen: HashMap<(Role, String), u64>,
    /// Events stored, as JSON text (to answer a retried id with its event again).
    stored: Vec<Box<str>>,
    /// Each player's lag quota ([`crate::lag`]).
    quota: [Quota; 2],
    /// Events held until the simultaneity window closes, and when it closes.
    held: Vec<Held>,
    window_closes: Option<u64>,
    /// The flag falls already announced.
    flagged: Vec<(Color, u64)>,
    /// What the game waits for the director for (a claim to rule on, a player's call), as
    /// its evening was last told ([`crate::round_link::game_waiting`]).
    waiting: Option<flagfall_protocol::evening::DisputeWhat>,
    /// The last failed commit, until the store says whether it landed.
    uncertain: Option<Uncertain>,
    /// After a failed commit of the server's own action, when to try it again.
    retry_at: Option<Instant>,
    /// Where the game as stored is published ([`View`]).
    view: Option<watch::Sender<Arc<View>>>,
    /// A reader wants a copy of the game as stored ([`GameHandle::copy`]).
    want: Arc<Notify>,
    /// The refusals stored since the last stored event that changed the game: the same
    /// refusal again is answered, not stored ([`GameTask::repeated_refusals`]).
    refused: HashSet<RefusalKey>,
    /// The director's offences as the last published event left them with every client
    /// (an event's update carries them only when they change).
    offences_held: Option<OffencesKey>,
    /// In a cluster, the epoch of the game's lease this task serves it under (the
    /// fencing token every commit carries).
    fence: Option<i64>,
}

fn idx(c: Color) -> usize {
    c.fold_wb(0, 1)
}

/// A game replayed from its stored events whose task has not started: loading (parse and
/// replay, the slow part) happens before the map of games is locked, [`Loaded::start`]
/// under it, and a load that lost the race to another is dropped without a trace.
pub struct Loaded {
    live: GameTask,
}

/// Replay a game from its stored events, ready to [`Loaded::start`]. `alive`: the game
/// clock of its last stored heartbeat ([`crate::heartbeat`]): the clock resumes from
/// there, or from the last event if that is later, so the side whose clock ran before a
/// crash is charged up to the crash and the downtime is charged to no one.
pub fn load(
    shared: Arc<Shared>,
    meta: GameMeta,
    events: Vec<StoredEvent>,
    alive: Option<i64>,
) -> Result<Loaded, ServerError> {
    let mut text = meta.setup_line.clone();
    text.push('\n');
    for e in &events {
        text.push_str(&e.json);
        text.push('\n');
    }
    let parsed =
        script::parse(&text).map_err(|e| ServerError::Corrupt(format!("game {}: {e}", meta.id)))?;
    let replay = flagfall_game::replay(&parsed);
    let game = replay.game;
    let mut moves = MoveList::default();
    moves.update(&game);
    let mut seen = HashMap::new();
    for e in &events {
        if let (Some(role), Some(id)) = (e.by_role, e.client_id.clone()) {
            seen.insert((role, id), e.n as u64);
        }
    }
    let stored = events.iter().map(|e| e.json.clone().into()).collect();
    let meta = Arc::new(meta);
    let waiting = crate::round_link::dispute_of(&game);
    let quota = [Quota::new(&game.setup().time_control); 2];
    let phase = if events.is_empty() {
        Phase::Unstarted {
            expires: None,
            held_until: None,
        }
    } else if game.is_over() {
        Phase::Finished
    } else {
        Phase::Playing
    };
    let base = match alive {
        Some(at) if phase.started() => game.now().max(u64::try_from(at).unwrap_or(0)),
        _ => game.now(),
    };
    let epoch = Instant::now();
    // What a state made now says: the first event carries them only if it changes them.
    let offences_held = Some(OffencesKey::of(&game));
    let live = GameTask {
        base,
        phase,
        n: events.len() as u64,
        epoch,
        shared,
        meta: meta.clone(),
        game,
        moves,
        seen,
        stored,
        quota,
        held: Vec::new(),
        window_closes: None,
        flagged: Vec::new(),
        waiting,
        uncertain: None,
        retry_at: None,
        view: None,
        want: Arc::new(Notify::new()),
        refused: HashSet::new(),
        offences_held,
        fence: None,
    };
    Ok(Loaded { live })
}

impl Loaded {
    /// Served under a cluster lease of this epoch (`None`: a single node).
    pub fn fenced(mut self, fence: Option<i64>) -> Loaded {
        self.live.fence = fence;
        self
    }

    /// The game is stored as aborted (it expired before it started).
    pub fn aborted(mut self) -> Loaded {
        self.live.phase = Phase::Aborted { reason: None };
        self
    }

    /// Start the game's task (its clock reads on from now).
    pub fn start(self) -> GameHandle {
        let mut live = self.live;
        live.epoch = Instant::now();
        if let Phase::Unstarted { expires, .. } = &mut live.phase {
            *expires = Some(crate::lifecycle::expiry_instant(
                &live.shared,
                live.meta.created_ms,
            ));
        }
        if live.waiting.is_some() && !live.phase.is_aborted() {
            // Loaded while it waits for the director (after a restart): its evening, if
            // it has one, learns it again.
            crate::round_link::game_waiting(
                &live.shared,
                &live.meta.id,
                live.n,
                live.waiting.clone(),
            );
        }
        let metrics = &live.shared.metrics;
        if live.phase.counts_live() {
            metrics.live_games.inc();
        }
        metrics.loaded_games.inc();
        if live.phase == Phase::Playing {
            live.shared
                .beats
                .register(&live.meta.id, live.epoch, live.base, live.fence);
        }
        let meta = live.meta.clone();
        let (tx, rx) = mpsc::channel(QUEUE);
        let (view_tx, view) = watch::channel(Arc::new(live.view()));
        live.view = Some(view_tx);
        let want = live.want.clone();
        let shared = live.shared.clone();
        shared.spawn(live.run(rx));
        GameHandle {
            meta,
            tx,
            view,
            want,
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

impl GameTask {
    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        while let Some(cmd) = self.next_cmd(&mut rx).await {
            // Boxed: a command's future (an action through its commit) exists only
            // while it runs, not in every idle game's task (issue 34).
            Box::pin(self.handle(cmd)).await;
            if self.phase == Phase::Lost {
                break;
            }
        }
        self.stopped(rx);
    }

    /// The next command, doing meanwhile what falls due: a simultaneity window closing,
    /// a flag falling, a failed commit to settle, a copy of the game to make, the expiry
    /// of a game nobody acted on. `None` when the task stops: every handle is gone, or
    /// the game is unloaded (`crate::lifecycle`).
    async fn next_cmd(&mut self, rx: &mut mpsc::Receiver<Cmd>) -> Option<Cmd> {
        loop {
            let wake = self.next_wake();
            let idle = (self.game.is_over() || self.phase.is_aborted()) && self.held.is_empty();
            tokio::select! {
                cmd = rx.recv() => return cmd,
                _ = sleep_until(wake.map(|w| w.0)) => {
                    match wake {
                        Some((_, true)) => self.close_window().await,
                        _ => self.flag_fell().await,
                    }
                }
                // A failed commit is settled as soon as the store can say.
                _ = sleep_until(self.uncertain.as_ref().map(|u| u.ask_at)) => {
                    if self.resolve().await.is_err()
                        && let Some(u) = &mut self.uncertain
                    {
                        u.ask_at = Instant::now() + commit::RESOLVE_EVERY;
                    }
                }
                // A socket or `GET` wants the game as stored: one copy however many.
                _ = self.want.notified() => self.copy_wanted(),
                // A game nobody acted on expires (`crate::lifecycle`).
                _ = sleep_until(self.phase.expires()) => {
                    if self.expire().await && self.shared.unload(&self.meta.id, rx) {
                        return None;
                    }
                }
                _ = tokio::time::sleep(crate::lifecycle::FINISHED_GRACE), if idle => {
                    if self.shared.unload_idle(&self.meta.id, rx) {
                        return None;
                    }
                }
            }
            if self.phase == Phase::Lost {
                return None;
            }
        }
    }

    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Lost => self.lose(),
            Cmd::State(reply) => {
                let mut state = self.state();
                if let Some(why) = self.abort_why() {
                    crate::lifecycle::mark_aborted(&mut state, &self.shared);
                    state.reason = Some(why);
                }
                let _ = reply.send(state);
            }
            Cmd::Round(c, reply) => {
                let begun = self.round_cmd(c).await;
                let _ = reply.send(begun);
            }
            Cmd::Act(act, reply) => match self.closed().await {
                Some(why) => {
                    let _ = reply.send(self.refuse(act.id, why, None));
                }
                None => self.act(*act, reply).await,
            },
        }
    }

    /// The task stops: a lost game answers what waits in its queue (its senders
    /// reconnect to the game's new server); an unloaded one gives its lease up, so that
    /// any node may serve the game next. Its clock leaves the heartbeat, the game the
    /// counts.
    fn stopped(self, mut rx: mpsc::Receiver<Cmd>) {
        if let Some(epoch) = self.fence {
            if self.phase == Phase::Lost {
                rx.close();
                while let Ok(cmd) = rx.try_recv() {
                    if let Cmd::Act(_, reply) = cmd {
                        let _ = reply.send(Reply::Moved);
                    }
                }
            } else {
                self.shared.seam.give_up(&self.shared, &self.meta.id, epoch);
            }
        }
        self.shared.beats.remove(&self.meta.id);
        if self.phase.counts_live() {
            self.shared.metrics.live_games.dec();
        }
        self.shared.metrics.loaded_games.dec();
    }

    /// In a cluster, whether this task may still act: it holds the game's lease at its
    /// epoch and the node renewed its leases recently enough. A single node always may.
    fn holds(&self) -> bool {
        match self.fence {
            Some(epoch) => self.shared.seam.holds(&self.meta.id, epoch),
            None => true,
        }
    }

    fn refuse(&self, id: Option<String>, reason: String, rule: Option<String>) -> Reply {
        self.shared.metrics.refused.inc();
        Reply::Direct(ServerMsg::Refused { id, reason, rule }.to_text())
    }
}
