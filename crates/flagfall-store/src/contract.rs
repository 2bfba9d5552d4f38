//! The contract both backends keep.

use std::future::Future;
use std::pin::Pin;

use flagfall_protocol::ColorName;

use crate::{
    ChallengeRow, ClockMark, GameRow, GameSummary, Lease, LeaseRow, NewChallenge, NewEvent,
    NewGame, NewTournament, RematchRow, Result, Status, StoreError, StoredEvent, TournamentCommit,
    TournamentLogRow, TournamentToken, Unleased,
};

/// The futures the trait returns (object safe, `Send`).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// Rows per INSERT statement: 5 bind parameters a row, 20,480 in all, under either
/// backend's limit (SQLite 32,766, PostgreSQL 65,535). The server's writer takes at
/// most this many events into one group commit, so its commits are one statement.
pub const ROWS_PER_INSERT: usize = 4096;

/// Durable storage of games. Every method is one transaction.
pub trait Store: Send + Sync {
    /// Which backend this is (`sqlite` or `postgres`).
    fn backend(&self) -> &'static str;
    fn create_game<'a>(&'a self, game: &'a NewGame) -> StoreFuture<'a, ()>;
    fn game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<GameRow>>;
    /// The game's events in order.
    fn events<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<StoredEvent>>;
    /// Append events of any games in one transaction (group commit), marking the games
    /// that finished. All or nothing.
    fn append<'a>(&'a self, batch: &'a [NewEvent]) -> StoreFuture<'a, ()>;
    /// Games by status (all when `None`), newest first, at most `limit`. A damaged row is
    /// logged and left out (reading that game alone names what is wrong).
    fn list<'a>(&'a self, status: Option<Status>, limit: i64) -> StoreFuture<'a, Vec<GameSummary>>;
    /// The ids of the live games, oldest first (what a starting server resumes: ids
    /// only, so that one game's damaged row keeps no other from being resumed).
    fn live_ids(&self) -> StoreFuture<'_, Vec<String>>;
    fn create_challenge<'a>(&'a self, c: &'a NewChallenge) -> StoreFuture<'a, ()>;
    fn challenge<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ChallengeRow>>;
    /// Open challenges created after `since_ms` (Unix milliseconds), newest first, at
    /// most `limit`; a damaged row is logged and left out.
    fn open_challenges<'a>(
        &'a self,
        since_ms: i64,
        limit: i64,
    ) -> StoreFuture<'a, Vec<ChallengeRow>>;
    /// Accept an open challenge: in one transaction, mark it accepted (only if it is
    /// still open: a conditional UPDATE, so of two concurrent accepts one wins) and create
    /// `game`. `false`, with nothing written, when the challenge was not open.
    fn accept_challenge<'a>(
        &'a self,
        id: &'a str,
        creator_color: ColorName,
        game: &'a NewGame,
    ) -> StoreFuture<'a, bool>;
    /// Cancel an open challenge whose secret hashes to `secret_hash`; `false` when no
    /// open challenge matches.
    fn cancel_challenge<'a>(&'a self, id: &'a str, secret_hash: &'a str) -> StoreFuture<'a, bool>;
    /// Abort game `id` if it never started: live, with no event stored (status
    /// `aborted`, no result, nothing deleted). `false`, with nothing written, otherwise.
    fn abort_game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;
    /// Abort every game created before `before_ms` (Unix milliseconds) that never
    /// started; how many.
    fn abort_unstarted<'a>(&'a self, before_ms: i64) -> StoreFuture<'a, u64>;
    /// The heartbeat, O(1) rows a beat: server process `run` (started at `started_ms`)
    /// was alive at `now_ms` (Unix milliseconds; kept only when later than the one
    /// stored), and `marks`, usually none, map games' clocks to the wall clock in this
    /// run (replacing a game's earlier mark). One transaction.
    fn alive<'a>(
        &'a self,
        run: &'a str,
        started_ms: i64,
        now_ms: i64,
        marks: &'a [ClockMark],
    ) -> StoreFuture<'a, ()>;
    /// The game clock a game had reached when the server was last known alive: its
    /// mark's `at` plus the wall time from the mark to its run's last heartbeat. `None`
    /// when the game has no mark (its clock never ran).
    fn last_beat<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<i64>>;

    // Rematches of finished games (issue 20; `rematch.rs`).
    /// Game `game_id`'s rematch, if anyone offered one.
    fn rematch<'a>(&'a self, game_id: &'a str) -> StoreFuture<'a, Option<RematchRow>>;
    /// `by` offers a rematch of `game_id`, holding the token whose hash is
    /// `offer_token_hash` in the new game: stored when nobody offered yet, over a
    /// declined offer, or over `by`'s own standing offer. `false`, with nothing written,
    /// when the other player's offer stands or the rematch was accepted.
    fn offer_rematch<'a>(
        &'a self,
        game_id: &'a str,
        by: ColorName,
        offer_token_hash: &'a str,
        now_ms: i64,
    ) -> StoreFuture<'a, bool>;
    /// Decline `offered_by`'s standing offer; `false`, with nothing written, when no
    /// offer of theirs stands.
    fn decline_rematch<'a>(
        &'a self,
        game_id: &'a str,
        offered_by: ColorName,
        now_ms: i64,
    ) -> StoreFuture<'a, bool>;
    /// Accept `offered_by`'s standing offer: in one transaction, create `game` and mark
    /// the rematch accepted with it (a conditional UPDATE, so of two concurrent accepts
    /// one wins). `false`, with nothing written, when no offer of theirs stands.
    fn accept_rematch<'a>(
        &'a self,
        game_id: &'a str,
        offered_by: ColorName,
        game: &'a NewGame,
        now_ms: i64,
    ) -> StoreFuture<'a, bool>;

    // Blitz evenings (issue 21; `tournament.rs`).
    /// Create an evening with its first tokens (director, deputy).
    fn create_tournament<'a>(
        &'a self,
        t: &'a NewTournament,
        tokens: &'a [TournamentToken],
    ) -> StoreFuture<'a, ()>;
    /// An evening as created.
    fn tournament<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<NewTournament>>;
    /// An evening's log, in order.
    fn tournament_log<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<TournamentLogRow>>;
    /// An evening's log rows after row `seq`, in order (what other writers stored since a
    /// copy of the evening was loaded).
    fn tournament_log_after<'a>(
        &'a self,
        id: &'a str,
        seq: i64,
    ) -> StoreFuture<'a, Vec<TournamentLogRow>>;
    /// An evening's tokens (hashes).
    fn tournament_tokens<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<TournamentToken>>;
    /// The evening a server game plays for, if any.
    fn tournament_of_game<'a>(&'a self, game_id: &'a str) -> StoreFuture<'a, Option<String>>;
    /// Write what one change of an evening brings, in one transaction: its log rows, new
    /// tokens, new games tied to the evening. All or nothing. A log row whose seq is
    /// stored already (another writer was first) fails it with `StoreError::Conflict`.
    fn tournament_commit<'a>(&'a self, c: &'a TournamentCommit) -> StoreFuture<'a, ()>;

    // Cluster leases (issue 22; `lease.rs`, docs/cluster.md): PostgreSQL only. SQLite
    // answers `StoreError::Unsupported`: a cluster's nodes share one PostgreSQL.
    /// Take game `id` for `node` for `lease_ms` (the database's clock): a new lease, or
    /// the existing one when it expired or is already `node`'s, with a new epoch from
    /// the global sequence. `None` when another node holds it unexpired.
    fn lease_claim<'a>(
        &'a self,
        id: &'a str,
        node: &'a str,
        lease_ms: i64,
    ) -> StoreFuture<'a, Option<i64>> {
        let _ = (id, node, lease_ms);
        unsupported()
    }
    /// Who holds game `id`'s lease, if anyone (expired or not).
    fn lease_of<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<LeaseRow>> {
        let _ = id;
        unsupported()
    }
    /// Renew every lease `node` holds, in one statement (expired ones too, when nobody
    /// took them: their epoch is unchanged): the leases it still holds.
    fn lease_renew<'a>(&'a self, node: &'a str, lease_ms: i64) -> StoreFuture<'a, Vec<Lease>> {
        let _ = (node, lease_ms);
        unsupported()
    }
    /// Give up game `id`'s lease if `node` still holds it at `epoch`.
    fn lease_release<'a>(&'a self, id: &'a str, node: &'a str, epoch: i64) -> StoreFuture<'a, ()> {
        let _ = (id, node, epoch);
        unsupported()
    }
    /// Take over, for `node`, at most `limit` live games nobody serves: those whose
    /// lease expired (or was released), and live games with no lease at all, of those
    /// `unleased` names; each with a new epoch. Expired leases of games no longer live
    /// are deleted. Rows locked by a commit under way are skipped (`SKIP LOCKED`).
    fn lease_take_over<'a>(
        &'a self,
        node: &'a str,
        lease_ms: i64,
        limit: i64,
        unleased: Unleased,
    ) -> StoreFuture<'a, Vec<Lease>> {
        let _ = (node, lease_ms, limit, unleased);
        unsupported()
    }
    /// [`Store::append`] fenced (Kleppmann's fencing token), request by request:
    /// `epochs[i]` is the lease epoch under which event `i` was made (its game's task's).
    /// The events of a (game, epoch) are stored only if the game's lease is `node`'s at
    /// that epoch and unexpired (and their games finished); the others are refused while
    /// the rest of the batch is stored. The (game, epoch) pairs refused, each once, in
    /// the batch's order. An error, nothing stored, when a lease checked runs out before
    /// the commit is made (its statement waited for a lock past it).
    fn append_fenced<'a>(
        &'a self,
        batch: &'a [NewEvent],
        node: &'a str,
        epochs: &'a [i64],
    ) -> StoreFuture<'a, Vec<Lease>> {
        let _ = (batch, node, epochs);
        unsupported()
    }
    /// Close the store's connections, once what was written is committed: the last
    /// step of a server's stop (SQLite then checkpoints its WAL into the database
    /// file). Waits for connections in use to come back. A store that holds nothing to
    /// close keeps this default.
    fn close(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async {})
    }
}

pub(crate) fn unsupported<'a, T: Send + 'a>() -> StoreFuture<'a, T> {
    Box::pin(async {
        Err(StoreError::Unsupported(
            "a cluster's leases need PostgreSQL (docs/cluster.md)",
        ))
    })
}
