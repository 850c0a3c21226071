"""The hand state machine (RULES.md §2-§3 and their Decisions), on stacked walls."""

import pytest

from hebei.rules.actions import (
    ADDED_KONG,
    CONCEALED_KONG,
    DISCARD,
    EXPOSED_KONG,
    PASS,
    PONG,
    WIN,
    Action,
    ActionKind,
)
from hebei.rules.errors import IllegalActionError
from hebei.rules.hand import HandState, Outcome, Phase
from hebei.rules.melds import MeldKind
from hebei.rules.players import AutoPlayer
from hebei.rules.tiles import parse_tile
from tests.unit.rules.rigging import rigged_hand, snapshot

# Hands far from ready, with no pair a discard could complete: nobody can claim anything.
S0 = "147m147p147s34567z"  # the dealer's 14
S1 = "258m258p258s1234z"
S2 = "369m369p369s1234z"
S3 = "258m369p147s5677z"
# Seat 1 waiting on 1m or 4m (23m); seat 3 waiting on 1m or 4m too.
S1_WAITS_14M = "23m456p789s11122z"
S3_WAITS_14M = "23m567p678s33344z"


def t(name: str) -> int:
    return parse_tile(name)


def play_auto_until(state: HandState, stop) -> None:
    """Auto-play every seat until ``stop(state)`` holds (or the hand ends)."""
    player = AutoPlayer()
    while not state.ended and not stop(state):
        seat = state.to_act()[0]
        state.apply(seat, player.choose(state, seat, state.legal_actions(seat)))


# ---------------------------------------------------------------- §2 turn order


def test_dealer_first_turn_is_a_turn_without_a_draw():
    state = rigged_hand([S0, S1, S2, S3])
    assert [e["type"] for e in state.events] == ["hand_start", "deal"]
    assert state.current == 0 and state.phase is Phase.TURN and state.drawn is None
    assert all(a.kind is ActionKind.DISCARD for a in state.legal_actions(0))
    assert len(state.legal_actions(0)) == 14
    for seat in (1, 2, 3):
        assert state.legal_actions(seat) == ()


def test_dealer_may_win_at_once_as_a_self_draw():
    state = rigged_hand(["123m456p789s55566z", S1, S2, S3])
    assert WIN in state.legal_actions(0)
    state.apply(0, WIN)
    assert state.ended
    (win,) = state.result.settlement.wins
    assert win.win.value == "self_draw" and win.winner == 0
    assert state.result.settlement.hand_deltas[0] > 0


def test_dealer_may_declare_a_concealed_kong_on_the_first_turn():
    state = rigged_hand(["1111m47p147s34567z", S1, S2, S3.replace("147s", "258s")], tail="9s")
    assert CONCEALED_KONG[t("1m")] in state.legal_actions(0)
    state.apply(0, CONCEALED_KONG[t("1m")])
    assert state.events[-1] == {"type": "draw", "seat": 0, "tile": "9s", "replacement": True}
    assert state.current == 0 and state.phase is Phase.TURN


def test_play_passes_counter_clockwise_east_south_west_north():
    state = rigged_hand([S0, S1, S2, S3])
    play_auto_until(state, lambda s: sum(e["type"] == "discard" for e in s.events) >= 8)
    discarders = [e["seat"] for e in state.events if e["type"] == "discard"]
    assert discarders == [0, 1, 2, 3, 0, 1, 2, 3]


def test_normal_draws_come_from_the_head():
    state = rigged_hand([S0, S1, S2, S3], draws="9p8p")
    state.apply(0, DISCARD[t("1m")])
    assert state.events[-1] == {"type": "draw", "seat": 1, "tile": "9p"}
    state.apply(1, DISCARD[t("9p")])
    assert state.events[-1] == {"type": "draw", "seat": 2, "tile": "8p"}


def test_exhaustive_draw_when_only_the_reserve_is_left():
    state = rigged_hand([S0, S1, S2, S3])
    play_auto_until(state, lambda s: False)
    assert state.result.outcome is Outcome.EXHAUSTIVE_DRAW
    assert sum(1 for e in state.events if e["type"] == "draw") == 71
    assert state.wall.remaining == 12
    assert state.result.settlement.total == (0, 0, 0, 0)


