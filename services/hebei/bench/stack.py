"""The whole-stack benchmark behind ``hebei bench stack``.

It starts the real services as separate processes (``hebei.stack.processes``: ledger, table
engine, matchmaking, bot workers, on embedded or configured PostgreSQL and Redis), runs a
one-round tournament of ``tables`` tables of bots through matchmaking, and measures:

- hands per second through the stack, from StartTournament to the last match's end;
- the same policies on the same walls (the matches' seeds, published once they ended) in this
  one process, and the ratio of the two;
- the seat round trip at the engine (an observation offered to a bot seat → its action
  received: ``hebei_table_decision_wait_seconds{seat_kind="bot"}``), p50 and p99;
- the p99 of every service's RPC methods (``grpc_server_handling_seconds``);
- CPU seconds per component (engine, matchmaking, ledger, bot workers, PostgreSQL, Redis);
- events and settlements written per second.

``soak_seconds`` turns it into a soak: rounds are played back to back for that long, and the
memory (RSS) of every process and the seat round trip's p99 are sampled per window.

Percentiles of histograms are interpolated within buckets, as Prometheus' histogram_quantile.
"""

from __future__ import annotations

import math
import time
import urllib.request
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import psutil
from prometheus_client.parser import text_string_to_metric_families

__all__ = ["TARGETS", "StackBenchOptions", "histogram_quantile", "run_stack_bench"]

TARGETS = {"hands_per_second": 25.0, "ratio": 0.25, "seat_rtt_p99_ms": 20.0}
DEFAULT_PER_DECISION = 5  # seconds: no bot ever times out, even on a loaded machine
WARM_SEED, WARM_HANDS = 999_999, 8  # the in-process warm-up (workers warm up too)

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


# ---------------------------------------------------------------------------- metrics


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


# ---------------------------------------------------------------------------- processes


