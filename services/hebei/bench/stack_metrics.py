"""What a benchmark of the running stack reads (``hebei bench stack``, ``hebei bench scale``):
the samples of the services' /metrics pages and their quantiles, the stack's processes (CPU and
memory per component, PostgreSQL's and Redis' processes), the bot workers' warm-up, and the
errors of a run.

Percentiles of histograms are interpolated within buckets, as Prometheus' histogram_quantile.
"""

from __future__ import annotations

import math
import os
import time
import urllib.request
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from prometheus_client.parser import text_string_to_metric_families

# The seat round trip as the issue defines it (observation sent → action received, at the
# engine), and the whole wait from a decision's opening (its events' commit first).
ROUND_TRIP = "hebei_table_decision_answer_seconds"

DECISION_WAIT = "hebei_table_decision_wait_seconds"

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(address: str) -> Samples:
    """Every sample of a /metrics page: ``(name, sorted labels) -> value``."""
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as response:
        text = response.read().decode()
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def delta(after: Samples, before: Samples) -> Samples:
    """``after - before`` per sample (counters and histogram series)."""
    return {key: value - before.get(key, 0.0) for key, value in after.items()}


def histogram_quantile(q: float, buckets: Iterable[tuple[float, float]]) -> float | None:
    """The ``q`` quantile of a histogram given as (upper bound, cumulative count) pairs, with
    linear interpolation inside the bucket (None without observations)."""
    ordered = sorted(buckets)
    if not ordered or ordered[-1][1] <= 0:
        return None
    rank = q * ordered[-1][1]
    lower, below = 0.0, 0.0
    for bound, count in ordered:
        if count >= rank:
            if math.isinf(bound):
                return lower
            if count == below:
                return bound
            return lower + (bound - lower) * (rank - below) / (count - below)
        lower, below = bound, count
    return ordered[-1][0]


