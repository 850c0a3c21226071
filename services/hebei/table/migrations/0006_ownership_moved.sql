-- The engine's ownership tables live in the schema <this schema>_ownership from now on, installed
-- by hebei.common.ownership.install as matchmaking's are (its schema named by
-- hebei.common.ownership.ownership_schema): one way to store ownership for every service.
-- 0005 made copies of them in this schema; it stays as it was, byte for byte, since
-- hebei.common.db.migrate refuses an applied migration whose file changed. So this one drops
-- what 0005 created (views first: they read the tables). A replica still running the old code
-- fails its next beat on the dropped tables, declares its shards lost and stops serving them;
-- the new replicas' advisory locks are the same ones (hebei.table.ownership), so they take
-- those shards only once the old replica let go.
DROP VIEW IF EXISTS live_leases;
DROP VIEW IF EXISTS live_shard_owners;
DROP VIEW IF EXISTS live_replicas;
DROP VIEW IF EXISTS advisory_locks_held;
DROP TABLE IF EXISTS leases;
DROP TABLE IF EXISTS shard_owners;
DROP TABLE IF EXISTS replicas;
