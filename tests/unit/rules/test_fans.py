"""The 19 bonus items of RULES.md §6: where each applies, where it does not, replacements."""

from __future__ import annotations

import dataclasses

import pytest

from hebei.rules.profile import MAIN
from hebei.rules.readings import readings
from hebei.rules.scoring import ALL_FANS, FANS_BY_ID, WinContext, fans_of, score_win
from tests.unit.rules.winning_hands import win

# The §6 table: id -> (name, fan).
TABLE = {
    "men_qing": ("门清", 2),
    "qiang_gang_hu": ("抢杠胡", 2),
    "gang_shang_kai_hua": ("杠上开花", 2),
    "peng_peng_hu": ("碰碰胡", 3),
    "da_diao_che": ("大吊车", 2),
    "qing_yi_se": ("青一色", 3),
    "hun_yi_se": ("混一色", 2),
    "qing_feng": ("清风", 3),
    "yi_tiao_long": ("一条龙", 2),
    "qi_dui": ("七对", 2),
    "hun_qi_dui": ("混七对", 4),
    "qing_qi_dui": ("青七对", 5),
    "hao_hua_qi_dui": ("豪华七对", 8),
    "shuang_hao_hua_qi_dui": ("双豪华七对", 16),
    "san_hao_hua_qi_dui": ("三豪华七对", 32),
    "shi_san_yao": ("十三幺", 10),
    "hai_di_lao_yue": ("海底捞月", 2),
    "hua_long": ("花龙", 5),
    "zhuo_wu": ("捉五", 5),
}


def test_the_nineteen_items_match_the_table() -> None:
    assert [f.id for f in ALL_FANS] == list(TABLE)
    for rule in ALL_FANS:
        assert (rule.name_zh, rule.fan) == TABLE[rule.id]
    for rule in ALL_FANS:
        assert set(rule.replaces) <= set(TABLE) - {rule.id}


def fan_ids(ctx: WinContext, profile=MAIN) -> set[str]:
    scored = score_win(ctx, profile)
    assert scored is not None, "the hand should be a legal win"
    return {f.id for f in scored.fans}


PONG_7Z = (("pong", "7z"),)
FOUR_PONGS = (("pong", "1m"), ("pong", "9p"), ("pong", "4s"), ("exposed_kong", "2z"))

