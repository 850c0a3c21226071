"""The ledger service: a double-entry points ledger on PostgreSQL (issue 5).

``model`` parses and checks settlements, ``journal.Ledger`` books and reads them over a
psycopg connection pool, ``servicer`` is the thin gRPC layer, ``migrations/`` the schema.
Run it with ``python -m hebei.ledger`` or ``hebei ledger serve``.
"""
