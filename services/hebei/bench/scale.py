"""The scale benchmark at people's pace behind ``hebei bench scale`` (issue 46).

For each number of engine replicas asked for (``table_replicas``, one after another, each on a
fresh stack of its own) it starts the real services as processes
(:func:`hebei.stack.processes.start_stack`: ledger, the engine replicas, matchmaking, bot
workers, on embedded or configured PostgreSQL and Redis), then:

1. once the bot workers have warmed up, notes every component's CPU over
   :data:`IDLE_SECONDS` with no table (its idle use, taken off the per-table costs) and every
   engine replica's memory (its base);
2. opens ``tables`` matches of ``hands`` hands, :data:`BATCH` at a time, each through the router
   (OpenMatch goes to the match's owner), with ``people_per_table`` person seats and bots in the
   others: the bot seats go to the Celery workers as matchmaking sends them (a ``SeatTask`` per
   seat through :mod:`hebei.fleet`, the engine's replicas as its target), the person seats are
   played from this process by scripted people (:mod:`hebei.bench.scale_people`: ``grpc.aio``
   Play streams joining with the seat token, answering every decision after the pace ± a
   seeded jitter); a batch must be playing before the next is opened;
3. warms up for ``warm_up_seconds`` with every table live, then measures ``measure_seconds``:
   the people's seat round trip at the client, the bots' at the engine
   (``hebei_table_decision_answer_seconds{seat_kind="bot"}``), the engine's CPU per replica and
   per live table, its memory per replica and per live table (PSS and RSS, less the base),
   events, hands and settlements a second, the CPU of PostgreSQL, Redis, the bot workers,
   matchmaking, the ledger and this process (the scripted people), PostgreSQL's connections,
   and the errors of the run (from before the first table to the window's end);
4. reads the stack at the window's edges (:mod:`hebei.bench.scale_snapshots`) and turns it
   into the configuration's figures (:mod:`hebei.bench.scale_figures`), its limits and the
   first of them (:mod:`hebei.bench.scale_limits`).

The result projects the last configuration's per-table costs (the most replicas) to
:data:`~hebei.bench.scale_limits.PLAYERS` players, one person and three bots a table and four
people a table.

Each configuration has bot queues of its own (``HEBEI_BOTS_QUEUE_PREFIX``), and its own data:
embedded servers in a fresh folder under ``<data dir>/bench/`` removed afterwards, or, with a
configured PostgreSQL, schemas of its own dropped afterwards (a table left unfinished by one
configuration must not be resumed in the next). The engine's bound on live tables
(``HEBEI_TABLE_MAX_TABLES``) is raised to ``tables`` so one replica may hold them all (the
limits show where the default stops). Logs stay in ``<data dir>/logs/scale-<N>``.
"""

from __future__ import annotations

import math
import os
import secrets
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import psutil

from hebei.bench import scale_limits
from hebei.bench.scale_figures import figures
from hebei.bench.scale_people import (
    JITTER_FRACTION,
    PeopleLoop,
)
from hebei.bench.scale_snapshots import Snapshot, StackParts
from hebei.bench.stack_metrics import (
    run_data_dir,
    wait_workers_warm,
    workers_warm,
)

if TYPE_CHECKING:
    from hebei.stack.processes import Stack

__all__ = [
    "BATCH",
    "MAX_TABLES",
    "ScaleError",
    "ScaleOptions",
    "check_pace",
    "run_scale_bench",
    "worker_plan",
]

MAX_TABLES = 2048  # tables a configuration may open (--tables 1-2048)
BATCH = 16  # tables opened at once; the next batch once these play
SPARE_SESSIONS = 4  # seat sessions a worker process has beyond its share of the bot seats
START_SECONDS = 120.0  # a batch's tables must be playing within this
TICK = 2.0  # seconds between progress lines while waiting or measuring
IDLE_SECONDS = 5.0  # the idle stack's CPU is measured this long before the first table
SCHEMA_VARIABLES = ("HEBEI_LEDGER_SCHEMA", "HEBEI_TABLE_SCHEMA", "HEBEI_MATCHMAKING_SCHEMA")
BOT_PACE_ENV = "HEBEI_TABLE_BOT_PACE_SECONDS"

Status = Callable[[str], None]


class ScaleError(Exception):
    """The benchmark cannot go on (one line: what failed, where)."""


