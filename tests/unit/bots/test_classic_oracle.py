"""The classic oracle (hebei.bench.classic_oracle): its worlds are classic hands with the
same drawn tiles, it groups the expert's departures from the efficiency player by kind, and
it refuses the evaluation walls."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from hebei.bench.classic_oracle import kind_of, run
from hebei.bench.oracle import reshuffled
from hebei.bots.policies import make_policy
from hebei.bots.policies.options import Option
from hebei.rules.actions import CHOW, DISCARD, PASS, Action
from hebei.rules.hand import HandState, Phase
from hebei.rules.profile import CLASSIC
from hebei.rules.tiles import parse_tile
from hebei.rules.views import observe
from tests.unit.bots.test_classic_policies import classic_claim


def played(seed: int, actions: int) -> tuple[HandState, list[tuple[int, Action]]]:
    """A classic hand after ``actions`` actions of four efficiency players, and its history."""
    state = HandState(seed, seed % 4, profile=CLASSIC)
    players = [make_policy("efficiency") for _ in range(4)]
    history: list[tuple[int, Action]] = []
    while len(history) < actions and not state.ended:
        seat = state.to_act()[0]
        action = players[seat].choose(observe(state, seat, (0, 0, 0, 0)))
        state.apply(seat, action)
        history.append((seat, action))
    return state, history


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_a_reshuffled_classic_hand_keeps_every_hand_and_the_tiles_left(seed: int) -> None:
    state, history = played(seed, 30)
    assert not state.ended
    world = reshuffled(state, history, random.Random(seed))
    assert world.profile is CLASSIC
    assert world.hands == state.hands and world.melds == state.melds
    assert world.discards == state.discards
    left = sorted(state.wall.tiles[state.wall.head : state.wall.tail])
    assert sorted(world.wall.tiles[world.wall.head : world.wall.tail]) == left
    assert world.wall.tiles[world.wall.head : world.wall.tail] != list(
        state.wall.tiles[state.wall.head : state.wall.tail]
    )  # the undrawn order is new (30+ tiles left: a repeat is vanishingly rare)


def test_departures_are_grouped_by_claim_and_by_discard_shape() -> None:
    obs = classic_claim("1379m2345p58s227z", "2m")
    chow = Option(CHOW[parse_tile("1m")], shanten=2, useful=((1, 3),))
    keep = Option(PASS, shanten=2, useful=((1, 3), (2, 4)))
    assert kind_of(obs, chow, keep) == "claim: chow or pass, same steps, concealed"
    assert kind_of(obs, keep, Option(chow.action, shanten=1)) == (
        "claim: pass or chow, expert slower, concealed"
    )
    turn = replace(obs, phase=Phase.TURN, claim=None)
    a = Option(DISCARD[0], shanten=1, useful=((1, 3),))
    b = Option(DISCARD[1], shanten=1, useful=((1, 3), (2, 4)))
    assert kind_of(turn, a, b) == "discard, same steps, fewer useful, 1 from ready, concealed"
    assert kind_of(turn, b, a) == "discard, same steps, not fewer useful, 1 from ready, concealed"
    c = Option(DISCARD[2], shanten=3)
    assert kind_of(turn, a, c) == "discard, expert faster, 1 from ready, concealed"
    assert kind_of(turn, c, a) == "discard, expert slower, 2+ from ready, concealed"


def test_the_evaluation_walls_are_refused() -> None:
    with pytest.raises(ValueError, match="tuning walls only"):
        run(1, 1)
