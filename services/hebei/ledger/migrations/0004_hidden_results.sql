-- Tournaments whose results are hidden from anonymous reads (GetStandings, GetHistory) until
-- matchmaking shows them again (SetResultsHidden): a tournament that hides its last rounds,
-- or the round in play, until the organiser reveals them. Calls with a token see everything.

CREATE TABLE hidden_results (
    tournament_id text PRIMARY KEY,
    hidden_at     timestamptz NOT NULL DEFAULT now()
);
