"""Where a sender finds the fleet: the broker, the queue of a policy, the registry's Redis."""

from __future__ import annotations

import pytest

from hebei.common.config import ConfigError
from hebei.fleet.settings import FleetSettings


def test_queues_are_named_by_prefix_and_policy() -> None:
    assert FleetSettings.from_env({}).queue_of("expert") == "bots.expert"
    settings = FleetSettings.from_env({"HEBEI_BOTS_QUEUE_PREFIX": "blue"})
    assert settings.queue_of("random") == "blue.random"
    assert settings.unacked_keys() == {
        "unacked_key": "blue.unacked",
        "unacked_index_key": "blue.unacked_index",
        "unacked_mutex_key": "blue.unacked_mutex",
    }


def test_the_registry_is_the_redis_broker_unless_given() -> None:
    redis_broker = FleetSettings.from_env({"HEBEI_BROKER_URL": "redis://h:1/0"})
    assert redis_broker.resolved_redis_url() == "redis://h:1/0"
    rabbit = {"HEBEI_BROKER_URL": "amqp://guest:guest@h:5672//"}
    with pytest.raises(ConfigError, match="HEBEI_BOTS_REDIS_URL is required with an amqp"):
        FleetSettings.from_env(rabbit).resolved_redis_url()
    given = FleetSettings.from_env({**rabbit, "HEBEI_BOTS_REDIS_URL": "redis://h:2/0"})
    assert given.resolved_redis_url() == "redis://h:2/0"
    assert given.resolved_broker_url() == "amqp://guest:guest@h:5672//"
