"""Bonus items that depend on how the hand was won, not on its tiles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hebei.rules.melds import MeldKind
from hebei.rules.readings import Shape
from hebei.rules.scoring.context import WinKind
from hebei.rules.scoring.fans.base import FanRule

if TYPE_CHECKING:
    from hebei.rules.profile import RuleProfile
    from hebei.rules.readings import Reading
    from hebei.rules.scoring.context import WinContext


class MenQing(FanRule):
    """门清: no pong and no exposed or added kong (nor chow); concealed kongs are allowed
    when the profile says so (``men_qing_allows_concealed_kong``).

    **Decision:** not on seven pairs or thirteen orphans (``men_qing_on_special_hands``).
    """

    id = "men_qing"
    name_zh = "门清"
    fan = 2

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        if reading.shape is not Shape.STANDARD and not profile.men_qing_on_special_hands:
            return False
        if not ctx.melds:
            return True
        return profile.men_qing_allows_concealed_kong and all(
            m.kind is MeldKind.CONCEALED_KONG for m in ctx.melds
        )


class QiangGangHu(FanRule):
    """抢杠胡: won by robbing an added kong."""

    id = "qiang_gang_hu"
    name_zh = "抢杠胡"
    fan = 2

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return ctx.win is WinKind.ROB_KONG


class GangShangKaiHua(FanRule):
    """杠上开花: self-draw on a kong replacement tile."""

    id = "gang_shang_kai_hua"
    name_zh = "杠上开花"
    fan = 2

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return ctx.is_self_draw and ctx.kong_replacement


class HaiDiLaoYue(FanRule):
    """海底捞月: self-draw on the last normal draw (a discard of it does not count)."""

    id = "hai_di_lao_yue"
    name_zh = "海底捞月"
    fan = 2

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return ctx.is_self_draw and ctx.last_tile
