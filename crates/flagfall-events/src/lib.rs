//! flagfall-events: blitz events as data (no I/O).
//!
//! - [`tiebreak`]: FIDE C.07 and US Chess tiebreaks over a crosstable.
//! - [`rating`]: Glicko-2, the US Chess blitz estimate, performance ratings.

pub mod rating;
pub mod tiebreak;
