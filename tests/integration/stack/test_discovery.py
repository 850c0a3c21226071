"""The stack file (hebei.stack.discovery): written 0600, found only while its writer runs,
and the lock that keeps a second ``hebei up`` off a data directory."""

from __future__ import annotations

import dataclasses
import os
import stat
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from hebei.stack.discovery import (
    StackInfo,
    StackLock,
    StackRunning,
    find_stack,
    remove_stack_file,
    stack_file,
    write_stack_file,
)


def info_of(pid: int) -> StackInfo:
    return StackInfo(
        pid=pid,
        started=psutil.Process(pid).create_time(),
        addresses={"ledger": "127.0.0.1:1001", "table": "127.0.0.1:1002"},
        metrics={"ledger": "127.0.0.1:2001", "table": "127.0.0.1:2002"},
        operator_token="secret",
        database_url="postgresql://postgres@127.0.0.1:5432/postgres",
        broker_url="redis://127.0.0.1:6379/0",
        bot_processes=2,
    )


def test_the_stack_file_is_private_and_found_while_its_writer_runs(data_dir: Path):
    path = stack_file(data_dir)
    info = info_of(os.getpid())
    write_stack_file(path, info)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    found = find_stack(data_dir)
    assert found == info
    assert found.address("table") == "127.0.0.1:1002"
    assert found.metrics_address("ledger") == "127.0.0.1:2001"
    with pytest.raises(KeyError, match="no matchmaking service"):
        found.address("matchmaking")
    remove_stack_file(path, pid=os.getpid() + 1)  # not ours: kept
    assert path.exists()
    remove_stack_file(path)
    assert not path.exists() and find_stack(data_dir) is None


def test_a_stack_file_of_a_dead_or_other_process_is_ignored(data_dir: Path):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    info = info_of(gone.pid)
    gone.wait()
    write_stack_file(stack_file(data_dir), info)
    assert find_stack(data_dir) is None  # its pid is dead
    reused = dataclasses.replace(info_of(os.getpid()), started=info.started - 3600)
    write_stack_file(stack_file(data_dir), reused)
    assert find_stack(data_dir) is None  # a live pid, but not the process that wrote it
    stack_file(data_dir).write_text("{not json")
    assert find_stack(data_dir) is None


def test_the_lock_keeps_a_second_stack_off_the_data_dir(data_dir: Path):
    with StackLock(data_dir):
        other = StackLock(data_dir)
        with pytest.raises(StackRunning, match="already starting or running"):
            other.acquire()
        write_stack_file(stack_file(data_dir), info_of(os.getpid()))
        with pytest.raises(StackRunning, match=r"already running here \(pid \d+: ledger 127"):
            other.acquire()
    with StackLock(data_dir):  # free again once released
        pass
