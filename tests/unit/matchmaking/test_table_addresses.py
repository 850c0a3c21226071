"""``HEBEI_MATCHMAKING_TABLE_ADDRESS`` (and ``..._TABLE_ENDPOINT``) name the table engine's
replicas: one address or a comma-separated list, written back ``a:1,b:2``; a bad list stops
the service at start with one line naming the variable and the bad item."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hebei.common.config import ConfigError
from hebei.matchmaking.service import MatchmakingConfig

ROOT = Path(__file__).resolve().parents[3]
BASE = {"HEBEI_MATCHMAKING_LEDGER_ADDRESS": "ledger:50053", "HEBEI_OPERATOR_TOKEN": "t" * 32}


def config(**env: str) -> MatchmakingConfig:
    return MatchmakingConfig.from_env({**BASE, **env})


def test_one_address_and_a_list_both_parse() -> None:
    assert config(HEBEI_MATCHMAKING_TABLE_ADDRESS="table:50051").table_address == "table:50051"
    listed = config(
        HEBEI_MATCHMAKING_TABLE_ADDRESS=" table-0:50051, table-1:50051 ",
        HEBEI_MATCHMAKING_TABLE_ENDPOINT="play.example:443,play.example:444",
    )
    assert listed.table_address == "table-0:50051,table-1:50051"
    assert listed.table_endpoint == "play.example:443,play.example:444"
    assert config(HEBEI_MATCHMAKING_TABLE_ADDRESS="t:1").table_endpoint is None


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("TABLE_ADDRESS", "a:1,b", "HEBEI_MATCHMAKING_TABLE_ADDRESS: address 'b' has no port"),
        ("TABLE_ADDRESS", "a:1,,b:2", "HEBEI_MATCHMAKING_TABLE_ADDRESS: address 2 of"),
        ("TABLE_ADDRESS", "a:1,a:1", "HEBEI_MATCHMAKING_TABLE_ADDRESS: address 'a:1' is given"),
        ("TABLE_ENDPOINT", "x:99999", "HEBEI_MATCHMAKING_TABLE_ENDPOINT: address 'x:99999'"),
    ],
)
def test_a_bad_list_is_refused_naming_the_variable(name: str, value: str, message: str) -> None:
    env = {"HEBEI_MATCHMAKING_TABLE_ADDRESS": "a:1", f"HEBEI_MATCHMAKING_{name}": value}
    with pytest.raises(ConfigError) as caught:
        config(**env)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_the_service_stops_at_start_with_one_line() -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    env = {**clean, **BASE, "HEBEI_MATCHMAKING_TABLE_ADDRESS": "table-0:50051,table-1"}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "services"), env.get("PYTHONPATH")) if p
    )
    result = subprocess.run(
        [sys.executable, "-m", "hebei.matchmaking"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "hebei-matchmaking: HEBEI_MATCHMAKING_TABLE_ADDRESS: address 'table-1' has no port: "
        "write host:port\n"
    )
