"""The arithmetic of ``hebei bench scale``: what one configuration's measured figures say about
where it stops (its limits, and the first of them) and what a field of players would take
(the projection). Plain functions on plain numbers, no processes and no I/O.

The assumptions (:class:`Assumptions`, each printed with the figures):

- an engine replica serves every stream from one event loop (``grpc.aio``) beside its writer
  thread, under one interpreter lock: it saturates at about :data:`LOOP_CORES` core, and is
  planned at :data:`UTILISATION` of it (headroom for bursts: a hand's end, a round's start);
- an engine pod may hold :data:`ENGINE_MEMORY_LIMIT_MIB` (the prod overlay's limit,
  ``k8s/overlays/prod/resources.yaml``; a unit test reads it there);
- the seat round trip's p99 target is :data:`SEAT_RTT_P99_TARGET_MS` (ARCHITECTURE.md, the same
  as ``hebei bench stack``'s); it cannot be extrapolated: a run above it has hit it at its own
  number of tables, a run below it says only that it holds there;
- the engine's own bound on tables (``HEBEI_TABLE_MAX_TABLES``, :data:`MAX_TABLES_SETTING` by
  default) is a setting: the bench raises it, the limit shows where the default stops;
- PostgreSQL's ``max_connections`` (measured) bounds the engine replicas: each may hold
  :data:`ENGINE_CONNECTIONS` (its pool's 8, the log writer's included, and its lock session),
  however few it holds at the run's load; the other services' connections are as measured;
- this machine: its cores (all processes of the run, the scripted people's client included),
  planned at the same utilisation.

Tables spread over the replicas by their shards (a hash of the match id), so not evenly: a
replica's limit in tables is scaled by its share of them (the busiest replica stops first).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "ENGINE_CONNECTIONS",
    "ENGINE_MEMORY_LIMIT_MIB",
    "LOOP_CORES",
    "MAX_TABLES_SETTING",
    "PLAYERS",
    "SEAT_RTT_P99_TARGET_MS",
    "UTILISATION",
    "Assumptions",
    "Limit",
    "Measured",
    "PerTable",
    "Projection",
    "Replica",
    "first_limit",
    "limits",
    "per_table",
    "project",
]

UTILISATION = 0.7  # of a core (a replica's event loop, the machine's cores) planned for use
LOOP_CORES = 1.0  # what one engine replica's event loop and writer get from the interpreter
ENGINE_MEMORY_LIMIT_MIB = 2048.0  # the engine pod's memory limit, k8s/overlays/prod
SEAT_RTT_P99_TARGET_MS = 20.0
MAX_TABLES_SETTING = 256  # HEBEI_TABLE_MAX_TABLES's default (hebei.table.service)
ENGINE_CONNECTIONS = 9  # an engine replica's most: EventStore's pool (8) and its lock session
PLAYERS = 10_000  # the field the README projects to
SEATS = 4


@dataclass(frozen=True, slots=True)
class Assumptions:
    """What the limits and the projection assume (see the module docstring)."""

    utilisation: float = UTILISATION
    loop_cores: float = LOOP_CORES
    engine_memory_mib: float = ENGINE_MEMORY_LIMIT_MIB
    seat_rtt_p99_ms: float = SEAT_RTT_P99_TARGET_MS
    max_tables_setting: int = MAX_TABLES_SETTING
    engine_connections: int = ENGINE_CONNECTIONS

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Replica:
    """One engine replica over the measured window."""

    name: str
    tables: int  # live on it at the window's end
    cpu_seconds: float  # CPU it used in the window
    pss_before_mib: float  # before any table was opened
    pss_mib: float  # at the window's end
    connections: int = 0  # PostgreSQL connections it held
    idle_cores: float = 0.0  # what it used before any table (ownership beats, metrics...)

    def cores_per_table(self, seconds: float) -> float | None:
        """Cores one more live table takes (CPU seconds a second beyond its idle use)."""
        if self.tables <= 0 or seconds <= 0:
            return None
        return max(0.0, self.cpu_seconds / seconds - self.idle_cores) / self.tables

    def mib_per_table(self) -> float | None:
        """Memory one of its live tables takes: its growth since before opening, shared."""
        if self.tables <= 0:
            return None
        return (self.pss_mib - self.pss_before_mib) / self.tables


@dataclass(frozen=True, slots=True)
class Measured:
    """One configuration's figures, as the limits read them."""

    tables: int
    seconds: float  # the measured window
    replicas: tuple[Replica, ...]
    machine_cpu_seconds: float  # every process of the run in the window
    machine_cores: int
    machine_idle_cores: float = 0.0  # every process of the run before any table
    rtt_p99_ms: tuple[tuple[str, float | None], ...] = ()  # (whose, p99): people, bots
    pg_connections: int = 0  # the run's connections to PostgreSQL at the window's end
    pg_max_connections: int = 0  # 0: not known


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit: the tables at which it binds (None: it bounds no number of tables, or was
    not reached and cannot be extrapolated), whether the run itself reached it, and why."""

    name: str
    tables: int | None
    hit: bool
    detail: str
    short: str = ""  # a word or two for a table's column

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _floor(value: float) -> int:
    """``value`` rounded down, a float's last-digit error forgiven (0.7 / 0.001 is 700)."""
    return math.floor(value + 1e-9)


