"""How the ``hebei tournament`` commands reach a matchmaking service: the connection with
the operator token, the options every command shares and the operator's one-call commands.

The service is found from ``--address``/``--token``, else ``$HEBEI_MATCHMAKING_ADDRESS`` /
``$HEBEI_OPERATOR_TOKEN``, else the stack ``hebei up`` runs (its discovery file). The work is
the service's; the commands parse, call and print (rich tables and progress bars, or ``--json``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import grpc
import typer
from google.protobuf import json_format

from hebei.cli._util import fail
from hebei.common.auth import actor_metadata, is_metadata_text

DEFAULT_ADDRESS = "127.0.0.1:50052"
ADDRESS_HELP = "Matchmaking HOST:PORT (default: $HEBEI_MATCHMAKING_ADDRESS, else `hebei up`'s)."
TOKEN_HELP = "The operator token (default: $HEBEI_OPERATOR_TOKEN, else `hebei up`'s)."


@dataclass
class Connection:
    """A channel to matchmaking with the operator token, and the stub."""

    address: str
    token: str | None
    channel: grpc.Channel
    stub: Any

    def call(self, method: str, request: Any, *, actor: str | None = None) -> Any:
        """A unary call; a failure exits with the service's one-line message."""
        metadata = actor_metadata(actor) if actor else None
        try:
            return getattr(self.stub, method)(request, metadata=metadata)
        except grpc.RpcError as error:
            fail(rpc_message(error, self.address), code=1)


def rpc_message(error: grpc.RpcError, address: str) -> str:
    code = error.code() if hasattr(error, "code") else None
    details = (error.details() if hasattr(error, "details") else "") or ""
    if code == grpc.StatusCode.UNAVAILABLE:
        return f"matchmaking at {address} is unreachable ({details.splitlines()[0] if details else 'unavailable'}); is `hebei up` running?"
    name = code.name if code is not None else "ERROR"
    return f"{name}: {details}"


def connect(address: str | None, token: str | None) -> Connection:
    """Resolve where matchmaking is and with which token (see the module docstring)."""
    from hebei.common.client import create_channel
    from hebei.v1 import matchmaking_pb2_grpc

    found = None
    if not address or not token:
        try:
            from hebei.stack.discovery import find_stack

            found = find_stack()
        except ImportError:
            found = None
    address = (
        address
        or os.environ.get("HEBEI_MATCHMAKING_ADDRESS")
        or (found.addresses.get("matchmaking") if found else None)
        or DEFAULT_ADDRESS
    )
    if ":" not in address:
        fail(f"--address must be HOST:PORT, got {address!r}")
    token = (
        token or os.environ.get("HEBEI_OPERATOR_TOKEN") or (found.operator_token if found else None)
    )
    if token is not None and not is_metadata_text(token):
        fail("the operator token (--token or $HEBEI_OPERATOR_TOKEN) must be printable ASCII")
    channel = create_channel(address, token=token, timeout=30.0)
    return Connection(address, token, channel, matchmaking_pb2_grpc.MatchmakingServiceStub(channel))


def print_json(message: Any) -> None:
    print(json.dumps(json_format.MessageToDict(message, preserving_proto_field_name=True)))


def _common(address: str | None, token: str | None) -> Connection:
    return connect(address, token)


AddressOption = typer.Option(None, "--address", help=ADDRESS_HELP)
TokenOption = typer.Option(None, "--token", help=TOKEN_HELP)
ActorOption = typer.Option("operator", "--as", help="Your name in the operator record.")
JsonOption = typer.Option(False, "--json", help="Print JSON instead of tables.")


def operator_call(method: str, request: Any, address, token, actor, as_json) -> None:
    conn = _common(address, token)
    response = conn.call(method, request, actor=actor)
    if as_json:
        print_json(response)
    else:
        tournament = getattr(response, "tournament", None)
        if tournament is not None and tournament.tournament_id:
            from hebei.v1 import matchmaking_pb2 as mm

            status = mm.TournamentStatus.Name(tournament.status).removeprefix("TOURNAMENT_STATUS_")
            print(f"{tournament.tournament_id}: {status.lower()}, round {tournament.current_round}"
                  f" of {tournament.config.rounds}")  # fmt: skip
        else:
            print_json(response)
