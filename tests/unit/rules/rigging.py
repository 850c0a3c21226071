"""Build a hand with chosen tiles: a stacked wall for rule tests (not replayable from a seed)."""

from __future__ import annotations

import copy

from hebei.rules.hand import HandState
from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.tiles import COPIES, N_KINDS, N_TILES, TILE_NAMES, parse_tiles
from hebei.rules.wall import Wall

# Hands far from ready with no two tiles of one suit within two ranks: nobody can win or chow,
# and only seat 3's 77z can pong (the dealer's hand has 14 tiles, for dealer 0).
QUIET_HANDS = ["147m147p147s34567z", "258m258p258s1234z", "369m369p369s1234z", "258m369p147s5677z"]
# The dealer (seat 0) discards 4m; seat 1 (next) holds 23m 56m, seat 2 holds the same runs but
# is not next, seat 3 holds a pair of 4m ...
CHOW_DEAL = ["4m369p369s1234567z", "2356m147p147s147z", "2356m258p258s567z", "44m147p258s12356z"]
# ... or instead waits on 1m/4m with nine m tiles (a classic win).
CHOW_DEAL_WIN = [*CHOW_DEAL[:3], "23m456m789m111p55z"]


def _deal_order(dealer: int) -> list[int]:
    """The seat that receives each of the first 53 wall positions (see Wall.deal)."""
    order = [(dealer + i) % 4 for i in range(4)]
    seats: list[int] = []
    for _ in range(3):
        for seat in order:
            seats.extend([seat] * 4)
    seats.extend(order)
    seats.append(dealer)
    return seats


def stacked_wall(
    hands: list[str], dealer: int = 0, draws: str = "", tail: str = "", profile: RuleProfile = MAIN
) -> Wall:
    """A wall that deals ``hands`` (the dealer's has 14 tiles), then draws ``draws`` from
    the head in order and ``tail`` as replacement tiles, in order. The other tiles fill
    the middle, sorted."""
    wanted = [parse_tiles(h) for h in hands]
    for seat, tiles in enumerate(wanted):
        need = 14 if seat == dealer else 13
        assert len(tiles) == need, f"seat {seat} needs {need} tiles, got {len(tiles)}"
    slots: list[int | None] = [None] * N_TILES
    given = [iter(t) for t in wanted]
    for pos, seat in enumerate(_deal_order(dealer)):
        slots[pos] = next(given[seat])
    for i, k in enumerate(parse_tiles(draws) if draws else []):
        slots[53 + i] = k
    for i, k in enumerate(parse_tiles(tail) if tail else []):
        slots[N_TILES - 1 - i] = k
    left = [COPIES] * N_KINDS
    for k in slots:
        if k is not None:
            left[k] -= 1
    over = [TILE_NAMES[k] for k in range(N_KINDS) if left[k] < 0]
    assert not over, f"more than four copies of {over} in the rigged wall"
    rest = iter(k for k in range(N_KINDS) for _ in range(left[k]))
    tiles = [k if k is not None else next(rest) for k in slots]
    return Wall(tiles, (1, 1), profile, broken=True)


def rigged_hand(
    hands: list[str], dealer: int = 0, draws: str = "", tail: str = "", profile: RuleProfile = MAIN
) -> HandState:
    return HandState(0, dealer, 0, profile, wall=stacked_wall(hands, dealer, draws, tail, profile))


def snapshot(state: HandState) -> tuple:
    """Everything an action could change, copied: compare before and after."""
    return (
        copy.deepcopy(state.hands),
        copy.deepcopy(state.melds),
        copy.deepcopy(state.discards),
        list(state.events),
        state.phase,
        state.current,
        dict(state.responses),
        state.wall.head,
        state.wall.tail,
    )
