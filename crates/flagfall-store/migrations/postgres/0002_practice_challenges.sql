-- flagfall-store schema 2 (PostgreSQL): a practice game keeps its computer's settings on its
-- row (so the computer starts again after a restart), and open challenges wait in the
-- lobby until someone accepts or the creator cancels.
ALTER TABLE games ADD COLUMN practice TEXT;
CREATE TABLE IF NOT EXISTS challenges (
    id            TEXT PRIMARY KEY NOT NULL,
    body          TEXT NOT NULL,
    color         TEXT NOT NULL,
    name          TEXT,
    secret_hash   TEXT NOT NULL,
    token_hash    TEXT NOT NULL,
    director_hash TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'open',
    game_id       TEXT REFERENCES games (id),
    creator_color TEXT,
    created_ms    BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS challenges_status ON challenges (status, created_ms);
