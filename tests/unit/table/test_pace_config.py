"""The bot pace's setting: 0.8 s unless set, 0-5 s, and only tables with a person's seat."""

from __future__ import annotations

import pytest

from hebei.common.config import ConfigError
from hebei.table.host import HostSettings
from hebei.table.service import TableConfig

BASE = {"HEBEI_OPERATOR_TOKEN": "op"}


def test_the_pace_is_read_from_the_environment() -> None:
    assert TableConfig.from_env(BASE).bot_pace == 0.8
    config = TableConfig.from_env({**BASE, "HEBEI_TABLE_BOT_PACE_SECONDS": "0"})
    assert config.bot_pace == 0.0
    config = TableConfig.from_env({**BASE, "HEBEI_TABLE_BOT_PACE_SECONDS": "0.25"})
    assert config.bot_pace == 0.25
    assert HostSettings(bot_pace=0.25).table_options()["bot_pace"] == 0.25


@pytest.mark.parametrize("value", ["-1", "6", "slow"])
def test_a_bad_pace_names_its_variable(value: str) -> None:
    with pytest.raises(ConfigError, match="HEBEI_TABLE_BOT_PACE_SECONDS"):
        TableConfig.from_env({**BASE, "HEBEI_TABLE_BOT_PACE_SECONDS": value})
