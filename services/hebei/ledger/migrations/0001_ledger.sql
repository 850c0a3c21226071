-- The ledger: accounts, journal entries and postings, with the invariants enforced here, in the
-- database, so that no bug in the service can break them:
--   * the postings of every journal entry sum to zero, and every entry has postings
--     (a deferred constraint trigger, checked at commit; and each INSERT into postings must
--     leave the entries it touches balanced);
--   * journal entries and postings are append-only (UPDATE, DELETE and TRUNCATE raise);
--   * an account's balance is maintained by a trigger from its postings, never by the service.
-- Names are unqualified: the migration runs with search_path set to the service's schema, and
-- every function captures that search_path (SET search_path FROM CURRENT).

CREATE TABLE accounts (
    account_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tournament_id text   NOT NULL,               -- '' for quick play
    player_id     text   NOT NULL CHECK (player_id <> ''),
    balance       bigint NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tournament_id, player_id)
);

CREATE TABLE journal_entries (
    entry_id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    idempotency_key   text   NOT NULL UNIQUE CHECK (idempotency_key <> ''),
    request_hash      bytea  NOT NULL,             -- sha256 of the canonical request body
    kind              text   NOT NULL CHECK (kind IN ('settlement', 'reversal', 'correction')),
    tournament_id     text   NOT NULL,
    round_no          integer NOT NULL,
    table_id          text   NOT NULL,
    match_id          text   NOT NULL,
    hand_no           integer NOT NULL,
    outcome           text   NOT NULL,
    settlement        jsonb,                       -- the settlement booked (not on reversals)
    reverses_entry_id bigint UNIQUE REFERENCES journal_entries (entry_id),
    reason            text   NOT NULL DEFAULT '',
    booked_at         timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind = 'reversal') = (reverses_entry_id IS NOT NULL)),
    CHECK ((kind = 'reversal') = (settlement IS NULL))
);
CREATE INDEX journal_entries_tournament ON journal_entries (tournament_id, entry_id);
CREATE INDEX journal_entries_table ON journal_entries (table_id, entry_id);
CREATE INDEX journal_entries_match ON journal_entries (match_id, entry_id);

CREATE TABLE postings (
    entry_id   bigint   NOT NULL REFERENCES journal_entries (entry_id),
    account_id bigint   NOT NULL REFERENCES accounts (account_id),
    component  text     NOT NULL CHECK (component IN ('hand', 'kong')),
    seat       smallint NOT NULL CHECK (seat BETWEEN 0 AND 3),
    amount     bigint   NOT NULL,
    PRIMARY KEY (entry_id, account_id, component)
);
CREATE INDEX postings_account ON postings (account_id, entry_id);

-- Append-only: entries and postings are never changed or removed.
CREATE FUNCTION refuse_change() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    RAISE EXCEPTION 'ledger % is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER journal_entries_append_only BEFORE UPDATE OR DELETE ON journal_entries
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
CREATE TRIGGER postings_append_only BEFORE UPDATE OR DELETE ON postings
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER postings_no_truncate BEFORE TRUNCATE ON postings
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Accounts are never removed, and only their balance may change.
CREATE FUNCTION refuse_account_change() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.account_id <> OLD.account_id
       OR NEW.tournament_id <> OLD.tournament_id OR NEW.player_id <> OLD.player_id THEN
        RAISE EXCEPTION 'ledger accounts keep their identity: % refused', TG_OP
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER accounts_keep_identity BEFORE UPDATE OR DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION refuse_account_change();
CREATE TRIGGER accounts_no_truncate BEFORE TRUNCATE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Balances follow postings, and every INSERT into postings must leave each entry it touches
-- balanced (so postings cannot be added to a booked entry unless they cancel out). One
-- statement-level trigger does both, set-wise. It locks the accounts in account_id order first,
-- so concurrent entries sharing accounts cannot deadlock.
CREATE FUNCTION apply_postings() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    unbalanced record;
BEGIN
    PERFORM 1 FROM accounts
    WHERE account_id IN (SELECT account_id FROM new_postings)
    ORDER BY account_id
    FOR NO KEY UPDATE;
    UPDATE accounts a SET balance = a.balance + d.delta
    FROM (SELECT account_id, sum(amount) AS delta FROM new_postings GROUP BY account_id) d
    WHERE a.account_id = d.account_id;
    SELECT p.entry_id, sum(p.amount) AS total INTO unbalanced
    FROM postings p
    WHERE p.entry_id IN (SELECT DISTINCT entry_id FROM new_postings)
    GROUP BY p.entry_id HAVING sum(p.amount) <> 0
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'journal entry % is unbalanced: its postings sum to %',
            unbalanced.entry_id, unbalanced.total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER postings_apply AFTER INSERT ON postings
    REFERENCING NEW TABLE AS new_postings
    FOR EACH STATEMENT EXECUTE FUNCTION apply_postings();

-- Double entry, checked at commit for every entry: it has postings and they sum to zero.
CREATE FUNCTION check_entry_balanced() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    n_postings bigint;
    total numeric;
BEGIN
    SELECT count(*), coalesce(sum(amount), 0) INTO n_postings, total
        FROM postings WHERE entry_id = NEW.entry_id;
    IF n_postings = 0 THEN
        RAISE EXCEPTION 'journal entry % has no postings', NEW.entry_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF total <> 0 THEN
        RAISE EXCEPTION 'journal entry % is unbalanced: its postings sum to %', NEW.entry_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER journal_entries_balanced AFTER INSERT ON journal_entries
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION check_entry_balanced();
