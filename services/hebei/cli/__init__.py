"""The ``hebei`` command. Each sub-command lives in its own module of this package."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="hebei",
    help="Hebei Mahjong (河北麻将): tournaments, tables, ledger, bots and tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def main() -> None:
    import os

    # gRPC's own C-core lines ("Handshake failed", ...) would come beside our one-line errors.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from hebei.cli import commands  # noqa: F401  (registers the sub-commands)

    app()
