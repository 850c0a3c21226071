-- The ownership tables of the engine's replicas (issue 46): hebei.common.ownership's own migration
-- (common/ownership/migrations/0001_ownership.sql), carried here as the engine's 0005 because one
-- schema has one migration history and the engine's already starts at 0001. Keep the two alike.

-- Ownership shared by a service's replicas (hebei.common.ownership): the registry of replicas,
-- who holds each shard and each lease. A row is written only by the session holding its
-- PostgreSQL advisory lock (lock_key, on the session whose pid is backend_pid), and deleted by it
-- before it unlocks; a row whose lock is no longer held by that pid is stale (its holder died):
-- the live_* views keep only the rows whose lock is held by their backend. Names are
-- unqualified: the migration runs with search_path set to the schema.

CREATE TABLE replicas (
    service      text NOT NULL CHECK (service <> ''),
    replica_id   text NOT NULL CHECK (replica_id <> ''),
    address      text NOT NULL,
    shard_count  integer NOT NULL CHECK (shard_count >= 0),
    backend_pid  integer NOT NULL,
    lock_key     bigint NOT NULL,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (service, replica_id)
);

CREATE TABLE shard_owners (
    service       text NOT NULL,
    shard         integer NOT NULL CHECK (shard >= 0),
    replica_id    text NOT NULL,
    address       text NOT NULL,
    backend_pid   integer NOT NULL,
    lock_key      bigint NOT NULL,
    acquired_at   timestamptz NOT NULL DEFAULT now(),
    serving_after timestamptz NOT NULL DEFAULT now(),  -- after the takeover grace, if any
    PRIMARY KEY (service, shard)
);

CREATE TABLE leases (
    service       text NOT NULL,
    key           text NOT NULL CHECK (key <> ''),
    replica_id    text NOT NULL,
    address       text NOT NULL,
    backend_pid   integer NOT NULL,
    lock_key      bigint NOT NULL,
    acquired_at   timestamptz NOT NULL DEFAULT now(),
    serving_after timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (service, key)
);

-- The advisory locks granted in this database, as the 64-bit keys pg_try_advisory_lock(bigint)
-- took (pg_locks shows the high half in classid, the low half in objid, objsubid 1).
CREATE VIEW advisory_locks_held AS
    SELECT l.pid, (l.classid::bigint << 32) | l.objid::bigint AS lock_key
    FROM pg_catalog.pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d
                        WHERE d.datname = pg_catalog.current_database());

CREATE VIEW live_replicas AS
    SELECT r.* FROM replicas r
    WHERE EXISTS (SELECT 1 FROM advisory_locks_held h
                  WHERE h.pid = r.backend_pid AND h.lock_key = r.lock_key);

CREATE VIEW live_shard_owners AS
    SELECT o.* FROM shard_owners o
    WHERE EXISTS (SELECT 1 FROM advisory_locks_held h
                  WHERE h.pid = o.backend_pid AND h.lock_key = o.lock_key);

CREATE VIEW live_leases AS
    SELECT o.* FROM leases o
    WHERE EXISTS (SELECT 1 FROM advisory_locks_held h
                  WHERE h.pid = o.backend_pid AND h.lock_key = o.lock_key);
