"""Every reading (decomposition) of a winning hand (RULES.md §4).

A *reading* splits the whole hand into groups: the concealed tiles into sets and a
pair (standard), seven pairs, or the thirteen orphans, plus the declared melds as
they stand. It also records which concealed group holds the winning tile, since a
fan such as 捉五 (5m as the middle of 4m5m6m) or 大吊车 (the win completes the pair)
depends on where the winning tile sits. A hand of ``112233m`` read as two chows
``123m 123m`` has one placement of the winning tile ``2m``; ``456m 55m`` with the
winning tile ``5m`` has two (in the chow or in the pair).

:func:`readings` is exact but not fast; :func:`hebei.rules.wincheck.is_legal_win` is the
fast yes/no. They agree: a hand has a reading exactly when ``is_legal_win`` says so
(a profile's one-suit minimum, §9, removes the standard readings that lack it).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.tiles import DRAGONS, HONORS, N_KINDS, ORPHANS, format_tiles
from hebei.rules.wincheck import one_suit_ok


class Shape(enum.Enum):
    """The three legal winning shapes of §4."""

    STANDARD = "standard"  # four sets + a pair
    SEVEN_PAIRS = "seven_pairs"  # 七对
    THIRTEEN_ORPHANS = "thirteen_orphans"  # 十三幺


class GroupKind(enum.Enum):
    PAIR = "pair"
    CHOW = "chow"  # concealed, or a declared chow (§9 only)
    PUNG = "pung"
    KONG = "kong"  # only as a declared meld
    SINGLE = "single"  # a lone orphan of 十三幺


_SIZES = {
    GroupKind.SINGLE: 1,
    GroupKind.PAIR: 2,
    GroupKind.CHOW: 3,
    GroupKind.PUNG: 3,
    GroupKind.KONG: 4,
}

_SORT_RANK = {kind: rank for rank, kind in enumerate(_SIZES)}


@dataclass(frozen=True, slots=True)
class Group:
    """One group of a reading: ``tile`` is its lowest tile; ``meld`` is set for declared melds."""

    tile: int
    kind: GroupKind
    meld: MeldKind | None = None

    @property
    def tiles(self) -> tuple[int, ...]:
        if self.kind is GroupKind.CHOW:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * _SIZES[self.kind]

    @property
    def is_set(self) -> bool:
        """Chow, pung or kong: one of the four sets of a standard hand."""
        return self.kind in (GroupKind.CHOW, GroupKind.PUNG, GroupKind.KONG)

    @property
    def is_triplet(self) -> bool:
        """Pung or kong (碰碰胡 wants four of these)."""
        return self.kind in (GroupKind.PUNG, GroupKind.KONG)

    def __str__(self) -> str:
        text = format_tiles(self.tiles)
        if self.meld is None:
            return text
        return f"({text})" if self.meld is MeldKind.CONCEALED_KONG else f"[{text}]"

    @classmethod
    def from_meld(cls, meld: Meld) -> Group:
        if meld.kind is MeldKind.CHOW:
            return cls(meld.tile, GroupKind.CHOW, meld.kind)
        kind = GroupKind.KONG if meld.is_kong else GroupKind.PUNG
        return cls(meld.tile, kind, meld.kind)

    # Sort by lowest tile, then pair before chow before pung (``11s 123s 111p``).
    def _key(self) -> tuple[int, int, str]:
        return (self.tile, _SORT_RANK[self.kind], self.meld.value if self.meld else "")

    def __lt__(self, other: Group) -> bool:
        return self._key() < other._key()


@dataclass(frozen=True, slots=True)
class Reading:
    """One way to read a winning hand.

    ``groups`` lists the concealed groups (sorted), then the declared melds in the
    order they were given; ``win_group`` indexes the concealed group holding the
    winning tile. ``counts`` are the 34 counts of every tile of the hand, melds
    included (a kong counts four), for the fans that look at the whole hand.
    """

    shape: Shape
    groups: tuple[Group, ...]
    win_group: int
    win_tile: int
    counts: tuple[int, ...]

    @property
    def winning_group(self) -> Group:
        return self.groups[self.win_group]

    @property
    def concealed_groups(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.meld is None)

    @property
    def declared(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.meld is not None)

    @property
    def chows(self) -> tuple[int, ...]:
        """Lowest tiles of the chows, concealed or declared, sorted."""
        return tuple(sorted(g.tile for g in self.groups if g.kind is GroupKind.CHOW))

    def __str__(self) -> str:
        return " ".join(str(g) for g in self.groups)


def _standard_splits(
    counts: list[int], start: int, have_pair: bool
) -> Iterator[list[tuple[GroupKind, int]]]:
    """Every multiset of (kind, tile) sets plus exactly one pair covering ``counts[start:]``.

    At the lowest remaining kind ``k`` every group holding ``k`` starts at ``k``, so
    choosing how many pairs, pungs and chows start there (and nothing else) visits
    each multiset exactly once. ``counts`` is mutated and restored.
    """
    k = start
    while k < N_KINDS and counts[k] == 0:
        k += 1
    if k == N_KINDS:
        if have_pair:
            yield []
        return
    c = counts[k]
    chow_ok = k < 27 and k % 9 <= 6
    for pairs in (0,) if have_pair else (0, 1):
        for pungs in range((c - 2 * pairs) // 3 + 1):
            chows = c - 2 * pairs - 3 * pungs
            if chows and not (chow_ok and counts[k + 1] >= chows and counts[k + 2] >= chows):
                continue
            counts[k] = 0
            if chows:
                counts[k + 1] -= chows
                counts[k + 2] -= chows
            here = (
                [(GroupKind.PAIR, k)] * pairs
                + [(GroupKind.PUNG, k)] * pungs
                + [(GroupKind.CHOW, k)] * chows
            )
            for rest in _standard_splits(counts, k + 1, have_pair or pairs == 1):
                yield here + rest
            if chows:
                counts[k + 1] += chows
                counts[k + 2] += chows
            counts[k] = c


def _seven_pairs(counts: Sequence[int], profile: RuleProfile) -> list[Group] | None:
    allowed = (0, 2, 4) if profile.seven_pairs_allow_quads else (0, 2)
    if sum(counts) != 14 or any(c not in allowed for c in counts):
        return None
    return [Group(k, GroupKind.PAIR) for k in range(N_KINDS) for _ in range(counts[k] // 2)]


def _thirteen_orphans(counts: Sequence[int], profile: RuleProfile) -> list[Group] | None:
    if sum(counts) != 14 or any(counts[k] == 0 for k in ORPHANS):
        return None
    if sum(counts[k] for k in ORPHANS) != 14:
        return None
    pair_kinds = DRAGONS if profile.thirteen_orphans_pair_must_be_dragon else HONORS
    pair = next(k for k in ORPHANS if counts[k] == 2)
    if pair not in pair_kinds:
        return None
    return sorted(Group(k, GroupKind.PAIR if k == pair else GroupKind.SINGLE) for k in ORPHANS)


def _placements(
    shape: Shape,
    concealed: list[Group],
    declared: tuple[Group, ...],
    win_tile: int,
    counts: tuple[int, ...],
) -> Iterator[Reading]:
    """One reading per distinct concealed group that can hold the winning tile."""
    concealed.sort()
    groups = tuple(concealed) + declared
    seen: set[Group] = set()
    for i, group in enumerate(concealed):
        if win_tile in group.tiles and group not in seen:
            seen.add(group)
            yield Reading(shape, groups, i, win_tile, counts)


def readings(
    concealed: Sequence[int],
    melds: Sequence[Meld] = (),
    win_tile: int | None = None,
    profile: RuleProfile = MAIN,
) -> list[Reading]:
    """Every reading of the hand: ``concealed`` counts (winning tile included) beside ``melds``.

    Empty when the hand is not a win. ``win_tile`` must be among the concealed tiles;
    when it is ``None`` the lowest concealed tile stands in (for win detection only).
    Like :func:`hebei.rules.wincheck.is_win`, this does not check the tile count.
    """
    hand = list(concealed)
    if win_tile is None:
        win_tile = next((k for k in range(N_KINDS) if hand[k]), 0)
    if not hand[win_tile]:
        return []
    declared = tuple(Group.from_meld(m) for m in melds)
    counts = list(hand)
    for m in melds:
        for k in m.tiles:
            counts[k] += 1
    total = tuple(counts)
    out: list[Reading] = []
    if one_suit_ok(total, profile.one_suit_minimum):
        for split in _standard_splits(hand, 0, False):
            groups = [Group(tile, kind) for kind, tile in split]
            out.extend(_placements(Shape.STANDARD, groups, declared, win_tile, total))
    if not melds:
        pairs = _seven_pairs(hand, profile)
        if pairs is not None:
            out.extend(_placements(Shape.SEVEN_PAIRS, pairs, (), win_tile, total))
        orphans = _thirteen_orphans(hand, profile)
        if orphans is not None:
            out.extend(_placements(Shape.THIRTEEN_ORPHANS, orphans, (), win_tile, total))
    return out
