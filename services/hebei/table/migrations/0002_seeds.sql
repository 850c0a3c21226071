-- A drawn seed is checked to be fresh (no other match has it): look seeds up by index.
CREATE INDEX matches_seed ON matches ((spec->>'seed'));
