"""Shanten and ukeire (hebei.rules.shanten), checked against is_win, the PyPI
`mahjong` library and independent brute force."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hebei.rules.profile import MAIN, RuleProfile, get_profile
from hebei.rules.shanten import (
    discard_options,
    shanten,
    shanten_seven_pairs,
    shanten_standard,
    shanten_thirteen_orphans,
    ukeire,
)
from hebei.rules.tiles import N_KINDS, parse_tiles, to_counts
from hebei.rules.wincheck import is_win

NO_QUADS = RuleProfile(name="no-quads", seven_pairs_allow_quads=False)
ANY_ORPHAN_PAIR = RuleProfile(name="any-orphan-pair", thirteen_orphans_pair_must_be_dragon=False)
# The riichi shapes the `mahjong` library knows: seven distinct pairs, any orphan pair.
RIICHI_LIKE = RuleProfile(
    name="riichi-like", seven_pairs_allow_quads=False, thirteen_orphans_pair_must_be_dragon=False
)


def counts(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


def hand_from_wall(rng: random.Random, n: int) -> list[int]:
    wall = [k for k in range(N_KINDS) for _ in range(4)]
    rng.shuffle(wall)
    return to_counts(wall[:n])


# Concealed tiles for a hand with n_melds declared melds: 14 - 3 * n_melds (win) or one less.
hands = st.builds(
    lambda seed, n_melds, ready: (
        hand_from_wall(random.Random(seed), 14 - 3 * n_melds - ready),
        n_melds,
    ),
    st.integers(0, 2**32),
    st.integers(0, 4),
    st.integers(0, 1),
)


def near_win(rng: random.Random) -> list[int]:
    """A winning-ish 14-tile hand: four random sets and a pair, one tile swapped at random."""
    while True:
        c = [0] * N_KINDS
        for _ in range(4):
            if rng.random() < 0.5:
                suit, start = rng.randrange(3), rng.randrange(7)
                for k in range(suit * 9 + start, suit * 9 + start + 3):
                    c[k] += 1
            else:
                c[rng.randrange(N_KINDS)] += 3
        c[rng.randrange(N_KINDS)] += 2
        if rng.random() < 0.5:
            held = [k for k in range(N_KINDS) if c[k]]
            c[rng.choice(held)] -= 1
            c[rng.randrange(N_KINDS)] += 1
        if max(c) <= 4:
            return c


# ---------------------------------------------------------------------- known values


@pytest.mark.parametrize(
    ("text", "n_melds", "expected"),
    [
        ("123m456p789s11122z", 0, -1),  # standard
        ("111m222p333s444z55z", 0, -1),  # all pungs
        ("123m456p789s1112z", 0, 0),  # ready on 2z only
        ("11223344556677m", 0, -1),  # seven pairs, also standard
        ("1111m2233p445566s", 0, -1),  # seven pairs with four 1m as two pairs
        ("1111m2233p44556s", 0, 0),  # ready for 豪华七对
        ("19m19p19s1234567z7z", 0, -1),  # thirteen orphans, dragon extra
        ("19m19p19s1234567z5z", 0, -1),
        ("19m19p19s1234567z1z", 0, 0),  # a wind pair is NOT complete under MAIN
        ("19m19p19s1234567z", 0, 0),  # thirteen-sided wait, dragons only complete it
        ("5555m111222333p", 0, 1),  # 5m would be a fifth copy: not ready
        ("1111z2222z3333z4z", 0, 0),  # seven pairs: 1z 2z 3z as two pairs each
        ("12m", 4, 0),  # four melds declared, two tiles left
        ("11m", 4, -1),
        ("1m", 4, 0),  # 大吊车: ready on 1m
        ("123m45p", 3, 0),
        ("123m456p789s1234z", 0, 2),  # a pair and a pung to build
        ("147m258p369s1234z", 0, 6),  # standard 8, seven pairs 6
    ],
)
def test_known_values(text: str, n_melds: int, expected: int) -> None:
    assert shanten(counts(text), n_melds) == expected


@pytest.mark.parametrize(
    ("text", "profile", "expected"),
    [
        ("1111m2233p445566s", MAIN, -1),
        ("1111m2233p445566s", NO_QUADS, 0),  # then 1111m is a pung + 1 (standard: ready)
        ("19m19p19s1234567z1z", MAIN, 0),
        ("19m19p19s1234567z1z", ANY_ORPHAN_PAIR, -1),
    ],
)
def test_profile_decisions(text: str, profile: RuleProfile, expected: int) -> None:
    assert shanten(counts(text), 0, profile) == expected


@pytest.mark.parametrize(
    ("text", "profile", "expected"),
    [
        ("1111m2233p445566s", MAIN, -1),
        ("1111m2233p445566s", NO_QUADS, 1),
        ("111m222p333s444z5z", MAIN, 2),  # 4 pairs + 4 extra copies (3 of them usable)
        ("111m222p333s444z5z", NO_QUADS, 4),
        ("1111m2222p3333s4z", MAIN, 0),
        ("1111m2222p3333s4z", NO_QUADS, 6),
        ("123456789m12345p", MAIN, 6),
    ],
)
def test_seven_pairs(text: str, profile: RuleProfile, expected: int) -> None:
    assert shanten_seven_pairs(counts(text), profile) == expected


@pytest.mark.parametrize(
    ("text", "profile", "expected"),
    [
        ("19m19p19s1234567z7z", MAIN, -1),
        ("19m19p19s1234567z4z", MAIN, 0),
        ("19m19p19s1234567z4z", ANY_ORPHAN_PAIR, -1),
        ("19m19p19s123456z11z", MAIN, 1),  # 7z missing, and the pair is a wind
        ("19m19p19s123456z11z", ANY_ORPHAN_PAIR, 0),
        ("123456789m12345p", MAIN, 10),
    ],
)
def test_thirteen_orphans(text: str, profile: RuleProfile, expected: int) -> None:
    assert shanten_thirteen_orphans(counts(text), profile) == expected


def test_pairs_beside_a_meld_count_only_as_standard() -> None:
    c = counts("1122m3344p55s7z")  # 11 tiles beside one meld
    assert shanten(c, 1) == shanten_standard(c, 1) == 2


@pytest.mark.parametrize(
    ("hand", "n_melds"),
    [
        ([0] * 33, 0),  # not 34 counts
        ([5] + [0] * 33, 0),  # a fifth copy
        (counts("123m456p789s"), 0),  # 3n tiles
        (counts("123m456p789s11122z3z"), 0),  # 15 tiles
        (counts("123m456p789s1122z"), 1),  # 13 tiles beside a meld
        ([-1] + [0] * 33, 0),
    ],
)
def test_bad_hands_raise_value_error(hand: list[int], n_melds: int) -> None:
    with pytest.raises(ValueError):
        shanten(hand, n_melds)


# ------------------------------------------------------- properties and brute force


@settings(max_examples=400, deadline=None)
@given(hands)
def test_minus_one_exactly_when_win(case: tuple[list[int], int]) -> None:
    c, n_melds = case
    if sum(c) % 3 == 2:
        assert (shanten(c, n_melds) == -1) == is_win(c, n_melds)
    else:
        assert shanten(c, n_melds) >= 0


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32))
def test_minus_one_exactly_when_win_near_wins(seed: int) -> None:
    c = near_win(random.Random(seed))
    assert (shanten(c) == -1) == is_win(c)


def test_standard_form_agrees_with_mahjong_library() -> None:
    # Both count exchanges to a complete standard hand. Our definition never uses a
    # fifth copy; the library handles that case by special flags, and on random
    # hands (and near-complete ones) the two agree exactly.
    from mahjong.shanten import Shanten

    rng = random.Random(7)
    for i in range(3000):
        c = near_win(rng) if i % 3 == 0 else hand_from_wall(rng, 13 + i % 2)
        if i % 3 == 0 and i % 2:
            c[max(range(N_KINDS), key=c.__getitem__)] -= 1  # a 13-tile near-win
        assert shanten_standard(c) == Shanten.calculate_shanten_for_regular_hand(c), c


def test_special_forms_agree_with_mahjong_library_on_riichi_shapes() -> None:
    from mahjong.shanten import Shanten

    rng = random.Random(8)
    for i in range(2000):
        c = hand_from_wall(rng, 13 + i % 2)
        assert shanten_seven_pairs(c, NO_QUADS) == Shanten.calculate_shanten_for_chiitoitsu_hand(c)
        assert shanten_thirteen_orphans(
            c, ANY_ORPHAN_PAIR
        ) == Shanten.calculate_shanten_for_kokushi_hand(c)
        assert shanten(c, 0, RIICHI_LIKE) == Shanten.calculate_shanten(c), c


SETS = [tuple([k] * 3) for k in range(N_KINDS)] + [
    (s * 9 + r, s * 9 + r + 1, s * 9 + r + 2) for s in range(3) for r in range(7)
]


def brute_force_standard(c: list[int], n_sets: int) -> int:
    """min |T - H| - 1 over every complete target T of n_sets sets and a pair."""
    best = 99
    for combo in combinations_with_replacement(SETS, n_sets):
        for pair in range(N_KINDS):
            target = Counter(k for tile_set in combo for k in tile_set)
            target[pair] += 2
            if max(target.values()) > 4:
                continue
            best = min(best, sum(max(0, n - c[k]) for k, n in target.items()))
    return best - 1


@pytest.mark.parametrize("n_melds", [3, 2])
def test_standard_form_against_brute_force_targets(n_melds: int) -> None:
    rng = random.Random(n_melds)
    examples = 40 if n_melds == 3 else 4
    for i in range(examples):
        # Dense small hands (few kinds) hit the four-copies edge cases often.
        kinds = rng.sample(range(N_KINDS), 3)
        size = 14 - 3 * n_melds - i % 2
        pool = [k for k in kinds for _ in range(4)] + [k + 1 for k in kinds if k < 27 and k % 9 < 8]
        while True:
            c = to_counts(rng.sample(pool, size))
            if max(c) <= 4:
                break
        assert shanten(c, n_melds) == brute_force_standard(c, 4 - n_melds), c


def step_values(c: list[int], n_melds: int) -> list[int]:
    """Shanten after every single step: a draw (3n+1) or a draw and a discard (3n+2)."""
    out = []
    for draw in range(N_KINDS):
        if c[draw] >= 4:
            continue
        c[draw] += 1
        if sum(c) % 3 == 2:
            out.append(shanten(c, n_melds))
        else:
            for discard in range(N_KINDS):
                if c[discard]:
                    c[discard] -= 1
                    out.append(shanten(c, n_melds))
                    c[discard] += 1
        c[draw] -= 1
    return out


@settings(max_examples=60, deadline=None)
@given(hands)
def test_one_step_lowers_shanten_by_exactly_one(case: tuple[list[int], int]) -> None:
    # With "-1 exactly when is_win" this pins shanten down: it IS the number of
    # steps to a win, computed independently by the step relation.
    c, n_melds = case
    s = shanten(c, n_melds)
    if s == -1:
        return
    steps = step_values(c, n_melds)
    assert min(steps) == s - 1


# ------------------------------------------------------------------- ukeire, discards


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_ukeire_is_exactly_the_improving_draws(seed: int, with_visible: bool) -> None:
    rng = random.Random(seed)
    c = near_win(rng)
    c[rng.choice([k for k in range(N_KINDS) if c[k]])] -= 1  # 13 tiles
    visible = [rng.randint(0, 4 - n) if rng.random() < 0.3 else 0 for n in c]
    before = list(c)
    base, tiles = ukeire(c, visible=visible if with_visible else None)
    assert c == before
    assert base == shanten(c)
    expected = []
    for k in range(N_KINDS):
        unseen = 4 - c[k] - (visible[k] if with_visible else 0)
        if unseen <= 0:
            continue
        c[k] += 1
        if shanten(c) < base:
            expected.append((k, unseen))
        c[k] -= 1
    assert tiles == expected


def test_ukeire_known_wait() -> None:
    # 123m456p789s1112z: waits on 2z (pair) and 3m? no: only 2z completes; 1z too?
    # 1111z would be a pung of 1z plus 2z alone: not a win.
    result = ukeire(counts("123m456p789s1112z"))
    assert result.shanten == 0
    assert result.tiles == [(28, 3)]
    assert result.total == 3
    visible = [0] * N_KINDS
    visible[28] = 3
    assert ukeire(counts("123m456p789s1112z"), visible=visible).tiles == []


def test_ukeire_with_melds() -> None:
    result = ukeire(counts("2m"), n_melds=4)  # 大吊车: waits on the pair
    assert (result.shanten, result.tiles) == (0, [(1, 3)])
    result = ukeire(counts("23m45p"), n_melds=3)
    assert result.shanten == 1
    assert [k for k, _ in result.tiles] == [0, 1, 2, 3, 11, 12, 13, 14]


def test_ukeire_rejects_3n_plus_2() -> None:
    with pytest.raises(ValueError, match="3n\\+1"):
        ukeire(counts("123m456p789s11122z"))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_discard_options(seed: int) -> None:
    rng = random.Random(seed)
    c = near_win(rng)
    visible = [rng.randint(0, 4 - n) if rng.random() < 0.3 else 0 for n in c]
    before = list(c)
    options = discard_options(c, visible=visible)
    assert c == before
    assert sorted(o.kind for o in options) == [k for k in range(N_KINDS) if c[k]]
    keys = [(o.shanten, -o.total, o.kind) for o in options]
    assert keys == sorted(keys)
    for o in options:
        c[o.kind] -= 1
        # Unseen copies after the discard: the discarded copy is seen by the player.
        seen = list(visible)
        seen[o.kind] += 1
        assert (o.shanten, o.tiles) == tuple(ukeire(c, visible=seen))
        assert o.total == sum(n for _, n in o.tiles)
        c[o.kind] += 1
    assert options[0].shanten == min(o.shanten for o in options)


def test_discard_options_known_hand() -> None:
    # 123m456p789s1122z + 5z: discarding 5z leaves the 1z/2z pair wait, the only ready hand.
    options = discard_options(counts("123m456p789s1122z5z"))
    assert (options[0].kind, options[0].shanten, options[0].tiles) == (31, 0, [(27, 2), (28, 2)])
    assert options[0].total == 4
    assert all(o.shanten == 1 for o in options[1:])
    with pytest.raises(ValueError, match="3n\\+2"):
        discard_options(counts("123m456p789s1112z"))


@pytest.mark.parametrize("seed", [3, 4])
def test_improving_ranks_from_the_tables_are_the_definition(seed: int) -> None:
    """The ranks a part's draw lowers, read from its drop masks and the tight entries of the
    final step, are those found by growing the part and comparing final shantens."""
    from hebei.rules import shanten as sh

    rng = random.Random(seed)
    checked = 0
    for _ in range(300):
        n_melds = rng.randrange(4)
        c = hand_from_wall(rng, 13 - 3 * n_melds)
        b = bytes(c)
        parts = [(b[0:9], sh._suit_entry), (b[9:18], sh._suit_entry)]
        parts += [(b[18:27], sh._suit_entry), (b[27:34], sh._honor_entry)]
        vids = [entry(key)[0] for key, entry in parts]
        m = sum(c) // 3
        for i, (key, _) in enumerate(parts):
            others = [v for j, v in enumerate(vids) if j != i]
            rest = sh._pair(sh._pair(others[0], others[1]), others[2])
            fast = sh._std_ranks(key, vids[i], rest, m)
            assert fast == sh._std_ranks_plain(key, vids[i], rest, m), (c, n_melds, i)
            checked += bool(fast)
    assert checked > 300
    assert all(sh._DROPS[key] for key, _ in parts)  # the bounds held: tables served them


@pytest.mark.parametrize("profile", [MAIN, get_profile("classic")], ids=lambda p: p.name)
def test_discard_options_with_melds_match_ukeire_of_each_discard(profile: RuleProfile) -> None:
    """The shanten and useful tiles of every discard are :func:`ukeire` of the hand it
    leaves, with declared melds beside it and under either profile's special forms."""
    rng = random.Random(17)
    for _ in range(200):
        n_melds = rng.randrange(4)
        c = hand_from_wall(rng, 14 - 3 * n_melds)
        visible = [rng.randint(0, 4 - n) if rng.random() < 0.3 else 0 for n in c]
        options = discard_options(c, n_melds, visible, profile)
        assert sorted(o.kind for o in options) == [k for k in range(N_KINDS) if c[k]]
        for o in options:
            c[o.kind] -= 1
            seen = list(visible)
            seen[o.kind] += 1
            assert (o.shanten, o.tiles) == tuple(ukeire(c, n_melds, seen, profile)), (c, o)
            c[o.kind] += 1
