"""Bonus items about the sets of a standard reading and where the winning tile sits."""

from __future__ import annotations

from itertools import permutations
from typing import TYPE_CHECKING, ClassVar

from hebei.rules.readings import GroupKind, Shape
from hebei.rules.scoring.fans.base import FanRule

if TYPE_CHECKING:
    from hebei.rules.profile import RuleProfile
    from hebei.rules.readings import Reading
    from hebei.rules.scoring.context import WinContext

FIVE_MAN = 4  # 5m
FOUR_MAN = 3  # 4m, the lowest tile of 4m5m6m


class PengPengHu(FanRule):
    """碰碰胡: a standard hand whose four sets are all pungs or kongs (``kongs`` allowed)."""

    id = "peng_peng_hu"
    name_zh = "碰碰胡"
    fan = 3
    kongs: ClassVar[bool] = True

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        if reading.shape is not Shape.STANDARD:
            return False
        if self.kongs:
            return all(g.is_triplet for g in reading.groups if g.is_set)
        return all(g.kind is GroupKind.PUNG for g in reading.groups if g.is_set)


class DaDiaoChe(FanRule):
    """大吊车: four melds declared, one tile left in hand, and the win completes its pair."""

    id = "da_diao_che"
    name_zh = "大吊车"
    fan = 2

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        return len(ctx.melds) == 4 and reading.winning_group.kind is GroupKind.PAIR


class _Dragon(FanRule):
    """Chows 123, 456 and 789 whose suits follow one of ``suit_orders``."""

    suit_orders: ClassVar[tuple[tuple[int, int, int], ...]]

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        chows = set(reading.chows)
        return any(
            {suits[0] * 9, suits[1] * 9 + 3, suits[2] * 9 + 6} <= chows
            for suits in self.suit_orders
        )


class YiTiaoLong(_Dragon):
    """一条龙: chows 123, 456 and 789 of one suit in the reading."""

    id = "yi_tiao_long"
    name_zh = "一条龙"
    fan = 2
    suit_orders = tuple((s, s, s) for s in range(3))


class HuaLong(_Dragon):
    """花龙: chows 123, 456 and 789, each of a different suit, in the reading."""

    id = "hua_long"
    name_zh = "花龙"
    fan = 5
    suit_orders = tuple(permutations(range(3)))


class ZhuoWu(FanRule):
    """捉五: the winning tile is 5m and completes 4m5m6m as its middle (closed wait)."""

    id = "zhuo_wu"
    name_zh = "捉五"
    fan = 5

    def applies(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> bool:
        group = reading.winning_group
        return (
            reading.win_tile == FIVE_MAN and group.kind is GroupKind.CHOW and group.tile == FOUR_MAN
        )
