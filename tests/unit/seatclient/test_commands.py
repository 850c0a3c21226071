"""Typed lines to commands, for every kind of action and for keys that mean nothing now."""

from __future__ import annotations

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
)
from hebei.rules.hand import Phase
from hebei.rules.tiles import parse_tile, parse_tiles
from hebei.rules.views import ClaimView, Observation, SeatView
from hebei.seatclient.commands import CommandKind, discard_keys, parse_command, prompt_text

HAND = "123m55p789s11z556z4m"  # 14 tiles; 4m just drawn


def view(
    hand: str = HAND,
    drawn: str | None = "4m",
    legal: tuple[Action, ...] | None = None,
    claim: ClaimView | None = None,
) -> Observation:
    kinds = tuple(sorted(parse_tiles(hand)))
    if legal is None:
        legal = tuple(DISCARD[k] for k in sorted(set(kinds)))
    seats = tuple(SeatView(s, (), (), 13, 0) for s in range(4))
    return Observation(
        seat=0,
        hand_no=0,
        dealer=0,
        phase=Phase.TURN if claim is None else Phase.CLAIMS,
        current=0,
        hand=kinds,
        drawn=None if drawn is None else parse_tile(drawn),
        seats=seats,
        wall=50,
        claim=claim,
        legal_actions=legal,
    )


def claim_view(*legal: Action, tile: str = "5p", rob: bool = False) -> Observation:
    return view(
        "123m55p789s11z56z", drawn=None, legal=legal, claim=ClaimView(parse_tile(tile), 2, rob)
    )


def action_of(line: str, obs: Observation | None) -> Action:
    command = parse_command(line, obs)
    assert command.kind is CommandKind.ACT, command.message
    return command.action


def message_of(line: str, obs: Observation | None) -> str:
    command = parse_command(line, obs)
    assert command.kind is CommandKind.INVALID, command
    return command.message


@pytest.mark.parametrize(
    ("key", "tile"),
    [
        ("1", "1m"),
        ("3", "3m"),
        ("4", "5p"),
        ("9", "1z"),
        ("a", "1z"),
        ("b", "5z"),
        ("d", "6z"),
        ("e", "4m"),  # the drawn tile, set apart at the end
        (" 2 ", "2m"),
        ("E", "4m"),
    ],
)
def test_a_position_key_discards_the_tile_at_that_position(key: str, tile: str) -> None:
    assert action_of(key, view()) is DISCARD[parse_tile(tile)]


@pytest.mark.parametrize(
    ("text", "tile"), [("5p", "5p"), ("4M", "4m"), ("1z", "1z"), ("东", "1z"), ("发", "6z")]
)
def test_a_tile_name_discards_that_tile(text: str, tile: str) -> None:
    assert action_of(text, view()) is DISCARD[parse_tile(tile)]


def test_a_tile_not_in_hand_or_a_position_past_the_hand_is_refused() -> None:
    assert message_of("9m", view()) == "You have no 9m to discard."
    assert message_of("中", view()) == "You have no 中 to discard."
    short = view("123m55p789s115z", drawn=None)  # 11 tiles after a pong
    assert message_of("c", short) == "No tile at position c: your hand has 11 tiles (keys 1-9 a-b)."


@pytest.mark.parametrize("text", ["h", "H", "hu", "win", "胡"])
def test_h_wins_when_a_win_is_legal(text: str) -> None:
    assert action_of(text, claim_view(WIN, PASS)) is WIN
    assert message_of(text, view()) == "You cannot win (胡) now."


@pytest.mark.parametrize("text", ["p", "pong", "碰"])
def test_p_pongs_the_discard_on_offer(text: str) -> None:
    pong = PONG[parse_tile("5p")]
    assert action_of(text, claim_view(pong, PASS)) is pong
    assert message_of(text, claim_view(WIN, PASS)) == "There is no pong on offer."


