-- flagfall-store schema 6: the rematch of a finished game (issue 20), kept so that a
-- restart forgets no offer. One row per finished game: who offered (`offered_by`), where
-- it stands (`offered`, `declined`, `accepted`), the hash of the token the offerer
-- will hold in the new game (derived from their token of the finished game, which the
-- database never sees, so only the offerer can compute it), and the new game once
-- accepted. Accepting is a conditional UPDATE in the transaction that creates the game.
CREATE TABLE IF NOT EXISTS rematches (
    game_id          TEXT PRIMARY KEY NOT NULL REFERENCES games (id),
    offered_by       TEXT NOT NULL,
    status           TEXT NOT NULL,
    offer_token_hash TEXT NOT NULL,
    new_game         TEXT REFERENCES games (id),
    updated_ms       BIGINT NOT NULL
);
