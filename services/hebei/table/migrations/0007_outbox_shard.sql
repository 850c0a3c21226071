-- Each engine replica delivers only the outbox rows of the shards it serves (issue 46): a row
-- records its match's shard, hebei.common.ownership.shard_of(match_id, HEBEI_TABLE_SHARD_COUNT),
-- when it is written. NULL for the rows written before this column; those, and any whose shard
-- is beyond today's count (the count was lowered since), belong to the replica serving shard 0.
ALTER TABLE outbox ADD COLUMN shard integer CHECK (shard >= 0);
-- Two indexes of the pending rows only (few, unless a receiver is away), replacing the one by
-- time alone: by id, for the rows due oldest first (the poster's batch: the walk stops at its
-- LIMIT; without it the planner walked the primary key through every delivered row), and by
-- shard, for a replica's backlog and next row due when many rows wait.
CREATE INDEX outbox_pending_by_id ON outbox (id)
    WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE INDEX outbox_pending_by_shard ON outbox (shard, next_attempt_at)
    WHERE delivered_at IS NULL AND failed_at IS NULL;
DROP INDEX outbox_pending;
