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
// `game_id` order (the renewal, the fenced append, one statement each), or skips locked rows (`SKIP LOCKED`:
// takeovers and their clean-up), so that two of them cannot deadlock.

use std::collections::HashSet;

use sqlx::Row;

use crate::error::q;
use crate::postgres::PgStore;
use crate::rows::Text;
use crate::sql::EventColumns;
use crate::{NewEvent, Result, StoreError};

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
     FROM game_leases WHERE game_id = $1 AND owner <> ''";

/// Renew all of a node's leases; rows locked in id order, then updated.
const RENEW: &str = concat!(
    "UPDATE game_leases SET expires = ",
    lease_interval!(2),
    " WHERE owner = $1 AND game_id IN (SELECT game_id FROM game_leases WHERE owner = $1 \
     ORDER BY game_id FOR NO KEY UPDATE) \
     RETURNING game_id, epoch"
);

/// Release: the row is kept, expired and owned by nobody (`''`, never a node's name), so
/// the expired leases' scan takes the game over at once; [`LEASE_OF`] reads such a row as
/// no lease, a claim takes it, the renewal of its last owner passes it by.
/// (Expired as of the release, a finite time: an infinite one would break any
/// subtraction of times, a monitor's among them.)
const RELEASE: &str = "UPDATE game_leases \
     SET owner = '', expires = clock_timestamp() - interval '1 millisecond' \
     WHERE game_id = $1 AND owner = $2 AND epoch = $3";

/// Expired leases of live games, oldest expiry first, skipping rows a commit holds.
const TAKE_EXPIRED: &str = concat!(
    "UPDATE game_leases SET owner = $1, epoch = nextval('lease_epochs'), expires = ",
    lease_interval!(2),
    " WHERE game_id IN (SELECT l.game_id FROM game_leases l JOIN games g ON g.id = l.game_id \
     WHERE l.expires < now() AND g.status = 'live' ORDER BY l.expires LIMIT $3 \
     FOR UPDATE OF l SKIP LOCKED) \
     RETURNING game_id, epoch"
);

/// Live games nobody ever leased, oldest first, that were created more than a lease ago
/// (by the creator's clock): a game just created is claimed by the node that created it
/// a moment later, and a scan in between would move it. `$extra` narrows the games
/// looked at ([`TAKE_UNLEASED_RECENT`]).
macro_rules! take_unleased {
    ($extra:literal) => {
        concat!(
            "INSERT INTO game_leases (game_id, owner, epoch, expires) \
             SELECT id, $1, nextval('lease_epochs'), ",
            lease_interval!(2),
            " FROM (SELECT g.id FROM games g, \
             (SELECT floor(EXTRACT(EPOCH FROM now()) * 1000)::BIGINT - $2 AS before) AS cut \
             WHERE g.status = 'live' AND g.created_ms < cut.before ",
            $extra,
            " AND NOT EXISTS (SELECT 1 FROM game_leases l WHERE l.game_id = g.id) \
             ORDER BY g.created_ms, g.id LIMIT $3) AS free \
             ON CONFLICT (game_id) DO NOTHING \
             RETURNING game_id, epoch"
        )
    };
}

/// [`take_unleased!`] over every live game ([`Unleased::All`]): a join of each with the
/// leases (5-9 ms at 6,000 live games).
const TAKE_UNLEASED: &str = take_unleased!("");

/// [`take_unleased!`] over the games created in the [`RECENT_MS`] before the lease
/// ([`Unleased::Recent`]: a range of the `games_status` index, empty in a steady state:
/// 0.03 ms). Twice a second on every node, the join of every live game with every lease had
/// been the largest of a cluster's periodic costs (BENCHMARKS.md, issue 34 goal 2,
/// session 8). A released lease is not deleted but marked ([`RELEASE`]), so the expired
/// leases' scan finds it at once.
const TAKE_UNLEASED_RECENT: &str = take_unleased!("AND g.created_ms >= cut.before - $4::BIGINT");

/// How far back before the lease [`Unleased::Recent`] looks, in ms.
pub const RECENT_MS: i64 = 4_000;

/// Which live games without a lease a takeover looks at ([`crate::Store::lease_take_over`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unleased {
    /// Those created in the [`RECENT_MS`] before the lease: a game whose creator did not
    /// claim it. Cheap (an index range, empty in a steady state); the caller's scans
    /// must come more often than [`RECENT_MS`].
    Recent,
    /// All of them: also a game made before a cluster existed. A join of every live game
    /// with every lease: now and then, not at every scan.
    All,
}

/// Expired leases of games no longer live: nobody will serve them again.
const DROP_FINISHED: &str = "DELETE FROM game_leases WHERE game_id IN \
     (SELECT l.game_id FROM game_leases l JOIN games g ON g.id = l.game_id \
     WHERE l.expires < now() AND g.status <> 'live' LIMIT $1 FOR UPDATE OF l SKIP LOCKED)";

