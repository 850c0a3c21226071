"""Defence: what each discard is expected to cost in points, from the reading of the opponents.

    danger(kind) = sum over opponents of P(ready) x P(waits on kind | ready) x cost of its win

P(ready) comes from :mod:`hebei.bots.policies.reading`; P(waits on kind | ready) is a
logistic regression fitted on efficiency self-play (seeds 61·1,000,003 + 0..399: 176,000
ready-opponent × held-tile rows, AUC 0.67 on held-out data; over all opponents together the
danger ranks a deal-in tile above a safe one 88% of the time). What it reads, per tile:

- tiles the opponent threw itself: nearly never its wait (0.25% measured) — no furiten
  here, but a ready player keeps its waits;
- how many of the opponent's turns ago the tile last went by unclaimed: one turn ago it is a
  wait 1-2% of the time, never-seen tiles 9%;
- the kind: honors and terminals sit in fewer waiting shapes than middle tiles; an honor with
  at most one copy unseen can only be a single wait;
- its suji (k±3) and neighbours among the opponent's discards, the neighbours already
  visible, the share of its discards in the tile's suit, and its melds (a suit it melds is
  a suit it collects).

The cost of a win is its base payment (RULES.md §5: 8 to a dealer, 6 from a dealer, else 5)
plus the bonus it likely carries: 门清 for a concealed opponent, a flush for melds of one suit.
The measured exchange rate in self-play forks is about one point of expected deal-in per
point of expected speed (see :mod:`hebei.bots.policies.speed`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from math import exp

from hebei.bots.policies.reading import OpponentRead, TableRead, sigmoid, suit_of_kind

OWN_DISCARD_WAIT = 0.0025  # P(waits on a kind it threw itself | ready), measured
# The wait model: intercept, then weights by name (see _wait_logit).
W = {
    "bias": -1.729,
    "age0": -0.797,
    "age1": -0.674,
    "age2": -0.578,
    "age3": -0.368,
    "age45": -0.276,
    "age6": -0.046,
    "honor": -1.163,
    "honor_last": -0.526,  # an honor with at most one copy unseen
    "honor_two": -0.348,  # ... with two
    "rank19": -0.699,
    "rank28": -0.257,
    "rank37": 0.158,
    "rank46": 0.017,
    "unseen0": -0.307,
    "unseen1": -0.036,
    "unseen2": -0.103,
    "unseen3": -0.119,
    "suji": -0.542,
    "near1": -0.196,  # k±1 thrown by the opponent
    "near2": -0.313,  # k±2 thrown by the opponent
    "seen_near1": -0.341,  # copies of k±1 seen (own hand and table), per 8
    "seen_near2": 0.101,
    "suit_share": -0.498,
    "meld_suit": -0.144,
    "meld_other": 0.081,
}
RANK_KEYS = ("rank19", "rank28", "rank37", "rank46", None)
UNSEEN_KEYS = ("unseen0", "unseen1", "unseen2", "unseen3", None)
# Points a discard win of an opponent costs: base (RULES.md §5) and a likely bonus.
BASE_FROM_DEALER, BASE_TO_DEALER, BASE_OTHER = 6.0, 8.0, 5.0
CONCEALED_BONUS = 2.3  # 门清 and the rare extras, measured on concealed winners
OPEN_BONUS = 0.5
FLUSH_BONUS = 2.5  # two or more melds, all of one suit: 混一色/清一色 likely


def _age_weight(age: int | None) -> float:
    if age is None:
        return 0.0
    if age <= 3:
        return W[("age0", "age1", "age2", "age3")[age]]
    return W["age45"] if age <= 5 else W["age6"]


def _wait_logit(
    kind: int, opp: OpponentRead, unseen: Sequence[int], age: int | None, seen: Sequence[int]
) -> float:
    x = W["bias"] + _age_weight(age)
    suit = suit_of_kind(kind)
    x += W["suit_share"] * opp.suit_share[suit]
    x += W["meld_suit"] * opp.meld_suits[suit]
    x += W["meld_other"] * (sum(opp.meld_suits) - opp.meld_suits[suit])
    left = unseen[kind]
    if suit == 3:
        x += W["honor"]
        if left <= 1:
            x += W["honor_last"]
        elif left == 2:
            x += W["honor_two"]
        return x
    rank = kind % 9
    key = RANK_KEYS[min(rank, 8 - rank)]
    if key:
        x += W[key]
    key = UNSEEN_KEYS[min(left, 4)]
    if key:
        x += W[key]
    thrown = opp.discards
    lo, hi = suit * 9, suit * 9 + 9
    sides = [s for s in (kind - 3, kind + 3) if lo <= s < hi]
    hits = sum(1 for s in sides if s in thrown)
    if hits:
        x += W["suji"] * (1.0 if hits == len(sides) else 0.5)
    near1 = [s for s in (kind - 1, kind + 1) if lo <= s < hi]
    near2 = [s for s in (kind - 2, kind + 2) if lo <= s < hi]
    x += W["near1"] * sum(1 for s in near1 if s in thrown)
    x += W["near2"] * sum(1 for s in near2 if s in thrown)
    x += W["seen_near1"] * sum(seen[s] for s in near1) / 8
    x += W["seen_near2"] * sum(seen[s] for s in near2) / 8
    return x


def wait_probability(
    kind: int, opp: OpponentRead, unseen: Sequence[int], age: int | None, seen: Sequence[int]
) -> float:
    """P(``opp`` waits on ``kind`` | it is ready). ``unseen[k]``: copies neither in the own
    hand nor visible; ``seen[k] = 4 - unseen[k]``; ``age``: see :meth:`TableRead.passed_by`."""
    if kind in opp.discards:
        return OWN_DISCARD_WAIT
    return sigmoid(_wait_logit(kind, opp, unseen, age, seen))


def win_cost(opp: OpponentRead, own_dealer: bool) -> float:
    """Points the observing seat pays when it deals into ``opp``'s win."""
    if opp.dealer:
        base = BASE_TO_DEALER
    elif own_dealer:
        base = BASE_FROM_DEALER
    else:
        base = BASE_OTHER
    bonus = CONCEALED_BONUS if opp.concealed else OPEN_BONUS
    suited = opp.meld_suits[:3]
    if sum(opp.meld_suits) >= 2 and max(suited) == sum(opp.meld_suits):
        bonus += FLUSH_BONUS
    return base + bonus


