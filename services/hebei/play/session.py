"""The person's side of a seat in the terminal, over the seat's Play stream
(:class:`hebei.seatclient.stream.PlayStream`).

:class:`PlayerSession` is the person's logic without any I/O of its own: messages and typed
lines in, board/prompt/messages out on a rich console and actions out through a ``send``
callable, so tests drive it with made-up observations. :func:`run_session` wires it to a
terminal: a thread reads lines from stdin into the stream's inbox (:func:`read_lines`), and the
main loop handles the inbox in order (:meth:`PlayerSession.handle`) until the match ends or
the person leaves. ``hebei tournament join`` feeds one inbox the same way for a whole event
(one keyboard reader, each round's stream in turn: :mod:`hebei.play.tournament`).
"""

from __future__ import annotations

import codecs
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import grpc
from rich.console import Console, RenderableType
from rich.text import Text

from hebei.common import convert
from hebei.common.routing import MatchRouter
from hebei.play.render import describe_changes, render_board
from hebei.rules.errors import NotationError
from hebei.rules.profile import get_profile
from hebei.rules.views import Observation
from hebei.seatclient.commands import HELP_TEXT, CommandKind, parse_command, prompt_text
from hebei.seatclient.observations import seat_name
from hebei.seatclient.stream import (
    CLOSED,
    MESSAGE,
    MOVED,
    MOVED_LINE,
    RECONNECTING,
    Inbox,
    PlayStream,
    describe_rpc_error,
)
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb

CLIENT_NAME = "hebei-play/0.1"

# Inbox items of the keyboard (the stream's are hebei.seatclient.stream's): (kind, value).
LINE, EOF = "line", "eof"

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130


