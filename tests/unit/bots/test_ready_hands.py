"""Level 4 prices a one-away discard by the ready hands its draws get to
(:meth:`ShapePricer.price_ready_hands`, ``ExpertLevel.ready_hands``)."""

from __future__ import annotations

import random

import pytest

from hebei.bots.policies import make_policy
from hebei.bots.policies.explain import explain
from hebei.bots.policies.pricing import Holding, ShapePricer, reach_chance
from hebei.bots.policies.waits import waits_of
from hebei.rules.actions import DISCARD, ActionKind
from hebei.rules.shanten import discard_options, shanten
from hebei.rules.tiles import parse_tile, parse_tiles, to_counts
from tests.unit.bots.observations import turn


def level_3_counting_pongs():
    """Level 3 counting the useful tiles a pong can bring as level 4 does: level 4 but for
    the ready hands and the look-ahead."""
    three = make_policy("expert", 3)
    three.pricer = ShapePricer(three.config.value, make_policy("expert", 4).config.pong_weight)
    return three


def _live_waits_reached(counts: list[int], useful: list[tuple[int, int]]) -> float:
    """Mean over the improving draws (by copies) of the most live waits a discard then
    leaves ready: counted here from the rules, apart from the pricer."""
    unseen = [4 - c for c in counts]
    total = weight = 0
    for kind, copies in useful:
        counts[kind] += 1
        unseen[kind] -= 1
        best = 0
        for thrown in range(34):
            if counts[thrown]:
                counts[thrown] -= 1
                if shanten(counts, 0) == 0:
                    best = max(best, sum(unseen[w] for w in waits_of(counts, 0)))
                counts[thrown] += 1
        counts[kind] -= 1
        unseen[kind] += 1
        total += copies * best
        weight += copies
    return total / weight


@pytest.mark.parametrize(
    ("hand", "level_3", "level_4"),
    [
        # 8p keeps the most useful tiles (33) but its ready hands wait on 5.3 live tiles on
        # average; 8m keeps 29 and reaches 8.1 (7p7p8p stays a pair and a two-sided shape).
        ("123m8m345p778p3334s", "8p", "8m"),
        # 2p keeps 30 useful tiles for 8.5 live waits, 8m 23 for 10.3.
        ("78m235678999p567s", "2p", "8m"),
    ],
)
def test_level_4_gives_up_useful_tiles_for_better_ready_hands(
    hand: str, level_3: str, level_4: str
) -> None:
    obs = turn(hand, wall=50)
    three, four = level_3_counting_pongs(), make_policy("expert", 4)
    assert three.choose(obs) == DISCARD[parse_tile(level_3)]
    assert four.choose(obs) == DISCARD[parse_tile(level_4)]
    counts = to_counts(parse_tiles(hand))
    by_tile = {o.kind: o for o in discard_options(list(counts), 0, [0] * 34)}
    kept = {}
    for name in (level_3, level_4):
        option = by_tile[parse_tile(name)]
        assert option.shanten == 1
        left = list(counts)
        left[option.kind] -= 1
        kept[name] = (option.total, _live_waits_reached(left, option.tiles))
    assert kept[level_4][0] < kept[level_3][0]  # fewer useful tiles
    assert kept[level_4][1] > kept[level_3][1] + 1  # for ready hands with more live waits
    best = four.rank(obs)[0]
    assert best.extras["ready_hands"] > 0  # moved up by the ready hands it reaches


def test_ready_hands_of_a_hand_with_one_improving_draw() -> None:
    # 123m 456m 789m 1p 35p 9s, one step from ready: after a 4p it throws the 1p or the 9s
    # and waits on the other (a single wait); its value is the better of those ready hands.
    counts = to_counts(parse_tiles("123456789m135p9s"))
    assert shanten(list(counts), 0) == 1
    pricer = ShapePricer(value=True)
    unseen = [4 - c for c in counts]
    before = list(unseen)
    useful = [(parse_tile("4p"), 4)]
    chance, mean = pricer.price_ready_hands(Holding(tuple(counts), ()), useful, unseen, 60, False)
    assert unseen == before  # restored
    assert chance == pytest.approx(reach_chance(4, sum(unseen), 60))
    after = list(counts)
    after[parse_tile("4p")] += 1
    values = []
    for thrown in range(34):
        if after[thrown]:
            after[thrown] -= 1
            if shanten(after, 0) == 0:
                left = list(unseen)
                left[parse_tile("4p")] -= 1
                waits = [(w, left[w]) for w in waits_of(after, 0)]
                values.append(pricer.price(Holding(tuple(after), ()), 0, waits, left, 60, False))
            after[thrown] += 1
    assert values and mean == pytest.approx(max(v.value for v in values))
    # Nothing gets a hand ready when its only improving draw is gone.
    assert (
        pricer.price_ready_hands(
            Holding(tuple(counts), ()), [(parse_tile("4p"), 0)], unseen, 60, False
        )
        is None
    )


def test_the_chance_to_get_ready_grows_with_useful_tiles_and_wall() -> None:
    assert 0 < reach_chance(4, 100, 20) < reach_chance(8, 100, 20) < reach_chance(8, 100, 60) < 1
    assert reach_chance(200, 100, 20) == 1.0


def test_only_level_4_moves_one_away_discards_and_always_plays_legal_actions() -> None:
    rng = random.Random(4)
    moved = 0
    three, four = level_3_counting_pongs(), make_policy("expert", 4)
    for _ in range(300):
        tiles = sorted(k // 4 for k in rng.sample(range(108), 14))
        obs = turn("".join(f"{t % 9 + 1}{'mps'[t // 9]}" for t in tiles), wall=rng.randrange(8, 70))
        ranked3, ranked4 = three.rank(obs), four.rank(obs)
        assert four.choose(obs) in obs.legal_actions
        assert all("ready_hands" not in o.extras for o in ranked3)
        if ranked4[0].shanten != 1:  # only hands one step from ready are priced anew
            assert [o.action for o in ranked3] == [o.action for o in ranked4]
            continue
        marks = [o for o in ranked4 if "ready_hands" in o.extras]
        moved += ranked3[0].action != ranked4[0].action
        for option in marks:
            assert option.action.kind is ActionKind.DISCARD and option.shanten == 1
        # the discard level 3 prefers keeps its value: the reference of the others
        first3 = next(o for o in ranked4 if o.action == ranked3[0].action)
        assert first3.extras.get("ready_hands", 0.0) == 0.0
        assert first3.value == pytest.approx(ranked3[0].value)
    assert moved > 0


def test_the_reasons_name_the_ready_hands() -> None:
    ranked = explain(make_policy("expert", 4).rank(turn("123m8m345p778p3334s", wall=50)))
    assert ranked[0].action == DISCARD[parse_tile("8m")]
    assert "better ready hands ahead" in ranked[0].reason
    other = next(o for o in ranked if o.action == DISCARD[parse_tile("8p")])
    assert "poorer ready hands ahead" in other.reason, other.reason