/// The fenced commit, one statement (issue 32; docs/cluster.md "Fencing"): no transaction
/// is left open across the node's round trips, so a node paused mid-commit holds no lock
/// that keeps a takeover waiting; the database finishes or fails the statement alone.
///
/// - `fence`: the (game, epoch) pairs wanted (`$2`, `$3`) whose lease row is `$1`'s at
///   that epoch and unexpired by the database's clock, and whose game is not aborted;
///   the lease rows and game rows locked `FOR SHARE` in id order until the statement
///   ends, against takeovers and against an evening's abort of the game (which locks the
///   game row `FOR UPDATE`, then aborts it only if it has no event: whichever is first,
///   the other sees it). Each row sets the statement's `lock_timeout` to what is left of
///   its lease before it is locked (the projection runs below the row lock): that wait,
///   and any later one (a foreign key's lock on a game row, the games' `UPDATE`), that
///   would outlast the lease fails the statement.
///   Each pair is looked up by the two primary keys in a subquery of its own (a
///   subquery that locks rows is never merged into the outer query): the statement is
///   planned once per connection (its connections force a generic plan: planned anew
///   each time, it spent more time in the planner than in its execution), and a plan
///   built from the statistics of a young database would otherwise stay (a join with
///   the whole of the node's leases, sorted: 3.5 ms a commit; BENCHMARKS.md, issue 34
///   goal 2, session 7).
/// - `ins`: the events (`$4`..`$9`, with their request's epoch) of the pairs fenced, in
///   order; each checks again at its insert that its lease has not run out meanwhile
///   (`flagfall_lease_lapsed` raises: nothing of the statement is stored).
/// - `fin`: the games finished by an event stored.
///
/// Answers the pairs fenced (stored); the caller refuses the others.
const FENCED_APPEND: &str = "WITH fence AS MATERIALIZED ( \
       SELECT x.game_id, x.epoch, x.lock_timeout \
       FROM (SELECT u.game_id, u.epoch FROM unnest($2::TEXT[], $3::BIGINT[]) AS u(game_id, epoch) \
         ORDER BY u.game_id OFFSET 0) AS w \
       CROSS JOIN LATERAL ( \
         SELECT l.game_id, l.epoch, set_config('lock_timeout', \
           greatest(1, floor(EXTRACT(EPOCH FROM (l.expires - clock_timestamp())) * 1000))::BIGINT::TEXT, \
           true) AS lock_timeout \
         FROM game_leases l JOIN games g ON g.id = l.game_id \
         WHERE l.game_id = w.game_id AND l.epoch = w.epoch AND l.owner = $1 \
           AND l.expires > clock_timestamp() AND g.status <> 'aborted' \
         FOR SHARE OF l, g \
       ) AS x \
     ), ins AS ( \
       INSERT INTO events (game_id, n, json, by_role, client_id) \
       SELECT e.game_id, e.n, e.json, e.by_role, e.client_id \
       FROM unnest($4::TEXT[], $5::BIGINT[], $6::TEXT[], $7::TEXT[], $8::TEXT[], $9::BIGINT[]) \
         WITH ORDINALITY AS e(game_id, n, json, by_role, client_id, epoch, i) \
       WHERE CASE \
         WHEN NOT EXISTS (SELECT 1 FROM fence f WHERE f.game_id = e.game_id AND f.epoch = e.epoch) \
           THEN false \
         WHEN EXISTS (SELECT 1 FROM game_leases l WHERE l.game_id = e.game_id \
           AND l.epoch = e.epoch AND l.expires <= clock_timestamp()) \
           THEN flagfall_lease_lapsed(e.game_id, e.epoch) \
         ELSE true END \
       ORDER BY e.i \
       RETURNING game_id \
     ), fin AS ( \
       UPDATE games g SET status = 'finished', result = d.result \
       FROM unnest($10::TEXT[], $11::TEXT[], $12::BIGINT[]) AS d(game_id, result, epoch) \
       WHERE g.id = d.game_id \
         AND EXISTS (SELECT 1 FROM fence f WHERE f.game_id = d.game_id AND f.epoch = d.epoch) \
       RETURNING g.id \
     ) \
     SELECT f.game_id, f.epoch, (SELECT count(*) FROM ins), (SELECT count(*) FROM fin) \
     FROM fence f";

