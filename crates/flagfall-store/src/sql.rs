//! The SQL both backends run, written once: the statements (in `$N` placeholders,
//! PostgreSQL's own, which sqlx also binds by number on SQLite), each with its binding
//! ([`Bind`]), the readers of their rows, and the migrator. What differs per backend
//! (pools, pragmas, the checkpoint loop) is in `sqlite.rs` and `postgres.rs`.

use std::borrow::Cow;
use std::marker::PhantomData;

use flagfall_game::GameResult;
use flagfall_protocol::ColorName;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::query::Query;
use sqlx::{ColumnIndex, Database, Decode, Encode, QueryBuilder, Row, Type};

use crate::error::q;
use crate::rows::Text;
use crate::{
    ChallengeRow, ChallengeStatus, ClockMark, GameRow, GameSummary, NewChallenge, NewEvent,
    NewGame, Result, Status, StoreError, StoredEvent,
};

/// A multi-row statement: `head`, then `VALUES` with `rows` rows of `columns`
/// placeholders (`($1, $2), ($3, $4)`), then `tail`. Written out here rather than with
/// sqlx's `QueryBuilder` because a builder's query borrows the builder, which code
/// generic over the database cannot drop while the query runs (its arguments' lifetime
/// is invariant there).
pub(crate) fn values(head: &str, columns: usize, rows: usize, tail: &str) -> String {
    values_with(Placeholders::Numbered, head, columns, rows, tail)
}

/// How a statement names its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placeholders {
    /// `$1, $2, ...`: PostgreSQL's only form, and SQLite's too.
    Numbered,
    /// `?, ?, ...`, numbered by their order: SQLite. sqlx binds a numbered parameter
    /// by asking SQLite its name, which SQLite finds by a walk over every name of the
    /// statement: a multi-row insert of `p` parameters paid `p^2 / 2` steps of that walk
    /// (about 2.7k instructions an event at 10 events a statement). An anonymous
    /// parameter has no name to look up.
    Anonymous,
}

/// [`values`] with the placeholders of `style`.
pub(crate) fn values_with(
    style: Placeholders,
    head: &str,
    columns: usize,
    rows: usize,
    tail: &str,
) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(head.len() + tail.len() + 8 + rows * columns * 7);
    s.push_str(head);
    s.push_str(" VALUES ");
    for r in 0..rows {
        s.push_str(if r == 0 { "(" } else { ", (" });
        for c in 0..columns {
            if c > 0 {
                s.push_str(", ");
            }
            match style {
                Placeholders::Numbered => {
                    let _ = write!(s, "${}", r * columns + c + 1);
                }
                Placeholders::Anonymous => s.push('?'),
            }
        }
        s.push(')');
    }
    s.push_str(tail);
    s
}

/// The head of a multi-row insert of events ([`Bind::event_rows`]).
pub(crate) const INSERT_EVENTS: &str = "INSERT INTO events (game_id, n, json, by_role, client_id)";

/// An event's columns in the `events` table, in [`INSERT_EVENTS`]'s order: what
/// [`Bind::event_rows`] binds row by row and [`EventColumns`] column by column (the
/// fenced commit's arrays), written once.
pub(crate) fn event_row(e: &NewEvent) -> (&str, i64, &str, Option<&'static str>, Option<&str>) {
    (
        e.game_id.as_str(),
        e.n,
        e.json.as_str(),
        e.by_role.as_ref().map(Text::text),
        e.client_id.as_deref(),
    )
}

/// A batch of events as columns of [`event_row`]s (PostgreSQL binds them as arrays).
#[derive(Default)]
pub(crate) struct EventColumns<'a> {
    pub(crate) game_id: Vec<&'a str>,
    pub(crate) n: Vec<i64>,
    pub(crate) json: Vec<&'a str>,
    pub(crate) by_role: Vec<Option<&'static str>>,
    pub(crate) client_id: Vec<Option<&'a str>>,
}

