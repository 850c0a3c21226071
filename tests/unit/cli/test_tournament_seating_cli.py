"""``hebei tournament seating``: the seating of an event as JSON or tables; bad options exit 2
with one line on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hebei.cli import (
    app,
    commands,  # noqa: F401  (registers the sub-commands, as `hebei` does)
)
from hebei.matchmaking.seating import plan_event

HEBEI = Path(sys.executable).with_name("hebei")


def invoke(*args: str):
    return CliRunner().invoke(app, ["tournament", "seating", *args])


@pytest.mark.parametrize("mode", ["random", "swiss", "schedule", "duplicate"])
def test_json_is_exactly_plan_event_on_one_line(mode):
    result = invoke("--players", "16", "--rounds", "3", "--mode", mode, "--seed", "4", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("\n") == 1
    assert json.loads(result.stdout) == plan_event(mode, players=16, rounds=3, seed=4)


def test_the_same_arguments_print_the_same_bytes():
    args = ("--players", "20", "--rounds", "4", "--mode", "swiss", "--seed", "8", "--json")
    assert invoke(*args).stdout == invoke(*args).stdout


def test_tables_show_every_round_and_the_summary():
    result = invoke("--players", "16", "--rounds", "5", "--mode", "schedule", "--seed", "1")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    for round_no in range(1, 6):
        assert f"Round {round_no}:" in out
    assert "East" in out and "North" in out
    assert "schedule seating: 16 players, 5 rounds, seed 1" in out
    assert "repeat pairs" in out and "lower bound" in out


def test_duplicate_tables_show_their_group():
    result = invoke("--players", "8", "--rounds", "1", "--mode", "duplicate")
    assert result.exit_code == 0, result.stderr
    assert "group" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "13"], "--players 13 is not a multiple of 4 (tables of four): add 3"),
        (["--players", "0"], "--players must be 4-4096, got 0"),
        (["--players", "4100"], "--players must be 4-4096, got 4100"),
        (["--rounds", "0"], "--rounds must be 1-64, got 0"),
        (["--rounds", "65"], "--rounds must be 1-64, got 65"),
        (["--mode", "knockout"], "unknown --mode 'knockout'"),
        (["--deadline", "0"], "--deadline must be a positive number of seconds"),
    ],
)
def test_bad_options_exit_2_with_one_line(args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("hebei: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_the_installed_command_end_to_end():
    ok = subprocess.run(
        [str(HEBEI), "tournament", "seating", "--players", "32", "--rounds", "10", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    quality = json.loads(ok.stdout)["quality"]
    assert quality["total_repeat_pairs"] == 0 and quality["max_pair_meetings"] == 1
    bad = subprocess.run(
        [str(HEBEI), "tournament", "seating", "--players", "13"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("hebei: ") and "Traceback" not in bad.stderr