def _spread_tables(replicas: Sequence[Replica], capacity: dict[str, float]) -> int | None:
    """Tables the configuration holds when its first replica reaches its ``capacity`` (tables
    on it, by name), the tables spread as they were: min over replicas of capacity / share."""
    total = sum(r.tables for r in replicas)
    found = [
        capacity[r.name] * total / r.tables
        for r in replicas
        if r.tables > 0 and r.name in capacity and math.isfinite(capacity[r.name])
    ]
    return _floor(min(found)) if found else None


def _loop_capacity(m: Measured, a: Assumptions) -> dict[str, float]:
    """Tables each replica holds at the planned utilisation of its event loop."""
    out = {}
    for replica in m.replicas:
        cost = replica.cores_per_table(m.seconds)
        if cost:
            room = max(0.0, a.utilisation * a.loop_cores - replica.idle_cores)
            out[replica.name] = room / cost
    return out


def _memory_capacity(m: Measured, a: Assumptions) -> dict[str, float]:
    """Tables each replica holds within the pod's memory limit."""
    out = {}
    for replica in m.replicas:
        cost = replica.mib_per_table()
        if cost and cost > 0:
            out[replica.name] = max(0.0, a.engine_memory_mib - replica.pss_before_mib) / cost
    return out


def limits(m: Measured, a: Assumptions = Assumptions()) -> list[Limit]:
    """Every limit of the configuration ``m`` (see the module docstring), in tables."""
    n = len(m.replicas)
    found: list[Limit] = []
    loop = _loop_capacity(m, a)
    tables = _spread_tables(m.replicas, loop)
    found.append(
        Limit(
            f"engine event loop ({a.utilisation:.0%} of {a.loop_cores:g} core a replica)",
            tables,
            tables is not None and tables <= m.tables,
            _per_replica_text(loop, "tables a replica at that load"),
            "event loop",
        )
    )
    memory = _memory_capacity(m, a)
    tables = _spread_tables(m.replicas, memory)
    found.append(
        Limit(
            f"engine memory (pod limit {a.engine_memory_mib:g} MiB)",
            tables,
            tables is not None and tables <= m.tables,
            _per_replica_text(memory, "tables a replica within the limit"),
            "memory",
        )
    )
    setting = {r.name: float(a.max_tables_setting) for r in m.replicas}
    tables = _spread_tables(m.replicas, setting)
    found.append(
        Limit(
            f"engine table bound (HEBEI_TABLE_MAX_TABLES, default {a.max_tables_setting})",
            tables,
            tables is not None and tables <= m.tables,
            f"a setting: {a.max_tables_setting} live tables a replica × {n} replicas, spread"
            " as measured (the bench raises it)",
            "table bound",
        )
    )
    found.append(_round_trip_limit(m, a))
    found.append(_connections_limit(m, a, loop, memory))
    cost = 0.0
    if m.seconds > 0 and m.tables:
        cost = max(0.0, m.machine_cpu_seconds / m.seconds - m.machine_idle_cores) / m.tables
    room = max(0.0, a.utilisation * m.machine_cores - m.machine_idle_cores)
    tables = _floor(room / cost) if cost > 0 else None
    found.append(
        Limit(
            f"this machine ({m.machine_cores} cores at {a.utilisation:.0%}, every process)",
            tables,
            tables is not None and tables <= m.tables,
            f"{1000 * cost:.2f} CPU-ms a table a second beyond {m.machine_idle_cores:.2f}"
            " cores idle, every process of the run",
            "machine",
        )
    )
    return found