def buckets_of(samples: Samples, name: str, **labels: str) -> list[tuple[float, float]]:
    """The (le, cumulative count) pairs of ``name``'s series matching ``labels``, summed."""
    found: dict[float, float] = defaultdict(float)
    for (metric, pairs), value in samples.items():
        if metric != f"{name}_bucket":
            continue
        values = dict(pairs)
        if all(values.get(k) == v for k, v in labels.items()):
            found[float(values["le"])] += value
    return sorted(found.items())


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples matching ``labels``."""
    return sum(
        value
        for (metric, pairs), value in samples.items()
        if metric == name and all(dict(pairs).get(k) == v for k, v in labels.items())
    )


def method_p99(samples: Samples) -> dict[str, float]:
    """p99 in ms of every unary RPC method seen (``Service/Method``)."""
    methods = {
        (dict(pairs)["grpc_service"], dict(pairs)["grpc_method"])
        for (metric, pairs), value in samples.items()
        if metric == "grpc_server_handling_seconds_count" and value > 0
    }
    out = {}
    for service, method in sorted(methods):
        p99 = histogram_quantile(
            0.99,
            buckets_of(
                samples, "grpc_server_handling_seconds", grpc_service=service, grpc_method=method
            ),
        )
        if p99 is not None:
            out[f"{service.rsplit('.', 1)[-1]}/{method}"] = round(p99 * 1000, 2)
    return out


def process_tree(pid: int) -> list[psutil.Process]:
    try:
        process = psutil.Process(pid)
        return [process, *process.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def cpu_seconds(processes: Iterable[psutil.Process]) -> float:
    seconds = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            seconds += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return seconds


def memory_of(processes: Iterable[psutil.Process]) -> tuple[int, int]:
    """The memory of a group of processes: the sum of their PSS (their RSS with each shared
    page divided among the processes sharing it, so that PostgreSQL's shared buffers count
    once, not once per backend; their RSS where PSS cannot be read), and of their RSS."""
    pss = rss = 0
    for process in processes:
        try:
            info = process.memory_info()
            rss += info.rss
            try:
                pss += process.memory_full_info().pss
            except (psutil.AccessDenied, AttributeError):
                pss += info.rss
        except psutil.NoSuchProcess:
            continue
    return pss, rss


def database_processes(data_dir: str = "") -> dict[str, list[psutil.Process]]:
    """The stack's PostgreSQL and Redis processes: the servers whose command line names
    ``data_dir`` (the embedded ones) and their children; without such a server (configured
    databases), every PostgreSQL and Redis process of this machine."""
    found: dict[str, list[psutil.Process]] = {"postgres": [], "redis": []}
    ours: dict[str, list[psutil.Process]] = {"postgres": [], "redis": []}
    for process in psutil.process_iter(["name", "cmdline"]):
        name = process.info.get("name") or ""
        kind = (
            "postgres"
            if name.startswith("postgres")
            else "redis"
            if name.startswith("redis-server")
            else None
        )
        if kind is None:
            continue
        found[kind].append(process)
        if data_dir and any(data_dir in part for part in process.info.get("cmdline") or ()):
            ours[kind].extend(process_tree(process.pid))
    return {kind: ours[kind] or found[kind] for kind in found}


@dataclass
class Components:
    """The processes of each component of the running stack."""

    pids: dict[str, list[int]] = field(default_factory=dict)
    data_dir: str = ""

    def processes(self) -> dict[str, list[psutil.Process]]:
        """The processes of each component; each process of a bot worker is one of its own
        (``bots-1``: the worker's main process, ``bots-1/<pid>``: its Celery processes), so
        that the soak's memory bound holds per process."""
        out: dict[str, list[psutil.Process]] = {}
        for name, pids in self.pids.items():
            tree = [p for pid in pids for p in process_tree(pid)]
            if name.startswith("bots"):
                for process in tree:
                    out[name if process.pid in pids else f"{name}/{process.pid}"] = [process]
            else:
                out[name] = tree
        out.update(database_processes(self.data_dir))
        return out

    def memory(self) -> dict[str, tuple[int, int]]:
        """(PSS, RSS) of each component (see :func:`memory_of`)."""
        return {name: memory_of(processes) for name, processes in self.processes().items()}


def components_of(stack: Any) -> Components:
    pids: dict[str, list[int]] = defaultdict(list)
    for name, child in stack.children.items():
        if child.pid:
            pids[name].append(child.pid)
    return Components(dict(pids), str(getattr(stack, "data_dir", "")))


def run_data_dir(run: str) -> Path | None:
    """A fresh data folder for this run's embedded servers (None: both are configured)."""
    from hebei.common import embedded

    if os.environ.get(embedded.DATABASE_URL_ENV) and os.environ.get(embedded.BROKER_URL_ENV):
        return None
    return embedded.default_data_dir() / "bench" / run


def run_errors(
    moved: Mapping[str, Samples], bots: Samples, died: list[str], *, unfinished: int = 0
) -> dict[str, Any]:
    """Everything that went wrong during the run (the soak requires a total of 0): RPCs that
    ended with an error status (CANCELLED excepted: the benchmark hangs up its own watch
    feeds), seats the engine had to auto-play, failed matches and event log writes, outbox
    retries and refusals, actions refused, bot session failures and reconnects, matches
    that did not finish, processes that died."""
    table = moved["table"]
    counts = {
        "rpc_errors": sum(
            value
            for samples in moved.values()
            for (metric, pairs), value in samples.items()
            if metric == "grpc_server_handled_total"
            and dict(pairs).get("grpc_code") not in ("OK", "CANCELLED")
        ),
        "auto_plays": total(table, "hebei_table_auto_plays_total"),
        "matches_failed": total(table, "hebei_table_matches_failed_total"),
        "event_log_write_failures": total(table, "hebei_table_event_log_write_failures_total"),
        "outbox_not_delivered_first_time": total(
            table, "hebei_table_outbox_deliveries_total", result="retry"
        )
        + total(table, "hebei_table_outbox_deliveries_total", result="refused"),
        "actions_rejected": total(table, "hebei_table_actions_rejected_total"),
        "streams_refused": total(table, "hebei_table_streams_refused_total"),
        "bot_failures": total(bots, "hebei_bot_failures_total"),
        "bot_reconnects": total(bots, "hebei_bot_reconnects_total"),
        "unfinished_matches": float(unfinished),
        "processes_died": float(len(died)),
    }
    found = {name: int(value) for name, value in counts.items() if value}
    return {"total": sum(found.values()), **found, **({"died": died} if died else {})}


def workers_warm(addresses: Iterable[str]) -> bool:
    """Whether every bot worker process has warmed up (``hebei_bot_warm``; a worker that
    does not say counts as warm)."""
    return all(scrape(address).get(("hebei_bot_warm", ()), 1.0) >= 1.0 for address in addresses)


def wait_workers_warm(addresses: Iterable[str], timeout: float = 300.0) -> None:
    """Wait until the workers' warm-up (a thread that fills the policies' tables) is done:
    measured play must not pay for it. TimeoutError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not workers_warm(addresses):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the bot workers did not warm up within {timeout:g} s")
        time.sleep(0.25)


def scrape_all(addresses: Iterable[str]) -> Samples:
    """The samples of several /metrics pages summed (the bot worker's processes)."""
    out: Samples = defaultdict(float)
    for address in addresses:
        for key, value in scrape(address).items():
            out[key] += value
    return dict(out)


def percentiles(buckets: list[tuple[float, float]]) -> dict[str, float | None]:
    found = {q: histogram_quantile(q, buckets) for q in (0.5, 0.99)}
    return {
        f"p{round(q * 100)}": None if v is None else round(v * 1000, 2) for q, v in found.items()
    }


def bot_percentiles(table: Samples, metric: str) -> dict[str, float | None]:
    """p50 and p99 in ms of one of the engine's decision histograms, for the bot seats."""
    return percentiles(buckets_of(table, metric, seat_kind="bot"))
