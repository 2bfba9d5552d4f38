//! One task per loaded evening: it owns the event; every change is applied to a copy,
//! stored with all it brings in one transaction, and only then made the evening's state
//! and published. A change that is refused or not stored leaves the evening as it was.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::Arc;

use flagfall_events::change::{Change, Effect, Origin};
use flagfall_events::event::{Event, EventError, NewPlayer, RecordedResult, ReportInfo};
use flagfall_protocol::CreateGame;
use flagfall_protocol::evening::{Dispute, DisputeWhat};
use flagfall_store::{NewGame, TournamentCommit, TournamentLogRow, TournamentToken};
use serde_json::json;
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use super::{BoardReports, Confirm, LogRow, Play, Report, Settings, Snap, Who};
use crate::game::{Cmd as GameCmd, RoundCmd};
use crate::seam::Notice;
use crate::{ServerError, Shared, now_unix_ms, random_hex, token_hash};

/// Commands an evening's task may have queued.
const QUEUE: usize = 256;
/// How often a finished game's result is tried when it could not be stored.
const GAME_OVER_ATTEMPTS: u32 = 10;
/// Messages the live socket may lag behind before it is told to reload.
const LIVE_BUFFER: usize = 256;

/// A handle to an evening's task.
#[derive(Clone)]
pub struct EveningHandle {
    /// The evening's id and the server (weak: the server holds the handles), to load
    /// the evening again when its task was unloaded meanwhile.
    id: Arc<str>,
    shared: std::sync::Weak<Shared>,
    tx: mpsc::Sender<Cmd>,
    /// The state after the last commit.
    pub snap: watch::Receiver<Arc<Snap>>,
    /// What changed, as the live socket sends it (JSON text).
    pub live: broadcast::Sender<Arc<Live>>,
}

/// One change as the live socket sends it: to the public, and to the director (with
/// the players' reports).
pub struct Live {
    /// For everyone; `None` when the change is the director's alone (a game waiting for
    /// the director).
    pub public: Option<Arc<str>>,
    pub director: Arc<str>,
}

/// What a caller asks of the evening.
#[derive(Debug, Clone)]
pub enum Op {
    /// Changes made in order, all or none.
    Changes(Vec<Change>),
    /// Players entered (each gets a personal token).
    AddPlayers {
        players: Vec<NewPlayer>,
        check_in: bool,
        /// The director's token, when the director enters them: their tokens are derived
        /// from it ([`super::player_token`]); otherwise random.
        director_token: Option<String>,
    },
    /// A player's report of their board's result (board play).
    Report {
        player: String,
        round: u32,
        board: u32,
        results: Vec<RecordedResult>,
    },
    /// A deputy director's token.
    Deputy,
    /// The details the rating reports need (replacing those set before).
    SetReport {
        report: Box<ReportInfo>,
        /// The start date (`Some("")` clears it; `None` leaves it).
        date: Option<String>,
        /// The site, as the date.
        site: Option<String>,
    },
    /// The director's correction of a player's details ([`Change::EditPlayer`]); a new
    /// name gives the player a new link when the director's token derives it.
    EditPlayer {
        change: Change,
        director_token: Option<String>,
    },
}

/// Why a command was not done.
#[derive(Debug)]
pub enum Refusal {
    /// The event refused the change (the event is unchanged).
    Event(EventError),
    /// Refused by the server's rules of the evening (who may do what).
    Conflict(String),
    /// The store or the server failed (nothing was changed).
    Failed(ServerError),
    /// Over a limit that lifts with time: the games a pairing would create, over what
    /// the evening's director may create now (`429`).
    Later(crate::limits::Later),
    /// Over one of the server's size limits of an evening (`413`), named.
    TooBig(String),
    /// Another writer (another node of a cluster) stored a change of the evening first,
    /// and again when the change was tried once more on top of it.
    Raced(String),
}

/// What a command did.
#[derive(Debug, Default, Clone)]
pub struct Done {
    /// What followed from the changes (the events library's effects).
    pub effects: Vec<Effect>,
    /// New players: name and personal token.
    pub tokens: Vec<(String, String)>,
}

/// Who asks, as the server's limits see it.
#[derive(Default)]
pub struct Asker {
    /// The director's (or a deputy's) client address: the games the change creates are
    /// counted against it (and it is remembered for the automatic pairings). `None` for
    /// a player's request.
    pub director_address: Option<IpAddr>,
    /// The request's admission ([`crate::cpu::Jobs::admit`]): held until the command is
    /// done, waiting in the evening's queue included.
    pub ticket: Option<crate::cpu::Ticket>,
}

pub(crate) enum Cmd {
    Do {
        op: Op,
        origin: Origin,
        asker: Asker,
        reply: oneshot::Sender<Result<Done, Refusal>>,
    },
    /// A server game ended (the attempt: a result not taken is tried again).
    GameOver(String, u32),
    /// A server game began or stopped waiting for the director (what for, or `None`)
    /// with its `n`th stored event; told by another node (`true`: not told on again).
    Waiting(String, u64, Option<DisputeWhat>, bool),
    /// Another node stored a change of the evening (its seq): read the log after ours.
    CatchUp(i64),
    /// Another node loaded the evening: tell it the games waiting for the director.
    Hello,
    /// What `changes` would do, made on a copy and never stored ([`EveningHandle::preview`]).
    Preview {
        changes: Vec<Change>,
        origin: Origin,
        reply: oneshot::Sender<Result<Preview, Refusal>>,
    },
}

/// What changes would do ([`EveningHandle::preview`]): the evening as it is, the copy
/// with the changes made, and what followed.
pub struct Preview {
    pub before: Arc<Snap>,
    pub after: Snap,
    pub effects: Vec<Effect>,
}

impl EveningHandle {
    /// Do `op` as `origin` (who, now).
    pub async fn run(&self, op: Op, origin: Origin) -> Result<Done, Refusal> {
        self.run_as(op, origin, Asker::default()).await
    }

    /// Do `op` as `origin`, asked by `asker` (the limits it counts against).
    pub async fn run_as(&self, op: Op, origin: Origin, asker: Asker) -> Result<Done, Refusal> {
        let (reply, rx) = oneshot::channel();
        let cmd = Cmd::Do {
            op,
            origin,
            asker,
            reply,
        };
        if let Err(mpsc::error::SendError(cmd)) = self.tx.send(cmd).await {
            // Unloaded (idle) since this handle was taken: load it again, ask it there.
            let again = match self.shared.upgrade() {
                Some(shared) => handle(&shared, &self.id).await.map_err(Refusal::Failed)?,
                None => None,
            };
            let sent = match again {
                Some(h) => h.tx.send(cmd).await.is_ok(),
                None => false,
            };
            if !sent {
                return Err(Refusal::Failed(ServerError::Stopped("the evening's task")));
            }
        }
        rx.await
            .unwrap_or_else(|_| Err(Refusal::Failed(ServerError::Stopped("the evening's task"))))
    }

    /// What `changes` would do as `origin`, made on a copy of the evening and never
    /// stored: the games of a round the changes would pair again are asked whether they
    /// have begun (not held), as the change itself would find them.
    pub async fn preview(&self, changes: Vec<Change>, origin: Origin) -> Result<Preview, Refusal> {
        let (reply, rx) = oneshot::channel();
        let stopped = || Refusal::Failed(ServerError::Corrupt("the evening's task stopped".into()));
        if let Err(mpsc::error::SendError(cmd)) = self
            .tx
            .send(Cmd::Preview {
                changes,
                origin,
                reply,
            })
            .await
        {
            let again = match self.shared.upgrade() {
                Some(shared) => handle(&shared, &self.id).await.map_err(Refusal::Failed)?,
                None => None,
            };
            match again {
                Some(h) if h.tx.send(cmd).await.is_ok() => {}
                _ => return Err(stopped()),
            }
        }
        rx.await.unwrap_or_else(|_| Err(stopped()))
    }

