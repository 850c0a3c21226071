"""``hebei tournament join`` as a person runs it, against the stack ``hebei up`` runs: joined
before the start, it plays every round's seat (every decision answered by the person, none
auto-played by the engine), shows the between-round screen, and ends with the final
standings and exit status 0. And against a real table engine with an older matchmaking's
feed, which tells the seat before the engine holds its match: the Join refused NOT_FOUND is
tried again until the match opens."""

from __future__ import annotations

import io
import os
import queue
import re
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from rich.console import Console

from hebei.cli import tournament_connection, tournament_join
from hebei.common.client import create_channel
from hebei.play.local import LocalOptions, open_match_request
from hebei.stack.discovery import find_stack
from hebei.table.store import load_events
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import matchmaking_pb2_grpc, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.e2e.conftest import OPERATOR_TOKEN, first_choice, hebei_program
from tests.e2e.test_up import Up, configured_env  # noqa: F401 (a fixture)
from tests.integration.stack.conftest import stack_env  # noqa: F401 (a fixture)
from tests.integration.table.helpers import EngineProcess, engine_env

PROMPT = re.compile(r"[^\n]*\[q\] quit > ")
OWN_ACTIONS = ("discard", "pass", "win", "pong", "chow", "kong", "concealed_kong", "added_kong")


class Person:
    """A ``hebei tournament join`` child with its stdin and stdout pipes: everything it
    printed, and each prompt answered as ``first_choice`` would."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        self.text = ""
        self.answers: list[tuple[str, str]] = []
        self._answered_upto = 0
        self._chunks: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while chunk := os.read(self.process.stdout.fileno(), 65536):
            self._chunks.put(chunk)
        self._chunks.put(None)

    def play(self, timeout: float, until: str | None = None) -> int | None:
        """Answer every prompt until the program ends (its exit status), or until it printed
        ``until`` (None)."""
        deadline = time.monotonic() + timeout
        pending = b""
        while time.monotonic() < deadline:
            if until is not None and until in self.text:
                return None
            try:
                chunk = self._chunks.get(timeout=5)
            except queue.Empty:
                continue
            if chunk is None:
                return self.process.wait(60)
            pending += chunk
            try:
                self.text += pending.decode("utf-8")
                pending = b""
            except UnicodeDecodeError:
                continue  # a character split between two reads
            # The last prompt not answered yet (lines may follow it: a decision re-sent
            # because something else changed is not prompted again).
            found = list(PROMPT.finditer(self.text, self._answered_upto))
            if self._chunks.empty() and found:
                prompt = found[-1].group(0)
                answer = first_choice(prompt, len(self.answers) + 1)
                self.answers.append((prompt, answer))
                self.text += "\n"  # the typed line ends the prompt's line
                self._answered_upto = len(self.text)
                self.process.stdin.write(f"{answer}\n".encode())
                self.process.stdin.flush()
        raise AssertionError(f"join still running after {timeout} s:\n{self.text[-4000:]}")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)


def matchmaking(data_dir: Path):
    stack = find_stack(data_dir)
    assert stack is not None
    channel = create_channel(stack.address("matchmaking"), token=stack.operator_token)
    return channel, matchmaking_pb2_grpc.MatchmakingServiceStub(channel)


def engine_events(database_url: str, schema: str, match_id: str) -> list[dict]:
    """Every event the engine stored for the match, table events (seat_auto, ...) too."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        return [row.event for row in load_events(conn, match_id)]