# (fan id, applies?, the win). Each item has cases on both sides.
CASES: list[tuple[str, bool, WinContext]] = [
    # 门清
    ("men_qing", True, win("123m789m456p22p678s", "6s", how="discard")),
    ("men_qing", True, win("123789m55p456s", "5p", melds=(("concealed_kong", "2z"),))),
    ("men_qing", False, win("345m678p22s567s", "2s", melds=(("pong", "3z"),))),
    ("men_qing", False, win("123789m55p456s", "5p", melds=(("exposed_kong", "2z"),))),
    ("men_qing", False, win("123789m55p456s", "5p", melds=(("added_kong", "2z"),))),
    ("men_qing", False, win("3355m1199p22s4466z", "4z")),  # seven pairs: Decision
    ("men_qing", False, win("19m19p19s12345667z", "9s")),  # thirteen orphans: Decision
    # 抢杠胡
    ("qiang_gang_hu", True, win("11m234p567p234789s", "3p", how="rob_kong")),
    ("qiang_gang_hu", False, win("11m234p567p234789s", "3p", how="discard")),
    ("qiang_gang_hu", False, win("11m234p567p234789s", "3p")),
    # 杠上开花
    (
        "gang_shang_kai_hua",
        True,
        win("123789m55p456s", "5p", melds=(("concealed_kong", "2z"),), kong_replacement=True),
    ),
    ("gang_shang_kai_hua", False, win("123789m55p456s", "5p", melds=(("concealed_kong", "2z"),))),
    (
        "gang_shang_kai_hua",
        False,
        win(
            "123789m55p456s",
            "5p",
            melds=(("concealed_kong", "2z"),),
            how="discard",
            kong_replacement=True,
        ),
    ),
    # 碰碰胡
    ("peng_peng_hu", True, win("111m222p333s444z55z", "5z")),
    ("peng_peng_hu", True, win("77z", "7z", melds=FOUR_PONGS, how="discard")),
    ("peng_peng_hu", False, win("111m222p123s444z55z", "5z")),  # one chow
    ("peng_peng_hu", False, win("11223344556677z", "7z")),  # seven pairs, not a standard hand
    # 大吊车
    ("da_diao_che", True, win("77z", "7z", melds=FOUR_PONGS, how="discard")),
    (
        "da_diao_che",
        True,
        win(
            "55m",
            "5m",
            melds=(("pong", "1m"), ("concealed_kong", "9p"), ("added_kong", "4s"), ("pong", "2z")),
        ),
    ),
    ("da_diao_che", False, win("22255m", "5m", melds=FOUR_PONGS[:3])),  # three melds
    # 青一色
    ("qing_yi_se", True, win("111m234m567m88m999m", "8m")),
    ("qing_yi_se", True, win("234m567m88m", "8m", melds=(("pong", "1m"), ("exposed_kong", "9m")))),
    ("qing_yi_se", False, win("111m234m567m88m777z", "8m")),  # honors
    ("qing_yi_se", False, win("111m234m567m88m999p", "8m")),  # two suits
    ("qing_yi_se", False, win("11335577992244m", "4m")),  # 青七对 replaces it
    # 混一色
    ("hun_yi_se", True, win("111m234m567m88m777z", "8m")),
    ("hun_yi_se", True, win("111m234m567m88m", "8m", melds=PONG_7Z)),
    ("hun_yi_se", False, win("111m234m567m88m999m", "8m")),  # no honors
    ("hun_yi_se", False, win("111m234m567m88m777p", "8m")),  # two suits
    ("hun_yi_se", False, win("111222333z44455z", "5z")),  # honors only: 清风
    ("hun_yi_se", False, win("1133557799m1122z", "2z")),  # 混七对 replaces it
    # 清风
    ("qing_feng", True, win("11155566677z", "1z", melds=(("pong", "3z"),))),
    ("qing_feng", True, win("11223344556677z", "7z")),  # any legal shape: seven pairs
    ("qing_feng", False, win("111555666z77z", "7z", melds=(("pong", "9m"),))),
    # 一条龙
    ("yi_tiao_long", True, win("11123456789999s", "5s", how="discard")),
    ("yi_tiao_long", True, win("123456789p55m", "5m", melds=PONG_7Z)),
    ("yi_tiao_long", False, win("123456m789p55m", "5m", melds=PONG_7Z)),  # 789 of another suit
    ("yi_tiao_long", False, win("123m456p789s55m", "5m", melds=PONG_7Z)),  # that is 花龙
    # 七对
    ("qi_dui", True, win("3355m1199p22s4466z", "4z", how="discard")),
    ("qi_dui", False, win("3333m1199p22s4466z", "4z")),  # a four-of-a-kind: 豪华
    ("qi_dui", False, win("123m789m456p22p678s", "6s")),  # not seven pairs
    ("qi_dui", False, win("1133557799m1122z", "2z")),  # 混七对 replaces it
    ("qi_dui", False, win("11335577992244m", "4m")),  # 青七对 replaces it
    # 混七对
    ("hun_qi_dui", True, win("1133557799m1122z", "2z")),
    ("hun_qi_dui", False, win("1111557799m1122z", "2z")),  # with a four-of-a-kind
    ("hun_qi_dui", False, win("1133557799m1122p", "2p")),  # two suits
    # 青七对
    ("qing_qi_dui", True, win("11335577992244m", "4m")),
    ("qing_qi_dui", False, win("11115577992244m", "4m")),  # with a four-of-a-kind
    ("qing_qi_dui", False, win("1133557799m2244z", "4z")),
    # 豪华七对 单豪 / 双豪 / 三豪
    ("hao_hua_qi_dui", True, win("3333m1199p22s4466z", "4z")),
    ("hao_hua_qi_dui", False, win("3355m1199p22s4466z", "4z")),
    ("hao_hua_qi_dui", False, win("22224466888899p", "9p")),  # two: 双豪
    ("shuang_hao_hua_qi_dui", True, win("22224466888899p", "9p")),
    ("shuang_hao_hua_qi_dui", False, win("3333m1199p22s4466z", "4z")),
    ("shuang_hao_hua_qi_dui", False, win("111122223333m44z", "4z")),  # three: 三豪
    ("san_hao_hua_qi_dui", True, win("111122223333m44z", "4z")),
    ("san_hao_hua_qi_dui", False, win("22224466888899p", "9p")),
    # 十三幺
    ("shi_san_yao", True, win("19m19p19s12345667z", "9s", how="discard")),
    ("shi_san_yao", True, win("19m19p19s12345677z", "1m")),
    ("shi_san_yao", False, win("123m456p789s11122z", "2z")),
    # 海底捞月
    ("hai_di_lao_yue", True, win("234m22p345678s", "2p", melds=(("pong", "6z"),), last_tile=True)),
    ("hai_di_lao_yue", False, win("234m22p345678s", "2p", melds=(("pong", "6z"),))),
    (
        "hai_di_lao_yue",
        False,
        win("234m22p345678s", "2p", melds=(("pong", "6z"),), how="discard", last_tile=True),
    ),
    # 花龙
    ("hua_long", True, win("123m456p789s55m", "5m", melds=PONG_7Z)),
    ("hua_long", True, win("123s456m789p11z", "1z", melds=(("concealed_kong", "9m"),))),
    ("hua_long", False, win("123456789p55m", "5m", melds=PONG_7Z)),  # one suit: 一条龙
    ("hua_long", False, win("123m456p789p55m", "5m", melds=PONG_7Z)),  # two suits only
    # 捉五
    ("zhuo_wu", True, win("456m111p789p33s222z", "5m")),
    ("zhuo_wu", True, win("456m111p789p33s", "5m", melds=PONG_7Z, how="discard")),
    ("zhuo_wu", False, win("345m111p789p33s222z", "5m")),  # 5m at the edge of 345m
    ("zhuo_wu", False, win("567m111p789p33s222z", "5m")),  # 5m at the edge of 567m
    ("zhuo_wu", False, win("456p111m789p33s222z", "5p")),  # 5p is not 5m
    ("zhuo_wu", False, win("555m111p789p33s222z", "5m")),  # a pung
    ("zhuo_wu", False, win("456m111p789p55s222z", "5s")),  # 456m there, but 5s won
    # 456m 456m 11p 123p 123p is worth 门清 + 捉五 = 7; the same tiles as 豪华七对 are worth 8.
    ("zhuo_wu", False, win("445566m11112233p", "5m")),
]


