"""The table engine's metrics: how an ended match is labelled."""

from __future__ import annotations

import pytest

from hebei.table.metrics import ended_status


@pytest.mark.parametrize(
    ("status", "reason", "label"),
    [
        ("finished", "", "finished"),
        ("dissolved", "dissolved by the operator: a typo", "dissolved"),
        ("dissolved", "technical draw: nobody came back within 120 s (all absent)", "dissolved"),
        ("dissolved", "technical: the event log refused event 12: DataError", "failed"),
        ("dissolved", "technical: the match could not be resumed (KeyError: 'x')", "failed"),
    ],
)
def test_ended_matches_are_labelled_by_status(status: str, reason: str, label: str) -> None:
    assert ended_status(status, reason) == label
