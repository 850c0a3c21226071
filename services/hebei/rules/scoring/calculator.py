"""The fan calculator: the best reading of a win, its bonus items and its payments."""

from __future__ import annotations

from dataclasses import dataclass

from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.readings import Reading, Shape, readings
from hebei.rules.scoring.context import WinContext, WinKind
from hebei.rules.scoring.fans import ALL_FANS, FanRule
from hebei.rules.scoring.payments import Deltas, win_payments
from hebei.rules.tiles import TILE_NAMES

# Tie-break between readings of equal fan: a named special shape first, then the
# reading's text, so the choice never depends on enumeration order.
_SHAPE_RANK = {Shape.THIRTEEN_ORPHANS: 0, Shape.SEVEN_PAIRS: 1, Shape.STANDARD: 2}


@dataclass(frozen=True, slots=True)
class Fan:
    """One bonus item scored on a win."""

    id: str
    fan: int
    name_zh: str

    @classmethod
    def of(cls, rule: FanRule) -> Fan:
        return cls(rule.id, rule.fan, rule.name_zh)


@dataclass(frozen=True, slots=True)
class ScoredWin:
    """A scored win: the chosen reading's items and the hand payments (no kong payments)."""

    winner: int
    discarder: int | None
    win: WinKind
    win_tile: int
    fans: tuple[Fan, ...]  # sorted by id
    bonus: int  # sum of fans
    base: Deltas  # base payments by seat (sum 0)
    deltas: Deltas  # base + bonus payments by seat (sum 0)
    reading: str  # e.g. "11s 123s 456s 789s 999s"

    def to_json(self) -> dict:
        return {
            "winner": self.winner,
            "discarder": self.discarder,
            "win": self.win.value,
            "win_tile": TILE_NAMES[self.win_tile],
            "fans": [{"id": f.id, "fan": f.fan} for f in self.fans],
            "bonus": self.bonus,
            "deltas": list(self.deltas),
        }


def fans_of(reading: Reading, ctx: WinContext, profile: RuleProfile = MAIN) -> tuple[FanRule, ...]:
    """The items that score on ``reading``, after replacements (混七对 drops 七对 and 混一色)."""
    hits = [rule for rule in ALL_FANS if rule.applies(reading, ctx, profile)]
    replaced = {r for rule in hits for r in rule.replaces}
    return tuple(rule for rule in hits if rule.id not in replaced)


def best_reading(
    ctx: WinContext, profile: RuleProfile = MAIN
) -> tuple[Reading, tuple[FanRule, ...]] | None:
    """The reading with the highest total fan and its items; None when the hand is not a win."""
    best_key: tuple[int, int] | None = None
    tied: list[tuple[Reading, tuple[FanRule, ...]]] = []
    for reading in readings(ctx.concealed, ctx.melds, ctx.win_tile, profile):
        rules = fans_of(reading, ctx, profile)
        key = (-sum(r.fan for r in rules), _SHAPE_RANK[reading.shape])
        if best_key is None or key < best_key:
            best_key, tied = key, [(reading, rules)]
        elif key == best_key:
            tied.append((reading, rules))
    if not tied:
        return None
    return min(tied, key=lambda pair: str(pair[0])) if len(tied) > 1 else tied[0]


def score_win(ctx: WinContext, profile: RuleProfile = MAIN) -> ScoredWin | None:
    """Score a declared win; None when the hand is not a legal win.

    Raises :class:`~hebei.rules.errors.NotationError` for a context that cannot
    happen (wrong tile count, more than four copies, a discard win without a
    discarder or won on one's own discard, ...).
    """
    ctx.check()
    chosen = best_reading(ctx, profile)
    if chosen is None:
        return None
    reading, rules = chosen
    fans = tuple(sorted((Fan.of(r) for r in rules), key=lambda f: f.id))
    bonus = sum(f.fan for f in fans)
    base, deltas = win_payments(ctx.winner, ctx.dealer, ctx.win, ctx.discarder, bonus, profile)
    return ScoredWin(
        winner=ctx.winner,
        discarder=ctx.discarder,
        win=ctx.win,
        win_tile=ctx.win_tile,
        fans=fans,
        bonus=bonus,
        base=base,
        deltas=deltas,
        reading=str(reading),
    )
