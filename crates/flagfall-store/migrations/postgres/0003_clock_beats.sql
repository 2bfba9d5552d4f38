-- flagfall-store schema 3: the heartbeat of each live game's clock. The server writes,
-- at least once a second, the game clock (`at`, milliseconds) it had reached; after a
-- crash the running clock is charged up to that instant and no further (the downtime
-- is charged to no one).
CREATE TABLE IF NOT EXISTS clock_beats (
    game_id TEXT PRIMARY KEY NOT NULL REFERENCES games (id),
    at      BIGINT NOT NULL
);
