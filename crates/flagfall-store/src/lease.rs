//! A cluster's leases (issue 22, docs/cluster.md): which node serves each loaded game.
//! The rows and statements are PostgreSQL's (`postgres.rs`); SQLite has none.

/// A lease a node holds: the game and the epoch of its taking (the fencing token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub game_id: String,
    pub epoch: i64,
}

/// A game's lease as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRow {
    pub game_id: String,
    pub owner: String,
    pub epoch: i64,
    /// Milliseconds until it expires by the database's clock (negative: expired).
    pub expires_in_ms: i64,
}

// PostgreSQL's statements and their use (`PgStore`'s methods in `postgres.rs` call these).
//
// Times: every expiry is set and compared by the database's clock, never the caller's.
// New expiries are `clock_timestamp()` plus the lease, evaluated where the row is written,
// after its lock was had (an `UPDATE`'s `SET`, a `DO UPDATE`'s `SET`; never a `VALUES`
// computed before a wait), so a statement that waited for a lock still grants the whole
// lease from when it was granted; a claim, which may wait for a lock on its row, compares
// with `clock_timestamp()` too. Scans compare with
// `now()` (the statement's start in these one-statement transactions; stable, so the
// index on `expires` serves them).
//
// Locks: every statement that may wait locks one row (claims, releases) or lease rows in
// `game_id` order (the renewal, the fenced append), or skips locked rows (`SKIP LOCKED`:
// takeovers and their clean-up), so that two of them cannot deadlock.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use sqlx::Row;

use crate::error::q;
use crate::postgres::PgStore;
use crate::sql::Bind;
use crate::{NewEvent, ROWS_PER_INSERT, Result, StoreError};

/// The lease as an interval: `$n` milliseconds.
macro_rules! lease_interval {
    ($n:literal) => {
        concat!(
            "clock_timestamp() + $",
            $n,
            "::BIGINT * interval '1 millisecond'"
        )
    };
}

/// Insert the lease, or take the row when it expired or is already this node's, with a
/// new epoch. Nothing returned when another node holds it unexpired.
///
/// The expiry of a row taken is computed in `DO UPDATE`, after the row's lock was had:
/// a claim that waited for a commit or a renewal still gets a whole lease from then
/// (`excluded.expires`, from `VALUES`, was computed before the wait; issue 32).
const CLAIM: &str = concat!(
    "INSERT INTO game_leases (game_id, owner, epoch, expires) \
     VALUES ($1, $2, nextval('lease_epochs'), ",
    lease_interval!(3),
    ") ON CONFLICT (game_id) DO UPDATE \
     SET owner = excluded.owner, epoch = excluded.epoch, expires = ",
    lease_interval!(3),
    " WHERE game_leases.expires < clock_timestamp() OR game_leases.owner = excluded.owner \
     RETURNING epoch"
);

const LEASE_OF: &str = "SELECT game_id, owner, epoch, \
     floor(EXTRACT(EPOCH FROM (expires - clock_timestamp())) * 1000)::BIGINT \
     FROM game_leases WHERE game_id = $1";

/// Renew all of a node's leases; rows locked in id order, then updated.
const RENEW: &str = concat!(
    "UPDATE game_leases SET expires = ",
    lease_interval!(2),
    " WHERE owner = $1 AND game_id IN (SELECT game_id FROM game_leases WHERE owner = $1 \
     ORDER BY game_id FOR NO KEY UPDATE) \
     RETURNING game_id, epoch"
);

const RELEASE: &str = "DELETE FROM game_leases WHERE game_id = $1 AND owner = $2 AND epoch = $3";

/// Expired leases of live games, oldest expiry first, skipping rows a commit holds.
const TAKE_EXPIRED: &str = concat!(
    "UPDATE game_leases SET owner = $1, epoch = nextval('lease_epochs'), expires = ",
    lease_interval!(2),
    " WHERE game_id IN (SELECT l.game_id FROM game_leases l JOIN games g ON g.id = l.game_id \
     WHERE l.expires < now() AND g.status = 'live' ORDER BY l.expires LIMIT $3 \
     FOR UPDATE OF l SKIP LOCKED) \
     RETURNING game_id, epoch"
);

