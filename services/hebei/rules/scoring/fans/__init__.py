"""The 19 bonus items of RULES.md §6, one small class each, in the order of the table."""

from __future__ import annotations

from hebei.rules.scoring.fans.base import FanRule
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

__all__ = [
    "ALL_FANS",
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
