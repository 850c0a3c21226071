"""The shape of a bonus item (RULES.md §6) and small helpers the items share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from hebei.rules.tiles import SUIT_SLICES

if TYPE_CHECKING:
    from hebei.rules.profile import RuleProfile
    from hebei.rules.readings import Reading
    from hebei.rules.scoring.context import WinContext


class FanRule:
    """One bonus item: ``applies`` says whether it scores on a reading of a win.

    ``replaces`` names the items this one stands in for when both apply (混七对
    replaces 七对 and 混一色); the calculator drops those.
    """

    id: ClassVar[str]
    name_zh: ClassVar[str]
    fan: ClassVar[int]
    replaces: ClassVar[tuple[str, ...]] = ()

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


def four_of_a_kinds(counts: Sequence[int]) -> int:
    """How many kinds the hand holds all four of (the 豪 of 豪华七对)."""
    return sum(1 for c in counts if c == 4)