@dataclass(frozen=True, slots=True)
class ScaleOptions:
    """What the benchmark plays (bounds: the CLI's options)."""

    tables: int = 256
    pace: float = 2.0  # seconds a scripted person takes over a decision, ± the jitter
    table_replicas: tuple[int, ...] = (1, 2, 3)
    people_per_table: int = 1
    measure_seconds: float = 120.0
    warm_up_seconds: float = 30.0
    seed: int = 1
    policy: str = "expert"  # the bots' (matchmaking's filler default)
    worker_processes: int = 2  # Celery processes of each bot worker
    max_sessions: int = 1024  # seat sessions a worker process may run (hebei bots worker)
    hands: int = 64  # per match: far longer than the run at people's pace (~2-3 min a hand)


def worker_plan(bot_seats: int, processes: int, max_sessions: int) -> tuple[int, int]:
    """``(bot workers, seat sessions per Celery process)`` for ``bot_seats`` seats at once:
    each process gets its share plus :data:`SPARE_SESSIONS`, and more workers join once a
    process would need more than ``max_sessions`` (0 workers for no bot seat)."""
    if bot_seats <= 0:
        return 0, 1
    room = max(1, max_sessions - SPARE_SESSIONS)
    workers = math.ceil(bot_seats / (processes * room))
    return workers, math.ceil(bot_seats / (workers * processes)) + SPARE_SESSIONS


def engine_bot_pace(env: Mapping[str, str] | None = None) -> float:
    """The engine's bot pace the stack will run with (its environment's, else the default)."""
    from hebei.table.service import DEFAULT_BOT_PACE

    value = (os.environ if env is None else env).get(BOT_PACE_ENV)
    try:
        return float(value) if value else DEFAULT_BOT_PACE
    except ValueError:
        return DEFAULT_BOT_PACE  # the engine refuses it at start, naming the variable


def check_pace(pace: float, bot_pace: float) -> None:
    """ValueError unless every scripted answer comes after the engine's bot pace: a claim
    answered within the discard's hold waits for the hold, and its round trip would time the
    hold, not the engine."""
    earliest = pace * (1 - JITTER_FRACTION)
    if earliest <= bot_pace:
        raise ValueError(
            f"--pace {pace:g} answers as early as {earliest:.2f} s, within the engine's bot"
            f" pace of {bot_pace:g} s ({BOT_PACE_ENV}): choose a pace above"
            f" {bot_pace / (1 - JITTER_FRACTION):.2f} s"
        )


# ---------------------------------------------------------------------------- the run


def run_scale_bench(
    options: ScaleOptions, status: Status = lambda _t: None, progress: Status = lambda _t: None
) -> dict[str, Any]:
    """Run every configuration (see the module docstring) and return the figures. ``status``
    gets one line per step, ``progress`` the changing line of a long step (tables opened,
    time left). ScaleError (one line) when the run cannot go on."""
    configurations = []
    for index, replicas in enumerate(options.table_replicas, 1):
        status(
            f"configuration {index} of {len(options.table_replicas)}: {options.tables} tables"
            f" on {_plural(replicas, 'engine replica')}"
        )
        configurations.append(_run_configuration(options, replicas, status, progress))
    assumptions = scale_limits.Assumptions()
    last = configurations[-1]
    costs = scale_limits.PerTable(**last["per_table"])
    scenarios = sorted({options.people_per_table, 1, 4})
    return {
        "tables": options.tables,
        "pace": options.pace,
        "jitter": JITTER_FRACTION,
        "people_per_table": options.people_per_table,
        "hands_per_match": options.hands,
        "policy": options.policy,
        "seed": options.seed,
        "machine": {"cores": psutil.cpu_count() or 1, "memory_gib": _gib(_total_memory())},
        "assumptions": assumptions.to_json(),
        "configurations": configurations,
        "projection": {
            "from_replicas": last["table_replicas"],
            "players": scale_limits.PLAYERS,
            "scenarios": [
                scale_limits.project(costs, people, a=assumptions).to_json() for people in scenarios
            ],
        },
        "errors_total": sum(c["errors"]["total"] for c in configurations),
    }


