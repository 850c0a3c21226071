"""Hypothesis-generated settlements, balanced or not: the valid are booked, the rest refused
with nothing written, and the audit holds throughout."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hebei.common.errors import InvalidArgument
from hebei.ledger.journal import Ledger

_keys = itertools.count(1)
PLAYERS = ["ann", "bob", "cai", "dee", "eve", "fay"]


@st.composite
def settlements(draw: st.DrawFn) -> tuple[dict[str, Any], bool]:
    """A settlement with random payments; balanced (valid) or not, and which it is."""
    players = draw(st.permutations(PLAYERS))[:4]
    balanced = draw(st.booleans())
    amounts = st.integers(min_value=-500, max_value=500)
    hand = draw(st.lists(amounts, min_size=3, max_size=3))
    kong = draw(st.lists(st.integers(min_value=-12, max_value=12), min_size=3, max_size=3))
    hand.append(-sum(hand))
    kong.append(-sum(kong))
    if not balanced:
        seat = draw(st.integers(min_value=0, max_value=3))
        skew = draw(st.integers(min_value=1, max_value=50) | st.integers(-50, -1))
        if draw(st.booleans()):
            hand[seat] += skew
        else:
            kong[seat] += skew
    winner = max(range(4), key=lambda seat: hand[seat])
    hand_no = next(_keys)
    match_id = draw(st.sampled_from(["ma", "mb", "mc"]))
    settlement = {
        "idempotency_key": f"{match_id}:{hand_no}",
        "tournament_id": draw(st.sampled_from(["cup", "league"])),
        "round_no": 1,
        "table_id": "t1",
        "match_id": match_id,
        "hand_no": hand_no,
        "dealer": draw(st.integers(min_value=0, max_value=3)),
        "outcome": "HAND_OUTCOME_WIN",
        "results": [
            {
                "seat": seat,
                "player_id": players[seat],
                "hand_delta": hand[seat],
                "kong_delta": kong[seat],
                "total_delta": hand[seat] + kong[seat],
            }
            for seat in range(4)
        ],
        "wins": [{"winner": winner, "kind": "WIN_KIND_SELF_DRAW", "win_tile": "TILE_RED"}],
    }
    return settlement, balanced


@pytest.fixture
def totals() -> Counter[tuple[str, str]]:
    """Expected balance of each (tournament, player) account over the examples."""
    return Counter()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=settlements())
def test_valid_settlements_are_booked_and_unbalanced_ones_refused(
    ledger: Ledger, totals: Counter[tuple[str, str]], case: tuple[dict[str, Any], bool]
):
    settlement, balanced = case
    before = ledger.audit()
    if balanced:
        assert not ledger.post_settlement(settlement).duplicate
        for result in settlement["results"]:
            totals[settlement["tournament_id"], result["player_id"]] += result["total_delta"]
    else:
        with pytest.raises(InvalidArgument, match="unbalanced"):
            ledger.post_settlement(settlement)
    after = ledger.audit()
    assert after.ok, after.problems
    assert after.entries_checked == before.entries_checked + (1 if balanced else 0)
    for tournament in ("cup", "league"):
        for standing in ledger.standings(tournament):
            assert standing.points == totals[tournament, standing.player_id]
