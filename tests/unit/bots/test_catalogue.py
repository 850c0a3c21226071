"""The fleet's catalogue (plain data its clients check seats against) names exactly the
policies the workers play, with their levels and default levels."""

from __future__ import annotations

from hebei.bots.policies import POLICIES, make_policy
from hebei.bots.policies import expert as expert_policy
from hebei.fleet.catalogue import DEFAULT_LEVEL, POLICY_LEVELS, POLICY_NAMES


def test_the_catalogue_names_the_workers_policies_in_their_order() -> None:
    assert tuple(POLICIES) == POLICY_NAMES


def test_each_policy_plays_every_level_of_the_catalogue_and_no_other() -> None:
    assert POLICY_LEVELS["expert"] == tuple(sorted(expert_policy.LEVELS))
    assert DEFAULT_LEVEL["expert"] == expert_policy.DEFAULT_LEVEL
    for name in POLICY_NAMES:
        assert DEFAULT_LEVEL[name] in POLICY_LEVELS[name]
        for level in POLICY_LEVELS[name]:
            assert make_policy(name, level).level == level
        assert make_policy(name).level == DEFAULT_LEVEL[name]