class PlayerSession:
    """The person at one seat: shows what happens, prompts for decisions, sends answers."""

    def __init__(
        self, console: Console, send: Callable[[pb.Action], None], hints: bool = False
    ) -> None:
        self.console = console
        self.send = send
        self.hints = hints  # the [s] key shows the expert's suggestion
        self.obs: pb.Observation | None = None
        self.view: Observation | None = None  # the open decision, as the rules see it
        self.prompted = 0  # the decision whose prompt was shown
        self.answered = 0  # the decision answered (waiting for the table)
        self.shown_settlements: set[int] = set()
        self.finished = False  # the match is over
        self.left = False  # the person quit
        self.error: str | None = None  # the stream failed
        self._prompt_open = False  # a prompt is on the screen without its answer's newline

    # ------------------------------------------------------------------ state

    @property
    def done(self) -> bool:
        return self.finished or self.left or self.error is not None

    @property
    def exit_code(self) -> int:
        return EXIT_ERROR if self.error is not None and not self.finished else EXIT_OK

    @property
    def auto_played(self) -> bool:
        """True while the engine plays this seat."""
        obs = self.obs
        return obs is not None and obs.seat < len(obs.seats) and obs.seats[obs.seat].auto_played

    @property
    def open_decision(self) -> Observation | None:
        """The decision waiting for the person, unless already answered."""
        if self.view is None or self.obs is None or self.answered == self.obs.decision_id:
            return None
        return self.view

    # ------------------------------------------------------------------ output

    def show(self, renderable: RenderableType, end: str = "\n") -> None:
        """Print on a line of its own (after a prompt still waiting for its answer)."""
        if self._prompt_open:
            self.console.print()
            self._prompt_open = False
        self.console.print(renderable, soft_wrap=isinstance(renderable, Text), end=end)

    def say(self, text: str, style: str = "") -> None:
        self.show(Text(text, style=style))

    def show_board(self) -> None:
        if self.obs is not None:
            self.show(render_board(self.obs))

    def show_prompt(self) -> None:
        view = self.open_decision
        if view is None or self.obs is None:
            return
        names = [seat_name(self.obs, s) for s in range(len(self.obs.seats))]
        prompt = prompt_text(view, names, self.hints)
        left = self._seconds_left()
        if left is not None:
            prompt = f"({left} s) {prompt}"
        self.show(Text(prompt, style="bold"), end="")
        self._prompt_open = True

    def _seconds_left(self) -> int | None:
        obs = self.obs
        if obs is None or not obs.HasField("deadline"):
            return None
        return max(0, round(obs.deadline.ToNanoseconds() / 1e9 - time.time()))

    # ------------------------------------------------------------------ input events

    def handle(self, kind: str, value: Any) -> None:
        """One inbox item: a server message, a typed line, the end of input or of the stream,
        a reconnection, the match moving to another replica."""
        if kind == MESSAGE:
            self.on_message(value)
        elif kind == LINE:
            self.on_line(value)
        elif kind == EOF:
            self.on_eof()
        elif kind == CLOSED:
            self.on_closed(value)
        elif kind == RECONNECTING:
            self.on_reconnecting(value)
        elif kind == MOVED:
            self.on_moved()

    def on_message(self, message: table_pb2.PlayResponse) -> None:
        """A server message: print what changed, the settlement, and a new decision's prompt."""
        if message.HasField("rejected"):
            self._on_rejected(message.rejected)
        elif message.HasField("observation"):
            self._on_observation(message.observation)

    def _on_rejected(self, rejected: table_pb2.ActionRejected) -> None:
        self.say(f"Refused ({rejected.code}): {rejected.message}", "red")
        if self.obs is not None and rejected.decision_id == self.answered:
            self.answered = 0
        self.show_prompt()

    def _on_observation(self, obs: pb.Observation) -> None:
        if obs.phase == pb.PHASE_WAITING and self.obs is None:
            self.show(render_board(obs))
        for line in describe_changes(self.obs, obs):
            self.show(line)
        self.obs = obs
        if obs.HasField("settlement") and obs.settlement.hand_no not in self.shown_settlements:
            self.shown_settlements.add(obs.settlement.hand_no)
            self.show_board()
        if obs.match_finished:
            self.finished = True
            self.view = None
            scores = ", ".join(f"{seat_name(obs, v.seat)} {v.score:+d}" for v in obs.seats)
            self.say(f"Match over. Final scores: {scores}", "bold")
            return
        if not (obs.decision_id and obs.legal_actions) or self.auto_played:
            self.view = None
            return
        if obs.decision_id == self.prompted:
            return  # the same decision, re-sent because something else changed
        try:
            self.view = convert.observation_from_proto(obs)
        except NotationError as exc:
            self.say(f"The table sent an observation this client cannot read: {exc}", "red")
            self.view = None
            return
        self.prompted = obs.decision_id
        self.show_board()
        self.show_prompt()

    def on_line(self, line: str) -> None:
        """A typed line: act on it, or say in one line why not."""
        self._prompt_open = False  # the typed line ended the prompt's line
        command = parse_command(line, self.open_decision, false_win=self._false_win_allowed())
        if command.kind is CommandKind.ACT and self.obs is not None:
            self.answered = self.obs.decision_id
            self.send(convert.action_to_proto(command.action, self.obs.decision_id))
        elif command.kind is CommandKind.TOGGLE_AUTO:
            self._toggle_auto()
        elif command.kind is CommandKind.QUIT:
            self.left = True
            self.say("You left the table.")
        elif command.kind is CommandKind.REDRAW:
            self.show_board()
            self.show_prompt()
        elif command.kind is CommandKind.HELP:
            self.say(HELP_TEXT)
            self.show_prompt()
        elif command.kind is CommandKind.HINT:
            self._hint()
            self.show_prompt()
        else:
            self.say(command.message, "yellow")
            self.show_prompt()

    def _hint(self) -> None:
        """The expert's suggestion for the open decision, and why."""
        if not self.hints:
            self.say("Hints are off: start hebei play with --hints.", "yellow")
            return
        view = self.open_decision
        if view is None:
            self.say("Nothing to decide right now.", "yellow")
            return
        from hebei.play.hints import hint_lines  # the policies load on the first hint

        for line in hint_lines(view):
            self.say(line, "cyan")

    def _false_win_allowed(self) -> bool:
        """Does the table's rule profile let a person declare a false win (§9 诈胡)?"""
        try:
            profile = get_profile(self.obs.rule_profile.name or "main") if self.obs else None
        except ValueError:
            return False
        return profile is not None and profile.false_win_penalty > 0

    def _toggle_auto(self) -> None:
        if self.obs is None or self.obs.phase == pb.PHASE_WAITING:
            self.say("The match has not started yet.", "yellow")
        elif self.auto_played:
            self.send(pb.Action(kind=pb.ACTION_KIND_TAKE_OVER))
            self.say("Taking over from auto-play.")
        else:
            self.send(pb.Action(kind=pb.ACTION_KIND_HAND_OVER))
            self.view = None
            self.say("Auto-play on (托管): the engine plays your seat. Press t to take over.")

    def on_eof(self) -> None:
        """Input closed (Ctrl-D, end of a pipe): leave the table."""
        if not self.done:
            self.left = True
            self.say("Input closed: you left the table.")

    def on_reconnecting(self, why: str) -> None:
        """The stream dropped and is being joined again: the open decision will come anew."""
        if self.done:
            return
        self.say(f"{why}; joining the table again...", "yellow")
        self._rejoining()

    def on_moved(self) -> None:
        """The match moved to another server of the table engine: one calm line, and the
        stream rejoins it by itself (the open decision will come anew)."""
        if self.done:
            return
        self.say(MOVED_LINE, "dim")
        self._rejoining()

    def _rejoining(self) -> None:
        self.view = None
        self.prompted = 0
        self.answered = 0

    def on_closed(self, error: grpc.RpcError | None) -> None:
        """The stream ended."""
        if self.finished or self.left:
            return
        self.error = (
            describe_rpc_error(error) if error is not None else "the table closed the stream"
        )