@dataclass(frozen=True, slots=True)
class Threat:
    """One opponent's part of a discard's danger."""

    seat: int
    ready: float
    wait: float  # P(waits on the tile | ready)
    cost: float  # points of its win

    @property
    def expected(self) -> float:
        return self.ready * self.wait * self.cost


# Per kind, what the wait model reads of it, fixed once (see _wait_logit): its suit, the
# weight of its rank class (None for a 5 or an honor), and its suji, k±1 and k±2 neighbours
# inside the suit.
_SUIT = tuple(suit_of_kind(k) for k in range(34))


def _rank_weight(kind: int) -> float | None:
    if kind >= 27:
        return None
    key = RANK_KEYS[min(kind % 9, 8 - kind % 9)]
    return None if key is None else W[key]


_RANK_W = tuple(_rank_weight(k) for k in range(34))


def _inside(kind: int, offsets: tuple[int, int]) -> tuple[int, ...]:
    if kind >= 27:
        return ()
    lo = kind // 9 * 9
    return tuple(kind + d for d in offsets if lo <= kind + d < lo + 9)


_SIDES = tuple(_inside(k, (-3, 3)) for k in range(34))
_NEAR1 = tuple(_inside(k, (-1, 1)) for k in range(34))
_NEAR2 = tuple(_inside(k, (-2, 2)) for k in range(34))
_UNSEEN_W = tuple(None if key is None else W[key] for key in UNSEEN_KEYS)
_AGE_W = (W["age0"], W["age1"], W["age2"], W["age3"], W["age45"], W["age45"], W["age6"])
_BIAS = W["bias"]
_W_HONOR, _W_HONOR_LAST, _W_HONOR_TWO = W["honor"], W["honor_last"], W["honor_two"]
_W_SUJI, _W_NEAR1, _W_NEAR2 = W["suji"], W["near1"], W["near2"]
_W_SEEN1, _W_SEEN2 = W["seen_near1"], W["seen_near2"]


_W_SUIT_SHARE, _W_MELD_SUIT, _W_MELD_OTHER = W["suit_share"], W["meld_suit"], W["meld_other"]
_OTHERS = tuple(tuple(s for s in range(4) if s != seat) for seat in range(4))


class _Opponent:
    """One opponent's figures as :meth:`DangerMap.cost` reads them (see _wait_logit)."""

    __slots__ = (
        "cost",
        "discards",
        "meld_suits",
        "ready",
        "rows",
        "suit_share",
        "terms",
        "times",
    )

    def __init__(
        self, opp: OpponentRead, cost: float, rows: tuple[Sequence[int | None], ...]
    ) -> None:
        self.discards = opp.discards
        self.ready = opp.ready
        self.cost = cost
        self.times = opp.times
        self.rows = rows  # TableRead.last_seen of the other seats, in seat order
        self.suit_share = opp.suit_share
        self.meld_suits = opp.meld_suits
        self.terms: list[tuple[float, float, float] | None] = [None, None, None, None]

    def suit_terms(self, suit: int) -> tuple[float, float, float]:
        """The three suit terms of _wait_logit, each as it is computed there."""
        terms = self.terms[suit]
        if terms is None:
            melds = self.meld_suits
            terms = self.terms[suit] = (
                _W_SUIT_SHARE * self.suit_share[suit],
                _W_MELD_SUIT * melds[suit],
                _W_MELD_OTHER * (sum(melds) - melds[suit]),
            )
        return terms


