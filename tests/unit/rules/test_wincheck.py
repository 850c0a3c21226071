"""The fast win check and its "may be ready" pre-filter (RULES.md §4)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import CLASSIC, MAIN, RuleProfile
from hebei.rules.tiles import parse_tile, parse_tiles, to_counts
from hebei.rules.wincheck import checker, is_legal_win, is_win, winning_tiles


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


def _every_tile_tried(counts: list[int], melds: int) -> list[int]:
    """The waits by brute force: each of the 34 kinds added in turn."""
    out = []
    for k in range(34):
        if counts[k] < 4:
            counts[k] += 1
            if is_win(counts, melds):
                out.append(k)
            counts[k] -= 1
    return out


@pytest.mark.parametrize(
    ("hand", "melds"),
    [
        ("19m19p19s1234567z", 0),  # thirteen orphans, thirteen waits (not held, not near)
        ("19m19p19s1234566z", 0),  # ... the one missing
        ("1112345678999m", 0),
        ("1133557799m1122z", 0),  # seven pairs, a single left
        ("5m", 4),
        ("12m", 3),  # an edge wait and nothing else
    ],
)
def test_the_waits_are_every_kind_that_completes(hand: str, melds: int) -> None:
    counts = to_counts(parse_tiles(hand))
    assert winning_tiles(counts, melds) == _every_tile_tried(counts, melds)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.sampled_from([1, 2, 4]))
def test_the_waits_tried_near_the_held_tiles_are_all_the_waits(seed, melds, suits):
    """Only kinds held, next to one held, or of the thirteen orphans are tried: the same
    waits as trying every kind, on hands of one, two or all suits (more of them ready)."""
    rng = random.Random(seed)
    kept = rng.sample(range(4), suits)
    tiles = [k for k in range(34) for _ in range(4) if min(k // 9, 3) in kept]
    counts = to_counts(rng.sample(tiles, 13 - 3 * melds))
    assert winning_tiles(counts, melds) == _every_tile_tried(counts, melds)


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


@pytest.mark.parametrize(
    ("hand", "melds", "main", "classic"),
    [
        ("123m456m123p456p77s", (), True, False),  # 6 m, 6 p: no eight of one suit
        ("123m456m789m11p222z", (), True, True),  # 9 m
        ("123m456m11m789p222z", (), True, True),  # exactly 8 m
        ("234p567s11z", (("exposed_kong", "1m"), ("exposed_kong", "9m")), True, True),  # 4 + 4
        ("234p567s11z", (("pong", "1m"), ("pong", "9m")), True, False),  # 6 m
        ("456m789m22p345p", (("chow", "1m"),), None, True),  # the chow's tiles count
        ("1155m3399p77s1122z", (), True, True),  # seven pairs: no suit needed
        ("19m19p19s12345677z", (), True, True),  # thirteen orphans
        ("111z222z333z55z", (("pong", "6z"),), True, True),  # no suited tile (清风)
        ("111z222z333z55z", (("pong", "9m"),), True, False),  # 3 m
    ],
)
def test_is_legal_win_sees_the_melds_for_the_one_suit_condition(hand, melds, main, classic):
    counts = to_counts(parse_tiles(hand))
    declared = tuple(Meld(MeldKind(kind), parse_tile(tile)) for kind, tile in melds)
    assert is_legal_win(counts, declared, CLASSIC) is classic
    if main is not None:  # the main rules have no chow
        assert is_legal_win(counts, declared, MAIN) is main
        assert is_win(counts, len(declared), CLASSIC) is main  # the shape alone


def test_each_profile_has_its_checker() -> None:
    assert checker(CLASSIC) is checker(CLASSIC) and checker(CLASSIC) is not checker(MAIN)
