"""The Celery app of the bot fleet: one task plays one seat of one match from join to end.

Reliability (ARCHITECTURE.md, issue 6):

- ``acks_late`` + ``task_reject_on_worker_lost``: a seat task is acknowledged only when its
  session ends, so a worker that dies mid-match leaves it to be delivered again;
- the broker's visibility timeout (``HEBEI_BOTS_VISIBILITY_TIMEOUT``, default 2 h) must exceed
  the longest match: that is when Redis hands an unacknowledged task to another worker;
- prefetch 1 per slot (``worker_prefetch_multiplier = 1``): a worker reserves only what it
  can start;
- idempotent seat join: the task first takes the seat's lease (:mod:`hebei.bots.lease`); a
  task for a seat a live session holds exits (``seat_held``), one whose holder died takes
  the seat over with a higher fencing token;
- a worker asked to stop hands its seats back (the task is rejected and requeued, the lease
  released) so another worker continues them at once.

Broker: ``HEBEI_BROKER_URL`` (Redis or RabbitMQ), else the embedded Redis. The configuration is
read lazily, when the app first needs it, so importing this module starts nothing. Senders
queue seat tasks with :mod:`hebei.fleet.client`, by the task's name, without this module; the
task's argument is the contract of :mod:`hebei.fleet.seat_task`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import time
from typing import Any

import redis
import redis.asyncio
from celery import Celery, signals
from celery.exceptions import Reject

from hebei.bots import metrics
from hebei.bots.config import BotsConfig
from hebei.bots.lease import SeatLease
from hebei.bots.policies import make_policy
from hebei.bots.session import Outcome, SeatSession
from hebei.common.heap import settle_heap
from hebei.common.threads import name_os_threads
from hebei.fleet.registry import WORKER_TTL, WORKERS_KEY, registry_client
from hebei.fleet.seat_task import TASK_NAME, decode_seat_task

log = logging.getLogger(__name__)

app = Celery("hebei.bots", set_as_current=False)
_settings: dict[str, BotsConfig] = {}
_redis: dict[str, Any] = {}
_shutdown = threading.Event()


def settings() -> BotsConfig:
    """The fleet settings, read from the environment once per process."""
    if "config" not in _settings:
        _settings["config"] = BotsConfig.from_env()
    return _settings["config"]


def lease_client() -> redis.Redis:
    """The Redis client of the seat leases and the worker registry (one per process)."""
    return registry_client(settings().fleet)


def async_lease_client() -> redis.asyncio.Redis:
    """The same Redis for the seat sessions' event loop (it records each answer there)."""
    if "async" not in _redis:
        _redis["async"] = redis.asyncio.Redis.from_url(
            settings().resolved_redis_url(), socket_timeout=5, health_check_interval=30
        )
    return _redis["async"]


@app.on_configure.connect
def _configure(sender: Celery, **_: Any) -> None:
    config = settings()
    sender.conf.update(
        broker_url=config.resolved_broker_url(),
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "visibility_timeout": config.visibility_timeout,
            "unacked_restore_interval": config.restore_interval,
            "unacked_restore_throttle": 1,
            **config.fleet.unacked_keys(),  # one hash of unacknowledged tasks per fleet
        },
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_ignore_result=True,
        worker_prefetch_multiplier=1,
        worker_cancel_long_running_tasks_on_connection_loss=False,
        task_default_queue=config.queue_of("expert"),
        task_serializer="json",
        accept_content=["json"],
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )


@app.task(name=TASK_NAME, bind=True, acks_late=True, reject_on_worker_lost=True)
def play_seat(self: Any, ticket: bytes | dict, sent_at: float | None = None) -> dict:
    """Play one seat of one match to its end (see the module doc); ``ticket`` is the bytes
    of a ``hebei.v1.SeatTask`` (:mod:`hebei.bots.seat_task`)."""
    try:
        seat, sent_at = decode_seat_task(ticket, sent_at)
    except ValueError as exc:
        metrics.FAILURES.labels("invalid_ticket").inc()
        log.error("seat task refused: %s", exc)
        return {"outcome": "invalid_ticket", "detail": str(exc)}
    if sent_at is not None:
        metrics.QUEUE_WAIT_SECONDS.labels(seat.policy).observe(max(0.0, time.time() - sent_at))
    config = settings()
    client = lease_client()
    owner = f"{self.request.hostname or socket.gethostname()}/{os.getpid()}"
    lease = SeatLease(
        client,
        seat.match_id,
        seat.seat,
        owner,
        ttl=config.lease_seconds,
        aclient=async_lease_client(),
    )
    try:
        acquired = lease.acquire()
        # A broker that redelivers at once (RabbitMQ, when a worker's connection drops) can
        # hand us the seat while the dead holder's lease has not expired yet: a live holder
        # renews its lease, a dead one's runs out within its ttl.
        deadline = time.monotonic() + 1.5 * config.lease_seconds
        while not acquired and time.monotonic() < deadline:
            time.sleep(config.lease_seconds / 5)
            acquired = lease.acquire()
    except redis.RedisError as exc:  # the lease store is down: try again later
        metrics.FAILURES.labels("lease_store").inc()
        retry = self.retry(exc=exc, countdown=min(30, 2**self.request.retries), max_retries=20)
        raise retry from exc
    if not acquired:
        metrics.REDELIVERIES.labels("seat_held").inc()
        log.info("seat %s of %s is held by %s", seat.seat, seat.match_id, lease.holder())
        return {"outcome": "seat_held", "holder": lease.holder()}
    if lease.fence > 1:
        metrics.REDELIVERIES.labels("took_over").inc()
    lease.start_heartbeat()
    try:
        policy = make_policy(seat.policy, seat.level, seed=seat.seed)
        result = SeatSession(seat, policy, lease=lease, stop=_shutdown, tls=config.client_tls).run()
    finally:
        lease.release()
    log.info(
        "seat %s of %s: %s after %d decisions",
        seat.seat,
        seat.match_id,
        result.outcome.value,
        result.decisions,
    )
    if result.outcome is Outcome.STOPPED:
        raise Reject("worker stopping: the seat goes back to the queue", requeue=True)
    return {"fence": lease.fence, **result.to_json()}


