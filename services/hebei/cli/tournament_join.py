"""``hebei tournament join``: a registered person plays every round of a tournament in the
terminal, carried from round to round by the tournament's change feed."""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import grpc
import typer
from rich.console import Console

from hebei.cli._util import fail
from hebei.cli.tournament import tournament_app
from hebei.cli.tournament_connection import AddressOption, Connection, _common, rpc_message
from hebei.cli.tournament_display import standings_table
from hebei.play.tournament import EXIT_ERROR, EXIT_FINISHED, EXIT_INTERRUPTED, TournamentFollower

JOIN_HELP = (
    "Play your seats of a tournament in the terminal, round after round, as they are seated;"
    " run it before the start to play round 1 too (it checks you in once a check-in window"
    " opens). Between rounds it shows your result, the standings and when the next round"
    " starts. A seat not yet open on the engine is tried again for up to a minute; a dropped"
    " stream or a restarted service is rejoined. Type ? at a prompt for the keys; q (or the end"
    " of input) leaves.\n\n"
    "Exit status: 0 when the tournament finished (the final standings are shown), you"
    " withdrew, or you left; 1 when matchmaking is unreachable or refuses (wrong secret, no"
    " such tournament); 3 when you are out of it (removed by an operator, or marked no-show);"
    " 4 when it was cancelled; 130 on Ctrl-C."
)