    pub(crate) async fn game_over(&self, game_id: String) {
        let _ = self.tx.send(Cmd::GameOver(game_id, 1)).await;
    }

    /// Resolves when the evening's task has ended (unloaded).
    pub async fn closed(&self) {
        self.tx.closed().await;
    }

    pub(crate) async fn game_waiting(&self, game_id: String, n: u64, dispute: Option<DisputeWhat>) {
        let _ = self.tx.send(Cmd::Waiting(game_id, n, dispute, false)).await;
    }

    /// Another node's telling (over NATS: the cluster's evening notices): sent to the task
    /// without waiting; a full queue drops it (what queued commands catch up with before
    /// they apply, or what the next telling says again).
    pub(crate) fn remote(&self, cmd: Cmd) {
        let _ = self.tx.try_send(cmd);
    }

    /// The state now.
    pub fn now(&self) -> Arc<Snap> {
        self.snap.borrow().clone()
    }
}

/// A new evening: store it with its director's token, start its task.
pub async fn create(
    shared: &Arc<Shared>,
    event: Event,
    settings: Settings,
    creator: Option<IpAddr>,
) -> Result<(String, String), ServerError> {
    let id = random_hex(12)?;
    let director = random_hex(32)?;
    let row = flagfall_store::NewTournament {
        id: id.clone(),
        base: serde_json::to_string(&event).map_err(ServerError::serialise("the event"))?,
        settings: serde_json::to_string(&settings)
            .map_err(ServerError::serialise("the evening's settings"))?,
        created_ms: now_unix_ms(),
    };
    let token = TournamentToken {
        token_hash: token_hash(&director),
        tournament_id: id.clone(),
        role: "director".into(),
        player: None,
    };
    shared
        .store
        .create_tournament(&row, std::slice::from_ref(&token))
        .await?;
    // Load it as any evening is loaded (the base and an empty log).
    load(shared, &id, creator).await?;
    Ok((id, director))
}

/// The handle of an evening, loading it from the store if needed; `None` if there is
/// no such evening.
pub async fn handle(shared: &Arc<Shared>, id: &str) -> Result<Option<EveningHandle>, ServerError> {
    load(shared, id, None).await
}

/// [`handle`]; a task started here remembers `creator` as its director's address.
async fn load(
    shared: &Arc<Shared>,
    id: &str,
    creator: Option<IpAddr>,
) -> Result<Option<EveningHandle>, ServerError> {
    if let Some(h) = shared.evenings.lock().get(id).filter(|h| !h.tx.is_closed()) {
        return Ok(Some(h.clone()));
    }
    let Some(row) = shared.store.tournament(id).await? else {
        return Ok(None);
    };
    let corrupt = |what: &str, e: &dyn std::fmt::Display| {
        ServerError::Corrupt(format!("evening {id}: {what}: {e}"))
    };
    let settings: Settings =
        serde_json::from_str(&row.settings).map_err(|e| corrupt("settings", &e))?;
    let log = shared.store.tournament_log(id).await?;
    let seq = log.len() as i64;
    let log_bytes = log.iter().map(|r| r.json.len()).sum();
    // The event from its base and every change: CPU-bound for a big evening.
    let owned = id.to_string();
    let (event, reports) = shared
        .cpu
        .run(None, move || {
            let id = owned.as_str();
            let corrupt = |what: &str, e: &dyn std::fmt::Display| {
                ServerError::Corrupt(format!("evening {id}: {what}: {e}"))
            };
            let mut event: Event =
                serde_json::from_str(&row.base).map_err(|e| corrupt("base", &e))?;
            let mut reports: BTreeMap<(u32, u32), BoardReports> = BTreeMap::new();
            for (i, r) in log.iter().enumerate() {
                replay_row(id, &mut event, &mut reports, i as i64, r)?;
            }
            Ok::<_, ServerError>((event, reports))
        })
        .await??;
    let tokens = load_tokens(shared, id).await?;
    let snap = Snap {
        id: id.to_string(),
        event,
        settings,
        reports,
        tokens,
        seq,
        log_bytes,
        disputes: BTreeMap::new(),
    };
    let snap = Arc::new(snap);
    let (snap_tx, snap_rx) = watch::channel(snap.clone());
    let (live, _) = broadcast::channel(LIVE_BUFFER);
    let (tx, rx) = mpsc::channel(QUEUE);
    let h = EveningHandle {
        id: id.into(),
        shared: Arc::downgrade(shared),
        tx,
        snap: snap_rx,
        live: live.clone(),
    };
    {
        let mut map = shared.evenings.lock();
        if let Some(h) = map.get(id).filter(|h| !h.tx.is_closed()) {
            return Ok(Some(h.clone()));
        }
        map.insert(id.to_string(), h.clone());
    }
    shared.metrics.loaded_evenings.inc();
    let task = Task {
        shared: shared.clone(),
        me: h.tx.downgrade(),
        state: snap,
        snap_tx,
        live,
        waiting_at: HashMap::new(),
        creator,
        paid: 0,
    };
    tokio::spawn(task.run(rx));
    Ok(Some(h))
}

/// The report details with the start date and site set with them (`None`: unchanged),
/// checked together (the end date not before the start): all or nothing.
fn set_details(
    event: &mut Event,
    report: ReportInfo,
    date: Option<&str>,
    site: Option<&str>,
) -> Result<(), EventError> {
    if let Some(d) = date {
        event.set_date(Some(d))?;
    }
    if let Some(s) = site {
        event.set_site(Some(s))?;
    }
    event.set_report(report)
}

/// Apply stored log row `r`, the one after row `seq`, to `event` and `reports` (as
/// loading does, and catching up with another node's changes): what followed.
fn replay_row(
    id: &str,
    event: &mut Event,
    reports: &mut BTreeMap<(u32, u32), BoardReports>,
    seq: i64,
    r: &TournamentLogRow,
) -> Result<Vec<Effect>, ServerError> {
    let corrupt = |what: &str, e: &dyn std::fmt::Display| {
        ServerError::Corrupt(format!("evening {id}: {what}: {e}"))
    };
    if r.seq != seq + 1 {
        return Err(corrupt(
            "log",
            &format!("row {} where {} was due", r.seq, seq + 1),
        ));
    }
    match serde_json::from_str::<LogRow>(&r.json).map_err(|e| corrupt("log", &e))? {
        LogRow::Change(entry) => event
            .apply_stored(entry.change, &Origin::new(entry.by, entry.at))
            .map_err(|e| corrupt(&format!("log row {}", r.seq), &e)),
        LogRow::Report(rep) => {
            note_report(event, reports, &rep);
            Ok(Vec::new())
        }
        LogRow::Details {
            report, date, site, ..
        } => {
            if let Some(d) = date {
                event.date = Some(d).filter(|d| !d.is_empty());
            }
            if let Some(s) = site {
                event.site = Some(s).filter(|s| !s.is_empty());
            }
            event.report = report;
            Ok(vec![Effect::SettingChanged])
        }
    }
}

