//! flagfall-game: the game script, the arbiter state machine, replay and PGN.
