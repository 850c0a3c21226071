"""Is a secret good enough for a service reachable from other machines?

A token or key set by hand is refused beyond loopback when it is a known placeholder (the
documentation's example values, ``change-me`` and the like) or when it is too easy to guess:
its estimated entropy (:func:`entropy_bits`) is below :data:`MIN_BITS`. ``openssl rand -hex
32`` (about 240 bits by this estimate) and ``secrets.token_urlsafe(32)`` (about 200) pass; a
word, a name, a repeated pattern or a short password do not. On loopback nothing is checked: only this
machine can call, and ``hebei up`` makes its own random tokens.
"""

from __future__ import annotations

import collections
import math

# The least estimated entropy of an operator token, a service token or the log key.
MIN_BITS = 96

# Parts of a value that mark it as a placeholder (compared without case).
PLACEHOLDER_MARKS = (
    "change-me",
    "changeme",
    "change_me",
    "replace-me",
    "replaceme",
    "placeholder",
    "example",
    "your-",
    "xxxxxxxx",
)


def _period(value: str) -> str:
    """The shortest prefix that repeated gives ``value`` (``"abcabcab"`` -> ``"abc"``)."""
    for size in range(1, len(value)):
        if all(value[i] == value[i % size] for i in range(size, len(value))):
            return value[:size]
    return value


def entropy_bits(value: str) -> float:
    """An estimate of how many bits guessing ``value`` takes: one period of a repeating value,
    less the characters that only continue a run (``abcd``, ``1357``, ``aaaa``), times the
    Shannon entropy of its characters. A random string keeps nearly all of its length; a
    word, a repetition or a sequence does not."""
    core = _period(value)
    if not core:
        return 0.0
    counts = collections.Counter(core)
    size = len(core)
    per_char = -sum(n / size * math.log2(n / size) for n in counts.values())
    runs = sum(
        1
        for i in range(2, size)
        if ord(core[i]) - ord(core[i - 1]) == ord(core[i - 1]) - ord(core[i - 2])
    )
    return (size - runs) * per_char


def weakness(value: str) -> str | None:
    """Why ``value`` is not fit to be a secret beyond loopback, or None when it is."""
    lowered = value.lower()
    for mark in PLACEHOLDER_MARKS:
        if mark in lowered:
            return f"it is a placeholder (it contains {mark!r}): set a secret of your own"
    bits = entropy_bits(value)
    if bits < MIN_BITS:
        return (
            f"it is too easy to guess (about {bits:.0f} bits, at least {MIN_BITS} needed): "
            "use e.g. `openssl rand -hex 32`"
        )
    return None
