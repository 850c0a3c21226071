"""The bot fleet: policies (pure, in :mod:`hebei.bots.policies`), the seat-session runner that
plays a seat over the table engine's Play stream, and the Celery app that places the sessions."""
