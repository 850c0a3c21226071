"""Small helpers shared by the CLI commands: one-line errors, JSON input, SIGTERM."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
from typing import NoReturn

import typer

from hebei.common.signals import handled


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one clear line on stderr and exit non-zero (never a stack trace)."""
    print(f"hebei: {message}", file=sys.stderr)
    raise typer.Exit(code)


def check_range(option: str, value: int, low: int, high: int) -> None:
    """Fail with one line unless ``low <= value <= high`` (every count a command takes is
    bounded: the bounds are in each option's help)."""
    if not low <= value <= high:
        fail(f"{option} must be {low:,}-{high:,}, got {value}")


def load_json_file(path: str) -> object:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        fail(f"{path}: no such file")
    except IsADirectoryError:
        fail(f"{path}: is a directory, expected a JSON file")
    except json.JSONDecodeError as exc:
        fail(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")
    except OSError as exc:
        fail(f"{path}: {exc.strerror}")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def sigterm_as_ctrl_c() -> contextlib.AbstractContextManager[None]:
    """In the block SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does, so a command stopped
    either way ends the same: its worker processes stopped, one line, exit 130 (without it,
    SIGTERM ends the process where it stands and its pool's semaphores leak)."""
    return handled({signal.SIGTERM: _interrupt})
