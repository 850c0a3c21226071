"""The command lists of ``hebei --help``: each command's first paragraph on one line."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from hebei.cli import app, commands  # noqa: F401  (commands: registers the sub-commands)


def _all_commands(typer_app: typer.Typer):
    yield from typer_app.registered_commands
    for group in typer_app.registered_groups:
        yield from _all_commands(group.typer_instance)


def test_every_listing_is_one_line() -> None:
    listed = list(_all_commands(app))
    assert len(listed) > 30
    for info in listed:
        assert info.short_help, info.name
        assert "\n" not in info.short_help, info.short_help


def test_a_sentence_wrapped_in_the_source_reads_on_one_line() -> None:
    # demo's docstring breaks "table" / "engine" across two source lines; a wide terminal
    # must show the sentence unbroken.
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "240"}, terminal_width=240)
    assert result.exit_code == 0, result.output
    assert "on the local stack: ledger, table engine, matchmaking" in result.output
