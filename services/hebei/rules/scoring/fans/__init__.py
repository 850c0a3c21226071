"""The scoring items, one small class each: the 19 bonus items of RULES.md §6
(:data:`ALL_FANS`) and the classic patterns and doublings of §9 (:data:`CLASSIC_FANS`),
each in the order of its table."""

from __future__ import annotations

from hebei.rules.scoring.fans.base import FanRule
from hebei.rules.scoring.fans.classic import (
    ClassicHunQiDui,
    ClassicHunYiSe,
    ClassicQingFeng,
    ClassicQingQiDui,
    ClassicQingYiSe,
    ClassicShiSanYao,
    DaDuiHu,
    GangShangKaiHuaDoubling,
    HaiDiLaoYueDoubling,
    Long,
    MenQingDoubling,
    PingHu,
    QiXiaoDui,
    ZiMo,
)
from hebei.rules.scoring.fans.pairs import (
    HaoHuaQiDui,
    HunQiDui,
    QiDui,
    QingQiDui,
    SanHaoHuaQiDui,
    ShiSanYao,
    ShuangHaoHuaQiDui,
)
from hebei.rules.scoring.fans.sets import DaDiaoChe, HuaLong, PengPengHu, YiTiaoLong, ZhuoWu
from hebei.rules.scoring.fans.situation import GangShangKaiHua, HaiDiLaoYue, MenQing, QiangGangHu
from hebei.rules.scoring.fans.suits import HunYiSe, QingFeng, QingYiSe

ALL_FANS: tuple[FanRule, ...] = (
    MenQing(),
    QiangGangHu(),
    GangShangKaiHua(),
    PengPengHu(),
    DaDiaoChe(),
    QingYiSe(),
    HunYiSe(),
    QingFeng(),
    YiTiaoLong(),
    QiDui(),
    HunQiDui(),
    QingQiDui(),
    HaoHuaQiDui(),
    ShuangHaoHuaQiDui(),
    SanHaoHuaQiDui(),
    ShiSanYao(),
    HaiDiLaoYue(),
    HuaLong(),
    ZhuoWu(),
)
FANS_BY_ID: dict[str, FanRule] = {f.id: f for f in ALL_FANS}

# RULES.md §9: the patterns (points), then the doublings (x2 each, cumulative).
CLASSIC_FANS: tuple[FanRule, ...] = (
    PingHu(),
    ClassicHunYiSe(),
    QiXiaoDui(),
    DaDuiHu(),
    Long(),
    ClassicShiSanYao(),
    ClassicQingFeng(),
    ClassicHunQiDui(),
    ClassicQingQiDui(),
    ClassicQingYiSe(),
    ZiMo(),
    MenQingDoubling(),
    GangShangKaiHuaDoubling(),
    HaiDiLaoYueDoubling(),
)
CLASSIC_FANS_BY_ID: dict[str, FanRule] = {f.id: f for f in CLASSIC_FANS}

__all__ = [
    "ALL_FANS",
    "CLASSIC_FANS",
    "CLASSIC_FANS_BY_ID",
    "FANS_BY_ID",
    "DaDiaoChe",
    "FanRule",
    "GangShangKaiHua",
    "HaiDiLaoYue",
    "HaoHuaQiDui",
    "HuaLong",
    "HunQiDui",
    "HunYiSe",
    "MenQing",
    "PengPengHu",
    "QiDui",
    "QiangGangHu",
    "QingFeng",
    "QingQiDui",
    "QingYiSe",
    "SanHaoHuaQiDui",
    "ShiSanYao",
    "ShuangHaoHuaQiDui",
    "YiTiaoLong",
    "ZhuoWu",
]
