"""The environment reader: typed reads, one-line errors naming the variable."""

from __future__ import annotations

import pytest

from hebei.common.env import ConfigError, EnvReader


@pytest.mark.parametrize(("raw", "value"), [("1", True), ("yes", True), ("off", False), ("", True)])
def test_flag(raw: str, value: bool) -> None:
    assert EnvReader("x", {"HEBEI_X_ON": raw}).flag("ON", True) is value


def test_flag_invalid() -> None:
    with pytest.raises(ConfigError, match="HEBEI_X_ON must be true or false, got 'maybe'"):
        EnvReader("x", {"HEBEI_X_ON": "maybe"}).flag("ON", False)
