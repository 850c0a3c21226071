"""``hebei tournament preview|swap``: plan the next round, show it with its quality, and
swap two players' seats in it.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console

from hebei.cli.tournament import tournament_app
from hebei.cli.tournament_connection import (
    ActorOption,
    AddressOption,
    JsonOption,
    TokenOption,
    _common,
    print_json,
)
from hebei.cli.tournament_display import quality_table, tables_table


@tournament_app.command("preview")
def preview_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Plan the next round (kept, so `swap` can change it) and show it with its quality."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    response = conn.call(
        "PreviewRound", mm.PreviewRoundRequest(tournament_id=tournament_id), actor=actor
    )
    _print_round(response.round, as_json)


@tournament_app.command("swap")
def swap_command(
    tournament_id: str = typer.Argument(...),
    player_a: str = typer.Argument(...),
    player_b: str = typer.Argument(...),
    reason: str = typer.Option("", "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Swap two players' seats in the planned next round."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    request = mm.SwapSeatsRequest(
        tournament_id=tournament_id, player_a=player_a, player_b=player_b, reason=reason
    )
    _print_round(conn.call("SwapSeats", request, actor=actor).round, as_json)


def _print_round(seated: Any, as_json: bool) -> None:
    if as_json:
        print_json(seated)
        return
    console = Console()
    console.print(tables_table(list(seated.tables), f"round {seated.round_no} (planned)"))
    console.print(quality_table([seated], "its quality"))
