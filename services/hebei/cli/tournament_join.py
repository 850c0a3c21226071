"""``hebei tournament join``: a registered person plays every round of a tournament in the
terminal, carried from round to round by the tournament's change feed."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import typer
from rich.console import Console

from hebei.cli._util import fail
from hebei.cli.tournament import tournament_app
from hebei.cli.tournament_ops import (
    AddressOption,
    Connection,
    _common,
    _rpc_message,
    standings_table,
)


@tournament_app.command("join")
def join_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Option(..., "--player", help="Your player id (from register)."),
    secret: str = typer.Option(..., "--secret", help="Your player secret (from register)."),
    address: str | None = AddressOption,
) -> None:
    """Play your seats of a tournament in the terminal, round after round, as they are seated."""
    from hebei.common.client import create_channel
    from hebei.play.session import CLIENT_NAME, run_session
    from hebei.v1 import matchmaking_pb2 as mm
    from hebei.v1 import table_pb2

    conn = _common(address, None)
    console = Console(highlight=False)
    played: set[str] = set()
    request = mm.WatchTournamentRequest(
        tournament_id=tournament_id, player_id=player_id, player_secret=secret
    )
    kinds = mm.TournamentEventType
    try:
        for event in _reconnecting(conn, request, console.print):
            seating = event.my_seating
            if seating.match_id and seating.match_id not in played:
                played.add(seating.match_id)
                console.print(f"round {event.tournament.current_round}: your seat is {seating.seat}"
                              f" at {seating.table_id}")  # fmt: skip
                channel = create_channel(seating.table_endpoint)
                join = table_pb2.Join(match_id=seating.match_id, seat=seating.seat,
                                      seat_token=seating.seat_token, client_name=CLIENT_NAME)  # fmt: skip
                try:
                    run_session(channel, join, console)
                finally:
                    channel.close()
            elif event.type == kinds.TOURNAMENT_EVENT_TYPE_ROUND_FINISHED:
                console.print(f"round {event.round_no} finished; waiting for the next seating…")
            if event.type in (
                kinds.TOURNAMENT_EVENT_TYPE_FINISHED,
                kinds.TOURNAMENT_EVENT_TYPE_CANCELLED,
            ):
                break  # fmt: skip
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    response = conn.call("GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id))
    console.print(standings_table(response, "final standings"))


# A dropped WatchTournament stream is resumed this many times, waiting 0.5 s, 1 s, ... then
# every 5 s between tries (about 2 minutes in all), enough for a restart of matchmaking.
RESUME_TRIES = 30


def _resume_delay(failures: int) -> float:
    return min(5.0, 0.5 * failures)


RESUME_SECONDS = sum(_resume_delay(n) for n in range(1, RESUME_TRIES + 1))


def _reconnecting(
    conn: Connection, request: Any, say: Callable[[str], None] = print
) -> Iterator[Any]:
    """WatchTournament events, resumed from the last sequence number after a dropped stream
    (``say`` tells the person it is retrying, and when it is back). A service never reached
    fails at once, with the unreachable line every other command gives."""
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
            unavailable = error.code() == grpc.StatusCode.UNAVAILABLE
            if not unavailable or not reached or failures >= RESUME_TRIES:
                fail(_rpc_message(error, conn.address), code=1)
            if not failures:
                say(
                    f"matchmaking at {conn.address} dropped the stream: reconnecting for about"
                    f" {RESUME_SECONDS / 60:.0f} minutes (Ctrl-C to stop)"
                )
            failures += 1
            time.sleep(_resume_delay(failures))