/// An evening's tokens from the store: hash to who.
async fn load_tokens(shared: &Shared, id: &str) -> Result<HashMap<String, Who>, ServerError> {
    let mut tokens = HashMap::new();
    for t in shared.store.tournament_tokens(id).await? {
        let who = match (t.role.as_str(), t.player) {
            ("director", _) => Who::Director,
            ("deputy", _) => Who::Deputy,
            ("player", Some(name)) => Who::Player(name),
            (role, _) => {
                return Err(ServerError::Corrupt(format!(
                    "evening {id}: tokens: role {role:?}"
                )));
            }
        };
        tokens.insert(t.token_hash, who);
    }
    Ok(tokens)
}

/// Record a report in `reports` (the board's White or Black by the reporter's name).
fn note_report(event: &Event, reports: &mut BTreeMap<(u32, u32), BoardReports>, r: &Report) {
    let Some(number) = event
        .players
        .iter()
        .find(|p| p.name == r.player)
        .map(|p| p.id)
    else {
        return;
    };
    let Some(board) = event
        .round_list
        .get((r.round as usize).wrapping_sub(1))
        .and_then(|round| round.boards.iter().find(|b| b.number == r.board))
    else {
        return;
    };
    let entry = reports.entry((r.round, r.board)).or_default();
    if board.white == number {
        entry.white = Some(r.results.clone());
    } else if board.black == number {
        entry.black = Some(r.results.clone());
    }
}

struct Task {
    shared: Arc<Shared>,
    /// The task's own queue (weak: the task ends when every handle is gone), for a
    /// finished game's result tried again.
    me: mpsc::WeakSender<Cmd>,
    /// The state, shared with the readers (a change works on a copy).
    state: Arc<Snap>,
    snap_tx: watch::Sender<Arc<Snap>>,
    live: broadcast::Sender<Arc<Live>>,
    /// Each game's latest event told with its wait for the director ([`Cmd::Waiting`]).
    waiting_at: HashMap<String, u64>,
    /// The address of the evening's director (its creator's, then that of the director's
    /// or a deputy's latest change): what the games of an automatic pairing count
    /// against. Kept in memory: unknown after a restart until the director's next
    /// change.
    creator: Option<IpAddr>,
    /// The server games the command being done has counted against the director's
    /// address already: a command tried again (another node changed the evening in
    /// between) counts only what its new try creates beyond them.
    paid: u32,
}

/// A change in the making: a copy of the state, and what it will store.
#[derive(Clone)]
struct Work {
    snap: Snap,
    rows: Vec<TournamentLogRow>,
    tokens: Vec<TournamentToken>,
    games: Vec<NewGame>,
    /// Server games never begun that the change removes: aborted in its transaction.
    abort: Vec<String>,
    done: Done,
    /// A log row of the change that did not serialise (the first one's error): the
    /// change is refused at its commit, nothing stored (an empty row stored instead
    /// would leave the evening unloadable).
    unwritable: Option<String>,
}

impl Work {
    /// A copy of `snap` to change.
    fn of(snap: &Snap) -> Work {
        Work {
            snap: snap.clone(),
            rows: Vec::new(),
            tokens: Vec::new(),
            games: Vec::new(),
            abort: Vec::new(),
            done: Done::default(),
            unwritable: None,
        }
    }

    fn apply(&mut self, change: Change, origin: &Origin) -> Result<Vec<Effect>, EventError> {
        let effects = self.snap.event.apply(change, origin)?;
        let entry = self
            .snap
            .event
            .log
            .last()
            .cloned()
            .ok_or_else(|| EventError::Inconsistent("a change made but not logged".into()))?;
        self.row(&LogRow::Change(entry));
        self.done.effects.extend(effects.iter().cloned());
        Ok(effects)
    }

    fn row(&mut self, row: &LogRow) {
        self.push_row(serde_json::to_string(row));
    }

    /// A log row as serialised; one that did not is kept as the change's refusal.
    fn push_row(&mut self, json: serde_json::Result<String>) {
        self.snap.seq += 1;
        match json {
            Ok(json) => {
                self.snap.log_bytes += json.len();
                self.rows.push(TournamentLogRow {
                    seq: self.snap.seq,
                    json,
                });
            }
            Err(e) => {
                self.unwritable.get_or_insert(e.to_string());
            }
        }
    }

    /// What the change stores, with the state after it; refused (nothing to store)
    /// when one of its log rows did not serialise.
    fn into_commit(self) -> Result<(TournamentCommit, Snap, Done), ServerError> {
        if let Some(message) = self.unwritable {
            return Err(ServerError::Serialise {
                what: "an evening's log row",
                message,
            });
        }
        let c = TournamentCommit {
            tournament_id: self.snap.id.clone(),
            log: self.rows,
            tokens: self.tokens,
            games: self.games,
            abort: self.abort,
        };
        Ok((c, self.snap, self.done))
    }
}

