//! One task per live game: it owns the game's [`Game`] and its flag timer, stamps every
//! action with the game's clock (`at`) and the sender's role (`by`), runs it through the
//! arbiter, has the writer commit it, and only then publishes it. Sockets and HTTP
//! handlers talk to it through a [`GameHandle`] (an mpsc channel); no lock is held
//! across an `.await`. After each commit, before the bus carries it, the task publishes
//! the game as stored in a `watch` ([`View`]): a socket's state on connect and the
//! answer to a ping are read from it, without a place in the task's queue.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use flagfall_game::script::{self, Action, Event, Party};
use flagfall_game::{Game, MoveEntry, MoveList, RulingKind};
use flagfall_protocol::{
    Claims, ClientFrame, Mode, OffencesKey, Role, ServerMsg, Snapshot, State, StateContext,
};
use flagfall_store::{NewEvent, StoredEvent};
use serde_json::Value;
use shakmaty::Color;
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::bus::BusMsg;
use crate::lag::Quota;
use crate::writer::{WriteError, WriteReq};
use crate::{ServerError, Shared};

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
    Act(Act, oneshot::Sender<Reply>),
    State(oneshot::Sender<State>),
    /// The game's evening deletes or re-pairs its round (`crate::evening`); the answer
    /// is whether the game has begun.
    Round(RoundCmd, oneshot::Sender<bool>),
    /// This node lost the game's lease (`crate::cluster::leases`): stop serving it.
    Lost,
}

/// What an evening asks of a game of a round it deletes or re-pairs: `Hold` answers
/// whether the game has begun (an event stored, or one waiting) and, when it has not,
/// refuses every action until `Release` (the change was refused or not stored) or
/// `Abort` (the game is stored as aborted in the same transaction as the change): no
/// move can slip in between the evening's check and its commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundCmd {
    Hold,
    Release,
    Abort,
}

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

/// What a game's task last stored, published after every commit and read by anyone
/// without asking the task (docs/protocol.md, "Spectators"): the number of stored
/// events and the game clock (a ping's answer), made in O(1) per commit; the game
/// itself as a [`GameCopy`] once a reader wants it ([`GameHandle::copy`]).
pub struct View {
    /// Stored events.
    pub n: u64,
    pub started: bool,
    /// The game clock reads `base + (now - epoch)` once started.
    pub epoch: Instant,
    pub base: u64,
    /// Why the game is aborted, when it is (`crate::lifecycle`).
    pub aborted: Option<String>,
    /// The game as of this view, once a reader asked for it.
    copy: Option<Arc<GameCopy>>,
}

impl View {
    /// The game's clock now (`at`); 0 before the game started.
    pub fn now(&self) -> u64 {
        if !self.started {
            return 0;
        }
        self.base + self.epoch.elapsed().as_millis() as u64
    }
}

/// A copy of the game as its task stored it (the [`View`] it was made for), with the
/// game clock: what a socket's state on connect and `GET /api/games/{id}` are made from.
pub struct GameCopy {
    pub game: Game,
    pub moves: Vec<MoveEntry>,
    /// Stored events.
    pub n: u64,
    pub started: bool,
    /// The game clock reads `base + (now - epoch)` once started.
    pub epoch: Instant,
    pub base: u64,
    /// Why the game is aborted, when it is (`crate::lifecycle`).
    pub aborted: Option<String>,
    /// The last `state` message made from this copy, and when.
    text: std::sync::Mutex<Option<(Instant, Arc<str>)>>,
}

/// A state as `role` reads it: a player's `take_back` only on that player's sockets
/// ([`flagfall_protocol::Actions::seen_by`]), the director's offences (about 1.5 KB,
/// the largest part of a fresh game's state) only on the director's.
fn seen_by(state: &mut State, role: Role) {
    state.actions.seen_by(role);
    if role != Role::Director {
        state.actions.director.offences = None;
    }
}

/// How long a `state` message made from a view serves the sockets that connect after
/// it: a crowd of spectators costs one state every this often, not one each. The state
/// is as of its `server_now` (its clocks, flags and claims read then), which a client
/// reads as of then, as it reads an event's.
pub const STATE_TEXT_SERVES: Duration = Duration::from_millis(100);

impl GameCopy {
    /// The game's clock now (`at`); 0 before the game started.
    pub fn now(&self) -> u64 {
        if !self.started {
            return 0;
        }
        self.base + self.epoch.elapsed().as_millis() as u64
    }

    /// The state object now, as anyone may read it ([`flagfall_protocol::Actions::seen_by`]): the stored
    /// game, its clocks read now.
    pub fn state(&self, meta: &GameMeta) -> State {
        let mut state = self.full_state(meta);
        seen_by(&mut state, Role::Spectator);
        state
    }

    /// The `state` message for a socket acting as `role`: the shared one
    /// ([`GameCopy::state_text`]) unless this role may read more in it (a player who
    /// may take back, the director with the offences).
    pub fn state_text_for(&self, meta: &GameMeta, role: Role) -> Arc<str> {
        if role != Role::Spectator {
            let mut own = self.full_state(meta);
            seen_by(&mut own, role);
            if own.actions.has_private() || role == Role::Director {
                return ServerMsg::State(Box::new(own)).to_text().into();
            }
        }
        self.state_text(meta)
    }

    /// The state object now, with what only one player may read.
    fn full_state(&self, meta: &GameMeta) -> State {
        let cx = StateContext {
            id: &meta.id,
            setup: &meta.setup,
            mode: meta.mode,
            n: self.n,
            now: self.now(),
            started: self.started,
        };
        let mut state = State::of(&self.game, &self.moves, cx);
        if let Some(reason) = &self.aborted {
            state.aborted = true;
            state.reason = Some(reason.clone());
        }
        state
    }

    /// The `state` message (without `"role"`), made at most [`STATE_TEXT_SERVES`] ago.
    pub fn state_text(&self, meta: &GameMeta) -> Arc<str> {
        let lock = || self.text.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((made, text)) = &*lock()
            && made.elapsed() < STATE_TEXT_SERVES
        {
            return text.clone();
        }
        // Made without the lock held: sockets that need it meanwhile make their own.
        let text: Arc<str> = ServerMsg::State(Box::new(self.state(meta)))
            .to_text()
            .into();
        *lock() = Some((Instant::now(), text.clone()));
        text
    }
}