@pytest.mark.parametrize(
    ("fan_id", "applies", "ctx"),
    CASES,
    ids=[f"{fan_id}-{'yes' if yes else 'no'}-{i}" for i, (fan_id, yes, _) in enumerate(CASES)],
)
def test_bonus_item(fan_id: str, applies: bool, ctx: WinContext) -> None:
    assert (fan_id in fan_ids(ctx)) is applies


def test_every_item_has_cases_on_both_sides() -> None:
    sides = {(fan_id, applies) for fan_id, applies, _ in CASES}
    assert sides == {(f, yes) for f in TABLE for yes in (True, False)}


@pytest.mark.parametrize(
    ("ctx", "expected"),
    [
        # Replacements: 混七对/青七对 stand in for 七对 and the flush ...
        (win("1133557799m1122z", "2z"), {"hun_qi_dui"}),
        (win("11335577992244m", "4m"), {"qing_qi_dui"}),
        # ... only without a four-of-a-kind; a 豪华 hand adds the flush (单豪 + 青一色 = 11).
        (win("11115577992244m", "4m"), {"hao_hua_qi_dui", "qing_yi_se"}),
        (win("1111557799m1122z", "2z"), {"hao_hua_qi_dui", "hun_yi_se"}),
        (win("22224466888899p", "9p"), {"shuang_hao_hua_qi_dui", "qing_yi_se"}),
        # Seven pairs of honors is 七对 + 清风 (no replacement between them).
        (win("11223344556677z", "7z"), {"qi_dui", "qing_feng"}),
        # 一条龙 and 花龙 are different items.
        (win("123456789p55m", "5m", melds=PONG_7Z), {"yi_tiao_long"}),
        (win("123m456p789s55m", "5m", melds=PONG_7Z), {"hua_long"}),
        (win("123m456p789s55m123p", "5m"), {"hua_long", "men_qing"}),
        # Four melds and the pair: 大吊车 (+ 碰碰胡 when all are pungs).
        (win("77z", "7z", melds=FOUR_PONGS, how="discard"), {"da_diao_che", "peng_peng_hu"}),
        # Situations add up.
        (
            win("123789m55p456s", "5p", melds=(("concealed_kong", "2z"),), kong_replacement=True),
            {"gang_shang_kai_hua", "men_qing"},
        ),
        (win("11m234p567p234789s", "3p", how="rob_kong"), {"men_qing", "qiang_gang_hu"}),
    ],
)
def test_exact_items(ctx: WinContext, expected: set[str]) -> None:
    assert fan_ids(ctx) == expected


