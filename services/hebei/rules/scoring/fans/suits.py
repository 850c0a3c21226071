"""Bonus items about which suits the whole hand (melds included) is made of."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from hebei.rules.scoring.fans.base import (
    HONORS_ONLY,
    ONE_SUIT,
    ONE_SUIT_WITH_HONORS,
    FanRule,
    suits_used,
)

if TYPE_CHECKING:
    from hebei.rules.profile import RuleProfile
    from hebei.rules.readings import Reading
    from hebei.rules.scoring.context import WinContext


class _SuitPattern(FanRule):
    """Scores when :func:`suits_used` of the whole hand is exactly ``pattern``."""

    pattern: ClassVar[tuple[int, bool]]

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return suits_used(reading.counts) == self.pattern


class QingYiSe(_SuitPattern):
    """青一色: every tile of one suit, no honors."""

    id = "qing_yi_se"
    name_zh = "青一色"
    fan = 3
    pattern = ONE_SUIT


class HunYiSe(_SuitPattern):
    """混一色: one suit plus honors, both present."""

    id = "hun_yi_se"
    name_zh = "混一色"
    fan = 2
    pattern = ONE_SUIT_WITH_HONORS


class QingFeng(_SuitPattern):
    """清风: every tile an honor (winds and dragons), in any legal shape."""

    id = "qing_feng"
    name_zh = "清风"
    fan = 3
    pattern = HONORS_ONLY
