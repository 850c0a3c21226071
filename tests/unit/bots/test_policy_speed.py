"""The policies' fast paths decide and price exactly as their plain definitions.

The expert's and efficiency's hot paths (the danger map's wait model, discard options,
efficiency candidates, the shape memos, the readiness model) were rewritten for speed with
the promise of the same floats and the same decisions. These tests hold them to it: each fast path against its
reference on positions of seeded self-play, and a digest of every decision and every priced
option of a few seeded hands, recorded with the code before the speed work. A change that
means to alter the policies' play updates :data:`PINNED` (and says so).
"""

from __future__ import annotations

import hashlib
import random

import pytest

from hebei.bots.player import PolicyPlayer
from hebei.bots.policies import make_policy
from hebei.bots.policies.analysis import candidates, discard_shantens, discard_ukeire
from hebei.bots.policies.danger import DangerMap
from hebei.bots.policies.options import Option, make_option
from hebei.bots.policies.pricing import Holding, Priced, _holding, _priced
from hebei.bots.policies.reading import (
    READY_WEIGHTS,
    OpponentRead,
    _opponent_read,
    _ready_features,
    read_table,
    ready_probability,
    sigmoid,
)
from hebei.bots.policies.speed import _shape_value, _win_probability, shape_value, win_probability
from hebei.bots.policies.value import _peng_peng_shanten, peng_peng_shanten
from hebei.rules.actions import WIN, Action
from hebei.rules.hand import HandState, Phase
from hebei.rules.match import Match, MatchLength
from hebei.rules.shanten import discard_options, shanten, ukeire
from hebei.rules.simulate import SimulationSummary, play_match
from hebei.rules.views import Observation, observe

LINEUP = (("expert", 3), ("efficiency", 1), ("expert", 2), ("expert", 1))


class Recorder(PolicyPlayer):
    """Plays its policy and records each observation and the action chosen."""

    def __init__(self, policy, scores, seen: list[tuple[Observation, object, Action]]) -> None:
        super().__init__(policy, scores)
        self.seen = seen

    def choose(self, state: HandState, seat: int, options: tuple[Action, ...]) -> Action:
        obs = observe(state, seat, self.scores)
        action = self.policy.choose(obs)
        self.seen.append((obs, self.policy, action))
        return action


def play(seed: int, hands: int = 4) -> list[tuple[Observation, object, Action]]:
    """Every decision of a seeded match of :data:`LINEUP`."""
    match = Match(seed, MatchLength(hands=hands))
    seen: list[tuple[Observation, object, Action]] = []
    players = [
        Recorder(make_policy(name, level, seed=seed * 16 + s), match.scores, seen)
        for s, (name, level) in enumerate(LINEUP)
    ]
    play_match(match, players, SimulationSummary())
    return seen


@pytest.fixture(scope="module")
def decisions() -> list[tuple[Observation, object, Action]]:
    return play(5_000_015) + play(7_000_021)


def digest(seen: list[tuple[Observation, object, Action]]) -> str:
    """sha256 over every decision and every option each policy ranked, floats exact."""
    h = hashlib.sha256()
    for obs, policy, action in seen:
        h.update(repr(action).encode())
        for o in policy.rank(obs):
            h.update(repr((o.action, o.shanten, o.useful, o.danger, o.value, o.then)).encode())
    return h.hexdigest()[:16]


# Recorded with the policies as they were before the speed work (commit 3b7eff2); the
# faster code must give the same digest: the same actions, options, values and dangers.
PINNED = {5_000_015: "3fe2d7ee003c4352", 7_000_021: "5c6c8fd97929d636"}


@pytest.mark.parametrize("seed", sorted(PINNED))
def test_decisions_and_values_are_pinned(seed: int) -> None:
    assert digest(play(seed)) == PINNED[seed]


def test_memo_tables_are_cleared_at_their_limits_and_change_no_decision(monkeypatch) -> None:
    """A worker's memory levels off because each memo table is cleared at its limit; a table
    cleared mid-match (tiny limits here) changes no decision or price, and no table holds
    more than its limit, where the same hands fill each far beyond it."""
    from hebei.bots.policies import waits
    from hebei.rules import shanten as rules_shanten

    seed = 5_000_015
    tables = {"fan": waits._fan_cache, "draws": rules_shanten._MASKED_DRAWS}
    limits = {"fan": 4, "draws": 100}
    for table in tables.values():
        table.clear()
    play(seed)
    filled = {name: len(table) for name, table in tables.items()}
    assert all(filled[name] > 2 * limits[name] for name in limits), filled
    monkeypatch.setattr(waits, "_CACHE_LIMIT", limits["fan"])
    monkeypatch.setattr(rules_shanten, "_DRAWS_LIMIT", limits["draws"])
    for table in tables.values():
        table.clear()
    assert digest(play(seed)) == PINNED[seed]
    for name, table in tables.items():
        assert 0 < len(table) <= limits[name], (name, len(table))


def test_the_danger_map_is_the_sum_of_its_threats(decisions) -> None:
    checked = 0
    for obs, _, _ in decisions:
        counts, visible = obs.counts(), obs.visible()
        danger = DangerMap(read_table(obs), counts, visible, obs.dealer == obs.seat)
        for kind in range(34):
            expected = sum(t.expected for t in danger.threats(kind))
            assert danger.cost(kind) == expected, (obs, kind)
            checked += 1
    assert checked > 3_000


