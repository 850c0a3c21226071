"""Run ``hebei score`` in-process (typer's CliRunner) or as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from hebei.cli import (
    app,
    commands,  # noqa: F401  (registers the sub-commands, as `hebei` does)
)

HEBEI = Path(sys.executable).with_name("hebei")


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


def _text(stdin: object) -> str:
    return stdin if isinstance(stdin, str) else json.dumps(stdin)


def invoke(stdin: object, *args: str) -> Outcome:
    """In-process: fast, for many cases."""
    result = CliRunner().invoke(app, ["score", *args], input=_text(stdin))
    return Outcome(result.exit_code, result.stdout, result.stderr)


def run(stdin: object, *args: str) -> Outcome:
    """The installed ``hebei`` command in a subprocess: the real thing, end to end."""
    proc = subprocess.run(
        [str(HEBEI), "score", *args],
        input=_text(stdin),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return Outcome(proc.returncode, proc.stdout, proc.stderr)
