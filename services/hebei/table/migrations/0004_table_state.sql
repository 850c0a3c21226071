-- What a match row keeps of the table beyond the game, for the reads that answer an ended
-- match from its row without reading its log (GetMatch, ListTables): per seat who plays it for
-- its player (ReplaceSeat, a bot filling a person's seat) and whether a person ever held it,
-- and whether ConcludeMatch ended it early. NULL for matches stored before this.
ALTER TABLE matches ADD COLUMN table_state jsonb;
