"""``hebei play --address`` names the table engine's replicas: one HOST:PORT or a comma list
(the router's entries); a bad list is one line and exit status 2."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from hebei.cli import app, commands  # noqa: F401  (commands: registers the sub-commands)
from hebei.cli.play import remote_entries


def test_one_address_or_a_comma_list_is_read() -> None:
    assert remote_entries("table:50051") == ("table:50051",)
    assert remote_entries("a:1, b:2,c:3") == ("a:1", "b:2", "c:3")


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("nowhere", "address 'nowhere' has no port: write host:port"),
        ("a:1,,b:2", "address 2 of 'a:1,,b:2' is empty"),
        ("a:1,a:1", "address 'a:1' is given twice"),
    ],
)
def test_a_bad_address_list_is_one_line(address: str, why: str) -> None:
    args = ["play", "--address", address, "--match", "m", "--seat", "0", "--token", "t"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2
    assert done.output.strip() == f"hebei: --address must be HOST:PORT[,HOST:PORT...]: {why}"
