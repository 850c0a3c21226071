"""The exact distance to a legal win under a one-suit minimum (RULES.md §9 一色够八张).

:func:`hebei.rules.shanten.shanten_in` raises the standard shanten to the tiles of one suit
still lacking, a lower bound: a hand whose fastest sets are in two suits, or that must give
up tiles of its long suit to finish them, is further than that. :func:`exact_shanten` is
exact: over every complete target of the standard form, the sets and the pair of the target
are split by suit, and a suit ``s`` that holds ``ms`` sets and ``ps`` pairs of the target
carries ``3 ms + 2 ps`` of its tiles, so the target is legal when that (plus the suit's
tiles in the declared melds) reaches the minimum, or when it holds no suited tile at all
(清风, without a suited meld). It reads the per-suit cost vectors of the rules' shanten
tables (:func:`hebei.rules.shanten.part_costs`; ``cost[m][p]``: the tiles to add so that a
part holds ``m`` sets and ``p`` pairs):

    standard = min over s, (ms, ps) legal for s of
               cost_s[ms][ps] + cost_others[m - ms][1 - ps]   (minus one)

where ``cost_others`` is the min-plus convolution of the three other parts
(:func:`hebei.rules.shanten.combine`). Seven pairs and thirteen orphans need no suit and count as in
:func:`hebei.rules.shanten.shanten`. The result is -1 exactly on a legal win and 0 exactly
on a hand with a legal wait (tests/unit/bots/test_classic_shanten.py checks it against
:func:`hebei.rules.wincheck.legal_waits` and, one exchange at a time, against itself).
"""

from __future__ import annotations

from collections.abc import Sequence

from hebei.rules.profile import RuleProfile
from hebei.rules.shanten import COST_INF, check_melds, combine, cost_vector, part_costs

_P = 2  # the cost vectors' layout: index m * 2 + p

# (suit vector id, others' vector id, tiles the suit must carry, sets m) -> least cost
_best: dict[tuple[int, int, int, int], int] = {}


def _suit_best(suit: int, others: int, need: int, m: int) -> int:
    """The least tiles to add for ``m`` sets and a pair with at least ``need`` tiles of the
    target in the suit of vector ``suit`` (the rest from the parts of vector ``others``)."""
    key = (suit, others, need, m)
    found = _best.get(key)
    if found is None:
        a, b = cost_vector(suit), cost_vector(others)
        found = COST_INF
        for ms in range(m + 1):
            for ps in (0, 1):
                if 3 * ms + 2 * ps < need:
                    continue
                v = a[ms * _P + ps] + b[(m - ms) * _P + 1 - ps]
                if v < found:
                    found = v
        _best[key] = found
    return found


def exact_shanten(
    counts: Sequence[int],
    n_melds: int,
    meld_suits: tuple[int, int, int, bool],
    profile: RuleProfile,
) -> int:
    """Steps of the concealed ``counts`` from a legal win of ``profile`` (a 3n+1 or 3n+2
    hand; ``meld_suits``: the tiles of each suit in the declared melds and whether any is
    suited, as :func:`hebei.bots.policies.classic.meld_suits`, of the ``n_melds``). -1: a legal win; 0: ready
    with a legal wait. Without melds the special forms count too."""
    m, special, v1, v2, v3, v4 = part_costs(counts, profile)
    m0, m1, m2, suited = meld_suits
    check_melds(m, n_melds)
    minimum = profile.one_suit_minimum
    honors_pair = combine(v3, v4)
    best = min(
        _suit_best(v1, combine(v2, honors_pair), minimum - m0, m),
        _suit_best(v2, combine(v1, honors_pair), minimum - m1, m),
        _suit_best(v3, combine(combine(v1, v2), v4), minimum - m2, m),
    )
    if not suited:  # 清风: every set and the pair in the honors
        clear = cost_vector(v4)[m * _P + 1]
        if clear < best:
            best = clear
    best -= 1
    if n_melds:
        return best
    return special if special < best else best
