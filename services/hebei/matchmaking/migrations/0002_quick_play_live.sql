-- Quick play's live matches (opened or about to be, not yet ended), counted against
-- HEBEI_MATCHMAKING_MAX_QUICK_PLAY_TABLES each time a request arrives and a group is seated.
CREATE INDEX matches_quick_play_live ON matches (status)
    WHERE tournament_id = '' AND status IN ('pending', 'opened');
