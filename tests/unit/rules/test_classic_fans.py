"""The classic patterns and doublings of RULES.md §9: the table, where each item applies and
where not, how they combine, and the eight-of-one-suit condition (一色够八张)."""

from __future__ import annotations

import dataclasses
from functools import partial

import pytest

from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.scoring import CLASSIC_FANS, CLASSIC_FANS_BY_ID, WinContext, score_win
from tests.unit.rules.winning_hands import win

# The §9 table: id -> (name, points or factor, doubling?).
TABLE = {
    "ping_hu": ("屁胡", 1, False),
    "hun_yi_se": ("混一色", 2, False),
    "qi_xiao_dui": ("七小对", 2, False),
    "da_dui_hu": ("大对胡", 2, False),
    "long": ("龙", 3, False),
    "shi_san_yao": ("十三幺", 15, False),
    "qing_feng": ("清风", 15, False),
    "hun_qi_dui": ("混七对", 6, False),
    "qing_qi_dui": ("青七对", 12, False),
    "qing_yi_se": ("青一色", 3, False),  # a x2 doubling on another pattern
    "zi_mo": ("自摸", 2, True),
    "men_qing": ("门清", 2, True),
    "gang_shang_kai_hua": ("杠上开花", 2, True),
    "hai_di_lao_yue": ("海底捞月", 2, True),
}


def test_the_classic_items_match_the_table() -> None:
    assert [f.id for f in CLASSIC_FANS] == list(TABLE)
    for rule in CLASSIC_FANS:
        assert (rule.name_zh, rule.fan, rule.doubling) == TABLE[rule.id]
        assert set(rule.replaces) <= set(TABLE) - {rule.id}
    assert [r.id for r in CLASSIC_FANS if r.basic] == ["ping_hu"]
    assert [r.id for r in CLASSIC_FANS if r.doubles_another_pattern] == ["qing_yi_se"]
    assert CLASSIC_FANS_BY_ID["long"].fan == 3


def scored(ctx: WinContext, profile=CLASSIC):
    result = score_win(ctx, profile)
    assert result is not None, "the hand should be a legal classic win"
    return result


def items(ctx: WinContext) -> list[str]:
    return [f.id for f in scored(ctx).fans]


classic = partial(win, profile=CLASSIC)  # a classic WinContext (chow melds allowed)
PONG_7Z = (("pong", "7z"),)
CHOW_1M = (("chow", "1m"),)

