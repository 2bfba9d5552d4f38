//! flagfall-core: the pure rules core of flagfall.
//!
//! Everything here is a value: no I/O, no clocks read, no async. Time is passed in as
//! milliseconds since the game's clock was started.
//!
//! - [`board`]: the physical board, which can hold any placement, and the classification
//!   of every completed move as legal or illegal with a reason.
//! - [`timecontrol`]: time-control notation, blitz classification per ruleset.
//! - [`clock`]: a pure chess clock (sudden death, US delay, Bronstein, increment) that
//!   keeps running after a flag.
//! - [`ruleset`]: the five built-in rulesets as data, loadable user rulesets, citations.
//! - [`schema`]: the table of every setting and citation field of a ruleset.

pub mod board;
pub mod clock;
pub mod colour;
pub mod explain;
pub mod ruleset;
pub mod schema;
pub mod timecontrol;

pub use shakmaty::Color;
