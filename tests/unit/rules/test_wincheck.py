"""The fast win check and its "may be ready" pre-filter (RULES.md §4)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.tiles import parse_tiles, to_counts
from hebei.rules.wincheck import checker, is_win, winning_tiles


@pytest.mark.parametrize(
    ("hand", "melds", "win"),
    [
        ("11123456789999s", 0, True),
        ("123m456p789s11222z", 0, True),
        ("3355m1199p22s4466z", 0, True),  # seven pairs
        ("22224466888899p", 0, True),  # seven pairs with two quads
        ("19m19p19s12345667z", 0, True),  # thirteen orphans, dragon pair
        ("19m19p19s11234567z", 0, False),  # wind pair: not under the main rules
        ("3355m1199p22s4466z", 1, False),  # seven pairs are fully concealed
        ("77z", 4, True),
        ("123m456p789s1123z", 0, False),
    ],
)
def test_is_win(hand, melds, win):
    assert is_win(to_counts(parse_tiles(hand)), melds) is win


def test_profile_switches_change_the_answer():
    anywind = RuleProfile(name="t1", thirteen_orphans_pair_must_be_dragon=False)
    assert is_win(to_counts(parse_tiles("19m19p19s11234567z")), 0, anywind)
    noquads = RuleProfile(name="t2", seven_pairs_allow_quads=False)
    assert not is_win(to_counts(parse_tiles("22224466888899p")), 0, noquads)


def test_waits():
    counts = to_counts(parse_tiles("1112345678999m"))  # nine gates: waits on every man tile
    assert [k for k in winning_tiles(counts)] == list(range(9))
    assert counts == to_counts(parse_tiles("1112345678999m"))


def _random_hand(rng: random.Random, melds: int) -> list[int]:
    wall = [k for k in range(34) for _ in range(4)]
    rng.shuffle(wall)
    return to_counts(wall[: 13 - 3 * melds])


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4))
def test_may_be_ready_never_hides_a_win(seed, melds):
    counts = _random_hand(random.Random(seed), melds)
    if not checker(MAIN).may_be_ready(counts, melds):
        assert winning_tiles(counts, melds) == []


@pytest.mark.parametrize(
    ("hand", "melds"),
    [
        ("23m456p789s11122z", 0),
        ("3355m1199p22s446z", 0),
        ("19m19p19s1234567z", 0),
        ("7z", 4),
        ("1112345678999m", 0),
    ],
)
def test_ready_hands_are_flagged(hand, melds):
    counts = to_counts(parse_tiles(hand))
    assert winning_tiles(counts, melds)
    assert checker(MAIN).may_be_ready(counts, melds)


def _random_win_minus_one(rng: random.Random, melds: int) -> list[int]:
    """A random standard winning hand (concealed part) with one tile taken out."""
    while True:
        counts = [0] * 34
        for _ in range(4 - melds):
            if rng.random() < 0.5:
                suit, start = rng.randrange(3), rng.randrange(7)
                for k in range(suit * 9 + start, suit * 9 + start + 3):
                    counts[k] += 1
            else:
                counts[rng.randrange(34)] += 3
        counts[rng.randrange(34)] += 2
        if max(counts) <= 4:
            break
    held = [k for k in range(34) if counts[k]]
    counts[rng.choice(held)] -= 1
    return counts


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4))
def test_one_tile_from_a_win_is_always_flagged(seed, melds):
    counts = _random_win_minus_one(random.Random(seed), melds)
    assert winning_tiles(counts, melds)
    assert checker(MAIN).may_be_ready(counts, melds)