/// How long a reader who wants the game as stored waits for a commit under way before
/// the task makes the stored game from its events instead ([`Live::commit`]).
const COPY_WAIT: Duration = Duration::from_millis(50);

/// Commands a game task may have queued.
const QUEUE: usize = 256;
/// How often a game with a failed commit asks the store whether it landed.
const RESOLVE_EVERY: Duration = Duration::from_millis(250);

/// What makes two refusals the same: who was refused, for what kind of action, citing
/// which rule. Between two events that change the game, each is stored once.
type RefusalKey = (Role, std::mem::Discriminant<Action>, String);

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

/// A batch whose commit failed: perhaps nothing of it was stored, perhaps all of it (an
/// ambiguous failure, the commit done but reported failed). The game in memory is what
/// is surely stored; before anything else is stored or a retried id is looked up, the
/// store says which it was ([`Live::resolve`]).
struct Uncertain {
    events: Vec<Event>,
    rows: Vec<NewEvent>,
    /// When to ask the store again.
    ask_at: Instant,
}

struct Live {
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
    /// its evening was last told ([`crate::evening::game_waiting`]).
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
    /// refusal again is answered, not stored ([`Live::repeated_refusals`]).
    refused: HashSet<RefusalKey>,
    /// The director's offences as the last published event left them with every client
    /// (an event's update carries them only when they change).
    offences_held: Option<OffencesKey>,
    /// In a cluster, the epoch of the game's lease this task serves it under (the
    /// fencing token every commit carries).
    fence: Option<i64>,
}

/// Where a game is in its life on its task. The states that can occur, and nothing
/// else: an aborted game has no clock and no hold, a hold only ever holds a game nobody
/// has acted on, a lost game stores nothing more. Every change of phase goes through
/// [`Live::set_phase`], which keeps the count of live games (`live_games`: a game counts
/// while it is `Unstarted` or `Playing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nobody has acted on it: its clock has not started.
    Unstarted {
        /// When it expires unplayed (`crate::lifecycle`): `None` until its task starts,
        /// and once the store said it has events after all.
        expires: Option<Instant>,
        /// Held by its evening ([`RoundCmd::Hold`]) until then: actions are refused.
        /// Past it ([`ROUND_HOLD`]: the release was lost), the game is as its stored
        /// row says.
        held_until: Option<Instant>,
    },
    /// Its clock runs from the first action (stored, or on its way to the store).
    Playing,
    /// Over as stored.
    Finished,
    /// Expired unplayed (`reason` `None`: `crate::lifecycle`), or its round of an evening
    /// removed (`reason` says so): actions are refused.
    Aborted { reason: Option<&'static str> },
    /// This node lost the game's lease: the task stops, storing nothing more.
    Lost,
}

impl Phase {
    /// Whether the game's clock has started.
    fn started(self) -> bool {
        matches!(self, Phase::Playing | Phase::Finished)
    }

    /// Whether the game counts among the live games (`live_games`).
    fn counts_live(self) -> bool {
        matches!(self, Phase::Unstarted { .. } | Phase::Playing)
    }

    fn is_aborted(self) -> bool {
        matches!(self, Phase::Aborted { .. })
    }

    /// Whether its evening holds it ([`RoundCmd::Hold`]).
    fn round_held(self) -> bool {
        matches!(
            self,
            Phase::Unstarted {
                held_until: Some(_),
                ..
            }
        )
    }

    /// When it expires unplayed, if it does.
    fn expires(self) -> Option<Instant> {
        match self {
            Phase::Unstarted { expires, .. } => expires,
            _ => None,
        }
    }
}

fn idx(c: Color) -> usize {
    c.fold_wb(0, 1)
}

/// A game replayed from its stored events whose task has not started: loading (parse and
/// replay, the slow part) happens before the map of games is locked, [`Loaded::start`]
/// under it, and a load that lost the race to another is dropped without a trace.
pub struct Loaded {
    live: Live,
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
    let waiting = crate::evening::dispute_of(&game);
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
    let live = Live {
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
            crate::evening::game_waiting(&live.shared, &live.meta.id, live.n, live.waiting.clone());
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
        tokio::spawn(live.run(rx));
        GameHandle {
            meta,
            tx,
            view,
            want,
        }
    }
}

impl Live {
    /// The game's clock now (`at`).
    fn now(&self) -> u64 {
        if !self.phase.started() {
            return 0;
        }
        self.base + self.epoch.elapsed().as_millis() as u64
    }

    /// What is stored now, to publish: O(1), no copy of the game.
    fn view(&self) -> View {
        View {
            n: self.n,
            started: self.phase.started(),
            epoch: self.epoch,
            base: self.base,
            aborted: self.abort_why(),
            copy: None,
        }
    }

    /// Publish what is stored ([`View`]): after its commit, before the bus.
    fn publish(&self) {
        if let Some(tx) = &self.view {
            tx.send_replace(Arc::new(self.view()));
        }
    }

    /// A reader wants the game as stored ([`GameHandle::copy`]): copy it into the
    /// published view, unless that view has its copy already. Called between commands,
    /// when the game is what is stored (a batch is applied and undone or stored within
    /// one command).
    fn copy_wanted(&self) {
        self.publish_copy(self.game.clone());
    }

    /// A reader wants the game as stored while a batch waits for its commit (the game
    /// in memory holds the batch): the stored game is replayed from the events this task
    /// knows are stored (more work than a copy, but the task would otherwise keep the
    /// reader waiting as long as the commit takes). The move list is not brought up to
    /// date before the commit, so it is the stored one.
    fn copy_while_committing(&self) {
        if self
            .view
            .as_ref()
            .is_none_or(|tx| tx.borrow().copy.is_some())
        {
            return;
        }
        if let Some(game) = self.replayed() {
            self.publish_copy(game);
        }
    }

    /// Publish `game`, the game as stored, as the copy of the current view (unless it
    /// has one).
    fn publish_copy(&self, game: Game) {
        let Some(tx) = &self.view else { return };
        if tx.borrow().copy.is_some() {
            return;
        }
        let copy = GameCopy {
            game,
            moves: self.moves.entries().to_vec(),
            n: self.n,
            started: self.phase.started(),
            epoch: self.epoch,
            base: self.base,
            aborted: self.abort_why(),
            text: std::sync::Mutex::new(None),
        };
        let mut view = self.view();
        view.copy = Some(Arc::new(copy));
        tx.send_replace(Arc::new(view));
        self.shared.metrics.game_copies.inc();
    }

