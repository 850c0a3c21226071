-- The matchmaking service's own tables: tournaments, players, rounds, matches, penalties, the
-- operator-action record, the change feed of WatchTournament, and ratings.
-- Names are unqualified: the migration runs with search_path set to the service's schema.

CREATE TABLE tournaments (
    tournament_id   text PRIMARY KEY,
    request_id      text UNIQUE,                 -- CreateTournament's idempotency key
    fingerprint     text NOT NULL,               -- sha256 of the normalised config
    config          bytea NOT NULL,              -- hebei.v1.TournamentConfig, defaults filled in
    status          text NOT NULL CHECK (status IN
                        ('registration', 'running', 'paused', 'finished', 'cancelled')),
    status_reason   text NOT NULL DEFAULT '',
    current_round   integer NOT NULL DEFAULT 0,  -- rounds seated so far
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    finished_at     timestamptz,
    problems        text[] NOT NULL DEFAULT '{}'
);

CREATE TABLE players (
    tournament_id   text NOT NULL REFERENCES tournaments,
    player_id       text NOT NULL,
    ordinal         integer NOT NULL,            -- registration order within the tournament
    name            text NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('person', 'bot')),
    bot_policy      text NOT NULL DEFAULT '',
    bot_level       integer NOT NULL DEFAULT 0,
    rating_id       text NOT NULL,
    secret_hash     text,                        -- persons: sha256 of the player secret
    filler          boolean NOT NULL DEFAULT false,
    first_round     integer NOT NULL DEFAULT 1,
    withdrawn_after integer,                     -- seated up to this round, not after
    removed         boolean NOT NULL DEFAULT false,
    replaced_by     text NOT NULL DEFAULT '',
    registered_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament_id, player_id),
    UNIQUE (tournament_id, ordinal)
);

CREATE TABLE rounds (
    tournament_id   text NOT NULL REFERENCES tournaments,
    round_no        integer NOT NULL CHECK (round_no >= 1),
    status          text NOT NULL CHECK (status IN ('planned', 'seated', 'finished')),
    players         text[] NOT NULL,             -- who the seating was made for
    tables          jsonb NOT NULL,              -- [[east, south, west, north], ...]
    groups          integer[] NOT NULL,          -- duplicate groups, per table
    quality         jsonb NOT NULL,
    standings       bytea,                       -- GetStandingsResponse when the round closed
    seated_at       timestamptz,
    finished_at     timestamptz,
    PRIMARY KEY (tournament_id, round_no)
);

CREATE TABLE matches (
    match_id        text PRIMARY KEY,
    tournament_id   text NOT NULL,               -- '' for quick play
    round_no        integer NOT NULL,
    table_no        integer NOT NULL,
    table_id        text NOT NULL,
    duplicate_group integer NOT NULL DEFAULT 0,
    request         bytea NOT NULL,              -- the OpenMatchRequest (tokens included)
    status          text NOT NULL CHECK (status IN ('pending', 'opened', 'finished', 'dissolved')),
    hands_played    integer NOT NULL DEFAULT 0,
    event_count     bigint NOT NULL DEFAULT 0,
    progress_at     timestamptz NOT NULL DEFAULT now(),
    scores          bigint[],                    -- by seat, once ended
    reason          text NOT NULL DEFAULT '',
    replaced        jsonb NOT NULL DEFAULT '{}', -- seat -> {"player_id", "by", "counting"}
    settled         boolean NOT NULL DEFAULT false,  -- placement, fixed points and ratings done
    opened_at       timestamptz,
    ended_at        timestamptz
);
CREATE INDEX matches_round ON matches (tournament_id, round_no, table_no);
CREATE INDEX matches_open ON matches (status) WHERE status IN ('pending', 'opened');
CREATE INDEX matches_unsettled ON matches (settled) WHERE NOT settled;

CREATE TABLE penalties (
    penalty_id      text PRIMARY KEY,
    tournament_id   text NOT NULL REFERENCES tournaments,
    request_id      text,
    player_id       text NOT NULL,
    points          bigint NOT NULL CHECK (points > 0),
    reason          text NOT NULL,
    assigned_by     text NOT NULL,
    assigned_at     timestamptz NOT NULL DEFAULT now(),
    entry_id        text NOT NULL DEFAULT '',
    cancelled       boolean NOT NULL DEFAULT false,
    cancel_reason   text NOT NULL DEFAULT '',
    UNIQUE (tournament_id, request_id)
);

CREATE TABLE operator_actions (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tournament_id   text NOT NULL,
    action          text NOT NULL,
    actor           text NOT NULL,
    player_id       text NOT NULL DEFAULT '',
    detail          text NOT NULL DEFAULT '',
    at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX operator_actions_tournament ON operator_actions (tournament_id, seq);

-- The change feed of WatchTournament: one row per change, numbered per tournament.
CREATE TABLE tournament_events (
    tournament_id   text NOT NULL,
    seq             bigint NOT NULL,
    payload         bytea NOT NULL,              -- hebei.v1.WatchTournamentResponse
    at              timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament_id, seq)
);

CREATE TABLE ratings (
    rating_id       text PRIMARY KEY,
    name            text NOT NULL,
    mu              double precision NOT NULL,
    sigma           double precision NOT NULL,
    matches         integer NOT NULL DEFAULT 0,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