def _tree(pid: int) -> list[psutil.Process]:
    try:
        process = psutil.Process(pid)
        return [process, *process.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _cpu(processes: Iterable[psutil.Process]) -> float:
    seconds = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            seconds += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return seconds


def _rss(processes: Iterable[psutil.Process]) -> int:
    size = 0
    for process in processes:
        try:
            size += process.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return size


def _databases() -> dict[str, list[psutil.Process]]:
    """This machine's PostgreSQL and Redis processes (embedded or system ones)."""
    found: dict[str, list[psutil.Process]] = {"postgres": [], "redis": []}
    for process in psutil.process_iter(["name"]):
        name = process.info.get("name") or ""
        if name.startswith("postgres"):
            found["postgres"].append(process)
        elif name.startswith("redis-server"):
            found["redis"].append(process)
    return found


# ---------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class StackBenchOptions:
    """What the benchmark plays."""

    tables: int = 16
    hands: int = 8
    policy: str = "expert"
    worker_processes: int = 2
    seed: int = 1
    soak_seconds: float = 0.0
    window_seconds: float = 60.0


@dataclass
class _Components:
    """The processes of each component of the running stack."""

    pids: dict[str, list[int]] = field(default_factory=dict)

    def processes(self) -> dict[str, list[psutil.Process]]:
        out = {name: [p for pid in pids for p in _tree(pid)] for name, pids in self.pids.items()}
        out.update(_databases())
        return out


def _components(stack: Any) -> _Components:
    pids: dict[str, list[int]] = defaultdict(list)
    for name, child in stack.children.items():
        component = "bots" if name.startswith("bots") else name
        if child.pid:
            pids[component].append(child.pid)
    return _Components(dict(pids))


def _in_process(policy: str, seeds: Iterable[int], hands: int) -> tuple[float, int]:
    """Hands per second of the same policies on the same walls in this process."""
    from hebei.bench.bots import play_lineup

    lineup = (policy,) * 4
    play_lineup(lineup, WARM_SEED, WARM_HANDS)  # fill the shanten tables first, as a worker does
    played = 0
    started = time.perf_counter()
    for seed in seeds:
        _seated, _scores, count = play_lineup(lineup, seed, hands)
        played += count
    seconds = time.perf_counter() - started
    return (played / seconds if seconds > 0 else 0.0), played


def run_stack_bench(
    options: StackBenchOptions, status: Callable[[str], None] = lambda _text: None
) -> dict[str, Any]:
    """Run the benchmark (see the module docstring); return its figures."""
    from hebei.common.client import create_channel
    from hebei.stack.processes import StackOptions, start_stack
    from hebei.v1 import matchmaking_pb2 as mm
    from hebei.v1 import matchmaking_pb2_grpc, table_pb2, table_pb2_grpc

    seats = 4 * options.tables
    sessions = -(-seats // options.worker_processes) + 4
    stack_options = StackOptions(
        worker_processes=options.worker_processes, worker_sessions=sessions
    )
    with start_stack(stack_options, status=status) as stack:
        channel = create_channel(
            stack.address("matchmaking"), token=stack.operator_token, timeout=120.0
        )
        table_channel = create_channel(
            stack.address("table"), token=stack.operator_token, timeout=60.0
        )
        matchmaking = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
        table = table_pb2_grpc.TableServiceStub(table_channel)
        soak = options.soak_seconds > 0
        config = mm.TournamentConfig(
            name="bench", rounds=64 if soak else 1, seed=options.seed,
            seating=mm.SEATING_MODE_RANDOM, filler_bot_policy=options.policy,
        )  # fmt: skip
        config.length.hands = options.hands
        config.time_control.per_decision.FromSeconds(DEFAULT_PER_DECISION)
        tid = matchmaking.CreateTournament(mm.CreateTournamentRequest(config=config))
        tid = tid.tournament.tournament_id
        status(f"registering {seats} {options.policy} bots")
        for _ in range(seats):
            matchmaking.Register(
                mm.RegisterRequest(tournament_id=tid, bot=mm.BotEntrant(policy=options.policy))
            )
        components = _components(stack)
        metrics_addresses = dict(stack.metrics_addresses)
        before = {name: scrape(address) for name, address in metrics_addresses.items()}
        cpu_before = {name: _cpu(ps) for name, ps in components.processes().items()}
        rss_samples: dict[str, list[int]] = defaultdict(list)
        windows: list[dict[str, Any]] = []
        status(f"playing {options.tables} tables of {options.hands} hands")
        started = time.perf_counter()
        matchmaking.StartTournament(mm.StartTournamentRequest(tournament_id=tid))
        window_start, window_before = started, before["table"]
        feed = matchmaking.WatchTournament(mm.WatchTournamentRequest(tournament_id=tid))
        last_sample = 0.0
        for event in feed:
            now = time.perf_counter()
            if soak and now - last_sample >= 5.0:
                last_sample = now
                for name, processes in components.processes().items():
                    rss_samples[name].append(_rss(processes))
            if soak and now - window_start >= options.window_seconds:
                window_after = scrape(metrics_addresses["table"])
                windows.append(_window(window_after, window_before, now - window_start))
                window_start, window_before = now, window_after
            if soak and now - started >= options.soak_seconds:
                matchmaking.CancelTournament(
                    mm.CancelTournamentRequest(tournament_id=tid, reason="soak over")
                )
            if event.type in (
                mm.TOURNAMENT_EVENT_TYPE_FINISHED,
                mm.TOURNAMENT_EVENT_TYPE_CANCELLED,
            ):
                break
        elapsed = time.perf_counter() - started
        after = {name: scrape(address) for name, address in metrics_addresses.items()}
        cpu_after = {name: _cpu(ps) for name, ps in components.processes().items()}
        seating = matchmaking.GetSeating(mm.GetSeatingRequest(tournament_id=tid)).rounds
        finished = [t for r in seating for t in r.tables if t.status == 3]
        hands = sum(t.hands_played for t in finished)
        seeds = [
            table.GetMatch(table_pb2.GetMatchRequest(match_id=t.match_id)).match.seed
            for t in finished
        ]
        channel.close()
        table_channel.close()
    status(f"replaying the same {len(seeds)} walls in one process")
    in_process, replayed = _in_process(options.policy, seeds[: max(1, len(seeds))], options.hands)
    moved = {name: delta(after[name], before[name]) for name in after}
    rtt = buckets_of(moved["table"], "hebei_table_decision_wait_seconds", seat_kind="bot")
    p50, p99 = histogram_quantile(0.5, rtt), histogram_quantile(0.99, rtt)
    hands_per_second = hands / elapsed if elapsed > 0 else 0.0
    result: dict[str, Any] = {
        "tables": options.tables,
        "hands_per_match": options.hands,
        "policy": options.policy,
        "worker_processes": options.worker_processes,
        "hands": hands,
        "seconds": round(elapsed, 2),
        "hands_per_second": round(hands_per_second, 2),
        "in_process_hands_per_second": round(in_process, 2),
        "in_process_hands": replayed,
        "ratio": round(hands_per_second / in_process, 3) if in_process else None,
        "seat_rtt_p50_ms": None if p50 is None else round(p50 * 1000, 2),
        "seat_rtt_p99_ms": None if p99 is None else round(p99 * 1000, 2),
        "method_p99_ms": {name: method_p99(samples) for name, samples in moved.items()},
        "cpu_seconds": {
            name: round(cpu_after.get(name, 0.0) - cpu_before.get(name, 0.0), 2)
            for name in sorted(set(cpu_after) | set(cpu_before))
        },
        "events_per_second": round(
            total(moved["table"], "hebei_table_event_log_batch_size_sum") / elapsed, 1
        ),
        "settlements_per_second": round(
            total(moved["ledger"], "hebei_ledger_settlements_total", result="posted") / elapsed,
            2,
        ),
    }
    if soak:
        result["soak"] = _soak_summary(rss_samples, windows)
    return result


def _window(after: Samples, before: Samples, seconds: float) -> dict[str, Any]:
    moved = delta(after, before)
    rtt = buckets_of(moved, "hebei_table_decision_wait_seconds", seat_kind="bot")
    p99 = histogram_quantile(0.99, rtt)
    hands = total(moved, "hebei_table_hands_completed_total")
    return {
        "seconds": round(seconds, 1),
        "hands_per_second": round(hands / seconds, 2) if seconds else 0.0,
        "seat_rtt_p99_ms": None if p99 is None else round(p99 * 1000, 2),
    }


def _soak_summary(rss: Mapping[str, list[int]], windows: list[dict[str, Any]]) -> dict[str, Any]:
    """Memory growth per component after the first minute, and the p99 of each window."""
    memory = {}
    for name, samples in rss.items():
        if len(samples) < 3:
            continue
        settled = samples[len(samples) // 6 :]  # after the warm-up
        memory[name] = {
            "first_mib": round(settled[0] / 2**20, 1),
            "last_mib": round(settled[-1] / 2**20, 1),
            "max_mib": round(max(settled) / 2**20, 1),
            "growth_mib": round((settled[-1] - settled[0]) / 2**20, 1),
        }
    p99s = [w["seat_rtt_p99_ms"] for w in windows if w["seat_rtt_p99_ms"] is not None]
    return {
        "windows": windows,
        "memory": memory,
        "seat_rtt_p99_ms_spread": round(max(p99s) - min(p99s), 2) if p99s else None,
    }
