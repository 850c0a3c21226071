"""``hebei review FILE`` of an exported log of the longest match: signed, its chain records
make it larger than the service's bound on a log's bytes, yet it reviews, here and through a
bot service (the records are dropped before the bound is counted: a review ignores them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hebei.botservice.review import MAX_LOG_BYTES
from hebei.rules.chain import seal
from tests.unit.botservice.positions import match_log

HEBEI = str(Path(sys.executable).with_name("hebei"))
LONGEST = 64  # hands: a match's bound


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = seal(match_log("random", seed=64, hands=LONGEST), "m-longest", b"k" * 32)
    path = tmp_path_factory.mktemp("exported") / "longest.json"
    path.write_text(json.dumps(log))
    assert path.stat().st_size > MAX_LOG_BYTES  # the case under test
    return path


def review(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HEBEI, "review", *args, "--seat", "2", "--level", "1", "--json"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_the_longest_exported_log_reviews_here(exported: Path) -> None:
    done = review(str(exported))
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["hands"] == LONGEST and body["decisions"] > 0


def test_the_longest_exported_log_reviews_through_a_bot_service(exported: Path, running) -> None:
    here = json.loads(review(str(exported)).stdout)
    done = review(str(exported), "--address", f"127.0.0.1:{running.bots.port}")
    assert done.returncode == 0, done.stderr
    there = json.loads(done.stdout)
    assert (there["hands"], there["decisions"], there["agreed"]) == (
        here["hands"],
        here["decisions"],
        here["agreed"],
    )
