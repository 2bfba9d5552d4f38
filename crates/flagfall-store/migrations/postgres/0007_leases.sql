-- flagfall-store schema 7 (PostgreSQL only): a cluster's leases (issue 22, docs/cluster.md).
-- One row per game some node serves: the node (`owner`), the fencing token (`epoch`, from
-- the global sequence `lease_epochs`, never reused, so a released row may be deleted)
-- and when the lease runs out by the database's clock. A row goes with its game.
CREATE TABLE IF NOT EXISTS game_leases (
    game_id TEXT PRIMARY KEY NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    owner   TEXT NOT NULL,
    epoch   BIGINT NOT NULL,
    expires TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS game_leases_owner ON game_leases (owner);
CREATE INDEX IF NOT EXISTS game_leases_expires ON game_leases (expires);
CREATE SEQUENCE IF NOT EXISTS lease_epochs;
