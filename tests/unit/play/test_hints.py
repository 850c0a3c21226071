"""`hebei play --hints`: the s key shows the expert's suggestion, a legal action, and why."""

from __future__ import annotations

from hebei.bots.policies import make_policy
from hebei.common import convert
from hebei.play.hints import hint_lines
from hebei.seatclient.suggestions import action_label
from tests.unit.play.test_session import Screen, claim_for_seat_0, own_turn


def test_the_hint_key_shows_the_experts_choice_and_reason() -> None:
    screen = Screen()
    screen.session.hints = True
    obs = own_turn()
    shown = screen.feed(obs)
    assert "[s] hint" in shown
    view = convert.observation_from_proto(obs)
    best = make_policy("expert").rank(view)[0].action
    hint = screen.type("s")
    assert f"Expert 3 suggests: {action_label(best)} — " in hint
    assert "EV " in hint and hint.count("  or ") == 2  # the next two options, with reasons
    assert screen.sent == []  # a hint sends nothing: the decision stays open
    assert screen.type("s").count("suggests") == 1


def test_a_claim_hint_names_pass_or_the_claim() -> None:
    obs, _ = claim_for_seat_0()
    lines = hint_lines(convert.observation_from_proto(obs))
    assert lines[0].startswith("Expert 3 suggests: ")
    assert any(word in lines[0] for word in ("pass", "pong", "kong", "win"))


def test_without_hints_the_key_says_how_to_turn_them_on() -> None:
    screen = Screen()
    shown = screen.feed(own_turn())
    assert "[s] hint" not in shown
    assert "start hebei play with --hints" in screen.type("s")
