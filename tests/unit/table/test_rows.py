"""DictRows: a list of (dict, plain values) rows that leaves the collector nothing to walk."""

from __future__ import annotations

import gc
import types
from typing import NamedTuple

from hebei.table.rows import DictRows


class Entry(NamedTuple):
    event: dict
    seq: int
    chain: str | None


def entry(event: dict, values: tuple) -> Entry:
    return Entry(event, *values)


def rows_of(n: int) -> DictRows[Entry]:
    rows: DictRows[Entry] = DictRows(entry)
    for i in range(n):
        rows.append(
            {"type": "discard", "seat": i % 4, "tile": i % 34}, i + 1, f"h{i}" if i % 2 else None
        )
    return rows


def test_reads_back_as_a_list_of_rows() -> None:
    rows = rows_of(5)
    as_list = [
        Entry({"type": "discard", "seat": i % 4, "tile": i}, i + 1, f"h{i}" if i % 2 else None)
        for i in range(5)
    ]
    assert len(rows) == 5
    assert list(rows) == as_list
    assert list(reversed(rows)) == as_list[::-1]
    assert rows[0] == as_list[0] and rows[-1] == as_list[-1]
    assert rows[-3:] == as_list[-3:] and rows[1:2] == as_list[1:2]
    assert rows.data() == [e.event for e in as_list]
    rows.truncate(2)
    assert list(rows) == as_list[:2]
    rows.append({"type": "pass"}, 9, None)
    assert rows[-1] == Entry({"type": "pass"}, 9, None) and len(rows) == 3


def _tracked_within(root: object) -> int:
    """Objects the collector tracks among those reachable from ``root`` (itself excluded; a
    function is counted, not followed into its module)."""
    seen, stack, tracked = {id(root)}, list(gc.get_referents(root)), 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, type):
            continue
        seen.add(id(obj))
        tracked += 1
        if not isinstance(obj, types.FunctionType):
            stack.extend(gc.get_referents(obj))
    return tracked


def test_the_collector_sees_only_its_lists() -> None:
    rows = rows_of(2_000)
    gc.collect()  # a collection untracks the tuples of plain values
    assert _tracked_within(rows) <= 4  # its two lists and the function that builds a row
    # What it replaces: an object per row, each holding the event's dict, stays tracked.
    kept = list(rows)
    gc.collect()
    assert _tracked_within(kept) >= 2_000
