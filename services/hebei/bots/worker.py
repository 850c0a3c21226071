"""``hebei bots worker``: one command starts a bot worker.

Decisions are CPU-bound and Python holds the GIL, so the fleet scales by processes (one per
core by default), each a Celery worker running many seat sessions as threads (most of a
session's time is spent waiting for the other seats). The parent supervises the processes:
it forwards SIGTERM/SIGINT (warm shutdown: seats are handed back to the queue) and, when one
process dies, stops the others and exits non-zero so the supervisor (Kubernetes, systemd)
restarts the worker.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

from hebei.bots.config import BotsConfig
from hebei.bots.policies import POLICIES

APP = "hebei.bots.celery_app:app"


def worker_argv(
    index: int, sessions: int, policies: Sequence[str], loglevel: str, name: str
) -> list[str]:
    """The ``celery worker`` command line of process ``index``."""
    config = BotsConfig.from_env()
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        APP,
        "worker",
        "--pool",
        "threads",
        "--concurrency",
        str(sessions),
        "--queues",
        ",".join(config.queue_of(p) for p in policies),
        "--hostname",
        f"{name}-{index}@{socket.gethostname()}",
        "--loglevel",
        loglevel,
        "--without-gossip",
        "--without-mingle",
        "--prefetch-multiplier",
        "1",
    ]


def check_policies(policies: Sequence[str]) -> list[str]:
    """The policy names, validated (ValueError names the unknown ones)."""
    names = [p.strip() for p in policies if p.strip()]
    unknown = [p for p in names if p not in POLICIES]
    if unknown or not names:
        raise ValueError(
            f"unknown policies {', '.join(unknown) or '(none given)'}; known: {', '.join(POLICIES)}"
        )
    return names


def _die_with_parent() -> None:
    """In a child before exec: get SIGKILL if the parent dies (Linux), so no orphan keeps
    playing seats after its supervisor was killed."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_workers(
    processes: int,
    sessions: int,
    policies: Sequence[str],
    *,
    loglevel: str = "INFO",
    name: str = "bots",
    metrics_port: int | None = None,
) -> int:
    """Start ``processes`` Celery workers serving ``policies`` and wait; returns the exit code."""
    names = check_policies(policies)
    children: list[subprocess.Popen] = []
    stopping = False

    def forward(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.poll() is None:
                child.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        for index in range(processes):
            if stopping:  # asked to stop while starting them: start no more
                break
            env = dict(os.environ, HEBEI_BOTS_POLICIES=",".join(names))
            if metrics_port is not None:
                env["HEBEI_BOTS_METRICS_PORT"] = str(metrics_port + index if metrics_port else 0)
            children.append(
                subprocess.Popen(
                    worker_argv(index, sessions, names, loglevel, name),
                    env=env,
                    preexec_fn=_die_with_parent if sys.platform == "linux" else None,
                )
            )
        code = 0
        while children:
            for child in list(children):
                status = child.poll()
                if status is None:
                    continue
                children.remove(child)
                if status != 0 and not stopping:
                    code = status if status > 0 else 1
                    forward(signal.SIGTERM, None)
            time.sleep(0.2)
        return code
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
