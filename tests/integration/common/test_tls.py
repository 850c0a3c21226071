"""TLS chosen by configuration: server certificates, client certificates when required, one
client configuration per service, and bad certificate files refused at start in one line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from hebei.common.client import (
    create_channel,
    describe_tls_failure,
    handshake_error,
    is_tls_failure,
)
from hebei.common.config import ConfigError, EnvReader, ServerConfig
from hebei.common.tls import ClientTls, TlsConfig
from hebei.v1 import ledger_pb2, ledger_pb2_grpc
from tests.integration.common.conftest import CannedServer, start_canned_server

CERTS = Path(__file__).parent / "certs"
ROOT = Path(__file__).resolve().parents[3]
SERVER_TLS = TlsConfig(CERTS / "server.pem", CERTS / "server.key")
MUTUAL_TLS = TlsConfig(CERTS / "server.pem", CERTS / "server.key", CERTS / "ca.pem")


def _standings(channel: grpc.Channel) -> int:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    reply = stub.GetStandings(ledger_pb2.LedgerServiceGetStandingsRequest(), timeout=5)
    return len(reply.standings)


@pytest.fixture
def tls_server(request: pytest.FixtureRequest) -> Iterator[CannedServer]:
    running = start_canned_server(tls=request.param, metrics_port=None)
    yield running
    running.server.stop(grace=0)


@pytest.mark.parametrize("tls_server", [SERVER_TLS], indirect=True)
def test_tls_server(tls_server: CannedServer) -> None:
    target = f"127.0.0.1:{tls_server.server.port}"
    with create_channel(target, tls_ca_file=CERTS / "ca.pem") as channel:
        assert _standings(channel) == 1
    with create_channel(target, timeout=2) as plain, pytest.raises(grpc.RpcError) as failure:
        _standings(plain)
    assert failure.value.code() == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize("tls_server", [MUTUAL_TLS], indirect=True)
def test_client_certificate_required(tls_server: CannedServer) -> None:
    target = f"127.0.0.1:{tls_server.server.port}"
    with create_channel(
        target,
        tls_ca_file=CERTS / "ca.pem",
        tls_cert_file=CERTS / "client.pem",
        tls_key_file=CERTS / "client.key",
    ) as channel:
        assert _standings(channel) == 1
    anonymous = create_channel(target, tls_ca_file=CERTS / "ca.pem", timeout=2)
    with anonymous, pytest.raises(grpc.RpcError) as failure:
        _standings(anonymous)
    assert failure.value.code() == grpc.StatusCode.UNAVAILABLE


# ---------------------------------------------------------------------- client configuration


def test_one_client_tls_configuration_per_service_from_the_environment() -> None:
    shared = {
        "HEBEI_OPERATOR_TOKEN": "op",
        "HEBEI_TLS_CA": str(CERTS / "ca.pem"),
        "HEBEI_TLS_CLIENT_CERT": str(CERTS / "client.pem"),
        "HEBEI_TLS_CLIENT_KEY": str(CERTS / "client.key"),
    }
    config = ServerConfig.from_env("table", default_port=0, default_metrics_port=0, env=shared)
    assert config.client_tls == ClientTls(
        CERTS / "ca.pem", CERTS / "client.pem", CERTS / "client.key"
    )
    assert config.tls is None  # serving TLS is another matter
    own = {**shared, "HEBEI_LEDGER_TLS_CA": "system"}
    ledger = ServerConfig.from_env("ledger", default_port=0, default_metrics_port=0, env=own)
    assert ledger.client_tls is not None and ledger.client_tls.ca_file is None  # system roots
    assert ClientTls.from_env(EnvReader("bots", {})) is None  # nothing set: plaintext
    only_ca = ClientTls.from_env(EnvReader("bots", {"HEBEI_BOTS_TLS_CA": str(CERTS / "ca.pem")}))
    assert only_ca == ClientTls(CERTS / "ca.pem")


def run_service(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    return subprocess.run(
        [sys.executable, "-m", "tests.integration.common.server_main"],
        cwd=ROOT,
        env={**clean, "HEBEI_OPERATOR_TOKEN": "t", "HEBEI_TESTSVC_PORT": "0", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def garbage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pem") / "garbage.pem"
    path.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    return path


def _cases(garbage: Path) -> list[tuple[dict[str, str], str]]:
    names = ("ca.pem", "server.pem", "server.key", "client.pem", "client.key")
    c = {name: str(CERTS / name) for name in names}
    return [
        (
            {"HEBEI_TLS_CERT": c["server.pem"], "HEBEI_TLS_KEY": c["client.key"]},
            f"HEBEI_TLS_CERT ({c['server.pem']}) and HEBEI_TLS_KEY ({c['client.key']}) do not "
            "match: the certificate is not for this key",
        ),
        (
            {"HEBEI_TLS_CERT": str(garbage), "HEBEI_TLS_KEY": c["server.key"]},
            f"HEBEI_TLS_CERT ({garbage}) is not a readable PEM certificate: no PEM data could "
            "be read",
        ),
        (
            {"HEBEI_TLS_CERT": c["server.pem"], "HEBEI_TLS_KEY": str(garbage)},
            f"HEBEI_TLS_KEY ({garbage}) is not a readable PEM private key: no PEM data could be "
            "read",
        ),
        (
            {
                "HEBEI_TLS_CERT": c["server.pem"],
                "HEBEI_TLS_KEY": c["server.key"],
                "HEBEI_TLS_CLIENT_CA": c["server.key"],
            },
            f"HEBEI_TLS_CLIENT_CA ({c['server.key']}) is not a readable PEM certificate: no "
            "certificate or crl found",
        ),
        (
            {"HEBEI_TLS_CLIENT_CERT": c["client.pem"], "HEBEI_TLS_CLIENT_KEY": c["server.key"]},
            f"HEBEI_TLS_CLIENT_CERT ({c['client.pem']}) and HEBEI_TLS_CLIENT_KEY "
            f"({c['server.key']}) do not match: the certificate is not for this key",
        ),
        (
            {"HEBEI_TESTSVC_TLS_CA": str(garbage)},
            f"HEBEI_TESTSVC_TLS_CA ({garbage}) is not a readable PEM certificate: no PEM data "
            "could be read",
        ),
        (
            {"HEBEI_TLS_CLIENT_CERT": c["client.pem"]},
            "HEBEI_TLS_CLIENT_KEY is required when HEBEI_TLS_CLIENT_CERT is set",
        ),
    ]


@pytest.mark.parametrize(
    "case",
    range(7),
    ids=["mismatched", "garbled-cert", "garbled-key", "client-ca-not-a-cert",
         "client-mismatched", "own-variable", "cert-without-key"],
)  # fmt: skip
def test_bad_tls_files_stop_the_service_with_one_line(garbage: Path, case: int) -> None:
    env, line = _cases(garbage)[case]
    result = run_service(**env)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"hebei-testsvc: {line}\n"
    assert "Failed to bind" not in result.stderr and result.stdout == ""


def test_a_mismatched_pair_built_in_code_is_refused_before_binding() -> None:
    config = ServerConfig(
        service="testsvc",
        operator_token="t",
        metrics_port=None,
        tls=TlsConfig(CERTS / "server.pem", CERTS / "client.key"),
    )
    with pytest.raises(ConfigError, match="do not match: the certificate is not for this key"):
        start_canned_server(**{k: getattr(config, k) for k in ("tls", "metrics_port")})


def test_command_line_files_are_checked_naming_the_options(garbage: Path) -> None:
    with pytest.raises(ConfigError, match="--key-file is required with --cert-file"):
        ClientTls.from_options(None, CERTS / "client.pem", None)
    with pytest.raises(ConfigError, match=r"--cert-file \(.*\) and --key-file \(.*\) do not match"):
        ClientTls.from_options(None, CERTS / "client.pem", CERTS / "server.key")
    with pytest.raises(ConfigError, match=r"--ca-file .*missing.pem: no such file"):
        ClientTls.from_options(CERTS / "missing.pem", None, None)
    with pytest.raises(ConfigError, match=r"--ca-file .*certs: is a directory, expected a PEM"):
        ClientTls.from_options(CERTS, None, None)
    with pytest.raises(ConfigError, match=r"--key-file /dev/zero: is not a regular file"):
        ClientTls.from_options(None, CERTS / "client.pem", Path("/dev/zero"))
    with pytest.raises(ConfigError, match=r"--ca-file \(.*\) is not a readable PEM certificate"):
        ClientTls.from_options(garbage, None, None)
    assert ClientTls.from_options(CERTS / "ca.pem", None, None).ca_file == CERTS / "ca.pem"


@pytest.mark.parametrize("tls_server", [MUTUAL_TLS], indirect=True)
def test_a_refused_handshake_is_told_apart_from_a_server_away(tls_server: CannedServer) -> None:
    # The server listens on 127.0.0.1 (its certificate names it): "localhost" may resolve to
    # ::1 too, and grpc then reports the last address's error, a refused connection (CI saw
    # it once), not the handshake's.
    target = f"127.0.0.1:{tls_server.server.port}"
    mutual = ClientTls(CERTS / "ca.pem", CERTS / "client.pem", CERTS / "client.key")
    assert handshake_error(target, mutual) is None
    for tls in (False, True, ClientTls(CERTS / "ca.pem")):  # plaintext, no CA, no certificate
        error = handshake_error(target, tls, timeout=3)
        assert error is not None and is_tls_failure(error), tls
        assert describe_tls_failure(error)
    untrusted = handshake_error(target, True, timeout=3)
    assert describe_tls_failure(untrusted) == "its certificate is not signed by the CA trusted here"
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        away = f"127.0.0.1:{free.getsockname()[1]}"
    error = handshake_error(away, mutual, timeout=3)
    assert error is not None and not is_tls_failure(error)
