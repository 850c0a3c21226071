"""The client that queues seat tasks on the bot fleet, by task name.

:func:`send_seat` checks the seat's policy and level against the catalogue, then publishes
the task :data:`~hebei.fleet.seat_task.TASK_NAME` with its one argument, the ``SeatTask``
bytes, on the queue of the seat's policy. It does so with a Celery app of its own that only
sends (it registers no task and imports nothing of the workers), configured as the workers'
app is where a message depends on it (JSON serializer, results ignored, the fleet's Redis
keys): the message on the queue is the one the workers' app would send itself, and a test
compares the two.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from celery import Celery

from hebei.fleet.catalogue import resolve_level
from hebei.fleet.seat_task import TASK_NAME, encode_seat_task
from hebei.fleet.settings import FleetSettings, current_settings
from hebei.fleet.ticket import SeatTicket

__all__ = ["producer_app", "send_seat"]

_producers: dict[FleetSettings, Celery] = {}
_producers_lock = threading.Lock()


def producer_app(settings: FleetSettings) -> Celery:
    """The sending Celery app of the fleet at ``settings`` (one per process and fleet; the
    broker is reached on the first send, the embedded Redis started then if none is set)."""
    with _producers_lock:
        app = _producers.get(settings)
        if app is None:
            app = _producers[settings] = Celery("hebei.fleet", set_as_current=False)
            app.conf.update(
                broker_url=settings.resolved_broker_url(),
                broker_transport_options=settings.unacked_keys(),
                task_serializer="json",
                accept_content=["json"],
                task_ignore_result=True,
            )
        return app


def send_seat(ticket: SeatTicket, **options: Any) -> str:
    """Queue a seat task on its policy's queue; returns the task id. ValueError for an
    unknown policy or level, before anything is sent; ``options``: Celery's publishing
    options (``countdown``, ``priority``...)."""
    resolve_level(ticket.policy, ticket.level)
    settings = current_settings()
    result = producer_app(settings).send_task(
        TASK_NAME,
        args=(encode_seat_task(ticket, time.time()),),
        queue=settings.queue_of(ticket.policy),
        ignore_result=True,
        **options,
    )
    return str(result.id)