# ---------------------------------------------------------------- §3 claims


def test_pong_then_discard_without_a_draw_and_play_goes_on_from_the_claimer():
    state = rigged_hand([S0, S1, "11m369p369s12346z", S3])
    state.apply(0, DISCARD[t("1m")])
    assert state.phase is Phase.CLAIMS and state.to_act() == (2,)
    assert state.legal_actions(2) == (PONG[t("1m")], PASS)
    state.apply(2, PONG[t("1m")])
    assert state.events[-1] == {"type": "pong", "seat": 2, "tile": "1m", "from": 0}
    assert state.current == 2 and state.drawn is None
    assert all(a.kind is ActionKind.DISCARD for a in state.legal_actions(2))
    assert state.melds[2][0].kind is MeldKind.PONG and state.discards[0] == []
    state.apply(2, DISCARD[t("3p")])
    assert state.events[-1]["type"] == "draw" and state.events[-1]["seat"] == 3  # seat 1 skipped


def test_exposed_kong_on_a_discard_draws_a_replacement_from_the_tail():
    state = rigged_hand([S0, S1, "111m369p369s3467z", S3], tail="5s")
    state.apply(0, DISCARD[t("1m")])
    assert state.legal_actions(2) == (PONG[t("1m")], EXPOSED_KONG[t("1m")], PASS)
    state.apply(2, EXPOSED_KONG[t("1m")])
    assert state.events[-1] == {"type": "draw", "seat": 2, "tile": "5s", "replacement": True}
    assert state.melds[2][0].kind is MeldKind.EXPOSED_KONG and state.melds[2][0].from_seat == 0
    assert state.wall.kongs == 1


def test_there_is_no_chow():
    state = rigged_hand(
        [S0, S1_WAITS_14M.replace("11122z", "11134z"), S2.replace("1234z", "5567z"), S3]
    )
    state.apply(0, DISCARD[t("4p")])  # seat 1 holds 23m and 56p... but no chow exists
    assert state.phase is Phase.TURN and state.current == 1
    assert not state.profile.allow_chow  # chow exists only in the classic profile (§9)


def test_win_has_priority_over_pong():
    state = rigged_hand([S0, S1_WAITS_14M, "11m369p369s34677z", S3.replace("5677z", "5566z")])
    state.apply(0, DISCARD[t("1m")])
    assert set(state.to_act()) == {1, 2}
    state.apply(2, PONG[t("1m")])  # answered first, but the win wins
    assert not state.ended
    state.apply(1, WIN)
    assert state.ended and state.result.winners == (1,)
    assert state.melds[2] == []


def test_pong_goes_ahead_when_the_winner_passes():
    state = rigged_hand([S0, S1_WAITS_14M, "11m369p369s34677z", S3.replace("5677z", "5566z")])
    state.apply(0, DISCARD[t("1m")])
    state.apply(1, PASS)  # winning is never forced
    state.apply(2, PONG[t("1m")])
    assert not state.ended and state.current == 2 and state.melds[2][0].tile == t("1m")


def test_several_players_win_on_one_discard():
    state = rigged_hand([S0, S1_WAITS_14M, "369m369p369s5566z", S3_WAITS_14M])
    state.apply(0, DISCARD[t("1m")])
    assert set(state.to_act()) == {1, 3}
    state.apply(3, WIN)
    state.apply(1, WIN)
    settlement = state.result.settlement
    assert [w.winner for w in settlement.wins] == [1, 3]
    assert all(w.discarder == 0 for w in settlement.wins)
    # non-dealer on the dealer's discard: 6 + bonus from the dealer to each winner;
    # seat 1 reads 123m 456p 789s: men_qing 2 + hua_long 5; seat 3 men_qing 2
    assert settlement.hand_deltas == (-21, 13, 0, 8)


