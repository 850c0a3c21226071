"""The pure parts of ownership: the stable hash of keys to shards, fair shares, the order shards
are given up and tried, the lock keys, and the validated timings with their derived bounds."""

from __future__ import annotations

import collections

import pytest

from hebei.common.ownership.shards import (
    MAX_SHARD_COUNT,
    fair_share,
    lock_key,
    shard_of,
    shards_to_release,
    shards_to_try,
    validate_shard,
)
from hebei.common.ownership.timings import Timings


def test_a_key_s_shard_is_pinned_forever() -> None:
    # BLAKE2b-64 of the UTF-8 bytes, big-endian, mod the count: every replica and client, on
    # any machine, agrees; these values must never change (they would move live matches).
    assert [shard_of(key, 64) for key in ("m-1", "m-2", "tournament-7", "雀")] == [53, 62, 60, 37]
    assert shard_of("m-1", 1024) == 821
    assert shard_of("anything", 1) == 0
    assert lock_key("s", "table", "shard", "0") == 5736731925113111316


def test_keys_spread_evenly_over_the_shards() -> None:
    counts = collections.Counter(shard_of(f"match-{n}", 64) for n in range(64_000))
    assert len(counts) == 64
    assert max(counts.values()) < 1.1 * 1000 and min(counts.values()) > 0.9 * 1000


@pytest.mark.parametrize("replicas", [1, 2, 3, 5, 64, 100])
def test_fair_shares_sum_to_the_shard_count_and_differ_by_at_most_one(replicas: int) -> None:
    ids = [f"r{n:03d}" for n in range(replicas)]
    shares = [fair_share(64, ids, replica) for replica in ids]
    assert sum(shares) == 64
    assert max(shares) - min(shares) <= 1
    assert shares == sorted(shares, reverse=True)  # the first ids in order take the extra ones


def test_three_replicas_share_64_as_22_21_21() -> None:
    ids = ["b", "c", "a"]
    assert [fair_share(64, ids, r) for r in ("a", "b", "c")] == [22, 21, 21]


def test_a_replica_gives_up_pending_shards_first_then_its_highest() -> None:
    assert shards_to_release({1, 5, 9}, {7: 0.0}, 2) == [7, 9]
    assert shards_to_release({1, 5}, {}, 2) == []
    assert shards_to_release({1, 5}, {}, 0) == [5, 1]


def test_replicas_try_free_shards_from_their_own_offsets() -> None:
    free = list(range(64))
    first = shards_to_try(free, 64, "a")
    assert sorted(first) == free
    assert first != shards_to_try(free, 64, "b")
    assert shards_to_try(free, 64, "a") == first  # stable
    assert shards_to_try([3, 3, 4], 64, "a") in ([3, 4], [4, 3])


def test_lock_keys_are_signed_64_bit_and_distinct_per_schema_service_and_kind() -> None:
    keys = {
        lock_key(schema, service, kind, name)
        for schema in ("s1", "s2")
        for service in ("table", "matchmaking")
        for kind in ("replica", "shard", "lease")
        for name in ("0", "1")
    }
    assert len(keys) == 24
    assert all(-(2**63) <= key < 2**63 for key in keys)
    assert any(key < 0 for key in keys)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: shard_of("m", 0), "shard_count must be 1 to 1024, got 0"),
        (lambda: shard_of("m", -3), "shard_count must be 1 to 1024, got -3"),
        (lambda: shard_of("m", MAX_SHARD_COUNT + 1), "shard_count must be 1 to 1024"),
        (lambda: shard_of("m", 2.5), "shard_count must be an integer"),
        (lambda: shard_of("", 64), "a key is a non-empty string"),
        (lambda: shard_of("x" * 201, 64), "a key has at most 200 characters"),
        (lambda: validate_shard(64, 64), "unknown shard 64: this service has shards 0 to 63"),
        (lambda: validate_shard(-1, 64), "unknown shard -1"),
        (lambda: fair_share(64, ["a"], "b"), "replica 'b' is not among the live replicas"),
        (lambda: fair_share(-1, ["a"], "a"), "shard_count must be 0 to 1024, got -1"),
        (lambda: shards_to_release({1}, {}, -1), "a target share is never negative"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(call, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        call()


def test_the_default_timings_bound_takeover_under_5_seconds() -> None:
    timings = Timings()
    assert timings.validity_seconds == 2.5
    assert timings.takeover_grace_seconds == pytest.approx(2.6)
    assert timings.takeover_bound_seconds == pytest.approx(3.6)
    assert timings.takeover_bound_seconds <= 5


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"heartbeat_seconds": -1}, "heartbeat_seconds must be 0.05 to 60, got -1"),
        ({"statement_timeout_seconds": 0}, "statement_timeout_seconds must be 0.05 to 60"),
        ({"keepalive_count": -2}, "keepalive_count must be 1 to 3600, got -2"),
        ({"keepalive_idle_seconds": 1.5}, "keepalive_idle_seconds must be an integer"),
        ({"check_seconds": 0.5, "heartbeat_seconds": 0.4}, "check_seconds .* must be below"),
        ({"server_idle_timeout_seconds": 2}, "server_idle_timeout_seconds .* must exceed"),
        ({"heartbeat_seconds": "1"}, "heartbeat_seconds must be a number"),
    ],
)
def test_bad_timings_are_refused(overrides: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Timings(**overrides)
