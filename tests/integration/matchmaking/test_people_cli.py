"""`hebei tournament` for people on a real matchmaking: create with a schedule, checkin and
withdraw with the player's secret, status and standings showing each player's status."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from hebei.cli import app, commands  # noqa: F401  (commands: registers the sub-commands)
from hebei.v1 import matchmaking_pb2 as mm
from tests.integration.matchmaking.conftest import Stack
from tests.integration.table.conftest import OPERATOR_TOKEN


def test_a_scheduled_tournament_from_the_command_line(
    stack: Stack, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack.start_matchmaking()
    monkeypatch.setenv("HEBEI_DATA_DIR", str(tmp_path))  # no `hebei up` stack found
    monkeypatch.delenv("HEBEI_OPERATOR_TOKEN", raising=False)
    monkeypatch.setenv("COLUMNS", "200")  # the standings' every column, no name cut short
    where = ["--address", stack.matchmaking_address]
    operator = [*where, "--token", OPERATOR_TOKEN]
    runner = CliRunner()

    def run(*args: str, code: int = 0):
        result = runner.invoke(app, ["tournament", *args])
        assert result.exit_code == code, (args, result.output)
        return result

    created = run(
        "create", "--name", "evening", "--rounds", "2", "--start-at", "+1h", "--check-in", "2h",
        "--break", "2m", "--round-time-limit", "30m", "--no-show-limit", "3",
        "--inactive", "left-out", "--move-seconds", "20s", "--time-bank", "1m", *operator,
    )  # fmt: skip
    tid = created.stdout.strip()
    config = stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament.config
    assert (config.check_in_window.seconds, config.round_break.seconds) == (7200, 120)
    assert (config.round_time_limit.seconds, config.no_show_limit) == (1800, 3)
    assert config.inactive_players == mm.INACTIVE_PLAYERS_LEFT_OUT
    assert config.time_control.per_decision.seconds == 20
    assert config.time_control.time_bank.seconds == 60
    mei_id, mei_secret = run("register", tid, "--person", "Mei", *where).stdout.split()
    lin_id, lin_secret = run("register", tid, "--person", "Lin", *where).stdout.split()
    checked = run("checkin", tid, "--player", mei_id, "--secret", mei_secret, *where)
    assert checked.stdout == f"{mei_id} (Mei): checked in\n"
    wrong = run("checkin", tid, "--player", lin_id, "--secret", "nope", *where, code=1)
    assert wrong.stderr == "hebei: PERMISSION_DENIED: wrong player secret\n"
    gone = run("withdraw", tid, lin_id, "--secret", lin_secret, *where)
    assert gone.stdout == f"{lin_id}: registration withdrawn\n"
    status = run("status", tid, *operator).stdout
    assert "starts at " in status and "check-in from " in status
    assert "break between rounds: 2m" in status and "round time limit: 30m" in status
    assert "each decision: 20s, time bank 1m" in status
    assert "Mei" in status and "active" in status and "Lin" not in status
    as_json = json.loads(run("status", tid, "--json", *operator).stdout)
    (player,) = as_json["players"]
    assert player["checked_in"] and player["status"] == "PLAYER_STATUS_ACTIVE"
    assert as_json["next_round_at"] and as_json["check_in_opens_at"]
    records = json.loads(run("actions", tid, "--json", *operator).stdout)["actions"]
    assert [(r["action"], r["actor"], r["player_id"]) for r in records] == [
        ("withdraw", "Lin", lin_id)
    ]
    run("start", tid, *operator)
    withdrawn = run("withdraw", tid, mei_id, *operator)  # the operator, after the start
    assert withdrawn.stdout == f"{mei_id}: withdrawn (withdrawn by the operator)\n"
    standings = json.loads(run("standings", tid, "--json", *operator).stdout)
    row = next(r for r in standings["ranking"] if r["standing"]["player_id"] == mei_id)
    assert row["status"] == "PLAYER_STATUS_WITHDRAWN"
    table = run("standings", tid, *operator).stdout
    assert "(withdrawn)" in table