def test_k_declares_the_only_kong_or_asks_which_one() -> None:
    exposed = EXPOSED_KONG[parse_tile("5p")]
    assert action_of("k", claim_view(PONG[parse_tile("5p")], exposed, PASS)) is exposed
    assert action_of("kong", claim_view(exposed, PASS)) is exposed
    concealed, added = CONCEALED_KONG[parse_tile("1z")], ADDED_KONG[parse_tile("9p")]
    turn = view(legal=(DISCARD[0], added, concealed))
    assert message_of("k", turn) == "Which kong? [k1] added kong 9p, [k2] concealed kong 东"
    assert action_of("k1", turn) is added
    assert action_of("k2", turn) is concealed
    assert action_of("k 1z", turn) is concealed
    assert action_of("k东", turn) is concealed
    assert action_of("K 9P", turn) is added
    assert message_of("k3", turn) == "There are 2 kongs to choose from: k1-k2."
    assert message_of("k 5m", turn) == "No kong of '5m': choose k1-k2."
    assert message_of("k", view()) == "There is no kong to declare now."


@pytest.mark.parametrize("text", ["", " ", "x", "X", "pass", "过"])
def test_enter_x_and_pass_pass_on_a_claim(text: str) -> None:
    assert action_of(text, claim_view(PONG[parse_tile("5p")], PASS)) is PASS
    assert message_of(text, view()).startswith("Nothing to pass on")


def test_discarding_while_a_claim_is_on_offer_is_refused() -> None:
    obs = claim_view(PONG[parse_tile("5p")], PASS)
    assert message_of("1", obs) == (
        "You cannot discard now: answer the tile on offer (see the prompt)."
    )
    assert message_of("1m", obs).startswith("You cannot discard now")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("t", CommandKind.TOGGLE_AUTO),
        ("托管", CommandKind.TOGGLE_AUTO),
        ("q", CommandKind.QUIT),
        ("Quit", CommandKind.QUIT),
        ("r", CommandKind.REDRAW),
        ("?", CommandKind.HELP),
        ("help", CommandKind.HELP),
    ],
)
def test_control_keys_work_with_or_without_a_decision(text: str, kind: CommandKind) -> None:
    assert parse_command(text, None).kind is kind
    assert parse_command(text, view()).kind is kind


@pytest.mark.parametrize("text", ["1", "5m", "h", "x", "k"])
def test_game_keys_without_a_decision_say_to_wait(text: str) -> None:
    assert message_of(text, None).startswith("Nothing to decide right now")
    assert message_of(text, view(legal=())).startswith("Nothing to decide right now")


@pytest.mark.parametrize("text", ["zz", "10", "@", "0", "8z", "5m5m", "discard everything"])
def test_unknown_keys_get_one_line_never_an_exception(text: str) -> None:
    message = message_of(text, view())
    assert message == f"Unknown key {text!r}: type ? for help."
    assert "\n" not in message


@pytest.mark.parametrize(
    ("size", "keys"), [(14, "1-9 a-e"), (11, "1-9 a-b"), (10, "1-9 a"), (8, "1-8"), (2, "1-2")]
)
def test_discard_keys_name_the_positions_of_the_hand(size: int, keys: str) -> None:
    assert discard_keys(size) == keys


def test_the_turn_prompt_lists_the_discard_keys_the_win_and_the_kongs() -> None:
    concealed = CONCEALED_KONG[parse_tile("1z")]
    prompt = prompt_text(view(legal=(*view().legal_actions, WIN, concealed)))
    assert prompt == (
        "Your turn: discard [1-9 a-e] or a tile name  [h] win 胡  [k] concealed kong 东"
        "  [t] auto  [q] quit > "
    )


def test_the_claim_prompt_names_the_discarder_and_the_tile() -> None:
    names = ["You", "Seat 1 (Bot 1)", "Seat 2 (Bot 2)", "Seat 3 (Bot 3)"]
    obs = claim_view(WIN, PONG[parse_tile("5p")], PASS)
    assert prompt_text(obs, names) == (
        "Seat 2 (Bot 2) discarded 5p: [h] win 胡  [p] pong  [x] pass  [t] auto  [q] quit > "
    )
    rob = claim_view(WIN, PASS, tile="9p", rob=True)
    assert prompt_text(rob) == (
        "Seat 2 adds a kong with 9p: [h] win 胡  [x] pass  [t] auto  [q] quit > "
    )
