//! One task per loaded evening: it owns the event; every change is applied to a copy,
//! stored with all it brings in one transaction, and only then made the evening's state
//! and published. A change that is refused or not stored leaves the evening as it was.

mod commit;
mod exec;
mod games;
mod loading;
mod run;

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

use super::model::{
    BoardReports, Confirm, LogRow, Play, Report, Settings, Snap, Who, player_token,
};
use crate::game::{Cmd as GameCmd, RoundCmd};
use crate::seam::Notice;
use crate::{ServerError, Shared, now_unix_ms, random_hex, token_hash};
use games::{add_players, give_link};
use loading::{load, load_tokens, note_report, replay_row, set_details};

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
        /// from it ([`super::model::player_token`]); otherwise random.
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
    /// A server game began or stopped waiting for the director.
    Waiting {
        game: String,
        /// With its `n`th stored event (an older telling arriving late changes nothing).
        n: u64,
        /// What it waits for; `None`: it no longer waits.
        dispute: Option<DisputeWhat>,
        /// Told by another node (not told on to the others again).
        remote: bool,
    },
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
        let waiting = Cmd::Waiting {
            game: game_id,
            n,
            dispute,
            remote: false,
        };
        let _ = self.tx.send(waiting).await;
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