def _run_configuration(
    options: ScaleOptions, replicas: int, status: Status, progress: Status
) -> dict[str, Any]:
    from hebei.common import embedded
    from hebei.stack.processes import StackError, StackOptions, start_stack

    run = f"scale-{secrets.token_hex(4)}"
    run_dir = run_data_dir(run)
    schemas = (
        {name: f"{run.replace('-', '_')}_{name.split('_')[1].lower()}" for name in SCHEMA_VARIABLES}
        if os.environ.get(embedded.DATABASE_URL_ENV)
        else {}
    )
    bot_seats = options.tables * (4 - options.people_per_table)
    workers, sessions = worker_plan(bot_seats, options.worker_processes, options.max_sessions)
    services = ("ledger", "table", "matchmaking", *(("bots",) if workers else ()))
    stack_options = StackOptions(
        services=services,
        bot_workers=workers,
        worker_processes=options.worker_processes,
        worker_sessions=sessions,
        data_dir=run_dir,
        log_dir=embedded.default_data_dir() / "logs" / f"scale-{replicas}",
        env={
            "HEBEI_BOTS_QUEUE_PREFIX": run,
            "HEBEI_TABLE_MAX_TABLES": str(max(options.tables, scale_limits.MAX_TABLES_SETTING)),
            **schemas,
        },
        table_replicas=replicas,
    )
    if workers:
        status(
            f"{bot_seats} bot seats: {_plural(workers, 'bot worker')} of"
            f" {_plural(options.worker_processes, 'Celery process', 'es')} with {sessions}"
            " seat sessions each"
        )
    try:
        with start_stack(stack_options, status=status) as stack:
            result = _measure(stack, options, run, status, progress)
    except StackError as exc:
        raise ScaleError(str(exc)) from None
    finally:
        if run_dir is not None:
            shutil.rmtree(run_dir, ignore_errors=True)
        if schemas:
            _drop_schemas(os.environ[embedded.DATABASE_URL_ENV], schemas.values())
    result.update(
        run=run,  # its bot queues' prefix; its schemas' too, with a configured PostgreSQL
        bot_workers=workers,
        worker_processes=options.worker_processes,
        worker_sessions=sessions,
        servers="configured" if schemas else "embedded",
    )
    return result


def _drop_schemas(database_url: str, schemas: Iterable[str]) -> None:
    """Drop the run's ``schemas`` and each one's ownership schema (where the engine and
    matchmaking keep their replicas' tables)."""
    import psycopg
    from psycopg import sql

    from hebei.common.ownership.statements import ownership_schema

    try:
        with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
            for schema in schemas:
                for name in (schema, ownership_schema(schema)):
                    conn.execute(
                        sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name))
                    )
    except psycopg.Error:
        pass  # the run's figures stand; a schema left behind holds only this run's rows


@contextmanager
def _client_env(env: Mapping[str, str]) -> Iterator[None]:
    """This process as a client of the stack (the fleet's sender reads its broker and queues
    from the environment), restored afterwards."""
    from hebei.fleet.settings import forget_settings

    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    forget_settings()
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        forget_settings()


# ---------------------------------------------------------------------------- one configuration


def _measure(
    stack: Stack, options: ScaleOptions, run: str, status: Status, progress: Status
) -> dict[str, Any]:
    from hebei.common.routing import MatchRouter

    parts = StackParts.of(stack)
    if stack.bot_metrics_addresses and not workers_warm(stack.bot_metrics_addresses):
        status("waiting for the bot workers' warm-up")
        wait_workers_warm(stack.bot_metrics_addresses)
    status(f"measuring the idle stack for {IDLE_SECONDS:g} s")
    idle_from = parts.snapshot()
    time.sleep(IDLE_SECONDS)
    start = parts.snapshot()
    base = parts.memory()  # every replica before its first table
    router = MatchRouter(stack.address("table"), token=stack.operator_token, timeout=30.0)
    people = PeopleLoop(stack.address("table"))
    try:
        with _client_env(stack.client_env):
            matches = _open_tables(stack, router, people, options, run, status, progress)
        _wait(options.warm_up_seconds, "warming up", parts, people, progress)
        status(f"measuring for {options.measure_seconds:g} s")
        before = parts.snapshot()
        people.set_measuring(True)
        _wait(options.measure_seconds, "measuring", parts, people, progress, quiet=True)
        people.set_measuring(False)
        after = parts.snapshot()
        recorder = people.frozen()
        live = parts.live_tables()
        memory = parts.memory()
        connections = _pg_connections(stack.database_url)
        died = parts.died()
        status(f"dissolving the {len(matches)} tables")
        _dissolve(router, matches)
    finally:
        people.close()
        router.close()
    status("stopping the stack")
    idle = _idle_cores(idle_from, start)
    return figures(
        options, len(parts.table_names), matches, parts, base, memory, idle, start, before,
        after, live, recorder, connections, died, engine_bot_pace(),
    )  # fmt: skip


