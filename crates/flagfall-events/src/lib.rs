//! flagfall-events: blitz events as data (no I/O).
//!
//! - [`format`]: the pairing system ([`format::Format`]) and [`format::MAX_ROUNDS`], shared
//!   by the event, its crosstable and the tiebreaks.
//! - [`event`]: the event model (players, rounds, pairings, results, byes, late entries,
//!   withdrawals, manual overrides) and its operations; pairing by the Berger tables,
//!   FIDE Dutch, FIDE Double Swiss or US Chess Swiss.
//! - [`change`]: changes as values ([`change::Change`]), applied by
//!   [`event::Event::apply`] with a log of who did what when and what it replaced.
//! - [`import`]: players from CSV or TRF, a round's results as text lines.
//! - [`export`]: TRF-2026, PGN, standings CSV and a printable crosstable.
//! - [`uscf`]: US Chess's rating report, the three dBase III files.
//! - [`text`]: the rules for every text an event takes (one line, the name limit).
//! - [`tiebreak`]: FIDE C.07 and US Chess tiebreaks over a crosstable.
//! - [`rating_list`]: FIDE's published rating list, read to fill ratings and ids.
//! - [`rating`]: Glicko-2, the US Chess blitz estimate, performance ratings.
//! - [`rating_report`]: the event's rating changes by both, from its played games.

pub mod change;
pub mod evening;
pub mod event;
pub mod export;
pub mod format;
pub mod import;
mod numbers;
pub mod rating;
pub mod rating_list;
pub mod rating_report;
mod spelling;
pub mod text;
pub mod tiebreak;
pub mod uscf;
