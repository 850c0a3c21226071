"""The whole stack on one machine: embedded PostgreSQL and Redis (unless URLs are given), the
ledger and table engine in this process, a bot worker process on Celery."""
