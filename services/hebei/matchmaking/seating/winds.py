"""Seat winds: each table seated East..North on winds the players may take, whole planned
blocks coloured by König's theorem, and the allocations of winds to players (max flow, Hall's
condition, lane plans at the level of player types); see "Seat winds" in
:mod:`hebei.matchmaking.seating`."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import permutations

from hebei.matchmaking.seating.model import IndexedRound

_PERMUTATIONS = tuple(permutations(range(4)))


@lru_cache(maxsize=4096)
def has_distinct_winds(masks: tuple[int, ...]) -> bool:
    """True when players (up to four) with these wind masks can take different winds."""
    k = len(masks)
    return any(all(masks[i] >> perm[i] & 1 for i in range(k)) for perm in permutations(range(4), k))


def seat_table(table: Sequence[int], allowed: list[int], rng: random.Random) -> list[int]:
    """The table East..North: each player on a wind of its mask (fewest misses if impossible)."""
    best: list[tuple[int, ...]] = []
    best_misses = 5
    for perm in _PERMUTATIONS:
        misses = sum(1 for i in range(4) if not allowed[table[i]] >> perm[i] & 1)
        if misses < best_misses:
            best, best_misses = [perm], misses
        elif misses == best_misses:
            best.append(perm)
    perm = best[rng.randrange(len(best))]
    seats = [0, 0, 0, 0]
    for i in range(4):
        seats[perm[i]] = table[i]
    return seats


def _colour_block(n: int, block: list[IndexedRound]) -> list[IndexedRound]:
    """Seat up to four rounds so no player takes a wind twice: a proper 4-edge colouring of the
    bipartite graph players x tables (König), by alternating-path recolouring."""
    tables = [table for tables in block for table in tables]
    at = [[-1, -1, -1, -1] for _ in range(n + len(tables))]
    for t, table in enumerate(tables):
        v = n + t
        for p in table:
            a = at[p].index(-1)
            b = at[v].index(-1)
            if at[v][a] != -1:
                _flip_path(at, v, a, b)
            at[p][a] = v
            at[v][a] = p
    seated, t = [], 0
    for rnd in block:
        seated.append([list(at[n + t + i]) for i in range(len(rnd))])
        t += len(rnd)
    return seated


def _flip_path(at: list[list[int]], start: int, a: int, b: int) -> None:
    """Swap colours a and b along the path from ``start`` whose edges alternate a, b, a, ..."""
    path, colour, node = [start], a, start
    while at[node][colour] != -1:
        node = at[node][colour]
        path.append(node)
        colour = b if colour == a else a
    for i in range(len(path) - 1):
        old = a if i % 2 == 0 else b
        at[path[i]][old] = -1
        at[path[i + 1]][old] = -1
    for i in range(len(path) - 1):
        new = b if i % 2 == 0 else a
        at[path[i]][new] = path[i + 1]
        at[path[i + 1]][new] = path[i]


def colour_plan(n: int, plan: list[IndexedRound]) -> list[IndexedRound]:
    """Every round of a plan made from the start of the event, seated block by block."""
    seated: list[IndexedRound] = []
    for start in range(0, len(plan), 4):
        seated.extend(_colour_block(n, plan[start : start + 4]))
    return seated


def least_winds(counts: Sequence[int]) -> int:
    """The mask of the winds a player has taken least."""
    low = min(counts)
    return sum(1 << w for w in range(4) if counts[w] == low)


def is_regular(available: list[int]) -> bool:
    """Every mask of least winds has one size s and each wind is in s/4 of them (package doc)."""
    size = available[0].bit_count()
    if any(mask.bit_count() != size for mask in available):
        return False
    target = size * len(available) // 4
    return all(sum(mask >> w & 1 for mask in available) == target for w in range(4))


def _max_allocation(
    groups: list[tuple[int, int]], quota: int, turn: int = 0
) -> tuple[list[list[int]], list[int]]:
    """Share out groups of (count, wind mask), at most ``quota`` players per wind, each player
    on a wind of its mask, as many players as possible: a max flow started from an even share.
    Returns each group's count per wind and how many of it were left out."""
    share = [[0, 0, 0, 0] for _ in groups]
    room = [quota] * 4
    order = sorted(range(len(groups)), key=lambda g: (groups[g][1].bit_count(), g))
    left = [0] * len(groups)
    for g in order:
        count, mask = groups[g]
        winds = [w for w in ((turn + i) % 4 for i in range(4)) if mask >> w & 1]
        for _ in range(count):
            w = max(winds, key=lambda w: room[w]) if winds else None
            if w is None or room[w] == 0:
                left[g] += 1
            else:
                share[g][w] += 1
                room[w] -= 1
    for g in order:
        while left[g]:
            path = _augmenting_path(groups, share, room, g)
            if path is None:
                break  # no path now means none later either (Berge)
            for giver, taken, given in path:
                share[giver][taken] -= 1
                share[giver][given] += 1
            left[g] -= 1
    return share, left


def _allocate(groups: list[tuple[int, int]], quota: int, turn: int = 0) -> list[list[int]] | None:
    """Like :func:`_max_allocation`, when every player is placed (else None)."""
    share, left = _max_allocation(groups, quota, turn)
    return None if any(left) else share