/// Live games nobody ever leased (or whose lease was released), oldest first; only those
/// created more than a lease ago (by the creator's clock): a game just created is claimed
/// by the node that created it a moment later, and a scan in between would move it.
const TAKE_UNLEASED: &str = concat!(
    "INSERT INTO game_leases (game_id, owner, epoch, expires) \
     SELECT id, $1, nextval('lease_epochs'), ",
    lease_interval!(2),
    " FROM (SELECT g.id FROM games g WHERE g.status = 'live' \
     AND g.created_ms < floor(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT - $2 \
     AND NOT EXISTS (SELECT 1 FROM game_leases l WHERE l.game_id = g.id) \
     ORDER BY g.created_ms, g.id LIMIT $3) AS free \
     ON CONFLICT (game_id) DO NOTHING \
     RETURNING game_id, epoch"
);

/// Expired leases of games no longer live: nobody will serve them again.
const DROP_FINISHED: &str = "DELETE FROM game_leases WHERE game_id IN \
     (SELECT l.game_id FROM game_leases l JOIN games g ON g.id = l.game_id \
     WHERE l.expires < now() AND g.status <> 'live' LIMIT $1 FOR UPDATE OF l SKIP LOCKED)";

/// The batch's lease rows, locked against takeovers until the commit, in id order.
const FENCES: &str = "SELECT game_id, owner, epoch FROM game_leases WHERE game_id = ANY($1) \
     ORDER BY game_id FOR SHARE";

/// A lease length the database can take: at least a millisecond, at most a day.
fn check_lease_ms(lease_ms: i64) -> Result<()> {
    if (1..=86_400_000).contains(&lease_ms) {
        Ok(())
    } else {
        Err(StoreError::Invalid(format!(
            "a lease of {lease_ms} ms (from 1 ms to one day)"
        )))
    }
}

fn leases(rows: &[sqlx::postgres::PgRow], doing: &'static str) -> Result<Vec<Lease>> {
    rows.iter()
        .map(|r| {
            Ok(Lease {
                game_id: r.try_get(0).map_err(q(doing))?,
                epoch: r.try_get(1).map_err(q(doing))?,
            })
        })
        .collect()
}

impl PgStore {
    pub(crate) async fn claim(&self, id: &str, node: &str, lease_ms: i64) -> Result<Option<i64>> {
        check_lease_ms(lease_ms)?;
        let row = sqlx::query(CLAIM)
            .bind(id)
            .bind(node)
            .bind(lease_ms)
            .fetch_optional(&self.writer)
            .await
            .map_err(q("claiming a game's lease"))?;
        row.map(|r| r.try_get(0).map_err(q("claiming a game's lease")))
            .transpose()
    }

    pub(crate) async fn lease_row(&self, id: &str) -> Result<Option<LeaseRow>> {
        let doing = "reading a game's lease";
        let row = sqlx::query(LEASE_OF)
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(q(doing))?;
        row.map(|r| {
            Ok(LeaseRow {
                game_id: r.try_get(0).map_err(q(doing))?,
                owner: r.try_get(1).map_err(q(doing))?,
                epoch: r.try_get(2).map_err(q(doing))?,
                expires_in_ms: r.try_get(3).map_err(q(doing))?,
            })
        })
        .transpose()
    }

    pub(crate) async fn renew(&self, node: &str, lease_ms: i64) -> Result<Vec<Lease>> {
        check_lease_ms(lease_ms)?;
        let doing = "renewing leases";
        let rows = sqlx::query(RENEW)
            .bind(node)
            .bind(lease_ms)
            .fetch_all(&self.leases)
            .await
            .map_err(q(doing))?;
        leases(&rows, doing)
    }