    /// Why the game refuses actions when it is aborted.
    fn abort_why(&self) -> Option<String> {
        match self.phase {
            Phase::Aborted { reason } => Some(reason.map_or_else(
                || crate::lifecycle::aborted_reason(&self.shared),
                str::to_string,
            )),
            _ => None,
        }
    }

    /// The one place the phase changes: leaving `Unstarted` or `Playing` for a phase that
    /// is not, the game leaves the count of live games.
    fn set_phase(&mut self, next: Phase) {
        if self.phase.counts_live() && !next.counts_live() {
            self.shared.metrics.live_games.dec();
        }
        self.phase = next;
    }

    /// The game is aborted (`reason` `None`: it expired unplayed), unless it is already
    /// (or lost): its view says so, and every action is refused.
    fn abort(&mut self, reason: Option<&'static str>) {
        if matches!(self.phase, Phase::Aborted { .. } | Phase::Lost) {
            return;
        }
        self.set_phase(Phase::Aborted { reason });
        self.publish();
    }

    /// A batch just stored ended the game.
    fn finish(&mut self) {
        if self.phase.counts_live() {
            self.set_phase(Phase::Finished);
        }
    }

    /// Set (or clear) the evening's hold of a game nobody has acted on; false when the
    /// game is in another phase.
    fn hold_round(&mut self, until: Option<Instant>) -> bool {
        match &mut self.phase {
            Phase::Unstarted { held_until, .. } => {
                *held_until = until;
                true
            }
            _ => false,
        }
    }

    /// Its evening deletes or re-pairs its round ([`RoundCmd`]): whether it has begun.
    async fn round_cmd(&mut self, c: RoundCmd) -> bool {
        match c {
            RoundCmd::Hold => {
                // A failed commit may have landed: settle it first (unsettled: begun).
                if self.resolve().await.is_err() || !self.held.is_empty() {
                    return true;
                }
                // Held if nobody has acted on it; an aborted game has not begun either.
                !self.hold_round(Some(Instant::now() + ROUND_HOLD)) && !self.phase.is_aborted()
            }
            RoundCmd::Release => {
                self.hold_round(None);
                self.phase.started()
            }
            RoundCmd::Abort => {
                self.abort(Some(ROUND_REMOVED));
                false
            }
        }
    }

    /// Whether the evening's hold is over ([`ROUND_HOLD`] passed without its release): the
    /// game is then as its stored row says. `false` (still held) while the row cannot be
    /// read, and on a single node: there the evening's word comes over a channel in the
    /// same process and is not lost, and only a cluster's fenced commit refuses a move
    /// into a game aborted meanwhile (`flagfall_store::Store::append_fenced`).
    async fn round_hold_over(&mut self) -> bool {
        let held_until = match self.phase {
            Phase::Unstarted { held_until, .. } => held_until,
            _ => None,
        };
        if self.shared.cluster.is_none() || held_until.is_some_and(|until| Instant::now() < until) {
            return false;
        }
        match self.shared.store.game(&self.meta.id).await {
            Ok(Some(row)) if row.status == flagfall_store::Status::Aborted => {
                tracing::warn!(game = %self.meta.id, "an evening's hold ended without word: its round's change aborted the game");
                self.round_cmd(RoundCmd::Abort).await;
                true
            }
            Ok(Some(_)) => {
                tracing::warn!(game = %self.meta.id, "an evening's hold ended without word: the game goes on");
                self.hold_round(None);
                true
            }
            Ok(None) | Err(_) => false,
        }
    }

    /// The game clock at `t` (no later than now): 0 before the game started.
    fn at_of(&self, t: Instant) -> u64 {
        if !self.phase.started() {
            return 0;
        }
        self.base + t.saturating_duration_since(self.epoch).as_millis() as u64
    }

    fn instant_of(&self, at: u64) -> Instant {
        self.epoch + Duration::from_millis(at.saturating_sub(self.base))
    }