def read_lines(source: TextIO, inbox: Inbox) -> threading.Thread:
    """Read ``source`` line by line into ``inbox`` (then ``("eof", None)``), in a thread.

    A real file is read with ``os.read`` on its descriptor, not through ``sys.stdin``'s
    buffer: a daemon thread blocked inside that buffer's lock would abort the interpreter's
    shutdown.
    """
    try:
        fd: int | None = source.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None

    def lines_of_fd(fd: int) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while chunk := os.read(fd, 4096):
            pending += decoder.decode(chunk)
            *complete, pending = pending.split("\n")
            yield from complete
        pending += decoder.decode(b"", final=True)
        if pending:
            yield pending

    def run() -> None:
        lines = lines_of_fd(fd) if fd is not None else iter(source.readline, "")
        try:
            for line in lines:
                inbox.put((LINE, line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        inbox.put((EOF, None))

    thread = threading.Thread(target=run, name="play-input", daemon=True)
    thread.start()
    return thread


def run_session(
    route: MatchRouter | grpc.Channel,
    join: table_pb2.Join,
    console: Console,
    source: TextIO | None = None,
    hints: bool = False,
) -> int:
    """Play a seat from the terminal until the match ends or the person leaves; the exit code.
    ``route``: the router over the table engine's replicas, or one channel (a local table)."""
    inbox: queue.Queue = queue.Queue()
    stream = PlayStream(route, join, inbox)
    session = PlayerSession(console, stream.send, hints)
    stream.start()
    read_lines(source or sys.stdin, inbox)
    try:
        while not session.done:
            session.handle(*inbox.get())
    except KeyboardInterrupt:
        console.print()
        console.print("Interrupted: you left the table.")
        return EXIT_INTERRUPTED
    finally:
        stream.close()
    if session.error is not None:
        print(f"hebei: {session.error}", file=sys.stderr)
    return session.exit_code