impl<'a> EventColumns<'a> {
    pub(crate) fn of(batch: &'a [NewEvent]) -> EventColumns<'a> {
        let mut c = EventColumns::default();
        for e in batch {
            let (game_id, n, json, by_role, client_id) = event_row(e);
            c.game_id.push(game_id);
            c.n.push(n);
            c.json.push(json);
            c.by_role.push(by_role);
            c.client_id.push(client_id);
        }
        c
    }
}

/// A bound statement of database `DB`.
pub(crate) type Bound<'q, DB> = Query<'q, DB, <DB as Database>::Arguments<'q>>;

/// The columns of a challenge row, in the order [`challenge_row`] reads them.
macro_rules! challenge_columns {
    () => {
        "id, body, color, name, secret_hash, token_hash, director_hash, created_ms, status, game_id, creator_color"
    };
}

/// The statements, bound, for database `DB`.
pub(crate) struct Bind<DB>(PhantomData<DB>);

impl<DB> Bind<DB>
where
    DB: Database,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'q> <DB as Database>::Arguments<'q>: Default,
{
    /// Create a game row (`create_game`, `accept_challenge`).
    pub(crate) fn insert_game(g: &NewGame) -> Bound<'_, DB> {
        sqlx::query(
            "INSERT INTO games (id, setup, mode, token_white, token_black, token_director, created_ms, practice) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(g.id.as_str())
        .bind(g.setup.as_str())
        .bind(g.mode.text())
        .bind(g.token_white.as_str())
        .bind(g.token_black.as_str())
        .bind(g.token_director.as_str())
        .bind(g.created_ms)
        .bind(g.practice.as_deref())
    }

    /// A game's row, read by [`game_row`].
    pub(crate) fn game(id: &str) -> Bound<'_, DB> {
        sqlx::query(
            "SELECT id, setup, mode, token_white, token_black, token_director, created_ms, status, result, practice \
             FROM games WHERE id = $1",
        )
        .bind(id)
    }

    /// A game's events in order, read by [`stored_event`].
    pub(crate) fn events(id: &str) -> Bound<'_, DB> {
        sqlx::query("SELECT n, json, by_role, client_id FROM events WHERE game_id = $1 ORDER BY n")
            .bind(id)
    }

    /// [`INSERT_EVENTS`]'s rows bound to the statement `sql` ([`values`] of 5 columns).
    pub(crate) fn event_rows<'q>(sql: &'q str, chunk: &'q [NewEvent]) -> Bound<'q, DB> {
        chunk.iter().fold(sqlx::query(sql), |s, e| {
            let (game_id, n, json, by_role, client_id) = event_row(e);
            s.bind(game_id)
                .bind(n)
                .bind(json)
                .bind(by_role)
                .bind(client_id)
        })
    }

    /// The heartbeat: run `run` was alive at `now_ms` (never going back).
    pub(crate) fn server_alive(run: &str, started_ms: i64, now_ms: i64) -> Bound<'_, DB> {
        sqlx::query(
            "INSERT INTO server_runs (run, started_ms, alive_ms) VALUES ($1, $2, $3) \
             ON CONFLICT (run) DO UPDATE SET alive_ms = excluded.alive_ms \
             WHERE excluded.alive_ms > server_runs.alive_ms",
        )
        .bind(run)
        .bind(started_ms)
        .bind(now_ms)
    }

    /// Games' clock marks in run `run`, one multi-row statement (at most
    /// [`crate::ROWS_PER_INSERT`] rows), each replacing the game's earlier mark.
    pub(crate) fn insert_marks<'q>(run: &'q str, chunk: &'q [ClockMark]) -> QueryBuilder<'q, DB> {
        let mut b = QueryBuilder::new("INSERT INTO clock_marks (game_id, run, at, wall_ms) ");
        b.push_values(chunk, |mut row, m| {
            row.push_bind(m.game_id.as_str())
                .push_bind(run)
                .push_bind(m.at)
                .push_bind(m.wall_ms);
        });
        b.push(
            " ON CONFLICT (game_id) DO UPDATE SET run = excluded.run, at = excluded.at, \
             wall_ms = excluded.wall_ms",
        );
        b
    }

    /// A game's clock mark and its run's last heartbeat, read by [`clock_reached`].
    pub(crate) fn last_beat(id: &str) -> Bound<'_, DB> {
        sqlx::query(
            "SELECT m.at, m.wall_ms, r.alive_ms FROM clock_marks m \
             JOIN server_runs r ON r.run = m.run WHERE m.game_id = $1",
        )
        .bind(id)
    }

    /// Mark a game finished with its result.
    pub(crate) fn finish_game(id: &str, result: GameResult) -> Bound<'_, DB> {
        sqlx::query("UPDATE games SET status = 'finished', result = $1 WHERE id = $2")
            .bind(result.text())
            .bind(id)
    }

    /// Abort a game that never started: live, with no event stored (one row affected,
    /// or none).
    pub(crate) fn abort_game(id: &str) -> Bound<'_, DB> {
        sqlx::query(
            "UPDATE games SET status = 'aborted' WHERE id = $1 AND status = 'live' \
             AND NOT EXISTS (SELECT 1 FROM events WHERE events.game_id = games.id)",
        )
        .bind(id)
    }

    /// Abort every game created before `before_ms` that never started.
    pub(crate) fn abort_unstarted(before_ms: i64) -> Bound<'static, DB> {
        sqlx::query(
            "UPDATE games SET status = 'aborted' WHERE status = 'live' AND created_ms < $1 \
             AND NOT EXISTS (SELECT 1 FROM events WHERE events.game_id = games.id)",
        )
        .bind(before_ms)
    }

    /// Games by status (all when `None`), newest first, read by [`game_summary`].
    pub(crate) fn list(status: Option<Status>, limit: i64) -> Bound<'static, DB> {
        match status {
            Some(s) => sqlx::query(
                "SELECT id, mode, status, result, created_ms, setup FROM games \
                 WHERE status = $1 ORDER BY created_ms DESC, id LIMIT $2",
            )
            .bind(s.text())
            .bind(limit),
            None => sqlx::query(
                "SELECT id, mode, status, result, created_ms, setup FROM games \
                 ORDER BY created_ms DESC, id LIMIT $1",
            )
            .bind(limit),
        }
    }

    /// The ids of the live games, oldest first.
    pub(crate) fn live_ids() -> Bound<'static, DB> {
        sqlx::query("SELECT id FROM games WHERE status = 'live' ORDER BY created_ms, id")
    }

    pub(crate) fn insert_challenge(c: &NewChallenge) -> Bound<'_, DB> {
        sqlx::query(
            "INSERT INTO challenges (id, body, color, name, secret_hash, token_hash, director_hash, created_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(c.id.as_str())
        .bind(c.body.as_str())
        .bind(c.color.text())
        .bind(c.name.as_deref())
        .bind(c.secret_hash.as_str())
        .bind(c.token_hash.as_str())
        .bind(c.director_hash.as_str())
        .bind(c.created_ms)
    }

    /// A challenge, read by [`challenge_row`].
    pub(crate) fn challenge(id: &str) -> Bound<'_, DB> {
        sqlx::query(concat!(
            "SELECT ",
            challenge_columns!(),
            " FROM challenges WHERE id = $1"
        ))
        .bind(id)
    }

    /// Open challenges created after `since_ms`, newest first, read by [`challenge_row`].
    pub(crate) fn open_challenges(since_ms: i64, limit: i64) -> Bound<'static, DB> {
        sqlx::query(concat!(
            "SELECT ",
            challenge_columns!(),
            " FROM challenges WHERE status = 'open' AND created_ms > $1 ORDER BY created_ms DESC, id LIMIT $2"
        ))
        .bind(since_ms)
        .bind(limit)
    }

    /// Mark a challenge accepted, only if it is still open (one row affected, or none).
    pub(crate) fn accept_challenge<'q>(
        id: &'q str,
        game_id: &'q str,
        creator_color: ColorName,
    ) -> Bound<'q, DB> {
        sqlx::query(
            "UPDATE challenges SET status = 'accepted', game_id = $1, creator_color = $2 \
             WHERE id = $3 AND status = 'open'",
        )
        .bind(game_id)
        .bind(creator_color.text())
        .bind(id)
    }

    /// Cancel an open challenge with the creator's secret (one row affected, or none).
    pub(crate) fn cancel_challenge<'q>(id: &'q str, secret_hash: &'q str) -> Bound<'q, DB> {
        sqlx::query(
            "UPDATE challenges SET status = 'cancelled' \
             WHERE id = $1 AND secret_hash = $2 AND status = 'open'",
        )
        .bind(id)
        .bind(secret_hash)
    }
}

