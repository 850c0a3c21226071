"""`hebei simulate` and `hebei replay` as a user runs them (real subprocesses)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hebei.rules.match import Match, MatchLength
from hebei.rules.players import RandomPlayer
from hebei.rules.profile import CLASSIC
from hebei.rules.simulate import SimulationSummary, play_match

HEBEI = str(Path(sys.executable).with_name("hebei"))


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([HEBEI, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def match() -> Match:
    m = Match(77, MatchLength(hands=2))
    play_match(m, [RandomPlayer(s) for s in range(4)], SimulationSummary())
    return m


def test_simulate_json_summary_is_reproducible():
    first = run("simulate", "--hands", "30", "--seed", "5", "--json")
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert summary["hands"] == 30 and sum(summary["outcomes"].values()) == 30
    assert summary["hands_per_second"] > 0
    again = json.loads(run("simulate", "--hands", "30", "--seed", "5", "--json").stdout)
    assert {k: v for k, v in again.items() if k not in ("seconds", "hands_per_second")} == {
        k: v for k, v in summary.items() if k not in ("seconds", "hands_per_second")
    }


def test_simulate_prints_a_table():
    result = run("simulate", "--hands", "10", "--seed", "1")
    assert result.returncode == 0 and "hands per second" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hands", "0"], "hebei: --hands must be 1-10,000,000, got 0"),
        (["--hands", "10000001"], "hebei: --hands must be 1-10,000,000, got 10000001"),
        (["--players", "genius"], "unknown --players"),
    ],
)
def test_simulate_bad_options_give_one_line(args, message):
    result = run("simulate", *args)
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_replay_shows_a_hand_and_its_settlement(tmp_path, match):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(match.hand_logs[0]))
    result = run("replay", str(path))
    assert result.returncode == 0, result.stderr
    assert "settlement" in result.stdout and "hand_start" in result.stdout


def test_replay_checks_a_whole_match(tmp_path, match):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match.log()))
    result = run("replay", str(path))
    assert result.returncode == 0 and f"final scores {match.scores}" in result.stdout


def test_replay_rejects_a_tampered_log_in_one_line(tmp_path, match):
    log = [dict(e) for e in match.hand_logs[0]]
    i = next(i for i, e in enumerate(log) if e["type"] == "draw")
    log[i]["tile"] = "1m" if log[i]["tile"] != "1m" else "2m"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(log))
    result = run("replay", str(path))
    assert result.returncode == 1 and "rejected" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), ("{not json", "not valid JSON"), ("{}", "non-empty JSON list")],
)
def test_replay_bad_files_give_one_line(tmp_path, content, message):
    path = tmp_path / "x.json"
    if content is not None:
        path.write_text(content)
    result = run("replay", str(path))
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def _summary(*args: str) -> dict:
    result = run("simulate", *args, "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    return {k: v for k, v in summary.items() if k not in ("seconds", "hands_per_second")}


def test_simulate_the_classic_profile_is_reproducible_and_differs_from_main():
    classic = _summary("--hands", "30", "--seed", "5", "--profile", "classic")
    assert classic["hands"] == 30 and sum(classic["outcomes"].values()) == 30
    assert classic == _summary("--hands", "30", "--seed", "5", "--profile", "classic")
    assert classic != _summary("--hands", "30", "--seed", "5")
    assert _summary("--hands", "30", "--seed", "5", "--profile", "main") == _summary(
        "--hands", "30", "--seed", "5"
    )


def test_simulate_prints_the_profile_in_its_table():
    result = run("simulate", "--hands", "10", "--seed", "1", "--profile", "classic")
    assert result.returncode == 0 and "classic" in result.stdout
    assert "average points per win" in result.stdout


def test_simulate_refuses_an_unknown_profile_in_one_line():
    result = run("simulate", "--profile", "nope")
    assert result.returncode == 2 and "unknown rule profile 'nope'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_replay_checks_a_classic_match(tmp_path):
    match = Match(77, MatchLength(hands=3), CLASSIC)
    play_match(match, [RandomPlayer(s) for s in range(4)], SimulationSummary())
    assert any(e["type"] == "chow" for e in match.log())
    path = tmp_path / "classic.json"
    path.write_text(json.dumps(match.log()))
    result = run("replay", str(path))
    assert result.returncode == 0 and f"final scores {match.scores}" in result.stdout
