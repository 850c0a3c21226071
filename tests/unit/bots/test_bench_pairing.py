"""`hebei bench bots` reports each policy's points per hand per wall seed, so two runs on the
same walls (a change and the current policy) can be paired seed by seed."""

from __future__ import annotations

import math

from hebei.bench.bots import run_duplicate

LINEUP = ("efficiency", "efficiency", "random", "random")


def by_policy(seeds: int) -> dict[str, dict]:
    body = run_duplicate(LINEUP, seeds=seeds, hands_per_match=3, seed=3, warm_hands=0).to_json()
    return {p["policy"]: p for p in body["policies"]}


def test_points_per_hand_by_seed_are_reported_in_seed_order() -> None:
    six = by_policy(6)
    for policy in six.values():
        by_seed = policy["points_per_hand_by_seed"]
        assert len(by_seed) == 6
        assert math.isclose(sum(by_seed) / 6, policy["points_per_hand"]["mean"], abs_tol=1e-3)
    # Points only move between the seats; efficiency holds two seats, random two.
    for e, r in zip(
        six["efficiency"]["points_per_hand_by_seed"],
        six["random"]["points_per_hand_by_seed"],
        strict=True,
    ):
        assert math.isclose(e, -r, abs_tol=1e-5)
    # A seed's figure is a function of that seed alone: a shorter run is a prefix.
    two = by_policy(2)
    for name in LINEUP[1:3]:
        assert two[name]["points_per_hand_by_seed"] == six[name]["points_per_hand_by_seed"][:2]
