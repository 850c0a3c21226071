"""The ledger's domain logic: :class:`Ledger` books settlements, adjustments and corrections and
reads standings, history and audits, over psycopg 3 and a connection pool.

The invariants themselves (balanced entries, append-only journal, balances following postings)
are enforced by the database, see ``migrations/``. Every argument is checked by
:mod:`hebei.ledger.model` before any work. An account is a player in a tournament (``''`` for
quick play); ``#tournament`` (:data:`~hebei.ledger.TOURNAMENT_ACCOUNT`) is the tournament's own
account, the counterpart of penalties and of the fixed totals of replaced matches, left out of
standings.

:class:`Ledger` is made of one part per seam, each in its module:

- :mod:`~hebei.ledger.connections`: the pool, read transactions, retried bookings;
- :mod:`~hebei.ledger.booking`: entries, the batch statement, the group commit, the keys;
- :mod:`~hebei.ledger.postings`: posting settlements and adjustments;
- :mod:`~hebei.ledger.reversals`: reversing entries (with corrections), cancelling adjustments;
- :mod:`~hebei.ledger.history`: pages of journal entries, one entry by id;
- :mod:`~hebei.ledger.standings`: standings, hidden results;
- :mod:`~hebei.ledger.audit`: audits and the time of the last sound one.
"""

from __future__ import annotations

from typing import Any

from hebei.common import db
from hebei.ledger.audit import Audits
from hebei.ledger.history import History
from hebei.ledger.postings import Postings
from hebei.ledger.reversals import Reversals
from hebei.ledger.standings import Standings

__all__ = ["MIGRATIONS_PACKAGE", "Ledger"]

MIGRATIONS_PACKAGE = "hebei.ledger.migrations"


class Ledger(Postings, Reversals, History, Standings, Audits):
    """The ledger over a connection pool whose connections use the ledger's schema.

    Connections are in autocommit mode: a settlement is booked by one statement, its own
    transaction (one round trip); reversals and audits use explicit transactions. Account ids
    are cached (accounts are never deleted), so known players cost no extra statement.
    ``batch_size`` and ``flushers`` tune the group commit (see
    :class:`~hebei.ledger.booking.EntryBooking`).
    """

    @classmethod
    def open(
        cls,
        url: str,
        schema: str = "ledger",
        *,
        wait: bool = True,
        batch_size: int = 32,
        flushers: int = 2,
        **pool_options: Any,
    ) -> Ledger:
        """Apply the migrations to ``schema`` and open a pool on it (see db.create_pool)."""
        db.migrate(url, schema, MIGRATIONS_PACKAGE)
        pool = db.create_pool(
            url, schema=schema, name=f"hebei-{schema}", wait=wait, autocommit=True, **pool_options
        )
        return cls(pool, batch_size=batch_size, flushers=flushers)
