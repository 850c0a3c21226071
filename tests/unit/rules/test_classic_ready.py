"""Ready hands and shanten under the classic profile's whole win condition (RULES.md §9: four
sets and a pair with at least eight tiles of one suit): a hand that cannot reach eight of one
suit is not ready, whatever its shape. And the profile a policy sees in its observation."""

from __future__ import annotations

import random

import pytest

from hebei.rules.hand import HandState
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.shanten import shanten, shanten_in
from hebei.rules.tiles import N_KINDS, parse_tile, parse_tiles, to_counts
from hebei.rules.views import observe
from hebei.rules.wincheck import checker, is_ready, legal_waits, winning_tiles


def counts(text: str) -> list[int]:
    return list(to_counts(parse_tiles(text)))


def t(name: str) -> int:
    return parse_tile(name)


def test_a_shape_ready_hand_without_eight_of_a_suit_is_not_ready() -> None:
    hand = counts("123m456p789s1122z")  # waits on 1z/2z: three tiles of each suit
    assert winning_tiles(hand) == [t("1z"), t("2z")]
    assert legal_waits(hand, (), MAIN) == [t("1z"), t("2z")] and is_ready(hand, (), MAIN)
    assert legal_waits(hand, (), CLASSIC) == [] and not is_ready(hand, (), CLASSIC)
    assert shanten(hand) == 0 and shanten_in(hand, (), MAIN) == 0
    assert shanten_in(hand, (), CLASSIC) == 4  # five more tiles of one suit


def test_melds_count_toward_the_eight_tiles() -> None:
    melds = (Meld(MeldKind.CHOW, t("1m"), 3), Meld(MeldKind.PONG, t("9m"), 1))  # six m tiles
    hand = counts("456m111z7m")  # waits on 4m/7m: eleven m tiles with either
    waits = [t("4m"), t("7m")]
    assert legal_waits(hand, melds, CLASSIC) == legal_waits(hand, melds, MAIN) == waits
    assert shanten_in(hand, melds, CLASSIC) == shanten(hand, 2) == 0
    hand = counts("456p111z7p")  # the same shape in p: six m, five p tiles
    assert legal_waits(hand, melds, MAIN) == [t("4p"), t("7p")]
    assert legal_waits(hand, melds, CLASSIC) == []
    assert shanten_in(hand, melds, CLASSIC) == 1  # two m (or three p) tiles short


def test_seven_pairs_and_all_honors_need_no_suit() -> None:
    pairs = counts("1m1m5p5p9s9s1z1z2z2z3z3z4z")  # seven pairs wait on 4z
    assert legal_waits(pairs, (), CLASSIC) == [t("4z")]
    assert shanten_in(pairs, (), CLASSIC) == 0
    honors = counts("1112223334445z")  # all honors: 清风 waits on 5z
    assert legal_waits(honors, (), CLASSIC) == [t("5z")]
    assert shanten_in(honors, (), CLASSIC) == 0


def _near_complete(rng: random.Random) -> list[int]:
    """Four random sets and a pair (a suit favoured, honors now and then): a complete shape,
    which the classic rules may or may not accept."""
    favoured = rng.randrange(3) * 9
    while True:
        hand = [0] * N_KINDS
        for _ in range(4):
            suit = favoured if rng.random() < 0.6 else rng.randrange(3) * 9
            if rng.random() < 0.2:
                hand[27 + rng.randrange(7)] += 3
            elif rng.random() < 0.5:
                hand[suit + rng.randrange(9)] += 3
            else:
                base = suit + rng.randrange(7)
                for k in (base, base + 1, base + 2):
                    hand[k] += 1
        hand[rng.randrange(N_KINDS)] += 2
        if max(hand) <= 4:
            return hand


@pytest.mark.parametrize("seed", range(3))
def test_shanten_in_is_a_bound_that_is_exact_at_complete_and_ready(seed: int) -> None:
    rng = random.Random(seed)
    wins = checker(CLASSIC).wins
    outcomes = {"win": 0, "shape only": 0, "ready": 0, "not ready": 0}
    for _ in range(600):
        hand = _near_complete(rng)
        value = shanten_in(hand, (), CLASSIC)
        assert value >= shanten(hand, 0, CLASSIC) == -1  # never below the shape alone
        assert (value == -1) == wins(hand, ())  # -1 exactly on a legal win
        outcomes["win" if value == -1 else "shape only"] += 1
        hand[rng.choice([k for k in range(N_KINDS) if hand[k]])] -= 1  # a 13-tile hand
        value = shanten_in(hand, (), CLASSIC)
        assert value >= shanten(hand, 0, CLASSIC) == 0
        if is_ready(hand, (), CLASSIC):
            assert value == 0
            outcomes["ready"] += 1
        else:
            outcomes["not ready"] += 1
        assert shanten_in(hand, (), MAIN) == shanten(hand) == 0
    assert all(outcomes.values()), outcomes  # every case was exercised


def test_observations_carry_the_tables_profile() -> None:
    for profile in (MAIN, CLASSIC):
        state = HandState(9, 0, 0, profile)
        assert observe(state, 2).profile is profile
