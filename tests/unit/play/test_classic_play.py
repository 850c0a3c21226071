"""`hebei play` in the classic profile (RULES.md §9): chow keys and prompts, chow melds and the
classic settlement on the board, and the false win (h!) a person may declare."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from hebei.common import convert
from hebei.play.render import describe_changes, render_settlement
from hebei.play.session import PlayerSession
from hebei.rules.actions import CHOW, DISCARD, PASS, PONG, WIN
from hebei.rules.profile import CLASSIC
from hebei.rules.tiles import parse_tile
from hebei.rules.views import observe
from hebei.seatclient.commands import CommandKind, parse_command, prompt_text
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.unit.play.helpers import PUBLICS, plain
from tests.unit.rules.rigging import CHOW_DEAL, CHOW_DEAL_WIN, QUIET_HANDS, rigged_hand


def t(name: str) -> int:
    return parse_tile(name)


def chow_offer():
    """Seat 1 may chow 4m three ways (234m, 345m, 456m) or pass."""
    state = rigged_hand(CHOW_DEAL, profile=CLASSIC)
    state.apply(0, DISCARD[t("4m")])
    return state, observe(state, 1)


def test_the_prompt_offers_each_chow_by_its_run() -> None:
    _, view = chow_offer()
    prompt = prompt_text(view, ["Ann", "Bob", "Cy", "Di"])
    assert "[ch1] chow 234m  [ch2] chow 345m  [ch3] chow 456m  [x] pass" in prompt


@pytest.mark.parametrize(
    ("line", "chosen"),
    [("ch1", "2m"), ("ch2", "3m"), ("ch 456m", "4m"), ("chow 345m", "3m"), ("吃3", "4m")],
)
def test_a_chow_is_chosen_by_number_or_run(line: str, chosen: str) -> None:
    _, view = chow_offer()
    command = parse_command(line, view)
    assert command.kind is CommandKind.ACT and command.action is CHOW[t(chosen)]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("ch", "Which chow? [ch1] chow 234m, [ch2] chow 345m, [ch3] chow 456m"),
        ("ch4", "There are 3 chows to choose from: ch1-ch3."),
        ("ch 567m", "No chow '567m': choose ch1-ch3 or the run, e.g. ch 234m."),
    ],
)
def test_an_unclear_chow_says_which_are_on_offer(line: str, message: str) -> None:
    _, view = chow_offer()
    command = parse_command(line, view)
    assert command.kind is CommandKind.INVALID and command.message == message


def test_ch_without_a_chow_on_offer_is_refused() -> None:
    state = rigged_hand(CHOW_DEAL, profile=CLASSIC)
    state.apply(0, DISCARD[t("4m")])
    state.apply(3, PONG[t("4m")])
    state.apply(1, CHOW[t("3m")])  # the pong wins over the chow: seat 3 discards
    view = observe(state, 3)
    assert parse_command("ch", view).message == "There is no chow on offer."
    assert parse_command("b", view).kind is CommandKind.ACT  # a position key: a discard
    assert "No tile at position c" in parse_command("c", view).message  # not a chow


def test_h_bang_declares_a_false_win_only_where_the_profile_allows() -> None:
    _, view = chow_offer()
    assert WIN not in view.legal_actions
    assert parse_command("h", view, false_win=True).message.startswith(
        "You have no winning hand (胡). h! declares it anyway"
    )
    command = parse_command("h!", view, false_win=True)
    assert command.kind is CommandKind.ACT and command.action is WIN
    assert parse_command("h!", view).message == "You cannot win (胡) now."


def _observation(state, seat: int, decision_id: int = 5) -> pb.Observation:
    view = observe(state, seat)
    return convert.observation_to_proto(
        view,
        seats=PUBLICS,
        decision_id=decision_id if view.legal_actions else 0,
        rule_profile=state.profile.name,
    )


def test_the_session_sends_a_chow_and_a_false_win_at_a_classic_table() -> None:
    out = io.StringIO()
    sent: list[pb.Action] = []
    session = PlayerSession(Console(file=out, width=160, color_system=None), sent.append)
    state, _ = chow_offer()
    session.on_message(table_pb2.PlayResponse(observation=_observation(state, 1)))
    assert "[ch1] chow 234m" in out.getvalue()
    session.on_line("ch2")
    assert sent[-1] == pb.Action(kind=pb.ACTION_KIND_CHOW, chow_base=pb.TILE_3M, decision_id=5)
    # The next decision: h! is a false win at a classic table.
    state.apply(3, PASS)
    state.apply(1, CHOW[t("3m")])
    session.on_message(table_pb2.PlayResponse(observation=_observation(state, 1, 6)))
    assert "Bot 1 chow 3m 4m 5m" not in out.getvalue()  # the own seat is "You"
    assert "You chow 3m 4m 5m" in out.getvalue()
    session.on_line("h!")
    assert sent[-1] == pb.Action(kind=pb.ACTION_KIND_WIN, decision_id=6)


def test_h_bang_is_refused_at_a_main_table() -> None:
    out = io.StringIO()
    sent: list[pb.Action] = []
    session = PlayerSession(Console(file=out, width=160, color_system=None), sent.append)
    state = rigged_hand(QUIET_HANDS)
    session.on_message(table_pb2.PlayResponse(observation=_observation(state, 0)))
    session.on_line("h!")
    assert not sent and "You cannot win (胡) now." in out.getvalue()


def test_chow_lines_and_melds_show_the_run() -> None:
    state, _ = chow_offer()
    before = _observation(state, 2)
    state.apply(3, PASS)
    state.apply(1, CHOW[t("3m")])
    after = _observation(state, 2)
    lines = [plain(line).strip() for line in describe_changes(before, after)]
    assert "Seat 1 (Bot 1) chows 3m 4m 5m" in lines


def _settled(state) -> pb.Settlement:
    return convert.settlement_to_proto(
        state.result.settlement,
        match_id="m",
        hand_no=1,
        dealer=state.dealer,
        player_ids=["a", "b", "c", "d"],
        rule_profile="classic",
    )


def test_a_classic_settlement_shows_points_and_doublings() -> None:
    state = rigged_hand(["123m456m789m55566z", *QUIET_HANDS[1:]], profile=CLASSIC)
    state.apply(0, WIN)
    obs = _observation(state, 1)
    text = plain(render_settlement(_settled(state), obs))
    assert "12 points" in text and "base" not in text
    assert "long" in text and "3 points" in text
    assert "zi_mo" in text and "×2" in text


def test_a_false_win_settlement_names_the_seat_and_its_penalty() -> None:
    state = rigged_hand(CHOW_DEAL_WIN, profile=CLASSIC)
    state.apply(0, DISCARD[t("4m")])
    state.apply(1, WIN)  # false
    state.apply(3, PASS)
    obs = _observation(state, 0)
    text = plain(render_settlement(_settled(state), obs))
    assert "诈胡 false win: Seat 1 (Bot 1) declared a win without a winning hand" in text
    assert "Nobody else won; kong payments are void." in text


def test_the_web_table_offers_a_button_per_chow_that_types_its_command() -> None:
    from hebei.web.seat_view import _options

    state, view = chow_offer()
    options, prompt = _options(_observation(state, 1))
    chows = [o for o in options if o["kind"] == "chow"]
    assert [(o["key"], o["label"]) for o in chows] == [
        ("ch1", "吃 Chow 234m"),
        ("ch2", "吃 Chow 345m"),
        ("ch3", "吃 Chow 456m"),
    ]
    assert [parse_command(o["command"], view).action for o in chows] == [
        CHOW[t("2m")],
        CHOW[t("3m")],
        CHOW[t("4m")],
    ]
    assert "[ch1] chow 234m" in prompt


def test_a_local_table_opens_in_the_chosen_profile() -> None:
    from hebei.play.local import LocalOptions, open_match_request

    request = open_match_request(LocalOptions(profile="classic"), "m1", ["a", "b", "c", "d"])
    assert request.rule_profile.name == "classic"
    assert open_match_request(LocalOptions(), "m2", list("abcd")).rule_profile.name == "main"


def test_hebei_play_refuses_an_unknown_profile_in_one_line() -> None:
    import subprocess
    import sys
    from pathlib import Path

    hebei = str(Path(sys.executable).with_name("hebei"))
    result = subprocess.run(
        [hebei, "play", "--profile", "riichi"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert "--profile: unknown rule profile 'riichi'; known profiles: classic, main" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr


def test_the_web_settlement_carries_points_doublings_and_false_wins() -> None:
    from hebei.web.views import settlement_json

    state = rigged_hand(["123m456m789m55566z", *QUIET_HANDS[1:]], profile=CLASSIC)
    state.apply(0, WIN)
    (win,) = settlement_json(_settled(state))["wins"]
    assert win["points"] == 12 and win["bonus"] == 0
    assert [(f["id"], f["fan"], f["doubling"]) for f in win["fans"]] == [
        ("long", 3, False),
        ("zi_mo", 2, True),
        ("men_qing", 2, True),
    ]
    state = rigged_hand(QUIET_HANDS, profile=CLASSIC)
    state.apply(0, WIN)  # the dealer's false win
    view = settlement_json(_settled(state))
    assert view["outcome"] == "false_win" and view["false_wins"] == [0] and view["wins"] == []
