"""`hebei table export` with a database it cannot read: one line, exit 1 (a stack trace
before, for a --database-url that is not a PostgreSQL URL)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEBEI = str(Path(sys.executable).with_name("hebei"))


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("not-a-url", 'missing "=" after "not-a-url" in connection info string'),
        ("postgresql://nobody@127.0.0.1:1/none", "database unavailable"),
    ],
)
def test_a_database_it_cannot_read_is_one_line(tmp_path: Path, url: str, why: str) -> None:
    done = subprocess.run(
        [HEBEI, "table", "export", "m-1", "--database-url", url],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("hebei: ") and why in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
