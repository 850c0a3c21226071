"""A bad configuration value exits with one clear line on stderr naming the variable."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def run_service(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    return subprocess.run(
        [sys.executable, "-m", "tests.integration.common.server_main"],
        cwd=ROOT,
        env={**clean, "HEBEI_OPERATOR_TOKEN": "t", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"HEBEI_TESTSVC_PORT": "abc"},
            "hebei-testsvc: HEBEI_TESTSVC_PORT must be an integer 0-65535, got 'abc'",
        ),
        (
            {"HEBEI_OPERATOR_TOKEN": ""},
            "hebei-testsvc: HEBEI_OPERATOR_TOKEN is required but not set",
        ),
        (
            {"HEBEI_GRACE_SECONDS": "-3"},
            "hebei-testsvc: HEBEI_GRACE_SECONDS must be a number 0-3600, got '-3'",
        ),
        (
            {"HEBEI_OPERATOR_TOKEN": "令牌-0123456789"},
            "hebei-testsvc: HEBEI_OPERATOR_TOKEN must be printable ASCII (it is sent as metadata)",
        ),
        (
            {"HEBEI_SERVICE_TOKEN": "svc\ttoken-0123456789"},
            "hebei-testsvc: HEBEI_SERVICE_TOKEN must be printable ASCII (it is sent as metadata)",
        ),
        (
            {"HEBEI_TLS_CERT": "/nonexistent/cert.pem"},
            "hebei-testsvc: HEBEI_TLS_CERT must name a readable file, got '/nonexistent/cert.pem'",
        ),
    ],
)
def test_bad_value_one_line(env: dict[str, str], line: str) -> None:
    result = run_service(**env)
    assert result.returncode == 2
    assert result.stderr == line + "\n"
    assert result.stdout == ""


def test_port_in_use_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_service(HEBEI_TESTSVC_HOST="127.0.0.1", HEBEI_TESTSVC_PORT=str(port))
    assert result.returncode == 1
    assert result.stderr.startswith(f"hebei-testsvc: cannot listen on 127.0.0.1:{port}")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("service", "what"),
    [
        ("table", "the table engine's database"),  # a stack trace before
        ("ledger", "the ledger database"),
        ("matchmaking", "the matchmaking database"),
    ],
)
@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("not-a-url", 'missing "=" after "not-a-url" in connection info string'),
        ("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", "connection"),
    ],
)
def test_a_database_it_cannot_open_is_one_line(service: str, what: str, url: str, why: str) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    result = subprocess.run(
        [sys.executable, "-m", f"hebei.{service}"],
        cwd=ROOT,
        env={
            **clean,
            "HEBEI_OPERATOR_TOKEN": "t",
            "HEBEI_DATABASE_URL": url,
            "HEBEI_MATCHMAKING_TABLE_ADDRESS": "127.0.0.1:1",
            "HEBEI_MATCHMAKING_LEDGER_ADDRESS": "127.0.0.1:1",
            f"HEBEI_{service.upper()}_PORT": "0",
            f"HEBEI_{service.upper()}_METRICS_PORT": "-1",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stderr.startswith(f"hebei-{service}: cannot open {what}: "), result.stderr
    assert why in result.stderr and result.stderr.count("\n") == 1, result.stderr