    fn context(&self) -> StateContext<'_> {
        StateContext {
            id: &self.meta.id,
            setup: &self.meta.setup,
            mode: self.meta.mode,
            n: self.n,
            now: self.now(),
            started: self.phase.started(),
        }
    }

    /// The state for the server's own use (`Cmd::State`: the practice computer, which
    /// notices an illegal move as a player at the board would): every legal move keeps
    /// its SAN, which the wire leaves out over the board while the game goes on.
    fn state(&self) -> State {
        let mut state = State::of(&self.game, self.moves.entries(), self.context());
        for (view, entry) in state.moves.iter_mut().zip(self.moves.entries()) {
            view.san.clone_from(&entry.san);
        }
        state
    }

    /// The state as an update from one whose first `moves_from` moves are current.
    fn snapshot(&self, moves_from: usize) -> Snapshot {
        Snapshot::of(&self.game, self.moves.entries(), moves_from, self.context())
    }

    /// When the task must wake up by itself: a window closing or a flag falling.
    fn next_wake(&self) -> Option<(Instant, bool)> {
        if let Some(closes) = self.window_closes {
            return Some((self.instant_of(closes), true));
        }
        if !self.phase.started() || self.game.is_over() {
            return None;
        }
        let now = self.now().max(self.game.now());
        let (side, t) = self.game.clock().next_flag_fall(self.game.now())?;
        if self.flagged.contains(&(side, t)) {
            return None;
        }
        let at = self.instant_of(t.max(now));
        Some((self.retry_at.map_or(at, |r| r.max(at)), false))
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        loop {
            let wake = self.next_wake();
            let idle = (self.game.is_over() || self.phase.is_aborted()) && self.held.is_empty();
            let cmd = tokio::select! {
                cmd = rx.recv() => cmd,
                _ = sleep_until(wake.map(|w| w.0)) => {
                    match wake {
                        Some((_, true)) => self.close_window().await,
                        _ => self.flag_fell().await,
                    }
                    continue;
                }
                // A failed commit is settled as soon as the store can say.
                _ = sleep_until(self.uncertain.as_ref().map(|u| u.ask_at)) => {
                    if self.resolve().await.is_err()
                        && let Some(u) = &mut self.uncertain
                    {
                        u.ask_at = Instant::now() + RESOLVE_EVERY;
                    }
                    continue;
                }
                // A socket or `GET` wants the game as stored: one copy however many.
                _ = self.want.notified() => {
                    self.copy_wanted();
                    continue;
                }
                // A game nobody acted on expires (`crate::lifecycle`).
                _ = sleep_until(self.phase.expires()) => {
                    if self.expire().await && self.shared.unload(&self.meta.id, &mut rx) {
                        break;
                    }
                    continue;
                }
                _ = tokio::time::sleep(crate::lifecycle::FINISHED_GRACE), if idle => {
                    if self.shared.unload_idle(&self.meta.id, &mut rx) {
                        break;
                    }
                    continue;
                }
            };
            let Some(cmd) = cmd else { break };
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
                    None => self.act(act, reply).await,
                },
            }
            if self.phase == Phase::Lost {
                break;
            }
        }
        if let (Some(cluster), Some(epoch)) = (&self.shared.cluster, self.fence) {
            if self.phase == Phase::Lost {
                // Answer what waits: its senders reconnect to the game's new server.
                rx.close();
                while let Ok(cmd) = rx.try_recv() {
                    if let Cmd::Act(_, reply) = cmd {
                        let _ = reply.send(Reply::Moved);
                    }
                }
            } else if cluster.epoch_of(&self.meta.id) == Some(epoch) {
                // Unloaded: the lease goes, so that any node may serve the game next.
                cluster.forget(&self.meta.id, epoch);
                self.shared
                    .metrics
                    .cluster
                    .owned_games
                    .set(cluster.owned_count() as i64);
                let shared = self.shared.clone();
                let (id, node) = (self.meta.id.clone(), cluster.node.clone());
                tokio::spawn(async move {
                    if let Err(e) = shared.store.lease_release(&id, &node, epoch).await {
                        tracing::warn!(game = %id, error = %e, "lease not released (it expires)");
                    }
                });
            }
        }
        self.shared.beats.remove(&self.meta.id);
        if self.phase.counts_live() {
            self.shared.metrics.live_games.dec();
        }
        self.shared.metrics.loaded_games.dec();
    }

    /// Why actions are refused now, if they are: the game is aborted, or its evening
    /// holds it ([`RoundCmd::Hold`]) and the hold is not over.
    async fn closed(&mut self) -> Option<String> {
        if let Some(why) = self.abort_why() {
            return Some(why);
        }
        if self.phase.round_held() && !self.round_hold_over().await {
            return Some(ROUND_HELD.into());
        }
        // Its hold ended on the stored row: the round's change aborted it.
        self.abort_why()
    }

    /// The expiry timer fired: abort the game if it still has not started. True when
    /// it is aborted now.
    async fn expire(&mut self) -> bool {
        let Phase::Unstarted { held_until, .. } = self.phase else {
            return false;
        };
        let unstarted = |expires| Phase::Unstarted {
            expires,
            held_until,
        };
        if !self.held.is_empty() {
            self.phase = unstarted(None);
            return false;
        }
        match crate::lifecycle::abort(&self.shared, &self.meta.id).await {
            Ok(true) => {
                self.abort(None);
                true
            }
            Ok(false) => {
                self.phase = unstarted(None);
                false
            }
            Err(()) => {
                self.phase = unstarted(Some(Instant::now() + crate::lifecycle::RETRY_ABORT));
                false
            }
        }
    }

    /// In a cluster, whether this task may still act: it holds the game's lease at its
    /// epoch and the node renewed its leases recently enough. A single node always may.
    fn holds(&self) -> bool {
        match (&self.shared.cluster, self.fence) {
            (Some(c), Some(epoch)) => c.holds(&self.meta.id, epoch),
            _ => true,
        }
    }

    /// The lease is lost: answer what is held, tell this node's sockets to reconnect,
    /// and stop (the run loop ends).
    fn lose(&mut self) {
        if self.phase == Phase::Lost {
            return;
        }
        self.set_phase(Phase::Lost);
        tracing::warn!(game = %self.meta.id, epoch = ?self.fence, "lease lost: this node stops serving the game");
        for h in std::mem::take(&mut self.held) {
            for r in h.reply.into_iter().chain(h.also) {
                let _ = r.send(Reply::Moved);
            }
        }
        self.window_closes = None;
        if let Some(epoch) = self.fence {
            self.shared.drop_game(&self.meta.id, epoch);
        }
        // `drop_game` publishes the notice unless the lease was forgotten already.
        self.shared
            .bus
            .publish_local(&self.meta.id, crate::bus::BusMsg::moved());
    }

    fn refuse(&self, id: Option<String>, reason: String, rule: Option<String>) -> Reply {
        self.shared.metrics.refused.inc();
        Reply::Direct(ServerMsg::Refused { id, reason, rule }.to_text())
    }

    /// A player's (or the director's) action: answered at once when it is a retry, when
    /// its sender may not do it, or when nothing can be stored now; otherwise stamped
    /// with the game clock and stored, or held in the open simultaneity window.
    async fn act(&mut self, act: Act, reply: oneshot::Sender<Reply>) {
        let Act {
            role,
            id,
            lag_ms,
            mut action,
            san,
            rtt_ms,
            received,
        } = act;
        if !self.holds() {
            self.lose();
            let _ = reply.send(Reply::Moved);
            return;
        }
        // A failed commit may have landed after all: settle it before looking up ids.
        if let Err(e) = self.resolve().await {
            let msg = ServerMsg::Error {
                id,
                message: format!("not stored, try again: {e}"),
            };
            let _ = reply.send(Reply::Direct(msg.to_text()));
            return;
        }
        let Some(reply) = self.answer_retry(role, id.as_deref(), reply) else {
            return;
        };
        if let Some(text) = san {
            match self.typed_move(role, &text, &action) {
                Ok(typed) => action = typed,
                Err(reason) => {
                    let _ = reply.send(self.refuse(id, reason, None));
                    return;
                }
            }
        }
        let party = match self.allowed(role, &mut action) {
            Ok(party) => party,
            Err((reason, rule)) => {
                let _ = reply.send(self.refuse(id, reason, rule));
                return;
            }
        };
        self.start_clock();
        let event = self.stamp(action, party, received, lag_ms, rtt_ms);
        if Game::opens_window(&event)
            && self
                .held
                .iter()
                .any(|h| h.role == Some(role) && h.event.action == event.action)
        {
            // Claimed again while the same claim waits: it would only hold the window.
            let text = "the same claim waits for its simultaneity window to close".into();
            let _ = reply.send(self.refuse(id, text, None));
            return;
        }
        let held = Held {
            event,
            role: Some(role),
            id,
            reply: Some(reply),
            also: Vec::new(),
        };
        if let Some(held) = self.hold(held) {
            self.commit(vec![held]).await;
        }
    }

    /// A retried `id` is answered here (with the event it made, again, or with the held
    /// action it repeats once that is decided): `None`. A new action gives `reply` back.
    fn answer_retry(
        &mut self,
        role: Role,
        id: Option<&str>,
        reply: oneshot::Sender<Reply>,
    ) -> Option<oneshot::Sender<Reply>> {
        let Some(i) = id else {
            return Some(reply);
        };
        // A retry of an action held in the simultaneity window: answered with it.
        if let Some(h) = self
            .held
            .iter_mut()
            .find(|h| h.role == Some(role) && h.id.as_deref() == Some(i))
        {
            h.also.push(reply);
            return None;
        }
        // A retried id: the event it made, again, to this sender only.
        let Some(&n) = self.seen.get(&(role, i.to_string())) else {
            return Some(reply);
        };
        // The whole move list: this sender's view may be older than event n - 1.
        let snapshot = self.snapshot(0);
        let event = self
            .stored
            .get(n as usize - 1)
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null);
        let msg = self.event_msg(
            n,
            Some(i.to_string()),
            event,
            &snapshot,
            self.game.rulings(),
        );
        let _ = reply.send(Reply::Direct(msg.to_text()));
        None
    }

    /// The move a player typed in SAN (`text`), with the press `placeholder` carries, or
    /// why it names no move of theirs (docs/protocol.md).
    fn typed_move(&self, role: Role, text: &str, placeholder: &Action) -> Result<Action, String> {
        let Some(colour) = role.party().and_then(|p| p.color()) else {
            return Err("only a player types a move".into());
        };
        let press = matches!(placeholder, Action::Move { press: true, .. });
        let mv = flagfall_protocol::resolve_san(&self.game, colour, text)?;
        Ok(Action::Move { mv, press })
    }

    /// Whether `role` may send `action` on this game: the party it acts as, or the
    /// reason and rule of the refusal. Online, a move is made to press the clock.
    fn allowed(&self, role: Role, action: &mut Action) -> Result<Party, (String, Option<String>)> {
        let Some(party) = role.party() else {
            return Err((
                "spectators cannot act on a game (uscf-2020 13)".into(),
                None,
            ));
        };
        let director_rule = self.game.ruleset().director.rule.clone();
        if action.is_director_action() && party != Party::Director {
            let text = format!("only the director may do that, not {}", role.as_str());
            return Err((text, Some(director_rule)));
        }
        if party == Party::Director && !action.is_director_action() {
            let text = "the director does not move, claim or offer for a player".to_string();
            return Err((text, Some(director_rule)));
        }
        if self.meta.mode == Mode::Online {
            self.online(party, action).map_err(|text| (text, None))?;
        }
        if matches!(action, Action::Offer)
            && party.color().is_some()
            && self.game.draw_offer() == party.color()
        {
            // Offered again while the offer stands: nothing would change.
            let rule = self.game.ruleset().draws.agreement_rule.clone();
            return Err((
                "your draw offer stands until it is answered".into(),
                Some(rule),
            ));
        }
        Ok(party)
    }

    /// What online play allows: legal moves of the side to move only (each presses the
    /// clock), no take back, no press without a move. A move out of turn is refused here,
    /// not stored, like an illegal one (issue 32 item 7: it reached the arbiter, whose
    /// refusal was stored).
    fn online(&self, party: Party, action: &mut Action) -> Result<(), String> {
        match action {
            Action::Move { mv, press } => {
                let turn = self.game.position().turn();
                if let Some(c) = party.color().filter(|c| *c != turn)
                    && !self.game.is_over()
                {
                    return Err(format!(
                        "it is not {}'s turn (online play takes moves of the side to move only)",
                        flagfall_core::colour::name(c)
                    ));
                }
                if !self.game.is_over() && !self.game.is_legal_move(mv) {
                    return Err(format!(
                        "{mv} is not a legal move (online play takes legal moves only)"
                    ));
                }
                *press = true;
                Ok(())
            }
            Action::Retract => Err("online play has no moves to take back".into()),
            Action::Press => {
                Err("online play has no clock to press without a move (a move presses it)".into())
            }
            _ => Ok(()),
        }
    }

    /// The game's clock starts with its first action.
    fn start_clock(&mut self) {
        if let Phase::Unstarted { .. } = self.phase {
            self.set_phase(Phase::Playing);
            self.epoch = Instant::now();
            self.base = 0;
            self.shared
                .beats
                .register(&self.meta.id, self.epoch, 0, self.fence);
            self.publish();
        }
    }

    /// The event of `action` by `party`, received at `received`, with the lag credit of
    /// a press by the player whose clock runs ([`crate::lag`]). Its `at` is when the
    /// server received it (no earlier than the last event): a player is not charged for
    /// what waited in the queue before it, the opponent's junk included.
    fn stamp(
        &mut self,
        action: Action,
        party: Party,
        received: Instant,
        lag_ms: Option<u64>,
        rtt_ms: Option<u64>,
    ) -> Event {
        let at = self.at_of(received).max(self.game.now());
        let mut credit = 0;
        if action.presses()
            && let Some(c) = party.color()
            && self.game.clock().running() == Some(c)
        {
            credit = self.quota[idx(c)].press(lag_ms, rtt_ms);
            if credit > 0 {
                self.shared.metrics.lag_credit_ms.inc_by(credit);
                self.shared.metrics.lag_credits.inc();
            }
        }
        ClientFrame::event(action, at, party, credit)
    }

    /// Hold `held` while a simultaneity window is open or when it opens one (decided
    /// when the window closes, docs/protocol.md); give it back to commit at once.
    fn hold(&mut self, held: Held) -> Option<Held> {
        let opens = !self.game.is_over() && Game::opens_window(&held.event);
        if self.window_closes.is_none() && !opens {
            return Some(held);
        }
        let closes = held.event.at + self.game.setup().simultaneous_ms + 1;
        self.window_closes = Some(match self.window_closes {
            None => closes,
            Some(c) if Game::opens_window(&held.event) => c.max(closes),
            Some(c) => c,
        });
        self.held.push(held);
        None
    }

    async fn close_window(&mut self) {
        self.window_closes = None;
        let held = std::mem::take(&mut self.held);
        if !held.is_empty() {
            self.commit(held).await;
        }
    }

    async fn flag_fell(&mut self) {
        if !self.holds() {
            self.lose();
            return;
        }
        let Some((side, t)) = self.game.clock().next_flag_fall(self.game.now()) else {
            return;
        };
        if self.now() < t {
            return;
        }
        self.flagged.push((side, t));
        self.shared.metrics.flags.inc();
        let at = self.now().max(t);
        let claims_of =
            |c: Color| flagfall_protocol::claim_names(&self.game, c, at, self.meta.mode);
        let msg = ServerMsg::Flag {
            color: side.into(),
            claims: Claims {
                white: claims_of(Color::White),
                black: claims_of(Color::Black),
            },
        };
        self.shared
            .bus
            .publish(&self.meta.id, BusMsg::public(None, msg.to_text().into()));
        if self.game.setup().auto_flag {
            let at = self.now().max(t);
            let end = Event {
                line: 0,
                at,
                by: None,
                action: Action::End,
                lag_ms: 0,
            };
            let held = Held {
                event: end,
                role: None,
                id: None,
                reply: None,
                also: Vec::new(),
            };
            if self.window_closes.is_some() {
                self.held.push(held);
            } else {
                self.commit(vec![held]).await;
            }
        }
    }

    /// Apply, store, and only after the commit publish and answer. A failed commit
    /// leaves the game as it was: rebuilt from the events this task knows are stored,
    /// never from a reread of the database (which fails too when the database is down).
    async fn commit(&mut self, held: Vec<Held>) {
        if !self.holds() {
            self.held.extend(held);
            self.lose();
            return;
        }
        if let Err(e) = self.resolve().await {
            self.not_stored(held, &e);
            return;
        }
        let was_over = self.game.is_over();
        let rulings_before = self.game.rulings().len();
        // The game as stored, kept only when the batch may hold a repeated refusal
        // (which is undone): a copy of the game costs O(moves), and an ordinary move
        // never needs one.
        let before = self.may_repeat(&held).then(|| self.game.clone());
        let (mut events, mut rows) = self.apply(&held);
        let repeats = self.repeated_refusals(&held, rulings_before);
        let mut held = held;
        if repeats.iter().any(Option::is_some) {
            // The repeats are answered, not stored: the game goes back to what is
            // stored and the rest of the batch, if any, is applied again without them
            // (a refusal changed nothing the others depend on).
            self.undo(before);
            let mut keep = Vec::new();
            for (h, repeat) in held.into_iter().zip(repeats) {
                match repeat {
                    Some((reason, rule)) => {
                        for r in h.reply.into_iter().chain(h.also) {
                            let _ = r.send(self.refuse(
                                h.id.clone(),
                                reason.clone(),
                                Some(rule.clone()),
                            ));
                        }
                    }
                    None => keep.push(h),
                }
            }
            if keep.is_empty() {
                return;
            }
            held = keep;
            (events, rows) = self.apply(&held);
        }
        // Readers who want the game as stored meanwhile are served from what is stored.
        // A reader who wants the game as stored while the commit runs is served after
        // it (a plain copy of the new view) when it lands within [`COPY_WAIT`], else
        // from the stored events (a database that keeps the task waiting does not
        // keep the reader waiting with it).
        let (written, pending) = {
            let write = self.write(rows.clone());
            tokio::pin!(write);
            let mut replay_at: Option<Instant> = None;
            loop {
                tokio::select! {
                    r = &mut write => break (r, replay_at.is_some()),
                    _ = self.want.notified(), if replay_at.is_none() => {
                        replay_at = Some(Instant::now() + COPY_WAIT);
                    }
                    _ = sleep_until(replay_at) => {
                        self.copy_while_committing();
                        replay_at = None;
                    }
                }
            }
        };
        if pending {
            // Served by the task's loop once this commit is published (or not).
            self.want.notify_one();
        }
        if let Err(WriteError::Fenced) = written {
            // Another node took the game over: nothing of this batch was stored.
            self.held.extend(held);
            self.lose();
            return;
        }
        if let Err(e) = written {
            tracing::error!(game = %self.meta.id, error = %e, "events not stored");
            self.write_failed(held, events, rows).await;
            return;
        }
        self.retry_at = None;
        self.stored_now(held, rows, rulings_before, was_over);
    }

    /// Apply `held` to the game: its events, and the rows that store them.
    fn apply(&mut self, held: &[Held]) -> (Vec<Event>, Vec<NewEvent>) {
        let first = self.n + 1;
        let was_over = self.game.is_over();
        let events: Vec<Event> = held.iter().map(|h| h.event.clone()).collect();
        self.game.apply_batch(&events, first as usize);
        let over = self.game.is_over();
        let last = held.len() - 1;
        let rows = held
            .iter()
            .zip(&events)
            .enumerate()
            .map(|(i, (h, e))| NewEvent {
                game_id: self.meta.id.clone(),
                n: (first as usize + i) as i64,
                json: e.to_json().to_string(),
                by_role: h.role,
                client_id: h.id.clone(),
                finished: (i == last && over && !was_over).then(|| self.game.verdict().0),
            })
            .collect();
        (events, rows)
    }

    /// For each action of `held`, just applied: its answer when it was only refused and
    /// repeats a refusal stored since the game last changed, or one earlier in this batch
    /// (same sender, kind of action and rule); such a repeat is not stored. A refusal is
    /// a ruling of kind `refused`, or a rejected claim that changed no one's time. So junk
    /// grows a game by at most one event per sender, kind of action and rule between two
    /// events that change it, however the actions were batched.
    fn repeated_refusals(
        &self,
        held: &[Held],
        rulings_before: usize,
    ) -> Vec<Option<(String, String)>> {
        let first = self.n as usize + 1;
        let new = &self.game.rulings()[rulings_before..];
        let mut in_batch = HashSet::new();
        held.iter()
            .enumerate()
            .map(|(i, h)| {
                let (key, ruling) = refusal_key(h, new, first + i)?;
                let repeat = self.refused.contains(&key) || in_batch.contains(&key);
                in_batch.insert(key);
                repeat.then_some(ruling)
            })
            .collect()
    }

    /// Whether `held` may hold a refusal that [`Live::repeated_refusals`] finds
    /// repeated: an action whose sender and kind of action match a refusal stored
    /// since the game last changed, or another action of the same batch. Only then is
    /// the game copied before the batch, to be undone.
    fn may_repeat(&self, held: &[Held]) -> bool {
        let mut in_batch = HashSet::new();
        held.iter().any(|h| {
            let Some(role) = h.role else { return false };
            let kind = std::mem::discriminant(&h.event.action);
            self.refused
                .iter()
                .any(|(r, k, _)| *r == role && *k == kind)
                || !in_batch.insert((role, kind))
        })
    }

    /// Put the game back as it was stored before a batch that is not stored was
    /// applied to it: `before`, the copy [`Live::commit`] kept, or else (never expected:
    /// [`Live::may_repeat`] keeps one whenever a refusal may repeat) a rebuild from the
    /// stored events.
    fn undo(&mut self, before: Option<Game>) {
        match before {
            Some(game) => self.game = game,
            None => {
                tracing::error!(game = %self.meta.id, "a repeated refusal without a copy of the game: rebuilt from its events");
                self.rebuild();
            }
        }
    }

    /// Have the writer commit `rows`.
    async fn write(&self, rows: Vec<NewEvent>) -> Result<(), WriteError> {
        let (done_tx, done_rx) = oneshot::channel();
        let req = WriteReq {
            events: rows,
            done: done_tx,
            fence: self.fence,
        };
        if self.shared.writer.send(req).await.is_err() {
            return Err(WriteError::Stopped);
        }
        done_rx.await.unwrap_or(Err(WriteError::Stopped))
    }

    /// The commit of `held` (applied as `events`, `rows`) failed: the game goes back to
    /// what is surely stored, and the store is asked at once whether the commit landed
    /// after all (an ambiguous failure); the senders are answered with what it holds.
    async fn write_failed(&mut self, held: Vec<Held>, events: Vec<Event>, rows: Vec<NewEvent>) {
        self.rebuild();
        self.uncertain = Some(Uncertain {
            events,
            rows,
            ask_at: Instant::now() + RESOLVE_EVERY,
        });
        match self.landed().await {
            Ok(true) => {
                if let Some(u) = self.uncertain.take() {
                    self.adopt(u, held);
                }
            }
            Ok(false) => {
                self.uncertain = None;
                self.not_stored(held, "the database did not take it");
            }
            Err(_) => self.not_stored(held, "the database did not take it"),
        }
    }

    /// Answer every sender of `held` that it was not stored; the server's own action
    /// (a flag's end) is tried again in a second.
    fn not_stored(&mut self, held: Vec<Held>, why: &str) {
        for h in held {
            if h.role.is_none() {
                self.flagged.clear();
                self.retry_at = Some(Instant::now() + Duration::from_secs(1));
            }
            for r in h.reply.into_iter().chain(h.also) {
                let msg = ServerMsg::Error {
                    id: h.id.clone(),
                    message: format!("not stored, try again: {why}"),
                };
                let _ = r.send(Reply::Direct(msg.to_text()));
            }
        }
    }

    /// `held`, applied to the game as `rows`, is stored: count it, publish it, answer.
    fn stored_now(
        &mut self,
        held: Vec<Held>,
        rows: Vec<NewEvent>,
        rulings_before: usize,
        was_over: bool,
    ) {
        let first = self.n + 1;
        let over = self.game.is_over();
        self.n += held.len() as u64;
        let jsons: Vec<Value> = rows
            .iter()
            .map(|r| serde_json::from_str(&r.json).unwrap_or(Value::Null))
            .collect();
        self.stored
            .extend(rows.into_iter().map(|r| r.json.into_boxed_str()));
        let moves_from = self.moves.update(&self.game);
        if over && !was_over {
            self.shared.beats.remove(&self.meta.id);
            // A game of a blitz evening: its result goes into the evening.
            crate::evening::game_over(&self.shared, &self.meta.id);
        }
        let waiting = crate::evening::dispute_of(&self.game);
        if waiting != self.waiting {
            // A game of a blitz evening waits for the director, or no longer does: its
            // evening's console shows it at once.
            self.waiting = waiting.clone();
            crate::evening::game_waiting(&self.shared, &self.meta.id, self.n, waiting);
        }
        if over && !was_over {
            self.finish();
        }
        let mut snapshot = self.snapshot(moves_from);
        snapshot
            .update
            .leave_out_unchanged(OffencesKey::of(&self.game), &mut self.offences_held);
        // What everyone reads, and what only White's or Black's sockets read
        // (`Actions::seen_by`: whether an unpressed move may be taken back tells whether
        // it is legal).
        let (public, private) = split_private(snapshot);
        // Commit, then the view, then the bus: a socket that subscribed before it read
        // the view gets every later event, and skips those the view holds.
        self.publish();
        let new_rulings = &self.game.rulings()[rulings_before..];
        for (i, h) in held.iter().enumerate() {
            match refusal_key(h, new_rulings, first as usize + i) {
                Some((key, _)) => {
                    self.refused.insert(key);
                }
                None => self.refused.clear(),
            }
        }
        let new_rulings = &self.game.rulings()[rulings_before..];
        for (i, (h, event)) in held.into_iter().zip(jsons).enumerate() {
            let n = first + i as u64;
            if let (Some(role), Some(id)) = (h.role, h.id.clone()) {
                self.seen.insert((role, id), n);
            }
            let msg = self.event_msg(n, h.id.clone(), event, &public, new_rulings);
            let mut out = BusMsg::public(Some(n), msg.to_text().into());
            for (i, own) in private.iter().enumerate() {
                if let Some(own) = own {
                    let msg = self.event_msg(n, h.id.clone(), msg_event(&msg), own, new_rulings);
                    out.private[i] = Some(msg.to_text().into());
                }
            }
            self.shared.bus.publish(&self.meta.id, out);
            let refusal = new_rulings
                .iter()
                .find(|r| r.event == n as usize && r.kind == RulingKind::Refused);
            for r in h.reply.into_iter().chain(h.also) {
                let answer = match refusal {
                    Some(ruling) => self.refuse(
                        h.id.clone(),
                        ruling.ruling.clone(),
                        Some(ruling.rule.clone()),
                    ),
                    None => Reply::Stored(n),
                };
                let _ = r.send(answer);
            }
        }
    }

    /// Settle the last failed commit: ask the store how many events it holds. As many as
    /// this task knows: nothing of it was stored. That many more, the same: it was
    /// stored after all (an ambiguous failure), so it is applied, published, and its
    /// ids are seen, so a retry gets it again instead of storing it twice.
    async fn resolve(&mut self) -> Result<(), String> {
        match self.landed().await? {
            true => {
                if let Some(u) = self.uncertain.take() {
                    let held = u
                        .events
                        .iter()
                        .zip(&u.rows)
                        .map(|(event, r)| Held {
                            event: event.clone(),
                            role: r.by_role,
                            id: r.client_id.clone(),
                            reply: None,
                            also: Vec::new(),
                        })
                        .collect();
                    self.adopt(u, held);
                }
            }
            false => self.uncertain = None,
        }
        Ok(())
    }

    /// Whether the uncertain batch is stored (false also when there is none).
    async fn landed(&mut self) -> Result<bool, String> {
        let Some(u) = &self.uncertain else {
            return Ok(false);
        };
        let stored = self.shared.store.events(&self.meta.id).await.map_err(|e| {
            tracing::error!(game = %self.meta.id, error = %e, "cannot check a failed commit");
            "the database cannot be read".to_string()
        })?;
        let n = self.n as usize;
        if stored.len() == n {
            return Ok(false);
        }
        let landed = stored.len() == n + u.rows.len()
            && stored[n..]
                .iter()
                .zip(&u.rows)
                .all(|(s, r)| s.json == r.json);
        if !landed {
            tracing::error!(game = %self.meta.id, stored = stored.len(), known = n, "the store holds events this task did not write");
            return Err("the stored game differs from the live one".into());
        }
        Ok(true)
    }

    /// The failed batch `u` is stored after all: apply it, publish it, answer `held`.
    fn adopt(&mut self, u: Uncertain, held: Vec<Held>) {
        let was_over = self.game.is_over();
        let rulings_before = self.game.rulings().len();
        self.game.apply_batch(&u.events, self.n as usize + 1);
        self.retry_at = None;
        self.stored_now(held, u.rows, rulings_before, was_over);
    }

    /// The `event` message of stored event `n`: its rulings (found among `rulings`: the
    /// batch's own when it was just stored, so the cost does not grow with the game),
    /// and the state after it.
    fn event_msg(
        &self,
        n: u64,
        id: Option<String>,
        event: Value,
        snapshot: &Snapshot,
        rulings: &[flagfall_game::Ruling],
    ) -> ServerMsg {
        let rulings = rulings
            .iter()
            .filter(|r| r.event as u64 == n)
            .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
            .collect();
        ServerMsg::Event {
            n,
            event,
            rulings,
            clock: snapshot.clock,
            result: snapshot.result.clone(),
            id,
            update: Box::new(snapshot.update.clone()),
        }
    }

    /// Rebuild the game from the events this task knows are stored (in memory), after
    /// a failed commit applied a batch that may not be stored.
    fn rebuild(&mut self) {
        if let Some(game) = self.replayed() {
            self.game = game;
            self.moves = MoveList::default();
            self.moves.update(&self.game);
        }
    }

    /// The game replayed from the events this task knows are stored (in memory).
    fn replayed(&self) -> Option<Game> {
        let mut text = self.meta.setup_line.clone();
        text.push('\n');
        for e in &self.stored {
            text.push_str(e);
            text.push('\n');
        }
        match script::parse(&text) {
            Ok(parsed) => Some(flagfall_game::replay(&parsed).game),
            Err(e) => {
                tracing::error!(game = %self.meta.id, error = %e, "cannot rebuild the game from its own events");
                None
            }
        }
    }
}

