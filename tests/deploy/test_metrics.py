"""The metrics added for the dashboards and alerts that need the broker: the queue depth each
bot worker samples (what the KEDA trigger reads too)."""

from __future__ import annotations

import redis
from celery import Celery

from hebei.bots import celery_app, metrics
from tests.conftest import unique_name


def test_queue_lengths_are_sampled_from_the_broker(broker_url: str, monkeypatch):
    monkeypatch.setattr(
        celery_app, "app", Celery("queues", broker=broker_url, set_as_current=False)
    )
    client = redis.Redis.from_url(broker_url)
    busy, empty = unique_name("q"), unique_name("q")
    client.rpush(busy, *[b"{}"] * 3)  # three seat tasks no worker has reserved
    try:
        celery_app.sample_queue_lengths([busy, empty])
        assert metrics.QUEUE_LENGTH.labels(busy)._value.get() == 3
        assert metrics.QUEUE_LENGTH.labels(empty)._value.get() == 0  # unknown to the broker
        client.lpop(busy)
        celery_app.sample_queue_lengths([busy])
        assert metrics.QUEUE_LENGTH.labels(busy)._value.get() == 2
    finally:
        client.delete(busy)
        client.close()


def test_an_unreachable_broker_leaves_the_gauges_alone(monkeypatch):
    unreachable = Celery("queues", broker="redis://127.0.0.1:9/0", set_as_current=False)
    unreachable.conf.broker_connection_timeout = 1
    monkeypatch.setattr(celery_app, "app", unreachable)
    metrics.QUEUE_LENGTH.labels("q-unreachable").set(7)
    celery_app.sample_queue_lengths(["q-unreachable"])
    assert metrics.QUEUE_LENGTH.labels("q-unreachable")._value.get() == 7
