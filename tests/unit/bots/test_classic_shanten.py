"""The exact distance to a legal classic win (hebei.bots.policies.classic_shanten): -1 exactly
on a legal win, 0 exactly with a legal wait, never below the rules' lower bound, and one
exchange away from a hand one step closer (so it is the least number of exchanges)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hebei.bots.policies.classic import discard_choices, meld_suits
from hebei.bots.policies.classic_shanten import exact_shanten
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import CLASSIC
from hebei.rules.shanten import shanten_in
from hebei.rules.tiles import parse_tile, parse_tiles, to_counts
from hebei.rules.wincheck import checker, legal_waits


def exact(hand: str, melds: tuple[Meld, ...] = ()) -> int:
    return exact_shanten(to_counts(parse_tiles(hand)), len(melds), meld_suits(melds), CLASSIC)


def test_a_hand_whose_sets_leave_its_long_suit_short_is_two_steps_away() -> None:
    # 123m 456m, 7m alone, 45p, 11z and 22z: one step from ready by shape, and the rules'
    # bound (the standard shanten, or one manzu lacking) says one step. But a target with
    # eight manzu holds 123m 456m and a manzu pair (7m7m) or a third manzu set (789m, two
    # tiles), beside two more sets from 45p and a pair: 7m + 3p/6p + 1z/2z = three tiles.
    counts = to_counts(parse_tiles("1234567m45p11z22z"))
    assert shanten_in(counts, (), CLASSIC) == 1
    assert exact("1234567m45p11z22z") == 2


def test_ready_and_won_hands_and_the_all_honours_exception() -> None:
    assert exact("123456789m123p1z") == 0  # nine manzu, a pair wait on 1z
    assert exact("123456789m123p11z") == -1
    assert exact("1234567m123p11z5s") == 1  # seven manzu: an eighth first
    assert exact("123m456p789s11122z") >= 4  # three manzu: five more first
    pong = (Meld(MeldKind.PONG, parse_tile("5z"), 1),)
    assert exact("1112223344z", pong) == 0  # 清风: no suit needed
    chow = (Meld(MeldKind.CHOW, parse_tile("1p"), 3),)
    assert exact("456p789p11z22z", chow) == 0  # nine pinzu with the chow
    assert exact("1133557799m1144z") == -1  # seven pairs: no suit needed
    assert exact("1133557799m114z") == 0


def random_hand(rng: random.Random, melds: int) -> tuple[list[int], tuple[Meld, ...]]:
    """A hand biased to one suit (so that near-ready classic hands come up), beside
    ``melds`` declared pongs or chows."""
    wall = [k for k in range(34) for _ in range(4)]
    suit = rng.randrange(3)
    weight = [6 if k // 9 == suit else 1 for k in wall]
    counts = [0] * 34
    declared: list[Meld] = []
    for _ in range(melds):
        base = rng.randrange(suit * 9, suit * 9 + 7)
        if rng.random() < 0.5:
            declared.append(Meld(MeldKind.CHOW, base, 3))
        else:
            declared.append(Meld(MeldKind.PONG, rng.randrange(34), 1))
    used = [0] * 34
    for meld in declared:
        for k in meld.tiles:
            used[k] += 1
    size = 13 - 3 * melds
    while sum(counts) < size:
        k = rng.choices(wall, weight)[0]
        if counts[k] + used[k] < 4:
            counts[k] += 1
    return counts, tuple(declared)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32), melds=st.integers(0, 3))
def test_the_exact_distance_agrees_with_wins_waits_and_one_exchange(seed: int, melds: int) -> None:
    rng = random.Random(seed)
    counts, declared = random_hand(rng, melds)
    suits = meld_suits(declared)
    n = len(declared)
    value = exact_shanten(counts, n, suits, CLASSIC)
    assert value >= shanten_in(counts, declared, CLASSIC)
    assert (value == 0) == bool(legal_waits(list(counts), declared, CLASSIC))
    wins = checker(CLASSIC).wins
    for k in range(34):  # a draw: -1 exactly on a legal win, never two steps at once
        if counts[k] + sum(m.tiles.count(k) for m in declared) >= 4:
            continue
        counts[k] += 1
        drawn = exact_shanten(counts, n, suits, CLASSIC)
        assert (drawn == -1) == bool(wins(counts, declared)), k
        assert drawn >= value - 1
        counts[k] -= 1
    if value < 1:
        return
    best = 99  # some exchange brings the hand exactly one step closer
    for k in range(34):
        if counts[k] + sum(m.tiles.count(k) for m in declared) >= 4:
            continue
        counts[k] += 1
        for d in range(34):
            if counts[d] and d != k:
                counts[d] -= 1
                best = min(best, exact_shanten(counts, n, suits, CLASSIC))
                counts[d] += 1
        counts[k] -= 1
    assert best == value - 1


def test_the_expert_counts_discards_by_the_exact_distance() -> None:
    # Throwing 9s leaves 1234567m45p11z22z: the rules' bound says one step and no draw lowers
    # it; the exact count says two steps, and 41 unseen tiles bring it one closer (any
    # manzu that makes a pair or a third set, 3p/6p, 1z/2z).
    counts = to_counts(parse_tiles("1234567m45p11z22z9s"))
    bound = discard_choices(counts, (), [0] * 34, CLASSIC)[0]
    best = discard_choices(counts, (), [0] * 34, CLASSIC, exact=True)[0]
    assert bound.action.tile == best.action.tile == parse_tile("9s")
    assert (bound.steps, bound.total) == (1, 12)
    assert (best.steps, best.total) == (2, 41)
    for kind, _ in best.useful:
        hand = list(best.counts)
        hand[kind] += 1
        assert exact_shanten(hand, 0, meld_suits(()), CLASSIC) == 1


def test_the_policies_read_the_shanten_tables_through_public_names_only() -> None:
    """The policies use hebei.rules.shanten's public look-up (part_costs, combine, ...), not
    its private tables: a change of the tables' layout cannot break them unseen."""
    import ast
    from pathlib import Path

    import hebei.bots.policies as policies

    private = []
    for path in sorted(Path(policies.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        modules = {}  # local name -> hebei.rules module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hebei.rules"):
                for alias in node.names:
                    if alias.name.startswith("_"):
                        private.append(f"{path.name}: from {node.module} import {alias.name}")
                    modules[alias.asname or alias.name] = node.module
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                private.append(f"{path.name}: {node.value.id}.{node.attr}")
    assert private == []