def _per_replica_text(capacity: dict[str, float], what: str) -> str:
    if not capacity:
        return "not measurable (no cost measured)"
    shown = ", ".join(f"{name} {value:,.0f}" for name, value in sorted(capacity.items()))
    return f"{what}: {shown}"


def _round_trip_limit(m: Measured, a: Assumptions) -> Limit:
    measured = [(whose, p99) for whose, p99 in m.rtt_p99_ms if p99 is not None]
    name, short = f"seat round trip p99 ≤ {a.seat_rtt_p99_ms:g} ms", "round trip"
    if not measured:
        return Limit(name, None, False, "no round trips measured", short)
    shown = ", ".join(f"{whose} {p99:g} ms" for whose, p99 in measured)
    if any(p99 > a.seat_rtt_p99_ms for _whose, p99 in measured):
        return Limit(name, m.tables, True, f"exceeded at {m.tables} tables: {shown}", short)
    detail = f"held at {m.tables} tables ({shown}); not extrapolated beyond"
    return Limit(name, None, False, detail, short)


def _connections_limit(
    m: Measured, a: Assumptions, loop: dict[str, float], memory: dict[str, float]
) -> Limit:
    """Engine replicas the spare connections allow (each at its most), each at its own first
    limit (loop or memory, the replicas' mean)."""
    name = f"PostgreSQL connections (max_connections {m.pg_max_connections or '?'})"
    short = "connections"
    held = [r.connections for r in m.replicas if r.connections > 0]
    if not m.pg_max_connections or not held:
        return Limit(name, None, False, "not measured", short)
    measured = sum(held) / len(held)
    per_replica = max(measured, a.engine_connections)
    others = m.pg_connections - sum(r.connections for r in m.replicas)
    replicas = _floor((m.pg_max_connections - others) / per_replica)
    capacities = [min(loop.get(r.name, math.inf), memory.get(r.name, math.inf)) for r in m.replicas]
    finite = [c for c in capacities if math.isfinite(c)]
    detail = (
        f"{m.pg_connections} in use ({measured:g} an engine replica, at most {per_replica:g};"
        f" {others} the other services): room for {replicas} engine replicas"
    )
    if not finite:
        return Limit(name, None, False, detail, short)
    tables = _floor(replicas * sum(finite) / len(finite))
    return Limit(name, tables, tables <= m.tables, f"{detail} at their own first limit", short)


def first_limit(found: Iterable[Limit]) -> Limit | None:
    """The limit binding at the fewest tables (the first listed of equals); None when none
    bounds the tables."""
    bounded = [limit for limit in found if limit.tables is not None]
    return min(bounded, key=lambda limit: limit.tables) if bounded else None


# ------------------------------------------------------------------------- the projection


