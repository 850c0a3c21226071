-- Awards (players gain points from the tournament's account) and a referee's corrections of a
-- match's result (points moved among its players) post components of their own. No row changes.

ALTER TABLE postings DROP CONSTRAINT postings_component_check;
ALTER TABLE postings ADD CONSTRAINT postings_component_check
    CHECK (component IN ('hand', 'kong', 'penalty', 'placement', 'replacement', 'award',
                         'correction'));
