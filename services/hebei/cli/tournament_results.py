"""``hebei tournament export|status|standings|watch``: read a tournament: its results and
seating as CSV or JSON, its state, the ranking from the ledger, and its course live.
"""

from __future__ import annotations

import typer
from rich.console import Console

from hebei.cli._util import fail
from hebei.cli.tournament import tournament_app
from hebei.cli.tournament_connection import (
    AddressOption,
    JsonOption,
    TokenOption,
    _common,
    print_json,
)
from hebei.cli.tournament_display import (
    follow,
    players_table,
    quality_table,
    schedule_lines,
    standings_table,
    tables_table,
)


@tournament_app.command("export")
def export_command(
    tournament_id: str = typer.Argument(...),
    what: str = typer.Option("results", "--what", help="results or seating (every round)."),
    fmt: str = typer.Option("csv", "--format", help="csv or json."),
    out: str = typer.Option("", "--out", help="Write to this file (default: stdout)."),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
) -> None:
    """Export the results (every standings column, statuses) or every round's seating as CSV
    or JSON (README "Exports" lists the columns)."""
    from hebei.common import exports
    from hebei.common.seating import every_round
    from hebei.v1 import matchmaking_pb2 as mm

    if what not in ("results", "seating"):
        fail(f"--what must be results or seating, got {what!r:.40}")
    if fmt not in ("csv", "json"):
        fail(f"--format must be csv or json, got {fmt!r:.40}")
    conn = _common(address, token)
    extra = {}
    if what == "results":
        response = conn.call("GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id))
        rows, columns = exports.result_rows(response), exports.RESULT_COLUMNS
        extra["round_no"] = response.round_no
    else:
        rounds = every_round(lambda request: conn.call("GetSeating", request), tournament_id)
        rows, columns = exports.seating_rows(rounds), exports.SEATING_COLUMNS
    text = (
        exports.as_csv(columns, rows)
        if fmt == "csv"
        else exports.as_json(what, tournament_id, rows, **extra) + "\n"
    )
    if out:
        with open(out, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    else:
        typer.echo(text, nl=False)


@tournament_app.command("status")
def status_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """The tournament's state: rounds with their seating quality, the current tables."""
    from hebei.common.seating import every_round
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    tournament = conn.call(
        "GetTournament", mm.GetTournamentRequest(tournament_id=tournament_id)
    ).tournament
    if as_json:
        print_json(tournament)
        return
    console = Console()
    status = mm.TournamentStatus.Name(tournament.status).removeprefix("TOURNAMENT_STATUS_")
    console.print(
        f"[bold]{tournament.config.name}[/bold] ({tournament.tournament_id}): {status.lower()}"
        f", round {tournament.current_round} of {tournament.config.rounds},"
        f" {sum(1 for p in tournament.players if not p.filler)} players"
        + (f" — {tournament.status_reason}" if tournament.status_reason else "")
    )
    for line in schedule_lines(tournament):
        console.print(line)
    console.print(players_table(tournament))
    rounds = every_round(lambda request: conn.call("GetSeating", request), tournament_id)
    if rounds:
        console.print(quality_table(rounds))
    if tournament.tables:
        console.print(tables_table(list(tournament.tables), f"round {tournament.current_round}"))
    for problem in tournament.problems:
        console.print(f"[red]problem:[/red] {problem}")


@tournament_app.command("standings")
def standings_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """The ranking from the ledger, with the tie-break that decided each place."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    response = conn.call("GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id))
    if as_json:
        print_json(response)
        return
    console = Console()
    console.print(standings_table(response, f"standings after round {response.round_no}"))
    for problem in response.problems:
        console.print(f"[red]mismatch:[/red] {problem}")


@tournament_app.command("watch")
def watch_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
) -> None:
    """Follow a tournament live (progress bars) until it ends; then print the ranking."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    tournament = conn.call(
        "GetTournament", mm.GetTournamentRequest(tournament_id=tournament_id)
    ).tournament
    console = Console()
    hands = tournament.config.length.hands or tournament.config.length.wind_rounds.max_hands
    follow(conn, tournament_id, console, hands_per_match=hands or 8)
    response = conn.call("GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id))
    console.print(standings_table(response, "final standings"))
