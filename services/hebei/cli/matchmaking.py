"""``hebei matchmaking serve``: run the matchmaking service.

Options override the ``HEBEI_MATCHMAKING_*`` variables; the work lives in
:mod:`hebei.matchmaking`.
"""

from __future__ import annotations

import os

import typer

from hebei.cli import app

matchmaking_app = typer.Typer(help="The matchmaking service.", no_args_is_help=True)
app.add_typer(matchmaking_app, name="matchmaking")

DATABASE_URL_HELP = "PostgreSQL URL (default: $HEBEI_DATABASE_URL, else an embedded PostgreSQL)."


@matchmaking_app.command("serve")
def serve_command(
    port: int | None = typer.Option(None, "--port", help="gRPC port (default 50052)."),
    metrics_port: int | None = typer.Option(None, "--metrics-port", help="Prometheus port."),
    database_url: str | None = typer.Option(None, "--database-url", help=DATABASE_URL_HELP),
    schema: str | None = typer.Option(None, "--schema", help="Schema of the service's tables."),
    table: str | None = typer.Option(None, "--table", help="Table engine address host:port."),
    ledger: str | None = typer.Option(None, "--ledger", help="Ledger address host:port."),
) -> None:
    """Run the matchmaking service until SIGTERM (same as ``python -m hebei.matchmaking``)."""
    from hebei.matchmaking.service import run

    overrides = {
        "HEBEI_MATCHMAKING_PORT": port,
        "HEBEI_MATCHMAKING_METRICS_PORT": metrics_port,
        "HEBEI_MATCHMAKING_DATABASE_URL": database_url,
        "HEBEI_MATCHMAKING_SCHEMA": schema,
        "HEBEI_MATCHMAKING_TABLE_ADDRESS": table,
        "HEBEI_MATCHMAKING_LEDGER_ADDRESS": ledger,
    }
    os.environ.update({name: str(value) for name, value in overrides.items() if value is not None})
    run()
