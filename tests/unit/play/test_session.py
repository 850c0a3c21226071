"""The person's session without a terminal: observations in, screen and actions out."""

from __future__ import annotations

import io
import os
import queue
import time

import grpc
import pytest
from rich.console import Console

from hebei.common import convert
from hebei.play.session import EOF, EXIT_ERROR, EXIT_OK, LINE, PlayerSession, read_lines
from hebei.rules.actions import PASS, ActionKind
from hebei.rules.hand import Phase
from hebei.rules.tiles import TILE_NAMES
from hebei.seatclient.stream import MOVED, MOVED_TEXT
from hebei.seatclient.tiles import tile_label
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.unit.play.helpers import advance, observation


class Screen:
    """A session printing into a string and recording what it sends."""

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.sent: list[pb.Action] = []
        console = Console(file=self.out, width=160, color_system=None, force_terminal=False)
        self.session = PlayerSession(console, self.sent.append)
        self._read = 0

    def feed(self, obs: pb.Observation) -> str:
        self.session.on_message(table_pb2.PlayResponse(observation=obs))
        return self.new_output()

    def type(self, line: str) -> str:
        self.session.on_line(line)
        return self.new_output()

    def new_output(self) -> str:
        text = self.out.getvalue()
        new, self._read = text[self._read :], len(text)
        return new


def own_turn() -> pb.Observation:
    return observation(advance(3, 0, dealer=0), 0, decision_id=11)


def claim_for_seat_0() -> tuple[pb.Observation, int]:
    """A real hand where seat 0 may claim a discard."""
    for seed in range(200):
        state = advance(seed, 0, dealer=1)
        for _ in range(60):
            if state.ended:
                break
            if state.phase is Phase.CLAIMS and 0 in state.to_act():
                return observation(state, 0, decision_id=21), seed
            seat = state.to_act()[0]
            state.apply(seat, state.auto_action(seat))
    raise AssertionError("no claim found")


def test_a_decision_shows_the_board_and_prompt_once_and_a_key_sends_the_action() -> None:
    screen = Screen()
    obs = own_turn()
    shown = screen.feed(obs)
    assert "Your hand" in shown and shown.endswith("[t] auto  [q] quit > ")
    assert "Your turn: discard [1-9 a-e]" in shown
    assert screen.feed(obs) == ""  # the same decision re-sent: nothing new to say
    screen.type("1")
    first = min(convert.tile_from_proto(t) for t in obs.concealed)
    assert len(screen.sent) == 1
    sent = screen.sent[0]
    assert sent.decision_id == 11 and sent.kind == pb.ACTION_KIND_DISCARD
    assert convert.action_from_proto(sent).tile == first
    # Answered: further game keys wait for the table.
    assert "Nothing to decide right now" in screen.type("2")
    assert len(screen.sent) == 1


def test_an_invalid_key_gets_one_line_and_the_prompt_again() -> None:
    screen = Screen()
    screen.feed(own_turn())
    out = screen.type("zz")
    assert out.startswith("Unknown key 'zz': type ? for help.\n")
    assert out.endswith("> ")
    assert screen.sent == []
    assert "h win (胡)" in screen.type("?")


def test_a_claim_prompt_names_the_discard_and_pass_answers_it() -> None:
    obs, _seed = claim_for_seat_0()
    screen = Screen()
    shown = screen.feed(obs)
    tile = tile_label(convert.tile_from_proto(obs.last_discard))
    assert f"discarded {tile}:" in shown and "[x] pass" in shown
    screen.type("")
    assert convert.action_from_proto(screen.sent[0]) is PASS
    assert screen.sent[0].decision_id == 21


def test_a_refused_action_is_reported_and_the_decision_can_be_answered_again() -> None:
    screen = Screen()
    screen.feed(own_turn())
    screen.type("1")
    rejected = table_pb2.ActionRejected(
        decision_id=11, code="FAILED_PRECONDITION", message="not now"
    )
    screen.session.on_message(table_pb2.PlayResponse(rejected=rejected))
    out = screen.new_output()
    assert out.startswith("Refused (FAILED_PRECONDITION): not now") and out.endswith("> ")
    screen.type("2")
    assert len(screen.sent) == 2 and screen.sent[1].decision_id == 11


def test_t_hands_over_to_auto_play_and_takes_over_again() -> None:
    screen = Screen()
    obs = own_turn()
    screen.feed(obs)
    assert "Auto-play on" in screen.type("t")
    assert screen.sent[-1].kind == pb.ACTION_KIND_HAND_OVER
    assert "Nothing to decide" in screen.type("1")  # the engine decides now
    auto = own_turn()
    auto.seats[0].auto_played = True
    auto.decision_id = 0
    del auto.legal_actions[:]
    assert "Your seat is now auto-played (托管)" in screen.feed(auto)
    screen.type("t")
    assert screen.sent[-1].kind == pb.ACTION_KIND_TAKE_OVER
    assert [a.kind for a in screen.sent] == [pb.ACTION_KIND_HAND_OVER, pb.ACTION_KIND_TAKE_OVER]


