"""Shanten and ukeire for the Hebei forms (RULES.md §4), through per-suit tables.

**Definition.** The shanten of a hand is the least number of tiles that must be
exchanged to reach a complete hand, minus one: ``-1`` is complete (3n+2 tiles),
``0`` is ready (tenpai) and so on. Formally, over every complete target hand
``T`` with at most four copies of a kind, ``shanten = min |T - H| - 1`` where
``T - H`` is the multiset difference. It works for 3n+1 and 3n+2 tiles alike and
is exact, including the cases where a wait would need a fifth copy.

Three forms count (RULES.md §4):

* standard: ``tiles // 3`` sets (pung or chow) plus any pair; the ``n_melds``
  declared melds stand beside the concealed part and are already sets;
* seven pairs: fully concealed; four of a kind are two pairs when
  :attr:`RuleProfile.seven_pairs_allow_quads`;
* thirteen orphans: fully concealed; the extra tile must be a dragon when
  :attr:`RuleProfile.thirteen_orphans_pair_must_be_dragon`.

**How it is fast.** Each suit (and the honors) is looked up by the bytes of its
counts. Its entry holds the id of an interned *cost vector* ``cost[m][p]``: the
least tiles to add so that this suit holds ``m`` sets and ``p`` pairs (m <= 4,
p <= 1), and a packed int of small counters (tiles, pairs, singles, quads,
triples, orphans) that simply add up across the four parts. Two vectors combine
by min-plus convolution, memoised per pair of ids, so a warm call is four entry
look-ups, two pair look-ups, one final look-up and one look-up of the packed
counters for seven pairs and thirteen orphans. Entries are computed lazily the
first time a suit pattern is seen (tens of microseconds each, once per process);
:func:`warm_up` builds the small fixed part in advance.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import count, product
from typing import TYPE_CHECKING, NamedTuple

from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.tiles import DRAGONS, N_KINDS, ORPHANS, TILE_NAMES

if TYPE_CHECKING:
    from hebei.rules.melds import Meld

_M = 5  # 0..4 sets
_P = 2  # 0..1 pairs
_LEN = _M * _P  # vector index m * 2 + p
_INF = 1000
_ID_SHIFT = 20  # memo keys pack two vector ids as a << 20 | b

# Packed counters of a part; every field is a sum over the kinds of the part.
_F_TILES = 0  # tiles in the part (8 bits: up to 4 * 34)
_F_PAIRS = 8  # kinds with >= 2 copies: first pair slot worth 2
_F_SINGLES = 14  # kinds with exactly 1 copy: first pair slot worth 1
_F_QUADS = 20  # kinds with 4 copies: second pair slot worth 2
_F_TRIPLES = 26  # kinds with 3 copies: second pair slot worth 1
_F_ORPHANS = 32  # distinct thirteen-orphans kinds held
_F_DRAGON_PAIR = 38  # dragons with >= 2 copies
_F_OTHER_ORPHAN_PAIR = 44  # terminals and winds with >= 2 copies
_F6 = 0x3F


# --------------------------------------------------------------------------- vectors

# Every memo below holds pure functions of its key, so threads may fill them at
# once: a race only computes a value twice. Ids come from an atomic counter and
# setdefault, so two threads interning the same vector agree on its id.
_vectors: dict[int, tuple[int, ...]] = {}
_vector_ids: dict[tuple[int, ...], int] = {}
_next_id = count()


def _intern(vec: tuple[int, ...]) -> int:
    vid = _vector_ids.get(vec)
    if vid is None:
        new = next(_next_id)
        if new >> _ID_SHIFT:  # a few hundred exist; a million would be a bug
            raise RuntimeError("too many distinct shanten cost vectors")
        _vectors[new] = vec
        vid = _vector_ids.setdefault(vec, new)
    return vid


# (i, j, k): a[i] + b[j] lands in out[k]; the pairs with m1 + m2 <= 4, p1 + p2 <= 1.
_TRIPLES = tuple(
    (i, j, (i // _P + j // _P) * _P + i % _P + j % _P)
    for i in range(_LEN)
    for j in range(_LEN)
    if i // _P + j // _P < _M and i % _P + j % _P < _P
)
# The same for the final step, which only needs p = 1: (i, j, m).
_FINAL_TRIPLES = tuple((i, j, k // _P) for i, j, k in _TRIPLES if k % _P == 1)


def _convolve(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """Min-plus convolution over (sets, pairs): ``out[m][p] = min a[m1][p1] + b[m2][p2]``."""
    out = [_INF] * _LEN
    for i, j, k in _TRIPLES:
        v = a[i] + b[j]
        if v < out[k]:
            out[k] = v
    return tuple(min(v, _INF) for v in out)


def _elementwise_min(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    return tuple(x if x < y else y for x, y in zip(a, b, strict=True))


_ZERO = (0,) + (_INF,) * (_LEN - 1)


# ------------------------------------------------------------------ suited parts (9)
#
# Exact dynamic programme over the ranks of one suit. At rank i the target holds
# x chows started at i-1, y chows started at i-2, plus c chows started at i, a
# pung (s) and a pair (q); it needs x + y + c + 3s + 2q <= 4 copies of rank i and
# costs max(0, need - have) added tiles. The ranks are split 4 + 5: prefixes
# (625 patterns) and suffixes (3,125) are solved once each for every boundary
# state (x, y), and a whole suit is the best boundary state's convolution.

_SPLIT = 4
_CHOICES = tuple(
    (c, s, q) for c in range(5) for s in range(2) for q in range(2) if c + 3 * s + 2 * q <= 4
)
_prefix_memo: dict[bytes, dict[tuple[int, int], tuple[int, ...]]] = {}
_suffix_memo: dict[tuple[int, int, int, bytes], tuple[int, ...]] = {}


def _add_block(vec: Sequence[int], sets: int, pairs: int, cost: int, out: list[int]) -> None:
    """``out = min(out, vec shifted by (sets, pairs) plus cost)``."""
    for i, v in enumerate(vec):
        if v >= _INF:
            continue
        m, p = i // _P + sets, i % _P + pairs
        if m < _M and p < _P:
            k = m * _P + p
            if v + cost < out[k]:
                out[k] = v + cost


def _suffix(i: int, x: int, y: int, rest: bytes) -> tuple[int, ...]:
    """Cost vector of sets starting at ranks ``i..8`` given x, y pending chows."""
    if not rest:
        return _ZERO if x == y == 0 else (_INF,) * _LEN
    key = (i, x, y, rest)
    found = _suffix_memo.get(key)
    if found is not None:
        return found
    have = rest[0]
    out = [_INF] * _LEN
    for c, s, q in _CHOICES:
        need = x + y + c + 3 * s + 2 * q
        if need > 4 or (c and i > 6):
            continue
        tail = _suffix(i + 1, c, x, rest[1:])
        _add_block(tail, c + s, q, max(0, need - have), out)
    found = _suffix_memo[key] = tuple(out)
    return found


def _prefix(head: bytes) -> dict[tuple[int, int], tuple[int, ...]]:
    """Cost vectors of sets starting at ranks ``0..3``, per boundary state (x, y)."""
    found = _prefix_memo.get(head)
    if found is not None:
        return found
    states: dict[tuple[int, int], tuple[int, ...]] = {(0, 0): _ZERO}
    for have in head:
        nxt: dict[tuple[int, int], list[int]] = {}
        for (x, y), vec in states.items():
            for c, s, q in _CHOICES:
                need = x + y + c + 3 * s + 2 * q
                if need > 4:
                    continue
                out = nxt.setdefault((c, x), [_INF] * _LEN)
                _add_block(vec, c + s, q, max(0, need - have), out)
        states = {state: tuple(vec) for state, vec in nxt.items()}
    found = _prefix_memo[head] = states
    return found


# The prefix and suffix vectors interned (see _intern), so that a new suit pattern is a
# few look-ups: head bytes -> ((x, y, prefix vector id), ...); (x, y, tail) -> suffix id;
# (prefix id << 20 | suffix id) -> id of their convolution (cleared past its limit).
_PREFIX_IDS: dict[bytes, tuple[tuple[int, int, int], ...]] = {}
_SUFFIX_IDS: dict[tuple[int, int, bytes], int] = {}
_SPLIT_PAIR: dict[int, int] = {}


def _suited_vector(key: bytes) -> tuple[int, ...]:
    """The best over the boundary states (x, y) of prefix ⊗ suffix, elementwise."""
    head = key[:_SPLIT]
    states = _PREFIX_IDS.get(head)
    if states is None:
        states = _PREFIX_IDS[head] = tuple(
            (x, y, _intern(vec)) for (x, y), vec in _prefix(head).items()
        )
    tail = key[_SPLIT:]
    vectors = []
    for x, y, hid in states:
        tid = _SUFFIX_IDS.get((x, y, tail))
        if tid is None:
            tid = _SUFFIX_IDS[(x, y, tail)] = _intern(_suffix(_SPLIT, x, y, tail))
        pair = hid << _ID_SHIFT | tid
        vid = _SPLIT_PAIR.get(pair)
        if vid is None:
            if len(_SPLIT_PAIR) >= _SPLIT_PAIR_LIMIT:
                _SPLIT_PAIR.clear()
            vid = _SPLIT_PAIR[pair] = _intern(_convolve(_vectors[hid], _vectors[tid]))
        vectors.append(_vectors[vid])
    # Every convolution is capped at _INF: their elementwise minimum is the old fold from
    # (_INF, ...) with _elementwise_min.
    return tuple(map(min, *vectors)) if len(vectors) > 1 else vectors[0]


_SPLIT_PAIR_LIMIT = 100_000


def _honor_vector(key: bytes) -> tuple[int, ...]:
    """Honors: pungs and pairs only, kind by kind (a pung and a pair need 5 copies)."""
    vec = _ZERO
    for have in key:
        one = [_INF] * _LEN
        one[0] = 0
        one[1 * _P] = 3 - min(have, 3)
        one[1] = 2 - min(have, 2)
        vec = _convolve(vec, one)
    return vec


# ------------------------------------------------------------------------ entries


def _counters(key: bytes, orphan_ranks: tuple[int, ...], dragon_ranks: tuple[int, ...]) -> int:
    packed = sum(key) << _F_TILES
    for rank, have in enumerate(key):
        packed += (
            (have >= 2) << _F_PAIRS
            | (have == 1) << _F_SINGLES
            | (have == 4) << _F_QUADS
            | (have == 3) << _F_TRIPLES
        )
        if rank in orphan_ranks and have:
            packed += 1 << _F_ORPHANS
            if have >= 2:
                packed += 1 << (_F_DRAGON_PAIR if rank in dragon_ranks else _F_OTHER_ORPHAN_PAIR)
    return packed


# part bytes -> (vector id, packed counters)
_SUIT: dict[bytes, tuple[int, int]] = {}
_HONOR: dict[bytes, tuple[int, int]] = {}
# The same entries packed in one int for :func:`shanten`: counters << 24 | vector id.
# Four ids (< 2**20 each, see _intern) sum below 2**24, so the sum of four packed
# entries still carries the summed counters above bit 24.
_PACK_SHIFT = 24
_VID_MASK = (1 << _ID_SHIFT) - 1
_SUIT_PACKED: dict[bytes, int] = {}
_HONOR_PACKED: dict[bytes, int] = {}
_SUIT_ORPHAN_RANKS = (0, 8)
_HONOR_ORPHAN_RANKS = tuple(range(7))
_HONOR_DRAGON_RANKS = tuple(k - 27 for k in DRAGONS)


def _check_key(key: bytes, size: int) -> None:
    if len(key) != size:
        raise ValueError(f"a hand is a list of {N_KINDS} tile counts")
    if max(key) > 4:
        raise ValueError("a hand holds at most four copies of a tile")


def _suit_entry(key: bytes) -> tuple[int, int]:
    entry = _SUIT.get(key)
    if entry is None:
        _check_key(key, 9)
        vid = _intern(_suited_vector(key))
        entry = _SUIT[key] = (vid, _counters(key, _SUIT_ORPHAN_RANKS, ()))
        _SUIT_PACKED[key] = entry[1] << _PACK_SHIFT | vid
    return entry


def _honor_entry(key: bytes) -> tuple[int, int]:
    entry = _HONOR.get(key)
    if entry is None:
        _check_key(key, 7)
        vid = _intern(_honor_vector(key))
        entry = _HONOR[key] = (vid, _counters(key, _HONOR_ORPHAN_RANKS, _HONOR_DRAGON_RANKS))
        _HONOR_PACKED[key] = entry[1] << _PACK_SHIFT | vid
    return entry


# Pairwise memo: (a << 20 | b) -> id of convolve(a, b).
_PAIR: dict[int, int] = {}
# Final memo: (a << 20 | b) -> standard shanten of convolve(a, b) per number of sets m.
_FINAL: dict[int, tuple[int, ...]] = {}


def _pair(a: int, b: int) -> int:
    key = a << _ID_SHIFT | b
    vid = _PAIR.get(key)
    if vid is None:
        vid = _PAIR[key] = _intern(_convolve(_vectors[a], _vectors[b]))
    return vid


def _final(a: int, b: int) -> tuple[int, ...]:
    key = a << _ID_SHIFT | b
    found = _FINAL.get(key)
    if found is None:
        va, vb = _vectors[a], _vectors[b]
        out = [_INF] * _M
        for i, j, m in _FINAL_TRIPLES:
            v = va[i] + vb[j]
            if v < out[m]:
                out[m] = v
        found = _FINAL[key] = tuple(v - 1 for v in out)
    return found


# ------------------------------------------------------ seven pairs, thirteen orphans

_NO_SPECIAL = 99  # the special forms do not apply (tile count, or melds declared)


def _special_from_counters(packed: int, profile: RuleProfile) -> tuple[int, int]:
    """(sets needed m, best of seven pairs and thirteen orphans) from summed counters."""
    tiles = packed >> _F_TILES & 0xFF
    if tiles % 3 == 0 or tiles > 14:
        raise ValueError(f"a hand has 3n+1 or 3n+2 tiles, at most 14; got {tiles}")
    if tiles < 13:
        return tiles // 3, _NO_SPECIAL
    return tiles // 3, min(
        _seven_pairs_from_counters(packed, profile),
        _thirteen_orphans_from_counters(packed, profile),
    )


def _seven_pairs_from_counters(packed: int, profile: RuleProfile) -> int:
    # Seven pair slots; a kind offers a first slot (worth min(count, 2) kept
    # tiles) and, with quads allowed, a second one (worth count - 2 if count > 2).
    worth2 = packed >> _F_PAIRS & _F6
    worth1 = packed >> _F_SINGLES & _F6
    if profile.seven_pairs_allow_quads:
        worth2 += packed >> _F_QUADS & _F6
        worth1 += packed >> _F_TRIPLES & _F6
    twos = min(7, worth2)
    kept = 2 * twos + min(7 - twos, worth1)
    return 13 - kept


def _thirteen_orphans_from_counters(packed: int, profile: RuleProfile) -> int:
    pair = packed >> _F_DRAGON_PAIR & _F6
    if not profile.thirteen_orphans_pair_must_be_dragon:
        pair += packed >> _F_OTHER_ORPHAN_PAIR & _F6
    return 13 - (packed >> _F_ORPHANS & _F6) - (1 if pair else 0)


_SPECIAL_MAIN: dict[int, tuple[int, int]] = {}
_special_by_profile: dict[RuleProfile, dict[int, tuple[int, int]]] = {MAIN: _SPECIAL_MAIN}


def _special_table(profile: RuleProfile) -> dict[int, tuple[int, int]]:
    return _special_by_profile.setdefault(profile, {})


def _special(packed: int, profile: RuleProfile) -> tuple[int, int]:
    table = _SPECIAL_MAIN if profile is MAIN else _special_table(profile)
    found = table.get(packed)
    if found is None:
        found = table[packed] = _special_from_counters(packed, profile)
    return found


# ------------------------------------------------------------------------ public API


def _entries(counts: Sequence[int]) -> tuple[bytes, tuple[int, int], ...]:
    """Validated bytes of the hand and the entries of its four parts (slow path)."""
    if len(counts) != N_KINDS:
        raise ValueError(f"a hand is a list of {N_KINDS} tile counts, got {len(counts)}")
    if min(counts) < 0:
        raise ValueError("tile counts cannot be negative")
    b = bytes(min(c, 255) for c in counts)
    return (
        b,
        _suit_entry(b[0:9]),
        _suit_entry(b[9:18]),
        _suit_entry(b[18:27]),
        _honor_entry(b[27:34]),
    )


def _fill(counts: Sequence[int], profile: RuleProfile) -> None:
    """Compute every table entry ``counts`` needs (raises ValueError on a bad hand)."""
    _, (v1, x1), (v2, x2), (v3, x3), (v4, x4) = _entries(counts)
    _special(x1 + x2 + x3 + x4, profile)
    _final(_pair(v1, v2), _pair(v3, v4))


def check_melds(m: int, n_melds: int) -> None:
    """ValueError unless ``n_melds`` declared melds fit beside a part needing ``m`` sets."""
    if not 0 <= n_melds <= 4 or m + n_melds > 4:
        raise ValueError(f"{n_melds} declared melds do not fit beside {3 * m + 1}+ concealed tiles")


def shanten(counts: Sequence[int], n_melds: int = 0, profile: RuleProfile = MAIN) -> int:
    """Shanten of the concealed part ``counts`` (34 counts) over every Hebei form.

    ``n_melds`` declared melds (pongs, kongs) stand beside it; with any, only the
    standard form is possible. Returns -1 for a complete hand, 0 when ready.
    Raises ValueError for a bad hand (not 3n+1/3n+2 tiles, a fifth copy, ...).
    """
    # part_costs and the final step, inline when every table has the hand: a call less on
    # the hottest function (efficiency calls it a dozen times a decision; through
    # part_costs each call took 6% longer).
    try:
        b = bytes(counts)
        e1 = _SUIT_PACKED[b[0:9]]
        e2 = _SUIT_PACKED[b[9:18]]
        e3 = _SUIT_PACKED[b[18:27]]
        e4 = _HONOR_PACKED[b[27:]]
        m, special = (_SPECIAL_MAIN if profile is MAIN else _special_table(profile))[
            (e1 + e2 + e3 + e4) >> _PACK_SHIFT
        ]
        std = _FINAL[
            _PAIR[(e1 & _VID_MASK) << _ID_SHIFT | e2 & _VID_MASK] << _ID_SHIFT
            | _PAIR[(e3 & _VID_MASK) << _ID_SHIFT | e4 & _VID_MASK]
        ][m]
    except (KeyError, ValueError, TypeError):
        m, special, v1, v2, v3, v4 = part_costs(counts, profile)  # fills the tables
        std = _final(_pair(v1, v2), _pair(v3, v4))[m]
    if n_melds:
        check_melds(m, n_melds)
        return std
    return special if special < std else std


COST_INF = _INF  # a cost vector's entry for a target the part cannot reach


def part_costs(
    counts: Sequence[int], profile: RuleProfile = MAIN
) -> tuple[int, int, int, int, int, int]:
    """The tables' look-up of a hand (34 counts), per part: ``(m, special, v1, v2, v3, v4)``.

    ``m`` is the number of sets the standard form needs (``tiles // 3``), ``special`` the
    best of seven pairs and thirteen orphans (99 when they do not apply: not 13 or 14
    tiles), and ``v1..v4`` the interned cost vectors of the three suits and the honors:
    ``cost_vector(v)[m * 2 + p]`` is the least tiles to add so that the part holds ``m``
    sets and ``p`` pairs (:data:`COST_INF`: never), and :func:`combine` convolves two
    parts. Entries missing from the tables are computed on the way (ValueError for a bad
    hand).
    """
    try:
        b = bytes(counts)
        e1 = _SUIT_PACKED[b[0:9]]
        e2 = _SUIT_PACKED[b[9:18]]
        e3 = _SUIT_PACKED[b[18:27]]
        e4 = _HONOR_PACKED[b[27:]]
        m, special = (_SPECIAL_MAIN if profile is MAIN else _special_table(profile))[
            (e1 + e2 + e3 + e4) >> _PACK_SHIFT
        ]
    except (KeyError, ValueError, TypeError):
        _fill(counts, profile)
        return part_costs(counts, profile)
    return m, special, e1 & _VID_MASK, e2 & _VID_MASK, e3 & _VID_MASK, e4 & _VID_MASK


def cost_vector(vid: int) -> tuple[int, ...]:
    """The cost vector with id ``vid`` (see :func:`part_costs`): index ``m * 2 + p``."""
    return _vectors[vid]


def combine(a: int, b: int) -> int:
    """The id of the min-plus convolution of cost vectors ``a`` and ``b``: the least cost
    of each (sets, pairs) over the two parts together (memoised)."""
    return _pair(a, b)


def shanten_in(
    counts: Sequence[int], melds: Sequence[Meld] = (), profile: RuleProfile = MAIN
) -> int:
    """:func:`shanten` under the profile's whole win condition, declared ``melds`` seen.

    With a one-suit minimum (§9 一色够八张) the standard form also needs that many tiles of
    one suit, melds included (or no suited tile at all, 清风); each exchange brings at most
    one, so the standard shanten is raised to the tiles still lacking, minus one. Seven
    pairs and thirteen orphans need no suit. Without a minimum this is :func:`shanten`.
    -1 exactly when the hand is a legal win; a lower bound otherwise (exact when the best
    standard target already holds enough of one suit). A hand that is ready in the profile
    (:func:`hebei.rules.wincheck.is_ready`) has 0.
    """
    n_melds = len(melds)
    minimum = profile.one_suit_minimum
    if not minimum:
        return shanten(counts, n_melds, profile)
    standard = shanten_standard(counts, n_melds)
    total = list(counts)
    meld_suited = False
    for meld in melds:
        for k in meld.tiles:
            total[k] += 1
            meld_suited = meld_suited or 0 <= k < 27
    lacking = min(max(0, minimum - sum(total[s : s + 9])) for s in (0, 9, 18))
    if not meld_suited:  # 清风: give up every suited tile instead
        lacking = min(lacking, sum(counts[:27]))
    value = max(standard, lacking - 1)
    if not melds and sum(counts) in (13, 14):
        special = min(
            shanten_seven_pairs(counts, profile), shanten_thirteen_orphans(counts, profile)
        )
        value = min(value, special)
    return value


def shanten_standard(counts: Sequence[int], n_melds: int = 0) -> int:
    """Shanten of the standard form only: ``tiles // 3`` sets (pung/chow) and one pair."""
    _, (v1, x1), (v2, x2), (v3, x3), (v4, x4) = _entries(counts)
    m, _ = _special(x1 + x2 + x3 + x4, MAIN)
    check_melds(m, n_melds)
    return _final(_pair(v1, v2), _pair(v3, v4))[m]


def _special_counters(counts: Sequence[int]) -> int:
    _, (_, x1), (_, x2), (_, x3), (_, x4) = _entries(counts)
    packed = x1 + x2 + x3 + x4
    tiles = packed & 0xFF
    if tiles not in (13, 14):
        raise ValueError(f"seven pairs and thirteen orphans need 13 or 14 tiles, got {tiles}")
    return packed


def shanten_seven_pairs(counts: Sequence[int], profile: RuleProfile = MAIN) -> int:
    """Shanten of seven pairs (13 or 14 concealed tiles, no melds)."""
    return _seven_pairs_from_counters(_special_counters(counts), profile)


def shanten_thirteen_orphans(counts: Sequence[int], profile: RuleProfile = MAIN) -> int:
    """Shanten of thirteen orphans (13 or 14 concealed tiles, no melds)."""
    return _thirteen_orphans_from_counters(_special_counters(counts), profile)


class Ukeire(NamedTuple):
    """Result of :func:`ukeire`; unpacks as ``(shanten, tiles)``."""

    shanten: int
    tiles: list[tuple[int, int]]  # (kind, copies still unseen), kinds in order

    @property
    def total(self) -> int:
        return sum(n for _, n in self.tiles)


class DiscardOption(NamedTuple):
    """One discard of a 3n+2 hand, as ranked by :func:`discard_options`."""

    kind: int
    shanten: int  # of the hand left after the discard
    tiles: list[tuple[int, int]]  # its ukeire: (kind, copies still unseen)
    total: int  # sum of the unseen copies

    def __str__(self) -> str:
        return f"discard {TILE_NAMES[self.kind]}: shanten {self.shanten}, ukeire {self.total}"


_new_tuple = tuple.__new__  # DiscardOption(*fields) without its Python-level __new__

# Successors of a part: for each rank, the entry after drawing one more copy, or None.
_SUIT_NEXT: dict[bytes, tuple[tuple[int, int] | None, ...]] = {}
_HONOR_NEXT: dict[bytes, tuple[tuple[int, int] | None, ...]] = {}


def _successors(key: bytes, honors: bool) -> tuple[tuple[int, int] | None, ...]:
    memo = _HONOR_NEXT if honors else _SUIT_NEXT
    found = memo.get(key)
    if found is None:
        entry = _honor_entry if honors else _suit_entry
        nxt: list[tuple[int, int] | None] = []
        for r, have in enumerate(key):
            if have >= 4:
                nxt.append(None)
            else:
                grown = bytearray(key)
                grown[r] += 1
                nxt.append(entry(bytes(grown)))
        found = memo[key] = tuple(nxt)
    return found


def _unseen(counts: Sequence[int], visible: Sequence[int] | None) -> list[int]:
    if visible is None:
        return [4 - c for c in counts]
    if len(visible) != N_KINDS:
        raise ValueError(f"visible is a list of {N_KINDS} tile counts, got {len(visible)}")
    return [u if (u := 4 - c - v) > 0 else 0 for c, v in zip(counts, visible, strict=True)]


def _hand_bytes(counts: Sequence[int]) -> bytes:
    """``bytes(counts)``, or a clear ValueError for a list that is not a hand."""
    try:
        b = bytes(counts)
    except (ValueError, TypeError):
        _entries(counts)  # raises the clear message
        raise
    if len(b) != N_KINDS:
        raise ValueError(f"a hand is a list of {N_KINDS} tile counts, got {len(b)}")
    return b


# Seven pairs and thirteen orphans see a drawn kind only through its count before
# the draw and its class: 0 simple, 1 terminal or wind, 2 dragon.
_DRAW_CLASS = tuple(2 if k in DRAGONS else 1 if k in ORPHANS else 0 for k in range(N_KINDS))
# Probe part keys holding ``have`` copies of one kind of each class (5m, 1m, 5z).
_CLASS_PROBES = ((4, 9, False), (0, 9, False), (DRAGONS[0] - 27, 7, True))


def _draw_delta(have: int, cls: int) -> int:
    """How the packed counters change when a kind of class ``cls`` goes from ``have``."""
    rank, size, honors = _CLASS_PROBES[cls]
    before, after = bytearray(size), bytearray(size)
    before[rank], after[rank] = have, have + 1
    orphans = _HONOR_ORPHAN_RANKS if honors else _SUIT_ORPHAN_RANKS
    dragons = _HONOR_DRAGON_RANKS if honors else ()
    return _counters(bytes(after), orphans, dragons) - _counters(bytes(before), orphans, dragons)


_DRAW_DELTAS = tuple(_draw_delta(have, cls) for have in range(4) for cls in range(3))
# packed counters -> for each (copies held, class) index: does that draw lower the
# best of seven pairs and thirteen orphans? (Per profile, like the special tables.)
_SPECIAL_DRAWS_MAIN: dict[int, tuple[bool, ...]] = {}
_special_draws_tables: dict[RuleProfile, dict[int, tuple[bool, ...]]] = {MAIN: _SPECIAL_DRAWS_MAIN}


def _special_draws_by_profile(profile: RuleProfile) -> dict[int, tuple[bool, ...]]:
    return _special_draws_tables.setdefault(profile, {})


def _special_draws(packed: int, profile: RuleProfile) -> tuple[bool, ...]:
    memo = _SPECIAL_DRAWS_MAIN if profile is MAIN else _special_draws_by_profile(profile)
    found = memo.get(packed)
    if found is None:
        now = _special(packed, profile)[1]
        found = memo[packed] = (
            tuple(_special(packed + delta, profile)[1] < now for delta in _DRAW_DELTAS)
            + (False,) * 3
        )  # four copies held: no draw
    return found


# The kinds of a part whose draw lowers the standard shanten beside the rest of the hand
# (:func:`_std_draws`) depend on the rest only through the tight mask (see _std_ranks):
# (part start, part bytes, tight mask) -> the kinds (start + rank, ascending). Far fewer
# keys than (part, rest) pairs, so it is nearly always found. The parts whose successors
# break the tables' bounds (rare) are memoised by (part start, part bytes, rest id, m).
# Each is cleared when it grows past _DRAWS_LIMIT, so a long-lived bot's memory levels off
# (about 220 bytes an entry: 32 MiB at the limit; a bot fills ~145,000 in 6,400 hands).
_MASKED_DRAWS: dict[tuple[int, bytes, int], tuple[int, ...]] = {}
_PLAIN_DRAWS: dict[tuple[int, bytes, int, int], tuple[int, ...]] = {}
_DRAWS_LIMIT = 150_000


def _std_ranks(key: bytes, v: int, rest: int, m: int) -> tuple[int, ...]:
    """The ranks of the part ``key`` (vector ``v``) whose draw lowers the standard shanten
    beside the rest ``rest`` with ``m`` sets: :func:`_std_ranks_plain`, read from two small
    tables (see :func:`_drops` and :func:`_tight`)."""
    drops = _DROPS.get(key)
    if drops is None:
        drops = _drops(key, v)
    if not drops:  # not the bounds _drops needs (never seen): by definition
        return _std_ranks_plain(key, v, rest, m)
    tight = _TIGHT.get(v << _ID_SHIFT | rest)
    if tight is None:
        tight = _tight(v, rest)
    mask = tight[m]
    return tuple(r for r, d in enumerate(drops) if d & mask)


def _std_ranks_plain(key: bytes, v: int, rest: int, m: int) -> tuple[int, ...]:
    """By definition: the ranks ``r`` whose successor (one more copy of ``r``) has a lower
    final shanten beside ``rest`` with ``m`` sets."""
    std = _final(v, rest)[m]
    ranks = []
    for r, grown in enumerate(_successors(key, len(key) == 7)):
        if grown is not None and _final(grown[0], rest)[m] < std:
            ranks.append(r)
    return tuple(ranks)


# Why the tables give the same ranks: one more tile never raises a cost and lowers each by
# at most one (a target needs at most one tile fewer), so a successor's final shanten
# beside ``rest`` is the part's, or one lower exactly when some term ``v[i] + rest[j]`` that
# attains the minimum has ``i`` among the entries the draw lowers. Per part: for each rank,
# the bit mask of the entries its draw lowers (:func:`_drops`); per pair of vectors and m:
# the bit mask of the entries whose term attains the minimum (:func:`_tight`).
_DROPS: dict[bytes, tuple[int, ...]] = {}
_TIGHT: dict[int, tuple[int, ...]] = {}


def _drops(key: bytes, v: int) -> tuple[int, ...]:
    """Per rank of the part ``key``, the entries of its vector ``v`` that one more copy
    lowers (bit ``i``: entry ``i``); ``()`` when a successor breaks the bounds above (a
    cost rising, or falling by more than one), which the tables then do not serve."""
    out = []
    for grown in _successors(key, len(key) == 7):
        if grown is None:
            out.append(0)
            continue
        pair = v << _ID_SHIFT | grown[0]
        mask = _DROP_MASK.get(pair)
        if mask is None:
            mask = _DROP_MASK[pair] = _drop_mask(_vectors[v], _vectors[grown[0]])
        if mask < 0:
            out = None
            break
        out.append(mask)
    found = _DROPS[key] = () if out is None else tuple(out)
    return found


# (vector id << 20 | successor's vector id) -> its drop mask (see _drop_mask).
_DROP_MASK: dict[int, int] = {}


def _drop_mask(before: tuple[int, ...], after: tuple[int, ...]) -> int:
    """Bit ``i`` set where ``after[i] == before[i] - 1``; -1 when some entry rises or falls
    by more than one."""
    mask = 0
    for i, (a, b) in enumerate(zip(before, after, strict=True)):
        if b < a:
            if b != a - 1:
                return -1
            mask |= 1 << i
        elif b > a:
            return -1
    return mask


def _tight(a: int, b: int) -> tuple[int, ...]:
    """Per number of sets m, the bit mask of the entries ``i`` of vector ``a`` whose term
    ``a[i] + b[j]`` attains :func:`_final`'s minimum (none when no term is finite)."""
    key = a << _ID_SHIFT | b
    va, vb = _vectors[a], _vectors[b]
    best = [_INF] * _M
    for i, j, m in _FINAL_TRIPLES:
        t = va[i] + vb[j]
        if t < best[m]:
            best[m] = t
    masks = [0] * _M
    for i, j, m in _FINAL_TRIPLES:
        if va[i] + vb[j] == best[m] < _INF:
            masks[m] |= 1 << i
    found = _TIGHT[key] = tuple(masks)
    return found


def _std_draws(start: int, key: bytes, v: int, rest: int, m: int) -> tuple[int, ...]:
    """:func:`_std_ranks` as kinds (``start + rank``), memoised: two look-ups when warm."""
    tight = _TIGHT.get(v << _ID_SHIFT | rest)
    if tight is not None:
        found = _MASKED_DRAWS.get((start, key, tight[m]))
        if found is not None:
            return found
    return _std_draws_slow(start, key, v, rest, m)


def _std_draws_slow(start: int, key: bytes, v: int, rest: int, m: int) -> tuple[int, ...]:
    """:func:`_std_draws`, filling the tables it reads."""
    drops = _DROPS.get(key)
    if drops is None:
        drops = _drops(key, v)
    if drops:
        tight = _TIGHT.get(v << _ID_SHIFT | rest)
        if tight is None:
            tight = _tight(v, rest)
        memo: dict = _MASKED_DRAWS
        memo_key: tuple = (start, key, tight[m])
    else:
        memo, memo_key = _PLAIN_DRAWS, (start, key, rest, m)
    found = memo.get(memo_key)
    if found is None:
        found = _kinds(start, _std_ranks(key, v, rest, m))
        if len(memo) >= _DRAWS_LIMIT:
            memo.clear()
        memo[memo_key] = found
    return found


def _kinds(start: int, ranks: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(start + r for r in ranks) if start else ranks


def _special_kinds(b: bytes, improves: tuple[bool, ...]) -> list[int]:
    """The kinds whose draw lowers seven pairs / thirteen orphans (``improves``: see
    :func:`_special_draws`), ascending."""
    return [k for k, i in enumerate(b.translate(_TIMES3)) if improves[i + _DRAW_CLASS[k]]]


_TIMES3 = bytes(min(3 * i, 255) for i in range(256))


def _ukeire_slow(b: bytes, n_melds: int, profile: RuleProfile) -> tuple[int, tuple[int, ...]]:
    """:func:`_ukeire_kinds`, filling every table it needs."""
    k1, k2, k3, k4 = b[0:9], b[9:18], b[18:27], b[27:34]
    v1, x1 = _SUIT.get(k1) or _suit_entry(k1)
    v2, x2 = _SUIT.get(k2) or _suit_entry(k2)
    v3, x3 = _SUIT.get(k3) or _suit_entry(k3)
    v4, x4 = _HONOR.get(k4) or _honor_entry(k4)
    packed = x1 + x2 + x3 + x4
    m, special = _special(packed, profile)
    if m * 3 + 1 != packed & 0xFF:
        raise ValueError("ukeire needs a 3n+1 hand (one tile short of complete)")
    if n_melds:
        check_melds(m, n_melds)
        special = _NO_SPECIAL
    v12, v34 = _pair(v1, v2), _pair(v3, v4)
    std = _final(v12, v34)[m]
    base = special if special < std else std
    # One draw lowers a form's shanten by one at most: only a form at the base can
    # bring the hand below it.
    kinds: tuple[int, ...] = ()
    if std == base:
        kinds = (
            _std_draws(0, k1, v1, _pair(v2, v34), m)
            + _std_draws(9, k2, v2, _pair(v1, v34), m)
            + _std_draws(18, k3, v3, _pair(v12, v4), m)
            + _std_draws(27, k4, v4, _pair(v12, v3), m)
        )
    if special == base:
        extra = _special_kinds(b, _special_draws(packed, profile))
        kinds = tuple(sorted(set(kinds).union(extra))) if kinds else tuple(extra)
    return base, kinds


def _ukeire_kinds(b: bytes, n_melds: int, profile: RuleProfile) -> tuple[int, tuple[int, ...]]:
    """Shanten of the 3n+1 hand with bytes ``b`` and the kinds whose draw lowers it,
    ascending (whether copies remain or not).

    The warm path: every table looked up directly; the first miss goes the slow way
    (:func:`_ukeire_slow`), which fills them.
    """
    k1, k2, k3, k4 = b[0:9], b[9:18], b[18:27], b[27:34]
    try:
        e1 = _SUIT_PACKED[k1]
        e2 = _SUIT_PACKED[k2]
        e3 = _SUIT_PACKED[k3]
        e4 = _HONOR_PACKED[k4]
        packed = (e1 + e2 + e3 + e4) >> _PACK_SHIFT
        m, special = (_SPECIAL_MAIN if profile is MAIN else _special_table(profile))[packed]
        if m * 3 + 1 != packed & 0xFF or not 0 <= n_melds <= 4 - m:
            return _ukeire_slow(b, n_melds, profile)  # raises the clear message
        if n_melds:
            special = _NO_SPECIAL
        v1, v2, v3, v4 = e1 & _VID_MASK, e2 & _VID_MASK, e3 & _VID_MASK, e4 & _VID_MASK
        v12 = _PAIR[v1 << _ID_SHIFT | v2]
        v34 = _PAIR[v3 << _ID_SHIFT | v4]
        std = _FINAL[v12 << _ID_SHIFT | v34][m]
        if special < std:
            improves = (
                _SPECIAL_DRAWS_MAIN if profile is MAIN else _special_draws_by_profile(profile)
            )[packed]
            return special, tuple(_special_kinds(b, improves))
        rest1 = _PAIR[v2 << _ID_SHIFT | v34]
        rest2 = _PAIR[v1 << _ID_SHIFT | v34]
        rest3 = _PAIR[v12 << _ID_SHIFT | v4]
        rest4 = _PAIR[v12 << _ID_SHIFT | v3]
        # _std_draws, its warm path inline: the tight masks, then the draws they select.
        masked = _MASKED_DRAWS
        d1 = masked[(0, k1, _TIGHT[v1 << _ID_SHIFT | rest1][m])]
        d2 = masked[(9, k2, _TIGHT[v2 << _ID_SHIFT | rest2][m])]
        d3 = masked[(18, k3, _TIGHT[v3 << _ID_SHIFT | rest3][m])]
        d4 = masked[(27, k4, _TIGHT[v4 << _ID_SHIFT | rest4][m])]
        kinds = d1 + d2 + d3 + d4
        if special == std:
            improves = (
                _SPECIAL_DRAWS_MAIN if profile is MAIN else _special_draws_by_profile(profile)
            )[packed]
            extra = _special_kinds(b, improves)
            if extra:
                kinds = tuple(sorted(set(kinds).union(extra))) if kinds else tuple(extra)
        return std, kinds
    except KeyError:
        return _ukeire_slow(b, n_melds, profile)


def _ukeire(
    b: bytes, n_melds: int, unseen: Sequence[int], profile: RuleProfile
) -> tuple[int, list[tuple[int, int]]]:
    """Shanten of the 3n+1 hand with bytes ``b`` and its improving draws."""
    base, kinds = _ukeire_kinds(b, n_melds, profile)
    return base, [(k, unseen[k]) for k in kinds if unseen[k] > 0]


def ukeire(
    counts: list[int],
    n_melds: int = 0,
    visible: Sequence[int] | None = None,
    profile: RuleProfile = MAIN,
) -> Ukeire:
    """Shanten of a 3n+1 hand and the draws that lower it.

    Returns ``(shanten, [(kind, unseen), ...])``: every kind whose draw lowers the
    shanten and of which copies remain unseen (``4 - own - visible[kind]``, where
    ``visible`` counts the tiles the player sees elsewhere: discards, melds).
    ``.total`` sums the unseen copies.
    """
    b = _hand_bytes(counts)
    base, tiles = _ukeire(b, n_melds, _unseen(counts, visible), profile)
    return Ukeire(base, tiles)


def improving_kinds(
    counts: Sequence[int], n_melds: int = 0, profile: RuleProfile = MAIN
) -> tuple[int, tuple[int, ...]]:
    """Shanten of a 3n+1 hand and every kind whose draw lowers it, ascending, whether
    copies of it remain or not (:func:`ukeire` keeps those with copies unseen)."""
    return _ukeire_kinds(_hand_bytes(counts), n_melds, profile)


def discard_options(
    counts: list[int],
    n_melds: int = 0,
    visible: Sequence[int] | None = None,
    profile: RuleProfile = MAIN,
) -> list[DiscardOption]:
    """Every distinct discard of a 3n+2 hand, best first.

    Best = lowest shanten after the discard, then most unseen improving tiles,
    then the lower kind. Unseen copies are ``4 - own - visible[kind]`` counted on
    the 3n+2 hand (a discarded copy is then seen on the table).
    """
    _hand_bytes(counts)
    if sum(counts) % 3 != 2:
        raise ValueError("discard_options needs a 3n+2 hand (one tile to discard)")
    unseen = _unseen(counts, visible)
    options = []
    # (kind, copies unseen) of every kind, None for those with none left: a discard's
    # useful tiles are these rows of its improving kinds (unseen counts are >= 0).
    live = [(k, n) if n > 0 else None for k, n in enumerate(unseen)]
    live_row, unseen_of = live.__getitem__, unseen.__getitem__
    hand = bytearray(counts)
    for kind in range(N_KINDS):
        if not hand[kind]:
            continue
        hand[kind] -= 1
        # Unseen copies stay as counted on 14 tiles: the discard is seen now.
        base, kinds = _ukeire_kinds(bytes(hand), n_melds, profile)
        hand[kind] += 1
        tiles = list(filter(None, map(live_row, kinds)))
        total = sum(map(unseen_of, kinds))
        options.append(_new_tuple(DiscardOption, (kind, base, tiles, total)))
    options.sort(key=lambda o: (o.shanten, -o.total, o.kind))
    return options


_WARM_SUIT_TILES = 9  # warm_up builds every suit pattern of up to this many tiles,
_WARM_HONOR_TILES = 8  # every honor pattern of up to this many, and the improving draws
# (_drops) of the parts of one tile fewer (their successors are among those built)


def _patterns(size: int, tiles: int) -> Iterator[bytes]:
    """Every part of ``size`` ranks holding at most ``tiles`` tiles (at most 4 a rank)."""
    if size == 0:
        yield b""
        return
    for have in range(min(4, tiles) + 1):
        for rest in _patterns(size - 1, tiles - have):
            yield bytes((have,)) + rest


def warm_up() -> None:
    """Build now what hands meet most on first sight, once per process (2.7 s of CPU and
    44 MiB on this machine under load; 1.3 s and 15 MiB of it for the nine-tile suits, the
    honors and the draws, added in the fifth speed round): every prefix and suffix pattern
    of a suit, the entry of every suit pattern of up to nine tiles (42,185) and of every
    honor pattern of up to eight (5,595), and the improving draws (:func:`_drops`) of every
    part of one tile fewer (their successors are among those built).

    Later, a new pattern costs only a few look-ups on its first sight. Without the entries
    of nine tiles, the honors and the draws, first sights were a quarter of an expert's
    CPU in the 32 hands after the self-play warm-up, two thirds of it growing new parts'
    successors (a new honor pattern ~0.3 ms, a new suit pattern ~0.2 ms); with them 17%
    (the rest: the pairwise tables of the parts beside each other, which no fixed set
    covers). Tables are only filled: every result is the same either way.
    """
    for head in product(range(5), repeat=_SPLIT):
        _prefix(bytes(head))
    for tail in product(range(5), repeat=9 - _SPLIT):
        for x in range(5):
            for y in range(5 - x):
                _suffix(_SPLIT, x, y, bytes(tail))
    for key in _patterns(9, _WARM_SUIT_TILES):
        if key not in _SUIT:
            _suit_entry(key)
    for key in _patterns(7, _WARM_HONOR_TILES):
        if key not in _HONOR:
            _honor_entry(key)
    for size, tiles, table in ((9, _WARM_SUIT_TILES, _SUIT), (7, _WARM_HONOR_TILES, _HONOR)):
        for key in _patterns(size, tiles - 1):
            if key not in _DROPS:
                _drops(key, table[key][0])
