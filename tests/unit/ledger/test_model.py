"""Settlement parsing and checks: every malformed input is refused with a message naming the
field, and equal meanings hash equally."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from hebei.common.errors import InvalidArgument
from hebei.ledger.model import Settlement
from hebei.ledger.samples import sample_settlement


def _valid() -> dict[str, Any]:
    rng = random.Random(5)  # seed 5: seat 2 wins on seat 0's discard, with fans and kongs
    return sample_settlement(rng, match_id="m7", hand_no=3, players=["a", "b", "c", "d"])


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = data
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        if value is _DELETE:
            del target[last]
        else:
            target[int(last) if last.isdigit() else last] = value

    return change


_DELETE = object()


def _swap_seat(data: dict[str, Any]) -> None:
    data["results"][1]["seat"] = 0


def _unbalance(data: dict[str, Any]) -> None:
    data["results"][0]["hand_delta"] += 1
    data["results"][0]["total_delta"] += 1


CASES = [
    ("missing key", _set("idempotency_key", _DELETE), r"settlement\.idempotency_key: missing"),
    ("key not match:hand", _set("idempotency_key", "m7:4"), "must be match_id:hand_no"),
    ("unknown seat", _set("results.2.seat", 7), r"results\[2\]\.seat: unknown seat 7"),
    ("seat twice", _swap_seat, "seat 0 appears twice"),
    ("three seats", lambda d: d["results"].pop(), "expected 4 seats, got 3"),
    ("seat as text", _set("results.0.seat", "north"), r"results\[0\]\.seat: expected an integer"),
    ("delta as float", _set("results.0.hand_delta", 1.5), "expected an integer, got 1.5"),
    ("delta as bool", _set("results.0.kong_delta", True), "expected an integer, got True"),
    ("huge int32", _set("hand_no", 2**40), "out of range for int32"),
    ("player missing", _set("results.1.player_id", ""), r"results\[1\]\.player_id: missing"),
    ("player twice", _set("results.1.player_id", "a"), "'a' appears twice"),
    ("player as number", _set("results.1.player_id", 5), "expected a string, got 5"),
    ("NUL in a name", _set("results.1.player_id", "b\x00"), "contains a NUL character"),
    ("unbalanced", _unbalance, "unbalanced, hand_delta sums to 1"),
    ("total mismatch", _set("results.0.total_delta", 99), "is not hand_delta \\+ kong_delta"),
    ("unknown field", _set("results.0.bonus", 1), "unknown field 'bonus'"),
    ("results not a list", _set("results", {"seat": 0}), r"results: expected a list"),
    ("not an object", lambda d: d.update(wins=[3]), r"wins\[0\]: expected an object"),
    ("bad outcome", _set("outcome", "WON"), "outcome: expected one of"),
    ("no outcome", _set("outcome", _DELETE), "outcome: missing"),
    ("bad tile", _set("wins.0.win_tile", "TILE_10M"), "win_tile: expected one of"),
    ("unknown winner", _set("wins.0.winner", 4), r"wins\[0\]\.winner: unknown seat 4"),
    ("self discarder", _set("wins.0.discarder", 2), "winner cannot be the discarder"),
    ("bonus not sum", _set("wins.0.bonus", 40), "is not the sum of its fans"),
    ("dealer", _set("dealer", -1), "dealer: unknown seat -1"),
    ("hand zero", _set("hand_no", 0), "hand_no: must be 1 or more"),
    ("no table", _set("table_id", ""), "table_id: missing"),
    ("draw with wins", _set("outcome", "HAND_OUTCOME_EXHAUSTIVE_DRAW"), "exhaustive draw has no"),
    ("win without wins", _set("wins", []), "needs at least one win"),
]


def test_the_sample_is_valid():
    settlement = Settlement.from_dict(_valid())
    assert settlement.wins and settlement.wins[0].discarder is not None
    assert any(result.kong_delta for result in settlement.results)


@pytest.mark.parametrize(("change", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_settlements_are_refused_with_a_clear_message(
    change: Callable[[dict[str, Any]], None], message: str
):
    data = _valid()
    change(data)
    with pytest.raises(InvalidArgument, match=message):
        Settlement.from_dict(data)


def test_not_an_object_at_all():
    with pytest.raises(InvalidArgument, match="settlement: expected an object, got 'x'"):
        Settlement.from_dict("x")


def test_equal_meanings_hash_equally_and_different_ones_do_not():
    data = _valid()
    respelled = copy.deepcopy(data)
    for result in respelled["results"]:
        result["hand_delta"] = str(result["hand_delta"])  # int64 as text, as JSON mapping allows
    respelled["wins"][0]["melds"] = []  # a default spelled out
    assert (
        Settlement.from_dict(respelled).request_hash() == Settlement.from_dict(data).request_hash()
    )
    other = copy.deepcopy(data)
    other["round_no"] += 1
    assert Settlement.from_dict(other).request_hash() != Settlement.from_dict(data).request_hash()


def test_round_trip_through_the_canonical_dict():
    settlement = Settlement.from_dict(_valid())
    assert Settlement.from_dict(settlement.to_dict()) == settlement
