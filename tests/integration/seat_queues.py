"""The fleet's queues between tests: a test's seat tasks must not outlive it."""

from __future__ import annotations

import redis

from hebei.bots import celery_app
from hebei.bots.policies import POLICIES


def purge_seat_queues() -> None:
    """Drop the seat tasks no worker took: a test's stack is gone afterwards, and a later
    test's worker must not spend its sessions trying to reach it (a session retries an engine
    that does not answer for two minutes). That includes the tasks a stopped worker left
    unacknowledged: with a Redis broker the next worker would restore them to the queues (a
    test's stale seat once took one of four sessions, and the table auto-played the fourth
    seat, whose task waited for it); RabbitMQ returns them at once, to the queues purged."""
    config = celery_app.settings()
    broker = config.resolved_broker_url()
    if broker.startswith(("redis://", "rediss://", "unix://")):
        client = redis.Redis.from_url(broker)
        try:
            client.delete(f"{config.queue_prefix}.unacked", f"{config.queue_prefix}.unacked_index")
        finally:
            client.close()
    with celery_app.app.connection_for_write() as conn:
        for policy in POLICIES:
            channel = conn.channel()
            try:
                channel.queue_purge(config.queue_of(policy))
            except conn.channel_errors:
                pass  # never declared: nothing to drop
            finally:
                channel.close()
