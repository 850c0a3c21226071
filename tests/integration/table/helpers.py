"""Small helpers of the table integration tests."""

from __future__ import annotations

import time
from collections.abc import Callable

from hebei.table.table import TABLE_EVENTS


def wait_for(predicate: Callable[[], bool], timeout: float = 20.0, step: float = 0.02) -> bool:
    """Poll ``predicate`` until true or ``timeout`` seconds passed; its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


def stored_events(store, match_id: str) -> list[dict]:
    """Every event of a match as stored in PostgreSQL."""
    return [row.event for row in store.load_match(match_id).events]


def rules_events(events: list[dict]) -> list[dict]:
    """The rules events of a log (what replay_match reads)."""
    return [e for e in events if e["type"] not in TABLE_EVENTS]
