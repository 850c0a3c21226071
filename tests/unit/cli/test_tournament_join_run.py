"""`hebei tournament join`'s loop with a made-up feed and made-up seats: one keyboard reader
for the whole event (a reader per match lost keys from round 2 on), each round's keys reach
that round's seat, and the event ends with exit status 0. A bad id or secret is one line."""

from __future__ import annotations

import io
import os
import threading
from typing import Any, ClassVar

import pytest
from rich.console import Console
from typer.testing import CliRunner

from hebei.cli import app, commands, tournament_connection, tournament_join  # noqa: F401 (commands)
from hebei.play import session as play_session
from hebei.seatclient.stream import MESSAGE
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import table_pb2
from tests.unit.play.helpers import advance, match_over, observation, standings, tournament

KIND = mm.TournamentEventType


class Seats:
    """Each seat opened offers one decision; the answer ends its match."""

    instances: ClassVar[list[Seats]] = []

    def __init__(self, _conn: Any, _request: Any, inbox: Any) -> None:
        self.inbox = inbox
        self.opened: list[str] = []
        self.sent: list[Any] = []
        self.answered = {1: threading.Event(), 2: threading.Event()}
        self.seat_open = {1: threading.Event(), 2: threading.Event()}
        Seats.instances.append(self)

    def open_seat(self, seating: mm.Seating, generation: int):
        self.opened.append(seating.match_id)
        obs = observation(advance(3, 0, dealer=0), 0, decision_id=10 + seating.round_no)
        self.inbox.put(("play", (generation, MESSAGE, table_pb2.PlayResponse(observation=obs))))
        self.seat_open[seating.round_no].set()

        def send(action: Any) -> None:
            self.sent.append(action)
            self.inbox.put(("play", (generation, MESSAGE, match_over())))
            self.answered[seating.round_no].set()

        return send

    def close_seat(self) -> None:
        pass

    def check_in(self) -> str | None:
        return None


class Feed:
    """WatchTournament: registration, two rounds (each waiting for its answer), the end."""

    def WatchTournament(self, request: Any):
        seats = Seats.instances[-1]
        yield mm.WatchTournamentResponse(
            type=KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT,
            seq=1,
            tournament=tournament(0, mm.TOURNAMENT_STATUS_REGISTRATION),
        )
        for round_no in (1, 2):
            seating = mm.Seating(
                table_id=f"T{round_no}", match_id=f"m{round_no}-0", seat=0,
                seat_token="tok-0123456789abcdef", table_endpoint="127.0.0.1:1",
                round_no=round_no,
            )  # fmt: skip
            yield mm.WatchTournamentResponse(
                type=KIND.TOURNAMENT_EVENT_TYPE_TABLE_OPENED, seq=2 * round_no, round_no=round_no,
                tournament=tournament(round_no), my_seating=seating,
            )  # fmt: skip
            assert seats.answered[round_no].wait(20)
            yield mm.WatchTournamentResponse(
                type=KIND.TOURNAMENT_EVENT_TYPE_ROUND_FINISHED, seq=2 * round_no + 1,
                round_no=round_no, tournament=tournament(round_no),
                standings=standings(("b1", 10), ("p-mei", 5)),
            )  # fmt: skip
        yield mm.WatchTournamentResponse(
            type=KIND.TOURNAMENT_EVENT_TYPE_FINISHED, seq=9, round_no=2,
            tournament=tournament(2, mm.TOURNAMENT_STATUS_FINISHED),
            standings=standings(("b1", 10), ("p-mei", 5)),
        )  # fmt: skip


def test_one_keyboard_reader_carries_the_keys_of_every_round(monkeypatch) -> None:
    readers: list[Any] = []
    real_read_lines = play_session.read_lines

    def counting(source: Any, inbox: Any):
        readers.append(source)
        return real_read_lines(source, inbox)

    monkeypatch.setattr(play_session, "read_lines", counting)
    monkeypatch.setattr(tournament_join, "_Seats", Seats)
    conn = tournament_connection.Connection("127.0.0.1:1", None, None, Feed())  # type: ignore[arg-type]
    request = mm.WatchTournamentRequest(tournament_id="t-1", player_id="p-mei", player_secret="s")
    read_end, write_end = os.pipe()
    out = io.StringIO()
    console = Console(file=out, width=160, color_system=None, force_terminal=False)
    result: list[int] = []
    with os.fdopen(read_end, "r") as source:
        runner = threading.Thread(
            target=lambda: result.append(tournament_join.run_join(conn, request, console, source))
        )
        Seats.instances.clear()
        runner.start()
        while not Seats.instances:
            threading.Event().wait(0.01)
        seats = Seats.instances[-1]
        for round_no in (1, 2):
            assert seats.seat_open[round_no].wait(20), out.getvalue()
            os.write(write_end, b"1\n")
            assert seats.answered[round_no].wait(20), out.getvalue()
        runner.join(20)
        os.close(write_end)
    text = out.getvalue()
    assert result == [0], text
    assert len(readers) == 1
    assert seats.opened == ["m1-0", "m2-0"]
    assert [a.decision_id for a in seats.sent] == [11, 12]
    assert "Round 1 result: you placed 1st" in text and "Round 2 result: you placed 1st" in text
    assert "The tournament is over. You finished 2nd of 2 with 5 points." in text


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["\udcff", "--player", "p", "--secret", "s"],
         "hebei: TOURNAMENT_ID must be printable, without spaces or ':', got '\\udcff'"),
        (["t-1", "--player", "", "--secret", "s"], "hebei: --player is required"),
        (["t-1", "--player", "p", "--secret", "s\x01"],
         "hebei: --secret must be printable, without spaces or ':', got 's\\x01'"),
    ],
)  # fmt: skip
def test_a_bad_id_or_secret_is_one_line_and_exit_2(args: list[str], line: str) -> None:
    result = CliRunner().invoke(app, ["tournament", "join", *args, "--address", "127.0.0.1:1"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == line
