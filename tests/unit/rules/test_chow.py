"""Chow (吃) in the classic profile (RULES.md §9): only the previous seat's discard, only runs the
hand completes, never honors, and claims resolved win > pong/kong > chow."""

from __future__ import annotations

import pytest

from hebei.rules.actions import CHOW, DISCARD, PASS, PONG, WIN, Action, ActionKind
from hebei.rules.errors import IllegalActionError, NotationError
from hebei.rules.hand import Phase, chows
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.tiles import format_tiles, parse_tile, parse_tiles, to_counts
from hebei.rules.views import observe
from tests.unit.rules.rigging import CHOW_DEAL, CHOW_DEAL_WIN, rigged_hand, snapshot


def t(name: str) -> int:
    return parse_tile(name)


def runs(actions) -> list[str]:
    """Chow actions as their runs: ``["234m", "345m"]``."""
    return [format_tiles((a.tile, a.tile + 1, a.tile + 2)) for a in actions]


@pytest.mark.parametrize(
    ("hand", "discard", "expected"),
    [
        ("2356m", "4m", ["234m", "345m", "456m"]),  # every run through the tile
        ("23m", "1m", ["123m"]),
        ("23m", "4m", ["234m"]),
        ("13m", "2m", ["123m"]),  # the middle
        ("2457m", "3m", ["234m", "345m"]),
        ("12m", "3m", ["123m"]),  # rank 3: no run below 1
        ("89m", "7m", ["789m"]),
        ("78m", "9m", ["789m"]),  # rank 9: no run above 9
        ("9m2p", "1p", []),  # 9m 1p 2p are consecutive kinds, not a run
        ("89m", "1p", []),
        ("12p", "3m", []),  # another suit
        ("12z", "3z", []),  # honors make no run
        ("1155m", "3m", []),  # two of the pair, no run
        ("24m", "4m", []),  # the tile itself is not the partner
        ("12333m", "4m", ["234m"]),
    ],
)
def test_chows_are_the_runs_the_hand_completes(hand: str, discard: str, expected) -> None:
    counts = to_counts(parse_tiles(hand))
    assert runs(chows(counts, t(discard))) == expected
    assert counts == to_counts(parse_tiles(hand))  # untouched


def test_a_chow_is_an_action_named_by_its_lowest_tile() -> None:
    action = CHOW[t("3m")]
    assert str(action) == "chow 345m" and repr(action) == "Action(CHOW, 3m)"
    assert action.to_json() == {"type": "chow", "tile": "3m"}
    assert Action.from_json({"type": "chow", "tile": "3m"}) is action
    assert Action(ActionKind.CHOW, t("3m")) is action
    with pytest.raises(NotationError, match="chow needs a tile"):
        Action(ActionKind.CHOW)


def after_discard(deal=CHOW_DEAL, profile=CLASSIC):
    state = rigged_hand(deal, profile=profile)
    state.apply(0, DISCARD[t("4m")])
    return state


def test_only_the_next_seat_is_offered_the_chows() -> None:
    state = after_discard()
    assert state.phase is Phase.CLAIMS and set(state.to_act()) == {1, 3}
    assert state.legal_actions(1) == (CHOW[t("2m")], CHOW[t("3m")], CHOW[t("4m")], PASS)
    assert state.legal_actions(2) == ()  # the same runs, but seat 2 is not next
    assert state.legal_actions(3) == (PONG[t("4m")], PASS)
    assert [a.to_json() for a in observe(state, 1).legal_actions][:3] == [
        {"type": "chow", "tile": "2m"},
        {"type": "chow", "tile": "3m"},
        {"type": "chow", "tile": "4m"},
    ]


def test_the_main_rules_offer_no_chow() -> None:
    state = after_discard(profile=MAIN)
    assert state.to_act() == (3,) and state.legal_actions(1) == ()


@pytest.mark.parametrize(
    ("seat", "action", "reason"),
    [
        (1, CHOW[t("1m")], "cannot chow 123m now"),  # a run without the discard
        (1, CHOW[t("5m")], "cannot chow 567m now"),
        (3, CHOW[t("3m")], "only seat 1, next after the discarder, may chow"),
        (2, CHOW[t("3m")], "no claim on 4m"),
        (1, CHOW[t("7z")], "cannot chow"),  # no honor run
    ],
)
def test_an_illegal_chow_is_refused_and_changes_nothing(seat, action, reason) -> None:
    state = after_discard()
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=reason):
        state.apply(seat, action)
    assert snapshot(state) == before


def test_a_chow_in_the_main_rules_is_refused_with_the_reason() -> None:
    state = after_discard(profile=MAIN)
    with pytest.raises(IllegalActionError, match="the main rules have no chow"):
        state.apply(3, CHOW[t("3m")])


@pytest.mark.parametrize("order", [(1, 3), (3, 1)])
def test_pong_beats_chow_in_either_order(order) -> None:
    state = after_discard()
    answers = {1: CHOW[t("3m")], 3: PONG[t("4m")]}
    for seat in order:
        state.apply(seat, answers[seat])
    assert state.current == 3 and state.melds[1] == [] and state.melds[3][0].kind is MeldKind.PONG


@pytest.mark.parametrize("order", [(1, 3), (3, 1)])
def test_win_beats_chow_in_either_order(order) -> None:
    state = after_discard(CHOW_DEAL_WIN)
    assert state.legal_actions(3) == (WIN, PASS)
    answers = {1: CHOW[t("3m")], 3: WIN}
    for seat in order:
        state.apply(seat, answers[seat])
    assert state.ended and state.result.winners == (3,) and state.melds[1] == []


def test_the_chow_goes_ahead_when_the_others_pass() -> None:
    state = after_discard()
    state.apply(3, PASS)
    state.apply(1, CHOW[t("3m")])
    assert state.melds[1] == [Meld(MeldKind.CHOW, t("3m"), 0)]
    assert state.discards[0] == []
    assert state.hands[1] == to_counts(parse_tiles("26m147p147s147z"))  # 3m 5m went to the run
    assert state.events[-1] == {"type": "chow", "seat": 1, "tile": "3m", "from": 0, "claimed": "4m"}
    # Then a turn without a draw: discard only (no win, no kong).
    assert state.phase is Phase.TURN and state.current == 1 and state.drawn is None
    assert all(a.kind is ActionKind.DISCARD for a in state.legal_actions(1))
    assert state.auto_action(1) == DISCARD[t("7z")]
    assert state.tile_census() == [4] * 34
    state.apply(1, DISCARD[t("7z")])
    assert state.events[-1]["type"] == "draw" and state.events[-1]["seat"] == 2


def test_a_chow_is_public() -> None:
    state = after_discard()
    state.apply(3, PASS)
    state.apply(1, CHOW[t("3m")])
    view = observe(state, 2)
    assert view.seats[1].melds == (Meld(MeldKind.CHOW, t("3m"), 0),)
    assert view.seats[1].concealed_count == 11
    assert [view.visible()[t(k)] for k in ("3m", "4m", "5m")] == [1, 1, 1]
    assert observe(state, 2).to_json()["seats"][1]["melds"] == [
        {"type": "chow", "tile": "3m", "from": 0}
    ]


def test_auto_play_never_chows() -> None:
    state = after_discard()
    assert state.auto_action(1) is PASS and state.auto_action(3) is PASS
