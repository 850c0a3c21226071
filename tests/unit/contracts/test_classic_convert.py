"""The classic profile (RULES.md §9) on the wire: chows, classic points and doublings, false
wins, through hebei.common.convert and back."""

from __future__ import annotations

import random

import pytest

from hebei.common import convert
from hebei.rules.actions import CHOW, DISCARD, PASS, WIN
from hebei.rules.errors import NotationError
from hebei.rules.hand import HandState
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.tiles import parse_tile
from hebei.rules.views import observe, public_event
from hebei.v1 import types_pb2 as pb
from tests.unit.rules.rigging import CHOW_DEAL, CHOW_DEAL_WIN, QUIET_HANDS, rigged_hand
from tests.unit.table.greedy import greedy_choice


def t(name: str) -> int:
    return parse_tile(name)


def settle(state: HandState, profile: str = "classic") -> pb.Settlement:
    return convert.settlement_to_proto(
        state.result.settlement,
        match_id="m1",
        hand_no=state.hand_no + 1,
        dealer=state.dealer,
        player_ids=["a", "b", "c", "d"],
        rule_profile=profile,
        ended_at=1.0,
    )


@pytest.mark.parametrize("base", ["1m", "5m", "7m", "1p", "7s"])
def test_chow_meld_round_trip(base: str) -> None:
    meld = Meld(MeldKind.CHOW, t(base), 2)
    message = convert.meld_to_proto(meld)
    assert message.kind == pb.MELD_KIND_CHOW and len(message.tiles) == 3
    assert convert.meld_from_proto(message) == meld
    message.ClearField("tiles")  # the run's lowest tile is enough
    assert convert.meld_from_proto(message) == meld


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (pb.Meld(kind=pb.MELD_KIND_CHOW), "needs its tile"),
        (pb.Meld(kind=pb.MELD_KIND_CHOW, tile=pb.TILE_8M), "lowest tile, 1-7 of a suit, got 8m"),
        (pb.Meld(kind=pb.MELD_KIND_CHOW, tile=pb.TILE_EAST), "1-7 of a suit, got 1z"),
        (
            pb.Meld(
                kind=pb.MELD_KIND_CHOW,
                tile=pb.TILE_1M,
                tiles=[pb.TILE_1M, pb.TILE_2M, pb.TILE_4M],
            ),
            "must be its run 123m",
        ),
    ],
)
def test_malformed_chow_meld_is_refused(message: pb.Meld, reason: str) -> None:
    with pytest.raises(NotationError, match=reason):
        convert.meld_from_proto(message)


def test_chow_action_and_event_round_trip() -> None:
    state = rigged_hand(CHOW_DEAL, profile=CLASSIC)
    state.apply(0, DISCARD[t("4m")])
    options = state.legal_actions(1)
    assert {CHOW[t("2m")], CHOW[t("3m")], CHOW[t("4m")]} <= set(options)
    for action in options:
        assert convert.action_from_proto(convert.action_to_proto(action, 7)) == action
    back = convert.observation_from_proto(
        convert.observation_to_proto(observe(state, 1), decision_id=3, rule_profile="classic")
    )
    assert back.legal_actions == options
    state.apply(3, PASS)
    state.apply(1, CHOW[t("3m")])
    chow = next(e for e in state.events if e["type"] == "chow")
    message = convert.event_to_proto(public_event(chow, 2), seq=5, match_id="m", hand_no=1)
    assert message.type == pb.EVENT_TYPE_CHOW and message.seat == 1
    assert message.tile == convert.tile_to_proto(t("4m"))  # the claimed tile
    assert convert.meld_from_proto(message.meld) == Meld(MeldKind.CHOW, t("3m"), 0)
    seen = convert.observation_from_proto(convert.observation_to_proto(observe(state, 2)))
    assert seen.seats[1].melds == (Meld(MeldKind.CHOW, t("3m"), 0),)


def classic_hands(seeds: range) -> list[HandState]:
    hands = []
    for seed in seeds:
        rng = random.Random(seed)
        state = HandState(seed, dealer=seed % 4, profile=CLASSIC)
        while not state.ended:
            seat = state.to_act()[0]
            options = state.legal_actions(seat)
            counts, melds = state.hands[seat], len(state.melds[seat])
            state.apply(seat, greedy_choice(options, counts, melds, rng))
        hands.append(state)
    return hands


@pytest.mark.parametrize("seed", range(4))
def test_classic_observations_round_trip_through_a_whole_hand(seed: int) -> None:
    rng = random.Random(seed)
    state = HandState(seed, dealer=seed % 4, profile=CLASSIC)
    chows = 0
    while True:
        for seat in range(4):
            obs = observe(state, seat, (1, -1, 2, -2))
            message = convert.observation_to_proto(obs, decision_id=9, rule_profile="classic")
            assert message.rule_profile.name == "classic"
            assert convert.observation_from_proto(message) == obs
        if state.ended:
            break
        seat = state.to_act()[0]
        options = state.legal_actions(seat)
        chows_offered = [a for a in options if a.kind.value == "chow"]
        action = chows_offered[0] if chows_offered else rng.choice(options)
        chows += bool(chows_offered)
        state.apply(seat, action)
    assert chows  # the hand had chows to carry


