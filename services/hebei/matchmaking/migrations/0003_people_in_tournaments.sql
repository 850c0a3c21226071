-- People in tournaments: a player's status (active, withdrawn, no-show, removed) with its
-- reason, the rounds a person missed, check-in; what the engine last said of each seat of a
-- match (person_joined, played_by, connected); the tournament's clocks (scheduled start or
-- the next round after a break, a round's time limit) and when it was paused (the clocks
-- stop while it is: resuming moves them on by the pause).
ALTER TABLE players
    ADD COLUMN status text NOT NULL DEFAULT 'active'
        CHECK (status IN ('active', 'withdrawn', 'no_show', 'removed')),
    ADD COLUMN status_reason text NOT NULL DEFAULT '',
    ADD COLUMN missed_rounds integer[] NOT NULL DEFAULT '{}',
    ADD COLUMN checked_in boolean NOT NULL DEFAULT false;
UPDATE players SET status = 'removed' WHERE removed;
UPDATE players SET status = 'withdrawn' WHERE NOT removed AND withdrawn_after IS NOT NULL;

ALTER TABLE matches
    ADD COLUMN seats_seen jsonb NOT NULL DEFAULT '{}';  -- seat -> {"joined", "played_by", "connected"}

ALTER TABLE tournaments
    ADD COLUMN next_round_at timestamptz,   -- the scheduled start, or the next round after a break
    ADD COLUMN round_ends_at timestamptz,   -- the running round's time limit
    ADD COLUMN paused_at timestamptz;
CREATE INDEX tournaments_scheduled ON tournaments (next_round_at)
    WHERE status = 'registration' AND next_round_at IS NOT NULL;
