-- flagfall-store schema 8 (PostgreSQL only; issue 32, docs/cluster.md): the fenced commit
-- is one statement, and refuses to store past its lease.
--
-- `flagfall_lease_lapsed`: raised by the fenced commit when a lease it had checked runs
-- out before its events are inserted (the statement waited for a lock meanwhile): the
-- statement, and so the whole commit, fails; nothing of it is stored.
CREATE OR REPLACE FUNCTION flagfall_lease_lapsed(game TEXT, lease_epoch BIGINT)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the lease of game % at epoch % ran out during its commit', game, lease_epoch
        USING ERRCODE = 'lock_not_available';
END
$$;
-- A clock mark's lease epoch (a cluster node's; none on a single node): a mark is written
-- only by the game's owner at its epoch, and never over a later epoch's mark.
ALTER TABLE clock_marks ADD COLUMN IF NOT EXISTS epoch BIGINT;
