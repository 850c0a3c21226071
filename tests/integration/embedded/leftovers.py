"""Finding embedded servers that outlived their run, by their data dir.

``pgrep -af redis-server`` / ``pgrep -af postgres`` lines naming the data dir (redis-server
names its data folder in its process title, PostgreSQL its data directory with ``-D``), and,
in case a title does not say, any redis-server or postgres whose working directory lies in the
data dir (a daemonized redis-server works in its data folder, even once it is deleted).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import psutil

SERVERS = ("redis-server", "postgres")


def leftover_servers(data_dir: Path) -> list[str]:
    """One line per server process of data_dir still running (``PID command``)."""
    lines = {}
    for name in SERVERS:
        found = subprocess.run(["pgrep", "-af", name], capture_output=True, text=True, check=False)
        for line in found.stdout.splitlines():
            pid, _, command = line.partition(" ")
            if command.split(" ", 1)[0].endswith(name) and str(data_dir) in command:
                lines[int(pid)] = line
    for process in psutil.process_iter(["name", "cwd", "cmdline", "status"]):
        info = process.info
        running = info["name"] in SERVERS and info["status"] != psutil.STATUS_ZOMBIE
        if running and (info["cwd"] or "").startswith(str(data_dir)):
            lines.setdefault(process.pid, f"{process.pid} {' '.join(info['cmdline'] or [])}")
    return sorted(lines.values())


def wait_for_no_leftovers(data_dir: Path, timeout: float = 90.0) -> list[str]:
    """Poll until no server of data_dir runs; returns what still runs after ``timeout``."""
    deadline = time.monotonic() + timeout
    while (lines := leftover_servers(data_dir)) and time.monotonic() < deadline:
        time.sleep(0.25)
    return lines


def running_servers(data_dir: Path) -> set[str]:
    """Which servers of data_dir run: a subset of {"redis-server", "postgres"}."""
    lines = leftover_servers(data_dir)
    return {name for name in SERVERS if any(name in line for line in lines)}