def test_the_hand_end_shows_the_settlement_once_and_the_match_end_finishes() -> None:
    screen = Screen()
    screen.feed(own_turn())
    end = own_turn()
    end.decision_id = 0
    del end.legal_actions[:]
    end.phase = pb.PHASE_HAND_END
    end.settlement.CopyFrom(
        pb.Settlement(
            hand_no=1,
            outcome=pb.HAND_OUTCOME_EXHAUSTIVE_DRAW,
            results=[pb.SeatResult(seat=s) for s in range(4)],
        )
    )
    assert "Hand 1 settlement" in screen.feed(end)
    assert "settlement" not in screen.feed(end)
    assert not screen.session.done
    end.match_finished = True
    end.phase = pb.PHASE_MATCH_END
    out = screen.feed(end)
    assert "Match over. Final scores: You +0" in out
    assert screen.session.done and screen.session.exit_code == EXIT_OK


class FakeRpcError(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAUTHENTICATED

    def details(self) -> str:
        return "wrong seat token for seat 1 of match m"


def test_a_failed_stream_ends_the_session_with_an_error() -> None:
    screen = Screen()
    screen.session.on_closed(FakeRpcError())
    assert screen.session.done and screen.session.exit_code == EXIT_ERROR
    assert screen.session.error == "UNAUTHENTICATED: wrong seat token for seat 1 of match m"


def test_the_match_moving_to_another_server_is_one_calm_line_and_the_decision_comes_anew() -> None:
    screen = Screen()
    obs = own_turn()
    screen.feed(obs)
    screen.session.handle(MOVED, MOVED_TEXT)
    assert screen.new_output().strip() == "the table moved to another server; rejoining…"
    assert not screen.session.done and screen.session.error is None
    shown = screen.feed(obs)  # the new replica's first observation: the same decision
    assert "Your hand" in shown and shown.endswith("[t] auto  [q] quit > ")  # prompted anew


@pytest.mark.parametrize("line", ["q", "quit"])
def test_q_and_end_of_input_leave_the_table(line: str) -> None:
    screen = Screen()
    screen.feed(own_turn())
    assert "You left the table." in screen.type(line)
    assert screen.session.done and screen.session.exit_code == EXIT_OK
    screen.session.on_closed(None)  # the stream then ends: still a clean exit
    assert screen.session.exit_code == EXIT_OK
    other = Screen()
    other.session.on_eof()
    assert other.session.done and "Input closed" in other.new_output()


def test_every_action_kind_of_a_real_turn_is_reachable_by_keys() -> None:
    screen = Screen()
    obs = own_turn()
    screen.feed(obs)
    legal = convert.observation_from_proto(obs).legal_actions
    assert {a.kind for a in legal} >= {ActionKind.DISCARD}
    for name in {TILE_NAMES[a.tile] for a in legal if a.kind is ActionKind.DISCARD}:
        session = Screen()
        session.feed(obs)
        session.type(name)
        assert convert.action_from_proto(session.sent[0]).tile == TILE_NAMES.index(name)


def drain(inbox: queue.Queue) -> list[tuple[str, str | None]]:
    items = []
    while not items or items[-1][0] != EOF:
        items.append(inbox.get(timeout=5))
    return items


def test_lines_are_read_from_a_descriptor_with_utf8_split_across_reads() -> None:
    read_end, write_end = os.pipe()
    inbox: queue.Queue = queue.Queue()
    with os.fdopen(read_end, "r", encoding="utf-8") as source:
        read_lines(source, inbox)
        data = "1\r\n5m\n东\nx".encode()
        cut = data.index("东".encode()) + 1  # inside the character
        os.write(write_end, data[:cut])
        time.sleep(0.05)
        os.write(write_end, data[cut:])
        os.close(write_end)
        assert drain(inbox) == [(LINE, "1"), (LINE, "5m"), (LINE, "东"), (LINE, "x"), (EOF, None)]


def test_lines_are_read_from_a_text_stream_without_a_descriptor() -> None:
    inbox: queue.Queue = queue.Queue()
    read_lines(io.StringIO("h\n\nq\n"), inbox)
    assert drain(inbox) == [(LINE, "h"), (LINE, ""), (LINE, "q"), (EOF, None)]


def test_news_while_a_prompt_waits_starts_on_a_new_line() -> None:
    screen = Screen()
    screen.feed(own_turn())
    timed_out = own_turn()
    timed_out.seats[0].auto_played = True
    timed_out.decision_id = 0
    del timed_out.legal_actions[:]
    out = screen.feed(timed_out)
    assert out == "\nYour seat is now auto-played (托管): press t to take over\n"
    assert "Nothing to decide right now" in screen.type("1")
