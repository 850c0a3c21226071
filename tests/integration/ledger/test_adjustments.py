"""Adjustments (penalties, placement points, replaced matches' fixed totals): booked zero-sum
against the tournament's own account or among a match's players, idempotent, counted in the
standings, shown in the history, cancellable once."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from hebei.common.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from hebei.ledger import TOURNAMENT_ACCOUNT
from hebei.ledger.journal import Ledger
from hebei.ledger.postings import PostResult
from hebei.ledger.reversals import CancelResult
from hebei.ledger.standings import Standing
from tests.integration.ledger.conftest import hand_settlement

T = TOURNAMENT_ACCOUNT


def adjustment(key: str, kind: str, lines: dict[str, int], **fields: Any) -> dict[str, Any]:
    """An adjustment of ``cup`` in the protobuf JSON mapping; ``kind`` is PENALTY, ..."""
    return {
        "idempotency_key": key, "tournament_id": "cup", "round_no": 1,
        "kind": f"ADJUSTMENT_KIND_{kind}",
        "lines": [{"player_id": p, "amount": amount} for p, amount in lines.items()],
        "reason": kind.lower(), "assigned_by": "tests", **fields,
    }  # fmt: skip


def _count(ledger: Ledger, table: str) -> int:
    with ledger.pool.connection() as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


@pytest.fixture
def cup(ledger: Ledger) -> Ledger:
    """Two matches: m1 (a 5, b -9, c 8, d -4), m2 (e -4, a -5, b 4, f 5)."""
    first = ["a", "b", "c", "d"]
    ledger.post_settlement(hand_settlement("m1", 1, first, [6, -6, 0, 0], winner=0, discarder=1))
    ledger.post_settlement(
        hand_settlement("m1", 2, first, [-3, -3, 9, -3], kong=[2, 0, -1, -1], winner=2)
    )
    ledger.post_settlement(hand_settlement("m1", 3, first, [0, 0, 0, 0]))
    second = ["e", "a", "b", "f"]
    ledger.post_settlement(
        hand_settlement("m2", 1, second, [-4, 0, 4, 0], winner=2, discarder=0, table="t2")
    )
    ledger.post_settlement(
        hand_settlement("m2", 2, second, [0, -5, 0, 5], winner=3, discarder=1, table="t2")
    )
    return ledger


def test_standings_count_penalties_placement_and_replaced_matches(cup: Ledger):
    uma = {"c": 15, "a": 5, "d": -5, "b": -15}
    cup.post_adjustment(adjustment("uma:m1", "PLACEMENT", uma, match_id="m1"))
    # e was replaced in m2 and counts a fixed 2 there instead of -4
    cup.post_adjustment(adjustment("fixed:m2:e", "REPLACEMENT", {"e": 6, T: -6}, match_id="m2"))
    # a penalty tied to m1 must not lower a's best match (m1); one without a match must not
    # become a pseudo-match of its own (d's best stays m1's -9, not -1)
    cup.post_adjustment(adjustment("pen:a", "PENALTY", {"a": -3, T: 3}, match_id="m1"))
    cup.post_adjustment(adjustment("pen:d", "PENALTY", {"d": -1, T: 1}))
    cancelled = cup.post_adjustment(adjustment("pen:b", "PENALTY", {"b": -100, T: 100}))
    cup.cancel_adjustment(cancelled.entry_id, "not b's fault", "cancel:pen:b")

    by_player = {s.player_id: s for s in cup.standings("cup")}
    assert T not in by_player
    assert by_player["a"] == Standing(
        rank=3, player_id="a", points=5 - 5 + 5 - 3, hands_won=1, self_draw_wins=0,
        hands_dealt_in=1, best_match_points=5 + 5, hands_played=5, matches_played=2,
        kong_points=2, penalty_points=-3, placement_points=5, replacement_points=0,
    )  # fmt: skip
    figures = {
        p: (s.points, s.best_match_points, s.penalty_points, s.placement_points,
            s.replacement_points)
        for p, s in by_player.items()
    }  # fmt: skip
    assert figures == {
        "a": (2, 10, -3, 5, 0),
        "b": (-9 + 4 - 15, 4, 0, -15, 0),
        "c": (8 + 15, 23, 0, 15, 0),
        "d": (-4 - 5 - 1, -9, -1, -5, 0),
        "e": (-4 + 6, 2, 0, 0, 6),
        "f": (5, 5, 0, 0, 0),
    }
    # hands, wins and matches come from settlements only
    assert [(s.player_id, s.hands_played, s.matches_played) for s in cup.standings("cup")] == [
        ("c", 3, 1), ("f", 2, 1), ("a", 5, 2), ("e", 2, 1), ("d", 3, 1), ("b", 5, 2),
    ]  # fmt: skip
    # a and e tie on 2 points: a won a hand
    assert [(s.rank, s.player_id) for s in cup.standings("cup")] == [
        (1, "c"), (2, "f"), (3, "a"), (4, "e"), (5, "d"), (6, "b"),
    ]  # fmt: skip
    # the tournament account holds the rest: the tournament still sums to zero
    assert sum(s.points for s in by_player.values()) == 2
    with cup.pool.connection() as conn:
        (balance,) = conn.execute(
            "SELECT balance FROM accounts WHERE player_id = %s", (T,)
        ).fetchone()
    assert balance == 3 + 1 - 6
    report = cup.audit("cup")
    assert report.ok, report.problems
    assert [(t.tournament_id, t.entries, t.total) for t in report.tournaments] == [("cup", 11, 0)]


def test_adjustments_show_in_the_history(cup: Ledger):
    uma = {"c": 15, "a": 5, "d": -5, "b": -15}
    placement = cup.post_adjustment(adjustment("uma:m1", "PLACEMENT", uma, match_id="m1"))
    penalty = cup.post_adjustment(adjustment("pen:d", "PENALTY", {"d": -1, T: 1}))
    entry = cup.entry(placement.entry_id)
    assert entry.kind == "adjustment" and entry.settlement is None
    assert entry.idempotency_key == "adjustment:uma:m1" and entry.reason == "placement"
    assert entry.adjustment is not None and entry.adjustment["kind"] == "ADJUSTMENT_KIND_PLACEMENT"
    assert entry.adjustment["lines"] == [
        {"player_id": p, "amount": uma[p]} for p in sorted(uma)
    ]  # kept in player order
    assert sorted((p.player_id, p.seat, p.component, p.amount) for p in entry.postings) == [
        (p, None, "placement", uma[p]) for p in sorted(uma)
    ]
    keys = [e.idempotency_key for e in cup.history(match_id="m1").entries]
    assert keys == ["adjustment:uma:m1", "m1:3", "m1:2", "m1:1"]
    assert [e.entry_id for e in cup.history(player_id=T).entries] == [penalty.entry_id]
    assert [e.entry_id for e in cup.history(player_id="d", page_size=1).entries] == [
        penalty.entry_id
    ]


def test_post_adjustment_is_idempotent_by_key(cup: Ledger):
    penalty = adjustment("pen:a", "PENALTY", {"a": -3, T: 3})
    first = cup.post_adjustment(penalty)
    assert not first.duplicate
    reordered = dict(penalty, lines=list(reversed(penalty["lines"])))
    assert cup.post_adjustment(reordered) == PostResult(first.entry_id, duplicate=True)
    entries, postings = _count(cup, "journal_entries"), _count(cup, "postings")
    with pytest.raises(AlreadyExists, match="'adjustment:pen:a' is already booked as entry"):
        cup.post_adjustment(adjustment("pen:a", "PENALTY", {"a": -4, T: 4}))
    assert (_count(cup, "journal_entries"), _count(cup, "postings")) == (entries, postings)
    # an adjustment's key cannot take a settlement's: the same text books both
    other = cup.post_adjustment(adjustment("m1:1", "PENALTY", {"b": -1, T: 1}))
    assert not other.duplicate and cup.entry(other.entry_id).kind == "adjustment"
    assert {s.player_id: s.penalty_points for s in cup.standings("cup")}["a"] == -3


def test_cancel_adjustment(cup: Ledger):
    entry = cup.post_adjustment(adjustment("pen:a", "PENALTY", {"a": -30, T: 30})).entry_id
    assert {s.player_id: s.points for s in cup.standings("cup")}["a"] == 0 - 30
    result = cup.cancel_adjustment(entry, "appeal upheld", "cancel-1")
    assert not result.duplicate
    assert {s.player_id: (s.points, s.penalty_points) for s in cup.standings("cup")}["a"] == (0, 0)
    reversal = cup.entry(result.reversal_entry_id)
    assert reversal.kind == "reversal" and reversal.reverses_entry_id == entry
    assert reversal.idempotency_key == "cancel:cancel-1" and reversal.reason == "appeal upheld"
    assert sorted((p.player_id, p.seat, p.component, p.amount) for p in reversal.postings) == [
        (T, None, "penalty", -30), ("a", None, "penalty", 30),
    ]  # fmt: skip
    assert cup.entry(entry).reversed_by_entry_id == result.reversal_entry_id
    # the same request again: the first reversal; the same key otherwise: refused
    again = cup.cancel_adjustment(entry, "appeal upheld", "cancel-1")
    assert again == CancelResult(result.reversal_entry_id, duplicate=True)
    with pytest.raises(AlreadyExists, match="'cancel:cancel-1' is already booked"):
        cup.cancel_adjustment(entry, "another reason", "cancel-1")
    with pytest.raises(FailedPrecondition, match=f"already cancelled by entry {reversal.entry_id}"):
        cup.cancel_adjustment(entry, "appeal upheld", "cancel-2")
    assert cup.audit().ok


def test_only_adjustments_are_cancelled_and_only_by_cancel(cup: Ledger):
    settlement = cup.history(match_id="m1", page_size=1).entries[0].entry_id
    with pytest.raises(FailedPrecondition, match="is a settlement, not an adjustment"):
        cup.cancel_adjustment(settlement, "typo", "c1")
    penalty = cup.post_adjustment(adjustment("pen:a", "PENALTY", {"a": -3, T: 3})).entry_id
    with pytest.raises(FailedPrecondition, match="is an adjustment: cancel it with Cancel"):
        cup.reverse_entry(penalty, "typo")
    reversal = cup.cancel_adjustment(penalty, "typo", "c2").reversal_entry_id
    with pytest.raises(FailedPrecondition, match="is a reversal, not an adjustment"):
        cup.cancel_adjustment(reversal, "undo", "c3")
    with pytest.raises(NotFound, match="entry 424242 does not exist"):
        cup.cancel_adjustment(424242, "typo", "c4")
    with pytest.raises(InvalidArgument, match=r"^reason: missing"):
        cup.cancel_adjustment(penalty, " ", "c5")
    with pytest.raises(InvalidArgument, match=r"^idempotency_key: missing"):
        cup.cancel_adjustment(penalty, "typo", "")
    with pytest.raises(InvalidArgument, match=r"^entry_id: expected an entry id"):
        cup.cancel_adjustment(0, "typo", "c6")
    assert cup.audit().ok


def test_concurrent_cancels_under_different_keys_book_one_reversal(cup: Ledger):
    entry = cup.post_adjustment(adjustment("pen:a", "PENALTY", {"a": -3, T: 3})).entry_id
    callers = 6
    start = threading.Barrier(callers)
    outcomes: list[Any] = []
    lock = threading.Lock()

    def cancel(index: int) -> None:
        start.wait()
        try:
            outcome: Any = cup.cancel_adjustment(entry, "appeal", f"cancel-{index}")
        except Exception as error:  # asserted below
            outcome = error
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=cancel, args=(i,)) for i in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    booked = [o for o in outcomes if isinstance(o, CancelResult)]
    refused = [o for o in outcomes if isinstance(o, FailedPrecondition)]
    assert len(booked) == 1 and not booked[0].duplicate
    assert len(refused) == callers - 1, outcomes
    assert all("already cancelled" in str(error) for error in refused)
    with cup.pool.connection() as conn:
        reversals = conn.execute(
            "SELECT count(*) FROM journal_entries WHERE reverses_entry_id = %s", (entry,)
        ).fetchone()[0]
    assert reversals == 1
    assert {s.player_id: s.points for s in cup.standings("cup")}["a"] == 0
    assert cup.audit().ok


def test_concurrent_adjustments_share_the_group_commit_with_settlements(
    ledger: Ledger, make_settlement
):
    """Posted at once from many threads, some twice: each key booked once, every figure kept."""
    posters = 8
    start = threading.Barrier(posters)
    errors: list[BaseException] = []

    def post(index: int) -> None:
        start.wait()
        try:
            for hand in range(1, 4):
                ledger.post_settlement(make_settlement(f"m{index}", hand, tournament_id="cup"))
            for copy in range(2):  # the second post of each key is a duplicate
                result = ledger.post_adjustment(
                    adjustment(
                        f"pen:{index}", "PENALTY", {f"p{index % 4}": -index - 1, T: index + 1}
                    )
                )
                assert result.duplicate == bool(copy)
        except BaseException as error:  # asserted below
            errors.append(error)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(posters)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    penalties = {s.player_id: s.penalty_points for s in ledger.standings("cup")}
    assert penalties == {
        f"p{seat}": -sum(i + 1 for i in range(posters) if i % 4 == seat) for seat in range(4)
    }
    report = ledger.audit("cup")
    assert report.ok and report.entries_checked == posters * 3 + posters
