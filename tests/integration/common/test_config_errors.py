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
