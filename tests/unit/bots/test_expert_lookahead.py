"""The expert's level 4: level 3 with close decisions played out on sampled deals
(:mod:`hebei.bots.policies.lookahead`)."""

from __future__ import annotations

import random

import pytest

from hebei.bench.oracle import Decision, points_by_candidate, reshuffled, run, summarise
from hebei.bots.player import PolicyPlayer
from hebei.bots.policies import catalogue, make_policy
from hebei.bots.policies.lookahead import (
    Rollout,
    better_than_first,
    candidate_points,
    play_candidate,
    sample_world,
)
from hebei.bots.policies.pricing import ShapePricer
from hebei.rules.actions import PASS, ActionKind
from hebei.rules.hand import HandState
from hebei.rules.match import Match, MatchLength
from hebei.rules.simulate import SimulationSummary, play_match
from hebei.rules.views import Observation, observe


class Recorder(PolicyPlayer):
    """Plays its policy and keeps every observation it decided on."""

    def __init__(self, policy, scores, seen: list[Observation]) -> None:
        super().__init__(policy, scores)
        self.seen = seen

    def choose(self, state, seat, options):
        obs = observe(state, seat, self.scores)
        self.seen.append(obs)
        action = self.policy.choose(obs)
        assert action in obs.legal_actions, (action, obs.legal_actions)
        return action


def _self_play(seed: int, hands: int) -> tuple[list[Observation], list]:
    """A match of four level-4 experts (the engine refuses an illegal action)."""
    seen: list[Observation] = []
    match = Match(seed, MatchLength(hands=hands))
    policies = [make_policy("expert", 4, seed=seed * 4 + s) for s in range(4)]
    play_match(match, [Recorder(p, match.scores, seen) for p in policies], SimulationSummary())
    return seen, policies


def test_level_4_plays_legal_actions_and_looks_ahead_on_close_calls() -> None:
    seen, policies = _self_play(5_000_019, 3)
    assert len(seen) > 100
    assert sum(p.lookaheads for p in policies) > 0  # the look-ahead was used (push or fold)


def test_level_4_is_deterministic_for_a_seed_and_an_observation() -> None:
    seen, _ = _self_play(5_000_020, 3)
    late = [o for o in seen if len(o.legal_actions) > 1 and o.wall < 30]
    assert late
    first = make_policy("expert", 4, seed=11)
    again = make_policy("expert", 4, seed=11)
    # The same answers in another order: each decision depends on the observation only.
    assert [first.choose(o) for o in late] == [again.choose(o) for o in reversed(late)][::-1]
    assert first.lookaheads == again.lookaheads > 0


def test_level_4_ranks_like_level_3_but_for_one_away_discards_and_is_not_the_default() -> None:
    seen, _ = _self_play(5_000_017, 1)
    three, four = make_policy("expert", 3), make_policy("expert", 4)
    # Level 3 counting the useful tiles a pong can bring as level 4 does.
    three.pricer = ShapePricer(three.config.value, four.config.pong_weight)
    same = 0
    for obs in seen[::2]:
        ranked = four.rank(obs)
        if any("ready_hands" in o.extras for o in ranked):
            continue  # priced by the ready hands they reach (tests/unit/bots/test_ready_hands.py)
        assert [o.action for o in three.rank(obs)] == [o.action for o in ranked]
        same += 1
    assert same >= 8
    assert make_policy("expert").level == 3
    expert = next(info for info in catalogue() if info.name == "expert")
    assert expert.default_level == 3 and [lv for lv, _ in expert.levels] == [1, 2, 3, 4]


def test_sampled_worlds_deal_exactly_the_unseen_tiles() -> None:
    seen, _ = _self_play(5_000_018, 1)
    rng = random.Random(3)
    for obs in seen[::5]:
        hand = obs.counts()
        world = sample_world(obs, hand, rng)
        assert world.hands[obs.seat] == hand
        assert len(world.wall) == obs.wall
        for view in obs.seats:
            assert sum(world.hands[view.seat]) == view.concealed_count
        total = [sum(h[k] for h in world.hands) for k in range(34)]
        for k, v in enumerate(obs.visible()):
            total[k] += v
        for k in world.wall:
            total[k] += 1
        assert all(c <= 4 for c in total), total
        # The rest of the hand plays out to a win or a draw, from the next seat's draw.
        if obs.phase.value == "turn" and obs.current == obs.seat:
            discard = next(a for a in obs.legal_actions if a.kind is ActionKind.DISCARD)
            play = Rollout(world, obs.seat, obs.dealer)
            ended = play.discard(obs.seat, discard.tile)
            points = ended if ended is not None else play.play_from((obs.seat + 1) % 4)
            assert -200 < points < 200


def test_a_switch_needs_an_advantage_beyond_the_noise() -> None:
    first = [0.0, 5.0, -5.0, 0.0]
    assert better_than_first([first, [1.0, 6.0, -4.0, 1.0]], 1.0) == 1  # +1 every time
    assert better_than_first([first, [8.0, -3.0, 3.0, -7.0]], 1.0) == 0  # +0.25, noisy
    assert better_than_first([first, [-1.0, 4.0, -6.0, -1.0]], 1.0) == 0


def test_pong_or_pass_and_discards_are_played_out_on_the_same_deals() -> None:
    seen, _ = _self_play(5_000_019, 3)
    offers = [o for o in seen if any(a.kind is ActionKind.PONG for a in o.legal_actions)]
    turns = [o for o in seen if o.phase.value == "turn" and len(o.legal_actions) > 2]
    assert offers and turns
    for obs in offers[:3]:
        pong = next(a for a in obs.legal_actions if a.kind is ActionKind.PONG)
        plays = [(pong, None, False), (PASS, None, False)]
        points = candidate_points(obs, plays, 6, random.Random(1))
        assert [len(p) for p in points] == [6, 6]
        assert points == candidate_points(obs, plays, 6, random.Random(1))
    obs = turns[-1]
    discards = [a for a in obs.legal_actions if a.kind is ActionKind.DISCARD][:2]
    danger = [0.0] * 34
    plays = [(discards[0], None, False), (discards[1], None, True)]
    points = candidate_points(obs, plays, 6, random.Random(2), danger)
    assert all(-200 < x < 200 for p in points for x in p)


