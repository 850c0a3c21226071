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


# A JSON file a command reads (a hand or match log, a benchmark's output). A match log as
# exported takes some 280 bytes an event with its chain record (a 64-hand match of random
# players: 9,975 events, 2.8 MB), so the longest one a review takes (20,000 events) is ~6 MB.
MAX_JSON_FILE_BYTES = 32 * 1024 * 1024


def read_bounded(path: str, max_bytes: int, what: str, name: str | None = None) -> bytes:
    """The bytes of the file at ``path``, read within ``max_bytes``; one line and exit 2 when it
    is missing, a directory, unreadable or larger. ``what`` the file should be ("a JSON file");
    ``name`` leads the line (default: the path)."""
    name = name or path
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        fail(f"{name}: no such file")
    except IsADirectoryError:
        fail(f"{name}: is a directory, expected {what}")
    except OSError as exc:
        fail(f"{name}: {exc.strerror or exc}")
    if len(data) > max_bytes:
        fail(f"{name}: larger than {max_bytes:,} bytes, the most {what} here may be")
    return data


def load_json_file(path: str, max_bytes: int = MAX_JSON_FILE_BYTES) -> object:
    """The JSON value in the file at ``path``; one line and exit 2 when the file is missing,
    larger than ``max_bytes``, not UTF-8 text or not JSON."""
    data = read_bounded(path, max_bytes, "a JSON file")
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        fail(f"{path}: not UTF-8 text, expected a JSON file")
    except json.JSONDecodeError as exc:
        fail(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")
    except RecursionError:
        fail(f"{path}: JSON nested too deeply")
