//! The game as PGN (in progress).
