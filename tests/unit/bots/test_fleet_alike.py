"""What the fleet's clients know of the workers as plain data (hebei.fleet) is what the
workers do: the catalogue names exactly the policies they play, with their levels and default
levels; the workers' settings name the queues, the broker and the registry as the clients do."""

from __future__ import annotations

from hebei.bots.config import BotsConfig
from hebei.bots.lease import PREFIX as LEASE_PREFIX
from hebei.bots.policies import POLICIES, make_policy
from hebei.bots.policies import expert as expert_policy
from hebei.fleet.catalogue import DEFAULT_LEVEL, POLICY_LEVELS, POLICY_NAMES
from hebei.fleet.registry import WORKERS_KEY
from hebei.fleet.settings import FleetSettings


def test_the_catalogue_names_the_workers_policies_in_their_order() -> None:
    assert tuple(POLICIES) == POLICY_NAMES


def test_each_policy_plays_every_level_of_the_catalogue_and_no_other() -> None:
    assert POLICY_LEVELS["expert"] == tuple(sorted(expert_policy.LEVELS))
    assert DEFAULT_LEVEL["expert"] == expert_policy.DEFAULT_LEVEL
    for name in POLICY_NAMES:
        assert DEFAULT_LEVEL[name] in POLICY_LEVELS[name]
        for level in POLICY_LEVELS[name]:
            assert make_policy(name, level).level == level
        assert make_policy(name).level == DEFAULT_LEVEL[name]


def test_the_workers_read_the_fleets_place_as_its_clients_do() -> None:
    env = {
        "HEBEI_BROKER_URL": "redis://h:1/0",
        "HEBEI_BOTS_REDIS_URL": "redis://h:2/0",
        "HEBEI_BOTS_QUEUE_PREFIX": "blue",
    }
    worker = BotsConfig.from_env(env)
    assert worker.fleet == FleetSettings.from_env(env)
    assert worker.queue_of("expert") == FleetSettings.from_env(env).queue_of("expert")
    assert BotsConfig.from_env({}).fleet == FleetSettings.from_env({})


def test_the_worker_registry_lives_under_the_seat_leases_prefix() -> None:
    assert f"{LEASE_PREFIX}:workers" == WORKERS_KEY
