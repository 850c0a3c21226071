"""The classic expert prices a claim of the previous seat's discard (a chow, or a pong of
it) against the draw it replaces: the seat would draw next, and that draw may bring the held
hand a step closer (on a ready hand: a self-draw). A pong of another seat's discard skips
seats and replaces no draw of its own."""

from __future__ import annotations

import dataclasses

import pytest

from hebei.bots.policies import make_policy
from hebei.bots.policies.classic import draw_forgone, draws_next, held_choice, price
from hebei.rules.actions import CHOW, PASS, PONG
from hebei.rules.tiles import parse_tile
from hebei.rules.views import ClaimView
from tests.unit.bots.test_classic_policies import classic_claim


def ranked(obs):
    return {o.action: o for o in make_policy("expert", 3).rank(obs)}


def test_a_chow_at_equal_steps_is_passed_for_the_draw_it_would_replace() -> None:
    # Two steps away either way: chow 567m leaves 15 667 899m..., passing draws next.
    obs = classic_claim("15667899m1p5s444z", "5m")
    chow = CHOW[parse_tile("5m")]
    options = ranked(obs)
    assert options[chow].shanten == options[PASS].shanten == 2
    assert make_policy("expert", 3).choose(obs) is PASS
    held = held_choice(obs.counts(), (), obs.visible(), obs.profile, True)
    forgone = draw_forgone(held, price(held, obs, True), obs)
    assert forgone > 1.0  # a step's worth (STEP_COST 5) times the chance the draw brings it


def test_a_chow_that_makes_the_hand_ready_is_still_taken() -> None:
    obs = classic_claim("1345678999m5s22z", "2m")
    assert make_policy("expert", 3).choose(obs) is CHOW[parse_tile("1m")]


def test_only_a_pong_of_the_previous_seat_pays_for_the_draw() -> None:
    previous = classic_claim("15667899m1p5s444z", "6m")  # thrown by seat 3, before seat 0
    legal = tuple(a for a in previous.legal_actions if a in (PONG[parse_tile("6m")], PASS))
    previous = dataclasses.replace(previous, legal_actions=legal)
    across = dataclasses.replace(previous, claim=ClaimView(parse_tile("6m"), 2, False), current=2)
    pong = PONG[parse_tile("6m")]
    held = held_choice(previous.counts(), (), previous.visible(), previous.profile, True)
    forgone = draw_forgone(held, price(held, previous, True), previous)
    assert forgone > 0 and draws_next(previous) and not draws_next(across)
    assert ranked(previous)[pong].value == pytest.approx(ranked(across)[pong].value - forgone)
    assert ranked(previous)[PASS].value == pytest.approx(ranked(across)[PASS].value)
    assert make_policy("expert", 3).choose(previous) is PASS
    assert make_policy("expert", 3).choose(across) is pong


def test_a_ready_hand_counts_the_self_draw_it_may_make() -> None:
    # Ready on 9m or 1z: passing the chow draws next, and may self-draw (x2).
    obs = classic_claim("12345678999m11z", "8m")
    held = held_choice(obs.counts(), (), obs.visible(), obs.profile, True)
    assert held.steps == 0 and held.total
    forgone = draw_forgone(held, price(held, obs, True), obs)
    assert forgone > 0
