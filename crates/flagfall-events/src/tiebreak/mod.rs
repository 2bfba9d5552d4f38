//! Standings and tiebreaks over a [`Crosstable`] (FIDE C.07 and US Chess rule 34E).
//!
//! In progress: the input types ([`Crosstable`], [`RoundEntry`], ...) and exact values are
//! published first so the event model can convert into them.

mod crosstable;
mod value;

pub use crosstable::{
    ByeKind, Colour, Crosstable, CrosstableError, Format, Game, GameOutcome, HalfPoints,
    PlayerInfo, RoundEntry,
};
pub use value::Value;
