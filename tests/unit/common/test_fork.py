"""Forking to run a program while other threads are inside gRPC (pgserver starts pg_ctl that
way as root): with gRPC's fork handlers on, the child could crash (a SIGSEGV starting the
embedded PostgreSQL in the test session). ``import hebei`` turns them off before grpc loads."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import subprocess, sys, threading
    from concurrent import futures

    import hebei  # first, as every entry point does
    import grpc
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    server = grpc.server(futures.ThreadPoolExecutor(4))
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    stub = health_pb2_grpc.HealthStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
    done = threading.Event()

    def call_on():
        while not done.is_set():
            stub.Check(health_pb2.HealthCheckRequest())

    threads = [threading.Thread(target=call_on) for _ in range(4)]
    for t in threads:
        t.start()
    stub.Check(health_pb2.HealthCheckRequest())
    codes = [
        # preexec_fn makes CPython fork (not vfork), so fork handlers would run
        subprocess.run([sys.executable, "-c", "pass"], preexec_fn=lambda: None).returncode
        for _ in range(40)
    ]
    done.set()
    for t in threads:
        t.join()
    server.stop(None)
    print(codes.count(0), len(codes))
    """
)


def test_a_fork_beside_busy_grpc_threads_runs_no_grpc_fork_handler() -> None:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_ENABLE_FORK_SUPPORT"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["40", "40"], done.stdout
    assert "fork() handlers" not in done.stderr, done.stderr[-2000:]
