"""The own hand as the expert reasons about it, and its price."""

from __future__ import annotations

import pytest

from hebei.bots.policies.pricing import CLAIMABLE_NORM, Holding, ShapePricer, claimable_useful
from hebei.rules.actions import ADDED_KONG, CONCEALED_KONG, EXPOSED_KONG
from hebei.rules.melds import MeldKind
from hebei.rules.tiles import parse_tile, parse_tiles, to_counts
from tests.unit.bots.observations import pongs


def holding(hand: str, melds: str = "") -> Holding:
    return Holding(tuple(to_counts(parse_tiles(hand))), pongs(melds) if melds else ())


@pytest.mark.parametrize(
    ("action", "removed", "kind", "concealed"),
    [
        (CONCEALED_KONG, 4, MeldKind.CONCEALED_KONG, True),
        (EXPOSED_KONG, 3, MeldKind.EXPOSED_KONG, False),
    ],
)
def test_a_kong_takes_its_tiles_and_declares_a_meld(action, removed, kind, concealed) -> None:
    before = holding("1111m456p789s11z5z")
    after = before.after_kong(action[0])
    assert sum(before.counts) - sum(after.counts) == removed
    assert after.melds[-1].kind is kind and after.concealed is concealed


def test_an_added_kong_turns_its_pong() -> None:
    before = holding("3m456p789s11z55z", melds="3m")
    after = before.after_kong(ADDED_KONG[parse_tile("3m")])
    assert [m.kind for m in after.melds] == [MeldKind.ADDED_KONG] and after.n_melds == 1
    assert after.counts[parse_tile("3m")] == 0 and not after.concealed


def test_a_pong_opens_the_hand() -> None:
    before = holding("55z123m456p789s1z")
    assert before.concealed
    after = before.after_pong(parse_tile("5z"))
    assert after.counts[parse_tile("5z")] == 0 and not after.concealed and after.n_melds == 1


def test_unseen_counts_the_hand_and_the_table() -> None:
    visible = [0] * 34
    visible[parse_tile("1m")] = 2
    assert holding("11m").unseen(visible)[parse_tile("1m")] == 0
    assert holding("1m").unseen(visible)[parse_tile("1m")] == 1


@pytest.mark.parametrize("value", [False, True])
def test_a_ready_hand_with_more_live_waits_is_worth_more(value: bool) -> None:
    pricer = ShapePricer(value)
    two_sided = holding("123m456p789s11z67m")
    closed = holding("123m456p789s11z68m")
    unseen = [4] * 34
    wide = pricer.price(
        two_sided, 0, [(parse_tile("5m"), 4), (parse_tile("8m"), 4)], unseen, 40, False
    )
    narrow = pricer.price(closed, 0, [(parse_tile("7m"), 4)], unseen, 40, False)
    assert wide.value > narrow.value and wide.win_chance > narrow.win_chance


def test_a_useful_tile_a_pong_can_bring_counts_more_when_weighted() -> None:
    # One step from ready: two pairs and 46s (8 useful copies, 4 of them the pairs' kinds,
    # which any seat's discard brings by a pong) against 45m, a pair and 46s (12 useful
    # copies, all from the seat's own draws).
    pairs = holding("123m456p66m99m46s1z")
    run = holding("123m456p45m99m46s1z")
    pair_useful = [(parse_tile("6m"), 2), (parse_tile("9m"), 2), (parse_tile("5s"), 4)]
    run_useful = [(parse_tile("3m"), 4), (parse_tile("6m"), 4), (parse_tile("5s"), 4)]
    unseen = [4] * 34
    args = (unseen, 40, False)
    plain, weighted = ShapePricer(True), ShapePricer(True, pong_weight=3.0)
    assert (
        plain.price(pairs, 1, pair_useful, *args).value
        < plain.price(run, 1, run_useful, *args).value
    )
    with_pairs = weighted.price(pairs, 1, pair_useful, *args)
    with_run = weighted.price(run, 1, run_useful, *args)
    assert with_pairs.value > with_run.value and with_pairs.win_chance > with_run.win_chance


@pytest.mark.parametrize("shanten", [1, 2, 3, 5])
def test_claimable_useful_counts_pair_kinds_k_times_on_the_plain_scale(shanten: int) -> None:
    counts = [0] * 34
    counts[0] = 2  # a pair of 1m
    counts[5] = 1
    useful = [(0, 2), (5, 3)]  # 1m: pongable; 6m: a single's partner, own draws only
    norm = CLAIMABLE_NORM[min(shanten, 3)]
    assert claimable_useful(counts, useful, shanten, 3.0) == pytest.approx((3 + 3 * 2) / norm)
    assert claimable_useful(counts, [(5, 3)], shanten, 3.0) == pytest.approx(3 / norm)