    pub(crate) async fn release(&self, id: &str, node: &str, epoch: i64) -> Result<()> {
        sqlx::query(RELEASE)
            .bind(id)
            .bind(node)
            .bind(epoch)
            .execute(&self.writer)
            .await
            .map_err(q("releasing a lease"))?;
        Ok(())
    }

    pub(crate) async fn take_over(
        &self,
        node: &str,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<Lease>> {
        check_lease_ms(lease_ms)?;
        if limit < 0 {
            return Err(StoreError::Invalid(format!(
                "a takeover of at most {limit} games"
            )));
        }
        let doing = "taking over leases";
        let mut taken = Vec::new();
        if limit > 0 {
            let rows = sqlx::query(TAKE_EXPIRED)
                .bind(node)
                .bind(lease_ms)
                .bind(limit)
                .fetch_all(&self.leases)
                .await
                .map_err(q(doing))?;
            taken = leases(&rows, doing)?;
        }
        let left = limit - taken.len() as i64;
        if left > 0 {
            let rows = sqlx::query(TAKE_UNLEASED)
                .bind(node)
                .bind(lease_ms)
                .bind(left)
                .fetch_all(&self.leases)
                .await
                .map_err(q(doing))?;
            taken.extend(leases(&rows, doing)?);
        }
        // The clean-up is bounded like the takeover (the next scan does the rest).
        sqlx::query(DROP_FINISHED)
            .bind(limit.max(1))
            .execute(&self.leases)
            .await
            .map_err(q("deleting the leases of finished games"))?;
        Ok(taken)
    }

    pub(crate) async fn fenced_append(
        &self,
        batch: &[NewEvent],
        node: &str,
        fences: &[Lease],
    ) -> Result<Vec<String>> {
        // The games in the batch's order, each once.
        let mut seen = HashSet::new();
        let games: Vec<&str> = batch
            .iter()
            .map(|e| e.game_id.as_str())
            .filter(|id| seen.insert(*id))
            .collect();
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let wanted: HashMap<&str, i64> = fences
            .iter()
            .map(|l| (l.game_id.as_str(), l.epoch))
            .collect();
        let mut tx = self.writer.begin().await.map_err(q("starting a commit"))?;
        let ids: Vec<String> = games.iter().map(|s| s.to_string()).collect();
        let rows = sqlx::query(FENCES)
            .bind(&ids)
            .fetch_all(&mut *tx)
            .await
            .map_err(q("locking leases"))?;
        let mut held = HashSet::new();
        for r in &rows {
            let game: String = r.try_get(0).map_err(q("locking leases"))?;
            let owner: String = r.try_get(1).map_err(q("locking leases"))?;
            let epoch: i64 = r.try_get(2).map_err(q("locking leases"))?;
            if owner == node && wanted.get(game.as_str()) == Some(&epoch) {
                held.insert(game);
            }
        }
        let refused: Vec<String> = games
            .iter()
            .filter(|g| !held.contains(**g))
            .map(|g| g.to_string())
            .collect();
        let kept: Cow<'_, [NewEvent]> = if refused.is_empty() {
            Cow::Borrowed(batch)
        } else {
            batch
                .iter()
                .filter(|e| held.contains(&e.game_id))
                .cloned()
                .collect()
        };
        if kept.is_empty() {
            tx.rollback().await.map_err(q("ending a fenced commit"))?;
            return Ok(refused);
        }
        for chunk in kept.chunks(ROWS_PER_INSERT) {
            Bind::<sqlx::Postgres>::insert_events(chunk)
                .build()
                .execute(&mut *tx)
                .await
                .map_err(q("appending events"))?;
        }
        for e in kept.iter() {
            if let Some(result) = e.finished {
                Bind::<sqlx::Postgres>::finish_game(&e.game_id, result)
                    .execute(&mut *tx)
                    .await
                    .map_err(q("finishing a game"))?;
            }
        }
        tx.commit().await.map_err(q("committing events"))?;
        self.after_commit().await;
        Ok(refused)
    }
}
