"""The items of the classic rules (RULES.md §9): patterns worth points, and doublings.

A classic win scores the points of one pattern, times two per doubling. Most items are
the main ones (§6) with another value or role, so they subclass them; the table of
every classic item, in order, is :data:`hebei.rules.scoring.fans.CLASSIC_FANS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from hebei.rules.readings import Shape
from hebei.rules.scoring.context import WinKind
from hebei.rules.scoring.fans.base import ONE_SUIT, ONE_SUIT_WITH_HONORS, FanRule, suit_sizes
from hebei.rules.scoring.fans.pairs import ShiSanYao, _SevenPairs
from hebei.rules.scoring.fans.sets import PengPengHu, YiTiaoLong
from hebei.rules.scoring.fans.situation import GangShangKaiHua, HaiDiLaoYue, MenQing
from hebei.rules.scoring.fans.suits import HunYiSe, QingFeng, QingYiSe

if TYPE_CHECKING:
    from hebei.rules.profile import RuleProfile
    from hebei.rules.readings import Reading
    from hebei.rules.scoring.context import WinContext

PAIR_TILES = 2

# ---------------------------------------------------------------------------- patterns


class PingHu(FanRule):
    """屁胡: the basic win, four sets and a pair (the profile's 一色够八张 already holds:
    a standard reading without it is not a win, see :func:`hebei.rules.readings.readings`)."""

    id = "ping_hu"
    name_zh = "屁胡"
    fan = 1
    basic = True

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return reading.shape is Shape.STANDARD


class ClassicHunYiSe(HunYiSe):
    """混一色: one suit of at least ``one_suit_minimum`` (eight) tiles plus honors."""

    fan = 2

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return super().applies(reading, ctx, profile) and (
            max(suit_sizes(reading.counts)[:3]) >= profile.one_suit_minimum
        )


class QiXiaoDui(_SevenPairs):
    """七小对: seven pairs (four of a kind counts as two, §4); needs no eight of one suit."""

    id = "qi_xiao_dui"
    name_zh = "七小对"
    fan = 2
    quads = None


class DaDuiHu(PengPengHu):
    """大对胡: four pungs and a pair: no chow, and no kong of any kind."""

    id = "da_dui_hu"
    name_zh = "大对胡"
    fan = 2
    kongs = False


class Long(YiTiaoLong):
    """龙: 123, 456 and 789 of one suit; declared chows count."""

    id = "long"
    name_zh = "龙"
    fan = 3


class ClassicShiSanYao(ShiSanYao):
    """十三幺: thirteen orphans (the extra tile a dragon, as §4 decides)."""

    fan = 15


class ClassicQingFeng(QingFeng):
    """清风: every tile an honor (so no chow), in any legal shape."""

    fan = 15


class ClassicHunQiDui(_SevenPairs):
    """混七对: seven pairs, at least ``min_pairs`` (five) pairs of one suit, the rest honors
    (**Decision**); replaces 七小对 and 混一色."""

    id = "hun_qi_dui"
    name_zh = "混七对"
    fan = 6
    quads = None
    pattern = ONE_SUIT_WITH_HONORS
    min_pairs: ClassVar[int] = 5
    replaces = ("qi_xiao_dui", "hun_yi_se")

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return super().applies(reading, ctx, profile) and (
            max(suit_sizes(reading.counts)[:3]) >= self.min_pairs * PAIR_TILES
        )


class ClassicQingQiDui(_SevenPairs):
    """青七对: seven pairs of one suit; replaces 七小对 and 青一色 (its doubling too)."""

    id = "qing_qi_dui"
    name_zh = "青七对"
    fan = 12
    quads = None
    pattern = ONE_SUIT
    replaces = ("qi_xiao_dui", "qing_yi_se")


class ClassicQingYiSe(QingYiSe):
    """青一色: every tile of one suit. Alone (a 屁胡) it is a pattern worth 3; on another
    pattern it doubles that pattern instead."""

    fan = 3
    doubles_another_pattern = True


# ---------------------------------------------------------------------------- doublings


class _Doubling(FanRule):
    """A doubling: x2, cumulative."""

    fan = 2
    doubling = True


class ZiMo(_Doubling):
    """自摸 (提): a self-draw, the dealer's first-turn win included."""

    id = "zi_mo"
    name_zh = "自摸"

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return ctx.win is WinKind.SELF_DRAW


class MenQingDoubling(_Doubling, MenQing):
    """门清: no chow, pong or kong (a concealed kong too: ``men_qing_allows_concealed_kong``);
    like §6, not on seven pairs or thirteen orphans (``men_qing_on_special_hands``)."""


class GangShangKaiHuaDoubling(_Doubling, GangShangKaiHua):
    """杠上开花: a self-draw on a kong replacement tile."""


class HaiDiLaoYueDoubling(_Doubling, HaiDiLaoYue):
    """海底捞月: a self-draw on the last normal draw only (its discard does not count)."""
