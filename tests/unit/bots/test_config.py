"""The fleet's settings: where the seat leases live."""

import pytest

from hebei.bots.config import BotsConfig
from hebei.common.config import ConfigError


def test_a_redis_broker_also_holds_the_leases():
    config = BotsConfig.from_env({"HEBEI_BROKER_URL": "redis://127.0.0.1:6379/0"})
    assert config.resolved_redis_url() == "redis://127.0.0.1:6379/0"


def test_a_rabbitmq_broker_needs_a_shared_redis_for_the_leases():
    config = BotsConfig.from_env({"HEBEI_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//"})
    with pytest.raises(ConfigError, match="HEBEI_BOTS_REDIS_URL is required with an amqp broker"):
        config.resolved_redis_url()
    given = BotsConfig.from_env(
        {
            "HEBEI_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//",
            "HEBEI_BOTS_REDIS_URL": "redis://h:1/2",
        }
    )
    assert given.resolved_redis_url() == "redis://h:1/2"
    assert given.resolved_broker_url().startswith("amqp://")