impl Task {
    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        // What another node stored between this task's reading of the log and its
        // joining the loaded evenings (whose notices it missed) is read now.
        if let Err(e) = self.catch_up().await {
            tracing::error!(evening = %self.state.id, error = %e, "cannot catch up on loading");
        }
        // Games that ended while the evening was not loaded (or before the server
        // stopped) count now.
        self.reconcile().await;
        self.wake_waiting_games();
        // The other nodes with the evening loaded tell this one their disputes.
        self.shared
            .seam
            .tell(&self.shared, &self.state.id, Notice::Hello);
        let idle = self.shared.limits.evening_idle;
        let mut unloaded = false;
        loop {
            let cmd = tokio::select! {
                cmd = rx.recv() => cmd,
                // Nothing to do and nobody watching: unloaded; the next request loads
                // it again from the store (as after a restart). A command sent in the
                // instant before the queue closed is still done (`recv` drains it).
                _ = tokio::time::sleep(idle), if !unloaded => {
                    // Disputes live in memory only: an evening with a game waiting for
                    // the director stays loaded (the waiting game tells it only once).
                    unloaded = self.live.receiver_count() == 0
                        && self.state.disputes.is_empty()
                        && self.shared.evenings.unload(&self.state.id, &mut rx);
                    continue;
                }
            };
            let Some(cmd) = cmd else { break };
            match cmd {
                Cmd::Do {
                    op,
                    origin,
                    asker,
                    reply,
                } => {
                    let r = self.exec(op, origin, &asker).await;
                    drop(asker);
                    let _ = reply.send(r);
                }
                Cmd::Preview {
                    changes,
                    origin,
                    reply,
                } => {
                    let r = self.preview(changes, origin).await;
                    let _ = reply.send(r);
                }
                Cmd::Waiting(id, n, dispute, remote) => self.waiting(id, n, dispute, remote),
                Cmd::CatchUp(seq) => {
                    if seq > self.state.seq
                        && let Err(e) = self.catch_up().await
                    {
                        // The next change or notice tries again.
                        tracing::error!(evening = %self.state.id, error = %e, "cannot catch up with another node's change");
                    }
                }
                Cmd::Hello => {
                    for (game, dispute) in &self.state.disputes {
                        let n = self.waiting_at.get(game).copied().unwrap_or(0);
                        let notice = Notice::Dispute {
                            game: game.clone(),
                            n,
                            dispute: Some(dispute.what.clone()),
                        };
                        self.shared.seam.tell(&self.shared, &self.state.id, notice);
                    }
                }
                Cmd::GameOver(id, attempt) => {
                    let origin = Origin::new(format!("game {id}"), now_unix_ms());
                    if let Err(e) = self.finished_games(std::slice::from_ref(&id), origin).await {
                        tracing::error!(evening = %self.state.id, game = %id, attempt, error = ?e, "a finished game's result not taken");
                        // The database may be back in a moment: try again (and the
                        // evening takes it anyway when it is loaded, or before it pairs).
                        if attempt < GAME_OVER_ATTEMPTS
                            && let Some(tx) = self.me.upgrade()
                        {
                            tokio::spawn(async move {
                                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                                let _ = tx.send(Cmd::GameOver(id, attempt + 1)).await;
                            });
                        }
                    }
                }
            }
        }
        self.shared.metrics.loaded_evenings.dec();
    }

    /// Game `id` waits for the director (`dispute`) or no longer does: the evening's
    /// disputes change, and the live socket says so at once (`{"type":"dispute"}`).
    fn waiting(&mut self, id: String, n: u64, dispute: Option<DisputeWhat>, remote: bool) {
        // An older telling that arrives late changes nothing.
        match self.waiting_at.get(&id) {
            Some(&seen) if seen > n => return,
            _ => {
                self.waiting_at.insert(id.clone(), n);
            }
        }
        if !remote {
            // The other nodes' consoles of the evening show it too.
            let notice = Notice::Dispute {
                game: id.clone(),
                n,
                dispute: dispute.clone(),
            };
            self.shared.seam.tell(&self.shared, &self.state.id, notice);
        }
        let mut snap = (*self.state).clone();
        let changed = match dispute {
            Some(what) => {
                let Some((round, board, game, pending)) = locate(&snap.event, &id) else {
                    return;
                };
                if !pending {
                    return;
                }
                let Some(b) = snap.event.round_list[round as usize - 1]
                    .boards
                    .iter()
                    .find(|b| b.number == board)
                else {
                    return;
                };
                let (white, black) = b.players_of_game(game as usize - 1);
                let name = |n: u32| {
                    snap.event
                        .player(n)
                        .map(|p| p.name.clone())
                        .unwrap_or_default()
                };
                let since = snap.disputes.get(&id).map_or_else(now_unix_ms, |d| d.since);
                let v = Dispute {
                    game: id.clone(),
                    round,
                    board,
                    game_number: game,
                    white: name(white),
                    black: name(black),
                    since,
                    what,
                };
                snap.disputes.insert(id.clone(), v.clone()) != Some(v)
            }
            None => snap.disputes.remove(&id).is_some(),
        };
        if !changed {
            return;
        }
        let msg = super::view::dispute_message(&snap, &id);
        let snap = Arc::new(snap);
        self.state = snap.clone();
        self.snap_tx.send_replace(snap);
        // The director's alone: a claim carries the assistant's advice, a call its reason.
        let _ = self.live.send(Arc::new(Live {
            public: None,
            director: msg.into(),
        }));
    }

    /// The live games of the latest round are loaded (in the background): one that waits
    /// for the director (a claim, a call, stored before a restart) tells the evening so
    /// as it loads ([`super::game_waiting`]), since disputes are not stored.
    fn wake_waiting_games(&self) {
        let latest = self.state.event.rounds_paired();
        let Some(round) = self
            .state
            .event
            .round_list
            .get((latest as usize).wrapping_sub(1))
        else {
            return;
        };
        let ids: Vec<String> = round
            .boards
            .iter()
            .flat_map(|b| b.games.iter())
            .filter(|g| g.result == RecordedResult::Pending)
            .filter_map(|g| g.game.clone())
            .collect();
        if ids.is_empty() {
            return;
        }
        let shared = self.shared.clone();
        tokio::spawn(async move {
            for id in ids {
                // In a cluster a game served by another node stays there (its
                // disputes come from that node's evening).
                if let Err(e) = shared.route(&id).await {
                    tracing::error!(game = %id, error = %e, "an evening's game not loaded");
                }
            }
        });
    }

    /// Every linked game still pending in the event whose stored game has ended.
    async fn reconcile(&mut self) {
        let ids: Vec<String> = self
            .state
            .event
            .round_list
            .iter()
            .flat_map(|r| r.boards.iter())
            .flat_map(|b| b.games.iter())
            .filter(|g| g.result == RecordedResult::Pending)
            .filter_map(|g| g.game.clone())
            .collect();
        if ids.is_empty() {
            return;
        }
        let origin = Origin::new("server (games found finished on loading)", now_unix_ms());
        if let Err(e) = self.finished_games(&ids, origin).await {
            tracing::error!(evening = %self.state.id, error = ?e, "finished games not taken on loading");
        }
    }

    /// Take the results of those of `ids` whose stored games have ended (once: another
    /// node may have taken one already, or take it meanwhile).
    async fn finished_games(&mut self, ids: &[String], origin: Origin) -> Result<(), Refusal> {
        self.paid = 0;
        self.catch_up().await.map_err(Refusal::Failed)?;
        match self.finished_games_once(ids, origin.clone()).await {
            Err(Refusal::Raced(_)) => self.finished_games_once(ids, origin).await,
            r => r,
        }
    }

    async fn finished_games_once(&mut self, ids: &[String], origin: Origin) -> Result<(), Refusal> {
        let mut results = Vec::new();
        for id in ids {
            let row = self
                .shared
                .store
                .game(id)
                .await
                .map_err(|e| Refusal::Failed(e.into()))?;
            let Some(row) = row else { continue };
            if row.status != flagfall_store::Status::Finished {
                continue;
            }
            let result = match row.result.as_str() {
                "1-0" => RecordedResult::WhiteWins,
                "0-1" => RecordedResult::BlackWins,
                "1/2-1/2" => RecordedResult::Draw,
                _ => continue,
            };
            results.push((id.clone(), result));
        }
        if results.is_empty() {
            return Ok(());
        }
        // The results, and what follows (an automatic pairing): off the async workers.
        let state = self.state.clone();
        let w = self
            .job(move || {
                let mut w = Work::of(&state);
                for (id, result) in results {
                    let Some((round, board, game, pending)) = locate(&w.snap.event, &id) else {
                        continue;
                    };
                    if !pending {
                        continue;
                    }
                    // A game over waits for no one.
                    w.snap.disputes.remove(&id);
                    w.apply(
                        Change::SetGameResult {
                            round,
                            board,
                            game,
                            result,
                        },
                        &origin,
                    )
                    .map_err(Refusal::Event)?;
                }
                Ok((w, origin))
            })
            .await??;
        let (w, origin) = w;
        let w = self.settle(w, &origin, None, None, &[]).await?;
        self.commit(w).await.map(|_| ())
    }

    /// What follows a change, off the async workers: an automatic pairing and the
    /// round's server games ([`follow_up`]); the server's limits of an evening's size
    /// (when `before`, the sizes before an asked change, is given); the held games the
    /// change unlinked from the evening (`w.abort`). Then the new games are counted
    /// against the director's address ([`Task::charge`]): over it an automatic pairing
    /// waits for the director (the change that completed the round stands), and an
    /// asked pairing is refused (`429`).
    async fn settle(
        &mut self,
        w: Work,
        origin: &Origin,
        asking: Option<IpAddr>,
        before: Option<Sizes>,
        held: &[String],
    ) -> Result<Work, Refusal> {
        let limits = self.shared.limits.clone();
        let held = held.to_vec();
        let o = origin.clone();
        let finish = move |mut w: Work, auto: bool| {
            follow_up(&mut w, &o, auto).map_err(Refusal::Event)?;
            if let Some(before) = &before {
                Sizes::of(&w.snap).check(before, &limits)?;
            }
            let linked: std::collections::HashSet<&str> = w
                .snap
                .event
                .round_list
                .iter()
                .flat_map(|r| r.boards.iter())
                .flat_map(|b| b.games.iter())
                .filter_map(|g| g.game.as_deref())
                .collect();
            let abort: Vec<String> = held
                .iter()
                .filter(|id| !linked.contains(id.as_str()))
                .cloned()
                .collect();
            w.abort = abort;
            Ok::<_, Refusal>(w)
        };
        let again = finish.clone();
        let auto = w.snap.settings.auto && w.snap.settings.play == Play::Server;
        let (done, fallback) = self
            .job(move || {
                let fallback = auto.then(|| w.clone());
                (finish(w, true), fallback)
            })
            .await?;
        let done = done?;
        match (self.charge(&done, asking), fallback) {
            (Ok(()), _) => Ok(done),
            (Err(refused), None) => Err(refused),
            (Err(refused), Some(w)) => {
                let Refusal::Later(l) = &refused else {
                    return Err(refused);
                };
                tracing::warn!(evening = %w.snap.id, reason = %l.message, "automatic pairing left to the director");
                let done = self.job(move || again(w, false)).await??;
                self.charge(&done, asking)?;
                Ok(done)
            }
        }
    }

    /// Run `f` on the evenings' threads ([`crate::cpu`]), this task waiting for it.
    async fn job<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Refusal> {
        self.shared.cpu.run(None, f).await.map_err(Refusal::Failed)
    }

    /// A copy of the state to change, made off the async workers.
    async fn work(&self) -> Result<Work, Refusal> {
        let state = self.state.clone();
        self.job(move || Work::of(&state)).await
    }

    /// The server games `w` would create count against the address of whoever asks
    /// for them (`asking`: the director's request), else of the evening's director as
    /// this task knows it: refused (`429`, nothing taken) when that address may not
    /// create so many now.
    fn charge(&mut self, w: &Work, asking: Option<IpAddr>) -> Result<(), Refusal> {
        let (Some(bucket), Some(addr)) = (&self.shared.creations, asking.or(self.creator)) else {
            return Ok(());
        };
        let n = u32::try_from(w.games.len()).unwrap_or(u32::MAX);
        let due = n.saturating_sub(self.paid);
        bucket
            .take(addr, due)
            .map(|()| self.paid = self.paid.max(n))
            .map_err(|mut later| {
                later.message = format!(
                    "this would start {n} server games, counted against what your address may \
                 create: {}",
                    later.message
                );
                Refusal::Later(later)
            })
    }

    /// Do `op`. The games of a round it deletes or re-pairs are held (no action on
    /// them) until it is stored or refused: then those it removed are aborted (in its
    /// transaction, and in their tasks), the others released.
    ///
    /// Another node may have changed the evening since this one last looked: it catches
    /// up first, and when another node stores a change in the instant between, the op is
    /// tried once more on top of it (refused then if it no longer applies).
    async fn exec(&mut self, op: Op, origin: Origin, asker: &Asker) -> Result<Done, Refusal> {
        self.paid = 0;
        self.catch_up().await.map_err(Refusal::Failed)?;
        if let Some(addr) = asker.director_address {
            self.creator = Some(addr);
        }
        let asking = asker.director_address;
        let mut held = Vec::new();
        let mut r = self
            .exec_holding(op.clone(), origin.clone(), asking, &mut held)
            .await;
        if matches!(r, Err(Refusal::Raced(_))) {
            r = self.exec_holding(op, origin, asking, &mut held).await;
        }
        let aborted = r.as_ref().map(|(_, a)| a.clone()).unwrap_or_default();
        for id in &held {
            let c = if aborted.contains(id) {
                RoundCmd::Abort
            } else {
                RoundCmd::Release
            };
            if let Err(e) = self.round_cmd(id, c).await {
                tracing::error!(game = %id, error = ?e, "an evening's game not told of its round");
            }
        }
        r.map(|(done, _)| done)
    }

    async fn exec_holding(
        &mut self,
        op: Op,
        origin: Origin,
        asking: Option<IpAddr>,
        held: &mut Vec<String>,
    ) -> Result<(Done, Vec<String>), Refusal> {
        let mut w = self.work().await?;
        let before = Sizes::of(&w.snap);
        match op {
            Op::Changes(changes) => {
                if changes.iter().any(|c| matches!(c, Change::PairNext)) {
                    // A result that did not come in by itself (a failed store) is taken
                    // before the round is refused for missing it (its own count of games).
                    let paid = self.paid;
                    self.reconcile().await;
                    self.paid = paid;
                    w = self.work().await?;
                }
                for change in changes {
                    // A round deleted or re-paired by hand, or re-paired by the library
                    // after a correction of an earlier round (when nothing in it has
                    // begun): its games are held until the change is stored.
                    if let Some(round) = round_changed_by(&change, w.snap.event.rounds_paired()) {
                        self.hold_round(&mut w, round, &origin, held).await?;
                    }
                    // The change itself (a pairing, a re-pairing): off the async workers.
                    let o = origin.clone();
                    let (back, r) = self
                        .job(move || {
                            let r = w.apply(change, &o);
                            (w, r)
                        })
                        .await?;
                    w = back;
                    r.map_err(Refusal::Event)?;
                }
            }
            Op::AddPlayers {
                players,
                check_in,
                director_token,
            } => {
                let o = origin.clone();
                let (back, r) = self
                    .job(move || {
                        let r = add_players(&mut w, players, check_in, director_token, &o);
                        (w, r)
                    })
                    .await?;
                w = back;
                r?;
            }
            Op::Deputy => {
                let deputies = w
                    .snap
                    .tokens
                    .values()
                    .filter(|t| **t == Who::Deputy)
                    .count();
                let most = self.shared.limits.deputies_per_evening;
                if deputies >= most {
                    return Err(Refusal::Conflict(format!(
                        "event {} has {deputies} deputies, the most this server allows \
                         (--deputies-per-evening {most})",
                        w.snap.id
                    )));
                }
                let token = random_hex(32).map_err(Refusal::Failed)?;
                let hash = token_hash(&token);
                w.tokens.push(TournamentToken {
                    token_hash: hash.clone(),
                    tournament_id: w.snap.id.clone(),
                    role: "deputy".into(),
                    player: None,
                });
                w.snap.tokens.insert(hash, Who::Deputy);
                w.done.tokens.push(("deputy".into(), token));
            }
            Op::Report {
                player,
                round,
                board,
                results,
            } => {
                let o = origin.clone();
                let (back, r) = self
                    .job(move || {
                        let r = report(&mut w, player, round, board, results, &o);
                        (w, r)
                    })
                    .await?;
                w = back;
                r?;
            }
            Op::SetReport { report, date, site } => {
                let report = *report;
                let mut event = w.snap.event.clone();
                set_details(&mut event, report.clone(), date.as_deref(), site.as_deref())
                    .map_err(Refusal::Event)?;
                w.snap.event = event;
                w.row(&LogRow::Details {
                    report,
                    date,
                    site,
                    by: origin.by.clone(),
                    at: origin.at,
                });
                w.done.effects.push(Effect::SettingChanged);
            }
            Op::EditPlayer {
                change,
                director_token,
            } => {
                let Change::EditPlayer { player, name, .. } = &change else {
                    return Err(Refusal::Conflict("not a player's edit".into()));
                };
                let old = w
                    .snap
                    .event
                    .player(*player)
                    .map_err(Refusal::Event)?
                    .name
                    .clone();
                let name = name.trim().to_string();
                w.apply(change, &origin).map_err(Refusal::Event)?;
                if name != old {
                    // Each player's link is tied to their name: the new name's link.
                    let token = match &director_token {
                        Some(d) => super::player_token(d, &w.snap.id, &name),
                        None => random_hex(32).map_err(Refusal::Failed)?,
                    };
                    let hash = token_hash(&token);
                    if w.snap.tokens.get(&hash) != Some(&Who::Player(name.clone())) {
                        w.tokens.push(TournamentToken {
                            token_hash: hash.clone(),
                            tournament_id: w.snap.id.clone(),
                            role: "player".into(),
                            player: Some(name.clone()),
                        });
                    }
                    w.snap.tokens.insert(hash, Who::Player(name.clone()));
                    w.done.tokens.push((name, token));
                }
            }
        }
        let w = self.settle(w, &origin, asking, Some(before), held).await?;
        let aborted = w.abort.clone();
        self.commit(w).await.map(|done| (done, aborted))
    }

    /// Tell server game `id` of its round ([`RoundCmd`]); whether it has begun. In a
    /// cluster the game may be served by another node: asked over NATS.
    async fn round_cmd(&self, id: &str, c: RoundCmd) -> Result<bool, Refusal> {
        use crate::seam::{OwnerRetry, Req, Resp};
        // A game that moves, or whose owner does not answer, is looked up again by the
        // seam's one policy (`crate::seam::OwnerRetry`), for a hold, which needs its
        // answer. A release or an abort is tried once: the game's hold ends by itself
        // without it (`crate::game::ROUND_HOLD`, as its stored row says), and the
        // evening does not wait on an owner that does not answer.
        let policy = match c {
            RoundCmd::Hold => self.shared.seam.retry(),
            RoundCmd::Release | RoundCmd::Abort => OwnerRetry::ONCE,
        };
        let mut retry = policy.start();
        loop {
            let route = self.shared.route_within(id, &mut retry).await;
            let node = match route.map_err(Refusal::Failed)? {
                None => return Ok(false),
                Some(crate::Route::Remote { node, .. }) => node,
                Some(crate::Route::Local(h)) => {
                    let (tx, rx) = oneshot::channel();
                    if h.tx.send(GameCmd::Round(c, tx)).await.is_err() {
                        // The task ended (unloaded): nothing to hold; the store says
                        // the rest.
                        return Ok(false);
                    }
                    return Ok(rx.await.unwrap_or(false));
                }
            };
            let req = Req::Round {
                game: id.to_string(),
                cmd: c,
            };
            let why = match self.shared.seam.ask(&self.shared, &node, &req).await {
                Ok(Resp::Round(begun)) => return Ok(begun),
                Ok(Resp::NotFound) => return Ok(false),
                Ok(Resp::NotOwner) => "moved".to_string(),
                Ok(Resp::Busy) => "busy".to_string(),
                Ok(Resp::Unavailable(why)) => why,
                Ok(other) => {
                    return Err(Refusal::Failed(ServerError::Nats(format!(
                        "game {id}'s server {node} answered {other:?} to its round's {c:?}"
                    ))));
                }
                Err(e) => e.to_string(),
            };
            if !retry.again().await {
                return Err(Refusal::Failed(ServerError::Nats(format!(
                    "game {id}'s server does not answer its round's {c:?}, try again: {why}"
                ))));
            }
        }
    }
}

