-- Adjustments: entries that are not hand settlements (penalties, placement points, the fixed
-- total of a replaced player's match), booked zero-sum like every entry, their lines without a
-- seat; and a bound on every amount. 0001's invariants are all kept: the deferred zero-sum
-- check and the per-statement balance check apply to adjustments and their reversals as to
-- any entry, and journal entries and postings stay append-only (ALTER TABLE changes no row).

ALTER TABLE journal_entries ADD COLUMN adjustment jsonb;   -- the adjustment booked

ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check
    CHECK (kind IN ('settlement', 'reversal', 'correction', 'adjustment'));

-- 0001's CHECK ((kind = 'reversal') = (settlement IS NULL)): now settlements and corrections
-- carry a settlement, adjustments an adjustment, reversals neither.
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_check1;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_settlement_check
    CHECK ((settlement IS NOT NULL) = (kind IN ('settlement', 'correction')));
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_adjustment_check
    CHECK ((adjustment IS NOT NULL) = (kind = 'adjustment'));

-- Adjustment postings have a component of their own and no seat; hand and kong postings
-- keep theirs.
ALTER TABLE postings DROP CONSTRAINT postings_component_check;
ALTER TABLE postings ADD CONSTRAINT postings_component_check
    CHECK (component IN ('hand', 'kong', 'penalty', 'placement', 'replacement'));
ALTER TABLE postings ALTER COLUMN seat DROP NOT NULL;
ALTER TABLE postings ADD CONSTRAINT postings_seat_presence_check
    CHECK ((seat IS NOT NULL) = (component IN ('hand', 'kong')));

-- Every amount within ±10^12 (the service refuses more, see ledger.proto): no balance can
-- overflow before millions of maximal postings. NOT VALID: checked for every new posting,
-- without refusing to migrate a database holding older, larger ones.
ALTER TABLE postings ADD CONSTRAINT postings_amount_bound_check
    CHECK (amount BETWEEN -1000000000000 AND 1000000000000) NOT VALID;
