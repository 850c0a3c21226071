"""The figures of one configuration of ``hebei bench scale`` (:func:`figures`): the round
trips, the engine's CPU and memory per replica and per live table, events and hands a second,
every component's CPU, the run's errors, the limits and the per-table costs of the projection
(:mod:`hebei.bench.scale_limits`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import psutil

from hebei.bench import scale_limits
from hebei.bench.scale_people import RoundTrips, beyond_hold, percentile
from hebei.bench.scale_snapshots import Snapshot, StackParts
from hebei.bench.stack_metrics import (
    ROUND_TRIP,
    bot_percentiles,
    buckets_of,
    delta,
    percentiles,
    run_errors,
    total,
)

if TYPE_CHECKING:
    from hebei.bench.scale import ScaleOptions

__all__ = ["figures"]

MIB = 2**20


def figures(
    options: ScaleOptions,
    replicas: int,
    matches: list[str],
    parts: StackParts,
    base: Mapping[str, tuple[int, int]],
    memory: Mapping[str, tuple[int, int]],
    idle: Mapping[str, float],
    start: Snapshot,
    before: Snapshot,
    after: Snapshot,
    live: Mapping[str, int],
    recorder: RoundTrips,
    connections: dict[str, int],
    died: list[str],
    hold: float,
) -> dict[str, Any]:
    """The figures of one configuration from what :func:`hebei.bench.scale._measure` read
    (``hold``: the engine's bot pace, the hold after a discard at a table with people)."""
    seconds = after.at - before.at
    cpu = after.cpu_since(before)  # this process's too, as OWN
    by_component = _cpu_groups(cpu, parts.table_names)
    idle_by_component = _cpu_groups(idle, parts.table_names)
    engine = _replicas(parts.table_names, cpu, idle, base, memory, live, connections, replicas)
    tables_live = sum(live.values())
    moved_table = delta(_sum(after.replicas.values()), _sum(before.replicas.values()))
    moved = {"table": moved_table, **_moved(after.services, before.services)}
    bots_moved = delta(after.bots, before.bots)
    hands = total(moved_table, "hebei_table_hands_completed_total")
    played = delta(_sum(after.replicas.values()), _sum(start.replicas.values()))
    hands_played = total(played, "hebei_table_hands_completed_total")
    events = total(moved_table, "hebei_table_event_log_batch_size_sum")
    # a discard's answer also waits for other people's claims (scale_people's docstring)
    rtts = beyond_hold(recorder.samples, hold, discards=options.people_per_table == 1)
    people_rtt = _client_percentiles(rtts)
    bots_rtt = bot_percentiles(moved_table, ROUND_TRIP)
    errors = _run_errors(start, after, died, recorder, tables_live, options.tables)
    measured = scale_limits.Measured(
        tables=tables_live or options.tables,
        seconds=seconds,
        replicas=tuple(engine),
        machine_cpu_seconds=sum(cpu.values()),
        machine_cores=psutil.cpu_count() or 1,
        machine_idle_cores=sum(idle.values()),
        rtt_p99_ms=(("people", people_rtt["p99"]), ("bots", bots_rtt["p99"])),
        pg_connections=connections.get("total", 0),
        pg_max_connections=connections.get("max_connections", 0),
    )
    found = scale_limits.limits(measured)
    first = scale_limits.first_limit(found)

    def beyond_idle(names: Sequence[str]) -> float:
        return sum(
            max(0.0, by_component.get(n, 0.0) - seconds * idle_by_component.get(n, 0.0))
            for n in names
        )

    costs = scale_limits.per_table(
        measured, options.tables * (4 - options.people_per_table), beyond_idle(["bots"]),
        beyond_idle(["postgres", "redis", "matchmaking", "ledger"]), events, hands,
    )  # fmt: skip
    engine_cpu = sum(r.cpu_seconds for r in engine)
    return {
        "table_replicas": replicas,
        "tables": options.tables,
        "tables_live": tables_live,
        "seconds": round(seconds, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "people_rtt_ms": {**people_rtt, "samples": len(rtts)},
        "people_rtt_ms_by_kind": {
            kind: {**_client_percentiles(found), "samples": len(found)}
            for kind, found in recorder.samples.items()
        },
        "discard_hold_ms": round(1000 * hold, 1),
        "bots_rtt_ms": bots_rtt,
        "bots_thinking_ms": percentiles(buckets_of(bots_moved, "hebei_bot_decision_seconds")),
        "event_log_commit_ms": percentiles(
            buckets_of(moved_table, "hebei_table_event_log_write_seconds")
        ),
        "hands_played_per_table": round(hands_played / options.tables, 1),
        "people_decisions": recorder.decisions,
        "people_refused_or_auto_played": {
            "refused": recorder.rejected,
            "auto_played": recorder.auto_played,
        },
        "engine": {
            "cores": round(engine_cpu / seconds, 3) if seconds > 0 else None,
            "cpu_ms_per_table_second": _per_table_ms(engine_cpu, seconds, tables_live),
            "mib_per_table": _round(costs.engine_mib, 3),
            "replicas": [_replica_json(r, seconds, base, memory) for r in engine],
        },
        "cores": {name: round(value / seconds, 3) for name, value in sorted(by_component.items())}
        if seconds > 0
        else {},
        "idle_cores": {name: round(value, 3) for name, value in sorted(idle_by_component.items())},
        "events_per_second": round(events / seconds, 1) if seconds > 0 else None,
        "hands_per_second": round(hands / seconds, 3) if seconds > 0 else None,
        "settlements_per_second": round(
            total(moved["ledger"], "hebei_ledger_settlements_total", result="posted") / seconds, 3
        )
        if seconds > 0 and "ledger" in moved
        else None,
        "pg_connections": connections,
        "limits": [limit.to_json() for limit in found],
        "first_limit": first.to_json() if first is not None else None,
        "per_table": costs.to_json(),
        "errors": errors,
        "matches": len(matches),
    }


def _sum(samples: Any) -> dict:
    out: dict = {}
    for found in samples:
        for key, value in found.items():
            out[key] = out.get(key, 0.0) + value
    return out


def _moved(after: Mapping[str, Any], before: Mapping[str, Any]) -> dict[str, Any]:
    return {name: delta(after[name], before.get(name, {})) for name in after}


def _cpu_groups(cpu: Mapping[str, float], table_names: Sequence[str]) -> dict[str, float]:
    """CPU seconds by component: the engine replicas summed as ``engine``, the bot workers'
    processes as ``bots``."""
    out: dict[str, float] = {}
    for name, seconds in cpu.items():
        group = "engine" if name in table_names else "bots" if name.startswith("bots") else name
        out[group] = out.get(group, 0.0) + seconds
    return out


def _replicas(
    names: Sequence[str],
    cpu: Mapping[str, float],
    idle: Mapping[str, float],
    base: Mapping[str, tuple[int, int]],
    memory: Mapping[str, tuple[int, int]],
    live: Mapping[str, int],
    connections: Mapping[str, int],
    count: int,
) -> list[scale_limits.Replica]:
    share = connections.get("engine", 0) / count if count else 0
    return [
        scale_limits.Replica(
            name=name,
            tables=live.get(name, 0),
            cpu_seconds=cpu.get(name, 0.0),
            pss_before_mib=base.get(name, (0, 0))[0] / MIB,
            pss_mib=memory.get(name, (0, 0))[0] / MIB,
            connections=round(share),
            idle_cores=idle.get(name, 0.0),
        )
        for name in names
    ]


def _replica_json(
    replica: scale_limits.Replica,
    seconds: float,
    base: Mapping[str, tuple[int, int]],
    memory: Mapping[str, tuple[int, int]],
) -> dict[str, Any]:
    rss_before = base.get(replica.name, (0, 0))[1] / MIB
    rss = memory.get(replica.name, (0, 0))[1] / MIB
    tables = replica.tables
    return {
        "name": replica.name,
        "tables": tables,
        "cores": round(replica.cpu_seconds / seconds, 3) if seconds > 0 else None,
        "idle_cores": round(replica.idle_cores, 3),
        "cpu_ms_per_table_second": _per_table_ms(replica.cpu_seconds, seconds, tables),
        "pss_before_mib": round(replica.pss_before_mib, 1),
        "pss_mib": round(replica.pss_mib, 1),
        "rss_before_mib": round(rss_before, 1),
        "rss_mib": round(rss, 1),
        "pss_mib_per_table": _round(replica.mib_per_table(), 3),
        "rss_mib_per_table": round((rss - rss_before) / tables, 3) if tables else None,
    }


def _per_table_ms(cpu_seconds: float, seconds: float, tables: int) -> float | None:
    """CPU milliseconds one live table takes a second."""
    if seconds <= 0 or tables <= 0:
        return None
    return round(1000 * cpu_seconds / seconds / tables, 3)


def _client_percentiles(samples: Sequence[float]) -> dict[str, float | None]:
    """p50 and p99 in ms of the scripted people's round trips (nearest rank)."""
    out: dict[str, float | None] = {}
    for name, q in (("p50", 0.5), ("p99", 0.99)):
        value = percentile(samples, q)
        out[name] = None if value is None else round(1000 * value, 2)
    return out


def _run_errors(
    start: Snapshot,
    after: Snapshot,
    died: list[str],
    recorder: RoundTrips,
    tables_live: int,
    tables: int,
) -> dict[str, Any]:
    """The run's errors from before the first table to the window's end (see
    :func:`hebei.bench.stack_metrics.run_errors`), the engines' refusals of calls on matches they do not
    own excepted (the router's redirects: how a client finds the owner), plus the scripted
    people's reconnects and failed streams (``recorder`` as it stood at the window's end: the
    tables are dissolved after it, and a stream may end then without the match's last
    observation and join again) and the tables no longer live at the window's end."""
    table = delta(_sum(after.replicas.values()), _sum(start.replicas.values()))
    moved = {"table": table, **_moved(after.services, start.services)}
    found = dict(run_errors(moved, delta(after.bots, start.bots), died))
    found.pop("total")
    redirects = int(total(table, "hebei_table_owner_refusals_total"))
    if "rpc_errors" in found:  # the refusals among the calls ended UNAVAILABLE
        unavailable = total(table, "grpc_server_handled_total", grpc_code="UNAVAILABLE")
        found["rpc_errors"] -= int(min(redirects, unavailable))
    if "bot_reconnects" in found:  # a bot session counts its redirects as reconnects
        bots_redirected = total(table, "hebei_table_owner_refusals_total", rpc="Play")
        bots_redirected -= recorder.redirects
        found["bot_reconnects"] -= int(min(found["bot_reconnects"], max(0, bots_redirected)))
    found.update(recorder.errors())
    if tables_live < tables:
        found["tables_not_live"] = tables - tables_live
    counts = {k: v for k, v in found.items() if isinstance(v, int) and v}
    out: dict[str, Any] = {"total": sum(counts.values()), **counts}
    if died:
        out["died"] = died
    if redirects:
        out["owner_redirects_not_errors"] = redirects
    return out


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)