/// A player's report: refused unless it is their board of the latest round and its
/// result is not in; counted at once (`confirm: one`) or when both agree.
fn report(
    w: &mut Work,
    player: String,
    round: u32,
    board: u32,
    results: Vec<RecordedResult>,
    origin: &Origin,
) -> Result<(), Refusal> {
    if w.snap.settings.play == Play::Server {
        return Err(Refusal::Conflict(
            "this evening's games are played on the server: their results arrive by \
                 themselves (ask the director to correct one)"
                .into(),
        ));
    }
    let event = &w.snap.event;
    let latest = event.rounds_paired();
    if latest == 0 {
        return Err(Refusal::Conflict("no round has been paired yet".into()));
    }
    let number = w
        .snap
        .number_of(&player)
        .ok_or_else(|| Refusal::Conflict(format!("{player} is no longer in the event")))?;
    if round != latest {
        return Err(Refusal::Conflict(format!(
            "round {round} is not the round being played (round {latest}); a result of \
                 an earlier round is corrected by the director"
        )));
    }
    let b = event.round_list[round as usize - 1]
        .boards
        .iter()
        .find(|b| b.number == board)
        .ok_or(Refusal::Event(EventError::UnknownBoard {
            round,
            board,
            boards: event.round_list[round as usize - 1].boards.len() as u32,
        }))?;
    if b.white != number && b.black != number {
        return Err(Refusal::Conflict(format!(
            "{player} does not play on board {board} of round {round}"
        )));
    }
    if b.complete() {
        return Err(Refusal::Conflict(format!(
            "the result of round {round} board {board} is in already; the director \
                 corrects it if it is wrong"
        )));
    }
    // Players report games played; a forfeit (or `*`) is the director's to enter.
    if results.len() != b.games.len() || results.iter().any(|r| !r.is_played()) {
        return Err(Refusal::Conflict(format!(
            "board {board} has {} game(s): report one result for each (1-0, 0-1 or 1/2); \
             a forfeit is the director's to enter",
            b.games.len()
        )));
    }
    let report = Report {
        round,
        board,
        player,
        results: results.clone(),
        at: origin.at,
    };
    w.row(&LogRow::Report(report.clone()));
    note_report(&w.snap.event, &mut w.snap.reports, &report);
    let both = w
        .snap
        .reports
        .get(&(round, board))
        .cloned()
        .unwrap_or_default();
    let agreed = match w.snap.settings.confirm {
        Confirm::One => Some(results),
        Confirm::Both => match (&both.white, &both.black) {
            (Some(a), Some(b)) if a == b => Some(a.clone()),
            _ => None,
        },
    };
    if let Some(results) = agreed {
        w.apply(
            Change::SetResults {
                round,
                board,
                results,
            },
            origin,
        )
        .map_err(Refusal::Event)?;
    }
    Ok(())
}

