"""The wind rule of a round: regular states, and the lanes (each player's winds in the next
four rounds) followed after players join or leave; the wind masks a round's players may take
(see "Seat winds" in :mod:`hebei.matchmaking.seating`)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

from hebei.matchmaking.seating.clock import shuffled
from hebei.matchmaking.seating.model import Table
from hebei.matchmaking.seating.winds import (
    balanced_classes,
    fallback_classes,
    is_regular,
    lane_first_round,
    least_winds,
    take_turns,
)

_Lane = tuple[int, ...]
"""A player's winds in the next four rounds."""
_CYCLIC_LANES: tuple[_Lane, ...] = ((0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2))
NO_WINDS = (0, 0, 0, 0)


def _regular_lanes(players: list[str], available: Mapping[str, int]) -> dict[str, _Lane] | None:
    """Lanes of a regular state: the least winds, then the others, each cut into rounds by
    balanced matchings (each one leaves the rest regular, so the next one exists)."""
    lanes: dict[str, list[int]] = {p: [] for p in players}
    for part in (
        [available[p] for p in players],
        [15 & ~available[p] for p in players],
    ):
        while part[0]:
            classes = balanced_classes(part, range(len(players)))
            if classes is None:
                return None
            for i, w in enumerate(classes):
                lanes[players[i]].append(w)
                part[i] &= ~(1 << w)
    return {p: tuple(lane) for p, lane in lanes.items()}


def _lane_fits(lane: _Lane, available: int) -> bool:
    """A lane fits a player who must first take the winds ``available``."""
    return sum(1 << w for w in lane[: available.bit_count()]) == available


def _balanced_lanes(lanes: list[_Lane]) -> bool:
    """Each of the four rounds has every wind on the same number of these lanes."""
    return all(
        len(set(Counter(lane[s] for lane in lanes).values())) <= 1
        and len({lane[s] for lane in lanes}) in (0, 4)
        for s in range(4)
    )


def _repair_lanes(
    base: Mapping[str, _Lane], players: list[str], available: Mapping[str, int]
) -> dict[str, _Lane] | None:
    """Lanes for ``players`` from those of the last round's players: who stays keeps its lane,
    who arrives takes the lane of one who left (if it fits), further arrivals come in fours on
    the cyclic lanes; the lanes left over must be balanced. None when that fails."""
    lanes: dict[str, _Lane] = {}
    staying = set(players)
    for p in players:
        if p in base:
            if not _lane_fits(base[p], available[p]):
                return None
            lanes[p] = base[p]
    freed = [base[p] for p in sorted(base) if p not in staying]
    arrivals = sorted((p for p in players if p not in base), key=lambda p: (available[p], p))
    extra = []
    for p in arrivals:
        fitting = [i for i, lane in enumerate(freed) if _lane_fits(lane, available[p])]
        if fitting:
            lanes[p] = freed.pop(fitting[0])
        else:
            extra.append(p)
    if len(extra) % 4 or any(available[p] != 15 for p in extra) or not _balanced_lanes(freed):
        return None
    for i, p in enumerate(extra):
        lanes[p] = _CYCLIC_LANES[i % 4]
    return lanes


def _wind_rule(
    carried: Mapping[str, _Lane] | None,
    previous: list[str],
    players: list[str],
    counts: Mapping[str, list[int]],
) -> dict[str, _Lane] | bool:
    """How a round's winds are chosen: True when the state is regular (any distinct least
    winds at each table), else the lanes to follow, or False when none were found."""
    available = {p: least_winds(counts.get(p, NO_WINDS)) for p in players}
    if is_regular(list(available.values())):
        return True
    base = carried
    if base is None and previous:
        before = {p: least_winds(counts.get(p, NO_WINDS)) for p in previous}
        if is_regular(list(before.values())):
            base = _regular_lanes(previous, before)
    if base is not None:
        return _repair_lanes(base, players, available) or False
    return False


def _carried_lanes(
    history: list[list[Table]],
) -> tuple[dict[str, _Lane] | None, list[str], dict[str, list[int]]]:
    """Replay the wind rule over the history: the lanes to carry into the next round (when the
    last round followed its lanes, rotated by one), its players and everyone's wind counts."""
    counts: dict[str, list[int]] = {}
    carried: dict[str, _Lane] | None = None
    previous: list[str] = []
    for tables in history:
        seated = list(dict.fromkeys(p for table in tables for p in table))
        rule = _wind_rule(carried, previous, seated, counts)
        winds = {p: w for table in tables for w, p in enumerate(table)}
        carried = None
        if isinstance(rule, dict) and all(rule[p][0] == winds[p] for p in seated):
            carried = {p: (*lane[1:], lane[0]) for p, lane in rule.items()}
        for p, w in winds.items():
            counts.setdefault(p, [0, 0, 0, 0])[w] += 1
        previous = seated
    return carried, previous, counts


def round_winds(ids: list[str], history: list[list[Table]], order: list[int]) -> list[int]:
    """The wind masks this round's players may take (see "Seat winds" in the package doc)."""
    carried, previous, by_id = _carried_lanes(history)
    rule = _wind_rule(carried, previous, ids, by_id)
    counts = [by_id.get(p, list(NO_WINDS)) for p in ids]
    available = [least_winds(c) for c in counts]
    if rule is True:
        return available
    if isinstance(rule, dict):
        return [1 << rule[p][0] for p in ids]
    shares = lane_first_round(available)
    if shares is not None:
        classes = take_turns(available, order, shares)
    elif balanced_classes(available, order) is not None:
        return available  # no plan for four rounds, but this one keeps everyone within one
    else:
        classes = fallback_classes(counts, order)
    return [1 << w for w in classes]


def classes_for(allowed: list[int], rng: random.Random) -> list[int]:
    """One wind per player from its mask, a quarter of the players per wind."""
    classes = balanced_classes(allowed, shuffled(len(allowed), rng))
    if classes is None:  # pragma: no cover - masks come from round_winds, always feasible
        raise AssertionError("wind masks without a balanced round")
    return classes
