"""The ledger service: a double-entry points ledger on PostgreSQL (issue 5).

``model`` parses and checks settlements and adjustments (against themselves: the ledger does
not score hands), ``journal.Ledger`` books and reads them over a psycopg connection pool, made
of one part per seam (``connections``, ``booking``, ``postings``, ``reversals``, ``history``,
``standings``, ``audit``), ``servicer`` is the thin gRPC layer, ``migrations/`` the schema. Run
it with ``python -m hebei.ledger`` or ``hebei ledger serve``.

Player ids starting with :data:`RESERVED_PREFIX` are the ledger's own accounts; the one in use
is :data:`TOURNAMENT_ACCOUNT`, a tournament's own account: the counterpart of penalties and of
the fixed totals of replaced matches. It is never ranked in standings.
"""

__all__ = ["RESERVED_PREFIX", "TOURNAMENT_ACCOUNT"]

RESERVED_PREFIX = "#"
TOURNAMENT_ACCOUNT = "#tournament"