/// The round `change` deletes or pairs again, if any (a correction of an earlier round
/// pairs the `latest` again when nothing in it has begun).
fn round_changed_by(change: &Change, latest: u32) -> Option<u32> {
    match change {
        Change::DeleteRound { round } | Change::Override { round, .. } => Some(*round),
        Change::SetResults { round, .. } | Change::SetGameResult { round, .. }
            if *round < latest =>
        {
            Some(latest)
        }
        _ => None,
    }
}

impl Task {
    /// [`EveningHandle::preview`]: the changes made on a copy, after the games of the
    /// rounds they would change are asked whether they have begun (a begun game is
    /// marked so on the copy, as [`Task::hold_round`] marks it for the change itself).
    async fn preview(&mut self, changes: Vec<Change>, origin: Origin) -> Result<Preview, Refusal> {
        self.catch_up().await.map_err(Refusal::Failed)?;
        let before = self.state.clone();
        let mut w = self.work().await?;
        for change in changes {
            if let Some(round) = round_changed_by(&change, w.snap.event.rounds_paired()) {
                let mut started = Vec::new();
                if let Some(r) = w
                    .snap
                    .event
                    .round_list
                    .get((round as usize).wrapping_sub(1))
                {
                    for b in &r.boards {
                        for (g, rec) in b.games.iter().enumerate() {
                            if let (Some(id), false, RecordedResult::Pending) =
                                (&rec.game, rec.started, rec.result)
                                // Asked without holding it: `Release` answers whether
                                // it has begun and leaves an unheld game as it was.
                                && self.round_cmd(id, RoundCmd::Release).await?
                            {
                                started.push((b.number, g as u32 + 1));
                            }
                        }
                    }
                }
                for (board, game) in started {
                    w.apply(Change::GameStarted { round, board, game }, &origin)
                        .map_err(Refusal::Event)?;
                }
            }
            let o = origin.clone();
            let (back, r) = self
                .job(move || {
                    let r = w.apply(change, &o);
                    (w, r)
                })
                .await?;
            w = back;
            r.map_err(Refusal::Event)?;
        }
        Ok(Preview {
            before,
            effects: w.done.effects.clone(),
            after: w.snap,
        })
    }

