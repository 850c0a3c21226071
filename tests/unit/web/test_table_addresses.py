"""``HEBEI_WEB_TABLE_ADDRESS`` names the table engine's replicas: one address or a comma list
(the gateway's router enters through each); a bad list is one line naming the variable."""

from __future__ import annotations

import pytest

from hebei.common.config import ConfigError
from hebei.web.config import WebConfig

BASE = {"HEBEI_WEB_MATCHMAKING_ADDRESS": "mm:50052"}


def test_one_address_and_a_list_both_parse() -> None:
    one = WebConfig.from_env({**BASE, "HEBEI_WEB_TABLE_ADDRESS": "table:50051"})
    assert one.table_address == "table:50051"
    listed = WebConfig.from_env({**BASE, "HEBEI_WEB_TABLE_ADDRESS": "t0:50051 , t1:50051"})
    assert listed.table_address == "t0:50051,t1:50051"


@pytest.mark.parametrize("value", ["t0:50051,t1", ":50051", "t0:50051,,t1:1"])
def test_a_bad_list_is_one_line(value: str) -> None:
    with pytest.raises(ConfigError, match=r"^HEBEI_WEB_TABLE_ADDRESS: address ") as caught:
        WebConfig.from_env({**BASE, "HEBEI_WEB_TABLE_ADDRESS": value})
    assert "\n" not in str(caught.value)