def _played_alone(obs, plays, samples, seed, danger) -> list[list[float]]:
    """What :func:`candidate_points` gives, each play-out played on its own (no turn of an
    opponent, no count of waits shared between play-outs)."""
    rng = random.Random(seed)
    points: list[list[float]] = [[] for _ in plays]
    for _ in range(samples):
        world = sample_world(obs, obs.counts(), rng)
        for i, (action, then, fold) in enumerate(plays):
            play = Rollout(world, obs.seat, obs.dealer, danger if fold else None)
            points[i].append(play_candidate(play, obs, action, then, obs.claim))
    return points


def test_the_play_outs_of_a_world_share_the_opponents_turns_without_changing_a_point() -> None:
    """On the seat's turn each world's opponents play once for all the candidates (their
    draws do not depend on what the seat throws), their waits on the deal and the seat's
    waits are counted once: every play-out scores what it scores played on its own."""
    seen, _ = _self_play(5_000_019, 3)
    turns = [o for o in seen if o.phase.value == "turn" and len(o.legal_actions) > 3]
    offers = [o for o in seen if any(a.kind is ActionKind.PONG for a in o.legal_actions)]
    danger = [float(k % 5) for k in range(34)]  # folds throw by some fixed order
    scored = 0
    for obs in turns[::7][:12]:
        discards = [a for a in obs.legal_actions if a.kind is ActionKind.DISCARD][:3]
        plays = [(discards[0], None, False), (discards[1], None, False), (discards[2], None, True)]
        shared = candidate_points(obs, plays, 8, random.Random(obs.wall), danger)
        assert shared == _played_alone(obs, plays, 8, obs.wall, danger)
        scored += any(any(p) for p in shared)  # some play-out that scored
    assert scored >= 3
    for obs in offers[:4]:  # an answer to a discard: the waits on the deal are shared
        pong = next(a for a in obs.legal_actions if a.kind is ActionKind.PONG)
        plays = [(pong, None, False), (PASS, None, False)]
        shared = candidate_points(obs, plays, 8, random.Random(obs.wall))
        assert shared == _played_alone(obs, plays, 8, obs.wall, None)


# ---------------------------------------------------------------- the offline oracle


def _hand_in_play(actions: int = 40):
    """A hand of four efficiency players stopped after ``actions`` actions, its history."""
    state = HandState(5_000_015, 0)
    players = [make_policy("efficiency") for _ in range(4)]
    history = []
    while len(history) < actions and not state.ended:
        for s in state.to_act():
            action = players[s].choose(observe(state, s))
            state.apply(s, action)
            history.append((s, action))
    assert not state.ended
    return state, history


def test_a_reshuffled_world_changes_only_the_order_of_the_undrawn_tiles() -> None:
    state, history = _hand_in_play()
    wall = state.wall
    differs = 0
    for k in range(5):
        world = reshuffled(state, history, random.Random(k))
        for s in range(4):  # every seat sees what it saw, hands included
            assert observe(world, s) == observe(state, s)
            assert world.hands[s] == state.hands[s]
        new = world.wall
        assert (new.head, new.tail) == (wall.head, wall.tail)
        assert new.tiles[: wall.head] == wall.tiles[: wall.head]
        assert new.tiles[wall.tail :] == wall.tiles[wall.tail :]
        undrawn, old = new.tiles[wall.head : wall.tail], wall.tiles[wall.head : wall.tail]
        assert sorted(undrawn) == sorted(old)
        differs += undrawn != old
    assert differs == 5


def test_the_oracle_plays_every_candidate_on_the_same_worlds() -> None:
    state, history = _hand_in_play()
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    discards = [a for a in legal if a.kind is ActionKind.DISCARD][:2]

    def players(seed):
        return [make_policy("expert", 3, seed=seed + s) for s in range(4)]

    points = points_by_candidate(
        state,
        history,
        seat,
        [discards[0], discards[0], discards[1]],
        players,
        (0,) * 4,
        6,
        random.Random(3),
    )
    assert points[0] == points[1]  # the same action on the same worlds: the same points
    assert len(points[2]) == 6 and len(set(points[0])) > 1  # the worlds differ
    assert state.legal_actions(seat) == legal  # the position itself is untouched


def test_the_oracle_refuses_the_evaluation_walls_and_bad_arguments() -> None:
    with pytest.raises(ValueError, match="evaluation walls"):
        run(1, 1)
    with pytest.raises(ValueError, match="mode must be one of"):
        run(5, 1, mode="best")
    with pytest.raises(ValueError, match="at least 2 worlds"):
        run(5, 1, worlds=1)


def test_the_oracle_compares_the_experts_departures_from_efficiency() -> None:
    decisions = run(5, 1, "efficiency", worlds=2, first=400)
    assert len(decisions) > 10
    for d in decisions:
        assert len(d.points) == 2 and all(len(p) == 2 for p in d.points)
        assert d.kind.startswith(("claim:", "turn:", "discard,"))
    rows = summarise(decisions)
    assert rows[0][0] == "all" and rows[0][1] == len(decisions)
    made = [Decision("x", ((1, 3), (2, 6), (0, 0)))]
    assert made[0].differences() == [2.0, -2.0]
    assert summarise(made)[0] == ("all", 2, 0.0, summarise(made)[0][3])