# ---------------------------------------------------------------------- worker lifecycle


def _register(hostname: str, sessions: int) -> None:
    config = settings()
    info = {
        "policies": list(config.policies),
        "pid": os.getpid(),
        "sessions": sessions,
        "started": time.time(),
    }

    def beat() -> None:
        name_os_threads()
        while True:
            info["seen"] = time.time()
            try:
                lease_client().hset(WORKERS_KEY, hostname, json.dumps(info))
            except redis.RedisError as exc:
                log.warning("worker registry: %s", exc)
            sample_queue_lengths([config.queue_of(p) for p in config.policies])
            if _shutdown.wait(WORKER_TTL / 3):
                return

    threading.Thread(target=beat, name="bots-registry", daemon=True).start()


def sample_queue_lengths(queues: list[str]) -> None:
    """Set ``hebei_bot_queue_length`` of each queue from the broker (Redis or RabbitMQ): the
    seat tasks no worker has reserved yet. A queue the broker does not know is empty."""
    _SAMPLER.sample(queues)


class _QueueSampler:
    """The broker connection and channel the queue lengths are read over, kept from one beat
    to the next (a connection and a channel per queue each beat cost ~7 ms of CPU for three
    queues on Redis; over a kept channel 0.6). A channel the broker closed (RabbitMQ closes
    it on a queue it does not know) is opened again; any other failure drops the connection,
    and the next beat connects again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._app: Celery | None = None
        self._conn: Any = None
        self._channel: Any = None

    def sample(self, queues: list[str]) -> None:
        with self._lock:
            try:
                self._sample(queues)
            except Exception as exc:  # the broker is out of reach: the next beat tries again
                self._close()
                log.warning("queue lengths: %s", exc)

    def _sample(self, queues: list[str]) -> None:
        if self._app is not app:  # another app (tests): its own broker
            self._close()
            self._app = app
        if self._conn is None:
            self._conn = app.connection_for_read()
        conn = self._conn
        for queue in queues:
            if self._channel is None:
                self._channel = conn.channel()
            channel = self._channel
            try:
                length = channel.queue_declare(queue=queue, passive=True).message_count
            except conn.channel_errors:  # not declared (Redis: an empty list)
                length = 0
                if getattr(channel, "closed", False) or not getattr(channel, "is_open", True):
                    self._channel = None
            metrics.QUEUE_LENGTH.labels(queue).set(length)

    def _close(self) -> None:
        channel, conn = self._channel, self._conn
        self._channel = self._conn = None
        for closable in (channel, conn):
            if closable is not None:
                with contextlib.suppress(Exception):
                    closable.close()


_SAMPLER = _QueueSampler()


def _warm(hands: int) -> None:
    """Fill the policies' tables in a thread, then settle the heap
    (:func:`hebei.common.heap.settle_heap`): a full collection no longer walks the tables, and
    so no longer stalls every seat of the process's event loop for a long moment (measured:
    up to 200 ms on a loaded machine, the seat round trip's p99)."""
    from hebei.bots.player import warm_policies

    def warm() -> None:
        name_os_threads()
        try:
            warm_policies(0, hands)
        except Exception:  # the seats play on, the tables filling as they go
            log.exception("the policies' warm-up failed")
        settle_heap()
        metrics.WARM.set(1)  # done (the stack bench waits for it before measuring)

    threading.Thread(target=warm, name="bots-warm", daemon=True).start()


@signals.worker_ready.connect
def _on_ready(sender: Any = None, **_: Any) -> None:
    config = settings()
    hostname = getattr(sender, "hostname", None) or socket.gethostname()
    _register(hostname, int(getattr(sender.controller, "concurrency", 0) or 0) if sender else 0)
    if config.metrics_port is not None:
        from hebei.common.metrics import start_metrics_server

        _server, port = start_metrics_server(config.metrics_port, config.metrics_host)
        log.info("metrics on :%d/metrics", port)
    if config.warm_hands:
        _warm(config.warm_hands)
    else:
        metrics.WARM.set(1)
    log.info("bot worker %s serves %s", hostname, ", ".join(config.policies))


@signals.worker_shutting_down.connect
def _on_shutting_down(**_: Any) -> None:
    _shutdown.set()


@signals.worker_shutdown.connect
def _on_shutdown(sender: Any = None, **_: Any) -> None:
    hostname = getattr(sender, "hostname", None)
    if hostname:
        with contextlib.suppress(redis.RedisError):
            lease_client().hdel(WORKERS_KEY, hostname)
