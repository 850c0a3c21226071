"""The fleet's client (:mod:`hebei.fleet.client`) queues a seat task by its name, without the
workers' app: the message on the queue is the one the workers' app sends itself (what every
sender sent before the client existed), and a real ``hebei bots worker`` plays the seats it
queues."""

from __future__ import annotations

import json
import time
import types
import uuid
from collections.abc import Iterator

import pytest
from kombu import Message, Queue

import hebei.fleet.client as fleet_client
from hebei.bots import celery_app
from hebei.bots.lease import lease_history
from hebei.fleet.client import producer_app, send_seat
from hebei.fleet.seat_task import TASK_NAME, decode_seat_task, encode_seat_task
from hebei.fleet.settings import current_settings, forget_settings
from hebei.fleet.ticket import SeatTicket
from hebei.v1 import types_pb2 as pb
from tests.integration.bots.conftest import Engine, open_bot_match, token_of

SENT_AT = 1_800_000_000.5
# What differs between any two messages: the task's id (and the ids made of it), the
# broker's delivery tag and the reply queue, which names the sending app.
PER_MESSAGE = {"id", "root_id", "correlation_id", "delivery_tag", "reply_to"}


@pytest.fixture
def private_queues(bots_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A queue prefix no worker reads, for the fleet's client of this test."""
    prefix = f"wire-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("HEBEI_BOTS_QUEUE_PREFIX", prefix)
    forget_settings()
    yield prefix
    monkeypatch.undo()
    forget_settings()


def take(queue: str) -> Message:
    """The next message on ``queue`` (waiting up to 10 s for it), acknowledged."""
    app = producer_app(current_settings())
    deadline = time.monotonic() + 10
    with app.connection_for_read() as conn:
        bound = Queue(queue)(conn.default_channel)
        while (message := bound.get(no_ack=True)) is None:
            assert time.monotonic() < deadline, f"nothing on {queue}"
            time.sleep(0.05)
    return message


def wire(message: Message) -> dict:
    """What a worker reads of ``message``, without what differs between any two messages."""
    headers = {k: v for k, v in message.headers.items() if k not in PER_MESSAGE}
    properties = {k: v for k, v in message.properties.items() if k not in PER_MESSAGE}
    return {
        "body": message.body,
        "content_type": message.content_type,
        "content_encoding": message.content_encoding,
        "headers": headers,
        "properties": properties,
    }


def test_the_client_sends_the_message_the_workers_app_sends(
    private_queues: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ticket = SeatTicket("table:50051", "m-wire", 2, "tok", "expert", 4, 2**40 + 3, 0.5, True)
    queue = f"{private_queues}.expert"
    # The workers' own app, as every sender queued seats before the fleet's client.
    celery_app.play_seat.apply_async(args=(encode_seat_task(ticket, SENT_AT),), queue=queue)
    before = take(queue)
    monkeypatch.setattr(fleet_client, "time", types.SimpleNamespace(time=lambda: SENT_AT))
    task_id = send_seat(ticket)
    after = take(queue)

    assert after.headers["id"] == task_id and after.headers["task"] == TASK_NAME
    assert {"task", "argsrepr", "origin", "timelimit", "retries"} <= set(wire(after)["headers"])
    assert wire(after) == wire(before)
    assert after.content_type == "application/json" and after.headers["ignore_result"] is True
    args, kwargs, _embed = json.loads(after.body)
    assert kwargs == {}
    payload = args[0]
    assert payload["__type__"] == "base64"  # kombu's JSON form of bytes that are not UTF-8
    assert decode_seat_task(after.decode()[0][0]) == (ticket, SENT_AT)


def test_a_seat_task_from_the_client_is_played_by_a_real_worker(
    engine: Engine, start_worker, lease_redis
) -> None:
    start_worker(sessions=4, policies="random,efficiency,expert")
    match_id = open_bot_match(engine, hands=1, seed=21, per_decision=2.0)
    for seat, policy in enumerate(("expert", "efficiency", "random", "expert")):
        ticket = SeatTicket(engine.address, match_id, seat, token_of(match_id, seat), policy)
        send_seat(ticket)

    info = engine.wait_for(match_id, lambda i: i.status == pb.MATCH_STATUS_FINISHED, timeout=90)

    assert info.hands_played == 1
    assert not [e for e in engine.events(match_id) if e.auto_played], "a seat was not played"
    for seat in range(4):
        events = [r.event for r in lease_history(lease_redis, match_id, seat)]
        assert events[:1] == ["acquire"], (seat, events)
