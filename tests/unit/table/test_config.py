"""The table engine's configuration: validated, one clear line per bad value."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hebei.common.config import ConfigError
from hebei.table.service import TableConfig

BASE = {"HEBEI_OPERATOR_TOKEN": "op"}


def test_defaults_and_streams_hold_no_threads() -> None:
    config = TableConfig.from_env(BASE)
    assert config.max_tables == 256 and config.max_streams == 256
    assert config.max_spectators == 256 and config.max_spectators_per_peer == 16
    # streams are coroutines on the event loop: the pool is the shared default, for unary calls
    assert config.server.max_workers == 16
    assert config.schema == "table_engine" and config.ledger_address is None
    assert config.pause_seconds == 120.0 and config.rejoin_seconds == 30.0


def test_stream_quotas_and_pauses_are_configurable() -> None:
    config = TableConfig.from_env(
        {
            **BASE,
            "HEBEI_TABLE_MAX_SPECTATORS": "10",
            "HEBEI_TABLE_MAX_SPECTATORS_PER_PEER": "2",
            "HEBEI_TABLE_MAX_STREAMS": "20",
            "HEBEI_TABLE_MAX_STREAMS_PER_PEER": "5",
            "HEBEI_TABLE_PAUSE_SECONDS": "7.5",
            "HEBEI_TABLE_REJOIN_SECONDS": "3",
            "HEBEI_TABLE_JOIN_SECONDS": "2",
        }
    )
    assert (config.max_spectators, config.max_spectators_per_peer) == (10, 2)
    assert (config.max_streams, config.max_streams_per_peer) == (20, 5)
    assert (config.pause_seconds, config.rejoin_seconds, config.join_seconds) == (7.5, 3, 2)


def test_shared_and_own_variables() -> None:
    config = TableConfig.from_env(
        {
            **BASE,
            "HEBEI_LEDGER_ADDRESS": "ledger:50053",
            "HEBEI_TABLE_MATCHMAKING_ADDRESS": "mm:50052",
            "HEBEI_TABLE_MAX_TABLES": "64",
            "HEBEI_TABLE_READY_SECONDS": "2.5",
        }
    )
    assert config.ledger_address == "ledger:50053"
    assert config.matchmaking_address == "mm:50052"
    assert config.ready_seconds == 2.5


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HEBEI_TABLE_MAX_TABLES", "lots"),
        ("HEBEI_TABLE_READY_SECONDS", "-1"),
        ("HEBEI_TABLE_SCHEMA", "Bad-Name"),
        ("HEBEI_TABLE_PORT", "70000"),
        ("HEBEI_TABLE_PAUSE_SECONDS", "0"),
        ("HEBEI_TABLE_MAX_SPECTATORS_PER_PEER", "-1"),
    ],
)
def test_a_bad_value_names_its_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        TableConfig.from_env({**BASE, name: value})


def test_the_service_exits_with_one_line_on_bad_configuration() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hebei.table"],
        env={"HEBEI_OPERATOR_TOKEN": "op", "HEBEI_TABLE_MAX_TABLES": "0", "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "hebei-table: HEBEI_TABLE_MAX_TABLES must be an integer 1-10000, got '0'"
    ]


def test_replica_settings_and_their_defaults() -> None:
    from hebei.common.replica_identity import default_address, default_replica_id

    config = TableConfig.from_env({**BASE, "HEBEI_TABLE_PORT": "50051"})
    assert (config.replica_id, config.advertise_address, config.shard_count) == (None, None, 64)
    mine = config.ownership()
    assert mine.shard_count == 64 and mine.address == "127.0.0.1:50051"
    assert mine.replica_id == default_replica_id(
        "table", 50051
    )  # the same after a restart on the port
    assert default_replica_id("table", 50051, "table-0.hebei") == "table-table-0.hebei-50051"
    assert default_replica_id("table", 0, "h") != default_replica_id(
        "table", 0, "h"
    )  # any port: never shared
    assert default_address("0.0.0.0", 50051, "pod-1") == "pod-1:50051"
    assert default_address("::1", 50051) == "[::1]:50051"
    config = TableConfig.from_env(
        {
            **BASE,
            "HEBEI_TABLE_REPLICA_ID": "table-2",
            "HEBEI_TABLE_ADVERTISE_ADDRESS": "table-2.table:50051",
            "HEBEI_TABLE_SHARD_COUNT": "128",
        }
    )
    assert config.ownership().replica_id == "table-2"
    assert config.ownership().address == "table-2.table:50051"
    assert config.shard_count == 128


@pytest.mark.parametrize("count", ["0", "1025", "many"])
def test_a_shard_count_out_of_bounds_is_refused(count: str) -> None:
    with pytest.raises(ConfigError, match="HEBEI_TABLE_SHARD_COUNT"):
        TableConfig.from_env({**BASE, "HEBEI_TABLE_SHARD_COUNT": count})