@pytest.mark.parametrize("scheduled", [False, True], ids=["plain", "check-in-break-limit"])
def test_a_person_plays_every_round_of_a_swiss_tournament_with_join(
    configured_env: dict[str, str],  # noqa: F811
    database_url: str,
    data_dir: Path,
    scheduled: bool,
):
    """With ``scheduled``: a check-in window (join checks the person in, or they would be
    no-show), a break between the rounds (a countdown) and a round time limit (shown)."""
    env = {k: v for k, v in configured_env.items() if k != "HEBEI_OPERATOR_TOKEN"}
    env["COLUMNS"] = "160"
    up = Up(env, data_dir, "--workers", "1")
    person = None
    channel = None
    try:
        up.wait_for("ready:")
        channel, stub = matchmaking(data_dir)
        config = mm.TournamentConfig(
            name="Join cup", rounds=2, seed=5, seating=mm.SEATING_MODE_SWISS,
            filler_bot_policy="efficiency", filler_bot_level=1,
        )  # fmt: skip
        config.length.hands = 1
        config.time_control.per_decision.FromSeconds(20)  # short, but never hurried here
        config.time_control.time_bank.FromSeconds(60)
        if scheduled:
            config.check_in_window.FromSeconds(600)
            config.round_break.FromSeconds(5)
            config.round_time_limit.FromSeconds(900)
        tid = stub.CreateTournament(
            mm.CreateTournamentRequest(config=config)
        ).tournament.tournament_id
        for _ in range(7):
            bot = mm.BotEntrant(policy="efficiency", level=1)
            stub.Register(mm.RegisterRequest(tournament_id=tid, bot=bot))
        registered = stub.Register(
            mm.RegisterRequest(tournament_id=tid, person=mm.PersonEntrant(name="Mei"))
        )
        player_id, secret = registered.player.player_id, registered.player_secret

        argv = [hebei_program(), "tournament", "join", tid, "--player", player_id, "--secret",
                secret]  # fmt: skip
        person = Person(argv, env, data_dir)
        # The person is following the tournament before the organiser starts it.
        ready = "You are checked in." if scheduled else "It starts when"
        assert person.play(timeout=180, until=ready) is None, person.text
        stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid))
        code = person.play(timeout=900)
        stderr = person.process.stderr.read().decode()
        text = person.text
        assert code == 0, f"{stderr}\n{text[-4000:]}"
        assert "Traceback" not in text + stderr

        # Before the start: the schedule; then each round's seat, joined by the person.
        assert "Join cup: 2 round(s), 8 registered." in text
        assert "It starts when the organiser starts it" in text
        assert "Round 1: your seat is" in text and "Round 2: your seat is" in text
        # Between the rounds: the result, the standings, when the next round comes.
        assert "Round 1 result: you placed" in text and "Round 2 result: you placed" in text
        assert "Standings after round 1:" in text and "<- you" in text
        assert re.search(r"Round 2 (is seated when|is seated once|is being seated|starts at)", text)
        if scheduled:
            assert "Check-in: from " in text and "until the start" in text
            assert "Round 2 starts at " in text
            assert "The round's time limit: matches end after the hand in play at " in text
        # At the end: the person's place and the final standings.
        assert re.search(r"The tournament is over\. You finished \d+\w\w of 8", text)
        assert "final standings" in text
        assert "auto-played" not in text and "Refused" not in text
        assert person.answers, text[-4000:]

        # The engine: every decision of the person's seat in both rounds was the person's.
        seating = stub.GetSeating(mm.GetSeatingRequest(tournament_id=tid))
        mine = [
            (table.match_id, seat.seat)
            for round_ in seating.rounds
            for table in round_.tables
            for seat in table.seats
            if seat.player_id == player_id
        ]
        assert len(mine) == 2
        schema = env["HEBEI_TABLE_SCHEMA"]
        own_total = 0
        for match_id, seat in mine:
            events = engine_events(database_url, schema, match_id)
            own = [e for e in events if e.get("seat") == seat]
            assert not [e for e in own if e["type"] == "seat_auto"], own
            assert not [e for e in own if e.get("auto")], own
            played = [e for e in own if e["type"] in OWN_ACTIONS]
            assert played, events
            own_total += len(played)
        # Each of the person's actions answered a prompt (a prompt may be shown again).
        assert own_total <= len(person.answers), (own_total, person.answers)
        standing = stub.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
        me = next(p for p in standing.players if p.player_id == player_id)
        assert not me.missed_rounds and not me.removed and not me.withdrawn
    finally:
        if person is not None:
            person.kill()
        if channel is not None:
            channel.close()
        up.kill()


# ---------------------------------------------------------------------- an older server


class EarlyFeed:
    """An older matchmaking's feed: the seat is told on ROUND_SEATED, before the engine holds
    the match; FINISHED once ``ended`` is set."""

    def __init__(self, seating: mm.Seating, ended: threading.Event) -> None:
        self.seating, self.ended = seating, ended

    def WatchTournament(self, request):
        t = mm.Tournament(tournament_id="t-old", status=mm.TOURNAMENT_STATUS_RUNNING)
        t.config.name, t.config.rounds, t.current_round = "Old cup", 1, 1
        t.players.append(mm.Player(player_id="you", name="You"))
        yield mm.WatchTournamentResponse(
            type=mm.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, seq=1, round_no=1, tournament=t,
            my_seating=self.seating,
        )  # fmt: skip
        assert self.ended.wait(600)
        t.status = mm.TOURNAMENT_STATUS_FINISHED
        yield mm.WatchTournamentResponse(
            type=mm.TOURNAMENT_EVENT_TYPE_FINISHED, seq=2, round_no=1, tournament=t
        )


class InProcessJoin:
    """``run_join`` in a thread over a made-up feed: its keyboard a pipe, its screen a string."""

    def __init__(self, feed: EarlyFeed) -> None:
        conn = tournament_connection.Connection("127.0.0.1:1", None, None, feed)  # type: ignore[arg-type]
        request = mm.WatchTournamentRequest(tournament_id="t-old", player_id="you",
                                            player_secret="s")  # fmt: skip
        self.out = io.StringIO()
        console = Console(file=self.out, width=160, color_system=None, force_terminal=False)
        read_end, self.keys = os.pipe()
        self.source = os.fdopen(read_end, "r")
        self.result: list[int] = []
        self.answered = 0
        self.runner = threading.Thread(
            target=lambda: self.result.append(
                tournament_join.run_join(conn, request, console, self.source)
            ),
            daemon=True,
        )
        self.runner.start()

    @property
    def text(self) -> str:
        return self.out.getvalue()

    def answer_until(
        self, text: str, timeout: float, on_answer: Callable[[int], None] | None = None
    ) -> None:
        """Answer each new prompt as ``first_choice`` would until ``text`` is on the screen."""
        deadline, upto = time.monotonic() + timeout, 0
        while text not in self.text:
            assert time.monotonic() < deadline and self.runner.is_alive(), self.text[-4000:]
            screen = self.text
            found = list(PROMPT.finditer(screen, upto))
            if found:
                self.answered += 1
                upto = len(screen)
                answer = first_choice(found[-1].group(0), self.answered)
                os.write(self.keys, f"{answer}\n".encode())
                if on_answer is not None:
                    on_answer(self.answered)
            time.sleep(0.2)

    def finish(self) -> int:
        self.runner.join(60)
        os.close(self.keys)
        self.source.close()
        assert len(self.result) == 1, self.text[-4000:]
        return self.result[0]


