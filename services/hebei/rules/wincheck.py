"""Fast "is this a winning hand?" test through precomputed per-suit tables (RULES.md §4).

Each suit (and the honors) of a concealed hand is looked up by the bytes of its
counts. The value packs three small fields that simply add up across the four
parts, so a whole check is four dict look-ups and a few integer operations:

* ``std``: 0 = the part splits into sets only, 1 = sets plus one pair,
  :data:`_BAD` = neither. A standard hand wins when the sum is exactly 1.
* ``odd``: how many kinds have an odd count (seven pairs need none; with
  ``seven_pairs_allow_quads`` four of a kind are two pairs, else a 4 is "odd").
* ``orphan``: 0 when the part is exactly what thirteen orphans needs, else 1.

A profile with a ``one_suit_minimum`` (§9 一色够八张) also wants that many tiles of one
suit in a standard hand, melds included: :meth:`WinChecker.wins` checks it, given the
melds. This module only answers yes/no; :mod:`hebei.rules.readings` enumerates every
reading of a winning hand for scoring.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations_with_replacement, product
from typing import TYPE_CHECKING

from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.tiles import DRAGONS, HONORS, N_KINDS, ORPHANS

if TYPE_CHECKING:
    from hebei.rules.melds import Meld

_BAD = 16
_ODD_SHIFT = 8
_ORPHAN_SHIFT = 16
_FIELD = 0xFF


def _suit_sets(suited: bool) -> list[tuple[int, ...]]:
    size = 9 if suited else 7
    out = []
    for r in range(size):
        v = [0] * size
        v[r] = 3
        out.append(tuple(v))
    if suited:
        for r in range(7):
            v = [0] * 9
            v[r] = v[r + 1] = v[r + 2] = 1
            out.append(tuple(v))
    return out


def _decomposable(suited: bool) -> tuple[set[bytes], set[bytes]]:
    """(keys made of sets only, keys made of sets plus one pair), at most 14 tiles."""
    size = 9 if suited else 7
    sets = _suit_sets(suited)
    only: set[bytes] = set()
    for n in range(5):
        for combo in combinations_with_replacement(sets, n):
            v = [sum(col) for col in zip(*combo, strict=True)] if combo else [0] * size
            if max(v) <= 4:
                only.add(bytes(v))
    with_pair: set[bytes] = set()
    for key in only:
        if sum(key) > 12:
            continue
        for r in range(size):
            if key[r] <= 2:
                v = bytearray(key)
                v[r] += 2
                with_pair.add(bytes(v))
    return only, with_pair


def _even_keys(size: int, quads_ok: bool) -> set[bytes]:
    """Keys whose every count is even (seven-pairs material)."""
    values = (0, 2, 4) if quads_ok else (0, 2)
    return {bytes(v) for v in product(values, repeat=size) if sum(v) <= 14}


# A key missing from a table is bad in every field.
_MISSING = _BAD | 1 << _ODD_SHIFT | 1 << _ORPHAN_SHIFT


def _build_tables(quads_ok: bool, dragon_only: bool) -> tuple[dict[bytes, int], dict[bytes, int]]:
    """Per-suit and honor tables; only the keys that are good in some field are stored."""

    def build(size: int, orphan_keys: set[bytes]) -> dict[bytes, int]:
        only, with_pair = _decomposable(size == 9)
        even = _even_keys(size, quads_ok)
        table = {}
        for key in only | with_pair | even | orphan_keys:
            std = 0 if key in only else 1 if key in with_pair else _BAD
            odd = 0 if key in even else 1
            orphan = 0 if key in orphan_keys else 1
            table[key] = std | odd << _ODD_SHIFT | orphan << _ORPHAN_SHIFT
        return table

    pair_kinds = DRAGONS if dragon_only else HONORS
    honor_orphans = {bytes(2 if 27 + i == pair else 1 for i in range(7)) for pair in pair_kinds}
    suit_orphans = {bytes((1, 0, 0, 0, 0, 0, 0, 0, 1))}
    return build(9, suit_orphans), build(7, honor_orphans)


def one_suit_ok(total: Sequence[int], minimum: int) -> bool:
    """一色够八张 (§9): at least ``minimum`` tiles of one suit in ``total`` (the 34 counts of
    the whole hand, melds included), or no suited tile at all (清风 needs no suit)."""
    if minimum <= 0:
        return True
    most = max(sum(total[0:9]), sum(total[9:18]), sum(total[18:27]))
    return most >= minimum or most == 0


class WinChecker:
    """The win tests of one rule profile, with its tables bound (see :func:`checker`)."""

    __slots__ = ("_honors", "_minimum", "_suit")

    def __init__(self, quads_ok: bool, dragon_only: bool, one_suit_minimum: int = 0) -> None:
        self._suit, self._honors = _build_tables(quads_ok, dragon_only)
        self._minimum = one_suit_minimum

    def packed(self, counts: Sequence[int]) -> int:
        suit = self._suit
        b = bytes(counts)
        return (
            suit.get(b[0:9], _MISSING)
            + suit.get(b[9:18], _MISSING)
            + suit.get(b[18:27], _MISSING)
            + self._honors.get(b[27:34], _MISSING)
        )

    def is_standard_win(self, counts: Sequence[int]) -> bool:
        return self.packed(counts) & _FIELD == 1

    def is_seven_pairs(self, counts: Sequence[int]) -> bool:
        return sum(counts) == 14 and (self.packed(counts) >> _ODD_SHIFT) & _FIELD == 0

    def is_thirteen_orphans(self, counts: Sequence[int]) -> bool:
        return sum(counts) == 14 and (self.packed(counts) >> _ORPHAN_SHIFT) & _FIELD == 0

    def may_be_ready(self, counts: Sequence[int], n_melds: int = 0) -> bool:
        """A cheap necessary condition for a 3n+1 hand to win with one more tile.

        False means no tile completes the hand; True means one might (check with
        :meth:`is_win`). Standard: at most one part fails to split and the pairs fit;
        seven pairs: at most one part holds an odd count; thirteen orphans: at most one
        part is off.
        """
        packed = self.packed(counts)
        std = packed & _FIELD
        bad, pairs = divmod(std, _BAD)
        if (bad == 0 and pairs == 2) or (bad == 1 and pairs <= 1):
            return True
        if n_melds:
            return False
        return (packed >> _ODD_SHIFT) & _FIELD <= 1 or (packed >> _ORPHAN_SHIFT) & _FIELD <= 1

    def is_win(self, counts: Sequence[int], n_melds: int = 0) -> bool:
        suit = self._suit
        b = bytes(counts)
        packed = (
            suit.get(b[0:9], _MISSING)
            + suit.get(b[9:18], _MISSING)
            + suit.get(b[18:27], _MISSING)
            + self._honors.get(b[27:34], _MISSING)
        )
        if packed & _FIELD == 1:
            return True
        if n_melds or sum(counts) != 14:
            return False
        return (packed >> _ODD_SHIFT) & _FIELD == 0 or (packed >> _ORPHAN_SHIFT) & _FIELD == 0

    def wins(self, counts: Sequence[int], melds: Sequence[Meld] = ()) -> bool:
        """Is the concealed part ``counts`` beside ``melds`` a legal win of the profile?

        :meth:`is_win` plus the profile's one-suit minimum on a standard hand (the seven
        pairs and thirteen orphans need none).
        """
        if not self._minimum:
            return self.is_win(counts, len(melds))
        if self.is_standard_win(counts):
            total = list(counts)
            for meld in melds:
                for k in meld.tiles:
                    total[k] += 1
            if one_suit_ok(total, self._minimum):
                return True
        if melds or sum(counts) != 14:
            return False
        return self.is_seven_pairs(counts) or self.is_thirteen_orphans(counts)


_CHECKERS: dict[tuple[bool, bool, int], WinChecker] = {}


def checker(profile: RuleProfile = MAIN) -> WinChecker:
    """The (cached) :class:`WinChecker` of ``profile``; tables are built on first use (~50 ms)."""
    key = (
        profile.seven_pairs_allow_quads,
        profile.thirteen_orphans_pair_must_be_dragon,
        profile.one_suit_minimum,
    )
    found = _CHECKERS.get(key)
    if found is None:
        found = _CHECKERS[key] = WinChecker(*key)
    return found


def is_standard_win(counts: Sequence[int], profile: RuleProfile = MAIN) -> bool:
    """Sets (pungs or chows) plus exactly one pair; melds already declared are not in ``counts``."""
    return checker(profile).is_standard_win(counts)


def is_seven_pairs(counts: Sequence[int], profile: RuleProfile = MAIN) -> bool:
    """Seven pairs (with the profile's view of four of a kind), fully concealed, 14 tiles."""
    return checker(profile).is_seven_pairs(counts)


def is_thirteen_orphans(counts: Sequence[int], profile: RuleProfile = MAIN) -> bool:
    """The thirteen orphans plus the extra tile the profile allows."""
    return checker(profile).is_thirteen_orphans(counts)


def is_win(counts: Sequence[int], n_melds: int = 0, profile: RuleProfile = MAIN) -> bool:
    """Does the concealed part ``counts`` (winning tile included) complete a legal hand?

    ``n_melds`` declared melds (pongs and kongs of any kind) stand beside it. With a
    meld, only the standard shape is possible: seven pairs and thirteen orphans are
    fully concealed, and a concealed kong breaks them too. This checks the shape only:
    with a profile's one-suit minimum (§9) use :func:`is_legal_win`, which sees the melds.
    """
    return checker(profile).is_win(counts, n_melds)


def is_legal_win(
    counts: Sequence[int], melds: Sequence[Meld] = (), profile: RuleProfile = MAIN
) -> bool:
    """The shape of :func:`is_win` and the profile's one-suit minimum, melds included."""
    return checker(profile).wins(counts, melds)


def _reach(kind: int) -> int:
    """The kinds (a bit each) whose added tile can join a held tile of ``kind`` in a set or
    a pair: ``kind`` itself and, if suited, the ranks next to it in its suit (a chow holding
    the added tile holds a tile next to it)."""
    if kind >= 27:
        return 1 << kind
    base = kind - kind % 9
    return sum(1 << k for k in range(max(base, kind - 1), min(base + 9, kind + 2)))


_REACH = tuple(_reach(k) for k in range(N_KINDS))
_ORPHAN_BITS = sum(1 << k for k in ORPHANS)


def _completing(counts: list[int], completes: Callable[[list[int]], bool]) -> list[int]:
    """Kinds whose one more copy ``completes`` the hand; ``counts`` is mutated and restored.

    Only kinds that can complete are tried: the added tile is in a set or the pair of the
    whole hand, so it is a kind held or next to one in its suit, or else a kind of the
    thirteen orphans (a 13-tile hand, fully concealed)."""
    near = _ORPHAN_BITS if sum(counts) == 13 else 0
    for k in range(N_KINDS):
        if counts[k]:
            near |= _REACH[k]
    waits = []
    for k in range(N_KINDS):
        if counts[k] >= 4 or not near >> k & 1:
            continue
        counts[k] += 1
        if completes(counts):
            waits.append(k)
        counts[k] -= 1
    return waits


def winning_tiles(counts: list[int], n_melds: int = 0, profile: RuleProfile = MAIN) -> list[int]:
    """Kinds that would complete the hand (the waits); ``counts`` is mutated and restored."""
    win = checker(profile).is_win
    return _completing(counts, lambda hand: win(hand, n_melds))


def legal_waits(
    counts: list[int], melds: Sequence[Meld] = (), profile: RuleProfile = MAIN
) -> list[int]:
    """Kinds that would complete a legal win of ``profile`` beside ``melds``: the waits of
    :func:`winning_tiles` that also meet the profile's one-suit minimum (§9 一色够八张), so a
    hand that cannot reach it has none. ``counts`` is mutated and restored."""
    wins = checker(profile).wins
    return _completing(counts, lambda hand: wins(hand, melds))


def is_ready(counts: list[int], melds: Sequence[Meld] = (), profile: RuleProfile = MAIN) -> bool:
    """Is the 3n+1 hand ready (听) in ``profile``: does some tile complete a legal win?"""
    return bool(legal_waits(counts, melds, profile))


def warm_up(profile: RuleProfile = MAIN) -> None:
    """Build the tables now instead of on the first check."""
    checker(profile)
