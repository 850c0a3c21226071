"""Which tournaments a matchmaking replica drives (hebei.matchmaking.driving), over stand-ins of
the ownership's replica and directory: a fair share each, finished work released, quick play
outside the share, a lost lease refused at once; and the replica settings' defaults."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from hebei.common.config import ConfigError
from hebei.common.replica_identity import default_address, default_replica_id
from hebei.matchmaking.driving import (
    QUICK_PLAY,
    Driving,
    LeaseLost,
    fair_target,
    key_of,
    preference,
)
from hebei.matchmaking.service import MatchmakingConfig


@dataclass
class Locks:
    """The advisory locks every stand-in replica shares: key -> holder."""

    holders: dict[str, str] = field(default_factory=dict)
    live: list[str] = field(default_factory=list)


@dataclass
class FakeReplica:
    replica_id: str
    locks: Locks
    alive: bool = True

    def held(self) -> frozenset[str]:
        if not self.alive:
            return frozenset()
        return frozenset(k for k, who in self.locks.holders.items() if who == self.replica_id)

    def holds(self, key: str) -> bool:
        return key in self.held()

    def try_claim(self, key: str) -> bool:
        if not self.alive or self.locks.holders.get(key, self.replica_id) != self.replica_id:
            return False
        self.locks.holders[key] = self.replica_id
        return True

    def release(self, key: str) -> bool:
        return self.locks.holders.pop(key, None) is not None


@dataclass
class FakeInfo:
    replica_id: str


@dataclass
class FakeHolder:
    replica_id: str


@dataclass
class FakeDirectory:
    locks: Locks

    def live_replicas(self) -> list[FakeInfo]:
        return [FakeInfo(r) for r in self.locks.live]

    def lease_owner(self, key: str) -> FakeHolder | None:
        who = self.locks.holders.get(key)
        return FakeHolder(who) if who else None


def _replica(locks: Locks, name: str) -> Driving:
    locks.live.append(name)
    driving = Driving(FakeReplica(name, locks), FakeDirectory(locks))
    return driving


def _claim(driving: Driving, wanted) -> frozenset[str]:
    driving._live_read = float("-inf")  # read the live replicas again
    return driving.claim(wanted)[0]


def test_the_fair_share_is_the_ceiling_of_the_tournaments_per_live_replica() -> None:
    assert fair_target(4, 2) == 2 and fair_target(3, 2) == 2 and fair_target(1, 3) == 1
    assert fair_target(5, 0) == 5  # nobody registered yet: this replica alone
    assert preference("t-1", "mm-a") == preference("t-1", "mm-a") != preference("t-1", "mm-b")
    assert key_of("") == QUICK_PLAY and key_of("t-1") == "t-1"


def test_two_replicas_split_the_tournaments_and_quick_play_is_outside_the_share() -> None:
    locks = Locks()
    a, b = _replica(locks, "mm-a"), _replica(locks, "mm-b")
    wanted = {"t-1", "t-2", "t-3", "t-4", QUICK_PLAY}
    held_a = _claim(a, wanted)
    held_b = _claim(b, wanted)
    assert QUICK_PLAY in held_a and QUICK_PLAY not in held_b
    assert len(held_a - {QUICK_PLAY}) == 2 and len(held_b) == 2
    assert not (held_a & held_b)
    assert b.retry_soon is False  # the rest is held by a live replica


def test_a_replica_hands_over_its_excess_when_another_comes_and_takes_all_when_alone() -> None:
    locks = Locks()
    a = _replica(locks, "mm-a")
    wanted = {"t-1", "t-2", QUICK_PLAY}
    held, acquired = a.claim(wanted)
    assert held == acquired == frozenset(wanted)
    b = _replica(locks, "mm-b")
    assert _claim(a, wanted) - {QUICK_PLAY} != {"t-1", "t-2"}  # one handed over
    assert QUICK_PLAY in _claim(a, wanted)  # quick play is never handed over
    assert len(_claim(b, wanted)) == 1
    locks.live.remove("mm-a")
    a.replica.alive = False
    locks.holders = {k: v for k, v in locks.holders.items() if v != "mm-a"}  # its locks freed
    assert _claim(b, wanted) == frozenset(wanted)


def test_work_that_is_over_is_released_and_a_lost_lease_is_refused_at_once() -> None:
    locks = Locks()
    a = _replica(locks, "mm-a")
    a.claim({"t-1", "t-2"})
    assert _claim(a, {"t-2"}) == {"t-2"} and "t-1" not in locks.holders
    a.fence("t-2")
    lost: list[frozenset[str]] = []
    a._on_lost = lost.append
    a.replica.alive = False  # the session is gone: held() says no before the callback
    assert not a.drives("t-2")
    with pytest.raises(LeaseLost):
        a.fence("t-2")
    a.lost(frozenset({"t-2"}))
    assert lost == [frozenset({"t-2"})]


def test_the_replica_settings_and_their_defaults() -> None:
    env = {
        "HEBEI_MATCHMAKING_TABLE_ADDRESS": "table:50051",
        "HEBEI_MATCHMAKING_LEDGER_ADDRESS": "ledger:50053",
        "HEBEI_OPERATOR_TOKEN": "op-token-0123456789",
    }
    config = MatchmakingConfig.from_env(env)
    assert config.replica_id is None and config.advertise_address is None
    assert config.ownership_schema == "matchmaking_ownership"
    config = MatchmakingConfig.from_env(
        env
        | {
            "HEBEI_MATCHMAKING_REPLICA_ID": "mm-1",
            "HEBEI_MATCHMAKING_ADVERTISE_ADDRESS": "mm-1.matchmaking:50052",
        }
    )
    assert (config.replica_id, config.advertise_address) == ("mm-1", "mm-1.matchmaking:50052")
    with pytest.raises(ConfigError, match="SCHEMA"):
        MatchmakingConfig.from_env(env | {"HEBEI_MATCHMAKING_SCHEMA": "m" * 60})
    assert default_replica_id("matchmaking", 50052).startswith("matchmaking-")
    assert default_replica_id("matchmaking", 50052).endswith("-50052")
    assert default_replica_id("matchmaking", 0) != default_replica_id("matchmaking", 0)
    assert default_address("10.0.0.5", 50052) == "10.0.0.5:50052"
    assert default_address("::1", 50052) == "[::1]:50052"
    assert not default_address("0.0.0.0", 50052).startswith("0.0.0.0")
