"""`hebei bench pair`: two runs of `hebei bench bots --json` on the same walls, paired wall by
wall.

A change to a policy is measured by running the benchmark before and after it on the same
walls (the same ``--seed``, ``--seeds``, ``--hands``, line-ups and rule profile) and taking,
for every comparison of a line-up (``expert:4`` − ``efficiency``, ...), the difference
between the two runs wall by wall: the luck of each wall is in both runs, so the paired
interval is narrower than either run's own (on 1,600 walls of the expert against three
efficiency players, the screens of docs/bots-research.md measured ± 0.01-0.06 paired, the fewer walls a change
moves the narrower, against ± 0.09 for a run alone). The
walls where the two runs differ are counted too: a change that alters few decisions moves
few walls.

Only the runs' JSON is read; nothing is played. Both runs must come from the same walls:
anything else is refused with a :class:`PairingError` naming the difference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hebei.bench.bots import Estimate, estimate

# Two runs' per-wall figures are rounded to 6 decimals in the JSON; a wall "differs" beyond
# that rounding.
SAME = 1e-5
# The line-up fields both runs must share to have played the same walls.
SAME_WALLS = ("wall_seed", "seeds", "hands_per_match", "profile", "lineup")


# A seat's points per hand: a hand pays at most a few hundred points (RULES.md §5-§7), so a
# figure beyond this is not from a run.
MAX_POINTS = 10_000


class PairingError(ValueError):
    """The two runs cannot be paired (not benchmark output, or not the same walls)."""


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """One comparison of one line-up, before and after, and the change wall by wall."""

    lineup: str
    stronger: str
    weaker: str
    base: Estimate
    change: Estimate
    paired: Estimate  # (change - base) of the comparison, wall by wall
    walls: int
    differing: int  # walls where the comparison's figure moved

    def to_json(self) -> dict:
        return {
            "lineup": self.lineup,
            "stronger": self.stronger,
            "weaker": self.weaker,
            "base": self.base.to_json(),
            "change": self.change.to_json(),
            "paired": self.paired.to_json(),
            "paired_low": round(self.paired.low, 3),
            "paired_high": round(self.paired.high, 3),
            "walls": self.walls,
            "walls_differing": self.differing,
        }


def _lineups(run: object, name: str) -> list[dict]:
    if not isinstance(run, Mapping) or not isinstance(run.get("lineups"), list):
        raise PairingError(f"{name}: not the output of `hebei bench bots --json`")
    lineups = run["lineups"]
    if not lineups:
        raise PairingError(f"{name}: no line-ups")
    for lineup in lineups:
        if not isinstance(lineup, Mapping) or not isinstance(lineup.get("policies"), list):
            raise PairingError(f"{name}: not the output of `hebei bench bots --json`")
        if "wall_seed" not in lineup:
            raise PairingError(
                f"{name}: written by an older `hebei bench bots` (no wall_seed), so its walls"
                " cannot be checked: run it again"
            )
    return lineups


def _by_seed(lineup: Mapping, name: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for policy in lineup["policies"]:
        figures = policy.get("points_per_hand_by_seed") if isinstance(policy, Mapping) else None
        if not isinstance(figures, list) or len(figures) != lineup.get("seeds"):
            raise PairingError(f"{name}: a policy without its points per hand by wall")
        if not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) <= MAX_POINTS
            for x in figures
        ):  # NaN fails the bound too
            raise PairingError(
                f"{name}: points per hand by wall must be numbers within ±{MAX_POINTS:,}"
            )
        out[str(policy.get("policy"))] = [float(x) for x in figures]
    return out


def _comparisons(lineup: Mapping, name: str) -> list[tuple[str, str]]:
    pairs = []
    comparisons = lineup.get("comparisons") or []
    if not isinstance(comparisons, list):
        raise PairingError(f"{name}: a line-up's comparisons must be a list")
    for c in comparisons:
        if not isinstance(c, Mapping) or "stronger" not in c or "weaker" not in c:
            raise PairingError(f"{name}: a comparison without its stronger and weaker policy")
        pairs.append((str(c["stronger"]), str(c["weaker"])))
    return pairs


def pair_runs(
    base: object, change: object, names: tuple[str, str] = ("BASE", "CHANGE")
) -> list[PairedComparison]:
    """Every comparison of every line-up of two `hebei bench bots --json` outputs, paired
    wall by wall. PairingError unless both played the same line-ups on the same walls; its
    message calls the runs by ``names``."""
    b_name, c_name = names
    before, after = _lineups(base, b_name), _lineups(change, c_name)
    if len(before) != len(after):
        raise PairingError(f"{b_name} has {len(before)} line-ups, {c_name} {len(after)}")
    out: list[PairedComparison] = []
    for i, (b, c) in enumerate(zip(before, after, strict=True), start=1):
        for key in SAME_WALLS:
            if b.get(key) != c.get(key):
                raise PairingError(
                    f"line-up {i}: {key} is {b.get(key)!r} in {b_name} and {c.get(key)!r} in"
                    f" {c_name}: not the same walls"
                )
        comparisons = _comparisons(b, b_name)
        if comparisons != _comparisons(c, c_name):
            raise PairingError(f"line-up {i}: the two runs compare different policies")
        b_seeds, c_seeds = _by_seed(b, b_name), _by_seed(c, c_name)
        for stronger, weaker in comparisons:
            for policies, name in ((b_seeds, b_name), (c_seeds, c_name)):
                if stronger not in policies or weaker not in policies:
                    raise PairingError(f"{name}: line-up {i} compares a policy it does not list")
            out.append(_pair(str(b.get("title", i)), stronger, weaker, b_seeds, c_seeds))
    return out


def _pair(
    title: str,
    stronger: str,
    weaker: str,
    base: Mapping[str, Sequence[float]],
    change: Mapping[str, Sequence[float]],
) -> PairedComparison:
    before = [s - w for s, w in zip(base[stronger], base[weaker], strict=True)]
    after = [s - w for s, w in zip(change[stronger], change[weaker], strict=True)]
    moved = [a - b for a, b in zip(after, before, strict=True)]
    return PairedComparison(
        title,
        stronger,
        weaker,
        estimate(before),
        estimate(after),
        estimate(moved),
        len(moved),
        sum(1 for m in moved if abs(m) > SAME),
    )
