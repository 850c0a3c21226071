"""Checks of client-sent text and numbers, shared by every service's request validation.

Every string a client sends is bounded and clean before any work is done with it: no NUL or
other control characters (PostgreSQL refuses NUL in text, and logs should not carry control
codes), a documented maximum length, and ids without spaces or ``:`` (ids are joined with
``:`` in keys such as ``match_id:hand_no``). Error messages never echo a long value whole:
:func:`shown` caps what is quoted.
"""

from __future__ import annotations

import unicodedata

from hebei.common.errors import InvalidArgument

__all__ = [
    "MAX_ID_LENGTH",
    "MAX_NAME_LENGTH",
    "MAX_REASON_LENGTH",
    "MAX_SEED",
    "MAX_TOKEN_LENGTH",
    "MIN_TOKEN_LENGTH",
    "check_duration",
    "check_id",
    "check_int",
    "check_text",
    "check_token",
    "shown",
]

MAX_ID_LENGTH = 128
MAX_NAME_LENGTH = 64
MAX_REASON_LENGTH = 256
MIN_TOKEN_LENGTH = 16
MAX_TOKEN_LENGTH = 256
MAX_SEED = 2**64 - 1  # a seed field of the contracts (uint64)
_SHOWN = 40
_NANOS = 1_000_000_000


def shown(value: object, limit: int = _SHOWN) -> str:
    """``repr(value)``, cut to ``limit`` characters (with an ellipsis) for messages and logs."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _has_control(value: str) -> bool:
    return any(unicodedata.category(c) in ("Cc", "Cs") for c in value)


def check_text(
    field: str, value: str, *, max_length: int, required: bool = False, single_line: bool = True
) -> str:
    """``value`` stripped of surrounding spaces; InvalidArgument when it is empty (and
    ``required``), longer than ``max_length`` characters, or holds control characters."""
    if len(value) > max_length:
        raise InvalidArgument(f"{field} must be at most {max_length} characters, got {len(value)}")
    if "\x00" in value:
        raise InvalidArgument(f"{field} must not contain a NUL character")
    if single_line and _has_control(value):
        raise InvalidArgument(f"{field} must not contain control characters")
    value = value.strip()
    if required and not value:
        raise InvalidArgument(f"{field} is required")
    return value


def check_id(field: str, value: str, *, required: bool = True) -> str:
    """An id: at most :data:`MAX_ID_LENGTH` printable characters without spaces or ``:``."""
    if len(value) > MAX_ID_LENGTH:
        raise InvalidArgument(
            f"{field} must be at most {MAX_ID_LENGTH} characters, got {len(value)}"
        )
    if required and not value:
        raise InvalidArgument(f"{field} is required")
    if any(c.isspace() or c == ":" or not c.isprintable() for c in value):
        raise InvalidArgument(
            f"{field} must be printable, without spaces or ':', got {shown(value)}"
        )
    return value


def check_int(field: str, value: int, *, lo: int, hi: int) -> int:
    """``value`` when ``lo <= value <= hi``, else InvalidArgument naming the bounds."""
    if not lo <= value <= hi:
        raise InvalidArgument(f"{field} must be {lo}-{hi}, got {value}")
    return value


def check_token(
    field: str,
    value: str,
    *,
    min_length: int = MIN_TOKEN_LENGTH,
    max_length: int = MAX_TOKEN_LENGTH,
) -> str:
    """A secret token: ``min_length``-``max_length`` printable characters without spaces.
    The message never quotes the value (it is a secret)."""
    if not min_length <= len(value) <= max_length:
        raise InvalidArgument(
            f"{field} must be {min_length}-{max_length} characters, got {len(value)}"
        )
    if any(c.isspace() or not c.isprintable() for c in value):
        raise InvalidArgument(f"{field} must be printable, without spaces")
    return value


def check_duration(field: str, seconds: int, nanos: int, *, lo: float, hi: float) -> float:
    """A ``google.protobuf.Duration`` (``seconds``, ``nanos``) as seconds, when it is a valid
    Duration (nanos within +-999,999,999 with the sign of seconds) and ``lo <= value <= hi``."""
    if not -_NANOS < nanos < _NANOS or (seconds > 0 > nanos) or (seconds < 0 < nanos):
        raise InvalidArgument(f"{field} is not a valid duration (nanos {nanos})")
    if not lo <= seconds + nanos / _NANOS <= hi:
        raise InvalidArgument(f"{field} must be {lo:g}-{hi:g} seconds, got {shown(seconds)} s")
    return seconds + nanos / _NANOS
