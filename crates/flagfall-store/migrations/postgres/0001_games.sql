-- flagfall-store schema 1 (PostgreSQL): one row per game, one event log per game.
CREATE TABLE IF NOT EXISTS games (
    id             TEXT PRIMARY KEY NOT NULL,
    setup          TEXT NOT NULL,
    mode           TEXT NOT NULL,
    token_white    TEXT NOT NULL,
    token_black    TEXT NOT NULL,
    token_director TEXT NOT NULL,
    status         TEXT NOT NULL DEFAULT 'live',
    result         TEXT NOT NULL DEFAULT '*',
    created_ms     BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_status ON games (status, created_ms);
CREATE TABLE IF NOT EXISTS events (
    game_id   TEXT NOT NULL REFERENCES games (id),
    n         BIGINT NOT NULL,
    json      TEXT NOT NULL,
    by_role   TEXT,
    client_id TEXT,
    PRIMARY KEY (game_id, n)
);