    /// Before a round is deleted or re-paired: its server games that have begun are
    /// marked begun (the events library then refuses); the others are held (`held`), so
    /// that none begins before the change is stored or refused.
    async fn hold_round(
        &self,
        w: &mut Work,
        round: u32,
        origin: &Origin,
        held: &mut Vec<String>,
    ) -> Result<(), Refusal> {
        let Some(r) = w
            .snap
            .event
            .round_list
            .get((round as usize).wrapping_sub(1))
        else {
            return Ok(());
        };
        let mut started = Vec::new();
        for b in &r.boards {
            for (g, rec) in b.games.iter().enumerate() {
                if let (Some(id), false, RecordedResult::Pending) =
                    (&rec.game, rec.started, rec.result)
                {
                    if held.contains(id) {
                        continue;
                    }
                    if self.round_cmd(id, RoundCmd::Hold).await? {
                        started.push((b.number, g as u32 + 1));
                    } else {
                        held.push(id.clone());
                    }
                }
            }
        }
        for (board, game) in started {
            w.apply(Change::GameStarted { round, board, game }, origin)
                .map_err(Refusal::Event)?;
        }
        Ok(())
    }
}

/// What follows any change: in automatic mode the next round is paired once the
/// latest is complete; with server play, every pending game of the latest round
/// without a server game gets one.
fn follow_up(w: &mut Work, origin: &Origin, auto: bool) -> Result<(), EventError> {
    let event = &w.snap.event;
    if auto
        && w.snap.settings.auto
        && event.round_list.last().is_some_and(|r| r.complete())
        && event.rounds_paired() < event.planned_rounds()
        && w.done
            .effects
            .iter()
            .any(|e| matches!(e, Effect::RoundComplete { .. }))
    {
        let auto = Origin::new("server (automatic pairing)", origin.at);
        // A round that cannot be paired (nobody checked in, ...) waits for the
        // director; the result that completed the round stands.
        let mut copy = Work::of(&w.snap);
        if copy.apply(Change::PairNext, &auto).is_ok() {
            w.snap = copy.snap;
            w.rows.extend(copy.rows);
            w.done.effects.extend(copy.done.effects);
            if let Some(e) = copy.unwritable {
                w.unwritable.get_or_insert(e);
            }
        }
    }
    if w.snap.settings.play == Play::Server {
        create_games(w, origin)?;
    }
    Ok(())
}

fn create_games(w: &mut Work, origin: &Origin) -> Result<(), EventError> {
    let Some(round) = w.snap.event.round_list.last() else {
        return Ok(());
    };
    let r = round.number;
    let mut todo = Vec::new();
    for b in &round.boards {
        for (g, rec) in b.games.iter().enumerate() {
            if rec.game.is_none() && rec.result == RecordedResult::Pending {
                let (white, black) = b.players_of_game(g);
                todo.push((b.number, g as u32 + 1, white, black));
            }
        }
    }
    let event = &w.snap.event;
    let rules = event.ruleset.clone().unwrap_or_else(|| "uscf-2020".into());
    let tc = event
        .time_control
        .clone()
        .unwrap_or_else(|| "G/5;d0".into());
    let director = w.snap.director_hash().unwrap_or_default().to_string();
    let inconsistent = |m: String| EventError::Inconsistent(m);
    let mut links = Vec::new();
    for (board, game, white, black) in todo {
        let name = |n: u32| {
            event
                .player(n)
                .map(|p| p.name.clone())
                .map_err(|e| inconsistent(e.to_string()))
        };
        let (wn, bn) = (name(white)?, name(black)?);
        // A name stored before the one-limit rule (up to 200 characters) is fitted to a
        // game's: the evening keeps it whole, the game shows it cut (else every pairing
        // of that evening failed).
        let body: CreateGame = serde_json::from_value(json!({
            "rules": rules, "time_control": tc,
            "white": flagfall_protocol::fit_name(&wn), "black": flagfall_protocol::fit_name(&bn),
            "mode": w.snap.settings.mode,
        }))
        .map_err(|e| inconsistent(format!("a game of round {r}: {e}")))?;
        let (line, _) = body
            .setup_line()
            .map_err(|e| inconsistent(format!("a game of round {r}: {e}")))?;
        let token = |n: &str| {
            w.snap
                .token_of(n)
                .map(str::to_string)
                .ok_or_else(|| inconsistent(format!("player {n:?} has no token")))
        };
        let id = random_hex(12).map_err(|e| inconsistent(e.to_string()))?;
        w.games.push(NewGame {
            id: id.clone(),
            setup: line,
            mode: w.snap.settings.mode,
            token_white: token(&wn)?,
            token_black: token(&bn)?,
            token_director: director.clone(),
            created_ms: now_unix_ms(),
            practice: None,
        });
        links.push(Change::LinkGame {
            round: r,
            board,
            game,
            id,
        });
    }
    let server = Origin::new("server", origin.at);
    for change in links {
        w.apply(change, &server)?;
    }
    Ok(())
}

impl Task {
    /// Store `w` in one transaction; then it is the evening's state: games start, the
    /// snapshot and the live message go out.
    async fn commit(&mut self, w: Work) -> Result<Done, Refusal> {
        let (c, snap, done) = w.into_commit().map_err(|e| {
            tracing::error!(error = %e, "an evening's change refused");
            Refusal::Failed(e)
        })?;
        match self.shared.store.tournament_commit(&c).await {
            Ok(()) => {}
            Err(flagfall_store::StoreError::Conflict(m)) => {
                // Another node took the next seq first (or a game of the round began):
                // with its rows applied, the caller may try again on top of them.
                return match self.catch_up().await {
                    Ok(0) => Err(Refusal::Conflict(m)),
                    Ok(_) => Err(Refusal::Raced(format!(
                        "the evening was changed on another server at the same time; \
                         look at it again and retry ({m})"
                    ))),
                    Err(e) => Err(Refusal::Failed(e)),
                };
            }
            Err(e) => {
                tracing::error!(evening = %snap.id, error = %e, "an evening's change not stored");
                return Err(Refusal::Failed(e.into()));
            }
        }
        for (i, g) in c.games.iter().enumerate() {
            if let Err(e) = self.shared.start_new(g, snap.settings.mode).await {
                tracing::error!(game = %g.id, error = %e, "an evening's game not started");
            }
            // A round of hundreds of games: the worker's other tasks run between them.
            if i % 32 == 31 {
                tokio::task::yield_now().await;
            }
        }
        let snap = Arc::new(snap);
        self.state = snap.clone();
        self.snap_tx.send_replace(snap.clone());
        if !c.log.is_empty() {
            self.publish(&snap, c.log, done.effects.clone()).await;
            let notice = Notice::Seq { seq: snap.seq };
            self.shared.seam.tell(&self.shared, &snap.id, notice);
        }
        Ok(done)
    }

