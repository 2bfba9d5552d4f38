//! One task per live game: it owns the game's [`Game`] and its flag timer, stamps every
//! action with the game's clock (`at`) and the sender's role (`by`), runs it through the
//! arbiter, has the writer commit it, and only then publishes it. Sockets and HTTP
//! handlers talk to it through a [`GameHandle`] (an mpsc channel); no lock is held
//! across an `.await`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use flagfall_game::script::{self, Action, Event, Party};
use flagfall_game::{Game, MoveList, RulingKind};
use flagfall_protocol::{
    Claims, ClientFrame, Mode, Role, ServerMsg, Snapshot, State, StateContext,
};
use flagfall_store::{NewEvent, StoredEvent};
use serde_json::Value;
use shakmaty::Color;
use tokio::sync::{mpsc, oneshot};
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
}

/// An action from a socket, already parsed.
#[derive(Debug)]
pub struct Act {
    pub role: Role,
    pub id: Option<String>,
    pub lag_ms: Option<u64>,
    pub action: Action,
    /// The round trip the server last measured on this socket: its own WebSocket ping
    /// to the pong that answered it ([`crate::lag::Pings`]).
    pub rtt_ms: Option<u64>,
}

/// The direct answer to the sender of an action. Accepted events reach the sender, as
/// everyone, through the bus; this carries refusals, errors and retried ids.
#[derive(Debug)]
pub enum Reply {
    /// Stored and published as event `n`.
    Stored(u64),
    /// An answer for this sender only (refused, error, or a retried id's event again).
    Direct(String),
}

pub enum Cmd {
    Act(Act, oneshot::Sender<Reply>),
    State(oneshot::Sender<State>),
    Now(oneshot::Sender<u64>),
}

/// A handle to a game's task.
#[derive(Clone)]
pub struct GameHandle {
    pub meta: Arc<GameMeta>,
    pub tx: mpsc::Sender<Cmd>,
}

/// Commands a game task may have queued.
const QUEUE: usize = 256;
/// How often a game with a failed commit asks the store whether it landed.
const RESOLVE_EVERY: Duration = Duration::from_millis(250);
/// How long a finished game's task stays loaded without a command.
const FINISHED_IDLE: Duration = Duration::from_secs(30);

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
    started: bool,
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
    was_live: bool,
    /// The last failed commit, until the store says whether it landed.
    uncertain: Option<Uncertain>,
    /// After a failed commit of the server's own action, when to try it again.
    retry_at: Option<Instant>,
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
    let was_live = !game.is_over();
    let quota = [Quota::new(&game.setup().time_control); 2];
    let started = !events.is_empty();
    let base = match alive {
        Some(at) if started => game.now().max(u64::try_from(at).unwrap_or(0)),
        _ => game.now(),
    };
    let epoch = Instant::now();
    let live = Live {
        base,
        started,
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
        was_live,
        uncertain: None,
        retry_at: None,
    };
    Ok(Loaded { live })
}

impl Loaded {
    /// Start the game's task (its clock reads on from now).
    pub fn start(self) -> GameHandle {
        let mut live = self.live;
        live.epoch = Instant::now();
        let metrics = &live.shared.metrics;
        if live.was_live {
            metrics.live_games.inc();
        }
        metrics.loaded_games.inc();
        if live.started && !live.game.is_over() {
            live.shared
                .beats
                .register(&live.meta.id, live.epoch, live.base);
        }
        let meta = live.meta.clone();
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(live.run(rx));
        GameHandle { meta, tx }
    }
}