def test_discard_options_are_shanten_and_improving_draws_by_definition(decisions) -> None:
    checked = 0
    for obs, _, _ in decisions:
        if obs.phase is not Phase.TURN or obs.current != obs.seat:
            continue
        counts, visible = obs.counts(), obs.visible()
        n_melds = len(obs.seats[obs.seat].melds)
        if sum(counts) % 3 != 2:
            continue
        options = discard_options(counts, n_melds, visible)
        assert counts == obs.counts()  # unchanged
        for option in options:
            left = list(counts)
            left[option.kind] -= 1
            now = shanten(left, n_melds)
            unseen = [max(0, 4 - c - v) for c, v in zip(counts, visible, strict=True)]
            improving = []
            for k in range(34):
                if left[k] < 4:
                    left[k] += 1
                    if shanten(left, n_melds) < now and unseen[k] > 0:
                        improving.append((k, unseen[k]))
                    left[k] -= 1
            assert (option.shanten, option.tiles) == (now, improving), (obs, option)
            assert option.total == sum(n for _, n in improving)
            checked += 1
    assert checked > 500


def test_efficiency_candidates_count_each_discard_s_ukeire(decisions) -> None:
    checked = 0
    for obs, _, _ in decisions:
        counts, visible = obs.counts(), obs.visible()
        if sum(counts) % 3 != 2:
            continue
        n_melds = len(obs.seats[obs.seat].melds)
        shantens = dict(discard_shantens(counts, n_melds))
        for candidate in candidates(counts, n_melds, visible, slack=1):
            assert candidate.shanten == shantens[candidate.kind]
            assert candidate.ukeire == discard_ukeire(counts, n_melds, visible, candidate.kind)
            left = list(counts)
            left[candidate.kind] -= 1
            seen = list(visible)
            seen[candidate.kind] += 1
            assert candidate.ukeire == ukeire(left, n_melds, seen).total
            checked += 1
        assert counts == obs.counts()
    assert checked > 500


@pytest.mark.parametrize("wall", [0, 17, 40, 70, 90])
def test_the_shape_memos_return_the_models(wall: int) -> None:
    for shanten_ in range(-1, 7):
        for useful in (0, 1, 2.5, 7, 30):
            for _ in range(2):  # the second call is a memo hit
                assert shape_value(shanten_, useful, wall) == _shape_value(shanten_, useful, wall)
                for open_hand in (False, True):
                    for dealer in (False, True):
                        assert win_probability(
                            shanten_, useful, wall, open_hand, dealer
                        ) == _win_probability(shanten_, useful, wall, open_hand, dealer)


def test_readiness_is_the_weighted_sum_of_its_features() -> None:
    rng = random.Random(11)
    for _ in range(20_000):
        discards = tuple(rng.randrange(34) for _ in range(rng.randrange(25)))
        melds, wall = rng.randrange(5), rng.randrange(80)
        x = READY_WEIGHTS[0]
        for w, f in zip(READY_WEIGHTS[1:], _ready_features(discards, melds, wall), strict=True):
            x += w * f
        assert ready_probability(discards, melds, wall) == sigmoid(x)


def test_the_peng_peng_memo_returns_the_count(decisions) -> None:
    rng = random.Random(12)
    hands = [obs.counts() for obs, _, _ in decisions]
    for _ in range(2_000):
        hand = [0] * 34
        for _ in range(rng.choice((1, 2, 4, 5, 7, 8, 10, 11, 13, 14))):
            kind = rng.randrange(34)
            if hand[kind] < 4:
                hand[kind] += 1
        hands.append(hand)
    for hand in hands:
        for n_melds in range(4):
            expected = _peng_peng_shanten(hand, n_melds)
            assert peng_peng_shanten(hand, n_melds) == expected
            assert peng_peng_shanten(tuple(hand), n_melds) == expected


def test_the_direct_builders_make_the_dataclasses_own_instances() -> None:
    """make_option, _holding, _priced and _opponent_read set every slot as the frozen dataclasses' __init__
    does: equal, of the class, still frozen."""
    from dataclasses import FrozenInstanceError, fields

    extras = {"win_chance": 0.25}
    cases = [
        (
            make_option(WIN, 1, ((3, 2),), 0.5, -1.25, "r", WIN, extras),
            Option(WIN, 1, ((3, 2),), 0.5, -1.25, "r", WIN, extras),
        ),
        (make_option(WIN, None, (), None, None, "", None, {}), Option(WIN)),
        (_holding((1,) * 13 + (0,) * 21, ()), Holding((1,) * 13 + (0,) * 21, ())),
        (_priced(1.5, 2, ((4, 4),), 0.125, 9.0), Priced(1.5, 2, ((4, 4),), 0.125, 9.0)),
        (
            _opponent_read(
                2, 0.5, frozenset({3}), (1.0, 0.0, 0.0, 0.0), (1, 0, 0, 0), False, True, (2,)
            ),
            OpponentRead(
                2, 0.5, frozenset({3}), (1.0, 0.0, 0.0, 0.0), (1, 0, 0, 0), False, True, (2,)
            ),
        ),
    ]
    for fast, plain in cases:
        assert type(fast) is type(plain)
        assert fast == plain
        for f in fields(plain):
            assert getattr(fast, f.name) is getattr(plain, f.name) or (
                getattr(fast, f.name) == getattr(plain, f.name)
            )
        # Still frozen, whatever the error (3.11's frozen slotted classes raise a TypeError).
        for obj in (plain, fast):
            with pytest.raises((FrozenInstanceError, TypeError)):
                obj.value = 0.0  # type: ignore[misc]
