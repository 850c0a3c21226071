"""Bonus items of the special shapes: seven pairs (七对 and its family) and thirteen orphans.

The seven-pairs family is one rule with two knobs: how many four-of-a-kinds the
hand holds, and (for 混七对/青七对) which suits it is made of.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from hebei.rules.readings import Shape
from hebei.rules.scoring.fans.base import (
    ONE_SUIT,
    ONE_SUIT_WITH_HONORS,
    FanRule,
    four_of_a_kinds,
    suits_used,
)

if TYPE_CHECKING:
    from hebei.rules.profile import RuleProfile
    from hebei.rules.readings import Reading
    from hebei.rules.scoring.context import WinContext


class _SevenPairs(FanRule):
    """Seven pairs with exactly ``quads`` four-of-a-kinds (None: any number) and, if set,
    the suit ``pattern``."""

    quads: ClassVar[int | None] = 0
    pattern: ClassVar[tuple[int, bool] | None] = None

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return (
            reading.shape is Shape.SEVEN_PAIRS
            and (self.quads is None or four_of_a_kinds(reading.counts) == self.quads)
            and (self.pattern is None or suits_used(reading.counts) == self.pattern)
        )


class QiDui(_SevenPairs):
    """七对: seven pairs with no four-of-a-kind."""

    id = "qi_dui"
    name_zh = "七对"
    fan = 2


class HunQiDui(_SevenPairs):
    """混七对: seven pairs (no four-of-a-kind) that is also 混一色; replaces both."""

    id = "hun_qi_dui"
    name_zh = "混七对"
    fan = 4
    pattern = ONE_SUIT_WITH_HONORS
    replaces = ("qi_dui", "hun_yi_se")


class QingQiDui(_SevenPairs):
    """青七对: seven pairs (no four-of-a-kind) that is also 青一色; replaces both."""

    id = "qing_qi_dui"
    name_zh = "青七对"
    fan = 5
    pattern = ONE_SUIT
    replaces = ("qi_dui", "qing_yi_se")


class HaoHuaQiDui(_SevenPairs):
    """豪华七对 (单豪): one four-of-a-kind; replaces 七对, a flush adds on."""

    id = "hao_hua_qi_dui"
    name_zh = "豪华七对"
    fan = 8
    quads = 1
    replaces = ("qi_dui",)


class ShuangHaoHuaQiDui(_SevenPairs):
    """双豪华七对: two four-of-a-kinds; replaces 七对, a flush adds on."""

    id = "shuang_hao_hua_qi_dui"
    name_zh = "双豪华七对"
    fan = 16
    quads = 2
    replaces = ("qi_dui",)


class SanHaoHuaQiDui(_SevenPairs):
    """三豪华七对: three four-of-a-kinds; replaces 七对, a flush adds on."""

    id = "san_hao_hua_qi_dui"
    name_zh = "三豪华七对"
    fan = 32
    quads = 3
    replaces = ("qi_dui",)


class ShiSanYao(FanRule):
    """十三幺: thirteen orphans."""

    id = "shi_san_yao"
    name_zh = "十三幺"
    fan = 10

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return reading.shape is Shape.THIRTEEN_ORPHANS
