"""A match's log as exported for ``hebei replay``: its rules events, in order, each with its
chain record (:mod:`hebei.rules.chain`) — the hash and signature stored with it.

Table events (seats connecting, pauses, dissolution) are not part of the game and are left
out. A row stored before logs were signed gets its hash recomputed but no signature, so
``hebei replay --key-file`` reports it as unsigned rather than as verified.
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
from psycopg import sql

from hebei.common.db import database_errors, validate_schema_name
from hebei.common.errors import NotFound
from hebei.rules.chain import RECORD, Link, genesis, link
from hebei.table.eventlog import TABLE_EVENTS
from hebei.table.store import EventRow, EventStore, load_events


def signed_log(match_id: str, rows: Sequence[EventRow]) -> list[dict]:
    """The exported log of a match from its stored rows (in seq order)."""
    out: list[dict] = []
    head = genesis(match_id)
    for row in rows:
        if row.event["type"] in TABLE_EVENTS:
            continue
        # What was stored, as stored: a row edited in the database no longer hashes to it.
        digest = row.chain or link(head, row.event)
        record = Link(head, digest, row.mac).record(match_id if not out else None)
        out.append({**row.event, RECORD: record})
        head = digest
    return out


def export_match_log(store: EventStore, match_id: str) -> list[dict]:
    """The exported log of ``match_id`` (NotFound if the engine has no such match)."""
    stored = store.load_match(match_id)
    if stored is None:
        raise NotFound(f"no match {match_id!r}")
    return signed_log(match_id, stored.events)


def export_from_database(url: str, schema: str, match_id: str) -> list[dict]:
    """The exported log of ``match_id``, read from the engine's schema (nothing is created or
    written: for an operator's command, beside a running engine). NotFound, Unavailable."""
    validate_schema_name(schema)
    with database_errors(), psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        try:
            found = conn.execute(
                "SELECT 1 FROM matches WHERE match_id = %s", (match_id,)
            ).fetchone()
        except psycopg.errors.UndefinedTable:
            raise NotFound(f"no table engine schema {schema!r} in this database") from None
        if found is None:
            raise NotFound(f"no match {match_id!r}")
        return signed_log(match_id, load_events(conn, match_id))