/// Column access with the store's error: `get(row, i, doing)`.
pub(crate) fn get<'r, R, T>(r: &'r R, i: usize, doing: &'static str) -> Result<T>
where
    R: Row,
    usize: ColumnIndex<R>,
    T: Decode<'r, R::Database> + Type<R::Database>,
{
    r.try_get::<T, _>(i).map_err(q(doing))
}

/// A text column read as its type `T`; a value `T` does not know is a
/// [`StoreError::BadValue`] naming the column.
pub(crate) fn typed<'r, R, T>(
    r: &'r R,
    i: usize,
    column: &'static str,
    doing: &'static str,
) -> Result<T>
where
    R: Row,
    usize: ColumnIndex<R>,
    T: Text,
    String: Decode<'r, R::Database> + Type<R::Database>,
{
    let value: String = get(r, i, doing)?;
    T::from_text(&value).ok_or(StoreError::BadValue {
        column,
        value,
        expected: T::EXPECTED,
    })
}

/// A nullable text column read as its type `T` (see [`typed`]).
pub(crate) fn typed_opt<'r, R, T>(
    r: &'r R,
    i: usize,
    column: &'static str,
    doing: &'static str,
) -> Result<Option<T>>
where
    R: Row,
    usize: ColumnIndex<R>,
    T: Text,
    Option<String>: Decode<'r, R::Database> + Type<R::Database>,
{
    match get::<_, Option<String>>(r, i, doing)? {
        None => Ok(None),
        Some(value) => match T::from_text(&value) {
            Some(t) => Ok(Some(t)),
            None => Err(StoreError::BadValue {
                column,
                value,
                expected: T::EXPECTED,
            }),
        },
    }
}

