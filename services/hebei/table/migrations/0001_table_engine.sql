-- The table engine's own schema: matches, their event logs and the outbox of messages to other
-- services (settlements to the ledger, results to matchmaking). Names are unqualified: the
-- migration runs with search_path set to the service's schema.

CREATE TABLE matches (
    match_id      text PRIMARY KEY CHECK (match_id <> ''),
    table_id      text NOT NULL,
    tournament_id text NOT NULL DEFAULT '',
    round_no      integer NOT NULL DEFAULT 0,
    fingerprint   text NOT NULL,      -- sha256 of the OpenMatch request (idempotency)
    spec          jsonb NOT NULL,     -- profile, length, seed, seats (token hashes), time control
    status        text NOT NULL CHECK (status IN ('waiting', 'playing', 'finished', 'dissolved')),
    hands_played  integer NOT NULL DEFAULT 0,
    scores        jsonb NOT NULL DEFAULT '[0, 0, 0, 0]',
    event_count   bigint NOT NULL DEFAULT 0,
    opened_at     timestamptz NOT NULL DEFAULT now(),
    ended_at      timestamptz
);
CREATE INDEX matches_unfinished ON matches (match_id) WHERE status IN ('waiting', 'playing');
CREATE INDEX matches_tournament ON matches (tournament_id, match_id);

-- Every event of a match, rules events (replayable with hebei.rules.replay) and table events
-- (seats connecting, auto-play), in order, without gaps.
CREATE TABLE events (
    match_id  text NOT NULL REFERENCES matches (match_id),
    seq       integer NOT NULL CHECK (seq >= 1),
    hand_no   integer NOT NULL CHECK (hand_no >= 0),   -- 1-based; 0 for match-level events
    event     jsonb NOT NULL,
    logged_at timestamptz NOT NULL,
    PRIMARY KEY (match_id, seq)
);

-- Messages to other services, written in the transaction of the event that causes them and
-- delivered until acknowledged.
CREATE TABLE outbox (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('settlement', 'match_result')),
    key             text NOT NULL,
    match_id        text NOT NULL REFERENCES matches (match_id),
    payload         bytea NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error      text,
    delivered_at    timestamptz,
    failed_at       timestamptz,
    UNIQUE (kind, key)
);
CREATE INDEX outbox_pending ON outbox (next_attempt_at)
    WHERE delivered_at IS NULL AND failed_at IS NULL;
