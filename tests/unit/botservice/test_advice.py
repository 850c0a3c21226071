"""Suggest: every legal action ranked, with figures and reasons; bad requests refused."""

from __future__ import annotations

import pytest

from hebei.bots.policies import POLICY_LEVELS, make_policy
from hebei.botservice.advice import resolve_policy, suggest
from hebei.common.errors import InvalidArgument, NotFound
from hebei.rules.actions import DISCARD, WIN
from hebei.rules.tiles import parse_tile
from tests.unit.bots.observations import claim, turn
from tests.unit.botservice.positions import random_positions

SPECS = [(name, level) for name, levels in POLICY_LEVELS.items() for level in levels]
POSITIONS = random_positions(40, seed=11)
NO_SLIPS = {("efficiency", 1), ("expert", 2), ("expert", 3)}


@pytest.mark.parametrize(("policy", "level"), SPECS, ids=lambda v: str(v))
def test_suggest_ranks_exactly_the_legal_actions(policy: str, level: int) -> None:
    for obs in POSITIONS:
        advice = suggest(obs, policy, level, seed=3)
        ranked = [o.action for o in advice.options]
        assert sorted(ranked, key=str) == sorted(obs.legal_actions, key=str)
        assert all(o.reason for o in advice.options)
        # the first is what the policy plays (levels that slip on purpose aside)
        if (policy, level) in NO_SLIPS:
            assert ranked[0] is make_policy(policy, level).choose(obs)


def test_the_expert_ranks_by_expected_points_and_explains() -> None:
    obs = turn("123m456p789s11z55z7z")  # ready by throwing 7z
    advice = suggest(obs, "expert", 3)
    best, *rest = advice.options
    assert best.action is DISCARD[parse_tile("7z")]
    assert best.shanten == 0 and best.useful and best.reason.startswith("ready")
    assert all(best.value >= o.value for o in rest)
    assert any("slower" in o.reason for o in rest)


def test_a_win_comes_first_with_its_points() -> None:
    advice = suggest(claim("123m456p789s11z55z", "5z"), "expert", 3)
    assert advice.options[0].action is WIN
    assert advice.options[0].reason.startswith("win now: +")


@pytest.mark.parametrize(
    ("name", "level", "error", "message"),
    [
        ("genius", 0, NotFound, "no policy 'genius'"),
        ("expert", 9, InvalidArgument, "levels 1, 2, 3"),
        ("x" * 40, 0, InvalidArgument, "at most 32"),
    ],
)
def test_unknown_policies_and_levels_are_refused(name, level, error, message) -> None:
    with pytest.raises(error, match=message):
        resolve_policy(name, level)


def test_defaults_are_the_expert_at_its_default_level() -> None:
    assert resolve_policy("", 0) == ("expert", 3)
    assert resolve_policy("efficiency", 0) == ("efficiency", 1)
