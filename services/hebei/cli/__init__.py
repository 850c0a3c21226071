"""The ``hebei`` command. Each sub-command lives in its own module of this package."""

from __future__ import annotations

import inspect

import typer

app = typer.Typer(
    name="hebei",
    help="Hebei Mahjong (河北麻将): tournaments, tables, ledger, bots and tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def one_line_listings(typer_app: typer.Typer) -> None:
    """Give every command without a ``short_help`` its docstring's first paragraph on one line.

    A group's command list shows that paragraph; typer's rich mode would keep the docstring's
    line breaks there, so a sentence broke wherever the source wrapped it.
    """
    for info in typer_app.registered_commands:
        doc = info.help or (info.callback.__doc__ if info.callback else None)
        if info.short_help is None and doc:
            info.short_help = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            one_line_listings(group.typer_instance)


def main() -> None:
    import os

    # gRPC's own C-core lines ("Handshake failed", ...) would come beside our one-line errors.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from hebei.cli import commands  # noqa: F401  (registers the sub-commands)

    app()