# (item, applies?, the win). Each item has cases on both sides.
CASES: list[tuple[str, bool, WinContext]] = [
    # 屁胡: the basic standard hand
    ("ping_hu", True, classic("234m567m88m456p", "4p", melds=PONG_7Z, how="discard")),
    ("ping_hu", False, classic("111m234m567m99m", "9m", melds=(("pong", "5z"),))),  # 混一色
    # 混一色: one suit of eight or more plus honors
    ("hun_yi_se", True, classic("111m234m567m99m", "9m", melds=(("pong", "5z"),))),
    ("hun_yi_se", False, classic("111m234m567m99m", "9m", melds=(("pong", "5p"),))),
    ("hun_yi_se", False, classic("1133557799m1122z", "2z")),  # 混七对 replaces it
    # 七小对
    ("qi_xiao_dui", True, classic("1155m3399p77s1122z", "2z")),  # no eight of one suit needed
    ("qi_xiao_dui", True, classic("1111m3399p77s1122z", "2z")),  # four of a kind: two pairs
    ("qi_xiao_dui", False, classic("11335577992244p", "4p")),  # 青七对 replaces it
    ("qi_xiao_dui", False, classic("11223344556677z", "7z")),  # 清风 is worth more
    # 大对胡
    ("da_dui_hu", True, classic("111m555m999m22p", "2p", melds=(("pong", "8m"),))),
    ("da_dui_hu", False, classic("111m555m999m22p", "2p", melds=(("exposed_kong", "8m"),))),
    ("da_dui_hu", False, classic("111m555m789m22p", "2p", melds=(("pong", "4s"),))),  # a chow
    # 龙, chows declared or not
    ("long", True, classic("123456789m11z222z", "1z")),
    ("long", True, classic("456m789m22p345p", "5p", melds=CHOW_1M, how="discard")),
    ("long", False, classic("123456m789p22p345p", "5p")),  # 789 of another suit
    # 十三幺
    ("shi_san_yao", True, classic("19m19p19s12345677z", "7z")),
    ("shi_san_yao", False, classic("123m456m789m11p222z", "2z")),
    # 清风
    ("qing_feng", True, classic("111z222z333z55z", "5z", melds=(("pong", "6z"),))),
    ("qing_feng", True, classic("11223344556677z", "7z")),
    ("qing_feng", False, classic("111m999m789m55z", "5z", melds=(("pong", "1z"),))),  # 混一色
    # 混七对: at least five pairs of one suit, the rest honors
    ("hun_qi_dui", True, classic("1133557799m1122z", "2z")),
    ("hun_qi_dui", True, classic("113355779999m11z", "1z")),  # six pairs of one suit
    ("hun_qi_dui", False, classic("11335577m112233z", "3z")),  # four pairs of one suit
    ("hun_qi_dui", False, classic("1133557799m1122p", "2p")),  # two suits
    # 青七对
    ("qing_qi_dui", True, classic("11223344557799p", "4p")),
    ("qing_qi_dui", True, classic("11113344557799p", "4p")),  # with a four of a kind
    ("qing_qi_dui", False, classic("1133557799m1122z", "2z")),
    # 青一色: a pattern alone, a doubling on another pattern
    ("qing_yi_se", True, classic("123m345m789m99m", "9m", melds=(("pong", "5m"),))),
    ("qing_yi_se", True, classic("111m333m555m77m", "7m", melds=(("pong", "9m"),))),
    ("qing_yi_se", False, classic("11223344557799p", "4p")),  # 青七对 replaces it
    ("qing_yi_se", False, classic("111m234m567m99m", "9m", melds=(("pong", "5z"),))),
    # 自摸 (提)
    ("zi_mo", True, classic("123m345m678m22p567p", "2p")),
    ("zi_mo", False, classic("123m345m678m22p567p", "2p", how="discard")),
    ("zi_mo", False, classic("234m567m999m123p11z", "1p", how="rob_kong")),
    # 门清: no chow, pong or kong (a concealed kong too, Decision)
    ("men_qing", True, classic("123m345m678m22p567p", "2p", how="discard")),
    ("men_qing", False, classic("456m789m22p345p", "5p", melds=CHOW_1M)),
    ("men_qing", False, classic("234m567m999m11p", "1p", melds=(("concealed_kong", "5z"),))),
    ("men_qing", False, classic("1155m3399p77s1122z", "2z")),  # seven pairs (Decision)
    # 杠上开花
    (
        "gang_shang_kai_hua",
        True,
        classic("234m567m999m11p", "1p", melds=(("concealed_kong", "5z"),), kong_replacement=True),
    ),
    ("gang_shang_kai_hua", False, classic("234m567m999m11p", "1p", melds=(("pong", "5z"),))),
    # 海底捞月: self-draw only
    ("hai_di_lao_yue", True, classic("234m567m999m11p", "1p", melds=PONG_7Z, last_tile=True)),
    (
        "hai_di_lao_yue",
        False,
        classic("234m567m999m11p", "1p", melds=PONG_7Z, how="discard", last_tile=True),
    ),
]


@pytest.mark.parametrize(
    ("fan_id", "applies", "ctx"),
    CASES,
    ids=[f"{fan_id}-{'yes' if yes else 'no'}-{i}" for i, (fan_id, yes, _) in enumerate(CASES)],
)
def test_classic_item(fan_id: str, applies: bool, ctx: WinContext) -> None:
    assert (fan_id in items(ctx)) is applies


def test_every_item_has_cases_on_both_sides() -> None:
    sides = {(fan_id, applies) for fan_id, applies, _ in CASES}
    assert sides == {(f, yes) for f in TABLE for yes in (True, False)}


