"""The whole-stack benchmark behind ``hebei bench stack``.

It starts the real services as separate processes (``hebei.stack.processes``: ledger, table
engine, matchmaking, bot workers, on embedded or configured PostgreSQL and Redis), warms every
table up with one hand (the in-process anchor warms up too), runs a one-round tournament of
``tables`` tables of bots through matchmaking, and measures:

- hands per second through the stack, from StartTournament to the tournament's end;
- the same policies on the same walls (the matches' seeds, published once they ended) in this
  one process, and the ratio of the two;
- the seat round trip at the engine as the issue defines it (a bot seat's observation sent →
  its action received: ``hebei_table_decision_answer_seconds{seat_kind="bot"}``, from the
  moment the engine hands the decision to gRPC), p50 and p99; the longer wait from the
  decision's opening (``hebei_table_decision_wait_seconds``: the event log's commit, which
  the observation must wait for, comes first) beside it; and where they go (the commit, the
  bots' thinking);
- the p99 of every service's RPC methods (``grpc_server_handling_seconds``);
- CPU seconds per component (engine, matchmaking, ledger, bot workers, PostgreSQL, Redis) and
  per hand;
- events and settlements written per second;
- the errors of the run (:func:`hebei.bench.stack_metrics.run_errors`).

Embedded PostgreSQL and Redis (no URL configured) are this run's own, in a fresh folder under
``<data dir>/bench/`` that is removed afterwards (the logs stay in ``<data dir>/logs``): a
tournament that an interrupted earlier run left unfinished would otherwise be resumed by the
director and played beside the measured one.

``soak_seconds`` turns it into a soak: one-round tournaments are played back to back until
that time has passed (the last one to its end), while the memory of every process (each
Celery process on its own) and the seat round trip's p99 are sampled per window; the summary
says whether memory stayed within :data:`MEMORY_BOUND_MIB` of growth after the warm-up and
whether the p99 stayed stable (:func:`_soak_summary`).

Percentiles of histograms are interpolated within buckets, as Prometheus' histogram_quantile.
"""

from __future__ import annotations

import dataclasses
import secrets
import shutil
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hebei.bench.stack_metrics import (
    DECISION_WAIT,
    ROUND_TRIP,
    Components,
    Samples,
    bot_percentiles,
    buckets_of,
    components_of,
    cpu_seconds,
    delta,
    method_p99,
    percentiles,
    run_data_dir,
    run_errors,
    scrape_all,
    total,
    wait_workers_warm,
    workers_warm,
)

if TYPE_CHECKING:
    from hebei.stack.processes import StackOptions

__all__ = ["TARGETS", "StackBenchOptions", "run_stack_bench"]

TARGETS = {"hands_per_second": 25.0, "ratio": 0.25, "seat_rtt_p99_ms": 20.0}
DEFAULT_PER_DECISION = 5  # seconds: no bot ever times out, even on a loaded machine
WARM_SEED, WARM_HANDS = 999_999, 8  # the in-process warm-up (workers warm up too)
MEMORY_BOUND_MIB = 64.0  # a soak: growth of any component's RSS after the warm-up
P99_STABLE_FACTOR = 2.0  # a soak: no window's p99 above twice the windows' median
RSS_EVERY = 5.0  # seconds between a soak's memory samples


# ---------------------------------------------------------------------------- metrics


# ---------------------------------------------------------------------------- processes


# ---------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class StackBenchOptions:
    """What the benchmark plays."""

    tables: int = 16
    hands: int = 8
    policy: str = "expert"
    worker_processes: int = 2
    seed: int = 1
    soak_seconds: float = 0.0  # > 0: one-round tournaments back to back for that long
    window_seconds: float = 60.0  # the soak's windows (p99, hands/s per window)
    memory_bound_mib: float = MEMORY_BOUND_MIB
    warm_up: bool = True  # one hand on every table before measuring
    table_replicas: int = 1  # table engine replicas sharing the matches (1-8)


