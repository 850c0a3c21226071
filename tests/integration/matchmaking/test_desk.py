"""The organiser's desk from the command line and the web gateway: create with every
setting, a readable preview, dissolve, award/correct/undo, reveal, and the exports (results
with every standings column and statuses, every round's seating, CSV and JSON; printable
pages) — the CLI's and the web's the same rows."""

from __future__ import annotations

import csv
import io
import json

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from hebei.cli import app, commands  # noqa: F401  (commands: registers the sub-commands)
from hebei.common.exports import RESULT_COLUMNS, SEATING_COLUMNS
from hebei.v1 import matchmaking_pb2 as mm
from hebei.web.app import create_app
from hebei.web.config import WebConfig
from tests.integration.matchmaking.conftest import Stack
from tests.integration.table.conftest import OPERATOR_TOKEN


@pytest.fixture
def cli(stack: Stack, tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HEBEI_DATA_DIR", str(tmp_path))  # no `hebei up` stack found
    monkeypatch.delenv("HEBEI_OPERATOR_TOKEN", raising=False)
    operator = ["--address", stack.matchmaking_address, "--token", OPERATOR_TOKEN]
    runner = CliRunner()

    def run(*args: str, code: int = 0, token: bool = True) -> str:
        result = runner.invoke(app, ["tournament", *args, *(operator if token else [])])
        assert result.exit_code == code, (args, result.output)
        return result.stdout

    return run


def test_create_with_every_setting_and_a_readable_preview(stack: Stack, cli, monkeypatch) -> None:
    stack.start_matchmaking()
    monkeypatch.setenv("COLUMNS", "110")
    tid = cli(
        "create", "--name", "desk", "--rounds", "3", "--hands", "1", "--hide-last-rounds", "2",
        "--stall-timeout", "5m", "--replace-absent-after", "45s", "--fixed-replacement", "-20",
        "--wind-round", "12",
    ).strip()  # fmt: skip
    config = stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament.config
    assert (config.hide_last_rounds, config.stall_timeout.seconds) == (2, 300)
    assert config.replace_absent_after.seconds == 45 and config.replaced_match_points == -20
    assert config.length.wind_rounds.max_hands == 12
    cli("create", "--name", "x", "--rounds", "2", "--hide-last-rounds", "3", code=2)
    for _ in range(4):
        cli("register", tid, "--bot", "efficiency", "--count", "1")
    preview = cli("preview", tid)
    assert "planned" in preview and "unspecifi" not in preview
    names = [p.name for p in stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid))
             .tournament.players]  # fmt: skip
    assert len(names) == 4 and all(name in preview for name in names), preview
    assert "…" not in preview


def test_exports_and_corrections_from_the_cli_and_the_web(
    stack: Stack, cli, start_worker, monkeypatch
) -> None:
    start_worker(sessions=8)
    stack.start_matchmaking()
    tid = cli(
        "create", "--name", "export cup", "--rounds", "2", "--hands", "1", "--mode", "random",
    ).strip()  # fmt: skip
    players = [p.player_id for p in stack.register_bots(tid, 4, "efficiency")]
    cli("start", tid)
    finished = stack.wait_finished(tid)
    match_id = stack.mm().GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds[0]
    match_id = match_id.tables[0].match_id
    cli("award", tid, players[0], "7", "--reason", "fair play", "--by", "Wu")
    cli("correct", tid, match_id, "3,-3,0,0", "--reason", "fan count", "--by", "Wu")
    cli("correct", tid, match_id, "3,-3,0", "--reason", "x", code=1)
    cli("dissolve", tid, match_id, "--reason", "x", code=1)  # ended: refused, said why
    assert "correction" in cli("undo", tid, "--reason", "appeal")
    actions = json.loads(cli("actions", tid, "--json"))
    assert {"award", "correct_result", "undo_correction"} <= {
        a["action"] for a in actions["actions"]
    }
    monkeypatch.setenv("COLUMNS", "200")
    table = cli("standings", tid)
    for column in ("matches", "penalties", "awards", "corrections"):
        assert column in table

    results = list(csv.DictReader(io.StringIO(cli("export", tid, "--what", "results"))))
    assert list(results[0]) == list(RESULT_COLUMNS) and len(results) == 4
    awarded = next(r for r in results if r["player_id"] == players[0])
    assert awarded["award_points"] == "7" and awarded["status"] == "active"
    assert all(r["matches_played"] == "2" for r in results)
    seating = json.loads(cli("export", tid, "--what", "seating", "--format", "json"))
    assert seating["columns"] == list(SEATING_COLUMNS) and len(seating["rows"]) == 8
    assert {r["wind"] for r in seating["rows"]} == {"East", "South", "West", "North"}
    assert {r["round"] for r in seating["rows"]} == {1, 2}

    config = WebConfig(
        table_address=stack.table_address, matchmaking_address=stack.matchmaking_address,
        ledger_address=stack.ledger_address, port=0,
    )  # fmt: skip
    with TestClient(create_app(config)) as web:
        got = web.get(f"/api/tournaments/{tid}/export/results.csv")
        assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv")
        assert list(csv.DictReader(io.StringIO(got.text))) == results
        got = web.get(f"/api/tournaments/{tid}/export/seating.json")
        assert got.json()["rows"] == seating["rows"]
        assert web.get(f"/api/tournaments/{tid}/export/secrets.csv").status_code == 404
        page = web.get(f"/tournaments/{tid}/print/round/2")
        assert page.status_code == 200 and 'href="/print.css"' in page.text
        names = {p.name for p in finished.players}
        assert all(name in page.text for name in names)
        assert page.text.count("<section") == 1 and "North" in page.text
        results_page = web.get(f"/tournaments/{tid}/print/results")
        assert "award points" in results_page.text
        assert web.get(f"/tournaments/{tid}/print/round/0").status_code == 400
        assert web.get("/print.css").status_code == 200
        standings = web.get(f"/api/tournaments/{tid}/standings").json()
        row = next(r for r in standings["ranking"] if r["player_id"] == players[0])
        assert row["award_points"] == 7
