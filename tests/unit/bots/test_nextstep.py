"""The next step's quality (:mod:`hebei.bots.policies.nextstep`) and the expert's use of it."""

from __future__ import annotations

import dataclasses
import random

import pytest

from hebei.bench.oracle import parse_change, run
from hebei.bots.policies import make_policy
from hebei.bots.policies.expert import NEXT_STEP_WEIGHT
from hebei.bots.policies.nextstep import STEP_WALL, next_step_value
from hebei.bots.policies.speed import shape_value
from hebei.rules.hand import Phase
from hebei.rules.shanten import discard_options, ukeire
from hebei.rules.tiles import parse_tiles, to_counts
from tests.unit.bots.test_policy_speed import play


def by_definition(counts: list[int], visible: list[int], wall: int) -> float:
    """Over every useful draw (by its copies unseen), the most useful tiles any discard then
    leaves at the lower shanten, priced a step on: the module's figure, the slow way."""
    now = ukeire(counts, 0, visible)
    total, weight = 0.0, 0
    for drawn, copies in now.tiles:
        after = list(counts)
        after[drawn] += 1
        best = [o.total for o in discard_options(after, 0, visible) if o.shanten < now.shanten]
        total += copies * shape_value(now.shanten - 1, max(best), wall - STEP_WALL)
        weight += copies
    return total / weight


def test_the_next_step_value_is_its_definition_on_random_hands() -> None:
    rng = random.Random(11)
    checked = 0
    while checked < 150:
        tiles = rng.sample([k for k in range(34) for _ in range(4)], 13 + 5)
        counts = to_counts(tiles[:13])
        visible = to_counts(tiles[13:])
        now = ukeire(counts, 0, visible)
        if now.shanten < 1 or not now.tiles:
            continue
        unseen = [max(0, 4 - c - v) for c, v in zip(counts, visible, strict=True)]
        wall = rng.randrange(20, 90)
        got = next_step_value(counts, 0, now.shanten, now.tiles, unseen, wall)
        assert abs(got - by_definition(counts, visible, wall)) < 1e-9
        checked += 1


def test_a_wider_next_step_is_worth_more() -> None:
    # Both one step from ready with the same useful kinds' count class; the first's draws
    # lead to two-sided waits, the second's to an edge wait and a pair wait.
    wide = to_counts(parse_tiles("23m45p67s11z999s5z5z"))
    narrow = to_counts(parse_tiles("12m45p67s11z999s5z5z"))
    seen = [0] * 34
    values = []
    for counts in (wide, narrow):
        now = ukeire(counts, 0, seen)
        unseen = [4 - c for c in counts]
        values.append(next_step_value(counts, 0, now.shanten, now.tiles, unseen, 60))
    assert values[0] > values[1]


def test_a_level_weighing_the_next_step_changes_some_discards_and_shows_the_figure() -> None:
    # The turns of a seeded match's expert seats, priced by level 3 both ways.
    plain = make_policy("expert", 3)
    stepping = make_policy("expert", 3)
    stepping.config = dataclasses.replace(stepping.config, step=NEXT_STEP_WEIGHT)
    turns = changed = shown = 0
    for obs, policy, _ in play(5_000_015, hands=8):
        if policy.name != "expert" or obs.phase is not Phase.TURN or len(obs.legal_actions) < 2:
            continue
        turns += 1
        ranked = stepping.rank(obs)
        assert ranked[0].action in obs.legal_actions
        changed += ranked[0].action != plain.rank(obs)[0].action
        shown += any("next_step" in o.extras for o in ranked)
    assert turns > 50 and shown > 0 and 0 < changed < turns / 2


def test_the_oracle_plays_out_a_changed_levels_departures() -> None:
    decisions = run(5, 2, "change", worlds=2, first=600, change={"step": NEXT_STEP_WEIGHT})
    assert decisions  # the change departs somewhere in two matches
    for d in decisions:
        assert len(d.points) == 2 and all(len(p) == 2 for p in d.points)
    assert parse_change("step=1.5,step_from=2") == {"step": 1.5, "step_from": 2.0}
    with pytest.raises(ValueError, match="no setting"):
        run(5, 1, "change", worlds=2, change={"steps": 1.0})
    with pytest.raises(ValueError, match="only it"):
        run(5, 1, "change", worlds=2)
    with pytest.raises(ValueError, match="name=value"):
        parse_change("step")
