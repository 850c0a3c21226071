-- Each engine replica delivers only the outbox rows of the shards it serves (issue 46): a row
-- records its match's shard, hebei.common.ownership.shard_of(match_id, HEBEI_TABLE_SHARD_COUNT),
-- when it is written. NULL for the rows written before this column; those, and any whose shard
-- is beyond today's count (the count was lowered since), belong to the replica serving shard 0.
ALTER TABLE outbox ADD COLUMN shard integer CHECK (shard >= 0);
-- The poster's reads (the rows due, the next one due, the backlog) of its shards' pending rows;
-- it replaces the index of the pending rows by time alone.
CREATE INDEX outbox_pending_by_shard ON outbox (shard, next_attempt_at)
    WHERE delivered_at IS NULL AND failed_at IS NULL;
DROP INDEX outbox_pending;