def test_classic_wins_carry_points_and_doublings() -> None:
    wins = 0
    for state in classic_hands(range(40)):
        message = settle(state)
        assert sum(r.total_delta for r in message.results) == 0
        assert list(message.false_wins) == []
        for win, scored in zip(message.wins, state.result.settlement.wins, strict=True):
            wins += 1
            assert win.points == scored.points > 0
            assert win.bonus == 0 and win.base == 0
            patterns = [f for f in win.fans if not f.doubling]
            doublings = [f for f in win.fans if f.doubling]
            assert len(patterns) == 1 and all(f.fan == 2 for f in doublings)
            assert win.points == patterns[0].fan * 2 ** len(doublings)
            assert list(win.deltas) == list(scored.deltas)
            payers = [s for s in range(4) if s != win.winner]
            for seat in payers:
                double = seat == message.dealer or win.winner == message.dealer
                assert -win.deltas[seat] == win.points * (2 if double else 1)
        if not state.result.settlement.wins:
            assert message.outcome == pb.HAND_OUTCOME_EXHAUSTIVE_DRAW
    assert wins >= 5


def test_main_wins_have_no_points_nor_doublings() -> None:
    state = rigged_hand(["123m456m789m55566z", *QUIET_HANDS[1:]], profile=MAIN)
    state.apply(0, WIN)
    (win,) = settle(state, "main").wins
    assert win.points == 0 and win.bonus == sum(f.fan for f in win.fans) > 0
    assert not any(f.doubling for f in win.fans)


def test_a_classic_self_draw_of_the_dealer() -> None:
    state = rigged_hand(["123m456m789m55566z", *QUIET_HANDS[1:]], profile=CLASSIC)
    state.apply(0, WIN)
    (win,) = settle(state).wins
    # 龙 3 (above 混一色 2), doubled for the self-draw (提) and 门清
    assert [(f.id, f.fan, f.doubling) for f in win.fans] == [
        ("long", 3, False),
        ("zi_mo", 2, True),
        ("men_qing", 2, True),
    ]
    assert win.points == 12 and win.bonus == 0 and win.base == 0
    assert list(win.deltas) == [72, -24, -24, -24]  # everyone pays the dealer double


def test_a_false_win_alone_has_its_outcome_seats_and_event_flag() -> None:
    state = rigged_hand(QUIET_HANDS, profile=CLASSIC)
    state.apply(0, DISCARD[t("1m")])
    state.apply(1, WIN)
    message = settle(state)
    assert message.outcome == pb.HAND_OUTCOME_FALSE_WIN
    assert list(message.false_wins) == [1] and not message.wins
    assert [r.hand_delta for r in message.results] == [1, -3, 1, 1]
    assert [r.kong_delta for r in message.results] == [0, 0, 0, 0]
    win_event = state.events[-2]
    for viewer in (None, 0, 1):
        event = convert.event_to_proto(
            public_event(win_event, viewer), seq=9, match_id="m", hand_no=1, settlement=message
        )
        assert event.type == pb.EVENT_TYPE_WIN and event.false_win and event.seat == 1
        assert not event.HasField("win")
    end = convert.event_to_proto(
        state.events[-1], seq=10, match_id="m", hand_no=1, settlement=message
    )
    assert end.settlement.outcome == pb.HAND_OUTCOME_FALSE_WIN


def test_a_false_win_beside_a_real_one_is_a_win_outcome() -> None:
    state = rigged_hand(CHOW_DEAL_WIN, profile=CLASSIC)
    state.apply(0, DISCARD[t("4m")])
    state.apply(1, WIN)  # false
    state.apply(3, WIN)  # real
    message = settle(state)
    assert message.outcome == pb.HAND_OUTCOME_WIN
    assert list(message.false_wins) == [1] and [w.winner for w in message.wins] == [3]
    (win,) = message.wins
    penalty = [1, -3, 1, 1]
    assert [r.hand_delta for r in message.results] == [
        d + p for d, p in zip(win.deltas, penalty, strict=True)
    ]


def test_fan_names_by_profile() -> None:
    (long_, zi_mo) = convert.fan_names(["long", "zi_mo"], CLASSIC)
    assert (long_.name_zh, long_.fan, long_.doubling) == ("龙", 3, False)
    assert zi_mo.doubling and zi_mo.fan == 2
    (men_qing,) = convert.fan_names(["men_qing"])
    assert (men_qing.fan, men_qing.doubling) == (2, False)
    with pytest.raises(NotationError, match="the main rules have no fan 'long'"):
        convert.fan_names(["long"])
    with pytest.raises(NotationError, match="the classic rules have no fan 'hua_long'"):
        convert.fan_names(["hua_long"], CLASSIC)
