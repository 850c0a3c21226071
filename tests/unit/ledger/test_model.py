"""Settlement parsing and checks: every malformed input is refused with a message naming the
field, and equal meanings hash equally."""

from __future__ import annotations

import copy
import dataclasses
import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from hebei.common.errors import InvalidArgument
from hebei.ledger.model import Settlement, check_entry_id, check_text, parse_entry_id
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


def _draw_paying(component: str) -> Callable[[dict[str, Any]], None]:
    """An exhaustive draw in which seat 0 gets 2 points of ``component`` from seat 1."""

    def change(data: dict[str, Any]) -> None:
        data["outcome"] = "HAND_OUTCOME_EXHAUSTIVE_DRAW"
        data["wins"] = []
        for seat, result in enumerate(data["results"]):
            result.update(hand_delta=0, kong_delta=0, total_delta=0)
            result[component] = result["total_delta"] = {0: 2, 1: -2}.get(seat, 0)

    return change


def _set_delta(value: int) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["results"][0]["kong_delta"] = value

    return change


def _rename_match(match_id: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["match_id"] = match_id
        data["idempotency_key"] = f"{match_id}:{data['hand_no']}"

    return change


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
    ("payment not to the winner", _set("wins.0.payments.0.payee", 1), "a win pays its winner"),
    ("payment off", _set("wins.0.payments.0.amount", 1), "not to the win's deltas"),
    ("payment as text", _set("wins.0.payments.0.amount", "x"), r"amount: expected an integer"),
    ("payment beyond 10^12", _set("wins.0.payments.0.amount", 10**12 + 1), "out of range"),
    ("payment field", _set("wins.0.payments.0.seat", 1), r"payments\[0\]: unknown field 'seat'"),
    (
        "penalty without false win",
        _set("false_win_penalties", [{"payer": 1, "amount": 1}]),
        r"false_win_penalties\[0\]\.payer: seat 1 declared no false win",
    ),
    ("dealer", _set("dealer", -1), "dealer: unknown seat -1"),
    ("hand zero", _set("hand_no", 0), "hand_no: must be 1 or more"),
    ("no table", _set("table_id", ""), "table_id: missing"),
    ("draw with wins", _set("outcome", "HAND_OUTCOME_EXHAUSTIVE_DRAW"), "exhaustive draw has no"),
    ("win without wins", _set("wins", []), "needs at least one win"),
    # issue 10: limits and reserved names
    ("draw with kong points", _draw_paying("kong_delta"), r"results\[0\]: an exhaustive draw pays"),
    ("draw with hand points", _draw_paying("hand_delta"), r"results\[0\]: an exhaustive draw pays"),
    ("amount beyond 10^12", _set_delta(10**12 + 1), "out of range: an amount is at most 10\\^12"),
    ("win delta beyond", _set("wins.0.deltas.0", -(10**12) - 1), r"deltas\[0\]: .* out of range"),
    ("int64 overflow", _set("results.0.kong_delta", str(2**63)), "out of range for int64"),
    ("digits of another script", _set("results.0.hand_delta", "١٢"), "expected an integer"),
    ("decimal with newline", _set("results.0.hand_delta", "12\n"), "expected an integer"),
    ("reserved player", _set("results.1.player_id", "#tournament"), "reserved for the ledger"),
    ("reserved key prefix", _rename_match("reverse"), "match_id: must not start with 'reverse'"),
    ("reserved key prefix:", _rename_match("cancel:x"), "match_id: must not start with 'cancel'"),
    ("long player id", _set("results.1.player_id", "b" * 129), "at most 128 characters, got 129"),
    ("long table id", _set("table_id", "t" * 129), r"table_id: at most 128 characters"),
    ("long fan name", _set("wins.0.fans", [{"id": "x", "name_zh": "番" * 129}]), "at most 128"),
    ("NUL in a table", _set("table_id", "t\x00"), r"table_id: contains a NUL character"),
    ("NUL in a fan", _set("wins.0.fans", [{"id": "\x00"}]), r"fans\[0\]\.id: contains a NUL"),
    ("lone surrogate", _set("rule_profile", "main\ud800"), "not valid Unicode text"),
    ("too many wins", _set("wins", [{}] * 4), r"wins: at most 3 entries, got 4"),
    ("too many fans", _set("wins.0.fans", [{}] * 65), r"fans: at most 64 entries"),
    ("bad ended_at", _set("ended_at", "yesterday"), r"ended_at: expected an RFC 3339 timestamp"),
    ("ended_at year 0", _set("ended_at", "0000-01-01T00:00:00Z"), "ended_at: expected an RFC"),
    ("ended_at digits", _set("ended_at", "２０２３-11-14T22:13:20Z"), "ended_at: expected an RFC"),
    ("ended_at NUL", _set("ended_at", "2023-11-14T22:13:20\x00Z"), "ended_at: contains a NUL"),
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


def test_ended_at_is_kept_in_its_canonical_spelling():
    data = _valid()
    data["ended_at"] = "2023-11-14T23:13:20.500+01:00"
    settlement = Settlement.from_dict(data)
    assert settlement.ended_at == "2023-11-14T22:13:20.500Z"
    data["ended_at"] = "2023-11-14T22:13:20.5Z"
    assert Settlement.from_dict(data).request_hash() == settlement.request_hash()


def test_an_instance_is_checked_like_a_dict():
    settlement = Settlement.from_dict(_valid())
    bad = dataclasses.replace(settlement, table_id="t\x00")
    with pytest.raises(InvalidArgument, match="table_id: contains a NUL"):
        Settlement.parse(bad)
    assert Settlement.parse(settlement) == settlement


def test_a_huge_value_is_never_echoed_whole():
    data = _valid()
    data["results"][0]["seat"] = "x" * 100_000
    with pytest.raises(InvalidArgument) as raised:
        Settlement.from_dict(data)
    assert len(str(raised.value)) < 120
    assert str(raised.value).endswith("…")
    data = _valid()
    data["x" * 100_000] = 1
    with pytest.raises(InvalidArgument, match="unknown field") as raised:
        Settlement.from_dict(data)
    assert len(str(raised.value)) < 120


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", 1), ("12", 12), ("0012", 12), (str(2**63 - 1), 2**63 - 1)],
)
def test_entry_ids_are_ascii_decimal_numbers(text: str, expected: int):
    assert parse_entry_id(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "0", "-1", "+1", " 1", "1 ", "1\n", "1.0", "1e3", "1_000", "²", "١٢", "１２", "12²",
     str(2**63), "9" * 30, "m1:1", "\x00"],
)  # fmt: skip
def test_anything_else_is_not_an_entry_id(text: str):
    with pytest.raises(InvalidArgument, match="page_token: expected an entry id"):
        parse_entry_id(text, "page_token")


@pytest.mark.parametrize("value", [0, -1, 2**63, True, 1.0, "1"])
def test_entry_ids_given_as_numbers_are_checked(value: Any):
    with pytest.raises(InvalidArgument, match="entry_id: expected an entry id"):
        check_entry_id(value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("a\x00b", "contains a NUL character"),
        ("x" * 129, "at most 128 characters, got 129"),
        ("\udc80", "not valid Unicode text"),
        (5, "expected a string, got 5"),
        ("   ", "missing"),
    ],
)
def test_text_checks(value: Any, message: str):
    with pytest.raises(InvalidArgument, match=f"^field: {re.escape(message)}"):
        check_text(value, "field", 128, required=True)
    assert check_text("x" * 128, "field", 128) == "x" * 128