def _augmenting_path(
    groups: list[tuple[int, int]], share: list[list[int]], room: list[int], start: int
) -> list[tuple[int, int, int]] | None:
    """Place one more player of group ``start``: a chain of moves ending at a wind with room.

    Returns the moves (group, from wind, to wind) after the new player took the first wind;
    updates ``room``. Breadth-first over winds.
    """
    mask = groups[start][1]
    parent: dict[int, tuple[int, int] | None] = {}
    queue = []
    for w in range(4):
        if mask >> w & 1:
            parent[w] = None
            queue.append(w)
    while queue:
        w = queue.pop(0)
        if room[w] > 0:
            moves = []
            node = w
            while parent[node] is not None:
                giver, previous = parent[node]  # type: ignore[misc]
                moves.append((giver, previous, node))
                node = previous
            share[start][node] += 1
            room[w] -= 1
            return list(reversed(moves))
        for g, (_, other) in enumerate(groups):
            if share[g][w] == 0:
                continue
            for u in range(4):
                if other >> u & 1 and u not in parent:
                    parent[u] = (g, w)
                    queue.append(u)
    return None


def hall_ok(groups: list[tuple[int, int]], quota: int) -> bool:
    """Hall's condition: for every set S of winds, the players allowed only S fit in S."""
    for subset in range(1, 16):
        inside = sum(count for count, mask in groups if mask & ~subset == 0)
        if inside > subset.bit_count() * quota:
            return False
    return True


def lane_first_round(available: list[int]) -> dict[int, list[int]] | None:
    """A lane plan for the next four rounds, at the level of player types (see the package doc):
    for each mask of least winds, how many of its players take each wind in the first round
    (None when no plan is found).

    A type is a pair of wind masks (now, then): the player takes the winds of ``now`` first,
    then those of ``then``. Depth-first over the four rounds, a few allocations per round.
    """
    quota = len(available) // 4
    types = Counter((mask, 15 & ~mask) for mask in available)
    states = sorted(types.items())
    budget = [64]

    def search(states: list[tuple[tuple[int, int], int]], depth: int) -> list[list[int]] | None:
        if depth == 4:
            return []
        groups = [(count, now or then) for (now, then), count in states]
        if not hall_ok(groups, quota):
            return None
        for turn in range(4):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            share = _allocate(groups, quota, turn)
            if share is None:
                return None
            following: Counter[tuple[int, int]] = Counter()
            for ((now, then), _), taken in zip(states, share, strict=True):
                for w in range(4):
                    if taken[w]:
                        rest = (now & ~(1 << w), then) if now else (then & ~(1 << w), 0)
                        if rest[0] == 0:
                            rest = (rest[1], 0)
                        following[rest] += taken[w]
            if search(sorted(following.items()), depth + 1) is not None:
                return share
        return None

    share = search(states, 0)
    if share is None:
        return None
    return {now: taken for ((now, _), _), taken in zip(states, share, strict=True)}


def take_turns(
    keys: Sequence[int], order: Iterable[int], shares: Mapping[int, list[int]]
) -> list[int]:
    """A wind for each player: the players of each key take the key's share of each wind in
    turn along ``order`` (so winds alternate along it); -1 for those beyond the share."""
    left = {key: list(taken) for key, taken in shares.items()}
    turn = dict.fromkeys(shares, 0)
    classes = [-1] * len(keys)
    for p in order:
        taken, w = left[keys[p]], turn[keys[p]]
        if not any(taken):
            continue
        while taken[w % 4] == 0:
            w += 1
        classes[p] = w % 4
        taken[w % 4] -= 1
        turn[keys[p]] = w + 1
    return classes


def balanced_classes(masks: Sequence[int], order: Iterable[int]) -> list[int] | None:
    """A wind for each player from its mask, a quarter of the players on each wind, winds
    alternating along ``order`` (along the standings, for swiss); None when impossible."""
    kinds = sorted(set(masks))
    numbers = Counter(masks)
    share = _allocate([(numbers[kind], kind) for kind in kinds], len(masks) // 4)
    if share is None:
        return None
    return take_turns(masks, order, dict(zip(kinds, share, strict=True)))


def fallback_classes(counts: list[list[int]], order: list[int]) -> list[int]:
    """Winds when no lane plan is found: a quarter of the players per wind, as many players as
    possible on their least winds (a max flow), the others on their least excess wind."""
    quota = len(counts) // 4
    excess = [tuple(c - min(counts[p]) for c in counts[p]) for p in range(len(counts))]
    kinds = sorted(set(excess))
    numbers = Counter(excess)
    strict = [(numbers[kind], sum(1 << w for w in range(4) if kind[w] == 0)) for kind in kinds]
    share, _ = _max_allocation(strict, quota)
    classes = take_turns(excess, order, dict(zip(kinds, share, strict=True)))
    room = [quota - classes.count(w) for w in range(4)]
    for p in order:
        if classes[p] < 0:
            w = min((w for w in range(4) if room[w]), key=lambda w: (excess[p][w], -room[w], w))
            classes[p] = w
            room[w] -= 1
    return classes
