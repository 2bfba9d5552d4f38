//! The games this node serves: finding a game's task (loading it, where the seam says
//! this node is to serve it), where a game is served ([`Route`]), creating games, and
//! the bookkeeping of loaded games and practice computers.
//!
//! Who serves a game is the seam's to say ([`crate::seam::Seam`]): on a single node
//! every game is here; in a cluster a game is loaded here only under a lease, and
//! otherwise is another node's. Nothing here knows which.

use std::collections::HashMap;
use std::sync::Arc;

use flagfall_protocol::{CreateGame, Mode};
use flagfall_store::Status;
use tokio::sync::mpsc;

use crate::game::{self, Cmd, GameHandle, GameMeta};
use crate::seam::{Owner, Retrying};
use crate::{CreateError, ServerError, Shared, now_unix_ms, practice, random_hex, token_hash};

/// Where a game is served: by a task of this node, or by another node of the cluster.
#[derive(Clone)]
pub enum Route {
    Local(GameHandle),
    /// Another node holds its lease (`node`); `meta` as stored.
    Remote {
        node: String,
        meta: Arc<GameMeta>,
    },
}

impl Route {
    pub fn meta(&self) -> &Arc<GameMeta> {
        match self {
            Route::Local(h) => &h.meta,
            Route::Remote { meta, .. } => meta,
        }
    }
}

/// What the server keeps about a game besides its events, from its row.
fn meta_of(row: &flagfall_store::GameRow) -> Result<GameMeta, ServerError> {
    let id = &row.game.id;
    let setup = serde_json::from_str(&row.game.setup)
        .map_err(|e| ServerError::Corrupt(format!("game {id}: setup: {e}")))?;
    Ok(GameMeta {
        id: row.game.id.clone(),
        setup_line: row.game.setup.clone(),
        setup,
        mode: row.game.mode,
        token_hashes: [
            row.game.token_white.clone(),
            row.game.token_black.clone(),
            row.game.token_director.clone(),
        ],
        created_ms: row.game.created_ms,
    })
}

impl Shared {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, GameHandle>> {
        // Only look-ups, single inserts and removals happen under this lock (and the
        // start of a task already replayed): never a replay, never an `.await`.
        self.games.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The live handle of game `id` if this node has it loaded.
    fn loaded(&self, id: &str) -> Option<GameHandle> {
        self.lock().get(id).filter(|h| !h.tx.is_closed()).cloned()
    }

    /// This node's task of a game: found loaded, or loaded from the store here. `None` if
    /// there is no such game. Loading is where the seam says this node serves the game
    /// (in a cluster, claiming its lease): [`ServerError::Elsewhere`] when another node
    /// serves it (its name empty when nobody does this instant: ask again).
    pub async fn load_here(self: &Arc<Self>, id: &str) -> Result<Option<GameHandle>, ServerError> {
        if let Some(h) = self.loaded(id) {
            return Ok(Some(h));
        }
        if self.stopping() {
            // Claim nothing: another node (or this one, started again) serves it.
            return Err(ServerError::Stopped("the server"));
        }
        let _claiming = self.seam.claiming(id).await;
        if let Some(h) = self.loaded(id) {
            return Ok(Some(h));
        }
        let claim = match self.seam.claim(self, id).await? {
            Owner::Here(claim) => claim,
            Owner::Node(node) => return Err(ServerError::Elsewhere { node }),
            Owner::Changing => {
                return Err(ServerError::Elsewhere {
                    node: String::new(),
                });
            }
            Owner::Missing => return Ok(None),
        };
        match self.load(id, claim.fence).await {
            Ok(h) => {
                let begun = h.as_ref().is_some_and(|h| h.view.borrow().started);
                self.seam.loaded(self, id, &claim, Ok(begun)).await;
                Ok(h)
            }
            Err(e) => {
                self.seam.loaded(self, id, &claim, Err(())).await;
                Err(e)
            }
        }
    }

