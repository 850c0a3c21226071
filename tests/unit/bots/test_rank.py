"""``rank``: every policy lists every legal action once, its choice first; ``explain`` gives
each a reason."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hebei.bots.policies import make_policy
from hebei.bots.policies.explain import distance, explain
from hebei.bots.policies.options import Option
from hebei.rules.actions import DISCARD, PASS, PONG
from hebei.rules.tiles import parse_tile
from tests.unit.bots.observations import claim, random_position, turn

RANKERS = [("random", 1), ("efficiency", 1), ("expert", 1), ("expert", 2), ("expert", 3)]
NO_SLIPS = [("efficiency", 1), ("expert", 3)]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**40), steps=st.integers(0, 140))
def test_rank_lists_each_legal_action_once_and_its_choice_first(seed: int, steps: int) -> None:
    obs = random_position(seed, steps)
    if obs is None:
        return
    for name, level in RANKERS:
        ranked = make_policy(name, level, seed=seed).rank(obs)
        assert sorted((o.action for o in ranked), key=str) == sorted(obs.legal_actions, key=str)
        assert len({o.action for o in ranked}) == len(ranked)
    for name, level in NO_SLIPS:
        policy = make_policy(name, level)
        assert policy.rank(obs)[0].action is policy.choose(obs)


def test_the_expert_prices_every_discard_and_its_danger() -> None:
    ranked = make_policy("expert", 3).rank(turn("2468m2468p1357s56z", wall=30))
    assert all(o.value is not None and o.danger is not None for o in ranked)
    assert [o.value for o in ranked] == sorted((o.value for o in ranked), reverse=True)


def test_a_pong_shows_the_discard_it_plans() -> None:
    ranked = make_policy("expert", 3).rank(claim("123m456p789s55z13z", "5z"))
    pong = next(o for o in ranked if o.action is PONG[parse_tile("5z")])
    assert pong.then is not None and pong.shanten == 0


def test_explain_says_why_the_best_and_what_the_others_give_up() -> None:
    best = Option(DISCARD[0], 0, ((5, 3),), 0.01, 4.0, extras={"win_points": 9.0})
    slower = Option(DISCARD[1], 1, ((5, 3),), 0.01, 2.0)
    riskier = Option(DISCARD[2], 0, ((5, 3),), 0.5, 3.5)
    lines = [o.reason for o in explain([best, slower, riskier])]
    assert lines[0].startswith("ready, 1 waits, 3 live, a win ≈ 9.0 pts; safe")
    assert lines[1].startswith("slower (1 from ready)") and "−2.00 pts" in lines[1]
    assert lines[2].startswith("riskier (deal-in 0.50 vs 0.01 pts)")
    assert explain([]) == []
    passing = explain([Option(PONG[3], 0, value=1.0), Option(PASS, 1, value=0.0)])
    assert passing[1].reason.startswith("passes up the pong")


@pytest.mark.parametrize(("shanten", "text"), [(-1, "complete"), (0, "ready"), (2, "2 from ready")])
def test_distance_words(shanten: int, text: str) -> None:
    assert distance(shanten) == text
