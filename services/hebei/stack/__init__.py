"""The whole stack on one machine: embedded PostgreSQL and Redis (unless URLs are given), the
ledger, the table engine, matchmaking and bot workers as separate processes
(:mod:`hebei.stack.processes`), found by other commands through a discovery file
(:mod:`hebei.stack.discovery`)."""