def _idle_cores(first: Snapshot, second: Snapshot) -> dict[str, float]:
    """Cores each component (and this process, ``own``) used between two snapshots."""
    seconds = second.at - first.at
    if seconds <= 0:
        return {}
    return {name: used / seconds for name, used in second.cpu_since(first).items()}


def _open_tables(
    stack: Stack,
    router: Any,
    people: PeopleLoop,
    options: ScaleOptions,
    run: str,
    status: Status,
    progress: Status,
) -> list[str]:
    """Open every table, :data:`BATCH` at a time, each batch playing before the next."""
    status(
        f"opening {options.tables} tables of {options.people_per_table} scripted"
        f" {'person' if options.people_per_table == 1 else 'people'} and"
        f" {4 - options.people_per_table} {options.policy} bots, {BATCH} at a time"
    )
    matches: list[str] = []
    for first in range(0, options.tables, BATCH):
        batch = []
        for index in range(first, min(first + BATCH, options.tables)):
            batch.append(_open_table(stack, router, people, options, run, index))
            matches.append(batch[-1])
            progress(f"opening tables: {len(matches)} of {options.tables} opened")
        _wait_playing(router, batch, len(matches), options.tables, people, progress)
    return matches


def _open_table(
    stack: Stack, router: Any, people: PeopleLoop, options: ScaleOptions, run: str, index: int
) -> str:
    from hebei.fleet.client import send_seat
    from hebei.fleet.ticket import SeatTicket
    from hebei.v1 import table_pb2, table_pb2_grpc
    from hebei.v1 import types_pb2 as pb

    match_id = f"{run}-{index:04d}"
    tokens = [secrets.token_urlsafe(24) for _ in range(4)]
    person = [seat < options.people_per_table for seat in range(4)]
    request = table_pb2.OpenMatchRequest(
        table_id=f"scale-{index}",
        match_id=match_id,
        length=pb.MatchLength(hands=options.hands),
        seats=[
            table_pb2.SeatAssignment(
                seat=seat,
                player_id=f"{match_id}-{seat}",
                player_name=f"Person {index}.{seat}" if person[seat] else f"Bot {index}.{seat}",
                kind=pb.SEAT_KIND_PERSON if person[seat] else pb.SEAT_KIND_BOT,
                seat_token=tokens[seat],
                bot_policy="" if person[seat] else options.policy,
            )
            for seat in range(4)
        ],
    )
    try:
        router.call(
            match_id,
            lambda channel, timeout: table_pb2_grpc.TableServiceStub(channel).OpenMatch(
                request, timeout=timeout
            ),
        )
    except Exception as exc:
        raise ScaleError(f"opening table {index + 1} ({match_id}): {_describe(exc)}") from None
    target = stack.address("table")
    for seat in range(4):
        seed = (options.seed * 1_000_003 + index * 4 + seat) % 2**31
        if person[seat]:
            people.add(match_id, seat, tokens[seat], options.pace, seed)
        else:
            ticket = SeatTicket(target, match_id, seat, tokens[seat], options.policy, seed=seed)
            try:
                send_seat(ticket)
            except Exception as exc:  # the broker is down: kombu/redis errors of many kinds
                raise ScaleError(f"queuing the bot seats of {match_id}: {exc}") from None
    return match_id


