"""Defence: how likely each discard is to hand another seat a win, and what that would cost.

Only what the seat may see is used (RULES.md §3, no furiten here): each opponent's
chance of being ready from its melds and how long it has played, then for every
tile kind the chance that a ready opponent waits on it, from:

- the kind itself: honors can only be waited on as pair/pung waits, so an honor
  with every other copy visible is safe and one with 2+ visible nearly so;
  middle ranks are in more shapes than terminals;
- the opponent's discards: a tile it threw itself is rarely its wait
  (genbutsu-like), and its suji (k±3) is less likely;
- its melds: two or more melds of one suit read as a flush, which makes that
  suit dangerous and the others nearly safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hebei.rules.views import Observation

# P(a ready hand waits on the kind), measured on efficiency self-play (120 matches):
# suited by distance from the edge (1/9, 2/8, 3/7, 4/6, 5), honors by unseen copies (0..4).
RANK_WAIT = (0.048, 0.077, 0.119, 0.109, 0.097)
HONOR_WAIT = (0.0, 0.0, 0.018, 0.04, 0.04)
OWN_DISCARD = 0.05  # the opponent discarded this kind itself (genbutsu-like)
SUJI = 0.5  # ... or the tile three ranks away (both sides for 4-6)
ONE_SIDE_SUJI = 0.7
FLUSH_SUIT = 1.8  # the suit an opponent's melds read as a flush
OFF_FLUSH = 0.2
BASE_COST = 6.5  # average base payment of a discard win (RULES.md §5)
# P(ready) by declared melds (row: 0, 1, 2) and turns played (column per 3 turns), measured
# on efficiency self-play; three or more melds read as ready.
READY_TABLE = (
    (0.0, 0.03, 0.12, 0.21, 0.34, 0.52, 0.55),
    (0.02, 0.06, 0.19, 0.33, 0.43, 0.50, 0.52),
    (0.1, 0.19, 0.38, 0.48, 0.62, 0.65, 0.72),
)
READY_MANY_MELDS = 0.9


@dataclass(frozen=True, slots=True)
class Threat:
    """One opponent: chance it is ready, what a deal-in costs, and its flush suit if any."""

    seat: int
    ready: float
    cost: float
    flush_suit: int | None
    discarded: frozenset[int]


def read_threat(obs: Observation, seat: int) -> Threat:
    """What ``seat``'s melds and discards say about its hand, as ``obs.seat`` sees it."""
    view = obs.seats[seat]
    melds = view.melds
    turns = len(view.discards) + len(melds)
    if len(melds) >= len(READY_TABLE):
        ready = READY_MANY_MELDS
    else:
        row = READY_TABLE[len(melds)]
        ready = row[min(turns // 3, len(row) - 1)]
    suits = {m.tile // 9 for m in melds if 0 <= m.tile < 27}
    flush_suit = None
    if len(melds) >= 2 and len(suits) == 1:
        flush_suit = next(iter(suits))
    bonus = 2.0 if not melds else 0.0  # 门清
    if flush_suit is not None:
        bonus += 2.5
    return Threat(seat, ready, BASE_COST + bonus, flush_suit, frozenset(view.discards))


def threats(obs: Observation) -> list[Threat]:
    """The three opponents of ``obs.seat``."""
    return [read_threat(obs, s) for s in range(4) if s != obs.seat]


def wait_weight(kind: int, threat: Threat, unseen: int) -> float:
    """Chance that ``threat``'s wait includes ``kind`` if it is ready; ``unseen`` is the
    number of its copies neither in the own hand nor visible."""
    discarded = threat.discarded
    if kind >= 27:
        weight = HONOR_WAIT[max(0, min(unseen, 4))]
    else:
        rank = kind % 9
        weight = RANK_WAIT[min(rank, 8 - rank)]
        low = kind - 3 if rank >= 3 else None
        high = kind + 3 if rank <= 5 else None
        sides = [s for s in (low, high) if s is not None]
        hits = sum(1 for s in sides if s in discarded)
        if hits and hits == len(sides):
            weight *= SUJI
        elif hits:
            weight *= ONE_SIDE_SUJI
        if threat.flush_suit is not None:
            weight *= FLUSH_SUIT if kind // 9 == threat.flush_suit else OFF_FLUSH
    if kind in discarded:
        weight *= OWN_DISCARD
    return weight


def deal_in_cost(
    kind: int, opponents: Sequence[Threat], counts: Sequence[int], visible: Sequence[int]
) -> float:
    """Expected points lost by discarding ``kind``: sum over opponents of
    P(ready) x P(waits on it | ready) x cost."""
    unseen = 4 - counts[kind] - visible[kind]  # copies the others may hold
    total = 0.0
    for threat in opponents:
        total += threat.ready * wait_weight(kind, threat, unseen) * threat.cost
    return total
