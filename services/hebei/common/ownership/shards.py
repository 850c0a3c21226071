"""The pure arithmetic of ownership: which shard a key falls in, each replica's fair share, the
order a replica gives up and tries shards, and the advisory-lock keys (standard library only).

- :func:`shard_of`: a key (a match id, say) maps to shard ``H(key) mod shard_count``, where ``H``
  is the first 8 bytes of BLAKE2b (``digest_size=8``) of the key's UTF-8 bytes read as an
  unsigned big-endian integer. It never changes between processes, machines or Python versions
  (unlike ``hash()``), so every replica and every client agrees; changing ``shard_count`` moves
  almost every key, which is why a service's count is fixed (a replica with another count is
  refused at registration).
- :func:`fair_share`: with ``n`` live replicas ordered by replica id, each holds
  ``shard_count // n`` shards and the first ``shard_count % n`` of them one more, so the shares
  sum to ``shard_count`` exactly.
- :func:`shards_to_release` / :func:`shards_to_try`: above its share a replica gives up shards
  not yet serving first, then its highest-numbered ones; below it, it tries the free shards
  starting at an offset derived from its id (so two newcomers do not race for the same ones).
- :func:`lock_key`: a signed 64-bit key for ``pg_try_advisory_lock(bigint)``, from BLAKE2b of
  the schema, service, kind and name, so two schemas or services never share a lock (a
  collision with another 64-bit key in the same database has odds of about n²/2⁶⁴).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Sequence

__all__ = [
    "MAX_KEY_LENGTH",
    "MAX_SHARD_COUNT",
    "fair_share",
    "lock_key",
    "shard_of",
    "shards_to_release",
    "shards_to_try",
    "validate_key",
    "validate_shard",
    "validate_shard_count",
]

MAX_SHARD_COUNT = 1024
"""At most this many shards per service (every replica tries and reads them each beat)."""
MAX_KEY_LENGTH = 200
"""A lease key or a sharded key (a match or tournament id) is 1 to 200 characters."""


def validate_shard_count(shard_count: int, *, allow_zero: bool = False) -> int:
    """``shard_count`` if it is an int in 1..MAX_SHARD_COUNT (0 too with ``allow_zero``: a
    replica of a service that only takes leases), else ValueError saying what is allowed."""
    low = 0 if allow_zero else 1
    if isinstance(shard_count, bool) or not isinstance(shard_count, int):
        raise ValueError(f"shard_count must be an integer, got {shard_count!r}")
    if not low <= shard_count <= MAX_SHARD_COUNT:
        raise ValueError(f"shard_count must be {low} to {MAX_SHARD_COUNT}, got {shard_count}")
    return shard_count


def validate_shard(shard: int, shard_count: int) -> int:
    """``shard`` if it is one of the service's shards (0 to shard_count - 1), else ValueError."""
    if isinstance(shard, bool) or not isinstance(shard, int):
        raise ValueError(f"a shard is an integer, got {shard!r}")
    if not 0 <= shard < shard_count:
        raise ValueError(f"unknown shard {shard}: this service has shards 0 to {shard_count - 1}")
    return shard


def validate_key(key: str, what: str = "key") -> str:
    """``key`` if it is a non-empty string of at most MAX_KEY_LENGTH characters, else ValueError."""
    if not isinstance(key, str) or not key:
        raise ValueError(f"a {what} is a non-empty string, got {key!r}")
    if len(key) > MAX_KEY_LENGTH:
        raise ValueError(f"a {what} has at most {MAX_KEY_LENGTH} characters, got {len(key)}")
    return key


def _digest64(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def shard_of(key: str, shard_count: int) -> int:
    """The shard of ``key``: BLAKE2b-64 of its UTF-8 bytes (big-endian, unsigned) mod the count."""
    validate_key(key)
    return _digest64(key) % validate_shard_count(shard_count)


def fair_share(shard_count: int, live_replica_ids: Sequence[str], replica_id: str) -> int:
    """How many shards ``replica_id`` should hold while ``live_replica_ids`` are live (itself
    among them): ``shard_count // n``, plus one for the first ``shard_count % n`` ids in order."""
    validate_shard_count(shard_count, allow_zero=True)
    ordered = sorted(set(live_replica_ids))
    if replica_id not in ordered:
        raise ValueError(f"replica {replica_id!r} is not among the live replicas {ordered}")
    base, extra = divmod(shard_count, len(ordered))
    return base + (1 if ordered.index(replica_id) < extra else 0)


def shards_to_release(serving: Collection[int], pending: Collection[int], target: int) -> list[int]:
    """The shards to give up to come down to ``target``: pending ones (not serving yet) first,
    then the highest-numbered serving ones."""
    if target < 0:
        raise ValueError(f"a target share is never negative, got {target}")
    excess = len(serving) + len(pending) - target
    if excess <= 0:
        return []
    order = sorted(pending, reverse=True) + sorted(serving, reverse=True)
    return order[:excess]


def shards_to_try(free: Iterable[int], shard_count: int, replica_id: str) -> list[int]:
    """The free shards in the order ``replica_id`` tries them: from its own offset upwards,
    wrapping around."""
    validate_shard_count(shard_count)
    offset = _digest64(f"offset\0{replica_id}") % shard_count
    return sorted(set(free), key=lambda shard: (shard - offset) % shard_count)


def lock_key(schema: str, service: str, kind: str, name: str) -> int:
    """The signed 64-bit advisory-lock key of one thing (``kind`` "replica", "shard" or "lease")."""
    unsigned = _digest64(f"hebei.ownership\0{schema}\0{service}\0{kind}\0{name}")
    return unsigned - (1 << 64) if unsigned >= 1 << 63 else unsigned
