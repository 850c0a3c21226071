"""``hebei table serve``: run the table engine service.

Options override the ``HEBEI_TABLE_*`` variables; the work lives in :mod:`hebei.table`.
"""

from __future__ import annotations

import os

import typer

from hebei.cli import app

table_app = typer.Typer(help="The table engine service.", no_args_is_help=True)
app.add_typer(table_app, name="table")

DATABASE_URL_HELP = "PostgreSQL URL (default: $HEBEI_DATABASE_URL, else an embedded PostgreSQL)."


@table_app.command("serve")
def serve_command(
    port: int | None = typer.Option(None, "--port", help="gRPC port (default 50051)."),
    metrics_port: int | None = typer.Option(None, "--metrics-port", help="Prometheus port."),
    database_url: str | None = typer.Option(None, "--database-url", help=DATABASE_URL_HELP),
    schema: str | None = typer.Option(None, "--schema", help="Schema of the engine's tables."),
    ledger: str | None = typer.Option(None, "--ledger", help="Ledger address host:port."),
    matchmaking: str | None = typer.Option(
        None, "--matchmaking", help="Matchmaking address host:port."
    ),
) -> None:
    """Run the table engine until SIGTERM (same as ``python -m hebei.table``)."""
    from hebei.table.service import run

    overrides = {
        "HEBEI_TABLE_PORT": port,
        "HEBEI_TABLE_METRICS_PORT": metrics_port,
        "HEBEI_TABLE_DATABASE_URL": database_url,
        "HEBEI_TABLE_SCHEMA": schema,
        "HEBEI_TABLE_LEDGER_ADDRESS": ledger,
        "HEBEI_TABLE_MATCHMAKING_ADDRESS": matchmaking,
    }
    os.environ.update({name: str(value) for name, value in overrides.items() if value is not None})
    run()
