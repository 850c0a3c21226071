"""Environment configuration: typed reads, one-line errors naming the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from hebei.common.config import ConfigError, ServerConfig

BASE = {"HEBEI_OPERATOR_TOKEN": "op"}


STRONG = "9f2c4e71a0b83d56e2f7c19a4b0d86e35c7a1f92e04b6d8c3a5f71e29b0c4d68"  # openssl rand -hex 32
STRONG_OPERATOR = "Qm7xK2pV9sLw4Rt8Yc1Nf6Hb3Jd0Gz5Ue"  # secrets.token_urlsafe(24)


def from_env(**env: str) -> ServerConfig:
    return ServerConfig.from_env(
        "ledger", default_port=50053, default_metrics_port=9103, env={**BASE, **env}
    )


def test_defaults() -> None:
    config = from_env()
    assert (config.port, config.metrics_port, config.host) == (50053, 9103, "127.0.0.1")
    assert config.operator_token == "op" and config.service_token is None and config.tls is None
    assert config.program == "hebei-ledger"


def test_values_read() -> None:
    config = from_env(
        HEBEI_LEDGER_PORT="7000",
        HEBEI_LEDGER_METRICS_PORT="-1",
        HEBEI_GRACE_SECONDS="2.5",
        HEBEI_SERVICE_TOKEN="svc",
        HEBEI_LOG_LEVEL="debug",
    )
    assert config.port == 7000 and config.metrics_port is None
    assert config.grace_seconds == 2.5 and config.service_token == "svc"
    assert config.log_level == "DEBUG"


def test_service_variable_overrides_shared() -> None:
    config = from_env(HEBEI_OPERATOR_TOKEN="shared", HEBEI_LEDGER_OPERATOR_TOKEN="own")
    assert config.operator_token == "own"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HEBEI_LEDGER_PORT": "abc"}, "HEBEI_LEDGER_PORT must be an integer 0-65535, got 'abc'"),
        ({"HEBEI_LEDGER_PORT": "70000"}, "HEBEI_LEDGER_PORT must be an integer 0-65535, got '70000'"),
        ({"HEBEI_OPERATOR_TOKEN": " "}, "HEBEI_OPERATOR_TOKEN is required but not set"),
        ({"HEBEI_LEDGER_MAX_WORKERS": "0"}, "HEBEI_LEDGER_MAX_WORKERS must be an integer 1-1024, got '0'"),
        ({"HEBEI_DRAIN_SECONDS": "soon"}, "HEBEI_DRAIN_SECONDS must be a number 0-300, got 'soon'"),
        ({"HEBEI_LOG_LEVEL": "loud"}, "HEBEI_LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, got 'loud'"),
        ({"HEBEI_TLS_CERT": "/no/such.pem"}, "HEBEI_TLS_CERT must name a readable file, got '/no/such.pem'"),
    ],
)  # fmt: skip
def test_invalid_value_names_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        from_env(**env)
    assert str(error.value) == message
    assert "\n" not in str(error.value)


def test_listening_beyond_loopback_needs_a_distinct_service_token() -> None:
    with pytest.raises(ConfigError) as missing:
        from_env(HEBEI_HOST="0.0.0.0")
    assert str(missing.value) == (
        "HEBEI_SERVICE_TOKEN is required when listening on 0.0.0.0 (not loopback)"
    )
    with pytest.raises(ConfigError, match="must differ from HEBEI_OPERATOR_TOKEN"):
        from_env(HEBEI_HOST="10.0.0.5", HEBEI_SERVICE_TOKEN="op")
    config = from_env(
        HEBEI_HOST="0.0.0.0", HEBEI_OPERATOR_TOKEN=STRONG_OPERATOR, HEBEI_SERVICE_TOKEN=STRONG
    )
    assert config.host == "0.0.0.0" and config.service_token == STRONG
    assert from_env(HEBEI_HOST="127.0.0.1").service_token is None  # loopback: optional


def test_tls_needs_both_files() -> None:
    certs = Path(__file__).resolve().parents[2] / "integration" / "common" / "certs"
    cert, key = certs / "server.pem", certs / "server.key"
    with pytest.raises(ConfigError, match="HEBEI_TLS_KEY is required"):
        from_env(HEBEI_TLS_CERT=str(cert))
    config = from_env(HEBEI_TLS_CERT=str(cert), HEBEI_TLS_KEY=str(key))
    assert config.tls is not None and config.tls.cert_file == cert


@pytest.mark.parametrize(
    ("operator", "service", "refused"),
    [
        ("change-me", STRONG, "HEBEI_OPERATOR_TOKEN refused when listening on 0.0.0.0: it is a placeholder"),
        (STRONG_OPERATOR, "change-me-too", "HEBEI_SERVICE_TOKEN refused when listening on 0.0.0.0: it is a placeholder"),
        ("operator-password-1", STRONG, "HEBEI_OPERATOR_TOKEN refused when listening on 0.0.0.0: it is too easy to guess"),
        (STRONG_OPERATOR, "ab" * 40, "HEBEI_SERVICE_TOKEN refused when listening on 0.0.0.0: it is too easy to guess"),
    ],
)  # fmt: skip
def test_beyond_loopback_placeholder_and_weak_tokens_are_refused(
    operator: str, service: str, refused: str
) -> None:
    with pytest.raises(ConfigError) as error:
        from_env(HEBEI_HOST="0.0.0.0", HEBEI_OPERATOR_TOKEN=operator, HEBEI_SERVICE_TOKEN=service)
    assert str(error.value).startswith(refused) and "\n" not in str(error.value)
    # On loopback only this machine can call: the same tokens are accepted.
    assert from_env(HEBEI_OPERATOR_TOKEN=operator, HEBEI_SERVICE_TOKEN=service).host == "127.0.0.1"
