"""Small helpers shared by the CLI commands: one-line errors, bounds, JSON input."""

from __future__ import annotations

import json
import sys
from typing import NoReturn

import typer


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