def test_no_furiten_a_passed_win_can_be_taken_later():
    state = rigged_hand([S0, S1_WAITS_14M, S2.replace("1234z", "5566z"), S3], draws="9p9p9s4m")
    state.apply(0, DISCARD[t("1m")])
    state.apply(1, PASS)
    assert state.current == 1
    play_auto_until(state, lambda s: s.phase is Phase.CLAIMS and s.claim_tile == t("4m"))
    assert WIN in state.legal_actions(1)


def _robbing_setup():
    s2 = "44m369p369s23456z"
    state = rigged_hand([S0, S1_WAITS_14M, s2, S3], draws="5z6z1p4m", tail="9s")
    state.apply(0, DISCARD[t("4m")])
    state.apply(1, PASS)
    state.apply(2, PONG[t("4m")])
    state.apply(2, DISCARD[t("3z")])
    for seat in (3, 0, 1):
        state.apply(seat, DISCARD[state.drawn])
    assert state.current == 2 and state.drawn == t("4m")
    return state


def test_added_kong_can_be_robbed_and_the_konger_pays_as_discarder():
    state = _robbing_setup()
    assert ADDED_KONG[t("4m")] in state.legal_actions(2)
    state.apply(2, ADDED_KONG[t("4m")])
    assert state.phase is Phase.ROB and state.legal_actions(1) == (WIN, PASS)
    state.apply(1, WIN)
    (win,) = state.result.settlement.wins
    assert win.win.value == "rob_kong" and win.discarder == 2
    assert "qiang_gang_hu" in {f.id for f in win.fans}
    assert state.result.settlement.kong_deltas == (0, 0, 0, 0)  # the kong is not made
    assert state.melds[2][0].kind is MeldKind.PONG
    assert state.result.settlement.hand_deltas[2] == -state.result.settlement.hand_deltas[1]
    assert state.tile_census() == [4] * 34


def test_added_kong_completes_when_nobody_robs():
    state = _robbing_setup()
    state.apply(2, ADDED_KONG[t("4m")])
    state.apply(1, PASS)
    assert state.melds[2][0].kind is MeldKind.ADDED_KONG
    assert state.events[-1] == {"type": "draw", "seat": 2, "tile": "9s", "replacement": True}


def test_a_concealed_kong_cannot_be_robbed():
    s0 = "4444m147p147s1234z"
    state = rigged_hand(
        [s0, S1_WAITS_14M, "369m369p369s3567z", S3.replace("5677z", "5667z")], tail="9s"
    )
    state.apply(0, CONCEALED_KONG[t("4m")])
    assert state.phase is Phase.TURN and state.current == 0
    assert state.legal_actions(1) == ()


# ---------------------------------------------------------------- the last tile (海底)


S2_NO_9S = "369m369p368s1234z"


def _to_last_draw(hands: list[str], last: str) -> HandState:
    """Deal ``hands``; every seat discards what it draws until seat 3 draws the 71st and
    last normal tile, ``last``."""
    state = rigged_hand(hands)
    wall = state.wall
    i = wall.tiles.index(t(last), 53)  # put ``last`` at the 71st normal draw (index 53 + 70)
    wall.tiles[i], wall.tiles[123] = wall.tiles[123], wall.tiles[i]
    play_auto_until(state, lambda s: s.wall.live == 0 and s.phase is Phase.TURN)
    assert not state.ended and state.current == 3 and state.last_draw and state.drawn == t(last)
    return state


def test_no_kong_on_the_last_draw():
    state = _to_last_draw([S0, S1, S2_NO_9S, "999s258m369p147s5z"], "9s")
    assert state.hands[3][t("9s")] == 4
    assert not any(a.kind is ActionKind.CONCEALED_KONG for a in state.legal_actions(3))


def test_a_concealed_kong_is_allowed_while_a_live_tile_remains():
    state = rigged_hand([S0, S1, S2_NO_9S, "999s258m369p147s5z"], draws="1z2z9s")
    play_auto_until(state, lambda s: s.current == 3 and s.drawn == t("9s"))
    assert CONCEALED_KONG[t("9s")] in state.legal_actions(3)


