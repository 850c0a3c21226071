-- The referee's corrections: a penalty may also award points (points < 0: an award), and a
-- match's result may be corrected by points moved among its seats. Each is a new ledger entry
-- (never an edit of one); undoing one reverses its entry.

ALTER TABLE penalties DROP CONSTRAINT penalties_points_check;
ALTER TABLE penalties ADD CONSTRAINT penalties_points_check CHECK (points <> 0);

CREATE TABLE corrections (
    correction_id   text PRIMARY KEY,
    tournament_id   text NOT NULL REFERENCES tournaments,
    request_id      text,
    match_id        text NOT NULL,
    round_no        integer NOT NULL,
    seat_deltas     bigint[] NOT NULL,
    player_ids      text[] NOT NULL,
    reason          text NOT NULL,
    ruled_by        text NOT NULL,
    corrected_at    timestamptz NOT NULL DEFAULT now(),
    entry_id        text NOT NULL DEFAULT '',         -- the ledger entry, once booked
    undone          boolean NOT NULL DEFAULT false,
    undo_reason     text NOT NULL DEFAULT '',
    UNIQUE (tournament_id, request_id)
);
CREATE INDEX corrections_by_tournament ON corrections (tournament_id, corrected_at);
