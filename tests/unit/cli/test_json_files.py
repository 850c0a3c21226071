"""A JSON file a command reads: one line and exit 2 for what is not a JSON file of bounded
size, never a stack trace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer

from hebei.cli._util import load_json_file

HEBEI = str(Path(sys.executable).with_name("hebei"))


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"\x7fELF\x02\x01\x01\x00\xd0\xff", "not UTF-8 text, expected a JSON file"),
        (b"[1, 2", "not valid JSON (Expecting ',' delimiter at line 1 column 6)"),
        (b"[" * 100_000, "JSON nested too deeply"),
        (
            b"[" + b"0," * 200_000 + b"0]",
            "larger than 200,000 bytes, the most a JSON file here may be",
        ),
    ],
)
def test_what_is_not_a_bounded_json_file_gets_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, line: str
) -> None:
    path = tmp_path / "input.json"
    path.write_bytes(content)
    with pytest.raises(typer.Exit) as exited:
        load_json_file(str(path), max_bytes=200_000)
    assert exited.value.exit_code == 2
    assert capsys.readouterr().err == f"hebei: {path}: {line}\n"


def test_a_file_at_the_bound_is_read(tmp_path: Path) -> None:
    path = tmp_path / "input.json"
    path.write_bytes(b"[" + b"0," * 48 + b"0]")  # 100 bytes
    assert load_json_file(str(path), max_bytes=100) == [0] * 49


def test_replay_of_a_binary_file_is_one_line() -> None:
    done = subprocess.run(
        [HEBEI, "replay", sys.executable], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr == f"hebei: {sys.executable}: not UTF-8 text, expected a JSON file\n"
