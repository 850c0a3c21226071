"""Matchmaking's metrics: a dissolved match's reason in a small fixed set of label values."""

from __future__ import annotations

import pytest

from hebei.matchmaking.metrics import DISSOLVED_REASONS, dissolved_reason
from hebei.matchmaking.quickplay import LEFT_REASON


@pytest.mark.parametrize(
    ("reason", "label"),
    [
        ("stalled: no event for 600 s", "stalled"),
        ("dissolved by the operator: wrong seats", "operator"),
        ("cancelled", "cancelled"),
        (LEFT_REASON, "quick_play_left"),
        ("technical draw: nobody came back within 120 s", "other"),
        ("quick play: the table could not be opened", "other"),
        ("", "other"),
    ],
)
def test_dissolved_reasons_map_to_a_fixed_set(reason: str, label: str) -> None:
    assert dissolved_reason(reason) == label
    assert label in DISSOLVED_REASONS
