"""`hebei bots send|worker --ca-file/--cert-file/--key-file` (or HEBEI_BOTS_TLS_*): bad files
are one line naming the option or variable; send checks the engine's TLS handshake first."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hebei.bots.config import BotsConfig
from hebei.common.tls import ClientTls

HEBEI = str(Path(sys.executable).with_name("hebei"))
CERTS = Path(__file__).resolve().parents[2] / "integration" / "common" / "certs"
SEND = ["bots", "send", "--target", "127.0.0.1:1", "--match", "m1", "--seat", "0", "--token", "t"]
CA, CERT, KEY = (str(CERTS / n) for n in ("ca.pem", "client.pem", "client.key"))
WRONG_KEY = str(CERTS / "server.key")


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_BOTS_TLS")}
    return subprocess.run(
        [HEBEI, *args], capture_output=True, text=True, timeout=60, env={**clean, **env}
    )


@pytest.mark.parametrize("command", [SEND, ["bots", "worker", "--processes", "1"]])
@pytest.mark.parametrize(
    ("files", "line"),
    [
        (["--cert-file", CERT], "hebei: --key-file is required with --cert-file"),
        (
            ["--cert-file", CERT, "--key-file", WRONG_KEY],
            f"hebei: --cert-file ({CERT}) and --key-file ({WRONG_KEY}) do not match: the "
            "certificate is not for this key",
        ),
        (["--ca-file", KEY], f"hebei: --ca-file ({KEY}) is not a readable PEM certificate: no "
                             "certificate or crl found"),
        (["--ca-file", "/nonexistent/ca.pem"], "hebei: --ca-file /nonexistent/ca.pem: no such file"),
    ],
)  # fmt: skip
def test_bad_tls_files_are_one_line(command: list[str], files: list[str], line: str) -> None:
    done = run(*command, *files)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [line]


def test_bad_worker_variables_are_one_line_naming_them() -> None:
    for command in (SEND, ["bots", "worker", "--processes", "1"]):
        done = run(*command, HEBEI_BOTS_TLS_CLIENT_CERT=CERT, HEBEI_BOTS_TLS_CLIENT_KEY=WRONG_KEY)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines() == [
            f"hebei: HEBEI_BOTS_TLS_CLIENT_CERT ({CERT}) and HEBEI_BOTS_TLS_CLIENT_KEY "
            f"({WRONG_KEY}) do not match: the certificate is not for this key"
        ]


def test_send_checks_the_handshake_before_queuing() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        target = f"127.0.0.1:{free.getsockname()[1]}"
    args = [*SEND[:2], "--target", target, *SEND[4:], "--ca-file", CA]
    done = run(*args, "--cert-file", CERT, "--key-file", KEY)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"hebei: --target {target}: no TLS connection with these files: connection refused; "
        "the seat was not queued"
    )


def test_the_workers_settings_come_from_hebei_bots_tls() -> None:
    env = {"HEBEI_TLS_CA": CA, "HEBEI_BOTS_TLS_CLIENT_CERT": CERT, "HEBEI_BOTS_TLS_CLIENT_KEY": KEY}
    config = BotsConfig.from_env(env)
    assert config.client_tls == ClientTls(Path(CA), Path(CERT), Path(KEY))
    assert BotsConfig.from_env({}).client_tls is None
