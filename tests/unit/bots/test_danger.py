"""Defence: the chance that an opponent waits on a tile, and what dealing into it costs."""

from __future__ import annotations

import pytest

from hebei.bots.policies.danger import (
    BASE_FROM_DEALER,
    BASE_OTHER,
    BASE_TO_DEALER,
    OWN_DISCARD_WAIT,
    DangerMap,
    wait_probability,
    win_cost,
)
from hebei.bots.policies.reading import read_opponent, read_table
from hebei.rules.tiles import parse_tile
from tests.unit.bots.observations import pongs, random_positions, turn

HAND = "2468m2468p1357s56z"
LATE = {1: ((), "9m1p9s2z3z4z8p"), 2: ((), "1z1z9p"), 3: ((), "7z7z")}


def danger_of(obs, tile: str) -> float:
    facts_counts, visible = obs.counts(), obs.visible()
    return DangerMap(read_table(obs), facts_counts, visible, obs.dealer == obs.seat).cost(
        parse_tile(tile)
    )


def test_an_opponent_s_own_discard_is_nearly_never_its_wait() -> None:
    obs = turn(HAND, others=LATE, wall=30)
    opp = read_opponent(obs, 1)
    unseen = [4] * 34
    assert wait_probability(parse_tile("8p"), opp, unseen, None, [0] * 34) == OWN_DISCARD_WAIT


@pytest.mark.parametrize("age", [0, 1, 2, 3, 5, 8])
def test_a_tile_that_went_by_lately_is_safer_than_one_never_seen(age: int) -> None:
    obs = turn(HAND, others=LATE, wall=30)
    opp = read_opponent(obs, 1)
    unseen, seen = [3] * 34, [1] * 34
    kind = parse_tile("5m")
    assert wait_probability(kind, opp, unseen, age, seen) < wait_probability(
        kind, opp, unseen, None, seen
    )


def test_the_last_copy_of_an_honor_is_safer_than_a_middle_tile() -> None:
    obs = turn(HAND, others=LATE, wall=30)
    opp = read_opponent(obs, 2)
    unseen = [3] * 34
    unseen[parse_tile("6z")] = 1
    seen = [4 - u for u in unseen]
    honor = wait_probability(parse_tile("6z"), opp, unseen, None, seen)
    middle = wait_probability(parse_tile("5s"), opp, unseen, None, seen)
    assert honor < middle / 3


@pytest.mark.parametrize(
    ("opponent", "dealer", "base"),
    [(1, 1, BASE_TO_DEALER), (1, 0, BASE_FROM_DEALER), (1, 2, BASE_OTHER)],
)
def test_a_deal_in_costs_the_base_payment_and_a_likely_bonus(
    opponent: int, dealer: int, base: float
) -> None:
    obs = turn(HAND, others=LATE, dealer=dealer)
    cost = win_cost(read_opponent(obs, opponent), own_dealer=dealer == obs.seat)
    assert base < cost < base + 3  # 门清: the opponent is concealed


def test_a_one_suit_melder_costs_a_flush_more() -> None:
    plain = turn(HAND, others={1: (pongs("5s7p", from_seat=2), "1z")})
    flush = turn(HAND, others={1: (pongs("5s7s", from_seat=2), "1z")})
    assert win_cost(read_opponent(flush, 1), False) > win_cost(read_opponent(plain, 1), False) + 2


def test_danger_grows_with_an_opponent_s_readiness() -> None:
    early = turn(HAND, others={1: ((), "9m1p")}, wall=66)
    late = turn(HAND, others={1: (pongs("1z2z3z", from_seat=2), "9m1p9s1s")}, wall=20)
    assert danger_of(late, "5m") > 5 * danger_of(early, "5m")


def test_the_map_adds_up_its_threats() -> None:
    obs = turn(HAND, others=LATE, wall=30)
    danger = DangerMap(read_table(obs), obs.counts(), obs.visible(), False)
    kind = parse_tile("4s")
    assert danger.cost(kind) == pytest.approx(sum(t.expected for t in danger.threats(kind)))
    seat, ready = danger.most_likely_ready()
    assert seat in (1, 2, 3) and 0 < ready < 1


def test_the_map_s_costs_are_its_threats_to_the_last_bit() -> None:
    """The map computes each cost inline, from tables and per-opponent terms; the wait model
    spelled out (:meth:`DangerMap.threats`) gives the same floats, summed in the same order,
    for every kind (not approximately: the expert's rankings are pinned to them)."""
    checked = 0
    for obs in random_positions(60, seed=11):
        danger = DangerMap(read_table(obs), obs.counts(), obs.visible(), obs.dealer == obs.seat)
        for kind in range(34):
            expected = 0.0
            for threat in danger.threats(kind):
                expected += threat.expected
            assert danger.cost(kind) == expected, (obs, kind)
            checked += expected > 0
    assert checked > 1000
