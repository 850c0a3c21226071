-- Wrong registration codes per tournament, from every client address together (Register
-- without the operator token): a tournament with HEBEI_MATCHMAKING_MAX_TOURNAMENT_CODE_FAILURES
-- of them in the window locks registration with a code until the oldest leaves it (see
-- hebei.matchmaking.registration). Rows older than the window are deleted as the tournament's
-- codes are checked, and none is added while it is locked: a tournament holds at most that many.
CREATE TABLE registration_code_failures (
    tournament_id   text NOT NULL REFERENCES tournaments,
    at              timestamptz NOT NULL,
    client          text NOT NULL DEFAULT ''     -- the client address (counted, never shown)
);
CREATE INDEX registration_code_failures_tournament
    ON registration_code_failures (tournament_id, at);
