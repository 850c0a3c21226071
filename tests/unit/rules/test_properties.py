"""Property tests over random games (hypothesis): the invariants of the hand state machine."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hebei.rules.actions import Action, ActionKind
from hebei.rules.errors import IllegalActionError
from hebei.rules.hand import HandState
from hebei.rules.players import RandomPlayer
from hebei.rules.profile import MAIN, PROFILES, RuleProfile
from hebei.rules.replay import replay_hand
from hebei.rules.simulate import simulate
from tests.unit.rules.rigging import snapshot

seeds = st.integers(min_value=0, max_value=2**63 - 1)
ALL_ACTIONS = [
    Action(kind, tile)
    for kind in ActionKind
    for tile in (range(34) if kind.value not in ("win", "pass") else [None])
]


def play(seed: int, dealer: int, each_step=None, profile: RuleProfile = MAIN) -> HandState:
    state = HandState(seed, dealer, 0, profile)
    players = [RandomPlayer(seed + s) for s in range(4)]
    while not state.ended:
        for seat in state.to_act():
            state.apply(seat, players[seat].choose(state, seat, state.legal_actions(seat)))
            if each_step is not None:
                each_step(state)
    return state


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(0, 3))
def test_all_136_tiles_are_always_accounted_for(seed, dealer):
    def census(state):
        assert state.tile_census() == [4] * 34

    play(seed, dealer, census)


@settings(max_examples=100, deadline=None)
@given(seeds, st.integers(0, 3))
def test_every_settlement_sums_to_zero(seed, dealer):
    s = play(seed, dealer).result.settlement
    assert sum(s.hand_deltas) == 0 and sum(s.kong_deltas) == 0 and sum(s.total) == 0


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(0, 3))
def test_replaying_any_random_game_reproduces_it(seed, dealer):
    state = play(seed, dealer)
    again = replay_hand(state.events)
    assert again.events == state.events
    assert again.hands == state.hands and again.melds == state.melds
    assert again.result.settlement == state.result.settlement


@settings(max_examples=80, deadline=None)
@given(
    seeds, st.integers(0, 3), st.integers(0, 150), st.sampled_from(ALL_ACTIONS), st.integers(0, 3)
)
def test_an_illegal_action_never_changes_the_state(seed, dealer, steps, action, seat):
    state = HandState(seed, dealer)
    players = [RandomPlayer(seed + s) for s in range(4)]
    for _ in range(steps):
        if state.ended:
            break
        who = state.to_act()[0]
        state.apply(who, players[who].choose(state, who, state.legal_actions(who)))
    if action in state.legal_actions(seat):
        return  # a legal action: nothing to check here
    before = snapshot(state)
    try:
        state.apply(seat, action)
    except IllegalActionError:
        pass
    else:
        raise AssertionError(f"{action} by seat {seat} was accepted though not legal")
    assert snapshot(state) == before


def test_ten_thousand_random_self_play_hands_run_without_error():
    summary = simulate(10_000, seed=20261129)
    assert summary.hands == 10_000
    assert sum(summary.outcomes.values()) == 10_000
    assert summary.outcomes["exhaustive_draw"] > 0


# ---------------------------------------------------------------- every other profile
# The same invariants for the profiles besides the main one (the classic rules: chow, the
# reserve growing with each kong, the one-suit condition, doubling payments, false wins).

OTHER_PROFILES = [p for p in PROFILES.values() if p is not MAIN]
each_profile = pytest.mark.parametrize("profile", OTHER_PROFILES, ids=lambda p: p.name)


@each_profile
@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(0, 3))
def test_every_profile_accounts_for_136_tiles_sums_to_zero_and_replays(profile, seed, dealer):
    def census(state):
        assert state.tile_census() == [4] * 34

    state = play(seed, dealer, census, profile)
    s = state.result.settlement
    assert sum(s.hand_deltas) == 0 and sum(s.kong_deltas) == 0 and sum(s.total) == 0
    again = replay_hand(state.events)
    assert again.events == state.events
    assert again.hands == state.hands and again.melds == state.melds
    assert again.result == state.result


@each_profile
@settings(max_examples=80, deadline=None)
@given(
    seeds, st.integers(0, 3), st.integers(0, 150), st.sampled_from(ALL_ACTIONS), st.integers(0, 3)
)
def test_every_profile_refuses_an_illegal_action_unchanged(
    profile, seed, dealer, steps, action, seat
):
    state = HandState(seed, dealer, 0, profile)
    players = [RandomPlayer(seed + s) for s in range(4)]
    for _ in range(steps):
        if state.ended:
            break
        who = state.to_act()[0]
        state.apply(who, players[who].choose(state, who, state.legal_actions(who)))
    if action in state.legal_actions(seat) or (
        action.kind is ActionKind.WIN and state.accepts_false_win(seat)
    ):
        return  # legal, or a false win the profile accepts: nothing to check here
    before = snapshot(state)
    try:
        state.apply(seat, action)
    except IllegalActionError:
        pass
    else:
        raise AssertionError(f"{action} by seat {seat} was accepted though not legal")
    assert snapshot(state) == before


@each_profile
@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(0, 3), st.integers(0, 150))
def test_a_win_declared_at_any_decision_settles_to_zero_and_replays(profile, seed, dealer, steps):
    """A person declares a win at a random decision: a real one or a false one (诈胡)."""
    state = HandState(seed, dealer, 0, profile)
    players = [RandomPlayer(seed + s) for s in range(4)]
    for _ in range(steps):
        if state.ended:
            return
        who = state.to_act()[0]
        state.apply(who, players[who].choose(state, who, state.legal_actions(who)))
    if state.ended:
        return
    who = state.to_act()[0]
    false_win = state.accepts_false_win(who)
    state.apply(who, Action(ActionKind.WIN))
    while not state.ended:
        seat = state.to_act()[0]
        state.apply(seat, players[seat].choose(state, seat, state.legal_actions(seat)))
    settlement = state.result.settlement
    assert (who in settlement.false_wins) is false_win
    assert sum(settlement.total) == 0 and state.tile_census() == [4] * 34
    assert replay_hand(state.events).result == state.result


@each_profile
def test_every_profile_plays_two_thousand_random_hands(profile):
    summary = simulate(2_000, seed=20261129, profile=profile)
    assert sum(summary.outcomes.values()) == summary.hands == 2_000
    assert summary.outcomes["exhaustive_draw"] > 0 and summary.wins > 0
    assert summary.outcomes["false_win"] == 0
