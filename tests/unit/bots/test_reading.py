"""Reading the opponents: table time of discards, tiles that went by, readiness."""

from __future__ import annotations

import pytest

from hebei.bots.policies.reading import (
    discard_time,
    read_opponent,
    read_table,
    ready_probability,
    sigmoid,
)
from hebei.rules.tiles import parse_tile, parse_tiles
from tests.unit.bots.observations import pongs, turn


@pytest.mark.parametrize(
    ("seat", "index", "dealer", "time"),
    [(0, 0, 0, 0), (1, 0, 0, 1), (3, 2, 0, 11), (0, 1, 1, 7), (1, 1, 1, 4)],
)
def test_discards_are_timed_in_turn_order_from_the_dealer(
    seat: int, index: int, dealer: int, time: int
) -> None:
    assert discard_time(seat, index, dealer) == time


def test_a_tile_thrown_after_an_opponent_s_last_discard_went_by_it() -> None:
    # Seat 1 threw 9m 9p; seat 2 then threw 5s (after seat 1's second discard): 0 turns ago.
    obs = turn(
        "123m456p789s11z55z7z",
        others={1: ((), "9m9p"), 2: ((), "1z5s"), 3: ((), "2z3z")},
        seat=0,
    )
    table = read_table(obs)
    first = next(o for o in table.opponents if o.seat == 1)
    assert table.passed_by(first, parse_tile("5s")) == 0
    assert table.passed_by(first, parse_tile("1z")) == 1  # thrown before its last discard
    assert table.passed_by(first, parse_tile("6m")) is None  # never seen


@pytest.mark.parametrize(
    ("discards", "melds", "wall"),
    [("", 0, 70), ("1z2z3z", 0, 60), ("1z2z3z4z9m1p", 0, 50), ("1z2z3z4z9m1p5s6s", 1, 40)],
)
def test_readiness_grows_with_the_turns_played(discards: str, melds: int, wall: int) -> None:
    earlier = ready_probability(parse_tiles(discards)[:-1] if discards else [], melds, wall + 4)
    now = ready_probability(parse_tiles(discards) if discards else [], melds, wall)
    assert 0.0 < earlier <= now < 1.0


def test_melds_make_an_opponent_more_likely_ready() -> None:
    discards = parse_tiles("1z2z3z4z9m1p")
    assert ready_probability(discards, 2, 40) > ready_probability(discards, 0, 40)


def test_an_opponent_s_suits_and_concealment_are_read() -> None:
    obs = turn("123m456p789s11z55z7z", others={2: (pongs("5s7s", from_seat=1), "1m2m1z")})
    opp = read_opponent(obs, 2)
    assert opp.meld_suits == (0, 0, 2, 0) and not opp.concealed and not opp.dealer
    assert opp.suit_share[0] == pytest.approx(2 / 3) and opp.suit_share[3] == pytest.approx(1 / 3)
    assert read_opponent(obs, 1).concealed


@pytest.mark.parametrize("x", [-800.0, -3.0, 0.0, 3.0, 800.0])
def test_sigmoid_is_safe_everywhere(x: float) -> None:
    assert 0.0 <= sigmoid(x) <= 1.0
    assert sigmoid(x) + sigmoid(-x) == pytest.approx(1.0)
