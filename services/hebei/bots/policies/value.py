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
# Average base payment of a win (RULES.md §5), and what a fan of bonus is worth on average
# (a self-draw makes each of three payers pay the bonus).
BASE_POINTS = 6.5
DEALER_BASE_POINTS = 9.0
BONUS_WEIGHT = 1.7


def flush_bonus(counts: Sequence[int], melds: Sequence[Meld]) -> float:
    """Expected 清一色/混一色 fan of the hand: the best suit's fan times its odds."""
    per_suit = [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]
    honors = sum(counts[27:34])
    meld_suits = set()
    for meld in melds:
        meld_suits.add(meld.tile // 9 if 0 <= meld.tile < 27 else 3)
    honors_in = honors > 0 or 3 in meld_suits
    best = 0.0
    for suit in range(3):
        if meld_suits - {suit, 3}:
            continue
        off = sum(per_suit) - per_suit[suit]
        if off >= len(FLUSH_ODDS):
            continue
        fan = 2 if honors_in else 3
        best = max(best, fan * FLUSH_ODDS[off])
    return best


def peng_peng_shanten(counts: Sequence[int], n_melds: int) -> int:
    """Shanten of 碰碰胡 (every set a pung): tiles to add to reach it, minus one."""
    need_pungs = 4 - n_melds
    held = sorted((c for c in counts if c), reverse=True)[: need_pungs + 1]
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


def win_value(bonus: float, dealer: bool) -> float:
    """Points a win with ``bonus`` expected fan brings, on average."""
    return (DEALER_BASE_POINTS if dealer else BASE_POINTS) + BONUS_WEIGHT * bonus


# P(win) of a hand by shanten (row) and live wall (column per 10 tiles, 0-9 ... 70+), measured
# on efficiency self-play (150 matches): what a typical ukeire at that shanten achieves.
WIN_TABLE = (
    (0.16, 0.35, 0.41, 0.48, 0.55, 0.64, 0.71, 0.75),
    (0.02, 0.07, 0.13, 0.16, 0.23, 0.35, 0.47, 0.56),
    (0.0, 0.03, 0.06, 0.09, 0.11, 0.18, 0.28, 0.41),
    (0.0, 0.0, 0.02, 0.04, 0.06, 0.11, 0.20, 0.23),
    (0.0, 0.0, 0.0, 0.01, 0.03, 0.07, 0.13, 0.17),
    (0.0, 0.0, 0.0, 0.0, 0.01, 0.04, 0.08, 0.14),
)
TYPICAL_UKEIRE = (5, 14, 25, 40, 55, 60)
# How P(win) scales with ukeire relative to a typical hand at that shanten: linear. (The
# self-play measurement suggests ~0.3, but that is confounded with the hand's shape; in
# duplicate play against efficiency, 1.0 keeps the expert from trading speed for value.)
UKEIRE_EXPONENT = 1.0


def win_chance(shanten: int, ukeire: int, wall: int) -> float:
    """Chance to win the hand from ``shanten`` with ``ukeire`` improving tiles and ``wall``
    live tiles left: the measured rate at that shanten and wall, scaled by the ukeire
    relative to a typical one (see :data:`UKEIRE_EXPONENT`)."""
    if shanten < 0:
        return 1.0
    row = WIN_TABLE[min(shanten, len(WIN_TABLE) - 1)]
    x = min(max(wall, 0) / 10, len(row) - 1)
    i = min(int(x), len(row) - 2)
    base = row[i] + (row[i + 1] - row[i]) * (x - i)
    typical = TYPICAL_UKEIRE[min(shanten, len(TYPICAL_UKEIRE) - 1)]
    return min(0.95, base * ((ukeire + 1) / (typical + 1)) ** UKEIRE_EXPONENT)
