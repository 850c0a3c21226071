"""Threads as the operating system shows them: their names in ``/proc`` and ``top -H``."""

from __future__ import annotations

import sys
import threading

__all__ = ["name_os_threads"]


def name_os_threads() -> None:
    """Give this process's Python threads (but the main one, whose name is the process's)
    their names in the operating system too (Linux: ``/proc/self/task/<id>/comm``, the first
    15 bytes), so ``top -H``, ``/proc/<pid>/task/*/comm`` and profilers tell a worker's
    threads apart (the seat loop, gRPC's asyncio poller, the lease keeper, the registry beat);
    else each is "python" or the name of the thread that started it. Threads started later
    need another call. Nothing elsewhere, nor for a thread that ended meanwhile."""
    if sys.platform != "linux":
        return
    main = threading.main_thread()
    for thread in threading.enumerate():
        if thread is main or thread.native_id is None:
            continue
        try:
            with open(f"/proc/self/task/{thread.native_id}/comm", "wb") as comm:
                comm.write(thread.name.encode()[:15])
        except OSError:
            pass