/// A row of [`Bind::game`].
pub(crate) fn game_row<R>(r: &R) -> Result<GameRow>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> Option<String>: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    const DOING: &str = "reading a game";
    Ok(GameRow {
        game: NewGame {
            id: get(r, 0, DOING)?,
            setup: get(r, 1, DOING)?,
            mode: typed(r, 2, "games.mode", DOING)?,
            token_white: get(r, 3, DOING)?,
            token_black: get(r, 4, DOING)?,
            token_director: get(r, 5, DOING)?,
            created_ms: get(r, 6, DOING)?,
            practice: get(r, 9, DOING)?,
        },
        status: typed(r, 7, "games.status", DOING)?,
        result: typed(r, 8, "games.result", DOING)?,
    })
}

/// A row of [`Bind::last_beat`]: the game clock at the run's last heartbeat. A wall
/// clock that stepped back before the mark charges nothing past the mark.
pub(crate) fn clock_reached<R>(r: &R) -> Result<i64>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    const DOING: &str = "reading a heartbeat";
    let at: i64 = get(r, 0, DOING)?;
    let wall: i64 = get(r, 1, DOING)?;
    let alive: i64 = get(r, 2, DOING)?;
    Ok(at.saturating_add(alive.saturating_sub(wall).max(0)))
}

/// A row of [`Bind::events`].
pub(crate) fn stored_event<R>(r: &R) -> Result<StoredEvent>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> Option<String>: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    const DOING: &str = "reading events";
    Ok(StoredEvent {
        n: get(r, 0, DOING)?,
        json: get(r, 1, DOING)?,
        by_role: typed_opt(r, 2, "events.by_role", DOING)?,
        client_id: get(r, 3, DOING)?,
    })
}

/// The rows of a listing that read: a damaged row (a value its column's type does not
/// know, or a column that does not decode) is logged and left out, so one damaged game or
/// challenge does not take the lobby down with it; reading that row alone still fails,
/// naming what is wrong.
pub(crate) fn readable<R, T>(rows: &[R], read: impl Fn(&R) -> Result<T>, what: &str) -> Vec<T> {
    rows.iter()
        .filter_map(|r| match read(r) {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::warn!(error = %e, "a damaged {what} row left out of a listing");
                None
            }
        })
        .collect()
}

/// A row of [`Bind::list`].
pub(crate) fn game_summary<R>(r: &R) -> Result<GameSummary>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    const DOING: &str = "listing games";
    Ok(GameSummary {
        id: get(r, 0, DOING)?,
        mode: typed(r, 1, "games.mode", DOING)?,
        status: typed(r, 2, "games.status", DOING)?,
        result: typed(r, 3, "games.result", DOING)?,
        created_ms: get(r, 4, DOING)?,
        setup: get(r, 5, DOING)?,
    })
}

/// A row of [`Bind::challenge`] and [`Bind::open_challenges`].
pub(crate) fn challenge_row<R>(r: &R) -> Result<ChallengeRow>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> Option<String>: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    const DOING: &str = "reading a challenge";
    Ok(ChallengeRow {
        challenge: NewChallenge {
            id: get(r, 0, DOING)?,
            body: get(r, 1, DOING)?,
            color: typed(r, 2, "challenges.color", DOING)?,
            name: get(r, 3, DOING)?,
            secret_hash: get(r, 4, DOING)?,
            token_hash: get(r, 5, DOING)?,
            director_hash: get(r, 6, DOING)?,
            created_ms: get(r, 7, DOING)?,
        },
        status: typed::<_, ChallengeStatus>(r, 8, "challenges.status", DOING)?,
        game_id: get(r, 9, DOING)?,
        creator_color: typed_opt(r, 10, "challenges.creator_color", DOING)?,
    })
}

/// The migrator of a backend's schema: `(description, SQL)` in order.
pub(crate) fn migrator(schema: &'static [(&'static str, &'static str)]) -> Migrator {
    Migrator {
        migrations: Cow::Owned(
            schema
                .iter()
                .enumerate()
                .map(|(i, (name, sql))| {
                    Migration::new(
                        i as i64 + 1,
                        Cow::Borrowed(name),
                        MigrationType::Simple,
                        Cow::Borrowed(sql),
                        false,
                    )
                })
                .collect(),
        ),
        ..Migrator::DEFAULT
    }
}

#[cfg(test)]
mod placeholder_tests {
    use super::{Placeholders, values, values_with};

    #[test]
    fn multi_row_statements_number_or_leave_anonymous_their_parameters() {
        assert_eq!(
            values("INSERT INTO t (a, b)", 2, 2, " RETURNING a"),
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4) RETURNING a"
        );
        assert_eq!(
            values_with(Placeholders::Anonymous, "INSERT INTO t (a, b)", 2, 3, ""),
            "INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?)"
        );
    }
}