@pytest.mark.parametrize(
    ("ctx", "expected", "points"),
    [
        # One pattern (the highest), then the doublings in table order.
        (classic("123456789m11z222z", "1z", how="discard"), ["long", "men_qing"], 6),
        (
            classic("11112345678999m", "5m"),
            ["long", "qing_yi_se", "zi_mo", "men_qing"],
            24,
        ),
        # 青一色 on 大对胡 doubles it (4), alone it is worth 3.
        (
            classic("111m333m555m77m", "7m", melds=(("pong", "9m"),)),
            ["da_dui_hu", "qing_yi_se", "zi_mo"],
            8,
        ),
        (classic("123m345m789m99m", "9m", melds=(("pong", "5m"),)), ["qing_yi_se", "zi_mo"], 6),
        # 清风 seven pairs: the higher pattern counts.
        (classic("11223344556677z", "7z"), ["qing_feng", "zi_mo"], 30),
        # Equal patterns: the first of the table (混一色 before 七小对).
        (classic("11335577m112233z", "3z", how="discard"), ["hun_yi_se"], 2),
        # 杠上开花 and 海底 stack on the self-draw.
        (
            classic(
                "234m567m999m11p", "1p", melds=(("concealed_kong", "5z"),), kong_replacement=True
            ),
            ["ping_hu", "zi_mo", "gang_shang_kai_hua"],
            4,
        ),
    ],
)
def test_exact_items_and_points(ctx: WinContext, expected: list[str], points: int) -> None:
    result = scored(ctx)
    assert [f.id for f in result.fans] == expected
    assert result.points == result.bonus == points


def test_qing_yi_se_is_listed_as_a_doubling_on_another_pattern() -> None:
    fans = scored(classic("111m333m555m77m", "7m", melds=(("pong", "9m"),))).fans
    assert [(f.id, f.fan, f.doubling) for f in fans] == [
        ("da_dui_hu", 2, False),
        ("qing_yi_se", 2, True),
        ("zi_mo", 2, True),
    ]


def test_patterns_add_up_when_the_profile_says_so() -> None:
    adding = dataclasses.replace(CLASSIC, name="t", doubling_patterns_add=True)
    ctx = classic("123456789m11z222z", "1z", how="discard")
    result = scored(ctx, adding)
    assert [f.id for f in result.fans] == ["hun_yi_se", "long", "men_qing"]
    assert result.points == (2 + 3) * 2
    assert scored(ctx).points == 3 * 2  # the Decision: the highest pattern only


# ---------------------------------------------------------------- 一色够八张


@pytest.mark.parametrize(
    ("ctx", "legal"),
    [
        (classic("123m456m123p456p77s", "7s"), False),  # 6 m, 6 p
        (classic("123m456m111z222z33z", "3z"), False),  # honors do not help
        (classic("123m456m789p11p222z", "2z"), False),  # 6 m, 5 p
        (classic("123m456m11m789p222z", "2z"), True),  # exactly 8 m
        (classic("234m567p111z22s", "2s", melds=(("exposed_kong", "1m"),)), False),  # 7 m
        (classic("123m456m789m11p222z", "2z"), True),  # 9 m
        (
            classic("234p567s11z", "1z", melds=(("exposed_kong", "1m"), ("exposed_kong", "9m"))),
            True,
        ),
        (classic("234p567s11z", "1z", melds=(("pong", "1m"), ("pong", "9m"))), False),  # 6 m
        (classic("456m789m22p345p", "5p", melds=CHOW_1M), True),  # the chow's m count
        (classic("1155m3399p77s1122z", "2z"), True),  # seven pairs: not needed
        (classic("19m19p19s12345677z", "7z"), True),  # thirteen orphans: not needed
        (classic("111z222z333z55z", "5z", melds=(("pong", "6z"),)), True),  # no suit at all
        (classic("111z222z333z55z", "5z", melds=(("pong", "9m"),)), False),  # 3 m
    ],
)
def test_eight_tiles_of_one_suit(ctx: WinContext, legal: bool) -> None:
    assert (score_win(ctx, CLASSIC) is not None) is legal


def test_the_main_rules_have_no_such_condition() -> None:
    ctx = classic("123m456m123p456p77s", "7s")
    assert score_win(ctx, MAIN) is not None and score_win(ctx, CLASSIC) is None
