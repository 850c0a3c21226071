"""Stand-ins for the table's store in unit tests."""

from __future__ import annotations

import sys

from hebei.table.store import Group, Watcher


class InstantStore:
    """An event store where every submitted group is durable at once (nothing is written)."""

    def __init__(self) -> None:
        self.groups: list[Group] = []
        self.seq: dict[str, int] = {}

    def admits(self, match_id: str) -> bool:
        return True  # this replica serves every match

    def submit(self, group: Group) -> None:
        self.groups.append(group)
        if group.events:
            self.seq[group.match_id] = group.events[-1].seq

    def watch(self, match_id: str, watcher: Watcher) -> int:
        return sys.maxsize  # whatever is pushed may leave at once

    def unwatch(self, match_id: str, watcher: Watcher) -> None:
        pass

    def durable_seq(self, match_id: str) -> int:
        return self.seq.get(match_id, 0)

    def wait_durable(self, match_id: str, seq: int, timeout: float) -> bool:
        return True

    def durable_time(self, match_id: str, seq: int) -> float | None:
        return 0.0

    def events(self) -> list[dict]:
        return [row.event for group in self.groups for row in group.events]
