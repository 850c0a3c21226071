"""The key that signs the table engine's event logs (:mod:`hebei.rules.chain`).

``HEBEI_TABLE_LOG_KEY`` is the operator's secret (at least 32 characters, e.g. ``openssl rand
-hex 32``); ``hebei replay --key-file`` verifies logs with the same text. It must outlive the
engine: a log signed before a restart is verified after it (and a resumed match goes on with
the same key). An engine listening beyond loopback (production) must be given it; on loopback
(the local stack, ``hebei play``, tests) an engine without one keeps its key in
``<data dir>/table-log.key`` (mode 0600), created once and read by every later start.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from hebei.common.config import ConfigError, EnvReader, is_loopback
from hebei.common.secrets_check import weakness
from hebei.rules.chain import parse_key

KEY_FILE = "table-log.key"
VARIABLE = "HEBEI_TABLE_LOG_KEY"


def log_key_from_env(read: EnvReader, host: str) -> bytes | None:
    """``HEBEI_TABLE_LOG_KEY``; None when unset on loopback (the engine then uses the data
    directory's key, :func:`local_log_key`); ConfigError when unset beyond loopback."""
    raw = read.optional_text("LOG_KEY")
    if raw is None:
        _require_on(host)
        return None
    if not is_loopback(host) and (why := weakness(raw)) is not None:
        raise ConfigError(f"{read.source('LOG_KEY')} refused when listening on {host}: {why}")
    try:
        return parse_key(raw)
    except ValueError as exc:
        raise ConfigError(f"{read.source('LOG_KEY')}: {exc}") from None


def local_log_key(host: str, data_dir: Path | None = None) -> bytes:
    """The key kept in ``<data dir>/table-log.key``, created when missing; ConfigError when
    ``host`` is beyond loopback (there the operator must hold the key)."""
    _require_on(host)
    if data_dir is None:
        from hebei.common.embedded import default_data_dir

        data_dir = default_data_dir()
    path = data_dir / KEY_FILE
    try:
        if not path.exists():
            _create(path)
        return parse_key(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ConfigError(
            f"{VARIABLE} is not set and the key file {path} is unusable: {detail}"
        ) from None


def _require_on(host: str) -> None:
    if not is_loopback(host):
        raise ConfigError(
            f"{VARIABLE} is required when listening on {host} (not loopback): the secret that "
            "signs the event logs, kept by the operator (e.g. openssl rand -hex 32)"
        )


def _create(path: Path) -> None:
    """Write a fresh key to ``path`` atomically: another engine starting at the same moment
    either writes it first (and both read its key) or finds it complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(secrets.token_hex(32) + "\n")
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)  # never replaces a key another engine wrote
    finally:
        temporary.unlink(missing_ok=True)
