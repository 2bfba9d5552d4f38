-- flagfall-store schema 5: blitz evenings (issue 21). An evening is stored as the event
-- as created (`base`, the events library's Event as JSON) and its log, one row per
-- change in order (`json`: a change with who made it and when, or a player's reported
-- result); loading replays the log. Tokens are kept as hashes: the director's, a
-- deputy's, each player's (by name: pairing numbers move). `tournament_games` ties a
-- server game to its evening, so a game that ends finds the evening it counts for.
CREATE TABLE IF NOT EXISTS tournaments (
    id         TEXT PRIMARY KEY NOT NULL,
    base       TEXT NOT NULL,
    settings   TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournament_log (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    seq           BIGINT NOT NULL,
    json          TEXT NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
CREATE TABLE IF NOT EXISTS tournament_tokens (
    token_hash    TEXT PRIMARY KEY NOT NULL,
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    role          TEXT NOT NULL,
    player        TEXT
);
CREATE INDEX IF NOT EXISTS tournament_tokens_of ON tournament_tokens (tournament_id);
CREATE TABLE IF NOT EXISTS tournament_games (
    game_id       TEXT PRIMARY KEY NOT NULL REFERENCES games (id),
    tournament_id TEXT NOT NULL REFERENCES tournaments (id)
);