class DangerMap:
    """The expected deal-in cost of every kind for the observing seat (memoised per kind)."""

    def __init__(
        self, table: TableRead, counts: Sequence[int], visible: Sequence[int], dealer: bool
    ):
        self.table = table
        self.unseen = [
            u if (u := 4 - c - v) > 0 else 0 for c, v in zip(counts, visible, strict=True)
        ]
        self.seen = [4 - u for u in self.unseen]
        self.costs = [win_cost(opp, dealer) for opp in table.opponents]
        self._memo: dict[int, float] = {}
        last_seen = table.last_seen
        self._opponents = tuple(
            _Opponent(opp, cost, tuple(last_seen[seat] for seat in _OTHERS[opp.seat]))
            for opp, cost in zip(table.opponents, self.costs, strict=True)
        )

    def threats(self, kind: int) -> list[Threat]:
        """Each opponent's chance to be ready, to wait on ``kind``, and its cost."""
        out = []
        for opp, cost in zip(self.table.opponents, self.costs, strict=True):
            age = self.table.passed_by(opp, kind)
            wait = wait_probability(kind, opp, self.unseen, age, self.seen)
            out.append(Threat(opp.seat, opp.ready, wait, cost))
        return out

    def cost(self, kind: int) -> float:
        """Expected points lost by discarding ``kind`` now."""
        value = self._memo.get(kind)
        if value is None:
            value = self._memo[kind] = self._cost(kind)
        return value

    def _cost(self, kind: int) -> float:
        """``sum(t.expected for t in self.threats(kind))``, the same floats in the same
        order, without building the threats: the wait model's kind-only parts are tables,
        each opponent's suit terms are computed once per map and the suited part of
        :func:`_wait_logit` is inline."""
        suit = _SUIT[kind]
        left = self.unseen[kind]
        honor = suit == 3
        if not honor:
            rank_w = _RANK_W[kind]
            unseen_w = _UNSEEN_W[left if left < 4 else 4]
            sides, near1, near2 = _SIDES[kind], _NEAR1[kind], _NEAR2[kind]
            seen = self.seen
            s1 = 0
            for k in near1:
                s1 += seen[k]
            s2 = 0
            for k in near2:
                s2 += seen[k]
            seen1_term = _W_SEEN1 * s1 / 8  # the same for every opponent
            seen2_term = _W_SEEN2 * s2 / 8
        total = 0.0
        for opp in self._opponents:
            thrown = opp.discards
            if kind in thrown:
                wait = OWN_DISCARD_WAIT
            else:
                # TableRead.passed_by and OpponentRead.turns_since
                when = None
                for row in opp.rows:
                    t = row[kind]
                    if t is not None and (when is None or t > when):
                        when = t
                if when is not None:
                    times = opp.times  # ascending: its discards after ``when`` are the last ones
                    age = len(times) - bisect_right(times, when)
                    x = _BIAS + _AGE_W[age if age < 6 else 6]
                else:
                    x = _BIAS + 0.0
                a, b, c = opp.terms[suit] or opp.suit_terms(suit)
                x += a
                x += b
                x += c
                if honor:
                    x += _W_HONOR
                    if left <= 1:
                        x += _W_HONOR_LAST
                    elif left == 2:
                        x += _W_HONOR_TWO
                else:
                    if rank_w is not None:
                        x += rank_w
                    if unseen_w is not None:
                        x += unseen_w
                    hits = 0
                    for k in sides:
                        if k in thrown:
                            hits += 1
                    if hits:
                        x += _W_SUJI * (1.0 if hits == len(sides) else 0.5)
                    n1 = 0
                    for k in near1:
                        if k in thrown:
                            n1 += 1
                    n2 = 0
                    for k in near2:
                        if k in thrown:
                            n2 += 1
                    x += _W_NEAR1 * n1
                    x += _W_NEAR2 * n2
                    x += seen1_term
                    x += seen2_term
                if x >= 0:  # sigmoid(x), inline
                    wait = 1.0 / (1.0 + exp(-x))
                else:
                    e = exp(x)
                    wait = e / (1.0 + e)
            total += opp.ready * wait * opp.cost
        return total

    def most_likely_ready(self) -> tuple[int, float]:
        """``(seat, P(ready))`` of the opponent most likely ready."""
        opp = max(self.table.opponents, key=lambda o: (o.ready, -o.seat))
        return opp.seat, opp.ready
