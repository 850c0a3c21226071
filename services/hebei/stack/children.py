"""The processes of the local stack (:mod:`hebei.stack.processes`): one child each, started in
its own session and process group with its output in a log of its own, stopped with SIGTERM
then SIGKILL to its group, started again exactly as before; and the errors the stack reports
in one line (:class:`StackError`).

On Linux a child starts through a tiny wrapper that sets ``PR_SET_PDEATHSIG`` = SIGTERM
(ctypes) and then execs the command, so it is stopped as soon as the thread that started it
ends (:func:`with_death_signal`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = [
    "Child",
    "StackError",
    "bot_worker_argv",
    "last_log_line",
    "with_death_signal",
]

PR_SET_PDEATHSIG = 1


class StackError(RuntimeError):
    """The local stack could not start, or one of its processes stopped (one clear line)."""


# Run first in each child: ask Linux for SIGTERM when the parent dies, then exec the real
# command (the request survives exec). A wrapper rather than a preexec_fn: the launcher may
# hold gRPC threads (``hebei demo``), and a preexec_fn forces fork(), which gRPC objects to.
_EXEC_WITH_DEATH_SIGNAL = (
    "import ctypes, os, signal, sys\n"
    f"ctypes.CDLL(None).prctl({PR_SET_PDEATHSIG}, signal.SIGTERM)\n"
    "if os.getppid() != int(sys.argv[1]): sys.exit(1)  # the parent is gone already\n"
    "os.execvp(sys.argv[2], sys.argv[2:])"
)


def with_death_signal(argv: list[str]) -> list[str]:
    """``argv`` run so that it gets SIGTERM when this process dies (Linux; as is elsewhere)."""
    if not sys.platform.startswith("linux"):
        return argv
    return [sys.executable, "-c", _EXEC_WITH_DEATH_SIGNAL, str(os.getpid()), *argv]


def _open_log(path: Path) -> IO[bytes]:
    """The child's log, the previous run's kept as ``<name>.log.1``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size:
        path.replace(path.with_name(path.name + ".1"))
    return open(path, "ab")  # closed by Child.reap


def last_log_line(path: Path, limit: int = 300) -> str:
    """The last line a process wrote (a JSON log line as its message), or ``no output``."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - 16384))
            lines = handle.read().decode(errors="replace").splitlines()
    except OSError:
        lines = []
    lines = [line.strip() for line in lines if line.strip()]
    if not lines:
        return "no output"
    line = lines[-1]
    with contextlib.suppress(ValueError, TypeError, AttributeError):
        record = json.loads(line)
        text = str(record.get("msg") or record.get("message") or line)
        if record.get("exc"):
            text = f"{text}: {str(record['exc']).strip().splitlines()[-1]}"
        line = text
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass
class Child:
    """One process of the stack: a service or a bot worker."""

    name: str  # "ledger", "table" (or "table-0", "table-1", ...: replicas), "bots-1", ...
    label: str  # "the table engine", for messages
    popen: subprocess.Popen
    log_path: Path
    log: IO[bytes] = field(repr=False)
    address: str | None = None  # host:port of a gRPC service
    service: str | None = None  # a gRPC service's name ("table" for each engine replica)
    metrics_address: str | None = None
    worker_name: str | None = None  # a bot worker's --name
    processes: int = 0  # a bot worker's Celery processes
    process_metrics: tuple[str, ...] = ()  # host:port of each Celery process's /metrics
    ready_check: Callable[[], bool] | None = field(default=None, repr=False)  # Prometheus
    argv: list[str] = field(default_factory=list, repr=False)  # as started: a restart reuses
    env: dict[str, str] = field(default_factory=dict, repr=False)  # them (ports, tokens, ...)

    @classmethod
    def spawn(
        cls, name: str, label: str, argv: list[str], env: Mapping[str, str], log_path: Path
    ) -> Child:
        """Start ``argv`` in its own session, output to ``log_path``, stopped with its parent."""
        log = _open_log(log_path)
        try:
            popen = cls._popen(label, argv, env, log)
        except StackError:
            log.close()
            raise
        return cls(name, label, popen, log_path, log, argv=list(argv), env=dict(env))

    @staticmethod
    def _popen(label: str, argv: list[str], env: Mapping[str, str], log: IO[bytes]) -> Any:
        try:
            return subprocess.Popen(
                with_death_signal(argv),
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            raise StackError(f"cannot start {label}: {exc.strerror or exc}") from None

    def respawn(self) -> None:
        """Start the process again, exactly as before (same command, environment, ports and
        tokens), once whatever is left of the old one's group is killed; its output goes on in
        the same log."""
        self.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(10)
        if self.log.closed:  # stopped (reaped) before
            self.log = open(self.log_path, "ab")  # noqa: SIM115 (closed by reap)
        self.log.write(b"\n--- restarted by the stack ---\n")
        self.log.flush()
        self.popen = self._popen(self.label, self.argv, self.env, self.log)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def running(self) -> bool:
        return self.popen.poll() is None

    def exit_message(self) -> str:
        """One line: how the process ended and the last line of its log."""
        code = self.popen.returncode
        if code is not None and code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        return f"{self.label} {how}: {last_log_line(self.log_path)} (log: {self.log_path})"

    def terminate(self) -> None:
        """SIGTERM to the process (a bot worker passes it on to its Celery processes)."""
        if self.running():
            with contextlib.suppress(ProcessLookupError):
                self.popen.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL to the whole process group."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)

    def reap(self, deadline: float, hurry: threading.Event | None = None) -> None:
        """Wait for the process until ``deadline`` (or ``hurry``), then SIGKILL its group;
        SIGKILL whatever is left of the group, close the log."""
        while self.running() and time.monotonic() < deadline:
            if hurry is not None and hurry.is_set():
                break
            time.sleep(0.05)
        if self.running():
            self.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(10)
        self.kill()  # a process the leader left behind in its group
        self.log.close()

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM, wait up to ``timeout`` seconds, then SIGKILL."""
        self.terminate()
        self.reap(time.monotonic() + timeout)


def bot_worker_argv(
    processes: int,
    sessions: int,
    name: str,
    loglevel: str = "INFO",
    metrics_port: int | None = None,
) -> list[str]:
    """The command line of one ``hebei bots worker`` with this interpreter; with
    ``metrics_port``, its processes serve /metrics on that port and the ones after it."""
    metrics = [] if metrics_port is None else ["--metrics-port", str(metrics_port)]
    return [
        sys.executable,
        "-c",
        "from hebei.cli import main; main()",
        "bots",
        "worker",
        "--processes",
        str(processes),
        "--sessions",
        str(sessions),
        "--loglevel",
        loglevel,
        "--name",
        name,
        *metrics,
    ]
