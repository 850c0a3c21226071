"""Payments: base (RULES.md §5), who pays the bonus (§6 Decision), kongs (§7), settlements."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hebei.rules.errors import NotationError
from hebei.rules.melds import MeldKind
from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.scoring import (
    KongRecord,
    WinKind,
    doubled_payments,
    false_win_deltas,
    kong_deltas,
    score_win,
    settle_hand,
    win_payments,
)
from tests.unit.rules.winning_hands import win, winning_contexts

SELF, DISCARD, ROB = WinKind.SELF_DRAW, WinKind.DISCARD, WinKind.ROB_KONG


@pytest.mark.parametrize(
    ("winner", "dealer", "how", "discarder", "base"),
    [
        # dealer, self-draw: each of the other three pays 4 (dealer +12)
        (0, 0, SELF, None, (12, -4, -4, -4)),
        (2, 2, SELF, None, (-4, -4, 12, -4)),
        # non-dealer, self-draw: dealer pays 4, the other two pay 2 each (winner +8)
        (1, 0, SELF, None, (-4, 8, -2, -2)),
        (3, 2, SELF, None, (-2, -2, -4, 8)),
        # dealer, on a discard: the discarder pays 8
        (0, 0, DISCARD, 3, (8, 0, 0, -8)),
        (1, 1, DISCARD, 2, (0, 8, -8, 0)),
        # non-dealer, on the dealer's discard: the dealer pays 6
        (2, 0, DISCARD, 0, (-6, 0, 6, 0)),
        # non-dealer, on a non-dealer's discard: the discarder pays 5
        (2, 0, DISCARD, 1, (0, -5, 5, 0)),
        (0, 3, DISCARD, 1, (5, -5, 0, 0)),
        # robbing a kong: the konger pays as the discarder
        (1, 0, ROB, 0, (-6, 6, 0, 0)),
        (1, 1, ROB, 3, (0, 8, 0, -8)),
        (1, 2, ROB, 3, (0, 5, 0, -5)),
    ],
)
def test_base_payment_table(winner, dealer, how, discarder, base) -> None:
    got_base, with_bonus = win_payments(winner, dealer, how, discarder, 0)
    assert got_base == base
    assert with_bonus == base  # no bonus, no difference


@pytest.mark.parametrize(
    ("winner", "dealer", "how", "discarder", "deltas"),
    [
        # Self-draw: each of the three pays base share + the whole bonus (here 5).
        (0, 0, SELF, None, (27, -9, -9, -9)),
        (1, 3, SELF, None, (-7, 23, -7, -9)),
        # Discard and robbed kong: only the discarder pays, base + bonus; no one else pays.
        (0, 0, DISCARD, 2, (13, 0, -13, 0)),
        (1, 0, DISCARD, 0, (-11, 11, 0, 0)),
        (1, 0, DISCARD, 2, (0, 10, -10, 0)),
        (3, 1, ROB, 2, (0, 0, -10, 10)),
    ],
)
def test_every_payer_pays_the_whole_bonus(winner, dealer, how, discarder, deltas) -> None:
    assert win_payments(winner, dealer, how, discarder, 5)[1] == deltas


def test_bonus_paid_once_when_the_profile_says_so() -> None:
    once = dataclasses.replace(MAIN, every_payer_pays_whole_bonus=False)
    # The dealer owes the largest base share of a non-dealer's self-draw: it alone adds the bonus.
    assert win_payments(1, 3, SELF, None, 5, once)[1] == (-2, 13, -2, -9)
    # Equal shares: the first payer after the winner.
    assert win_payments(2, 2, SELF, None, 5, once)[1] == (-4, -4, 17, -9)
    assert win_payments(1, 0, DISCARD, 2, 5, once)[1] == (0, 10, -10, 0)


def test_amounts_come_from_the_profile() -> None:
    doubled = dataclasses.replace(
        MAIN,
        dealer_self_draw_each=8,
        nondealer_self_draw_dealer_pays=8,
        nondealer_self_draw_other_pays=4,
        dealer_wins_on_discard=16,
        nondealer_wins_on_dealer_discard=12,
        nondealer_wins_on_nondealer_discard=10,
        exposed_kong_discarder_pays=6,
        added_kong_each_pays=2,
        concealed_kong_each_pays=4,
    )
    assert win_payments(0, 0, SELF, None, 0, doubled)[0] == (24, -8, -8, -8)
    assert win_payments(1, 0, SELF, None, 0, doubled)[0] == (-8, 16, -4, -4)
    assert win_payments(0, 0, DISCARD, 1, 0, doubled)[0] == (16, -16, 0, 0)
    assert win_payments(1, 0, DISCARD, 0, 0, doubled)[0] == (-12, 12, 0, 0)
    assert win_payments(1, 0, DISCARD, 2, 0, doubled)[0] == (0, 10, -10, 0)
    assert kong_deltas([KongRecord(0, MeldKind.EXPOSED_KONG, 1)], doubled) == (6, -6, 0, 0)
    assert kong_deltas([KongRecord(0, MeldKind.ADDED_KONG)], doubled) == (6, -2, -2, -2)
    assert kong_deltas([KongRecord(0, MeldKind.CONCEALED_KONG)], doubled) == (12, -4, -4, -4)


@pytest.mark.parametrize(
    ("kong", "deltas"),
    [
        # 放杠 exposed kong on a discard: the discarder pays 3
        (KongRecord(2, MeldKind.EXPOSED_KONG, 0), (-3, 0, 3, 0)),
        (KongRecord(0, MeldKind.EXPOSED_KONG, 3), (3, 0, 0, -3)),
        # 明杠 added kong: each other player pays 1
        (KongRecord(1, MeldKind.ADDED_KONG, None), (-1, 3, -1, -1)),
        # 暗杠 concealed kong: each other player pays 2
        (KongRecord(3, MeldKind.CONCEALED_KONG, None), (-2, -2, -2, 6)),
    ],
)
def test_kong_payment_table(kong: KongRecord, deltas) -> None:
    assert kong_deltas([kong]) == deltas


def test_kong_payments_add_up() -> None:
    kongs = [
        KongRecord(0, MeldKind.CONCEALED_KONG),
        KongRecord(0, MeldKind.ADDED_KONG),
        KongRecord(2, MeldKind.EXPOSED_KONG, 0),
    ]
    assert kong_deltas(kongs) == (6 + 3 - 3, -2 - 1, -2 - 1 + 3, -2 - 1)


@pytest.mark.parametrize(
    "kong",
    [
        KongRecord(0, MeldKind.EXPOSED_KONG, None),  # who discarded?
        KongRecord(0, MeldKind.EXPOSED_KONG, 0),  # one's own discard
        KongRecord(0, MeldKind.EXPOSED_KONG, 4),
        KongRecord(4, MeldKind.CONCEALED_KONG),
        KongRecord(1, MeldKind.PONG),  # not a kong
    ],
)
def test_malformed_kong_records_are_rejected(kong: KongRecord) -> None:
    with pytest.raises(NotationError):
        kong_deltas([kong])


KONGS = (
    KongRecord(1, MeldKind.CONCEALED_KONG),
    KongRecord(3, MeldKind.EXPOSED_KONG, 2),
)


def test_exhaustive_draw_voids_kong_payments() -> None:
    drawn = settle_hand([], KONGS)
    assert drawn.exhaustive_draw
    assert drawn.kong_deltas == drawn.hand_deltas == drawn.total == (0, 0, 0, 0)
    kept = settle_hand([], KONGS, dataclasses.replace(MAIN, kong_payments_void_on_draw=False))
    assert kept.kong_deltas == kept.total == (-2, 6, -5, 1)


def test_a_win_settles_hand_and_kong_payments() -> None:
    scored = score_win(win("123m789m456p22p678s", "6s", how="discard", winner=2, discarder=1))
    assert scored is not None
    settled = settle_hand([scored], KONGS)
    assert settled.hand_deltas == (0, -7, 7, 0)
    assert settled.kong_deltas == (-2, 6, -5, 1)
    assert settled.total == (-2, -1, 2, 1)
    assert settled.to_json() == {
        "wins": [scored.to_json()],
        "hand_deltas": [0, -7, 7, 0],
        "kong_deltas": [-2, 6, -5, 1],
        "total": [-2, -1, 2, 1],
    }
    assert scored.to_json() == {
        "winner": 2,
        "discarder": 1,
        "win": "discard",
        "win_tile": "6s",
        "fans": [{"id": "men_qing", "fan": 2}],
        "bonus": 2,
        "deltas": [0, -7, 7, 0],
    }


def test_several_winners_on_one_discard_are_settled_separately() -> None:
    """一炮多响: seat 0 discards 5p; seats 1 (dealer) and 3 both win on it."""
    dealer_win = score_win(
        win(
            "123m789m55p456s",
            "5p",
            melds=(("pong", "1z"),),
            how="discard",
            winner=1,
            dealer=1,
            discarder=0,
        )
    )
    other_win = score_win(
        win(
            "234567m55p123s",
            "5p",
            melds=(("pong", "7z"),),
            how="discard",
            winner=3,
            dealer=1,
            discarder=0,
        )
    )
    assert dealer_win is not None and other_win is not None
    assert dealer_win.deltas == (-8, 8, 0, 0)  # dealer on a discard: 8, no bonus
    assert [f.id for f in other_win.fans] == []
    assert other_win.deltas == (-5, 0, 0, 5)
    settled = settle_hand([dealer_win, other_win], [])
    assert settled.hand_deltas == settled.total == (-13, 8, 0, 5)


def test_inconsistent_wins_are_rejected() -> None:
    a = score_win(win("123m789m456p22p678s", "6s", how="discard", winner=2, discarder=1))
    b = score_win(win("123m789m456p22p678s", "6s", how="discard", winner=3, discarder=0))
    tsumo = score_win(win("123m789m456p22p678s", "6s", winner=3))
    assert a is not None and b is not None and tsumo is not None
    for wins in ([a, b], [a, tsumo], [a, a]):
        with pytest.raises(NotationError):
            settle_hand(wins, [])


kong_records = st.builds(
    KongRecord,
    seat=st.integers(0, 3),
    kind=st.sampled_from([MeldKind.ADDED_KONG, MeldKind.CONCEALED_KONG]),
    from_seat=st.none(),
) | st.integers(0, 3).flatmap(
    lambda seat: st.builds(
        KongRecord,
        seat=st.just(seat),
        kind=st.just(MeldKind.EXPOSED_KONG),
        from_seat=st.sampled_from([s for s in range(4) if s != seat]),
    )
)


@settings(max_examples=300, deadline=None)
@given(winning_contexts(), st.lists(kong_records, max_size=4), st.integers(1, 3), st.booleans())
def test_every_settlement_sums_to_zero(ctx, kongs, n_winners, exhaustive) -> None:
    scored = score_win(ctx)
    assert scored is not None
    assert sum(scored.base) == 0 and sum(scored.deltas) == 0
    assert scored.bonus == sum(f.fan for f in scored.fans)
    assert scored.deltas[ctx.winner] == scored.base[ctx.winner] + scored.bonus * (
        3 if ctx.win is SELF else 1
    )
    wins = [scored]
    if ctx.win is not SELF:  # 一炮多响: more winners on the same discard
        others = [s for s in range(4) if s not in (ctx.winner, ctx.discarder)]
        for seat in others[: n_winners - 1]:
            extra = score_win(dataclasses.replace(ctx, winner=seat))
            assert extra is not None
            wins.append(extra)
    settled = settle_hand([] if exhaustive else wins, kongs)
    for deltas in (settled.hand_deltas, settled.kong_deltas, settled.total):
        assert sum(deltas) == 0
    if exhaustive:
        assert settled.total == (0, 0, 0, 0)


# ---------------------------------------------------------------- the classic payments (§9)


@pytest.mark.parametrize(
    ("winner", "dealer", "points", "deltas"),
    [
        # a non-dealer wins: each other non-dealer pays the points, the dealer double
        (1, 0, 1, (-2, 4, -1, -1)),
        (2, 3, 5, (-5, -5, 20, -10)),
        # the dealer wins: everyone pays double, once (Decision)
        (0, 0, 3, (18, -6, -6, -6)),
        (3, 3, 1, (-2, -2, -2, 6)),
    ],
)
def test_classic_payment_table(winner, dealer, points, deltas) -> None:
    assert doubled_payments(winner, dealer, points, CLASSIC) == deltas


@pytest.mark.parametrize("how", [SELF, DISCARD, ROB])
def test_classic_payments_do_not_depend_on_who_discarded(how) -> None:
    """After any win every other player pays: the discarder pays no more than the others."""
    hand = "234m567m999m123p11z"
    ctx = win(hand, "1p", how=how.value, winner=1, dealer=3, discarder=None if how is SELF else 0)
    scored = score_win(ctx, CLASSIC)
    assert scored is not None
    points = scored.points
    assert scored.deltas == scored.base == (-points, 4 * points, -points, -2 * points)


@pytest.mark.parametrize(
    ("seat", "dealer", "deltas"),
    [
        (1, 0, (1, -3, 1, 1)),  # 1 to each other player, the dealer too
        (3, 1, (1, 1, 1, -3)),
        (0, 0, (-6, 2, 2, 2)),  # the dealer pays 2 to each
        (2, 2, (2, 2, -6, 2)),
    ],
)
def test_false_win_penalty_table(seat, dealer, deltas) -> None:
    assert false_win_deltas(seat, dealer, CLASSIC) == deltas
    settled = settle_hand([], KONGS, CLASSIC, false_wins=[seat], dealer=dealer)
    assert settled.hand_deltas == settled.total == deltas
    assert settled.kong_deltas == (0, 0, 0, 0)  # no win: the kongs are void (Decision)
    assert settled.false_wins == (seat,) and not settled.exhaustive_draw
    assert settled.to_json()["false_wins"] == [seat]


def test_false_wins_need_a_profile_with_them_and_the_dealer() -> None:
    with pytest.raises(NotationError, match="no false win"):
        false_win_deltas(1, 0, MAIN)
    with pytest.raises(NotationError, match="needs the dealer"):
        settle_hand([], [], CLASSIC, false_wins=[1])
    with pytest.raises(NotationError, match="at most one win"):
        settle_hand([], [], CLASSIC, false_wins=[1, 1], dealer=0)


def test_the_main_settlement_json_is_unchanged_without_false_wins() -> None:
    assert "false_wins" not in settle_hand([], KONGS).to_json()


@settings(max_examples=300, deadline=None)
@given(winning_contexts(), st.lists(kong_records, max_size=4), st.integers(0, 3))
def test_every_classic_settlement_sums_to_zero(ctx, kongs, false_winner) -> None:
    scored = score_win(ctx, CLASSIC)
    assume(scored is not None)  # some main wins lack eight tiles of one suit
    assert sum(scored.deltas) == 0
    units = 2 + 2 + 2 if ctx.winner == ctx.dealer else 1 + 1 + 2  # the dealer's share double
    assert scored.deltas[ctx.winner] == scored.points * units
    pattern, *doublings = scored.fans
    assert scored.points == pattern.fan * 2 ** len(doublings)
    others = [false_winner] if false_winner != ctx.winner else []
    settled = settle_hand([scored], kongs, CLASSIC, false_wins=others, dealer=ctx.dealer)
    for deltas in (settled.hand_deltas, settled.kong_deltas, settled.total):
        assert sum(deltas) == 0
