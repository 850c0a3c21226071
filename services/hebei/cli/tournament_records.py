"""``hebei tournament actions|ratings``: the operator's record of a tournament (every action,
with who and when) and the ratings across tournaments.
"""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from hebei.cli._util import check_range
from hebei.cli.tournament import tournament_app
from hebei.cli.tournament_connection import (
    AddressOption,
    JsonOption,
    TokenOption,
    _common,
    print_json,
)


@tournament_app.command("actions")
def actions_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Every operator action, with who and when, and the penalties."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    response = conn.call(
        "ListOperatorActions", mm.ListOperatorActionsRequest(tournament_id=tournament_id)
    )
    if as_json:
        print_json(response)
        return
    table = Table(title="operator actions")
    for column in ("#", "when", "who", "action", "player", "detail"):
        table.add_column(column)
    for action in response.actions:
        table.add_row(
            str(action.seq), action.at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S"), action.actor,
            action.action, action.player_id, action.detail,
        )  # fmt: skip
    Console().print(table)


@tournament_app.command("ratings")
def ratings_command(
    limit: int = typer.Option(50, "--limit", help="Rows, 1-500."),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Ratings across tournaments (OpenSkill, Plackett-Luce), best first."""
    from hebei.v1 import matchmaking_pb2 as mm

    check_range("--limit", limit, 1, 500)
    conn = _common(address, token)
    response = conn.call("GetRatings", mm.GetRatingsRequest(page_size=limit))
    if as_json:
        print_json(response)
        return
    table = Table(title="ratings (ordinal = mu - 3 sigma)")
    for column in ("rank", "identity", "name", "ordinal", "mu", "sigma", "matches"):
        table.add_column(column, justify="left" if column in ("identity", "name") else "right")
    for r in response.ratings:
        table.add_row(str(r.rank), r.rating_id, r.name, f"{r.ordinal:.2f}", f"{r.mu:.2f}",
                      f"{r.sigma:.2f}", str(r.matches))  # fmt: skip
    Console().print(table)
