"""The value of a ready hand's waits, scored exactly under these rules (RULES.md §5-§6).

A ready (tenpai) hand is worth, per live winning tile, what the win on that tile
pays: a self-draw takes the base share and the whole bonus from each of the three
payers, a discard win takes base and bonus from the discarder alone. So a wait that
completes 一条龙, 捉五 or a 豪华七对 is worth far more than a plain one, and a concealed
hand's 门清 triples on a self-draw. The fan of each (hand, melds, winning tile) is
looked up once per process.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from hebei.bots.policies.value import win_points
from hebei.rules.melds import Meld
from hebei.rules.scoring import WinContext, WinKind, best_reading
from hebei.rules.shanten import shanten
from hebei.rules.wincheck import winning_tiles

# How often a live copy of a wait comes (drawn or thrown by another seat), relative to a
# middle tile: honors and terminals are what the others throw first. Measured on 25,505 ready
# hands of efficiency self-play (seeds 71·1,000,003 + 0..499): a live dragon won 16.7% of the
# time, a wind 13.9%, a terminal 12.1%, a 2-8 tile 9.7%.
LIVE_WEIGHT = (1.25, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25) * 3 + (1.4,) * 4 + (1.7,) * 3
# Each memo table is cleared when it reaches this many entries, so a long-lived worker's
# memory levels off: about 180 bytes an entry, 9 MiB at the limit. Half the look-ups hit, and
# nearly all hits are within a match (~10 new entries a hand), so a smaller table costs nothing.
_CACHE_LIMIT = 50_000
_fan_cache: dict[tuple[bytes, tuple[Meld, ...], int], int] = {}


def win_fan(counts: Sequence[int], melds: tuple[Meld, ...], tile: int) -> int:
    """Bonus fan of the win completing ``counts`` (3n+1, without ``tile``) with ``tile``,
    scored as a plain self-draw (no 海底 or 杠上开花); 0 when it is not a win."""
    return _win_fan(bytes(counts), counts, melds, tile)


def _win_fan(b: bytes, counts: Sequence[int], melds: tuple[Meld, ...], tile: int) -> int:
    """:func:`win_fan` of ``counts``, whose bytes ``b`` the caller already has."""
    key = (b, melds, tile)
    fan = _fan_cache.get(key)
    if fan is None:
        full = list(counts)
        full[tile] += 1
        ctx = WinContext(tuple(full), melds, tile, WinKind.SELF_DRAW, winner=0, dealer=1)
        best = best_reading(ctx)
        fan = 0 if best is None else sum(rule.fan for rule in best[1])
        if len(_fan_cache) >= _CACHE_LIMIT:
            _fan_cache.clear()
        _fan_cache[key] = fan
    return fan


def wait_value(
    counts: list[int],
    n_melds: int,
    melds: tuple[Meld, ...],
    unseen: Sequence[int],
    dealer: bool,
    waits: Sequence[int] | None = None,
) -> tuple[int, float]:
    """``(live winning tiles, their mean win points)`` of the 3n+1 hand ``counts``:
    ``unseen[k]`` is how many copies of ``k`` may still come (neither held nor visible).
    ``waits``: its winning tiles when already known."""
    live = 0
    points = 0.0
    b = bytes(counts)
    for tile in waits_of(counts, n_melds) if waits is None else waits:
        copies = unseen[tile]
        if copies <= 0:
            continue
        live += copies
        points += copies * win_points(_win_fan(b, counts, melds, tile), dealer)
    return live, (points / live if live else 0.0)


def weighted_waits(
    counts: list[int],
    n_melds: int,
    melds: tuple[Meld, ...],
    unseen: Sequence[int],
    dealer: bool,
    waits: Sequence[int] | None = None,
) -> tuple[float, float]:
    """``(live winning tiles weighted by how often each comes, their mean win points)`` of the
    3n+1 hand ``counts``: a wait on an honor the others will throw beats one on a 5.
    ``waits``: its winning tiles when already known (a ready hand's ukeire)."""
    live = 0.0
    points = 0.0
    b = bytes(counts)
    for tile in waits_of(counts, n_melds) if waits is None else waits:
        copies = unseen[tile]
        if copies <= 0:
            continue
        weight = copies * LIVE_WEIGHT[tile]
        live += weight
        points += weight * win_points(_win_fan(b, counts, melds, tile), dealer)
    return live, (points / live if live else 0.0)


_wait_cache: dict[tuple[bytes, int], tuple[int, ...]] = {}


def waits_of(counts: list[int], n_melds: int) -> tuple[int, ...]:
    """The winning tiles of the 3n+1 hand ``counts`` (memoised per process)."""
    key = (bytes(counts), n_melds)
    waits = _wait_cache.get(key)
    if waits is None:
        waits = tuple(winning_tiles(counts, n_melds))
        if len(_wait_cache) >= _CACHE_LIMIT:
            _wait_cache.clear()
        _wait_cache[key] = waits
    return waits


def ready_discards(counts: list[int], n_melds: int) -> Iterator[tuple[int, tuple[int, ...]]]:
    """Each discard from the 3n+2 hand ``counts`` that leaves it ready, as ``(kind thrown,
    the waits)``; while an item is being used, ``counts`` is the hand after that discard
    (restored when the next is asked for, or the loop ends or breaks)."""
    for kind in range(len(counts)):
        if not counts[kind]:
            continue
        counts[kind] -= 1
        try:
            if shanten(counts, n_melds) == 0:
                yield kind, waits_of(counts, n_melds)
        finally:
            counts[kind] += 1


def best_ready(
    counts: list[int],
    n_melds: int,
    melds: tuple[Meld, ...],
    unseen: Sequence[int],
    dealer: bool,
) -> tuple[int, float]:
    """``(live waits, mean win points)`` of the best ready hand a discard from the 3n+2 hand
    ``counts`` leaves (the most live tiles times points); ``(0, 0.0)`` when none is ready."""
    best = (0, 0.0)
    best_total = 0.0
    for _, waits in ready_discards(counts, n_melds):
        live, points = wait_value(counts, n_melds, melds, unseen, dealer, waits)
        if live * points > best_total:
            best_total = live * points
            best = (live, points)
    return best
