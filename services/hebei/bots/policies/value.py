"""Hand value: how many bonus fan (RULES.md §6) a hand is on course for, and its win chance.

Routes priced here: 门清/七对 (2, a concealed hand), 清一色 (3) / 混一色 (2) from the
share of one suit, 碰碰胡 (3) from pairs and triplets. Each route's fan is weighted by
how likely the hand still reaches it; the result is an expected bonus, in points.
"""

from __future__ import annotations

from collections.abc import Sequence

from hebei.rules.melds import Meld

# Probability of completing a flush with this many off-suit concealed tiles still to shed.
FLUSH_ODDS = (1.0, 0.6, 0.4, 0.22, 0.1, 0.04)
# Probability of 碰碰胡 by how far its own shanten is behind the hand's shanten.
PENG_PENG_ODDS = (0.8, 0.35, 0.1)
# Share of wins that are self-draws (efficiency self-play, 1,920 hands: 0.28).
SELF_DRAW_SHARE = 0.28
# Base payment to the winner (RULES.md §5): self-draw total, and a discard win averaged over who
# discards (a non-dealer wins 6 from the dealer, 5 from the two others).
SELF_DRAW_BASE = {True: 12.0, False: 8.0}
DISCARD_BASE = {True: 8.0, False: 16.0 / 3}
MEN_QING_KEPT = 0.6  # a concealed hand still concealed when it wins
AVERAGE_BONUS = 1.0  # bonus fan of an average win in self-play (门清 on 40% of wins, ...)


def flush_bonus(counts: Sequence[int], melds: Sequence[Meld]) -> float:
    """Expected 清一色/混一色 fan of the hand: the best suit's fan times its odds.

    The odds fall with the off-suit tiles to shed, so the best suit is the one open to a
    flush (its melds, if any, in it or in honors) with the fewest of them.
    """
    per_suit = (sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27]))
    meld_suits: set[int] = set()
    for meld in melds:
        meld_suits.add(meld.tile // 9 if 0 <= meld.tile < 27 else 3)
    if meld_suits:
        open_suits = [s for s in range(3) if not meld_suits - {s, 3}]
        if not open_suits:
            return 0.0
        most = max(per_suit[s] for s in open_suits)
    else:
        most = max(per_suit)
    off = per_suit[0] + per_suit[1] + per_suit[2] - most
    if off >= _FLUSH_REACH:
        return 0.0
    honors_in = 3 in meld_suits or any(counts[27:34])
    return (2 if honors_in else 3) * FLUSH_ODDS[off]


_FLUSH_REACH = len(FLUSH_ODDS)


def peng_peng_shanten(counts: Sequence[int], n_melds: int) -> int:
    """Shanten of 碰碰胡 (every set a pung): tiles to add to reach it, minus one."""
    # It depends on the hand only through how many kinds it holds 4, 3, 2 and 1 of (counted
    # on its bytes: half the time of four tuple counts).
    b = bytes(counts)
    key = (b.count(4), b.count(3), b.count(2), b.count(1), n_melds)
    found = _peng_peng_memo.get(key)
    if found is None:
        found = _peng_peng_memo[key] = _peng_peng_shanten(counts, n_melds)
    return found


_peng_peng_memo: dict[tuple[int, int, int, int, int], int] = {}  # at most 15^4 x 5 keys


def _peng_peng_shanten(counts: Sequence[int], n_melds: int) -> int:
    need_pungs = 4 - n_melds
    held = sorted(filter(None, counts), reverse=True)[: need_pungs + 1]
    cost = 0
    for i, have in enumerate(held):
        # The last chosen kind (fewest copies) serves as the pair.
        cost += max(0, (2 if i == need_pungs else 3) - have)
    cost += 3 * max(0, need_pungs + 1 - len(held)) - (1 if len(held) <= need_pungs else 0)
    return cost - 1


def peng_peng_bonus(counts: Sequence[int], n_melds: int, shanten: int) -> float:
    """Expected 碰碰胡 fan: 3 times the odds from how far its shanten trails ``shanten``."""
    gap = peng_peng_shanten(counts, n_melds) - shanten
    if gap >= len(PENG_PENG_ODDS):
        return 0.0
    return 3 * PENG_PENG_ODDS[max(0, gap)]


def win_points(fan: float, dealer: bool) -> float:
    """Expected points of one win with ``fan`` bonus, self-draws and discard wins mixed."""
    self_draw = SELF_DRAW_BASE[dealer] + 3 * fan
    discard = DISCARD_BASE[dealer] + fan
    return SELF_DRAW_SHARE * self_draw + (1 - SELF_DRAW_SHARE) * discard


def route_bonus(
    counts: Sequence[int], n_melds: int, melds: Sequence[Meld], shanten: int, concealed: bool
) -> float:
    """Expected bonus fan of a hand that is not ready yet, by the routes still open."""
    bonus = 2.0 * MEN_QING_KEPT if concealed else 0.0
    return bonus + flush_bonus(counts, melds) + peng_peng_bonus(counts, n_melds, shanten)


def extra_points(points: float, dealer: bool) -> float:
    """How much more than an average win ``points`` is (negative: less)."""
    return points - _AVERAGE_WIN[dealer]


_AVERAGE_WIN = {dealer: win_points(AVERAGE_BONUS, dealer) for dealer in (True, False)}