def test_san_hao_beats_the_standard_reading_of_the_same_tiles() -> None:
    scored = score_win(win("111122223333m44m", "4m"))
    assert scored is not None
    assert [f.id for f in scored.fans] == ["qing_yi_se", "san_hao_hua_qi_dui"]
    assert scored.bonus == 35


def test_zhuo_wu_is_decided_per_reading() -> None:
    """The same tiles with the winning 5m in 456m, or in the pair 55m."""
    ctx = win("45556m111p789p222z", "5m")
    found = readings(ctx.concealed, ctx.melds, ctx.win_tile)
    by_place = {str(r.winning_group): r for r in found}
    assert set(by_place) == {"456m", "55m"}
    zhuo_wu = FANS_BY_ID["zhuo_wu"]
    assert zhuo_wu.applies(by_place["456m"], ctx, MAIN)
    assert not zhuo_wu.applies(by_place["55m"], ctx, MAIN)
    assert "zhuo_wu" in {r.id for r in fans_of(by_place["456m"], ctx)}
    assert fan_ids(ctx) == {"men_qing", "zhuo_wu"}  # the higher placement is chosen


def test_da_diao_che_needs_the_pair_completed() -> None:
    """With four melds the only reading puts the winning tile in the pair."""
    ctx = win("55m", "5m", melds=FOUR_PONGS)
    (reading,) = readings(ctx.concealed, ctx.melds, ctx.win_tile)
    assert FANS_BY_ID["da_diao_che"].applies(reading, ctx, MAIN)


def test_men_qing_on_special_hands_follows_the_profile() -> None:
    special = dataclasses.replace(MAIN, men_qing_on_special_hands=True)
    assert fan_ids(win("3355m1199p22s4466z", "4z"), special) == {"men_qing", "qi_dui"}
    assert fan_ids(win("19m19p19s12345667z", "9s"), special) == {"men_qing", "shi_san_yao"}


def test_highest_reading_wins_and_ties_are_deterministic() -> None:
    # 123m123m456p456p77s (门清 2) against 11m22m33m44p55p66p77s (七对 2): equal fan; the
    # named special shape is chosen, whatever order the readings come in.
    ctx = win("112233m445566p77s", "7s")
    scored = score_win(ctx)
    assert scored is not None and [f.id for f in scored.fans] == ["qi_dui"]
    assert scored.reading == "11m 22m 33m 44p 55p 66p 77s"
    assert score_win(ctx) == scored
