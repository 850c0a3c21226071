"""The ledger's model of classic settlements (RULES.md §9) as the engine makes them: wins
scored in points with ×2 doublings, paid double by or to the dealer, and false wins (诈胡)
that cost a penalty. The ledger books them as sent and refuses what does not add up within
the message; whether the engine scored the fans right is tested where it scores them
(tests/unit/contracts/test_settlement_payments.py)."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from hebei.common import convert
from hebei.common.errors import InvalidArgument
from hebei.ledger.model import Settlement
from hebei.rules.actions import DISCARD, WIN
from hebei.rules.hand import HandState
from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.tiles import parse_tile
from tests.unit.rules.rigging import CHOW_DEAL_WIN, QUIET_HANDS, rigged_hand
from tests.unit.table.greedy import greedy_choice

PLAYERS = ["a", "b", "c", "d"]


def as_dict(state: HandState, profile: str = "classic") -> dict[str, Any]:
    message = convert.settlement_to_proto(
        state.result.settlement,
        match_id="m1",
        hand_no=2,
        dealer=state.dealer,
        player_ids=PLAYERS,
        table_id="t1",
        rule_profile=profile,
        ended_at=1.0,
    )
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def dealer_self_draw() -> dict[str, Any]:
    """The dealer (seat 0) wins 龙 by self-draw, 门清: 3 x2 x2 = 12 points, 24 from each."""
    state = rigged_hand(["123m456m789m55566z", *QUIET_HANDS[1:]], profile=CLASSIC)
    state.apply(0, WIN)
    return as_dict(state)


def false_win(seat: int = 1) -> dict[str, Any]:
    state = rigged_hand(QUIET_HANDS, profile=CLASSIC)
    if seat:
        state.apply(0, DISCARD[parse_tile("1m")])
    state.apply(seat, WIN)
    return as_dict(state)


def false_and_real_win() -> dict[str, Any]:
    state = rigged_hand(CHOW_DEAL_WIN, profile=CLASSIC)
    state.apply(0, DISCARD[parse_tile("4m")])
    state.apply(1, WIN)  # false: seat 1 may only chow
    state.apply(3, WIN)
    return as_dict(state)


def test_a_classic_win_is_read_as_sent() -> None:
    data = dealer_self_draw()
    (win,) = data["wins"]
    assert win["points"] == 12 and "bonus" not in win and "base" not in win
    assert [f.get("doubling", False) for f in win["fans"]] == [False, True, True]
    settlement = Settlement.parse(data)
    assert settlement.wins[0].points == 12
    assert settlement.wins[0].deltas == (72, -24, -24, -24)
    assert Settlement.parse(settlement.to_dict()) == settlement
    assert settlement.to_dict()["wins"][0]["points"] == 12


def test_false_wins_are_read_as_sent() -> None:
    for data, outcome, false_wins in (
        (false_win(1), "HAND_OUTCOME_FALSE_WIN", [1]),
        (false_win(0), "HAND_OUTCOME_FALSE_WIN", [0]),
        (false_and_real_win(), "HAND_OUTCOME_WIN", [1]),
    ):
        assert data["outcome"] == outcome and data["false_wins"] == false_wins
        settlement = Settlement.parse(data)
        assert settlement.false_wins == tuple(false_wins)
        assert sum(r.total_delta for r in settlement.results) == 0
        assert Settlement.parse(settlement.to_dict()) == settlement
    assert [r.hand_delta for r in Settlement.parse(false_win(0)).results] == [-6, 2, 2, 2]


def test_every_settlement_of_classic_self_play_is_valid() -> None:
    outcomes = set()
    for seed in range(30):
        rng = random.Random(seed)
        state = HandState(seed, dealer=seed % 4, profile=CLASSIC)
        false_winner = seed % 5 == 0  # a person declaring a win it does not have
        while not state.ended:
            seat = state.to_act()[0]
            if false_winner and state.accepts_false_win(seat) and rng.random() < 0.05:
                state.apply(seat, WIN)
                continue
            options = state.legal_actions(seat)
            state.apply(seat, greedy_choice(options, state.hands[seat], 0, rng))
        settlement = Settlement.parse(as_dict(state))
        outcomes.add(settlement.outcome)
    assert outcomes == {
        "HAND_OUTCOME_WIN",
        "HAND_OUTCOME_FALSE_WIN",
        "HAND_OUTCOME_EXHAUSTIVE_DRAW",
    }


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = data
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        if value is None:
            del target[last]
        else:
            target[int(last) if last.isdigit() else last] = value

    return change


def _shift(seat_from: int, seat_to: int, field: str = "hand_delta"):
    def change(data: dict[str, Any]) -> None:
        for seat, sign in ((seat_from, -1), (seat_to, 1)):
            result = data["results"][seat]
            result[field] = int(result.get(field, 0)) + sign
            result["total_delta"] = int(result.get("total_delta", 0)) + sign

    return change


def _pay_other(data: dict[str, Any]) -> None:
    """The first payment of the first win goes to seat 2 instead of the winner."""
    data["wins"][0]["payments"][0]["payee"] = 2


def _discarder_unpaid(data: dict[str, Any]) -> None:
    """A discard win whose discarder pays no line (the win's lines are kept balanced)."""
    win = data["wins"][0]
    win["kind"], win["discarder"] = "WIN_KIND_DISCARD", 1
    win["payments"] = [line for line in win["payments"] if line["payer"] != 1]


BAD_WINS = [
    (
        "a non-dealer paying single",
        _set("wins.0.deltas", [60, -12, -24, -24]),
        r"payments: they add up to \[72, -24, -24, -24\], not to the win's deltas",
    ),
    ("a payment to another seat", _pay_other, r"payments\[0\]\.payee: a win pays its winner"),
    ("the discarder pays nothing", _discarder_unpaid, "the discarder .seat 1. pays no line"),
    ("a payment of 0", _set("wins.0.payments.0.amount", 0), r"amount: must be more than 0"),
    ("a seat paying itself", _set("wins.0.payments.0.payer", 0), "seat 0 cannot pay itself"),
    ("an unknown payer", _set("wins.0.payments.0.payer", 4), r"payer: unknown seat 4"),
    (
        "a line twice",
        _set("wins.0.payments.2", {"payer": 1, "amount": 24}),
        "seat 1 pays seat 0 in two lines",
    ),
    ("too many lines", _set("wins.0.payments", [{}] * 4), r"payments: at most 3 entries, got 4"),
    ("a doubling flag", _set("wins.0.doubling", True), r"wins\[0\]: unknown field 'doubling'"),
]


@pytest.mark.parametrize(
    ("change", "message"), [b[1:] for b in BAD_WINS], ids=[b[0] for b in BAD_WINS]
)
def test_malformed_classic_wins_are_refused(change, message) -> None:
    data = copy.deepcopy(dealer_self_draw())
    change(data)
    with pytest.raises(InvalidArgument, match=message):
        Settlement.parse(data)


BAD_FALSE_WINS = [
    ("no seats", _set("false_wins", None), "an outcome of HAND_OUTCOME_FALSE_WIN names its seats"),
    ("a draw", _set("outcome", "HAND_OUTCOME_EXHAUSTIVE_DRAW"), "has the outcome .*FALSE_WIN"),
    ("unknown seat", _set("false_wins", [4]), r"false_wins\[0\]: unknown seat 4"),
    ("twice", _set("false_wins", [1, 1]), r"false_wins\[1\]: seat 1 declares at most one win"),
    ("wrong penalty", _shift(0, 1), r"results\[0\]: a hand ended by a false win pays only"),
    ("kong points", _shift(0, 1, "kong_delta"), "kong payments are void"),
    (
        "another seat's penalty",
        _set("false_win_penalties.0.payer", 2),
        r"false_win_penalties\[\d\]\.payer: seat 2 declared no false win",
    ),
    (
        "a false win without its penalty",
        _set("false_wins", [1, 3]),
        "seat 3's false win pays no penalty",
    ),
    ("bad seat type", _set("false_wins", ["x"]), r"false_wins\[0\]: expected an integer"),
]


@pytest.mark.parametrize(
    ("change", "message"), [b[1:] for b in BAD_FALSE_WINS], ids=[b[0] for b in BAD_FALSE_WINS]
)
def test_malformed_false_wins_are_refused(change, message) -> None:
    data = copy.deepcopy(false_win(1))
    change(data)
    with pytest.raises(InvalidArgument, match=message):
        Settlement.parse(data)


def test_a_false_winner_cannot_also_win_and_penalties_add_to_the_wins() -> None:
    data = false_and_real_win()
    bad = copy.deepcopy(data)
    bad["false_wins"] = [3]
    with pytest.raises(InvalidArgument, match="seat 3 declares at most one win"):
        Settlement.parse(bad)
    bad = copy.deepcopy(data)
    bad["false_wins"] = [2]  # the false winner is another seat than the penalties' payer
    with pytest.raises(InvalidArgument, match="seat 1 declared no false win"):
        Settlement.parse(bad)
    bad = copy.deepcopy(data)  # a penalty line of another amount: the results no longer add up
    bad["false_win_penalties"][0]["amount"] = 2
    with pytest.raises(InvalidArgument, match="differs from its wins' deltas and false-win"):
        Settlement.parse(bad)


def test_a_false_win_from_an_older_engine_is_booked_without_its_penalty_lines() -> None:
    data = false_and_real_win()
    del data["false_win_penalties"]
    for win in data["wins"]:
        del win["payments"]
    assert Settlement.parse(data).false_win_penalties == ()
    data = false_win(1)
    del data["false_win_penalties"]
    Settlement.parse(data)
    _shift(0, 1, "kong_delta")(data)
    with pytest.raises(InvalidArgument, match="kong payments are void"):
        Settlement.parse(data)


def test_main_wins_are_read_as_sent_and_their_payments_checked_alike() -> None:
    state = rigged_hand(["123m456m789m55566z", *QUIET_HANDS[1:]], profile=MAIN)
    state.apply(0, WIN)
    data = as_dict(state, "main")
    settlement = Settlement.parse(data)
    assert settlement.wins[0].points == 0 and len(settlement.wins[0].payments) == 3
    for change, message in (
        (_set("wins.0.payments.0.amount", 1), "not to the win's deltas"),
        (_pay_other, "a win pays its winner"),
    ):
        bad = copy.deepcopy(data)
        change(bad)
        with pytest.raises(InvalidArgument, match=message):
            Settlement.parse(bad)


def test_a_win_sent_with_payments_only_is_checked_against_the_results() -> None:
    data = dealer_self_draw()
    del data["wins"][0]["deltas"]
    assert Settlement.parse(data).wins[0].seat_deltas() == (72, -24, -24, -24)
    _shift(1, 2)(data)
    with pytest.raises(InvalidArgument, match="differs from its wins' deltas"):
        Settlement.parse(data)


def _played(seed: int, false_win_rate: float) -> HandState:
    rng = random.Random(seed)
    state = HandState(seed, dealer=seed % 4, profile=CLASSIC)
    while not state.ended:
        seat = state.to_act()[0]
        if state.accepts_false_win(seat) and rng.random() < false_win_rate:
            state.apply(seat, WIN)
            continue
        options = state.legal_actions(seat)
        state.apply(seat, greedy_choice(options, state.hands[seat], len(state.melds[seat]), rng))
    return state


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    false_win_rate=st.sampled_from([0.0, 0.01, 0.05]),
    seats=st.permutations(range(4)),
    shift=st.integers(min_value=1, max_value=40),
)
def test_any_classic_hand_is_booked_as_sent_and_a_balanced_alteration_is_refused(
    seed, false_win_rate, seats, shift
) -> None:
    data = as_dict(_played(seed, false_win_rate))
    settlement = Settlement.parse(data)
    assert sum(r.total_delta for r in settlement.results) == 0
    # Move points from one seat to another: still zero-sum, but not what the hand paid.
    altered = copy.deepcopy(data)
    _shift(seats[0], seats[1])(altered)
    for _ in range(shift - 1):
        _shift(seats[0], seats[1])(altered)
    with pytest.raises(InvalidArgument):
        Settlement.parse(altered)