impl Live {
    /// The game's clock now (`at`).
    fn now(&self) -> u64 {
        if !self.started {
            return 0;
        }
        self.base + self.epoch.elapsed().as_millis() as u64
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
            started: self.started,
        }
    }

    fn state(&self) -> State {
        State::of(&self.game, self.moves.entries(), self.context())
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
        if !self.started || self.game.is_over() {
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
            let idle = self.game.is_over() && self.held.is_empty();
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
                _ = tokio::time::sleep(FINISHED_IDLE), if idle => {
                    if self.shared.unload(&self.meta.id, &mut rx) {
                        break;
                    }
                    continue;
                }
            };
            let Some(cmd) = cmd else { break };
            match cmd {
                Cmd::State(reply) => {
                    let _ = reply.send(self.state());
                }
                Cmd::Now(reply) => {
                    let _ = reply.send(self.now());
                }
                Cmd::Act(act, reply) => self.act(act, reply).await,
            }
        }
        self.shared.beats.remove(&self.meta.id);
        if self.was_live && !self.game.is_over() {
            self.shared.metrics.live_games.dec();
        }
        self.shared.metrics.loaded_games.dec();
    }

    fn refuse(&self, id: Option<String>, reason: String, rule: Option<String>) -> Reply {
        self.shared.metrics.refused.inc();
        Reply::Direct(ServerMsg::Refused { id, reason, rule }.to_text())
    }

    async fn act(&mut self, act: Act, reply: oneshot::Sender<Reply>) {
        let Act {
            role,
            id,
            lag_ms,
            mut action,
            rtt_ms,
        } = act;
        // A failed commit may have landed after all: settle it before looking up ids.
        if let Err(e) = self.resolve().await {
            let msg = ServerMsg::Error {
                id,
                message: format!("not stored, try again: {e}"),
            };
            let _ = reply.send(Reply::Direct(msg.to_text()));
            return;
        }
        // A retry of an action held in the simultaneity window: answered with it.
        if let Some(i) = &id
            && let Some(h) = self
                .held
                .iter_mut()
                .find(|h| h.role == Some(role) && h.id.as_deref() == Some(i.as_str()))
        {
            h.also.push(reply);
            return;
        }
        // A retried id: the event it made, again, to this sender only.
        if let Some(i) = &id
            && let Some(&n) = self.seen.get(&(role, i.clone()))
        {
            // The whole move list: this sender's view may be older than event n - 1.
            let snapshot = self.snapshot(0);
            let event = self
                .stored
                .get(n as usize - 1)
                .and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or(Value::Null);
            let msg = self.event_msg(n, id.clone(), event, &snapshot);
            let _ = reply.send(Reply::Direct(msg.to_text()));
            return;
        }
        let Some(party) = role.party() else {
            let _ = reply.send(self.refuse(
                id,
                "spectators cannot act on a game (uscf-2020 13)".into(),
                None,
            ));
            return;
        };
        let director_rule = self.game.ruleset().director.rule.clone();
        if action.is_director_action() && party != Party::Director {
            let text = format!("only the director may do that, not {}", role.as_str());
            let _ = reply.send(self.refuse(id, text, Some(director_rule)));
            return;
        }
        if party == Party::Director && !action.is_director_action() {
            let text = "the director does not move, claim or offer for a player".to_string();
            let _ = reply.send(self.refuse(id, text, Some(director_rule)));
            return;
        }
        if self.meta.mode == Mode::Online {
            match &mut action {
                Action::Move { mv, press } => {
                    if !self.game.is_over()
                        && !self.game.is_legal_move(mv)
                        && party.color() == Some(self.game.position().turn())
                    {
                        let text = format!(
                            "{mv} is not a legal move (online play takes legal moves only)"
                        );
                        let _ = reply.send(self.refuse(id, text, None));
                        return;
                    }
                    *press = true;
                }
                Action::Retract => {
                    let _ = reply.send(self.refuse(
                        id,
                        "online play has no moves to take back".into(),
                        None,
                    ));
                    return;
                }
                Action::Press => {
                    let _ = reply.send(
                        self.refuse(
                            id,
                            "online play has no clock to press without a move (a move presses it)"
                                .into(),
                            None,
                        ),
                    );
                    return;
                }
                _ => {}
            }
        }
        if !self.started {
            self.started = true;
            self.epoch = Instant::now();
            self.base = 0;
            self.shared.beats.register(&self.meta.id, self.epoch, 0);
        }
        let at = self.now().max(self.game.now());
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
        let event = ClientFrame::event(action, at, party, credit);
        let held = Held {
            event,
            role: Some(role),
            id,
            reply: Some(reply),
            also: Vec::new(),
        };
        if self.window_closes.is_some() || (!self.game.is_over() && Game::opens_window(&held.event))
        {
            // Decided when the simultaneity window closes (docs/protocol.md).
            let closes = held.event.at + self.game.setup().simultaneous_ms + 1;
            self.window_closes = Some(self.window_closes.map_or(closes, |c| {
                if Game::opens_window(&held.event) {
                    c.max(closes)
                } else {
                    c
                }
            }));
            self.held.push(held);
            return;
        }
        self.commit(vec![held]).await;
    }

    async fn close_window(&mut self) {
        self.window_closes = None;
        let held = std::mem::take(&mut self.held);
        if !held.is_empty() {
            self.commit(held).await;
        }
    }

    async fn flag_fell(&mut self) {
        let Some((side, t)) = self.game.clock().next_flag_fall(self.game.now()) else {
            return;
        };
        if self.now() < t {
            return;
        }
        self.flagged.push((side, t));
        self.shared.metrics.flags.inc();
        let at = self.now().max(t);
        let claims_of = |c: Color| {
            self.game
                .claims_for(c, at)
                .into_iter()
                .map(|k| k.name().to_string())
                .collect()
        };
        let msg = ServerMsg::Flag {
            color: side.into(),
            claims: Claims {
                white: claims_of(Color::White),
                black: claims_of(Color::Black),
            },
        };
        self.shared.bus.publish(
            &self.meta.id,
            BusMsg {
                n: None,
                text: msg.to_text().into(),
            },
        );
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
        if let Err(e) = self.resolve().await {
            self.not_stored(held, &e);
            return;
        }
        let first = self.n + 1;
        let was_over = self.game.is_over();
        let events: Vec<Event> = held.iter().map(|h| h.event.clone()).collect();
        let rulings_before = self.game.rulings().len();
        self.game.apply_batch(&events, first as usize);
        let over = self.game.is_over();
        let last = held.len() - 1;
        let rows: Vec<NewEvent> = held
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
        let (done_tx, done_rx) = oneshot::channel();
        let sent = self
            .shared
            .writer
            .send(WriteReq {
                events: rows.clone(),
                done: done_tx,
            })
            .await;
        let result = match sent {
            Ok(()) => done_rx.await.unwrap_or(Err(WriteError::Stopped)),
            Err(_) => Err(WriteError::Stopped),
        };
        if let Err(e) = result {
            tracing::error!(game = %self.meta.id, error = %e, "events not stored");
            self.rebuild();
            self.uncertain = Some(Uncertain {
                events,
                rows,
                ask_at: Instant::now() + RESOLVE_EVERY,
            });
            // The failure may be ambiguous: ask the store at once, and answer the
            // senders with what it holds.
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
            return;
        }
        self.retry_at = None;
        self.stored_now(held, rows, rulings_before, was_over);
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
        }
        if over && !was_over && self.was_live {
            self.shared.metrics.live_games.dec();
            self.was_live = false;
        }
        let snapshot = self.snapshot(moves_from);
        let new_rulings = &self.game.rulings()[rulings_before..];
        for (i, (h, event)) in held.into_iter().zip(jsons).enumerate() {
            let n = first + i as u64;
            if let (Some(role), Some(id)) = (h.role, h.id.clone()) {
                self.seen.insert((role, id), n);
            }
            let msg = self.event_msg(n, h.id.clone(), event, &snapshot);
            self.shared.bus.publish(
                &self.meta.id,
                BusMsg {
                    n: Some(n),
                    text: msg.to_text().into(),
                },
            );
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

    /// The `event` message of stored event `n`: its rulings, and the state after it.
    fn event_msg(
        &self,
        n: u64,
        id: Option<String>,
        event: Value,
        snapshot: &Snapshot,
    ) -> ServerMsg {
        let rulings = self
            .game
            .rulings()
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
        let mut text = self.meta.setup_line.clone();
        text.push('\n');
        for e in &self.stored {
            text.push_str(e);
            text.push('\n');
        }
        match script::parse(&text) {
            Ok(parsed) => {
                self.game = flagfall_game::replay(&parsed).game;
                self.moves = MoveList::default();
                self.moves.update(&self.game);
            }
            Err(e) => {
                tracing::error!(game = %self.meta.id, error = %e, "cannot rebuild the game from its own events")
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}
