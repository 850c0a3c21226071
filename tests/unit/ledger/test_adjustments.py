"""Adjustment parsing and checks: the lines each kind takes, limits, canonical hashing."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from hebei.common.errors import InvalidArgument
from hebei.ledger import TOURNAMENT_ACCOUNT
from hebei.ledger.model import Adjustment

T = TOURNAMENT_ACCOUNT


def _penalty(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "idempotency_key": "penalty:1", "tournament_id": "cup", "round_no": 2,
        "kind": "ADJUSTMENT_KIND_PENALTY",
        "lines": [{"player_id": "a", "amount": -30}, {"player_id": T, "amount": "30"}],
        "reason": "late", "assigned_by": "referee",
    }  # fmt: skip
    data.update(fields)
    return data


def _lines(*pairs: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"player_id": player, "amount": amount} for player, amount in pairs]


def test_the_three_kinds_parse():
    penalty = Adjustment.from_dict(_penalty())
    assert penalty.component == "penalty" and penalty.match_id == ""
    assert [(x.player_id, x.amount) for x in penalty.lines] == [(T, 30), ("a", -30)]
    placement = Adjustment.from_dict(
        _penalty(kind="ADJUSTMENT_KIND_PLACEMENT", match_id="m1",
                 lines=_lines(("a", 15), ("b", 5), ("c", -5), ("d", -15)))
    )  # fmt: skip
    assert placement.component == "placement"
    replacement = Adjustment.from_dict(
        _penalty(kind="ADJUSTMENT_KIND_REPLACEMENT", match_id="m1", lines=_lines(("a", 7), (T, -7)))
    )
    assert replacement.component == "replacement"


def test_line_order_does_not_change_the_hash_but_figures_do():
    data = _penalty()
    reordered = copy.deepcopy(data)
    reordered["lines"].reverse()
    assert (
        Adjustment.from_dict(reordered).request_hash() == Adjustment.from_dict(data).request_hash()
    )
    other = _penalty(reason="very late")
    assert Adjustment.from_dict(other).request_hash() != Adjustment.from_dict(data).request_hash()
    parsed = Adjustment.from_dict(data)
    assert Adjustment.from_dict(parsed.to_dict()) == parsed == Adjustment.parse(parsed)


def _with(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.update(fields)


CASES = [
    ("no key", _with(idempotency_key=""), r"adjustment\.idempotency_key: missing"),
    ("no tournament", _with(tournament_id=""), r"adjustment\.tournament_id: missing"),
    ("no kind", _with(kind="ADJUSTMENT_KIND_UNSPECIFIED"), r"adjustment\.kind: missing"),
    ("unknown kind", _with(kind="BONUS"), r"adjustment\.kind: expected one of"),
    ("negative round", _with(round_no=-1), "round_no: must be 0 or more"),
    ("one line", _with(lines=_lines(("a", 0))), r"lines: expected 2-8, got 1"),
    ("nine lines", _with(lines=_lines(*[(f"p{i}", 1) for i in range(9)])), "at most 8 entries"),
    ("zero amount", _with(lines=_lines(("a", 0), (T, 0))), r"lines\[0\]\.amount: must not be zero"),
    ("unbalanced", _with(lines=_lines(("a", -3), (T, 2))), "unbalanced, the amounts sum to -1"),
    ("player twice", _with(lines=_lines(("a", -3), ("a", -3), (T, 6))), "'a' appears twice"),
    ("no player", _with(lines=_lines(("", -3), (T, 3))), r"lines\[0\]\.player_id: missing"),
    ("other # account", _with(lines=_lines(("#pool", -3), (T, 3))), "reserved for the ledger"),
    ("beyond 10^12", _with(lines=_lines(("a", -(10**12) - 1), (T, 10**12 + 1))), "out of range"),
    ("penalty gives", _with(lines=_lines(("a", 3), (T, -3))), "a penalty takes points"),
    ("penalty w/o account", _with(lines=_lines(("a", -3), ("b", 3))), "'#tournament', which"),
    ("placement w/o match", _with(kind="ADJUSTMENT_KIND_PLACEMENT", lines=_lines(("a", 1), ("b", -1))),
     r"adjustment\.match_id: missing"),
    ("placement w/ account", _with(kind="ADJUSTMENT_KIND_PLACEMENT", match_id="m",
                                   lines=_lines(("a", 1), (T, -1))), "without '#tournament'"),
    ("placement of 5", _with(kind="ADJUSTMENT_KIND_PLACEMENT", match_id="m",
                             lines=_lines(("a", 4), ("b", -1), ("c", -1), ("d", -1), ("e", -1))),
     "at most 4 players"),
    ("replacement w/o match", _with(kind="ADJUSTMENT_KIND_REPLACEMENT"), "match_id: missing"),
    ("replacement w/o account", _with(kind="ADJUSTMENT_KIND_REPLACEMENT", match_id="m",
                                      lines=_lines(("a", 1), ("b", -1))), "'#tournament', which"),
    ("long reason", _with(reason="r" * 257), r"reason: at most 256 characters, got 257"),
    ("long key", _with(idempotency_key="k" * 161), r"idempotency_key: at most 160 characters"),
    ("long assigned_by", _with(assigned_by="x" * 129), r"assigned_by: at most 128"),
    ("NUL in reason", _with(reason="late\x00"), r"reason: contains a NUL character"),
    ("NUL in match", _with(match_id="m\x00"), r"match_id: contains a NUL character"),
    ("unknown field", _with(seat=1), "unknown field 'seat'"),
    ("amount as text", _with(lines=_lines(("a", "lots"), (T, 3))), "expected an integer"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_adjustments_are_refused_with_a_clear_message(
    change: Callable[[dict[str, Any]], None], message: str
):
    data = _penalty()
    change(data)
    with pytest.raises(InvalidArgument, match=message):
        Adjustment.from_dict(data)
