"""The scale benchmark's arithmetic: each configuration's limits and the first of them, its
costs per table, the projection to a field of players, and the pod memory limit it assumes
(read where the deployment sets it)."""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import pytest
import yaml

from hebei.bench.scale_limits import (
    ENGINE_CONNECTIONS,
    ENGINE_MEMORY_LIMIT_MIB,
    Assumptions,
    Limit,
    Measured,
    PerTable,
    Replica,
    first_limit,
    limits,
    per_table,
    project,
)
from hebei.table.store import EventStore

ROOT = Path(__file__).resolve().parents[3]


def replica(name: str, tables: int, cores: float, grown_mib: float, **fields) -> Replica:
    """A replica that used ``cores`` over a 100 s window and grew ``grown_mib`` from 100 MiB."""
    return Replica(
        name=name,
        tables=tables,
        cpu_seconds=100 * cores,
        pss_before_mib=100.0,
        pss_mib=100.0 + grown_mib,
        **fields,
    )


def measured(*replicas: Replica, **fields) -> Measured:
    values = dict(
        tables=sum(r.tables for r in replicas),
        seconds=100.0,
        replicas=replicas,
        machine_cpu_seconds=100.0,  # one core busy
        machine_cores=2,
    )
    values.update(fields)
    return Measured(**values)


def by_name(found: list[Limit], start: str) -> Limit:
    return next(limit for limit in found if limit.name.startswith(start))


def test_the_event_loop_limit_is_the_busiest_replica_at_the_planned_load() -> None:
    # table-0 holds 100 tables at 0.1 cores (1 ms a table-second); table-1 300 at 0.6 (2 ms)
    m = measured(replica("table-0", 100, 0.1, 10), replica("table-1", 300, 0.6, 30))
    loop = by_name(limits(m), "engine event loop")
    # table-0 holds 700 tables at 70% of a core, table-1 350; table-1 has 3/4 of the tables,
    # so the configuration stops at 350 / 0.75 = 466 tables
    assert loop.tables == 466 and not loop.hit
    assert "table-0 700" in loop.detail and "table-1 350" in loop.detail


def test_idle_use_is_taken_off_the_cost_and_off_the_room() -> None:
    m = measured(replica("table-0", 100, 0.2, 10, idle_cores=0.1))
    assert m.replicas[0].cores_per_table(m.seconds) == pytest.approx(0.001)
    # (0.7 - 0.1) / 0.001
    assert by_name(limits(m), "engine event loop").tables == 600


def test_the_memory_limit_leaves_the_base_and_reads_the_pod_limit() -> None:
    m = measured(replica("table-0", 200, 0.1, 100))  # 0.5 MiB a table over a 100 MiB base
    memory = by_name(limits(m, Assumptions(engine_memory_mib=1100.0)), "engine memory")
    assert memory.tables == 2000 and "1100 MiB" in memory.name


def test_the_table_bound_is_a_setting_spread_like_the_tables() -> None:
    m = measured(replica("table-0", 25, 0.1, 10), replica("table-1", 75, 0.1, 10))
    bound = by_name(limits(m), "engine table bound")
    assert bound.tables == math.floor(256 / 0.75) and not bound.hit
    one = measured(replica("table", 256, 0.1, 10))
    assert by_name(limits(one), "engine table bound").hit  # at the default, on one replica


def test_the_round_trip_limit_is_hit_only_above_the_target_and_never_extrapolated() -> None:
    below = measured(replica("table", 64, 0.1, 10), rtt_p99_ms=(("people", 9.5), ("bots", 4.0)))
    held = by_name(limits(below), "seat round trip")
    assert held.tables is None and not held.hit and "held at 64 tables" in held.detail
    above = measured(replica("table", 64, 0.1, 10), rtt_p99_ms=(("people", 25.0), ("bots", None)))
    hit = by_name(limits(above), "seat round trip")
    assert hit.tables == 64 and hit.hit and "people 25 ms" in hit.detail
    none = by_name(limits(measured(replica("table", 64, 0.1, 10))), "seat round trip")
    assert none.tables is None and none.detail == "no round trips measured"


def test_the_connections_limit_counts_replicas_the_spare_connections_allow() -> None:
    m = measured(
        replica("table-0", 100, 0.1, 10, connections=4),
        replica("table-1", 100, 0.1, 10, connections=4),
        pg_connections=30,  # 8 the engines, 22 the others
        pg_max_connections=100,
    )
    connections = by_name(limits(m), "PostgreSQL connections")
    # each replica may hold 9: (100 - 22) // 9 = 8 replicas, each at 700 tables (its loop
    # binds before its memory)
    assert connections.tables == 8 * 700 and "room for 8 engine replicas" in connections.detail
    assert "4 an engine replica, at most 9" in connections.detail
    unknown = by_name(limits(measured(replica("table", 10, 0.1, 10))), "PostgreSQL")
    assert unknown.tables is None and unknown.detail == "not measured"


def test_the_machine_limit_counts_every_process_beyond_its_idle_use() -> None:
    m = measured(replica("table", 100, 0.1, 10), machine_cpu_seconds=60.0, machine_idle_cores=0.2)
    machine = by_name(limits(m), "this machine")
    # (0.6 - 0.2) / 100 = 4 ms a table; (0.7 × 2 - 0.2) / 0.004 = 300 tables
    assert machine.tables == 300 and "4.00 CPU-ms" in machine.detail