/// Clock marks, fenced by epoch (issue 32, item 6): a mark of a cluster's task is stored
/// only while its game's lease is at the task's epoch (and not released), and never
/// replaces a mark of a later epoch (a takeover that committed while this statement
/// ran). A mark without an epoch (a single node) is stored as before.
const FENCED_MARKS: &str = "INSERT INTO clock_marks (game_id, run, at, wall_ms, epoch) \
     SELECT m.game_id, $1, m.at, m.wall_ms, m.epoch \
     FROM unnest($2::TEXT[], $3::BIGINT[], $4::BIGINT[], $5::BIGINT[]) AS m(game_id, at, wall_ms, epoch) \
     WHERE m.epoch IS NULL OR EXISTS (SELECT 1 FROM game_leases l \
       WHERE l.game_id = m.game_id AND l.epoch = m.epoch AND l.owner <> '') \
     ON CONFLICT (game_id) DO UPDATE SET run = excluded.run, at = excluded.at, \
       wall_ms = excluded.wall_ms, epoch = excluded.epoch \
     WHERE excluded.epoch IS NULL OR clock_marks.epoch IS NULL \
       OR excluded.epoch >= clock_marks.epoch";

/// The statement storing `marks` of run `run` (any number, one statement).
pub(crate) fn fenced_marks<'q>(
    run: &'q str,
    marks: &[crate::ClockMark],
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    sqlx::query(FENCED_MARKS)
        .bind(run)
        .bind(marks.iter().map(|m| m.game_id.clone()).collect::<Vec<_>>())
        .bind(marks.iter().map(|m| m.at).collect::<Vec<_>>())
        .bind(marks.iter().map(|m| m.wall_ms).collect::<Vec<_>>())
        .bind(marks.iter().map(|m| m.lease).collect::<Vec<_>>())
}

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
            .fetch_all(&self.own.leases)
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
        unleased: Unleased,
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
                .fetch_all(&self.own.leases)
                .await
                .map_err(q(doing))?;
            taken = leases(&rows, doing)?;
        }
        let left = limit - taken.len() as i64;
        if left > 0 {
            let query = match unleased {
                Unleased::All => sqlx::query(TAKE_UNLEASED)
                    .bind(node)
                    .bind(lease_ms)
                    .bind(left),
                Unleased::Recent => sqlx::query(TAKE_UNLEASED_RECENT)
                    .bind(node)
                    .bind(lease_ms)
                    .bind(left)
                    .bind(RECENT_MS),
            };
            let rows = query.fetch_all(&self.own.leases).await.map_err(q(doing))?;
            taken.extend(leases(&rows, doing)?);
        }
        // The clean-up is bounded like the takeover (the next scan does the rest).
        sqlx::query(DROP_FINISHED)
            .bind(limit.max(1))
            .execute(&self.own.leases)
            .await
            .map_err(q("deleting the leases of finished games"))?;
        Ok(taken)
    }

    pub(crate) async fn fenced_append(
        &self,
        batch: &[NewEvent],
        node: &str,
        epochs: &[i64],
    ) -> Result<Vec<Lease>> {
        if epochs.len() != batch.len() {
            return Err(StoreError::Invalid(format!(
                "a fenced commit of {} events with {} epochs",
                batch.len(),
                epochs.len()
            )));
        }
        // The (game, epoch) pairs in the batch's order, each once.
        let mut seen = HashSet::new();
        let pairs: Vec<(&str, i64)> = batch
            .iter()
            .zip(epochs)
            .map(|(e, ep)| (e.game_id.as_str(), *ep))
            .filter(|p| seen.insert(*p))
            .collect();
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let doing = "appending events (fenced)";
        let finished: Vec<(&NewEvent, i64)> = batch
            .iter()
            .zip(epochs)
            .filter(|(e, _)| e.finished.is_some())
            .map(|(e, ep)| (e, *ep))
            .collect();
        // The events' columns as `append` writes them (`sql::event_row`), as arrays.
        let events = EventColumns::of(batch);
        let rows = sqlx::query(FENCED_APPEND)
            .bind(node)
            .bind(pairs.iter().map(|p| p.0).collect::<Vec<_>>())
            .bind(pairs.iter().map(|p| p.1).collect::<Vec<_>>())
            .bind(events.game_id)
            .bind(events.n)
            .bind(events.json)
            .bind(events.by_role)
            .bind(events.client_id)
            .bind(epochs)
            .bind(
                finished
                    .iter()
                    .map(|(e, _)| e.game_id.as_str())
                    .collect::<Vec<_>>(),
            )
            .bind(
                finished
                    .iter()
                    .filter_map(|(e, _)| e.finished.map(|r| r.text()))
                    .collect::<Vec<_>>(),
            )
            .bind(finished.iter().map(|(_, ep)| *ep).collect::<Vec<_>>())
            .fetch_all(&self.own.fenced)
            .await
            .map_err(q(doing))?;
        let mut held = HashSet::new();
        for r in &rows {
            let game: String = r.try_get(0).map_err(q(doing))?;
            let epoch: i64 = r.try_get(1).map_err(q(doing))?;
            held.insert((game, epoch));
        }
        Ok(pairs
            .into_iter()
            .filter(|(g, ep)| !held.contains(&(g.to_string(), *ep)))
            .map(|(g, ep)| Lease {
                game_id: g.to_string(),
                epoch: ep,
            })
            .collect())
    }
}
