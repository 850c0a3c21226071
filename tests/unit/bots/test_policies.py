"""Bot policies: always a legal action (property test over random game states), and the
decisions each policy is built to make."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hebei.bots.player import PolicyPlayer
from hebei.bots.policies import POLICIES, catalogue, make_policy, parse_policy
from hebei.bots.policies.analysis import candidates
from hebei.rules.actions import CONCEALED_KONG, DISCARD, PASS, PONG, WIN
from hebei.rules.hand import HandState
from hebei.rules.match import Match, MatchLength
from hebei.rules.players import RandomPlayer
from hebei.rules.shanten import shanten
from hebei.rules.simulate import SimulationSummary, play_match
from hebei.rules.tiles import parse_tile, parse_tiles, to_counts
from hebei.rules.views import observe
from tests.unit.bots.observations import claim, pongs, turn

EVERY_POLICY = [("random", 1), ("efficiency", 1), ("expert", 1), ("expert", 2), ("expert", 3)]
STRATEGIC = [spec for spec in EVERY_POLICY if spec[0] != "random"]


def policy(spec: tuple[str, int], seed: int = 0):
    return make_policy(spec[0], spec[1], seed=seed)


# ------------------------------------------------------------------ legality


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    dealer=st.integers(0, 3),
    steps=st.integers(0, 120),
)
def test_every_policy_only_returns_legal_actions(seed: int, dealer: int, steps: int) -> None:
    """Play a random prefix of a seeded hand, then ask every policy at every seat to act."""
    state = HandState(seed, dealer)
    players = [RandomPlayer(seed + s) for s in range(4)]
    for _ in range(steps):
        seats = state.to_act()
        if state.ended or not seats:
            break
        seat = seats[0]
        state.apply(seat, players[seat].choose(state, seat, state.legal_actions(seat)))
    for seat in state.to_act():
        obs = observe(state, seat, (10, -5, 0, -5))
        for spec in EVERY_POLICY:
            action = policy(spec, seed).choose(obs)
            assert action in obs.legal_actions, (spec, action, obs.legal_actions)


@pytest.mark.parametrize("spec", EVERY_POLICY, ids=lambda s: f"{s[0]}:{s[1]}")
def test_policy_player_plays_whole_matches(spec: tuple[str, int]) -> None:
    match = Match(7, MatchLength(hands=2))
    timings: list[float] = []
    players = [
        PolicyPlayer(policy(spec, s), match.scores, timings if s == 0 else None) for s in range(4)
    ]
    summary = SimulationSummary()
    play_match(match, players, summary)
    assert match.finished and summary.hands == 2
    assert sum(match.scores) == 0
    assert 0 < len(timings) < summary.actions


# ------------------------------------------------------------------ decisions


@pytest.mark.parametrize("spec", STRATEGIC[1:] + STRATEGIC[:1], ids=lambda s: f"{s[0]}:{s[1]}")
def test_a_win_is_always_taken(spec: tuple[str, int]) -> None:
    on_turn = turn("123m456p789s11z555z")
    assert WIN in on_turn.legal_actions
    assert policy(spec).choose(on_turn) is WIN
    on_claim = claim("123m456p789s11z55z", "5z")
    assert on_claim.legal_actions == (WIN, PONG[parse_tile("5z")], PASS)
    assert policy(spec).choose(on_claim) is WIN


@pytest.mark.parametrize("spec", [("efficiency", 1), ("expert", 2), ("expert", 3)])
def test_the_discard_that_keeps_the_hand_ready(spec: tuple[str, int]) -> None:
    obs = turn("123m456p789s11z55z7z")
    assert policy(spec).choose(obs) is DISCARD[parse_tile("7z")]


def test_efficiency_discards_the_tile_with_the_most_improving_draws() -> None:
    obs = turn("1239m456p789s1157z")
    best = candidates(obs.counts(), 0, obs.visible())[0]
    assert policy(("efficiency", 1)).choose(obs) is DISCARD[best.kind]


@pytest.mark.parametrize("spec", STRATEGIC, ids=lambda s: f"{s[0]}:{s[1]}")
def test_pong_when_it_gets_the_hand_closer(spec: tuple[str, int]) -> None:
    # 55z pair + 5z on offer: the pung completes the fourth set, the hand is then ready.
    obs = claim("123m456p789s55z13z", "5z")
    counts = obs.counts()
    before = shanten(counts, 0)
    after = candidates(
        [c - 2 * (k == parse_tile("5z")) for k, c in enumerate(counts)], 1, obs.visible()
    )
    assert after[0].shanten < before
    assert policy(spec).choose(obs) is PONG[parse_tile("5z")]


@pytest.mark.parametrize("spec", STRATEGIC, ids=lambda s: f"{s[0]}:{s[1]}")
def test_no_pong_that_breaks_a_ready_hand(spec: tuple[str, int]) -> None:
    # Ready on 1z/9s with two pairs; ponging 9s would leave a worse hand.
    obs = claim("123m456p789s99s11z", "9s")
    assert policy(spec).choose(obs) is not PONG[parse_tile("9s")] or WIN in obs.legal_actions


def test_expert_folds_against_a_ready_opponent_and_efficiency_does_not() -> None:
    # Seat 1 has three pongs (nearly surely ready) and threw 8m 3s 4p; our hand is far and
    # the wall short: a step given up costs nothing, a deal-in a lot.
    others = {1: (pongs("5s6p7z", from_seat=2), "8m3s4p")}
    obs = turn("2468m2468p1357s56z", others=others, wall=30)
    assert shanten(obs.counts(), 0) >= 3
    safe = {DISCARD[k] for k in parse_tiles("8m3s4p")}
    assert make_policy("expert", 3).choose(obs) in safe
    assert make_policy("efficiency").choose(obs) not in safe
    # Level 1 weighs danger only among the discards that keep its pace: it never folds.
    ranked = make_policy("expert", 1).rank(obs)
    assert ranked[0].shanten == min(o.shanten for o in ranked)


def test_levels_and_names_are_checked() -> None:
    assert set(POLICIES) == {"random", "efficiency", "expert"}
    assert make_policy("expert").level == 3
    assert [info.name for info in catalogue()] == list(POLICIES)
    expert = catalogue()[-1]
    # Level 4 (the strongest) thinks longer on close calls; the default stays level 3.
    assert [lv for lv, _ in expert.levels] == [1, 2, 3, 4] and expert.default_level == 3
    assert all(text for info in catalogue() for _, text in info.levels)
    with pytest.raises(ValueError, match="levels 1, 2, 3, 4"):
        make_policy("expert", 5)
    with pytest.raises(ValueError, match="unknown policy 'genius'"):
        make_policy("genius")
    assert parse_policy("expert:2") == ("expert", 2)
    assert parse_policy("random") == ("random", None)
    with pytest.raises(ValueError, match="level must be a number"):
        parse_policy("expert:x")


def test_noise_at_level_one_is_seeded() -> None:
    states = []
    for seed in range(6):
        state = HandState(1000 + seed, 0)
        states.append(observe(state, 0))
    first = [make_policy("expert", 1, seed=3).choose(o) for o in states]
    again = [make_policy("expert", 1, seed=3).choose(o) for o in states]
    assert first == again


def test_hand_fixtures_are_well_formed() -> None:
    assert len(parse_tiles("1479m258p369s1234z")) == 14
    assert sum(to_counts(parse_tiles("123m456p789s11z55z7z"))) == 14


@pytest.mark.parametrize("spec", STRATEGIC, ids=lambda s: f"{s[0]}:{s[1]}")
def test_a_concealed_kong_that_keeps_the_hand_ready_is_declared(spec: tuple[str, int]) -> None:
    obs = turn("1111m456p789s11z55z")
    kong = CONCEALED_KONG[parse_tile("1m")]
    obs = dataclasses.replace(obs, legal_actions=(kong, *obs.legal_actions))
    assert policy(spec).choose(obs) is kong


@pytest.mark.parametrize(("wall", "kongs"), [(40, False), (10, True)])
def test_a_kong_that_costs_a_step_is_priced_by_its_payment(wall: int, kongs: bool) -> None:
    """Kongging 2222m breaks the 12m edge wait. Efficiency never does; the expert weighs the
    6 points the kong pays (RULES.md §7) against the ready hand: kept early, given up late,
    when the edge wait has little time left to come."""
    obs = turn("12222m456p789s11z5z", wall=wall)
    kong = CONCEALED_KONG[parse_tile("2m")]
    obs = dataclasses.replace(obs, legal_actions=(kong, *obs.legal_actions))
    assert shanten(obs.counts(), 0) == 0
    assert make_policy("efficiency").choose(obs) is not kong
    assert (make_policy("expert", 3).choose(obs) is kong) is kongs


def test_policies_are_pure_python_on_the_rules() -> None:
    """No grpc, celery, redis or protobuf behind the policies: they run (and are benchmarked)
    in process."""
    code = (
        "import sys, hebei.bots.policies, hebei.bots.player, hebei.bench.bots;"
        "print(','.join(sorted(m for m in ('grpc', 'celery', 'redis', 'google.protobuf',"
        " 'hebei.v1', 'hebei.common') if m in sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
