"""How much a hand's shape is worth: its points for the rest of the hand, and its win chance.

Both are functions of the hand left after a discard (3n+1 tiles): its shanten ``s``, its
useful tiles still unseen ``u`` and the live wall ``w`` (as a share of a full wall), measured
on efficiency self-play:

- :func:`shape_value`, in points: at sampled decisions of 10,458 positions (seeds
  52·1,000,003 + 0..519) every legal discard was played out to the end of the hand (same
  wall, same players) and the seat's points regressed on ``s``, ``log(1 + u)`` and ``w``
  within each position (fixed effects: only differences between discards of one position
  count). It carries everything that follows from the shape: winning sooner, winning at
  all, and (on average) dealing in later. Breaking a ready hand costs about 3.4 points, a
  hand one step away 1.4, two steps 0.75, farther 0.6; fewer useful tiles at the same
  shanten costs about one point per halving of them when ready, less when far;
- :func:`break_cost`: what throwing a tile the shape needs (one more step from a win) costs,
  from the same play-outs, by how far the hand is and how much wall is left: a ready hand
  loses 3.4 points, a hand two steps away early 1.0 but late nothing, as it would not have
  won anyway. This prices folding;
- :func:`win_probability`: a logistic regression of "this seat won the hand" on the same
  figures (66,864 positions, seeds 41·1,000,003 + 0..399, AUC 0.70), to price the hand's
  value: a win worth more than average raises the expected points by P(win) × the extra.
"""

from __future__ import annotations

import functools
import math

from hebei.bots.policies.reading import FULL_WALL, sigmoid

# shape_value: per shanten 0..4 (4: four or more), (intercept, × w, × log1p(u), × log1p(u)·w).
SHAPE = (
    (0.0, 7.696, 1.452, 1.193),
    (-0.705, 3.451, 0.332, 1.793),
    (1.511, -0.332, -0.550, 2.113),
    (5.188, -4.788, -1.370, 2.583),
    (8.305, -6.027, -1.951, 2.415),
)
# break_cost: per shanten of the fastest shape 0..3 (3: three or more), (intercept, × wall,
# cap) in points, never below zero.
BREAK = (
    (1.8, 0.032, 3.4),
    (0.3, 0.025, 1.6),
    (-1.0, 0.032, 1.2),
    (-0.9, 0.025, 1.0),
)
# The fit's slope in log(1 + u) goes below zero for far hands late (few such positions, and
# its intercepts make up for it); a useful tile is never worth less than this.
MIN_SLOPE = 0.2
# The fixed-effects fit has no level of its own; this puts it on the scale of the seat's mean
# points for the rest of the hand (mean residual of the same play-outs), so that a win now
# (its points) and a hand kept (its shape value) compare.
SHAPE_OFFSET = -4.87
COMPLETE_BONUS = 12.0  # a complete hand (never priced: a win is taken at once)
# win_probability: intercept; per shanten 0..5 (intercept, × log1p(u), × w); × w²; open; dealer.
WIN_BIAS = -3.943
WIN_SHANTEN = (
    (0.826, 1.376, 0.492),
    (-0.524, 0.835, 0.806),
    (-1.322, 0.576, 1.174),
    (-1.747, 0.565, 0.667),
    (-0.986, 0.545, -0.729),
    (-0.189, 0.148, -0.119),
)
WIN_WALL2 = 1.828
WIN_OPEN = -0.137
WIN_DEALER = -0.157


def wall_share(wall: int) -> float:
    """The live wall as a share of a full one (0..1)."""
    return min(max(wall, 0), FULL_WALL) / FULL_WALL


def _shape_value(shanten: int, useful: float, wall: int) -> float:
    """The seat's expected points for the rest of the hand with this shape (the differences
    between shapes are the measured ones; the level is the play-outs' mean)."""
    if shanten < 0:
        return COMPLETE_BONUS
    a, b, c, d = SHAPE[min(shanten, len(SHAPE) - 1)]
    w = wall_share(wall)
    lu = math.log1p(max(0.0, useful))
    return SHAPE_OFFSET + a + b * w + max(MIN_SLOPE, c + d * w) * lu


def _win_probability(
    shanten: int, useful: float, wall: int, open_hand: bool = False, dealer: bool = False
) -> float:
    """Chance that a hand of this shape wins this hand."""
    if shanten < 0:
        return 1.0
    a, b, c = WIN_SHANTEN[min(shanten, len(WIN_SHANTEN) - 1)]
    w = wall_share(wall)
    x = WIN_BIAS + a + b * math.log1p(max(0.0, useful)) + c * w + WIN_WALL2 * w * w
    if open_hand:
        x += WIN_OPEN
    if dealer:
        x += WIN_DEALER
    return sigmoid(x)


# The two models memoised by their arguments (a few thousand distinct ones in a hand's
# positions): the same floats, computed once; about 140 bytes an entry, 7 MiB each when full.
MEMO_SIZE = 50_000
shape_value = functools.lru_cache(maxsize=MEMO_SIZE)(_shape_value)
win_probability = functools.lru_cache(maxsize=MEMO_SIZE)(_win_probability)


def break_cost(fastest: int, shanten: int, wall: int) -> float:
    """Points lost by leaving a hand at ``shanten`` when a discard at ``fastest`` exists."""
    cost = 0.0
    for step in range(max(0, fastest), shanten):
        a, b, cap = BREAK[min(step, len(BREAK) - 1)]
        cost += min(cap, max(0.0, a + b * wall))
    return cost
