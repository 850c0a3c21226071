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


# A JSON file a command reads (a hand or match log, a benchmark's output): an exported log of
# the longest match (64 hands, at most 20,000 events with their chain records) is under 8 MiB.
MAX_JSON_FILE_BYTES = 32 * 1024 * 1024


def load_json_file(path: str, max_bytes: int = MAX_JSON_FILE_BYTES) -> object:
    """The JSON value in the file at ``path``; one line and exit 2 when the file is missing,
    larger than ``max_bytes``, not UTF-8 text or not JSON."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        fail(f"{path}: no such file")
    except IsADirectoryError:
        fail(f"{path}: is a directory, expected a JSON file")
    except OSError as exc:
        fail(f"{path}: {exc.strerror}")
    if len(data) > max_bytes:
        fail(f"{path}: larger than {max_bytes:,} bytes, the most a JSON file here may be")
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        fail(f"{path}: not UTF-8 text, expected a JSON file")
    except json.JSONDecodeError as exc:
        fail(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")
    except RecursionError:
        fail(f"{path}: JSON nested too deeply")
