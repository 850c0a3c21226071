"""Readings of a winning hand (RULES.md §4): every decomposition, and where the winning tile sits."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.readings import GroupKind, Shape, readings
from hebei.rules.tiles import COPIES, N_KINDS, parse_tile, parse_tiles
from hebei.rules.wincheck import is_legal_win, is_win
from tests.unit.rules.winning_hands import (
    counts_of,
    seven_pairs_hands,
    standard_hands,
    winning_hands,
)


def texts(hand: str, win_tile: str, melds: tuple[Meld, ...] = (), profile=MAIN) -> set[str]:
    """Each reading as "<groups> @ <group holding the winning tile>"."""
    return {
        f"{r} @ {r.winning_group}"
        for r in readings(counts_of(hand), melds, parse_tile(win_tile), profile)
    }


@pytest.mark.parametrize(
    ("hand", "win_tile", "expected"),
    [
        # One decomposition, one placement.
        ("123m789m456p22p678s", "6s", {"123m 789m 22p 456p 678s @ 678s"}),
        # 11123456789999s: 11 + 123 + 456 + 789 + 999 is the only split.
        ("11123456789999s", "5s", {"11s 123s 456s 789s 999s @ 456s"}),
        # The winning tile in a chow or in the pair: two placements of one split.
        (
            "45556m111p789p222z",
            "5m",
            {"456m 55m 111p 789p 222z @ 456m", "456m 55m 111p 789p 222z @ 55m"},
        ),
        # Three identical chows or three pungs.
        (
            "11122233344455s",
            "2s",
            {
                "111s 222s 333s 444s 55s @ 222s",
                "123s 123s 123s 444s 55s @ 123s",
                "111s 234s 234s 234s 55s @ 234s",
                "111s 22s 234s 345s 345s @ 234s",
                "111s 22s 234s 345s 345s @ 22s",
            },
        ),
        # Standard and seven pairs at once.
        (
            "112233m445566p77s",
            "7s",
            {"123m 123m 456p 456p 77s @ 77s", "11m 22m 33m 44p 55p 66p 77s @ 77s"},
        ),
        # Four of a kind: two pairs of seven pairs.
        ("22224466888899p", "9p", {"22p 22p 44p 66p 88p 88p 99p @ 99p"}),
        ("19m19p19s12345667z", "9s", {"1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 66z 7z @ 9s"}),
        ("19m19p19s12345667z", "6z", {"1m 9m 1p 9p 1s 9s 1z 2z 3z 4z 5z 66z 7z @ 66z"}),
    ],
)
def test_readings_list_every_split_and_placement(
    hand: str, win_tile: str, expected: set[str]
) -> None:
    assert texts(hand, win_tile) == expected


@pytest.mark.parametrize(
    ("hand", "win_tile"),
    [
        ("19m19p19s11234567z", "1z"),  # thirteen orphans needs a dragon as the extra tile
        ("123m456p789s1234z", "4z"),  # no pair
        ("1357m2468p13579s", "1m"),  # nothing at all
        ("11223344556678m", "8m"),  # six pairs and a stray
        ("12m", "1m"),  # a pair missing
    ],
)
def test_no_reading_for_a_non_win(hand: str, win_tile: str) -> None:
    assert readings(counts_of(hand), (), parse_tile(win_tile)) == []


def test_declared_melds_stand_as_sets_and_forbid_special_shapes() -> None:
    pong = Meld(MeldKind.PONG, parse_tile("3z"))
    kong = Meld(MeldKind.CONCEALED_KONG, parse_tile("7z"))
    assert texts("345m678p22s567s", "2s", (pong,)) == {"345m 678p 22s 567s [333z] @ 22s"}
    assert texts("345m678p22s", "2s", (pong, kong)) == {"345m 678p 22s [333z] (7777z) @ 22s"}
    # Six pairs plus a pair would be seven pairs, but never with a declared meld.
    assert readings(counts_of("1133m5577p99s"), (pong,), parse_tile("1m")) == []
    assert readings(counts_of("1m19p19s12345667z"), (kong,), parse_tile("1m")) == []


def test_winning_tile_must_be_in_the_hand() -> None:
    assert readings(counts_of("11123456789999s"), (), parse_tile("5m")) == []


def test_seven_pairs_with_four_of_a_kind_follows_the_profile() -> None:
    no_quads = dataclasses.replace(MAIN, seven_pairs_allow_quads=False)
    assert readings(counts_of("22224466888899p"), (), parse_tile("9p"), no_quads) == []
    assert texts("22446688991133p", "9p", profile=no_quads) == {"11p 22p 33p 44p 66p 88p 99p @ 99p"}


def test_thirteen_orphans_pair_follows_the_profile() -> None:
    any_honor = dataclasses.replace(MAIN, thirteen_orphans_pair_must_be_dragon=False)
    found = readings(counts_of("19m19p19s11234567z"), (), parse_tile("1z"), any_honor)
    assert [r.shape for r in found] == [Shape.THIRTEEN_ORPHANS]
    # The profile widens the extra tile to any honor, not to a terminal.
    assert readings(counts_of("119m19p19s1234567z"), (), parse_tile("1m"), any_honor) == []


# --- agreement with is_win and with an independent brute force --------------------------


def brute_standard(tiles: list[int], need_pair: bool = True) -> bool:
    """Sorted ``tiles`` split into sets and exactly one pair, by plain recursion."""
    if not tiles:
        return not need_pair
    first = tiles[0]
    if need_pair and tiles.count(first) >= 2 and brute_standard(tiles[2:], False):
        return True
    if tiles.count(first) >= 3 and brute_standard(tiles[3:], need_pair):
        return True
    if first < 27 and first % 9 <= 6 and first + 1 in tiles and first + 2 in tiles:
        rest = list(tiles)
        for t in (first, first + 1, first + 2):
            rest.remove(t)
        return brute_standard(rest, need_pair)
    return False


ORPHAN_TILES = set(parse_tiles("19m19p19s1234567z"))
DRAGON_TILES = set(parse_tiles("567z"))


def brute_is_win(tiles: list[int], n_melds: int) -> bool:
    tiles = sorted(tiles)
    if brute_standard(tiles):
        return True
    return not n_melds and brute_special(tiles)


def brute_special(tiles: list[int]) -> bool:
    """Seven pairs (four of a kind as two) or thirteen orphans with a dragon pair."""
    if len(tiles) != 14:
        return False
    pairs = Counter(tiles)
    if all(c in (2, 4) for c in pairs.values()):
        return True
    extra = [t for t, c in pairs.items() if c == 2]
    return set(tiles) == ORPHAN_TILES and len(extra) == 1 and extra[0] in DRAGON_TILES


@st.composite
def near_wins(draw: st.DrawFn) -> tuple[list[int], tuple[Meld, ...]]:
    """A winning hand with up to two tiles swapped for random others (copies respected)."""
    concealed, melds = draw(winning_hands)
    concealed = list(concealed)
    used = list(concealed)
    for m in melds:
        used[m.tile] += m.size
    for _ in range(draw(st.integers(0, 2))):
        out = draw(st.sampled_from([k for k in range(N_KINDS) if concealed[k]]))
        into = draw(st.sampled_from([k for k in range(N_KINDS) if used[k] < COPIES and k != out]))
        concealed[out] -= 1
        used[out] -= 1
        concealed[into] += 1
        used[into] += 1
    return concealed, melds


@st.composite
def random_hands(draw: st.DrawFn) -> tuple[list[int], tuple[Meld, ...]]:
    """Uniformly random tiles, 14 minus 3 per meld, beside random pongs."""
    n_melds = draw(st.integers(0, 4))
    wall = [k for k in range(N_KINDS) for _ in range(COPIES)]
    picked = draw(st.permutations(wall))
    melds = tuple(Meld(MeldKind.PONG, k) for k in picked[:n_melds])
    concealed = [0] * N_KINDS
    for k in picked[n_melds : n_melds + 14 - 3 * n_melds]:
        concealed[k] += 1
    return concealed, melds


@settings(max_examples=400, deadline=None)
@given(st.one_of(near_wins(), random_hands()))
def test_readings_agree_with_is_win_and_brute_force(
    hand: tuple[list[int], tuple[Meld, ...]],
) -> None:
    concealed, melds = hand
    tiles = [k for k in range(N_KINDS) for _ in range(concealed[k])]
    expected = brute_is_win(tiles, len(melds))
    assert is_win(concealed, len(melds)) == expected
    for win_tile in set(tiles):
        assert bool(readings(concealed, melds, win_tile)) == expected


@settings(max_examples=200, deadline=None)
@given(winning_hands, st.data())
def test_every_reading_covers_the_hand_exactly(hand, data) -> None:
    concealed, melds = hand
    win_tile = data.draw(st.sampled_from([k for k in range(N_KINDS) if concealed[k]]))
    found = readings(concealed, melds, win_tile)
    assert found
    for reading in found:
        inside = Counter(t for g in reading.concealed_groups for t in g.tiles)
        assert [inside[k] for k in range(N_KINDS)] == list(concealed)
        assert win_tile in reading.winning_group.tiles and reading.winning_group.meld is None
        assert len(reading.declared) == len(melds)
        assert sum(reading.counts) == sum(concealed) + sum(m.size for m in melds)
        if reading.shape is Shape.STANDARD:
            assert sum(g.is_set for g in reading.groups) == 4
            assert [g.kind for g in reading.groups].count(GroupKind.PAIR) == 1
    # No duplicate readings.
    assert len({(str(r), r.win_group) for r in found}) == len(found)


# --- the classic profile: declared chows and the one-suit condition (§9) -----------------


def test_a_declared_chow_stands_as_a_chow() -> None:
    chow = Meld(MeldKind.CHOW, parse_tile("1m"), 0)
    found = texts("456m789m22p345p", "5p", (chow,), CLASSIC)
    assert found == {"456m 789m 22p 345p [123m] @ 345p"}
    (reading,) = readings(counts_of("456m789m22p345p"), (chow,), parse_tile("5p"), CLASSIC)
    assert reading.chows == (0, 3, 6, 11) and reading.declared[0].kind is GroupKind.CHOW
    assert sum(reading.counts) == 14 and reading.counts[0] == 1


def test_a_standard_reading_needs_eight_tiles_of_one_suit_in_classic() -> None:
    hand = counts_of("123m456m123p456p77s")
    assert readings(hand, (), parse_tile("7s"), MAIN)
    assert readings(hand, (), parse_tile("7s"), CLASSIC) == []
    # Seven pairs need no suit: the standard reading goes, the seven pairs stay.
    found = readings(counts_of("112233m445566p77s"), (), parse_tile("7s"), CLASSIC)
    assert [r.shape for r in found] == [Shape.SEVEN_PAIRS]


def brute_is_classic_win(tiles: list[int], melds: tuple[Meld, ...]) -> bool:
    total = Counter(tiles)
    for meld in melds:
        total.update(meld.tiles)
    suits = [sum(total[k] for k in range(s * 9, s * 9 + 9)) for s in range(3)]
    if brute_standard(sorted(tiles)) and (max(suits) >= 8 or max(suits) == 0):
        return True
    return not melds and brute_special(tiles)


@settings(max_examples=400, deadline=None)
@given(st.one_of(standard_hands(tuple(MeldKind)), near_wins(), random_hands(), seven_pairs_hands()))
def test_classic_readings_agree_with_is_legal_win_and_brute_force(
    hand: tuple[list[int], tuple[Meld, ...]],
) -> None:
    concealed, melds = hand
    tiles = [k for k in range(N_KINDS) for _ in range(concealed[k])]
    expected = brute_is_classic_win(tiles, melds)
    assert is_legal_win(concealed, melds, CLASSIC) == expected
    for win_tile in set(tiles):
        assert bool(readings(concealed, melds, win_tile, CLASSIC)) == expected
