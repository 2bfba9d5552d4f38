//! What a game's task shows: the [`View`] published after every commit, the
//! [`GameCopy`] made once a reader wants it, the state and event messages.

use flagfall_game::MoveEntry;
use flagfall_protocol::{Snapshot, StateContext};

use super::*;

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
    pub(super) copy: Option<Arc<GameCopy>>,
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
/// the task makes the stored game from its events instead
/// ([`GameTask::write_serving_copies`]).
pub(super) const COPY_WAIT: Duration = Duration::from_millis(50);

impl GameTask {
    /// What is stored now, to publish: O(1), no copy of the game.
    pub(super) fn view(&self) -> View {
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
    pub(super) fn publish(&self) {
        if let Some(tx) = &self.view {
            tx.send_replace(Arc::new(self.view()));
        }
    }

    /// A reader wants the game as stored ([`GameHandle::copy`]): copy it into the
    /// published view, unless that view has its copy already. Called between commands,
    /// when the game is what is stored (a batch is applied and undone or stored within
    /// one command).
    pub(super) fn copy_wanted(&self) {
        self.publish_copy(self.game.clone());
    }

    /// A reader wants the game as stored while a batch waits for its commit (the game
    /// in memory holds the batch): the stored game is replayed from the events this task
    /// knows are stored (more work than a copy, but the task would otherwise keep the
    /// reader waiting as long as the commit takes). The move list is not brought up to
    /// date before the commit, so it is the stored one.
    pub(super) fn copy_while_committing(&self) {
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
    pub(super) fn publish_copy(&self, game: Game) {
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

    pub(super) fn context(&self) -> StateContext<'_> {
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
    pub(super) fn state(&self) -> State {
        let mut state = State::of(&self.game, self.moves.entries(), self.context());
        for (view, entry) in state.moves.iter_mut().zip(self.moves.entries()) {
            view.san.clone_from(&entry.san);
        }
        state
    }

    /// The state as an update from one whose first `moves_from` moves are current.
    pub(super) fn snapshot(&self, moves_from: usize) -> Snapshot {
        Snapshot::of(&self.game, self.moves.entries(), moves_from, self.context())
    }

    /// The `event` message of stored event `n`: its rulings (found among `rulings`: the
    /// batch's own when it was just stored, so the cost does not grow with the game),
    /// and the state after it.
    pub(super) fn event_msg(
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
}

/// A snapshot as everyone may read it, and, for White then Black, the snapshot as that
/// player's sockets read it when it differs ([`flagfall_protocol::Actions::seen_by`]).
pub(super) fn split_private(snapshot: Snapshot) -> (Snapshot, [Option<Snapshot>; 2]) {
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
pub(super) fn msg_event(msg: &ServerMsg) -> Value {
    match msg {
        ServerMsg::Event { event, .. } => event.clone(),
        _ => Value::Null,
    }
}
