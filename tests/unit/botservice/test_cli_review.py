"""``hebei review FILE|MATCH --seat N``: the table, --json, and one line for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.botservice.positions import match_log

HEBEI = str(Path(sys.executable).with_name("hebei"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HEBEI, "review", *args], capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "160", "HOME": "/tmp"},
    )  # fmt: skip


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("logs")
    out = {}
    for policy in ("expert", "random"):
        path = folder / f"{policy}.json"
        path.write_text(json.dumps(match_log(policy, seed=5, hands=2)))
        out[policy] = path
    return out


def test_the_review_of_a_random_player_is_a_table_of_its_mistakes(logs) -> None:
    done = run(str(logs["random"]), "--seat", "1", "--max", "5")
    assert done.returncode == 0, done.stderr
    assert "seat 1 against the expert (level 3)" in done.stdout
    for column in ("turn", "your action", "expert", "why", "cost"):
        assert column in done.stdout


def test_json_and_full_agreement_with_the_expert(logs) -> None:
    done = run(str(logs["expert"]), "--seat", "0", "--json")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["agreement"] == 1.0 and body["differences"] == [] and body["hands"] == 2
    mistakes = json.loads(run(str(logs["random"]), "--seat", "3", "--json").stdout)
    assert mistakes["agreement"] < 0.5 and mistakes["differences"]
    assert {"hand", "turn", "played", "expert", "reason", "cost"} <= set(mistakes["differences"][0])


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--seat", "7"], "hebei: --seat must be 0-3, got 7"),
        (["--seat", "0", "--level", "9"], "hebei: the expert has levels 1, 2, 3, 4, got 9"),
        (["--seat", "0", "--max", "-1"], "hebei: --max must be 0-1000, got -1"),
    ],
)
def test_bad_options_give_one_line(logs, args: list[str], line: str) -> None:
    done = run(str(logs["expert"]), *args)
    assert done.returncode == 2 and done.stderr.strip() == line


def test_a_log_that_does_not_replay_gives_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"type": "hand_start", "seed": 1, "dealer": 0}]))
    done = run(str(bad), "--seat", "0")
    assert done.returncode == 2
    assert done.stderr.startswith("hebei: the log does not replay:")
    assert len(done.stderr.strip().splitlines()) == 1
    missing = run(str(tmp_path / "none.json"), "--seat", "0")
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_a_match_id_without_a_table_engine_gives_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [HEBEI, "review", "m-1", "--seat", "0", "--table", "127.0.0.1:1"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("hebei: the table engine at 127.0.0.1:1 did not answer")
