"""Typed, validated reads of environment variables (:class:`EnvReader`) and the error a
missing or invalid one raises (:class:`ConfigError`, its message one line naming the variable).

Both :mod:`hebei.common.config` (the services' settings) and :mod:`hebei.common.tls` (the TLS
files) read through them; this module imports neither.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class ConfigError(Exception):
    """A missing or invalid configuration value; the message is one line naming it."""


class EnvReader:
    """Typed, validated reads of environment variables.

    ``EnvReader("ledger").port("PORT", 50053)`` reads ``HEBEI_LEDGER_PORT``;
    ``shared=True`` reads ``HEBEI_LEDGER_X`` if set, else ``HEBEI_X``.
    """

    def __init__(self, service: str | None = None, env: Mapping[str, str] | None = None) -> None:
        self.env = os.environ if env is None else env
        self.prefix = f"HEBEI_{service.upper()}_" if service else "HEBEI_"

    def _lookup(self, name: str, shared: bool) -> tuple[str, str | None]:
        own = self.prefix + name
        if own in self.env or not shared:
            return own, self.env.get(own)
        common = "HEBEI_" + name
        return common, self.env.get(common)

    def source(self, name: str, *, shared: bool = False) -> str:
        """The variable a read of ``name`` uses (for messages): ``HEBEI_TABLE_X`` when set (or
        not shared), else ``HEBEI_X``."""
        return self._lookup(name, shared)[0]

    def text(self, name: str, default: str | None = None, *, shared: bool = False) -> str:
        """A string; required (non-empty) when ``default`` is None."""
        var, raw = self._lookup(name, shared)
        if raw is None or raw.strip() == "":
            if default is None:
                raise ConfigError(f"{var} is required but not set")
            return default
        return raw.strip()

    def optional_text(self, name: str, *, shared: bool = False) -> str | None:
        """A string, or None when unset or empty."""
        _var, raw = self._lookup(name, shared)
        return raw.strip() if raw and raw.strip() else None

    def integer(
        self, name: str, default: int, *, lo: int = 0, hi: int = 2**31 - 1, shared: bool = False
    ) -> int:
        """An integer within ``lo..hi``."""
        return self._ranged(name, default, int, f"an integer {lo}-{hi}", lo, hi, shared)

    def port(self, name: str, default: int, *, shared: bool = False) -> int:
        """A TCP port, 0-65535 (0: any free port)."""
        return self.integer(name, default, lo=0, hi=65535, shared=shared)

    def number(
        self, name: str, default: float, *, lo: float = 0.0, hi: float = 1e9, shared: bool = False
    ) -> float:
        """A number within ``lo..hi``."""
        return self._ranged(name, default, float, f"a number {lo:g}-{hi:g}", lo, hi, shared)

    def _ranged(
        self,
        name: str,
        default: Any,
        parse: Callable[[str], Any],
        what: str,
        lo: float,
        hi: float,
        shared: bool,
    ) -> Any:
        var, raw = self._lookup(name, shared)
        if raw is None or raw.strip() == "":
            return default
        try:
            value = parse(raw.strip())
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:
            raise ConfigError(f"{var} must be {what}, got {raw!r}")
        return value

    def flag(self, name: str, default: bool, *, shared: bool = False) -> bool:
        """A boolean: 1/true/yes/on or 0/false/no/off."""
        var, raw = self._lookup(name, shared)
        if raw is None or raw.strip() == "":
            return default
        value = raw.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise ConfigError(f"{var} must be true or false, got {raw!r}")

    def file(self, name: str, *, shared: bool = False) -> Path | None:
        """A path to an existing, readable file, or None when unset."""
        var, raw = self._lookup(name, shared)
        if raw is None or raw.strip() == "":
            return None
        path = Path(raw.strip())
        if not path.is_file() or not os.access(path, os.R_OK):
            raise ConfigError(f"{var} must name a readable file, got {raw!r}")
        return path

    def choice(
        self, name: str, default: str, choices: tuple[str, ...], *, shared: bool = False
    ) -> str:
        """One of ``choices`` (case-insensitive)."""
        var, raw = self._lookup(name, shared)
        if raw is None or raw.strip() == "":
            return default
        value = raw.strip().upper()
        if value not in choices:
            raise ConfigError(f"{var} must be one of {', '.join(choices)}, got {raw!r}")
        return value
