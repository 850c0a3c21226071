"""The metrics added for the dashboards and alerts that need the broker: the queue depth each
bot worker samples (what the KEDA trigger reads too)."""

from __future__ import annotations

from celery import Celery

from hebei.bots import celery_app, metrics
from tests.conftest import unique_name


def test_queue_lengths_are_sampled_from_the_broker(broker_url: str, monkeypatch):
    """On either broker (Redis, or RabbitMQ with HEBEI_BROKER_URL=amqp://...): the messages
    are put and taken over kombu, as Celery does."""
    queues = Celery("queues", broker=broker_url, set_as_current=False)
    monkeypatch.setattr(celery_app, "app", queues)
    busy, empty = unique_name("q"), unique_name("q")
    with queues.connection_for_write() as conn:
        tasks = conn.SimpleQueue(busy)
        try:
            for _ in range(3):  # three seat tasks no worker has reserved
                tasks.put({})
            celery_app.sample_queue_lengths([busy, empty])
            assert metrics.QUEUE_LENGTH.labels(busy)._value.get() == 3
            assert metrics.QUEUE_LENGTH.labels(empty)._value.get() == 0  # unknown to the broker
            tasks.get_nowait().ack()  # one message (a consumer would prefetch them all)
            celery_app.sample_queue_lengths([busy])
            assert metrics.QUEUE_LENGTH.labels(busy)._value.get() == 2
        finally:
            tasks.queue(conn.default_channel).delete()
            tasks.close()


def test_an_unreachable_broker_leaves_the_gauges_alone(monkeypatch):
    unreachable = Celery("queues", broker="redis://127.0.0.1:9/0", set_as_current=False)
    unreachable.conf.broker_connection_timeout = 1
    monkeypatch.setattr(celery_app, "app", unreachable)
    metrics.QUEUE_LENGTH.labels("q-unreachable").set(7)
    celery_app.sample_queue_lengths(["q-unreachable"])
    assert metrics.QUEUE_LENGTH.labels("q-unreachable")._value.get() == 7
