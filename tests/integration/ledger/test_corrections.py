"""Corrections are new entries: a reversal negates an entry, a re-entry books the corrected
hand in the same transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hebei.common.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from hebei.ledger.journal import Ledger

Make = Callable[..., dict[str, Any]]


def _points(ledger: Ledger, tournament: str = "sample") -> dict[str, int]:
    return {s.player_id: s.points for s in ledger.standings(tournament)}


def _totals(settlement: dict[str, Any]) -> dict[str, int]:
    return {r["player_id"]: r["total_delta"] for r in settlement["results"]}


def test_reversal_books_the_exact_negation(ledger: Ledger, make_settlement: Make):
    settlement = make_settlement("m1", 1, seed=3)
    entry = ledger.post_settlement(settlement).entry_id
    assert _points(ledger) == _totals(settlement)
    result = ledger.reverse_entry(entry, "wrong winner recorded")
    assert result.correction_entry_id is None and not result.duplicate
    assert set(_points(ledger).values()) == {0}
    reversal, original = ledger.history().entries
    assert reversal.entry_id == result.reversal_entry_id
    assert reversal.kind == "reversal" and reversal.reverses_entry_id == entry
    assert original.reversed_by_entry_id == reversal.entry_id
    assert sorted((p.player_id, p.component, -p.amount) for p in reversal.postings) == sorted(
        (p.player_id, p.component, p.amount) for p in original.postings
    )
    assert ledger.audit().ok


def test_reentry_books_the_corrected_hand_atomically(ledger: Ledger, make_settlement: Make):
    wrong = make_settlement("m1", 1, seed=1)
    entry = ledger.post_settlement(wrong).entry_id
    corrected = make_settlement("m1", 1, seed=2)
    assert _totals(corrected) != _totals(wrong)
    result = ledger.reverse_entry(entry, "scored the wrong fans", corrected)
    assert result.correction_entry_id is not None
    assert _points(ledger) == _totals(corrected)
    correction = ledger.entry(result.correction_entry_id)
    assert correction.kind == "correction" and correction.reason == "scored the wrong fans"
    assert correction.settlement is not None and correction.settlement["results"] == [
        {**r, "hand_delta": r["hand_delta"]} for r in corrected["results"]
    ]
    # asking again the same way is idempotent; differently is refused
    again = ledger.reverse_entry(entry, "scored the wrong fans", corrected)
    assert again.duplicate and again.reversal_entry_id == result.reversal_entry_id
    assert again.correction_entry_id == result.correction_entry_id
    with pytest.raises(AlreadyExists):
        ledger.reverse_entry(entry, "another reason")
    # the correction itself can be corrected later
    fixed = make_settlement("m1", 1, seed=4)
    ledger.reverse_entry(result.correction_entry_id, "second thoughts", fixed)
    assert _points(ledger) == _totals(fixed)
    report = ledger.audit()
    assert report.ok and report.entries_checked == 5


def test_failed_reentry_writes_nothing(ledger: Ledger, make_settlement: Make):
    entry = ledger.post_settlement(make_settlement("m1", 1)).entry_id
    other_hand = make_settlement("m1", 2)
    with pytest.raises(InvalidArgument, match="same hand"):
        ledger.reverse_entry(entry, "typo", other_hand)
    assert [e.entry_id for e in ledger.history().entries] == [entry]


def test_refusals(ledger: Ledger, make_settlement: Make):
    entry = ledger.post_settlement(make_settlement("m1", 1)).entry_id
    with pytest.raises(NotFound, match="entry 999 does not exist"):
        ledger.reverse_entry(999, "typo")
    with pytest.raises(InvalidArgument, match="reason"):
        ledger.reverse_entry(entry, "  ")
    reversal = ledger.reverse_entry(entry, "typo").reversal_entry_id
    with pytest.raises(FailedPrecondition, match="cannot be reversed"):
        ledger.reverse_entry(reversal, "undo")
    with pytest.raises(InvalidArgument, match=r"corrected\.results"):
        ledger.reverse_entry(entry, "typo", make_settlement("m1", 1, results=[]))
