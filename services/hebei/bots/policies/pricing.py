"""Pricing a hand in points: its shape (speed) and, when asked, its value.

A :class:`Holding` is the own hand as the expert reasons about it (concealed counts and
declared melds), with the moves that change it; :class:`ShapePricer` prices a holding of
3n+1 tiles from its shanten and useful tiles (:mod:`hebei.bots.policies.speed`) and the
points of the wins it is on course for (:mod:`hebei.bots.policies.value`,
:mod:`hebei.bots.policies.waits`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hebei.bots.policies.speed import shape_value, win_probability
from hebei.bots.policies.value import extra_points, route_bonus, win_points
from hebei.bots.policies.waits import ready_discards, weighted_waits
from hebei.rules.actions import Action, ActionKind
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.shanten import ukeire


@dataclass(frozen=True, slots=True)
class Holding:
    """The own hand: concealed tile counts and declared melds."""

    counts: tuple[int, ...]
    melds: tuple[Meld, ...]

    @property
    def n_melds(self) -> int:
        return len(self.melds)

    @property
    def concealed(self) -> bool:
        """No open meld: 门清 still possible."""
        melds = self.melds
        return not melds or all(m.kind is MeldKind.CONCEALED_KONG for m in melds)

    def unseen(self, visible: Sequence[int]) -> list[int]:
        """Copies of each kind neither held nor visible."""
        return [u if (u := 4 - c - v) > 0 else 0 for c, v in zip(self.counts, visible, strict=True)]

    def without(self, kind: int, copies: int = 1) -> Holding:
        out = list(self.counts)
        out[kind] -= copies
        return _holding(tuple(out), self.melds)

    def after_pong(self, tile: int) -> Holding:
        """After ponging ``tile`` (before the discard that follows)."""
        return Holding(self.without(tile, 2).counts, (*self.melds, Meld(MeldKind.PONG, tile)))

    def after_kong(self, action: Action) -> Holding:
        """After a concealed, added or exposed kong (before its replacement draw)."""
        tile = action.tile
        if action.kind is ActionKind.CONCEALED_KONG:
            return Holding(
                self.without(tile, 4).counts, (*self.melds, Meld(MeldKind.CONCEALED_KONG, tile))
            )
        if action.kind is ActionKind.ADDED_KONG:
            melds = tuple(
                Meld(MeldKind.ADDED_KONG, m.tile, m.from_seat)
                if m.kind is MeldKind.PONG and m.tile == tile
                else m
                for m in self.melds
            )
            return Holding(self.without(tile, 1).counts, melds)
        return Holding(
            self.without(tile, 3).counts, (*self.melds, Meld(MeldKind.EXPOSED_KONG, tile))
        )


# Frozen instances built through their slots' setters: the same objects without the generated
# __init__'s object.__setattr__ per field (the expert builds ten of each a decision).
_new = object.__new__
_set_counts, _set_melds = Holding.counts.__set__, Holding.melds.__set__


def _holding(counts: tuple[int, ...], melds: tuple[Meld, ...]) -> Holding:
    """``Holding(counts, melds)``."""
    h = _new(Holding)
    _set_counts(h, counts)
    _set_melds(h, melds)
    return h


@dataclass(frozen=True, slots=True)
class Priced:
    """A 3n+1 hand as priced: its value, figures, win chance and the points of its win."""

    value: float
    shanten: int
    useful: tuple[tuple[int, int], ...]
    win_chance: float
    points: float


_set_value, _set_shanten, _set_useful = (
    Priced.value.__set__,
    Priced.shanten.__set__,
    Priced.useful.__set__,
)
_set_chance, _set_points = Priced.win_chance.__set__, Priced.points.__set__


def _priced(
    value: float, shanten: int, useful: tuple[tuple[int, int], ...], chance: float, points: float
) -> Priced:
    """``Priced(value, shanten, useful, chance, points)``."""
    p = _new(Priced)
    _set_value(p, value)
    _set_shanten(p, shanten)
    _set_useful(p, useful)
    _set_chance(p, chance)
    _set_points(p, points)
    return p


class ShapePricer:
    """Prices a holding of 3n+1 tiles by shape, and by value when ``value`` is set."""

    def __init__(self, value: bool, pong_weight: float = 1.0) -> None:
        self.value = value
        self.pong_weight = pong_weight

    def price(
        self,
        holding: Holding,
        shanten: int,
        useful: Sequence[tuple[int, int]],
        unseen: Sequence[int],
        wall: int,
        dealer: bool,
    ) -> Priced:
        """``useful``: the kinds that improve it, with their copies unseen (``ukeire``);
        ``unseen``: every kind's copies unseen."""
        concealed = holding.concealed
        open_hand = not concealed
        if shanten == 0:
            waits = [kind for kind, _ in useful]  # a ready hand's ukeire: its live waits
            live, points = weighted_waits(
                list(holding.counts), holding.n_melds, holding.melds, unseen, dealer, waits
            )
            if not self.value:
                points = win_points(0.0, dealer)
            base = shape_value(0, live, wall)
            chance = win_probability(0, live, wall, open_hand, dealer)
        else:
            if self.pong_weight != 1.0:
                total = claimable_useful(holding.counts, useful, shanten, self.pong_weight)
            else:
                total = 0
                for _, n in useful:
                    total += n
            base = shape_value(shanten, total, wall)
            chance = win_probability(shanten, total, wall, open_hand, dealer)
            bonus = 0.0
            if self.value:
                bonus = route_bonus(
                    holding.counts, len(holding.melds), holding.melds, shanten, concealed
                )
            points = win_points(bonus, dealer)
        value = base + chance * extra_points(points, dealer) if self.value else base
        return _priced(value, shanten, tuple(useful), chance, points)

    def price_held(
        self, holding: Holding, visible: Sequence[int], wall: int, dealer: bool
    ) -> Priced:
        """Price a holding whose shanten and useful tiles are not known yet."""
        result = ukeire(list(holding.counts), holding.n_melds, visible)
        return self.price(
            holding, result.shanten, result.tiles, holding.unseen(visible), wall, dealer
        )

    def price_ready_hands(
        self,
        holding: Holding,
        useful: Sequence[tuple[int, int]],
        unseen: list[int],
        wall: int,
        dealer: bool,
        throw_cost: Callable[[int], float] | None = None,
    ) -> tuple[float, float] | None:
        """For a 3n+1 ``holding`` one step from ready whose improving draws are ``useful``
        (kind, copies unseen): ``(chance to get ready, mean value of the ready hand it gets
        to)``, over its draws by their copies; after each draw the best ready hand its
        discards leave (its waits and their points, priced as :meth:`price` does, less
        ``throw_cost`` of the tile thrown to get there). None when no draw gets it ready.
        ``unseen`` is changed and restored."""
        counts = list(holding.counts)
        melds = holding.melds
        n_melds = len(melds)
        price = self.price
        weight = 0
        total = 0.0
        for kind, copies in useful:
            if copies <= 0:
                continue
            counts[kind] += 1
            unseen[kind] -= 1
            best = None
            for thrown, waits in ready_discards(counts, n_melds):
                live = [(w, unseen[w]) for w in waits]
                value = price(_holding(tuple(counts), melds), 0, live, unseen, wall, dealer).value
                if throw_cost is not None:
                    value -= throw_cost(thrown)
                if best is None or value > best:
                    best = value
            counts[kind] -= 1
            unseen[kind] += 1
            if best is not None:
                weight += copies
                total += copies * best
        if not weight:
            return None
        return reach_chance(weight, sum(unseen), wall), total / weight


# By shanten 1, 2, 3+ (index 0 unused): exp(mean(log(1 + weighted) - log(1 + plain))) of the
# useful copies, k = 3, over efficiency self-play's discards (the shape value's fit is in
# log(1 + useful)): dividing by it puts the weighted count on the scale the fit saw.
CLAIMABLE_NORM = (1.0, 1.19, 1.18, 1.11)


def claimable_useful(
    counts: Sequence[int], useful: Sequence[tuple[int, int]], shanten: int, k: float
) -> float:
    """The useful copies with those of a held pair's kind (which any seat's discard brings,
    by a pong) counted ``k`` times, on the scale of plain counts."""
    total = 0.0
    for kind, n in useful:
        total += k * n if counts[kind] == 2 else n
    return total / CLAIMABLE_NORM[min(shanten, 3)]


def reach_chance(useful: int, unseen: int, wall: int) -> float:
    """Chance that a hand one step from ready gets there before the wall ends: each of its
    own draws left (a quarter of the live wall) brings one of its ``useful`` copies with
    their share of the ``unseen`` tiles."""
    draws = max(1.0, wall / 4)
    return 1.0 - (1.0 - min(1.0, useful / max(1, unseen))) ** draws
