-- flagfall-store schema 4: the heartbeat in O(1) rows a beat. Each server process (a
-- run) keeps one row, its wall clock (Unix milliseconds) at its last heartbeat; each
-- started game keeps one mark, written when its task starts its clock (and whenever the
-- mapping changes): the game clock `at` read at wall time `wall_ms` in run `run`.
-- After a crash a game's running clock is charged up to its run's last `alive_ms`:
-- at + (alive_ms - wall_ms), and no further.
CREATE TABLE IF NOT EXISTS server_runs (
    run        TEXT PRIMARY KEY NOT NULL,
    started_ms BIGINT NOT NULL,
    alive_ms   BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS clock_marks (
    game_id TEXT PRIMARY KEY NOT NULL REFERENCES games (id),
    run     TEXT NOT NULL REFERENCES server_runs (run),
    at      BIGINT NOT NULL,
    wall_ms BIGINT NOT NULL
);
-- The per-game heartbeats of schema 3 become marks of one past run whose wall clock
-- stands at 0: each charges its game up to its last beat, as before.
INSERT INTO server_runs (run, started_ms, alive_ms) VALUES ('before-0004', 0, 0);
INSERT INTO clock_marks (game_id, run, at, wall_ms)
    SELECT game_id, 'before-0004', at, 0 FROM clock_beats;
DROP TABLE clock_beats;