    /// Apply the log rows other writers (the other nodes of a cluster, or another
    /// server on the same database) stored after this task's seq, as loading does, and
    /// publish them to the live sockets as this task's own changes are: every node's
    /// consoles see every change. How many rows were applied. A row that does not apply
    /// leaves the state as it was (an error: the log is damaged).
    async fn catch_up(&mut self) -> Result<usize, ServerError> {
        let id = self.state.id.clone();
        let rows = self
            .shared
            .store
            .tournament_log_after(&id, self.state.seq)
            .await?;
        if rows.is_empty() {
            return Ok(0);
        }
        // Replayed off the async workers (another node's pairing is as big as ours).
        let state = self.state.clone();
        let job_id = id.clone();
        let (mut snap, effects, rows) = self
            .shared
            .cpu
            .run(None, move || {
                let mut snap = (*state).clone();
                let mut effects = Vec::new();
                for r in &rows {
                    effects.extend(replay_row(
                        &job_id,
                        &mut snap.event,
                        &mut snap.reports,
                        snap.seq,
                        r,
                    )?);
                    snap.seq = r.seq;
                    snap.log_bytes += r.json.len();
                }
                Ok::<_, ServerError>((snap, effects, rows))
            })
            .await??;
        // New players' and deputies' tokens came with those rows (one transaction).
        snap.tokens = load_tokens(&self.shared, &id).await?;
        // A game whose result is in waits for no one.
        let settled: Vec<String> = snap
            .disputes
            .keys()
            .filter(|g| !matches!(locate(&snap.event, g), Some((.., true))))
            .cloned()
            .collect();
        for g in settled {
            snap.disputes.remove(&g);
        }
        let snap = Arc::new(snap);
        self.state = snap.clone();
        self.snap_tx.send_replace(snap.clone());
        let n = rows.len();
        self.publish(&snap, rows, effects).await;
        Ok(n)
    }
}

impl Task {
    /// The live sockets' message (none when nobody listens): the director's carries the
    /// players' reports and the disputes (the list as it is now, so a dispute the change
    /// settled is seen to go), the public's neither.
    /// Made off the async workers (with the standings, for a big evening).
    async fn publish(&self, snap: &Arc<Snap>, rows: Vec<TournamentLogRow>, effects: Vec<Effect>) {
        use super::view::{Viewer, live_message};
        if self.live.receiver_count() == 0 {
            return;
        }
        let snap = snap.clone();
        let made = self
            .shared
            .cpu
            .run(None, move || {
                let public: Arc<str> = live_message(&snap, &rows, &effects, Viewer::Public).into();
                let director: Arc<str> =
                    live_message(&snap, &rows, &effects, Viewer::Director).into();
                (public, director)
            })
            .await;
        match made {
            Ok((public, director)) => {
                let _ = self.live.send(Arc::new(Live {
                    public: Some(public),
                    director,
                }));
            }
            Err(e) => {
                tracing::error!(evening = %self.state.id, error = %e, "the live message not made")
            }
        }
    }
}

/// Where server game `id` plays: round, board, game (1-based), and whether its result is
/// still pending.
pub(crate) fn locate(event: &Event, id: &str) -> Option<(u32, u32, u32, bool)> {
    for r in &event.round_list {
        for b in &r.boards {
            for (g, rec) in b.games.iter().enumerate() {
                if rec.game.as_deref() == Some(id) {
                    return Some((
                        r.number,
                        b.number,
                        g as u32 + 1,
                        rec.result == RecordedResult::Pending,
                    ));
                }
            }
        }
    }
    None
}

/// Enter `players` in `w` (each with a personal token: derived from the director's
/// token when the director enters them, random otherwise).
fn add_players(
    w: &mut Work,
    players: Vec<NewPlayer>,
    check_in: bool,
    director_token: Option<String>,
    origin: &Origin,
) -> Result<(), Refusal> {
    for p in players {
        let name = p.name.trim().to_string();
        if w.snap.event.players.iter().any(|q| q.name == name) {
            return Err(Refusal::Event(EventError::NotAllowed(format!(
                "a player named {name:?} is in the event already (each player's link is tied to their name)"
            ))));
        }
        w.apply(
            Change::AddPlayer {
                player: p,
                check_in,
            },
            origin,
        )
        .map_err(|e| {
            // The name as far as a person reads it: a name too long is said so by the
            // error, not echoed whole.
            let shown: String = name.chars().take(40).collect();
            let more = if shown.len() < name.len() { "…" } else { "" };
            Refusal::Event(EventError::NotAllowed(format!(
                "player {shown:?}{more}: {e}"
            )))
        })?;
        let token = match &director_token {
            Some(d) => super::player_token(d, &w.snap.id, &name),
            None => random_hex(32).map_err(Refusal::Failed)?,
        };
        let hash = token_hash(&token);
        // Entered before by the director and removed: the same name has the same link,
        // its hash stored already.
        let stored = w.snap.tokens.get(&hash) == Some(&Who::Player(name.clone()));
        if !stored {
            w.tokens.push(TournamentToken {
                token_hash: hash.clone(),
                tournament_id: w.snap.id.clone(),
                role: "player".into(),
                player: Some(name.clone()),
            });
        }
        w.snap.tokens.insert(hash, Who::Player(name.clone()));
        w.done.tokens.push((name, token));
    }
    Ok(())
}

/// What the server's limits of an evening's size count ([`crate::limits::Limits`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sizes {
    pub players: usize,
    pub rounds: u32,
    pub forbidden: usize,
    pub log_bytes: usize,
}

impl Sizes {
    pub fn of(snap: &Snap) -> Sizes {
        Sizes::of_event(&snap.event, snap.log_bytes)
    }

    /// Of an event whose stored log holds `log_bytes`.
    pub fn of_event(event: &Event, log_bytes: usize) -> Sizes {
        Sizes {
            players: event.players.len(),
            rounds: event.planned_rounds().max(event.rounds_paired()),
            forbidden: event.forbidden.len(),
            log_bytes,
        }
    }

    /// Refused (`413`, naming the limit and its flag) when a change made one of them
    /// grow past the server's limit (`before`: the sizes before it). One already over
    /// (an evening from before the limit was lowered) may shrink or stay.
    pub fn check(&self, before: &Sizes, limits: &crate::limits::Limits) -> Result<(), Refusal> {
        let over = |now: usize, was: usize, most: usize| now > was && now > most;
        if over(self.players, before.players, limits.evening_players) {
            return Err(Refusal::TooBig(format!(
                "this would make {} players: an evening on this server holds at most {} \
                 (--evening-players)",
                self.players, limits.evening_players
            )));
        }
        if over(
            self.rounds as usize,
            before.rounds as usize,
            limits.evening_rounds as usize,
        ) {
            return Err(Refusal::TooBig(format!(
                "this would make {} rounds: an evening on this server plays at most {} \
                 (--evening-rounds; a round robin's rounds follow from its players)",
                self.rounds, limits.evening_rounds
            )));
        }
        if over(self.forbidden, before.forbidden, limits.evening_forbidden) {
            return Err(Refusal::TooBig(format!(
                "this would make {} forbidden pairs: an evening on this server holds at \
                 most {} (--evening-forbidden)",
                self.forbidden, limits.evening_forbidden
            )));
        }
        if over(self.log_bytes, before.log_bytes, limits.evening_log_bytes) {
            return Err(Refusal::TooBig(format!(
                "the evening's log holds {} bytes: this change would take it past the {} \
                 this server keeps for one evening (--evening-log-mib)",
                before.log_bytes, limits.evening_log_bytes
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "task_tests.rs"]
mod tests;