    /// Where game `id` is served: this node (loading it, in a cluster claiming it, if
    /// nobody serves it) or another. `None` if there is no such game. Nobody serving it
    /// this instant is asked again by the seam's [`crate::seam::OwnerRetry`].
    pub async fn route(self: &Arc<Self>, id: &str) -> Result<Option<Route>, ServerError> {
        self.route_within(id, &mut self.seam.retry().start()).await
    }

    /// [`Shared::route`] within the tries left of an operation that began earlier
    /// (`retry`: a request to an owner that did not answer, looking the game up again).
    pub async fn route_within(
        self: &Arc<Self>,
        id: &str,
        retry: &mut Retrying,
    ) -> Result<Option<Route>, ServerError> {
        loop {
            match self.load_here(id).await {
                Ok(h) => return Ok(h.map(Route::Local)),
                Err(ServerError::Elsewhere { node }) if !node.is_empty() => {
                    let Some(row) = self.store.game(id).await? else {
                        return Ok(None);
                    };
                    return Ok(Some(Route::Remote {
                        node,
                        meta: Arc::new(meta_of(&row)?),
                    }));
                }
                Err(ServerError::Elsewhere { node }) => {
                    if !retry.again().await {
                        return Err(ServerError::Elsewhere { node });
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Stop serving game `id` held at `epoch` (its lease was lost): its task stops
    /// accepting anything, and its sockets on this node are told to reconnect. Nothing
    /// when this node holds no such claim (a single node holds none).
    pub(crate) fn drop_game(&self, id: &str, epoch: i64) {
        if !self.seam.release(self, id, epoch) {
            return;
        }
        // Its clock is no longer this node's to beat.
        self.beats.remove(id);
        let h = self.lock().remove(id);
        if let Some(h) = h {
            // Best effort: a task whose queue is full notices at its next action
            // (its lease) or commit (the fence).
            let _ = h.tx.try_send(Cmd::Lost);
        }
        self.bus.publish_local(id, crate::bus::BusMsg::moved());
    }

    /// Load game `id` from the store and start its task (`fence`: in a cluster, the
    /// epoch of the lease this node holds).
    pub(crate) async fn load(
        self: &Arc<Self>,
        id: &str,
        fence: Option<i64>,
    ) -> Result<Option<GameHandle>, ServerError> {
        let Some(row) = self.store.game(id).await? else {
            return Ok(None);
        };
        let events = self.store.events(id).await?;
        let alive = self.store.last_beat(id).await?;
        let meta = meta_of(&row)?;
        // Replay before taking the lock of all games; under it, only the insert. When
        // another request loaded the game meanwhile, its task is the game's and this
        // replay is dropped (it started nothing).
        let mut loaded = game::load(self.clone(), meta, events, alive)?.fenced(fence);
        if row.status == Status::Aborted {
            loaded = loaded.aborted();
        }
        let h = {
            let mut games = self.lock();
            if let Some(h) = games.get(id).filter(|h| !h.tx.is_closed()) {
                return Ok(Some(h.clone()));
            }
            if self.stopping() {
                return Err(ServerError::Stopped("the server"));
            }
            let h = loaded.start();
            games.insert(id.to_string(), h.clone());
            h
        };
        // A live practice game's computer plays again (after a restart, or when the game
        // is loaded again): its settings are stored with the game.
        if row.status == Status::Live
            && let Some(config) = &row.game.practice
        {
            match serde_json::from_str::<practice::ComputerConfig>(config) {
                Ok(cfg) => practice::spawn(self.clone(), id.to_string(), cfg, self.engine.clone()),
                Err(e) => {
                    tracing::warn!(game = %id, error = %e, "stored practice settings unreadable")
                }
            }
        }
        Ok(Some(h))
    }

    /// How many practice computers run (each with its engine process when the server
    /// has an engine).
    pub(crate) fn computers_running(&self) -> usize {
        self.computers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// Mark game `id`'s computer as running; false when one already runs.
    pub(crate) fn computer_starts(&self, id: &str) -> bool {
        self.computers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string())
    }

    /// Game `id`'s computer stopped.
    pub(crate) fn computer_stopped(&self, id: &str) {
        self.computers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }

    /// Called by a finished (or aborted) game's task idle for
    /// [`lifecycle::FINISHED_GRACE`]: unload it unless a socket still watches it
    /// (`crate::lifecycle`) or commands wait.
    pub(crate) fn unload_idle(&self, id: &str, rx: &mut mpsc::Receiver<Cmd>) -> bool {
        if self.bus.subscribers(id) > 0 {
            return false;
        }
        self.unload(id, rx)
    }

    /// Called by a game's task that ends: unload it unless commands wait.
    pub(crate) fn unload(&self, id: &str, rx: &mut mpsc::Receiver<Cmd>) -> bool {
        let mut games = self.lock();
        if !rx.is_empty() {
            return false;
        }
        games.remove(id);
        rx.close();
        true
    }

    /// Create a game: store its row, start its task.
    pub async fn create(
        self: &Arc<Self>,
        body: &CreateGame,
    ) -> Result<flagfall_protocol::Created, CreateError> {
        self.create_with(body, None).await
    }

    /// [`Shared::create`], storing a practice computer's settings with the game
    /// (`practice`, JSON) in the same row.
    pub async fn create_with(
        self: &Arc<Self>,
        body: &CreateGame,
        practice: Option<String>,
    ) -> Result<flagfall_protocol::Created, CreateError> {
        let (line, _setup) = body.setup_line()?;
        let id = random_hex(12)?;
        let tokens = flagfall_protocol::Tokens {
            white: random_hex(32)?,
            black: random_hex(32)?,
            director: random_hex(32)?,
        };
        let row = flagfall_store::NewGame {
            id: id.clone(),
            setup: line.clone(),
            mode: body.mode(),
            token_white: token_hash(&tokens.white),
            token_black: token_hash(&tokens.black),
            token_director: token_hash(&tokens.director),
            created_ms: now_unix_ms(),
            practice,
        };
        self.store.create_game(&row).await?;
        self.start_new(&row, body.mode()).await?;
        let urls = flagfall_protocol::Urls::of(&id, &tokens);
        Ok(flagfall_protocol::Created { id, tokens, urls })
    }

    /// Start the task of a game whose row was just stored (no events yet), unless a task
    /// for it already runs.
    pub(crate) async fn start_new(
        self: &Arc<Self>,
        row: &flagfall_store::NewGame,
        mode: Mode,
    ) -> Result<(), ServerError> {
        if self.seam.node().is_some() {
            // Where several nodes serve games (a cluster), the node that creates a game
            // claims it (a load balancer spreads creations, and so new games, over the
            // nodes); when another node claimed it first (a player connected there
            // already), that one serves it.
            return match self.load_here(&row.id).await {
                Ok(_) | Err(ServerError::Elsewhere { .. }) => Ok(()),
                Err(e) => Err(e),
            };
        }
        let meta = GameMeta {
            id: row.id.clone(),
            setup: serde_json::from_str(&row.setup)
                .map_err(|e| ServerError::Corrupt(format!("game {}: setup: {e}", row.id)))?,
            setup_line: row.setup.clone(),
            mode,
            token_hashes: [
                row.token_white.clone(),
                row.token_black.clone(),
                row.token_director.clone(),
            ],
            created_ms: row.created_ms,
        };
        // A request that already loaded the game from the store (the challenge's creator
        // polls and may connect as soon as the accept committed) keeps its task: one task
        // per game.
        let loaded = game::load(self.clone(), meta, Vec::new(), None)?;
        let mut games = self.lock();
        // Stored and not started once the server stops (an evening's change finishing
        // its pairing): served when asked for, or when the server starts again.
        if games.get(&row.id).is_some_and(|h| !h.tx.is_closed()) || self.stopping() {
            return Ok(());
        }
        games.insert(row.id.clone(), loaded.start());
        Ok(())
    }
}