@dataclass(frozen=True, slots=True)
class PerTable:
    """A configuration's measured costs per live table (and per bot seat), what the
    projection multiplies."""

    engine_cores: float  # CPU seconds a second, beyond the replica's idle use
    engine_idle_cores: float  # a replica before its first table
    engine_mib: float  # PSS
    engine_base_mib: float  # a replica before its first table
    bot_seat_cores: float  # a bot seat's share of the workers' CPU
    other_cores: float  # PostgreSQL, Redis, matchmaking, ledger
    events_per_second: float
    hands_per_second: float  # settlements booked a second
    connections_per_replica: float  # as measured (the projection takes at least the bound)
    other_connections: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def per_table(
    m: Measured,
    bot_seats: int,
    bots_cpu_seconds: float,
    other_cpu_seconds: float,
    events: float,
    hands: float,
) -> PerTable:
    """The costs per live table of configuration ``m`` (``bot_seats`` bot seats in all;
    the others' CPU seconds, events and hands over its window)."""
    seconds = m.seconds if m.seconds > 0 else math.inf
    tables = max(1, sum(r.tables for r in m.replicas) or m.tables)
    replicas = max(1, len(m.replicas))
    grown = sum(r.pss_mib - r.pss_before_mib for r in m.replicas)
    held = [r.connections for r in m.replicas if r.connections > 0]
    per_replica = sum(held) / len(held) if held else 0.0
    idle = sum(r.idle_cores for r in m.replicas)
    busy = sum(r.cpu_seconds for r in m.replicas) / seconds
    return PerTable(
        engine_cores=max(0.0, busy - idle) / tables,
        engine_idle_cores=idle / replicas,
        engine_mib=max(0.0, grown / tables),
        engine_base_mib=sum(r.pss_before_mib for r in m.replicas) / replicas,
        bot_seat_cores=bots_cpu_seconds / seconds / bot_seats if bot_seats else 0.0,
        other_cores=other_cpu_seconds / seconds / tables,
        events_per_second=events / seconds / tables,
        hands_per_second=hands / seconds / tables,
        connections_per_replica=per_replica,
        other_connections=max(0.0, m.pg_connections - sum(held)),
    )


@dataclass(frozen=True, slots=True)
class Projection:
    """What ``players`` players seated ``people_per_table`` a table (bots filling the rest)
    would take, from measured per-table costs."""

    players: int
    people_per_table: int
    tables: int
    tables_per_replica: int  # the replica's first limit: its loop or its memory
    replica_bound: str  # which of the two
    engine_replicas: int
    engine_cores: float
    engine_memory_gib: float
    bot_seats: int
    bot_cores: float
    other_cores: float  # PostgreSQL, Redis, matchmaking, ledger
    events_per_second: float
    settlements_per_second: float
    pg_connections: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def project(
    costs: PerTable,
    people_per_table: int,
    players: int = PLAYERS,
    a: Assumptions = Assumptions(),
) -> Projection:
    """``players`` people, ``people_per_table`` at each table, bots in the other seats: the
    engine replicas (each at its first limit, its loop at the planned utilisation or its
    memory within the pod limit), cores, memory, events and settlements a second, PostgreSQL
    connections (each replica at its most, :attr:`Assumptions.engine_connections`). ValueError for a count out of range or no measured cost."""
    if not 1 <= people_per_table <= SEATS or players < 1:
        raise ValueError(f"people per table must be 1-{SEATS} and players ≥ 1")
    if costs.engine_cores <= 0:
        raise ValueError("no engine CPU per table measured: nothing to project from")
    tables = math.ceil(players / people_per_table)
    by_loop = max(0.0, a.utilisation * a.loop_cores - costs.engine_idle_cores) / costs.engine_cores
    room = a.engine_memory_mib - costs.engine_base_mib
    by_memory = room / costs.engine_mib if costs.engine_mib > 0 else math.inf
    per_replica = max(1, _floor(min(by_loop, by_memory)))
    bound = "event loop" if by_loop <= by_memory else "memory"
    replicas = math.ceil(tables / per_replica)
    bot_seats = tables * (SEATS - people_per_table)
    memory = replicas * costs.engine_base_mib + tables * costs.engine_mib
    return Projection(
        players=players,
        people_per_table=people_per_table,
        tables=tables,
        tables_per_replica=per_replica,
        replica_bound=bound,
        engine_replicas=replicas,
        engine_cores=round(tables * costs.engine_cores + replicas * costs.engine_idle_cores, 2),
        engine_memory_gib=round(memory / 1024, 2),
        bot_seats=bot_seats,
        bot_cores=round(bot_seats * costs.bot_seat_cores, 2),
        other_cores=round(tables * costs.other_cores, 2),
        events_per_second=round(tables * costs.events_per_second, 1),
        settlements_per_second=round(tables * costs.hands_per_second, 2),
        pg_connections=math.ceil(
            replicas * max(costs.connections_per_replica, a.engine_connections)
            + costs.other_connections
        ),
    )