def test_the_first_limit_is_the_smallest_bounded_one() -> None:
    found = [
        Limit("a", None, False, ""),
        Limit("b", 500, False, ""),
        Limit("c", 300, False, ""),
        Limit("d", 300, True, ""),
    ]
    assert first_limit(found).name == "c"
    assert first_limit([Limit("a", None, False, "")]) is None
    m = measured(replica("table", 256, 0.5, 50))
    found = limits(m)
    assert first_limit(found).name.startswith("engine table bound")  # 256 < 358 by loop
    assert [limit.short for limit in found] == [
        "event loop", "memory", "table bound", "round trip", "connections", "machine",
    ]  # fmt: skip


def test_per_table_costs_take_the_idle_use_off() -> None:
    m = measured(
        replica("table-0", 100, 0.3, 50, idle_cores=0.1, connections=9),
        replica("table-1", 100, 0.3, 150, idle_cores=0.1, connections=9),
        pg_connections=30,
    )
    costs = per_table(m, bot_seats=600, bots_cpu_seconds=60.0, other_cpu_seconds=20.0,
                      events=2000.0, hands=20.0)  # fmt: skip
    assert costs.engine_cores == pytest.approx(0.002)  # (0.6 - 0.2) / 200
    assert costs.engine_idle_cores == pytest.approx(0.1)
    assert costs.engine_mib == pytest.approx(1.0) and costs.engine_base_mib == 100.0
    assert costs.bot_seat_cores == pytest.approx(0.001)
    assert costs.other_cores == pytest.approx(0.001)
    assert costs.events_per_second == pytest.approx(0.1)
    assert costs.hands_per_second == pytest.approx(0.001)
    assert (costs.connections_per_replica, costs.other_connections) == (9.0, 12.0)


COSTS = PerTable(
    engine_cores=0.002,
    engine_idle_cores=0.1,
    engine_mib=1.0,
    engine_base_mib=100.0,
    bot_seat_cores=0.001,
    other_cores=0.0005,
    events_per_second=0.6,
    hands_per_second=0.006,
    connections_per_replica=9.0,
    other_connections=12.0,
)


def test_the_projection_of_one_person_and_three_bots_a_table() -> None:
    p = project(COSTS, people_per_table=1)
    assert (p.players, p.tables, p.bot_seats) == (10_000, 10_000, 30_000)
    # the loop binds: (0.7 - 0.1) / 0.002 = 300 a replica (memory: 1948 / 1 = 1948)
    assert (p.tables_per_replica, p.replica_bound, p.engine_replicas) == (300, "event loop", 34)
    assert p.engine_cores == pytest.approx(10_000 * 0.002 + 34 * 0.1)
    assert p.engine_memory_gib == pytest.approx(round((34 * 100 + 10_000) / 1024, 2))
    assert p.bot_cores == pytest.approx(30.0) and p.other_cores == pytest.approx(5.0)
    assert p.events_per_second == pytest.approx(6000.0)
    assert p.settlements_per_second == pytest.approx(60.0)
    assert p.pg_connections == 34 * 9 + 12
    measured_more = PerTable(**{**COSTS.to_json(), "connections_per_replica": 12.0})
    assert project(measured_more, people_per_table=1).pg_connections == 34 * 12 + 12


def test_the_projection_of_four_people_a_table_and_a_memory_bound() -> None:
    heavy = PerTable(**{**COSTS.to_json(), "engine_mib": 10.0})  # 194 tables in 2 GiB
    p = project(heavy, people_per_table=4, players=1000)
    assert (p.tables, p.bot_seats, p.bot_cores) == (250, 0, 0.0)
    assert (p.tables_per_replica, p.replica_bound, p.engine_replicas) == (194, "memory", 2)


@pytest.mark.parametrize(("people", "players"), [(0, 10), (5, 10), (1, 0)])
def test_the_projection_refuses_counts_out_of_range(people: int, players: int) -> None:
    with pytest.raises(ValueError, match="people per table must be 1-4"):
        project(COSTS, people_per_table=people, players=players)


def test_the_projection_needs_a_measured_engine_cost() -> None:
    with pytest.raises(ValueError, match="no engine CPU per table measured"):
        project(PerTable(**{**COSTS.to_json(), "engine_cores": 0.0}), people_per_table=1)


def test_an_engine_replicas_connections_are_its_pool_and_its_lock_session() -> None:
    """ENGINE_CONNECTIONS is the event log's pool (its default size) and the lock session."""
    pool = inspect.signature(EventStore.open).parameters["max_size"].default
    assert pool + 1 == ENGINE_CONNECTIONS


def test_the_pod_memory_limit_is_the_prod_overlays() -> None:
    """ENGINE_MEMORY_LIMIT_MIB is what k8s/overlays/prod gives the engine's container."""
    documents = yaml.safe_load_all((ROOT / "k8s/overlays/prod/resources.yaml").read_text())
    engine = next(d for d in documents if d and d["metadata"]["name"] == "hebei-table")
    (container,) = engine["spec"]["template"]["spec"]["containers"]
    limit = container["resources"]["limits"]["memory"]
    assert limit.endswith("Gi") and float(limit[:-2]) * 1024 == ENGINE_MEMORY_LIMIT_MIB
