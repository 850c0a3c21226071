-- When the last audit of the whole ledger found it sound (one row): the
-- hebei_ledger_last_audit_timestamp_seconds gauge is read from here when the ledger starts,
-- so a restart does not reset it (nor fire an alert on a stale audit).

CREATE TABLE last_audit (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    audited_at timestamptz NOT NULL
);
