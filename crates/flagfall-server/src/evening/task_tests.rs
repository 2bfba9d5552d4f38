//! The evening task's changes in the making ([`Work`]): what a change stores.

use std::collections::{BTreeMap, HashMap};

use flagfall_events::event::Event;
use flagfall_events::format::Format;
use flagfall_protocol::Mode;
use flagfall_protocol::evening::{Confirm, Play};

use super::{LogRow, Report, Settings, Snap, Work};
use crate::ServerError;
use crate::api::public;

fn snap() -> Snap {
    Snap {
        id: "ev1".into(),
        event: Event::new("Friday blitz", Format::RoundRobin, None).expect("an event"),
        settings: Settings {
            play: Play::Board,
            mode: Mode::Otb,
            confirm: Confirm::One,
            auto: false,
        },
        reports: BTreeMap::new(),
        tokens: HashMap::new(),
        seq: 4,
        log_bytes: 100,
        disputes: BTreeMap::new(),
    }
}

fn report() -> LogRow {
    LogRow::Report(Report {
        round: 1,
        board: 1,
        player: "Ada".into(),
        results: Vec::new(),
        at: 7,
    })
}

/// A serialisation error as serde_json makes it: a map whose keys are not strings.
fn unserialisable() -> serde_json::Error {
    let map: HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
    serde_json::to_string(&map).expect_err("a map with tuple keys does not serialise")
}

#[test]
fn a_change_stores_its_log_rows_in_order() {
    let mut w = Work::of(&snap());
    w.row(&report());
    w.row(&report());
    let (c, after, _) = w.into_commit().expect("the change is stored");
    assert_eq!(c.tournament_id, "ev1");
    assert_eq!(c.log.iter().map(|r| r.seq).collect::<Vec<_>>(), [5, 6]);
    let back: LogRow = serde_json::from_str(&c.log[0].json).expect("the row reads back");
    assert_eq!(back, report());
    assert_eq!(after.seq, 6);
    assert_eq!(
        after.log_bytes,
        100 + c.log[0].json.len() + c.log[1].json.len()
    );
}

/// Regression: a log row that did not serialise was stored empty (`""`), and the
/// evening could no longer be loaded (its log did not replay). Now the change is
/// refused, nothing stored, and the error says what happened.
#[test]
fn a_log_row_that_does_not_serialise_refuses_the_change() {
    let mut w = Work::of(&snap());
    w.row(&report());
    w.push_row(Err(unserialisable()));
    w.row(&report());
    let e = match w.into_commit() {
        Err(e) => e,
        Ok((c, _, _)) => panic!("stored {} rows: {:?}", c.log.len(), c.log),
    };
    assert!(
        matches!(&e, ServerError::Serialise { what: "an evening's log row", message }
            if message.contains("key must be a string")),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "cannot serialise an evening's log row: key must be a string"
    );
    let (status, message) = public(&e);
    assert_eq!(status, 500);
    assert_eq!(
        message,
        "internal error: the server could not write an evening's log row; nothing was stored"
    );
}

/// Each kind of failure says what happened, with its status: a stopped task is worth
/// asking again (503), as is a database out of reach; a damaged row and a bug are the
/// server's (500).
#[test]
fn server_errors_name_what_happened() {
    let stopped = ServerError::Stopped("the evening's task");
    assert_eq!(stopped.to_string(), "the evening's task stopped");
    let (status, message) = public(&stopped);
    assert_eq!(status, 503);
    assert_eq!(
        message,
        "the evening's task stopped (reloading, or the server is stopping); try again"
    );

    let corrupt = ServerError::Corrupt("evening ev1: log: row 3 where 2 was due".into());
    assert_eq!(
        corrupt.to_string(),
        "stored data damaged: evening ev1: log: row 3 where 2 was due"
    );
    let (status, message) = public(&corrupt);
    assert_eq!(status, 500);
    assert!(message.contains("stored data is damaged"), "{message}");
    assert!(!message.contains("ev1"), "no internals told: {message}");

    // The database out of reach is worth asking again too; any other query failure is
    // the server's.
    let away = ServerError::Store(flagfall_store::StoreError::Query {
        doing: "reading a game",
        source: sqlx::Error::PoolTimedOut,
    });
    let (status, message) = public(&away);
    assert_eq!(status, 503);
    assert_eq!(
        message,
        "the database is not answering (restarting, or out of reach); try again in a moment"
    );
    let missing = ServerError::Store(flagfall_store::StoreError::Query {
        doing: "reading a game",
        source: sqlx::Error::RowNotFound,
    });
    assert_eq!(public(&missing).0, 500);

    let bug = ServerError::Bug {
        what: "an evening's job",
        message: "task 7 panicked".into(),
    };
    assert_eq!(bug.to_string(), "an evening's job failed: task 7 panicked");
    let (status, message) = public(&bug);
    assert_eq!(status, 500);
    assert!(message.contains("an evening's job failed"), "{message}");
    assert!(
        !message.contains("panicked"),
        "no internals told: {message}"
    );
}