/// When event `n` (the action of `h`) was only refused (its rulings, among `rulings`,
/// all refusals: kind `refused`, or a rejected claim that changed no one's time): what
/// makes it the same as another refusal, and the first refusal's text and rule.
fn refusal_key(
    h: &Held,
    rulings: &[flagfall_game::Ruling],
    n: usize,
) -> Option<(RefusalKey, (String, String))> {
    let role = h.role?;
    let mut mine = rulings.iter().filter(|r| r.event == n).peekable();
    let first = (*mine.peek()?).clone();
    let only_refused = mine.all(|r| {
        r.kind == RulingKind::Refused || (r.kind == RulingKind::ClaimRejected && r.time.is_none())
    });
    if !only_refused {
        return None;
    }
    let key = (
        role,
        std::mem::discriminant(&h.event.action),
        first.rule.clone(),
    );
    Some((key, (first.ruling, first.rule)))
}

/// A snapshot as everyone may read it, and, for White then Black, the snapshot as that
/// player's sockets read it when it differs ([`flagfall_protocol::Actions::seen_by`]).
fn split_private(snapshot: Snapshot) -> (Snapshot, [Option<Snapshot>; 2]) {
    if !snapshot.update.actions.has_private() {
        return (snapshot, [None, None]);
    }
    let seen = |role: Role| {
        let mut s = snapshot.clone();
        s.update.actions.seen_by(role);
        s
    };
    let private = [Role::White, Role::Black].map(|role| {
        let own = seen(role);
        own.update.actions.has_private().then_some(own)
    });
    (seen(Role::Spectator), private)
}

/// The event object of an `event` message.
fn msg_event(msg: &ServerMsg) -> Value {
    match msg {
        ServerMsg::Event { event, .. } => event.clone(),
        _ => Value::Null,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}
