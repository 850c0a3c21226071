"""``hebei botservice serve``: run the bot service.

Options override the ``HEBEI_BOTSERVICE_*`` variables; the work lives in :mod:`hebei.botservice`.
"""

from __future__ import annotations

import os

import typer

from hebei.cli import app

botservice_app = typer.Typer(
    help="The bot service: the policies' advice and reviews over gRPC.", no_args_is_help=True
)
app.add_typer(botservice_app, name="botservice")


@botservice_app.command("serve")
def serve_command(
    port: int | None = typer.Option(None, "--port", help="gRPC port (default 50054)."),
    metrics_port: int | None = typer.Option(None, "--metrics-port", help="Prometheus port."),
    table: str | None = typer.Option(
        None, "--table", help="Table engine host:port, to review finished matches by id."
    ),
) -> None:
    """Run the bot service until SIGTERM (same as ``python -m hebei.botservice``)."""
    from hebei.botservice.service import main

    overrides = {
        "HEBEI_BOTSERVICE_PORT": port,
        "HEBEI_BOTSERVICE_METRICS_PORT": metrics_port,
        "HEBEI_BOTSERVICE_TABLE_ADDRESS": table,
    }
    os.environ.update({name: str(value) for name, value in overrides.items() if value is not None})
    main()