@tournament_app.command("join", help=JOIN_HELP)
def join_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Option(..., "--player", help="Your player id (from register)."),
    secret: str = typer.Option(..., "--secret", help="Your player secret (from register)."),
    address: str | None = AddressOption,
    hints: bool = typer.Option(
        False, "--hints", help="The s key shows the expert's suggestion and why."
    ),
) -> None:
    from hebei.common.errors import InvalidArgument
    from hebei.common.validation import check_id
    from hebei.v1 import matchmaking_pb2 as mm

    try:
        for option, value in (("TOURNAMENT_ID", tournament_id), ("--player", player_id),
                              ("--secret", secret)):  # fmt: skip
            check_id(option, value)
    except InvalidArgument as exc:
        fail(str(exc))
    conn = _common(address, None)
    console = Console(highlight=False, force_terminal=True if sys.stdout.isatty() else None)
    request = mm.WatchTournamentRequest(
        tournament_id=tournament_id, player_id=player_id, player_secret=secret
    )
    try:
        code = run_join(conn, request, console, sys.stdin, hints=hints)
        if code == EXIT_FINISHED and conn_finished(conn, tournament_id):
            reply = conn.call("GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id))
            console.print(standings_table(reply, "final standings"))
    finally:
        conn.channel.close()  # ends the watch's stream too
    raise typer.Exit(code)


def conn_finished(conn: Connection, tournament_id: str) -> bool:
    """Has the tournament finished (so its final standings are worth printing)?"""
    from hebei.v1 import matchmaking_pb2 as mm

    try:
        reply = conn.stub.GetTournament(mm.GetTournamentRequest(tournament_id=tournament_id))
    except grpc.RpcError:
        return False
    return reply.tournament.status == mm.TOURNAMENT_STATUS_FINISHED


WATCH, WATCH_ENDED, SAY, PLAY = "watch", "watch-ended", "say", "play"


class _Tagged:
    """A Play stream's inbox: its items go to the shared inbox with the stream's generation."""

    def __init__(self, inbox: queue.Queue, generation: int) -> None:
        self.inbox, self.generation = inbox, generation

    def put(self, item: tuple[str, Any]) -> None:
        self.inbox.put((PLAY, (self.generation, *item)))


class BadEndpoint(grpc.RpcError):
    """A seating whose ``table_endpoint`` names no usable address: the seat's stream ends at
    once with this (INVALID_ARGUMENT), told in one line like any refused seat."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.INVALID_ARGUMENT

    def details(self) -> str:
        return self.message


class _Seats:
    """The follower's port: one Play stream at a time, and CheckIn. A seating's
    ``table_endpoint`` names the table engine's replicas (one address or a comma list): the
    seat's stream goes by a router over them, following its match's owner."""

    def __init__(self, conn: Connection, request: Any, inbox: queue.Queue) -> None:
        self.conn, self.request, self.inbox = conn, request, inbox
        self.stream: Any = None
        self.router: Any = None

    def open_seat(self, seating: Any, generation: int) -> Callable[[Any], None]:
        from hebei.common.routing import MatchRouter
        from hebei.play.session import CLIENT_NAME
        from hebei.seatclient.stream import CLOSED, PlayStream
        from hebei.v1 import table_pb2

        self.close_seat()
        inbox = _Tagged(self.inbox, generation)
        try:
            self.router = MatchRouter(seating.table_endpoint)
        except ValueError as exc:
            inbox.put((CLOSED, BadEndpoint(f"the seating's table endpoint: {exc}")))
            return lambda action: None
        join = table_pb2.Join(match_id=seating.match_id, seat=seating.seat,
                              seat_token=seating.seat_token, client_name=CLIENT_NAME)  # fmt: skip
        self.stream = PlayStream(self.router, join, inbox).start()
        return self.stream.send

    def close_seat(self) -> None:
        if self.stream is not None:
            self.stream.close()
        if self.router is not None:
            self.router.close()
        self.stream = self.router = None

    def check_in(self) -> str | None:
        from hebei.v1 import matchmaking_pb2 as mm

        request = mm.CheckInRequest(tournament_id=self.request.tournament_id,
                                    player_id=self.request.player_id,
                                    player_secret=self.request.player_secret)  # fmt: skip
        try:
            self.conn.stub.CheckIn(request, timeout=30)
        except grpc.RpcError as error:
            return rpc_message(error, self.conn.address)
        return None


def run_join(
    conn: Connection, request: Any, console: Console, source: TextIO, *, hints: bool = False
) -> int:
    """Follow the tournament and play its seats until it ends for the person; the exit code.

    One inbox is fed by the watch (a thread), the keyboard (one reader for the whole event)
    and the current seat's Play stream; the main loop hands each item to the follower in
    order, and ticks its clock every second."""
    from hebei.play.session import EOF, LINE, read_lines

    inbox: queue.Queue = queue.Queue()
    seats = _Seats(conn, request, inbox)
    follower = TournamentFollower(console, request.player_id, seats, hints=hints)
    stopping = threading.Event()

    def watch() -> None:
        try:
            for event in _reconnecting(conn, request, lambda s: inbox.put((SAY, s)), stopping):
                inbox.put((WATCH, event))
            inbox.put((WATCH_ENDED, None))
        except typer.Exit as exited:  # the one line is on stderr already
            inbox.put((WATCH_ENDED, exited.exit_code))

    threading.Thread(target=watch, name="tournament-watch", daemon=True).start()
    reading = False  # the keyboard is read once the feed answered (typed lines wait)
    try:
        while not follower.done:
            try:
                kind, value = inbox.get(timeout=1.0)
            except queue.Empty:
                follower.on_tick()
                continue
            if kind == WATCH:
                if not reading:
                    reading = True
                    read_lines(source, inbox)
                follower.on_event(value)
            elif kind == PLAY:
                follower.on_play(*value)
            elif kind == LINE:
                follower.on_line(value)
            elif kind == EOF:
                follower.on_eof()
            elif kind == SAY:
                follower.say(value, "yellow")
            elif kind == WATCH_ENDED:
                if value:
                    follower.stop(value)
                else:
                    follower.stop(EXIT_ERROR, "matchmaking ended the tournament's feed.")
            follower.on_tick()
    except KeyboardInterrupt:
        console.print()
        console.print("Interrupted: you left the tournament.")
        return EXIT_INTERRUPTED
    finally:
        stopping.set()
        seats.close_seat()
    return follower.exit_code or 0


# A dropped WatchTournament stream is resumed this many times, waiting 0.5 s, 1 s, ... then
# every 5 s between tries (about 2 minutes in all), enough for a restart of matchmaking.
RESUME_TRIES = 30


def _resume_delay(failures: int) -> float:
    return min(5.0, 0.5 * failures)


RESUME_SECONDS = sum(_resume_delay(n) for n in range(1, RESUME_TRIES + 1))


def _reconnecting(
    conn: Connection,
    request: Any,
    say: Callable[[str], None] = print,
    stopping: threading.Event | None = None,
) -> Iterator[Any]:
    """WatchTournament events, resumed from the last sequence number after a dropped stream
    (``say`` tells the person it is retrying, and when it is back). A service never reached
    fails at once, with the unreachable line every other command gives. Once ``stopping`` is
    set, a failed stream just ends."""
    last = 0
    failures = 0
    reached = False
    while True:
        if last:
            request.from_seq = last + 1
        try:
            for event in conn.stub.WatchTournament(request):
                if failures:
                    say("reconnected to matchmaking")
                failures = 0
                reached = True
                last = max(last, event.seq)
                yield event
            return
        except grpc.RpcError as error:
            if stopping is not None and stopping.is_set():
                return
            unavailable = error.code() == grpc.StatusCode.UNAVAILABLE
            if not unavailable or not reached or failures >= RESUME_TRIES:
                fail(rpc_message(error, conn.address), code=1)
            if not failures:
                say(
                    f"matchmaking at {conn.address} dropped the stream: reconnecting for about"
                    f" {RESUME_SECONDS / 60:.0f} minutes (Ctrl-C to stop)"
                )
            failures += 1
            time.sleep(_resume_delay(failures))
