//! A store that fails on demand under a game in play (issue 19, items 6 and 7 and the
//! fault-injection test): the real store wrapped, its next commit failing before it
//! writes (nothing stored) or after (stored, but reported failed: ambiguous), its reads
//! failing while the database is "down".

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use flagfall_store::{
    ChallengeRow, ClockMark, GameRow, GameSummary, NewChallenge, NewEvent, NewGame, Status, Store,
    StoreError, StoreFuture, StoredEvent,
};

/// How the next commits fail.
#[derive(Default)]
pub struct Faults {
    /// Commits to fail without writing.
    pub fail_before: AtomicU32,
    /// Commits to write and then report failed.
    pub fail_after: AtomicU32,
    /// Reads of a game's events fail while set.
    pub reads_down: AtomicBool,
    /// Milliseconds every commit waits before it writes (a slow database).
    pub stall_ms: AtomicU64,
    /// Heartbeats stored, and the clock marks they carried (counted, not faulted).
    pub beats: AtomicU32,
    pub marks: AtomicU32,
    /// Evenings' commits to fail without writing (issue 21).
    pub evening_fail: AtomicU32,
    /// Milliseconds every evening's commit waits before it writes (another server's
    /// change lands meanwhile: issue 22, two writers).
    pub evening_stall_ms: AtomicU64,
}

pub struct FaultyStore {
    pub inner: Arc<dyn Store>,
    pub faults: Arc<Faults>,
}

fn down(what: &str) -> StoreError {
    StoreError::Corrupt(format!("injected fault: {what}"))
}

fn take(n: &AtomicU32) -> bool {
    n.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| v.checked_sub(1))
        .is_ok()
}

impl Store for FaultyStore {
    fn backend(&self) -> &'static str {
        self.inner.backend()
    }
    fn create_game<'a>(&'a self, game: &'a NewGame) -> StoreFuture<'a, ()> {
        self.inner.create_game(game)
    }
    fn game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<GameRow>> {
        self.inner.game(id)
    }
    fn events<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Vec<StoredEvent>> {
        Box::pin(async move {
            if self.faults.reads_down.load(Ordering::SeqCst) {
                return Err(down("reading events"));
            }
            self.inner.events(id).await
        })
    }
    fn append<'a>(&'a self, batch: &'a [NewEvent]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let stall = self.faults.stall_ms.load(Ordering::SeqCst);
            if stall > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(stall)).await;
            }
            if take(&self.faults.fail_before) {
                return Err(down("commit refused"));
            }
            self.inner.append(batch).await?;
            if take(&self.faults.fail_after) {
                return Err(down("commit done, reported failed"));
            }
            Ok(())
        })
    }
    fn list<'a>(&'a self, status: Option<Status>, limit: i64) -> StoreFuture<'a, Vec<GameSummary>> {
        Box::pin(async move {
            if self.faults.reads_down.load(Ordering::SeqCst) {
                return Err(down(
                    "relation \"games\" at db.internal:5432 user=flagfall: listing",
                ));
            }
            self.inner.list(status, limit).await
        })
    }
    fn live_ids(&self) -> StoreFuture<'_, Vec<String>> {
        self.inner.live_ids()
    }
    fn create_challenge<'a>(&'a self, c: &'a NewChallenge) -> StoreFuture<'a, ()> {
        self.inner.create_challenge(c)
    }
    fn challenge<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ChallengeRow>> {
        self.inner.challenge(id)
    }
    fn open_challenges<'a>(
        &'a self,
        since_ms: i64,
        limit: i64,
    ) -> StoreFuture<'a, Vec<ChallengeRow>> {
        self.inner.open_challenges(since_ms, limit)
    }
    fn accept_challenge<'a>(
        &'a self,
        id: &'a str,
        creator_color: flagfall_protocol::ColorName,
        game: &'a NewGame,
    ) -> StoreFuture<'a, bool> {
        self.inner.accept_challenge(id, creator_color, game)
    }
    fn cancel_challenge<'a>(&'a self, id: &'a str, secret_hash: &'a str) -> StoreFuture<'a, bool> {
        self.inner.cancel_challenge(id, secret_hash)
    }
    fn abort_game<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        self.inner.abort_game(id)
    }
    fn abort_unstarted<'a>(&'a self, before_ms: i64) -> StoreFuture<'a, u64> {
        self.inner.abort_unstarted(before_ms)
    }
    fn alive<'a>(
        &'a self,
        run: &'a str,
        started_ms: i64,
        now_ms: i64,
        marks: &'a [ClockMark],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.faults.beats.fetch_add(1, Ordering::SeqCst);
            self.faults
                .marks
                .fetch_add(marks.len() as u32, Ordering::SeqCst);
            self.inner.alive(run, started_ms, now_ms, marks).await
        })
    }
    fn last_beat<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<i64>> {
        self.inner.last_beat(id)
    }
    fn rematch<'a>(
        &'a self,
        game_id: &'a str,
    ) -> StoreFuture<'a, Option<flagfall_store::RematchRow>> {
        self.inner.rematch(game_id)
    }
    fn offer_rematch<'a>(
        &'a self,
        game_id: &'a str,
        by: flagfall_protocol::ColorName,
        offer_token_hash: &'a str,
        now_ms: i64,
    ) -> StoreFuture<'a, bool> {
        self.inner
            .offer_rematch(game_id, by, offer_token_hash, now_ms)
    }
    fn decline_rematch<'a>(
        &'a self,
        game_id: &'a str,
        offered_by: flagfall_protocol::ColorName,
        now_ms: i64,
    ) -> StoreFuture<'a, bool> {
        self.inner.decline_rematch(game_id, offered_by, now_ms)
    }
    fn accept_rematch<'a>(
        &'a self,
        game_id: &'a str,
        offered_by: flagfall_protocol::ColorName,
        game: &'a NewGame,
        now_ms: i64,
    ) -> StoreFuture<'a, bool> {
        self.inner.accept_rematch(game_id, offered_by, game, now_ms)
    }
    fn create_tournament<'a>(
        &'a self,
        t: &'a flagfall_store::NewTournament,
        tokens: &'a [flagfall_store::TournamentToken],
    ) -> StoreFuture<'a, ()> {
        self.inner.create_tournament(t, tokens)
    }
    fn tournament<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Option<flagfall_store::NewTournament>> {
        self.inner.tournament(id)
    }
    fn tournament_log<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Vec<flagfall_store::TournamentLogRow>> {
        self.inner.tournament_log(id)
    }
    fn tournament_log_after<'a>(
        &'a self,
        id: &'a str,
        seq: i64,
    ) -> StoreFuture<'a, Vec<flagfall_store::TournamentLogRow>> {
        self.inner.tournament_log_after(id, seq)
    }
    fn tournament_tokens<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Vec<flagfall_store::TournamentToken>> {
        self.inner.tournament_tokens(id)
    }
    fn tournament_of_game<'a>(&'a self, game_id: &'a str) -> StoreFuture<'a, Option<String>> {
        self.inner.tournament_of_game(game_id)
    }
    fn tournament_commit<'a>(
        &'a self,
        c: &'a flagfall_store::TournamentCommit,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if take(&self.faults.evening_fail) {
                return Err(down("an evening's commit refused"));
            }
            let stall = self.faults.evening_stall_ms.load(Ordering::SeqCst);
            if stall > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(stall)).await;
            }
            self.inner.tournament_commit(c).await
        })
    }
}
