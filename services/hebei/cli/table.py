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


@table_app.command("export")
def export_command(
    match_id: str = typer.Argument(..., help="The match id."),
    out: str = typer.Option(
        "", "--out", "-o", help="Write the log to this file (default: stdout)."
    ),
    database_url: str | None = typer.Option(None, "--database-url", help=DATABASE_URL_HELP),
    schema: str | None = typer.Option(None, "--schema", help="Schema of the engine's tables."),
) -> None:
    """Export a match's log (its rules events, each chained and signed) for `hebei replay`."""
    import json

    import psycopg

    from hebei.cli._util import fail
    from hebei.common import embedded
    from hebei.common.db import first_line
    from hebei.common.errors import DomainError
    from hebei.table.export import export_from_database
    from hebei.table.store import DEFAULT_SCHEMA

    url = database_url or os.environ.get("HEBEI_TABLE_DATABASE_URL") or embedded.database_url()
    schema = schema or os.environ.get("HEBEI_TABLE_SCHEMA") or DEFAULT_SCHEMA
    try:
        log = export_from_database(url, schema, match_id)
    except (DomainError, ValueError) as exc:
        fail(str(exc), code=1)
    except psycopg.Error as exc:  # e.g. --database-url that is not a PostgreSQL URL
        fail(f"cannot read the table engine's database: {first_line(exc)}", code=1)
    text = json.dumps(log, ensure_ascii=False)
    if not out:
        print(text)
        return
    try:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    except OSError as exc:
        fail(f"--out {out}: {exc.strerror or exc}")