def test_self_draw_on_the_last_tile_scores_hai_di_lao_yue():
    state = _to_last_draw([S0, S1, "369m369p369s1235z", "123m456p789s666z5z"], "5z")
    assert WIN in state.legal_actions(3)
    state.apply(3, WIN)
    assert "hai_di_lao_yue" in {f.id for f in state.result.settlement.wins[0].fans}


def test_the_last_discard_can_be_claimed_for_a_win_and_a_pong_but_not_a_kong():
    s0 = "777s147m147p258s56z"
    s1 = "123m456p11122z89s"  # waits on 7s only
    state = _to_last_draw([s0, s1, S2, "258m369p258s5677z"], "7s")
    state.apply(3, DISCARD[t("7s")])
    assert state.legal_actions(0) == (PONG[t("7s")], PASS)
    assert state.legal_actions(1) == (WIN, PASS)
    state.apply(0, PASS)
    state.apply(1, WIN)
    assert state.result.winners == (1,)


def test_kong_payments_are_void_on_an_exhaustive_draw():
    state = rigged_hand([S0, S1, "111m369p369s3467z", S3], tail="5s")
    state.apply(0, DISCARD[t("1m")])
    state.apply(2, EXPOSED_KONG[t("1m")])
    play_auto_until(state, lambda s: False)
    assert state.result.outcome is Outcome.EXHAUSTIVE_DRAW
    assert len(state.kongs) == 1
    assert state.result.settlement.kong_deltas == (0, 0, 0, 0)


# ---------------------------------------------------------------- auto-play (托管)


def test_auto_play_discards_the_drawn_tile():
    state = rigged_hand([S0, S1, S2, S3], draws="9p")
    state.apply(0, DISCARD[t("1m")])
    assert state.auto_action(1) == DISCARD[t("9p")]


def test_auto_play_without_a_draw_discards_the_last_tile_of_the_sorted_hand():
    state = rigged_hand([S0, S1, S2, S3])
    assert state.auto_action(0) == DISCARD[t("7z")]  # the dealer's first turn
    state = rigged_hand([S0, S1, "11m369p369s12346z", S3])
    state.apply(0, DISCARD[t("1m")])
    state.apply(2, PONG[t("1m")])
    assert state.auto_action(2) == DISCARD[t("6z")]  # after a pong


def test_auto_play_declares_any_win_and_never_pongs():
    state = rigged_hand([S0, S1_WAITS_14M, "11m369p369s34677z", S3.replace("5677z", "5566z")])
    state.apply(0, DISCARD[t("1m")])
    assert state.auto_action(1) == WIN
    assert state.auto_action(2) == PASS
    state.apply(2, state.auto_action(2), auto=True)
    assert state.events[-1] == {"type": "pass", "seat": 2, "auto": True}


# ---------------------------------------------------------------- illegal actions


@pytest.mark.parametrize(
    ("seat", "action", "reason"),
    [
        (1, DISCARD[0], "it is seat 0's turn"),
        (0, DISCARD[27], "holds no 1z"),
        (0, PONG[0], "cannot pong 1m now"),
        (0, WIN, "cannot win now"),
        (5, DISCARD[0], "seat 5 does not exist"),
    ],
)
def test_an_illegal_action_raises_and_changes_nothing(seat, action, reason):
    state = rigged_hand([S0, S1, S2, S3])
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=reason):
        state.apply(seat, action)
    assert snapshot(state) == before


def test_answering_a_claim_twice_is_refused():
    state = rigged_hand([S0, S1_WAITS_14M, "11m369p369s34677z", S3.replace("5677z", "5566z")])
    state.apply(0, DISCARD[t("1m")])
    state.apply(2, PASS)
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="already answered"):
        state.apply(2, PONG[t("1m")])
    assert snapshot(state) == before


def test_no_action_after_the_hand_ended():
    state = rigged_hand(["123m456p789s55566z", S1, S2, S3])
    state.apply(0, WIN)
    with pytest.raises(IllegalActionError, match="the hand has ended"):
        state.apply(1, PASS)


def test_actions_are_interned_values():
    assert Action(ActionKind.DISCARD, 3) is DISCARD[3]
    assert Action.from_json({"type": "pong", "tile": "5m"}) is PONG[4]
