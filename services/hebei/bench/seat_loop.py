"""The seat loop's CPU per decision outside the policy, against a stand-in Play server.

A microbenchmark of the bot workers' transport. It
runs ``--sessions`` real :class:`hebei.bots.session.SeatSession` s on this process's seat loop,
each with a real :class:`hebei.bots.lease.SeatLease` on Redis (``--redis-url``, else an
embedded one), against a stand-in ``TableService/Play`` server in another process that replays
recorded observations (seeded in-process matches, serialised as the engine sends them), one
observation after each answer. The policy is trivial (the last legal action), so what is
measured is the loop: reading each observation, the lease record, the answer's message, the
gRPC reads and writes, metrics, the event loop. Figures: the seat-loop thread's CPU per
decision (``thread_time``), the process's CPU per decision (the lease keeper, gRPC's threads
too), per repeat; the median of the repeats is the figure to compare.

    .venv/bin/python -m hebei.bench.seat_loop --sessions 32 --decisions 400 [--json]

To compare trees, run it with ``PYTHONPATH=<other tree>/services`` (it prints the ``hebei``
package it imported).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from typing import Any

FINISHED = b""  # stand-in for the match_finished observation in the recorded lists


def record_decisions(seed: int, hands: int) -> list[list[bytes]]:
    """Per seat, the serialised ``PlayResponse`` of every decision of a seeded match played
    in-process (the efficiency policy at every seat), as the engine sends them to a bot."""
    from hebei.bots.policies import make_policy
    from hebei.common.convert import SeatPublic, observation_to_proto
    from hebei.rules.match import Match, MatchLength
    from hebei.rules.simulate import SimulationSummary, play_match
    from hebei.rules.views import observe
    from hebei.v1 import table_pb2

    per_seat: list[list[bytes]] = [[], [], [], []]
    public = [SeatPublic(f"bot{s}", connected=True) for s in range(4)]
    counter = [0]

    class Recorder:
        def __init__(self, seat: int) -> None:
            self.policy = make_policy("efficiency", seed=seed + seat)

        def choose(self, state: Any, seat: int, options: tuple) -> Any:
            view = observe(state, seat, (0, 0, 0, 0))
            counter[0] += 1
            message = observation_to_proto(
                view,
                table_id="bench",
                match_id="bench",
                seats=public,
                decision_id=counter[0],
                deadline=time.time() + 30,
            )
            per_seat[seat].append(table_pb2.PlayResponse(observation=message).SerializeToString())
            return self.policy.choose(view)

    play_match(
        Match(seed, MatchLength(hands=hands)),
        [Recorder(s) for s in range(4)],
        SimulationSummary(),
    )
    return per_seat


def serve(per_seat: list[list[bytes]], decisions: int, port_out: Any) -> None:
    """The stand-in Play server (a process of its own): on each join, ``decisions``
    recorded observations of the joined seat, each after the answer to the one before, then
    the match's end."""
    import grpc.aio

    from hebei.v1 import table_pb2, table_pb2_grpc

    finished = table_pb2.PlayResponse()
    finished.observation.match_finished = True

    class Stand(table_pb2_grpc.TableServiceServicer):
        async def Play(self, requests: Any, context: Any) -> Any:
            join = await requests.__anext__()
            recorded = per_seat[join.join.seat]
            for n in range(decisions):
                yield table_pb2.PlayResponse.FromString(recorded[n % len(recorded)])
                await requests.__anext__()  # the answer
            yield finished

    async def main() -> None:
        server = grpc.aio.server()
        table_pb2_grpc.add_TableServiceServicer_to_server(Stand(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        port_out.put(port)
        await server.wait_for_termination()

    asyncio.run(main())


class LastLegal:
    """A trivial policy: the last legal action (the loop, not the policy, is measured)."""

    name = "bench"

    def __init__(self) -> None:
        self.seconds = 0.0

    def choose(self, view: Any) -> Any:
        started = time.thread_time()
        action = view.legal_actions[-1]
        self.seconds += time.thread_time() - started
        return action


def run_round(target: str, sessions: int, client: Any, aclient: Any) -> dict[str, float]:
    """One round: ``sessions`` sessions with leases, all on the seat loop, to the end."""
    from hebei.bots.lease import SeatLease
    from hebei.bots.session import SeatSession, seat_loop
    from hebei.fleet.ticket import SeatTicket

    loop = seat_loop()
    match = f"bench-{uuid.uuid4().hex[:8]}"
    leases, runs, policies = [], [], []
    for i in range(sessions):
        lease = SeatLease(client, f"{match}-{i // 4}", i % 4, "bench", ttl=10, aclient=aclient)
        assert lease.acquire()
        lease.start_heartbeat()
        leases.append(lease)
        ticket = SeatTicket(target, f"{match}-{i // 4}", i % 4, "token", policy="efficiency")
        policy = LastLegal()
        policies.append(policy)
        runs.append(SeatSession(ticket, policy, lease=lease))

    async def play_all() -> tuple[float, list[Any]]:
        started = time.thread_time()
        results = await asyncio.gather(*(s.play() for s in runs))
        return time.thread_time() - started, results

    cpu0, wall0 = time.process_time(), time.perf_counter()
    loop_cpu, results = loop.run(play_all())
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    for lease in leases:
        lease.release()
    decisions = sum(r.decisions for r in results)
    outcomes = {r.outcome.value for r in results}
    assert outcomes == {"finished"}, outcomes
    policy = sum(p.seconds for p in policies)
    return {
        "decisions": decisions,
        "loop_us": 1e6 * (loop_cpu - policy) / decisions,
        "process_us": 1e6 * (cpu - policy) / decisions,
        "wall_s": wall,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--decisions", type=int, default=400, help="per session and round")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--redis-url", default=os.environ.get("HEBEI_BROKER_URL"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    import redis
    import redis.asyncio

    import hebei

    print(f"hebei from {os.path.dirname(hebei.__file__)}", file=sys.stderr)
    embedded_server = None
    url = args.redis_url
    if not url:
        from hebei.common import embedded

        embedded_server = embedded.start_redis(tempfile.mkdtemp(prefix="seat-bench-"))
        url = embedded_server.url
    per_seat = record_decisions(args.seed, 8)
    ctx = multiprocessing.get_context("spawn")
    ports = ctx.Queue()
    server = ctx.Process(target=serve, args=(per_seat, args.decisions, ports), daemon=True)
    server.start()
    try:
        target = f"127.0.0.1:{ports.get(timeout=60)}"
        client = redis.Redis.from_url(url, socket_timeout=5)
        aclient = redis.asyncio.Redis.from_url(url, socket_timeout=5)
        run_round(target, args.sessions, client, aclient)  # warm-up: connections, caches
        rounds = [run_round(target, args.sessions, client, aclient) for _ in range(args.repeats)]
    finally:
        server.terminate()
        server.join()
        if embedded_server is not None:
            embedded_server.stop()
    summary = {
        "sessions": args.sessions,
        "decisions_per_round": rounds[0]["decisions"],
        "loop_us_per_decision": [round(r["loop_us"], 1) for r in rounds],
        "process_us_per_decision": [round(r["process_us"], 1) for r in rounds],
        "loop_us_median": round(statistics.median(r["loop_us"] for r in rounds), 1),
        "process_us_median": round(statistics.median(r["process_us"] for r in rounds), 1),
        "wall_s": [round(r["wall_s"], 2) for r in rounds],
    }
    print(json.dumps(summary) if args.json else json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    sys.exit(main())
