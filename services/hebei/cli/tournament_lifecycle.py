"""``hebei tournament start|pause|resume|cancel|remove|checkin|withdraw``: run a
tournament's course (the operator's) and a player's check-in and withdrawal (with the
player's secret, or the operator token).
"""

from __future__ import annotations

from typing import Any

import grpc
import typer

from hebei.cli.tournament import tournament_app
from hebei.cli.tournament_connection import (
    ActorOption,
    AddressOption,
    Connection,
    JsonOption,
    TokenOption,
    _common,
    operator_call,
    print_json,
)
from hebei.cli.tournament_display import player_status


@tournament_app.command("start")
def start_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Close registration and seat round 1."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.StartTournamentRequest(tournament_id=tournament_id)
    operator_call("StartTournament", request, address, token, actor, as_json)


@tournament_app.command("pause")
def pause_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option("", "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Pause: running matches finish, no new round is seated."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.PauseRequest(tournament_id=tournament_id, reason=reason)
    operator_call("Pause", request, address, token, actor, as_json)


@tournament_app.command("resume")
def resume_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Resume a paused tournament."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.ResumeRequest(tournament_id=tournament_id)
    operator_call("Resume", request, address, token, actor, as_json)


@tournament_app.command("cancel")
def cancel_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Cancel a tournament (its open matches are dissolved)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.CancelTournamentRequest(tournament_id=tournament_id, reason=reason)
    operator_call("CancelTournament", request, address, token, actor, as_json)


@tournament_app.command("remove")
def remove_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Argument(...),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Remove a player: a bot takes its seat; later rounds go on without it."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.RemovePlayerRequest(
        tournament_id=tournament_id, player_id=player_id, reason=reason
    )
    operator_call("RemovePlayer", request, address, token, actor, as_json)


SecretOption = typer.Option(
    "", "--secret", help="The player's secret (from register); else the operator token."
)


def _player_call(method: str, request: Any, address, token, secret: str, as_json: bool) -> Any:
    """A call a player makes with its secret, or the operator with the token (a secret given
    means the call is the player's: the token is not sent)."""
    conn = _common(address, token)
    if secret:
        conn.channel.close()
        conn = Connection(conn.address, None, *_anonymous(conn.address))
    response = conn.call(method, request)
    if as_json:
        print_json(response)
    return response


def _anonymous(address: str) -> tuple[grpc.Channel, Any]:
    from hebei.common.client import create_channel
    from hebei.v1 import matchmaking_pb2_grpc

    channel = create_channel(address, token=None, timeout=30.0)
    return channel, matchmaking_pb2_grpc.MatchmakingServiceStub(channel)


@tournament_app.command("checkin")
def checkin_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Option(..., "--player", help="The player id (from register)."),
    secret: str = SecretOption,
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Check a person in for a tournament that asks for it (in its check-in window)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.CheckInRequest(
        tournament_id=tournament_id, player_id=player_id, player_secret=secret
    )
    response = _player_call("CheckIn", request, address, token, secret, as_json)
    if not as_json:
        print(f"{response.player.player_id} ({response.player.name}): checked in")


@tournament_app.command("withdraw")
def withdraw_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Argument(..., help="The player id."),
    secret: str = SecretOption,
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Withdraw a player: before the start the registration goes; later a bot plays out its
    match and it is not seated again (its points stay)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.UnregisterRequest(
        tournament_id=tournament_id, player_id=player_id, player_secret=secret
    )
    response = _player_call("Unregister", request, address, token, secret, as_json)
    if not as_json:
        player = next((p for p in response.tournament.players if p.player_id == player_id), None)
        print(f"{player_id}: " + (player_status(player) if player else "registration withdrawn"))
