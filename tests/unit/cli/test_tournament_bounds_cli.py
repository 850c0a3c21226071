"""`hebei tournament create` and `penalty`: a number outside its bound is one line naming the
option, before any call (it once reached the protobuf field and ended in a stack trace)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from hebei.cli import app, commands  # noqa: F401  (commands: registers the sub-commands)

NOWHERE = ["--address", "127.0.0.1:1", "--token", "operator-token-0123456789"]
HUGE = "99999999999999999999"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--rounds", "99999999999"], "--rounds must be 1-64, got 99999999999"),
        (["--hands", "0"], "--hands must be 1-64, got 0"),
        (["--seed", "-5"], "--seed must be 0-18,446,744,073,709,551,615, got -5"),
        (["--max-players", "99999999999"], "--max-players must be 0-4,096, got 99999999999"),
        (["--late-until", "65"], "--late-until must be 0-64, got 65"),
        (["--claim-window", "5.5"], "--claim-window must be 0-5 seconds, got 5.5"),
        (["--claim-window", "nan"], "--claim-window must be 0-5 seconds, got nan"),
        (["--claim-window", "-1"], "--claim-window must be 0-5 seconds, got -1"),
        (
            ["--fixed-replacement", HUGE],
            f"--fixed-replacement must be -1,000,000-1,000,000, got {HUGE}",
        ),
        (["--placement", f"1,2,3,{HUGE}"], f"--placement must be -1,000,000-1,000,000, got {HUGE}"),
    ],
)
def test_create_refuses_a_number_outside_its_bound(args: list[str], line: str) -> None:
    result = CliRunner().invoke(app, ["tournament", "create", "--name", "cup", *args, *NOWHERE])
    assert result.exit_code == 2
    assert result.stderr == f"hebei: {line}\n"


def test_a_penalty_outside_its_bound_is_one_line() -> None:
    result = CliRunner().invoke(
        app, ["tournament", "penalty", "t-1", "p-1", HUGE, "--reason", "late", *NOWHERE]
    )
    assert result.exit_code == 2
    assert result.stderr == f"hebei: POINTS must be 1-1,000,000, got {HUGE}\n"


@pytest.mark.parametrize("token", ["名字", "tab\there", "line\nbreak"])
def test_a_token_that_cannot_be_call_metadata_is_one_line(token: str) -> None:
    # gRPC metadata is printable ASCII: such a token was "INTERNAL: Invalid metadata" and
    # gRPC's own C-core lines on stderr
    result = CliRunner().invoke(
        app, ["tournament", "status", "t-1", "--address", "127.0.0.1:1", "--token", token]
    )
    assert result.exit_code == 2
    assert result.stderr == (
        "hebei: the operator token (--token or $HEBEI_OPERATOR_TOKEN) must be printable ASCII\n"
    )