class _RoutedTable:
    """The engine's ``GetMatch`` at each match's owner replica (what the benchmark reads)."""

    def __init__(self, router: Any) -> None:
        self.router = router

    def GetMatch(self, request: Any) -> Any:
        from hebei.v1 import table_pb2_grpc

        return self.router.call(
            request.match_id,
            lambda channel, timeout: table_pb2_grpc.TableServiceStub(channel).GetMatch(
                request, timeout=timeout
            ),
        )


def _service_metrics(stack: Any) -> dict[str, list[str]]:
    """Each service's /metrics addresses: every replica of a replicated one (summed)."""
    out: dict[str, list[str]] = defaultdict(list)
    for name, child in stack.children.items():
        if child.address and child.metrics_address:
            out[child.service or name].append(child.metrics_address)
    return dict(out)


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


@dataclass
class _Played:
    """What the tournaments played: hands, the walls of the finished matches, the others."""

    hands: int = 0
    seeds: list[int] = field(default_factory=list)
    matches: int = 0
    unfinished: int = 0  # matches of a finished tournament that did not finish
    tournaments: int = 0


class _Monitor:
    """The soak's samples while it plays: RSS of every component every few seconds, and the
    table engine's seat round trip and hands per window."""

    def __init__(self, components: Components, table_metrics: list[str], window: float) -> None:
        self.components = components
        self.table_metrics = table_metrics
        self.window = window
        self.pss: dict[str, list[int]] = defaultdict(list)
        self.windows: list[dict[str, Any]] = []
        self.start = components.memory()
        self._sampled = 0.0
        self._window_start = time.perf_counter()
        self._window_before = scrape_all(table_metrics)

    def restart(self) -> None:
        """The windows start now (after the warm-up round)."""
        self._window_start = time.perf_counter()
        self._window_before = scrape_all(self.table_metrics)

    def tick(self) -> None:
        now = time.perf_counter()
        if now - self._sampled >= RSS_EVERY:
            self._sampled = now
            for name, (pss, _rss) in self.components.memory().items():
                self.pss[name].append(pss)
        if now - self._window_start >= self.window:
            after = scrape_all(self.table_metrics)
            self.windows.append(_window(after, self._window_before, now - self._window_start))
            self._window_start, self._window_before = now, after


def _play_tournament(
    matchmaking: Any, table: Any, options: StackBenchOptions, seed: int, tick: Callable[[], None]
) -> _Played:
    """One one-round tournament of ``options.tables`` tables of bots, to its end."""
    from hebei.common.seating import every_round
    from hebei.v1 import matchmaking_pb2 as mm
    from hebei.v1 import table_pb2

    config = mm.TournamentConfig(
        name="bench", rounds=1, seed=seed, seating=mm.SEATING_MODE_RANDOM,
        filler_bot_policy=options.policy,
    )  # fmt: skip
    config.length.hands = options.hands
    config.time_control.per_decision.FromSeconds(DEFAULT_PER_DECISION)
    tid = matchmaking.CreateTournament(mm.CreateTournamentRequest(config=config))
    tid = tid.tournament.tournament_id
    for _ in range(4 * options.tables):
        matchmaking.Register(
            mm.RegisterRequest(tournament_id=tid, bot=mm.BotEntrant(policy=options.policy))
        )
    matchmaking.StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    feed = matchmaking.WatchTournament(mm.WatchTournamentRequest(tournament_id=tid))
    try:
        for event in feed:
            tick()
            if event.type in (
                mm.TOURNAMENT_EVENT_TYPE_FINISHED,
                mm.TOURNAMENT_EVENT_TYPE_CANCELLED,
            ):
                break
    finally:
        feed.cancel()
    seating = every_round(matchmaking.GetSeating, tid)
    tables = [t for r in seating for t in r.tables]
    finished = [t for t in tables if t.status == 3]
    seeds = [
        table.GetMatch(table_pb2.GetMatchRequest(match_id=t.match_id)).match.seed for t in finished
    ]
    return _Played(
        hands=sum(t.hands_played for t in finished),
        seeds=seeds,
        matches=len(tables),
        unfinished=len(tables) - len(finished),
        tournaments=1,
    )


