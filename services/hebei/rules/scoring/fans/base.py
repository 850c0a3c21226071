"""The shape of a scoring item (RULES.md §6, §9) and small helpers the items share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from hebei.rules.tiles import SUIT_SLICES

if TYPE_CHECKING:
    from hebei.rules.profile import RuleProfile
    from hebei.rules.readings import Reading
    from hebei.rules.scoring.context import WinContext


@dataclass(frozen=True, slots=True)
class Fan:
    """One item scored on a win: a bonus item (§6), a classic pattern worth ``fan`` points,
    or a classic doubling (``doubling``: ``fan`` is its factor, 2)."""

    id: str
    fan: int
    name_zh: str
    doubling: bool = False

    @classmethod
    def of(cls, rule: FanRule) -> Fan:
        return cls(rule.id, rule.fan, rule.name_zh, rule.doubling)

    def to_json(self) -> dict:
        if self.doubling:
            return {"id": self.id, "times": self.fan}
        return {"id": self.id, "fan": self.fan}


class FanRule:
    """One scoring item: ``applies`` says whether it scores on a reading of a win.

    ``replaces`` names the items this one stands in for when both apply (混七对
    replaces 七对 and 混一色); the calculator drops those.

    The main rules (§6) add up bonus items worth ``fan`` each. The classic rules (§9)
    score one *pattern* (``fan`` is its points) times two per *doubling* (``doubling``
    set, ``fan`` is 2); ``basic`` marks 屁胡, the pattern of any legal standard hand, and
    ``doubles_another_pattern`` a pattern that counts as a doubling instead when the
    hand has another pattern than the basic one (青一色).
    """

    id: ClassVar[str]
    name_zh: ClassVar[str]
    fan: ClassVar[int]
    replaces: ClassVar[tuple[str, ...]] = ()
    doubling: ClassVar[bool] = False
    basic: ClassVar[bool] = False
    doubles_another_pattern: ClassVar[bool] = False

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} {self.fan}>"


# Patterns of :func:`suits_used`.
ONE_SUIT = (1, False)  # 青一色
ONE_SUIT_WITH_HONORS = (1, True)  # 混一色
HONORS_ONLY = (0, True)  # 清风


def suits_used(counts: Sequence[int]) -> tuple[int, bool]:
    """(how many of the three suits appear, whether any honor appears)."""
    suits = sum(1 for start, stop in SUIT_SLICES[:3] if any(counts[start:stop]))
    start, stop = SUIT_SLICES[3]
    return suits, any(counts[start:stop])


def suit_sizes(counts: Sequence[int]) -> tuple[int, int, int, int]:
    """How many tiles of each suit (m, p, s) and of honors ``counts`` holds."""
    m, p, s, z = (sum(counts[start:stop]) for start, stop in SUIT_SLICES)
    return m, p, s, z


def four_of_a_kinds(counts: Sequence[int]) -> int:
    """How many kinds the hand holds all four of (the 豪 of 豪华七对)."""
    return sum(1 for c in counts if c == 4)