def _wait_playing(
    router: Any,
    batch: list[str],
    opened: int,
    tables: int,
    people: PeopleLoop,
    progress: Status,
) -> None:
    """Wait until every match of ``batch`` plays with every seat joined (ScaleError after
    :data:`START_SECONDS`)."""
    from hebei.v1 import table_pb2, table_pb2_grpc
    from hebei.v1 import types_pb2 as pb

    deadline = time.monotonic() + START_SECONDS
    waiting = list(batch)
    while waiting:
        info = None
        for match_id in list(waiting):
            request = table_pb2.GetMatchRequest(match_id=match_id)
            try:
                info = router.call(
                    match_id,
                    lambda channel, timeout, r=request: table_pb2_grpc.TableServiceStub(
                        channel
                    ).GetMatch(r, timeout=timeout),
                ).match
            except Exception as exc:
                raise ScaleError(f"reading {match_id}: {_describe(exc)}") from None
            if info.status == pb.MATCH_STATUS_PLAYING and all(s.connected for s in info.seats):
                waiting.remove(match_id)
            elif info.status not in (pb.MATCH_STATUS_WAITING, pb.MATCH_STATUS_PLAYING):
                raise ScaleError(f"table {match_id} ended before it was measured")
        failed = people.failures()
        if failed:
            raise ScaleError(f"a scripted person's seat failed: {failed[0]}")
        progress(f"opening tables: {opened} of {tables} opened, {opened - len(waiting)} playing")
        if not waiting:
            return
        if time.monotonic() > deadline:
            seats = (
                ""
                if info is None
                else ", ".join(
                    f"seat {s.seat} {'joined' if s.connected else 'absent'}" for s in info.seats
                )
            )
            raise ScaleError(
                f"{len(waiting)} tables did not start within {START_SECONDS:g} s"
                f" ({waiting[-1]}: {seats}); the bot workers or the engine are behind"
            )
        time.sleep(0.5)


def _dissolve(router: Any, matches: Sequence[str]) -> None:
    """End every match of the run (their bot sessions end with them, so the workers stop at
    once); best effort: the stack stops next whatever happens."""
    from hebei.v1 import table_pb2, table_pb2_grpc

    for match_id in matches:
        request = table_pb2.DissolveRequest(match_id=match_id, reason="hebei bench scale: done")
        try:
            router.call(
                match_id,
                lambda channel, timeout, r=request: table_pb2_grpc.TableServiceStub(
                    channel
                ).Dissolve(r, timeout=timeout),
            )
        except Exception:  # the figures are taken; the stack stops next
            continue


def _wait(
    seconds: float,
    what: str,
    parts: StackParts,
    people: PeopleLoop,
    progress: Status,
    *,
    quiet: bool = False,
) -> None:
    """Let the tables play ``seconds``, a progress line every :data:`TICK`. ``quiet``: read
    nothing of the stack meanwhile (the measured window: parsing the engines' /metrics
    holds this process's interpreter lock for a while, which the scripted people's loop
    would feel in its round trips); the live tables are then those of the start."""
    end = time.monotonic() + seconds
    live = sum(parts.live_tables().values())
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        if not quiet:
            live = sum(parts.live_tables().values())
        answered = people.snapshot()
        died = parts.died()
        line = (
            f"{what}: {left:.0f} s left; {live} tables live on"
            f" {_plural(len(parts.table_names), 'engine replica')};"
            f" {answered['decisions']:,} people's decisions measured"
        )
        if died:
            line += f"; {died[0]}"
        progress(line)
        time.sleep(min(TICK, left))


def _pg_connections(database_url: str) -> dict[str, int]:
    """PostgreSQL's client connections now, by whom (the engines' pools and lock sessions;
    the rest), and its ``max_connections``; empty when it cannot be read. With a configured
    server shared with others, their connections count too."""
    import psycopg

    try:
        with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
            rows = conn.execute(
                "SELECT application_name, count(*) FROM pg_stat_activity"
                " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
                " GROUP BY 1"
            ).fetchall()
            limit = conn.execute("SHOW max_connections").fetchone()
    except psycopg.Error:
        return {}
    engine = sum(n for name, n in rows if name.startswith(("hebei-table", "hebei-own-table")))
    return {
        "total": sum(n for _name, n in rows),
        "engine": engine,
        "max_connections": int(limit[0]) if limit else 0,
    }


def _describe(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    if callable(code):
        details = exc.details() if hasattr(exc, "details") else ""
        return f"{code().name}: {details}"
    return str(exc) or type(exc).__name__


def _plural(count: int, noun: str, suffix: str = "s") -> str:
    return f"{count} {noun}{'' if count == 1 else suffix}"


def _total_memory() -> int:
    return psutil.virtual_memory().total


def _gib(size: int) -> float:
    return round(size / 2**30, 1)