def run_stack_bench(
    options: StackBenchOptions, status: Callable[[str], None] = lambda _text: None
) -> dict[str, Any]:
    """Run the benchmark (see the module docstring); return its figures."""
    from hebei.stack.processes import StackOptions

    seats = 4 * options.tables
    sessions = -(-seats // options.worker_processes) + 4
    from hebei.common import embedded

    run = f"bench-{secrets.token_hex(4)}"
    run_dir = run_data_dir(run)
    stack_options = StackOptions(
        worker_processes=options.worker_processes,
        worker_sessions=sessions,
        data_dir=run_dir,
        log_dir=embedded.default_data_dir() / "logs",  # the usual place, kept after the run
        # Queues of this run's own: seat tasks an interrupted earlier run left in a
        # configured Redis name engines that are gone, and would hold sessions.
        env={"HEBEI_BOTS_QUEUE_PREFIX": run},
        table_replicas=options.table_replicas,
    )
    try:
        return _run_on_stack(options, stack_options, status)
    finally:
        if run_dir is not None:
            shutil.rmtree(run_dir, ignore_errors=True)


def _run_on_stack(
    options: StackBenchOptions, stack_options: StackOptions, status: Callable[[str], None]
) -> dict[str, Any]:
    from hebei.common.client import create_channel
    from hebei.common.routing import MatchRouter
    from hebei.stack.processes import start_stack
    from hebei.v1 import matchmaking_pb2_grpc

    soak = options.soak_seconds > 0
    with start_stack(stack_options, status=status) as stack:
        channel = create_channel(
            stack.address("matchmaking"), token=stack.operator_token, timeout=120.0
        )
        # every engine replica: a match's calls go to its owner
        router = MatchRouter(stack.address("table"), token=stack.operator_token, timeout=60.0)
        matchmaking = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
        table = _RoutedTable(router)
        components = components_of(stack)
        metrics_addresses = _service_metrics(stack)
        bot_addresses = list(stack.bot_metrics_addresses)
        monitor = (
            _Monitor(components, metrics_addresses["table"], options.window_seconds)
            if soak
            else None
        )
        shared_buffers = _shared_buffers(stack.database_url) if soak else 0
        tick = monitor.tick if monitor is not None else (lambda: None)
        if options.warm_up:  # as the in-process anchor warms up, and long-running workers are
            status(f"warming up: {options.tables} tables of one hand")
            _play_tournament(
                matchmaking, table, dataclasses.replace(options, hands=1), WARM_SEED, tick
            )
            if monitor is not None:
                monitor.restart()
        if not workers_warm(bot_addresses):
            status("waiting for the bot workers' warm-up")
            wait_workers_warm(bot_addresses)
        before = {name: scrape_all(found) for name, found in metrics_addresses.items()}
        bots_before = scrape_all(bot_addresses)
        cpu_before = {name: cpu_seconds(ps) for name, ps in components.processes().items()}
        played = _Played()
        status(
            f"playing {options.tables} tables of {options.hands} hands of {options.policy} bots"
            + (f", rounds back to back for {options.soak_seconds:g} s" if soak else "")
        )
        started = time.perf_counter()
        while True:
            one = _play_tournament(
                matchmaking, table, options, options.seed + played.tournaments, tick
            )
            played.hands += one.hands
            played.seeds += one.seeds
            played.matches += one.matches
            played.unfinished += one.unfinished
            played.tournaments += 1
            if not soak or time.perf_counter() - started >= options.soak_seconds:
                break
        elapsed = time.perf_counter() - started
        end_memory = components.memory() if monitor is not None else {}
        after = {name: scrape_all(found) for name, found in metrics_addresses.items()}
        bots_moved = delta(scrape_all(bot_addresses), bots_before)
        cpu_after = {name: cpu_seconds(ps) for name, ps in components.processes().items()}
        died = [child.exit_message() for child in stack.children.values() if not child.running()]
        channel.close()
        router.close()
    replay = played.seeds[: max(1, options.tables)]  # a soak replays one round's walls
    status(f"replaying the same {len(replay)} walls in one process")
    in_process, replayed = _in_process(options.policy, replay, options.hands)
    moved = {name: delta(after[name], before[name]) for name in after}
    latency = _latencies(moved["table"], bots_moved)
    rtt, wait = latency["decision_sent_to_answer"], latency["decision_offered_to_answer"]
    hands_per_second = played.hands / elapsed if elapsed > 0 else 0.0
    cpu = {
        name: round(cpu_after.get(name, 0.0) - cpu_before.get(name, 0.0), 2)
        for name in sorted(set(cpu_after) | set(cpu_before))
    }
    result: dict[str, Any] = {
        "tables": options.tables,
        "hands_per_match": options.hands,
        "policy": options.policy,
        "worker_processes": options.worker_processes,
        "table_replicas": options.table_replicas,
        "hands": played.hands,
        "matches": played.matches,
        "seconds": round(elapsed, 2),
        "hands_per_second": round(hands_per_second, 2),
        "in_process_hands_per_second": round(in_process, 2),
        "in_process_hands": replayed,
        "ratio": round(hands_per_second / in_process, 3) if in_process else None,
        "seat_rtt_p50_ms": rtt["p50"],
        "seat_rtt_p99_ms": rtt["p99"],
        "decision_wait_p50_ms": wait["p50"],
        "decision_wait_p99_ms": wait["p99"],
        "method_p99_ms": {name: method_p99(samples) for name, samples in moved.items()},
        "latency_ms": latency,
        "cpu_seconds": _cpu_by_component(cpu),
        "cpu_ms_per_hand": {
            name: round(1000 * seconds / played.hands, 1) if played.hands else None
            for name, seconds in _cpu_by_component(cpu).items()
        },
        # The policies' own time in the workers, wall clock and CPU (the seat loop thread's
        # around choose): what of the bots' CPU per hand is thinking, the rest being
        # transport, leases and the loop.
        "bot_decision_ms_per_hand": _per_hand(
            bots_moved, "hebei_bot_decision_seconds_sum", played.hands
        ),
        "bot_decision_cpu_ms_per_hand": _per_hand(
            bots_moved, "hebei_bot_decision_cpu_seconds_total", played.hands
        ),
        "events_per_second": round(
            total(moved["table"], "hebei_table_event_log_batch_size_sum") / elapsed, 1
        ),
        "settlements_per_second": round(
            total(moved["ledger"], "hebei_ledger_settlements_total", result="posted") / elapsed,
            2,
        ),
        "errors": run_errors(moved, bots_moved, died, unfinished=played.unfinished),
    }
    if monitor is not None:
        result["soak"] = _soak_summary(
            monitor.start,
            monitor.pss,
            end_memory,
            monitor.windows,
            {"postgres": options.memory_bound_mib + _mib(shared_buffers)},
            options.memory_bound_mib,
        )
    return result


def _cpu_by_component(cpu: Mapping[str, float]) -> dict[str, float]:
    """CPU seconds with the bot worker's processes summed as ``bots``."""
    out: dict[str, float] = defaultdict(float)
    for name, seconds in cpu.items():
        out["bots" if name.startswith("bots") else name] += seconds
    return {name: round(seconds, 2) for name, seconds in sorted(out.items())}


def _per_hand(samples: Samples, name: str, hands: int) -> float | None:
    """Milliseconds of ``name`` (seconds summed over its labels) per hand played."""
    return round(1000 * total(samples, name) / hands, 1) if hands else None


def _latencies(table: Samples, bots: Samples) -> dict[str, dict[str, float | None]]:
    """Where a decision's time goes: the event log's commits (an observation waits for its
    events' commit), the seat round trip from handing the decision to gRPC to the answer
    (transport both ways, the worker's loop and its thinking), the bots' thinking (measured
    in the workers), the whole wait from the decision's opening."""
    return {
        "event_log_commit": percentiles(buckets_of(table, "hebei_table_event_log_write_seconds")),
        "decision_sent_to_answer": bot_percentiles(table, ROUND_TRIP),
        "bot_decision": percentiles(buckets_of(bots, "hebei_bot_decision_seconds")),
        "decision_offered_to_answer": bot_percentiles(table, DECISION_WAIT),
    }


def _window(after: Samples, before: Samples, seconds: float) -> dict[str, Any]:
    moved = delta(after, before)
    hands = total(moved, "hebei_table_hands_completed_total")
    return {
        "seconds": round(seconds, 1),
        "hands_per_second": round(hands / seconds, 2) if seconds else 0.0,
        "seat_rtt_p99_ms": bot_percentiles(moved, ROUND_TRIP)["p99"],
        "decision_wait_p99_ms": bot_percentiles(moved, DECISION_WAIT)["p99"],
    }


def _shared_buffers(database_url: str) -> int:
    """PostgreSQL's ``shared_buffers`` in bytes (0 if it cannot be read)."""
    import psycopg

    try:
        with psycopg.connect(database_url, connect_timeout=10) as conn:
            row = conn.execute(
                "SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'"
            ).fetchone()
    except psycopg.Error:
        return 0
    return int(row[0]) if row else 0


def _mib(size: int) -> float:
    return round(size / 2**20, 1)


def _soak_summary(
    start: Mapping[str, tuple[int, int]],
    samples: Mapping[str, list[int]],
    end: Mapping[str, tuple[int, int]],
    windows: list[dict[str, Any]],
    bounds: Mapping[str, float],
    bound_mib: float,
) -> dict[str, Any]:
    """Memory of every component at the start and at the end (RSS and PSS, see
    :func:`memory_of`), its PSS after the warm-up (the first sixth of the samples: caches fill,
    pools open), and whether its PSS grew by at most its bound after the warm-up (``bounds``,
    else ``bound_mib``: PostgreSQL's is larger by its shared buffers, which fill as the
    tables grow: a cache, not a leak); the seat
    round trip's p99 of each window, and whether it stayed stable (after the first window, no
    window above :data:`P99_STABLE_FACTOR` × their median)."""
    memory = {}
    for name in sorted(set(start) | set(end)):
        first_pss, first_rss = start.get(name, (0, 0))
        last_pss, last_rss = end.get(name, (0, 0))
        series = [size for size in samples.get(name, []) if size]
        warm = series[len(series) // 6] if series else first_pss
        memory[name] = {
            "start_rss_mib": _mib(first_rss),
            "end_rss_mib": _mib(last_rss),
            "start_mib": _mib(first_pss),
            "warm_mib": _mib(warm),
            "end_mib": _mib(last_pss),
            "max_mib": _mib(max([first_pss, *series, last_pss])),  # the most it held
            "growth_mib": _mib(last_pss - warm),
            "bound_mib": bounds.get(name, bound_mib),
        }
    settled = windows[1:] if len(windows) > 1 else windows  # the first one warms up
    p99s = sorted(w["seat_rtt_p99_ms"] for w in settled if w["seat_rtt_p99_ms"] is not None)
    median = p99s[len(p99s) // 2] if p99s else None
    return {
        "windows": windows,
        "memory": memory,
        "memory_bound_mib": bound_mib,
        "memory_within_bound": all(m["growth_mib"] <= m["bound_mib"] for m in memory.values()),
        "seat_rtt_p99_ms_median": median,
        "seat_rtt_p99_ms_max": p99s[-1] if p99s else None,
        "p99_stable": bool(p99s) and p99s[-1] <= P99_STABLE_FACTOR * max(median or 0.0, 1.0),
    }
