"""`hebei tournament create`'s schedule and people's options (--start-at, --check-in, --break,
--round-time-limit, --no-show-limit, --inactive, --move-seconds, --time-bank) become the
config the contract states; bad input is one line and exit 2, before any call. `checkin`
and `withdraw` need their arguments; `status` shows the schedule and the players."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import typer
from typer.testing import CliRunner

from hebei.cli import app, commands  # noqa: F401  (commands: registers the sub-commands)
from hebei.cli.tournament_display import players_table, schedule_lines
from hebei.cli.tournament_setup import parse_duration, parse_start_at, schedule_config
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb

NOWHERE = ["--address", "127.0.0.1:1", "--token", "operator-token-0123456789"]
NOW = datetime(2026, 12, 7, 5, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "seconds"), [("90s", 90), ("15m", 900), ("2h", 7200), ("1d", 86400), ("45", 45)]
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration("--x", text, 0, 86400) == seconds


def test_start_at_relative_and_iso() -> None:
    assert parse_start_at("+10m", NOW) == NOW + timedelta(minutes=10)
    assert parse_start_at("2026-12-07T06:30:00+00:00", NOW) == NOW + timedelta(minutes=90)
    assert parse_start_at("2026-12-07T06:30:00Z", NOW) == NOW + timedelta(minutes=90)
    with pytest.raises(typer.Exit):
        parse_start_at("2026-12-07T04:00:00Z", NOW)  # in the past


def test_the_options_make_the_config() -> None:
    config = mm.TournamentConfig()
    options = {
        "start_at": "+10m", "check_in_window": "15m", "round_break": "2m",
        "round_time_limit": "30m", "move_seconds": "20s", "time_bank": "1m",
    }  # fmt: skip
    schedule_config(config, options, 3, "left-out")
    assert config.check_in_window.seconds == 900 and config.round_break.seconds == 120
    assert config.round_time_limit.seconds == 1800 and config.no_show_limit == 3
    assert config.inactive_players == mm.INACTIVE_PLAYERS_LEFT_OUT
    assert config.time_control.per_decision.seconds == 20
    assert config.time_control.time_bank.seconds == 60
    start = config.scheduled_start.ToDatetime(tzinfo=UTC)
    assert timedelta(minutes=9) < start - datetime.now(UTC) <= timedelta(minutes=10)
    plain = mm.TournamentConfig()
    schedule_config(plain, {}, 0, "ranked-last")
    assert not plain.HasField("scheduled_start") and not plain.HasField("round_break")
    assert plain.inactive_players == mm.INACTIVE_PLAYERS_RANKED_LAST


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--check-in", "30s"], "--check-in must be 1m to 24h, got '30s'"),
        (["--check-in", "2d"], "--check-in must be 1m to 24h, got '2d'"),
        (["--break", "-1m"], "--break must be 0s to 24h, got '-1m'"),
        (["--break", "nan"], "--break must be 0s to 24h, got 'nan'"),
        (["--round-time-limit", "soon"],
         "--round-time-limit must be a duration like 90s, 15m or 2h, got 'soon'"),
        (["--no-show-limit", "65"], "--no-show-limit must be 1-64, got 65"),
        (["--inactive", "gone"], "--inactive must be one of ranked-last, left-out, got 'gone'"),
        (["--move-seconds", "0.01"], "--move-seconds must be 0.1s to 5m, got '0.01'"),
        (["--time-bank", "1m"], "--time-bank needs --move-seconds (the time each decision has"
         " first)"),
        (["--start-at", "tomorrow"],
         "--start-at must be an ISO time (2026-12-24T18:00) or +10m, got 'tomorrow'"),
        (["--start-at", "+400d"], "--start-at must be 1s to 8784h, got '400d'"),
        (["--start-at", "2001-01-01T00:00Z"],
         "--start-at must be in the next 366 days, got '2001-01-01T00:00Z'"),
    ],
)  # fmt: skip
def test_bad_schedule_options_are_one_line(args: list[str], line: str) -> None:
    result = CliRunner().invoke(app, ["tournament", "create", "--name", "cup", *args, *NOWHERE])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"hebei: {line}\n"


@pytest.mark.parametrize(
    "args",
    [["checkin", "t-1"], ["withdraw", "t-1"], ["checkin", "t-1", "--secret", "s"]],
)
def test_checkin_and_withdraw_need_their_arguments(args: list[str]) -> None:
    result = CliRunner().invoke(app, ["tournament", *args, *NOWHERE])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_a_call_nobody_answers_is_one_line() -> None:
    result = CliRunner().invoke(
        app, ["tournament", "checkin", "t-1", "--player", "p-1", "--secret", "s", *NOWHERE]
    )
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "unreachable" in result.stderr


def test_status_shows_the_schedule_and_each_player() -> None:
    tournament = mm.Tournament(tournament_id="t-1", current_round=1)
    tournament.config.round_break.FromSeconds(120)
    tournament.config.round_time_limit.FromSeconds(1800)
    tournament.config.time_control.per_decision.FromSeconds(20)
    tournament.config.no_show_limit = 2
    tournament.round_ends_at.FromDatetime(NOW)
    tournament.check_in_opens_at.FromDatetime(NOW - timedelta(hours=1))
    tournament.check_in_closes_at.FromDatetime(NOW)
    lines = schedule_lines(tournament)
    assert any(line.startswith("round 1 ends at ") for line in lines)
    assert any(line.startswith("check-in from ") for line in lines)
    assert "break between rounds: 2m" in lines and "round time limit: 30m" in lines
    assert "each decision: 20s" in lines
    tournament.players.add(
        name="Lin", player_id="p-1", kind=pb.SEAT_KIND_PERSON,
        status=mm.PLAYER_STATUS_NO_SHOW, status_reason="missed 2 rounds", missed_rounds=[1, 2],
    )  # fmt: skip
    tournament.players.add(name="f", player_id="filler-1", filler=True)
    table = players_table(tournament)
    assert table.row_count == 1
    cells = [list(column.cells) for column in table.columns]
    assert cells[3] == ["no-show (missed 2 rounds)"] and cells[4] == ["1, 2"]
    assert cells[5] == ["no"]