def test_a_seat_told_before_its_match_is_open_is_joined_once_it_opens(table_engine) -> None:
    """The Join is refused NOT_FOUND by the real engine, tried again, and the person plays
    the whole match once it opens 3 s later."""
    match_id = f"e2e-early-{uuid.uuid4().hex[:8]}"
    tokens = [f"token-{seat}-{match_id}" for seat in range(4)]
    seating = mm.Seating(table_id="local", match_id=match_id, seat=0, seat_token=tokens[0],
                         table_endpoint=table_engine.address, round_no=1)  # fmt: skip
    ended = threading.Event()
    join = InProcessJoin(EarlyFeed(seating, ended))
    join.answer_until("is not open on the engine yet", 60)
    time.sleep(3)
    opened = open_match_request(LocalOptions(hands=1, seed=5, think=60), match_id, tokens)
    with create_channel(table_engine.address, token=OPERATOR_TOKEN) as channel:
        table_pb2_grpc.TableServiceStub(channel).OpenMatch(opened)
    table_engine.seat_bots(match_id, tokens)
    join.answer_until("Round 1 result:", 600)
    ended.set()
    code = join.finish()
    text = join.text
    assert code == 0, text[-4000:]
    assert "Table local is not open on the engine yet: trying again for up to 1 min" in text
    assert "The tournament is over." in text and "Refused" not in text
    log = [entry.event for entry in table_engine.engine.host.get(match_id).log]
    own = [e for e in log if e.get("seat") == 0]
    assert not [e for e in own if e["type"] == "seat_auto" or e.get("auto")], own
    assert join.answered == len([e for e in own if e["type"] in OWN_ACTIONS]) > 0


def test_an_engine_killed_mid_match_and_restarted_is_rejoined(
    database_url: str, fresh_schema: str, tmp_path: Path
) -> None:
    """SIGKILL of the table engine after the person's second decision: the Play stream joins
    again once the engine is back, and the person plays the match to its end."""
    env = engine_env(database_url, fresh_schema, HEBEI_OPERATOR_TOKEN=OPERATOR_TOKEN,
                     HEBEI_TABLE_READY_SECONDS="5")  # fmt: skip
    engine = EngineProcess(env, tmp_path / "engine.log")
    engine.start()
    join = None
    try:
        match_id = f"e2e-kill-{uuid.uuid4().hex[:8]}"
        tokens = [f"token-{seat}-{match_id}" for seat in range(4)]
        opened = open_match_request(LocalOptions(hands=1, seed=5, think=60), match_id, tokens)
        for seat in opened.seats[1:]:  # people who never come: auto-played from the start
            seat.kind, seat.bot_policy, seat.bot_level = pb.SEAT_KIND_PERSON, "", 0
        with create_channel(engine.address, token=OPERATOR_TOKEN) as channel:
            table_pb2_grpc.TableServiceStub(channel).OpenMatch(opened)
        seating = mm.Seating(table_id="local", match_id=match_id, seat=0,
                             seat_token=tokens[0], table_endpoint=engine.address,
                             round_no=1)  # fmt: skip
        ended = threading.Event()
        join = InProcessJoin(EarlyFeed(seating, ended))
        restarted: list[int] = []

        def kill_and_restart(answered: int) -> None:
            if answered == 2 and not restarted:
                engine.kill()
                restarted.append(answered)
                engine.start()

        join.answer_until("Round 1 result:", 600, kill_and_restart)
        ended.set()
        code = join.finish()
        text = join.text
        assert code == 0, text[-4000:]
        assert restarted and join.answered > 2, text[-4000:]
        assert "joining the table again" in text, text[-4000:]
        assert "Lost table" not in text and "Traceback" not in text
        assert "The tournament is over." in text
        own = [e for e in engine_events(database_url, fresh_schema, match_id) if e.get("seat") == 0]
        assert not [e for e in own if e["type"] == "seat_auto" or e.get("auto")], own
        assert join.answered >= len([e for e in own if e["type"] in OWN_ACTIONS]) > 2
    finally:
        if join is not None and join.runner.is_alive():
            os.close(join.keys)
        if engine.process is not None and engine.process.poll() is None:
            engine.terminate()
