"""The fan calculator: the best reading of a win, its items and its payments, by the
profile's scoring system (:mod:`hebei.rules.scoring.systems`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.readings import Reading, Shape, readings
from hebei.rules.scoring.context import WinContext, WinKind
from hebei.rules.scoring.fans import FanRule
from hebei.rules.scoring.fans.base import Fan
from hebei.rules.scoring.payments import Deltas
from hebei.rules.scoring.systems import applied, fans_by_id, system_of
from hebei.rules.tiles import TILE_NAMES

# Tie-break between readings of equal fan: a named special shape first, then the
# reading's text, so the choice never depends on enumeration order.
_SHAPE_RANK = {Shape.THIRTEEN_ORPHANS: 0, Shape.SEVEN_PAIRS: 1, Shape.STANDARD: 2}

__all__ = ["Fan", "ScoredWin", "best_reading", "fans_of", "score_win"]


@dataclass(frozen=True, slots=True)
class ScoredWin:
    """A scored win: the chosen reading's items and the hand payments (no kong payments)."""

    winner: int
    discarder: int | None
    win: WinKind
    win_tile: int
    fans: tuple[Fan, ...]  # additive: sorted by id; doubling: the pattern, then doublings
    bonus: int  # additive: sum of fans; doubling: the points
    base: Deltas  # base payments by seat (sum 0); doubling: the same as deltas
    deltas: Deltas  # base + bonus payments by seat (sum 0)
    reading: str  # e.g. "11s 123s 456s 789s 999s"
    points: int | None = None  # doubling scoring (§9): pattern points x2 per doubling

    def to_json(self) -> dict:
        out = {
            "winner": self.winner,
            "discarder": self.discarder,
            "win": self.win.value,
            "win_tile": TILE_NAMES[self.win_tile],
            "fans": [f.to_json() for f in self.fans],
        }
        if self.points is None:
            out["bonus"] = self.bonus
        else:
            out["points"] = self.points
        out["deltas"] = list(self.deltas)
        return out


def fans_of(reading: Reading, ctx: WinContext, profile: RuleProfile = MAIN) -> tuple[FanRule, ...]:
    """The items of the profile's table that apply to ``reading``, after replacements
    (混七对 drops 七对 and 混一色). The classic rules then pick the pattern and doublings
    among them (see :class:`~hebei.rules.scoring.systems.DoublingScoring`)."""
    return applied(system_of(profile).fans, reading, ctx, profile)


def _valued(
    ctx: WinContext, profile: RuleProfile
) -> Iterator[tuple[Reading, tuple[Fan, ...], int]]:
    """Every reading of the win with its scored items and value."""
    system = system_of(profile)
    for reading in readings(ctx.concealed, ctx.melds, ctx.win_tile, profile):
        items = system.items(reading, ctx, profile)
        yield reading, items, system.value(items, profile)


def _best(ctx: WinContext, profile: RuleProfile) -> tuple[Reading, tuple[Fan, ...], int] | None:
    """The reading of highest value, its scored items and value; None when not a win."""
    best_key: tuple[int, int] | None = None
    tied: list[tuple[Reading, tuple[Fan, ...], int]] = []
    for reading, items, value in _valued(ctx, profile):
        key = (-value, _SHAPE_RANK[reading.shape])
        if best_key is None or key < best_key:
            best_key, tied = key, [(reading, items, value)]
        elif key == best_key:
            tied.append((reading, items, value))
    if not tied:
        return None
    return min(tied, key=lambda found: str(found[0])) if len(tied) > 1 else tied[0]


def best_reading(
    ctx: WinContext, profile: RuleProfile = MAIN
) -> tuple[Reading, tuple[FanRule, ...]] | None:
    """The reading with the highest value and the rules of its items; None when the hand is
    not a win. (With doubling scoring, :func:`score_win` gives the points.)"""
    chosen = _best(ctx, profile)
    if chosen is None:
        return None
    reading, items, _ = chosen
    table = fans_by_id(profile)
    return reading, tuple(table[f.id] for f in items)


def win_deltas(ctx: WinContext, profile: RuleProfile = MAIN) -> Deltas | None:
    """The payments of a declared win, as :func:`score_win` gives them (they depend on the
    best reading's value alone), without naming the reading or its items; None when the
    hand is not a legal win. For callers that only need the points, many times a decision
    (the expert's play-outs)."""
    ctx.check(profile)
    value = max((value for _, _, value in _valued(ctx, profile)), default=None)
    if value is None:
        return None
    return system_of(profile).payments(ctx, value, profile)[1]


def score_win(ctx: WinContext, profile: RuleProfile = MAIN) -> ScoredWin | None:
    """Score a declared win; None when the hand is not a legal win.

    Raises :class:`~hebei.rules.errors.NotationError` for a context that cannot
    happen (wrong tile count, more than four copies, a discard win without a
    discarder or won on one's own discard, a chow where the profile has none, ...).
    """
    ctx.check(profile)
    chosen = _best(ctx, profile)
    if chosen is None:
        return None
    reading, fans, value = chosen
    system = system_of(profile)
    base, deltas = system.payments(ctx, value, profile)
    return ScoredWin(
        winner=ctx.winner,
        discarder=ctx.discarder,
        win=ctx.win,
        win_tile=ctx.win_tile,
        fans=fans,
        bonus=value,
        base=base,
        deltas=deltas,
        reading=str(reading),
        points=value if system.reports_points else None,
    )
