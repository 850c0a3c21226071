"""The wall (RULES.md §2): shuffle, dice, break point, deal, draws, reserve."""

import random

import pytest

from hebei.rules.actions import CONCEALED_KONG
from hebei.rules.hand import HandState
from hebei.rules.players import AutoPlayer
from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.wall import Wall
from tests.unit.rules.rigging import QUIET_HANDS, rigged_hand


def test_same_seed_same_wall_and_dice():
    a = Wall.shuffled(random.Random(7))
    b = Wall.shuffled(random.Random(7))
    c = Wall.shuffled(random.Random(8))
    assert a.tiles == b.tiles and a.dice == b.dice
    assert a.tiles != c.tiles


def test_dice_are_two_dice_and_break_the_wall_where_they_say():
    wall = Wall.shuffled(random.Random(1))
    assert all(1 <= d <= 6 for d in wall.dice)
    tiles = list(range(34)) * 4
    broken = Wall(tiles, (3, 4))  # sum 7: side (7-1)%4 = 2, stack 2*17+7 = 41
    assert broken.tiles == tiles[82:] + tiles[:82]


def test_a_wall_must_hold_every_tile_four_times():
    with pytest.raises(ValueError, match="four of each kind"):
        Wall([0] * 136, (1, 1))


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_deal_gives_dealer_14_and_others_13(dealer):
    wall = Wall.shuffled(random.Random(dealer))
    hands = wall.deal(dealer)
    assert [len(h) for h in hands] == [14 if s == dealer else 13 for s in range(4)]
    assert wall.remaining == 136 - 53
    dealt = sorted(t for h in hands for t in h)
    assert dealt == sorted(wall.tiles[:53])


def test_reserve_is_twelve_plus_one_after_odd_replacements():
    wall = Wall.shuffled(random.Random(3))
    wall.deal(0)
    assert wall.reserve == 12 and wall.live == 83 - 12
    wall.draw_replacement()
    assert wall.reserve == 13 and wall.live == 82 - 13
    wall.draw_replacement()
    assert wall.reserve == 12 and wall.live == 81 - 12


def test_normal_draws_from_head_and_replacements_from_tail():
    wall = Wall.shuffled(random.Random(4))
    wall.deal(0)
    assert wall.draw() == wall.tiles[53]
    assert wall.draw_replacement() == wall.tiles[135]
    assert wall.draw_replacement() == wall.tiles[134]


def _draws_until_exhaustive(kongs: int) -> int:
    """Normal draws made in a hand where nobody claims and the first seats kong early."""
    wall = Wall.shuffled(random.Random(5))
    wall.deal(0)
    for _ in range(kongs):
        wall.draw_replacement()
    draws = 0
    while wall.live > 0:
        wall.draw()
        draws += 1
    return draws


@pytest.mark.parametrize(("kongs", "draws"), [(0, 71), (1, 69), (2, 69), (3, 67), (4, 67)])
def test_worked_example_of_normal_draws(kongs, draws):
    """RULES.md §2: 71 draws with no kong; 69 with one or two kongs; 67 with three or four."""
    assert _draws_until_exhaustive(kongs) == draws


def test_a_hand_of_passes_ends_exhaustive_after_71_draws():
    from hebei.rules.players import AutoPlayer

    state = HandState(11, 0)
    player = AutoPlayer()
    while not state.ended:
        for seat in state.to_act():
            state.apply(seat, player.choose(state, seat, state.legal_actions(seat)))
    draws = sum(1 for e in state.events if e["type"] == "draw")
    if state.result.outcome.value == "exhaustive_draw" and not state.kongs:
        assert draws == 71
        assert state.wall.remaining == 12


# ---------------------------------------------------------------- the classic reserve (§9)


def _wall(profile) -> Wall:
    wall = Wall.shuffled(random.Random(5), profile)
    wall.deal(0)
    return wall


@pytest.mark.parametrize(
    ("kongs", "main", "classic"),
    [(0, 12, 12), (1, 13, 15), (2, 12, 16), (3, 13, 19), (4, 12, 20)],
)
def test_reserve_after_each_kong(kongs, main, classic):
    """Main: six stacks, the lone tail tile after an odd number of replacements on top.
    Classic: six stacks and one more per kong (the lone tile still not a stack: Decision)."""
    for profile, expected in ((MAIN, main), (CLASSIC, classic)):
        wall = _wall(profile)
        for _ in range(kongs):
            wall.draw_replacement()
        assert wall.reserve == expected
        assert wall.live == wall.remaining - expected


def _normal_draws(profile, kongs: int) -> int:
    wall = _wall(profile)
    for _ in range(kongs):
        wall.draw_replacement()
    draws = 0
    while wall.live > 0:
        wall.draw()
        draws += 1
    return draws


@pytest.mark.parametrize(("kongs", "draws"), [(0, 71), (1, 67), (2, 65), (3, 61), (4, 59)])
def test_classic_worked_example_of_normal_draws(kongs, draws):
    """The classic reserve is six stacks, one more per kong: with no kong 71 normal draws
    (136 - 53 dealt - 12 reserve); each kong takes a replacement from the tail and reserves
    a stack more, and an odd number of replacements leaves a lone tile that is no stack:
    83 - k - (12 + 2k + k % 2) normal draws, so 67 with one kong, 65 with two, 61 with
    three, 59 with four."""
    assert _normal_draws(CLASSIC, kongs) == draws == 83 - kongs - (12 + 2 * kongs + kongs % 2)


@pytest.mark.parametrize("profile", [MAIN, CLASSIC], ids=lambda p: p.name)
def test_a_late_first_kong_ends_the_hand_at_the_next_draw(profile):
    """§2: a first kong declared with one live tile left, after 70 normal draws, leaves live
    below zero: no more normal draws (the same in both profiles)."""
    wall = _wall(profile)
    for _ in range(70):
        wall.draw()
    assert wall.live == 1
    wall.draw_replacement()
    assert wall.live == 0


def test_a_classic_hand_with_one_early_kong_ends_after_67_normal_draws():
    state = rigged_hand(["1111m47p147s34567z", *QUIET_HANDS[1:]], tail="9s", profile=CLASSIC)
    state.apply(0, CONCEALED_KONG[0])
    while not state.ended:
        seat = state.to_act()[0]
        state.apply(seat, AutoPlayer().choose(state, seat, state.legal_actions(seat)))
    assert state.result.outcome.value == "exhaustive_draw"
    normal = [e for e in state.events if e["type"] == "draw" and not e.get("replacement")]
    assert len(normal) == 67 and state.wall.remaining == 15
    assert state.result.settlement.total == (0, 0, 0, 0)  # nothing paid, kongs void
