"""诈胡, the false win of the classic profile (RULES.md §9): a declared win without a legal hand
costs 1 to each other player (2 each if the dealer, who then loses the deal)."""

from __future__ import annotations

import pytest

from hebei.rules.actions import CONCEALED_KONG, DISCARD, PASS, PONG, WIN
from hebei.rules.errors import IllegalActionError, ReplayError
from hebei.rules.hand import HandState, Outcome
from hebei.rules.match import Match, MatchLength
from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.replay import replay_hand
from hebei.rules.simulate import simulate
from hebei.rules.tiles import parse_tile
from tests.unit.rules.rigging import CHOW_DEAL, CHOW_DEAL_WIN, QUIET_HANDS, rigged_hand, snapshot


def t(name: str) -> int:
    return parse_tile(name)


@pytest.mark.parametrize(
    ("seat", "deltas"),
    [
        (0, (-6, 2, 2, 2)),  # the dealer pays 2 to each
        (1, (1, -3, 1, 1)),  # another seat pays 1 to each, the dealer included
    ],
)
def test_a_false_win_on_a_turn_ends_the_hand_with_the_penalty(seat, deltas) -> None:
    state = rigged_hand(QUIET_HANDS, profile=CLASSIC)
    if seat:
        state.apply(0, DISCARD[t("1m")])
    assert WIN not in state.legal_actions(seat) and state.accepts_false_win(seat)
    state.apply(seat, WIN)
    assert state.ended and state.result.outcome is Outcome.FALSE_WIN
    assert state.result.winners == ()
    settlement = state.result.settlement
    assert settlement.false_wins == (seat,) and settlement.wins == ()
    assert settlement.hand_deltas == settlement.total == deltas
    assert not settlement.exhaustive_draw
    assert state.events[-2] == {"type": "win", "seat": seat, "false_win": True}
    assert state.events[-1]["outcome"] == "false_win"
    assert state.events[-1]["settlement"]["false_wins"] == [seat]


def test_the_main_rules_refuse_a_win_that_is_not_legal() -> None:
    state = rigged_hand(QUIET_HANDS, profile=MAIN)
    assert not state.accepts_false_win(0)
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="cannot win now"):
        state.apply(0, WIN)
    assert snapshot(state) == before


@pytest.mark.parametrize("seat", [1, 2, 3])
def test_only_a_seat_with_a_decision_can_declare(seat) -> None:
    state = rigged_hand(QUIET_HANDS, profile=CLASSIC)
    assert not state.accepts_false_win(seat)
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="it is seat 0's turn"):
        state.apply(seat, WIN)
    assert snapshot(state) == before


def test_a_real_win_is_never_taken_for_a_false_one() -> None:
    state = rigged_hand(["123m456m789m55566z", *QUIET_HANDS[1:]], profile=CLASSIC)
    assert WIN in state.legal_actions(0) and not state.accepts_false_win(0)
    state.apply(0, WIN)
    assert state.result.outcome is Outcome.WIN and state.result.settlement.false_wins == ()


def test_a_false_win_in_a_claim_window_waits_for_the_other_answers() -> None:
    state = rigged_hand(CHOW_DEAL, profile=CLASSIC)
    state.apply(0, DISCARD[t("4m")])
    assert state.legal_actions(3) == (PONG[t("4m")], PASS) and state.accepts_false_win(3)
    state.apply(3, WIN)
    assert state.events[-1] == {
        "type": "win",
        "seat": 3,
        "tile": "4m",
        "from": 0,
        "false_win": True,
    }
    assert not state.ended and state.to_act() == (1,)
    state.apply(1, PASS)
    assert state.result.outcome is Outcome.FALSE_WIN
    assert state.result.settlement.hand_deltas == (1, 1, 1, -3)
    assert state.discards[0] == [t("4m")]


def test_a_real_win_and_a_false_one_on_the_same_discard_are_both_settled() -> None:
    state = rigged_hand(CHOW_DEAL_WIN, profile=CLASSIC)
    state.apply(0, DISCARD[t("4m")])
    state.apply(1, WIN)  # false: seat 1 may only chow
    state.apply(3, WIN)  # real
    result = state.result
    assert result.outcome is Outcome.WIN and result.winners == (3,)
    assert result.settlement.false_wins == (1,)
    (win,) = result.settlement.wins
    penalty = (1, -3, 1, 1)
    assert result.settlement.hand_deltas == tuple(
        w + p for w, p in zip(win.deltas, penalty, strict=True)
    )
    assert sum(result.settlement.total) == 0


def test_kong_payments_are_void_when_the_hand_ends_on_a_false_win() -> None:
    state = rigged_hand(
        ["1111m47p147s34567z", *QUIET_HANDS[1:3], "258m369p258s5677z"], tail="9s", profile=CLASSIC
    )
    state.apply(0, CONCEALED_KONG[t("1m")])
    state.apply(0, WIN)
    settlement = state.result.settlement
    assert settlement.kong_deltas == (0, 0, 0, 0)
    assert settlement.total == (-6, 2, 2, 2)


def test_a_false_win_replays_and_its_mark_cannot_be_removed() -> None:
    state = HandState(20261129, 2, 0, CLASSIC)
    assert state.accepts_false_win(2)  # the dealer was not dealt a win
    state.apply(2, WIN)
    again = replay_hand(state.events)
    assert again.events == state.events and again.result == state.result
    edited = [dict(e) for e in state.events]
    del edited[-2]["false_win"]
    with pytest.raises(ReplayError, match="does not match the game"):
        replay_hand(edited)


@pytest.mark.parametrize(("false_winner", "next_dealer"), [(0, 1), (2, 0)])
def test_the_dealer_loses_the_deal_on_a_false_win_and_only_then(false_winner, next_dealer):
    match = Match(3, MatchLength(hands=4), CLASSIC)
    match.dealer = 0
    match.hand = rigged_hand(QUIET_HANDS, dealer=0, profile=CLASSIC)
    hand = match.hand
    while hand.current != false_winner:
        seat = hand.to_act()[0]
        hand.apply(seat, hand.auto_action(seat))
    hand.apply(false_winner, WIN)
    match.finish_hand()
    assert match.dealer == next_dealer
    assert match.scores == list(hand.result.settlement.total)


def test_players_never_declare_a_false_win() -> None:
    """Bots choose among the legal actions, and auto-play wins only when it can."""
    for players in ("random", "auto"):
        summary = simulate(300, seed=11, players=players, profile=CLASSIC)
        assert summary.outcomes["false_win"] == 0
