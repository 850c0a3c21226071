"""A bot worker's threads carry their names in the operating system (per-thread CPU in
``/proc`` and ``top -H`` tells the seat loop from the lease keeper and the registry beat)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from hebei.bots.lease import LeaseKeeper
from hebei.bots.metrics import name_os_thread
from hebei.bots.session import SeatLoop

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="thread names in /proc: Linux")


def os_name(thread: threading.Thread) -> str:
    return Path(f"/proc/self/task/{thread.native_id}/comm").read_text().strip()


def test_a_thread_names_itself_in_the_os_cut_to_15_bytes() -> None:
    seen: list[str] = []

    def run() -> None:
        name_os_thread()
        seen.append(os_name(threading.current_thread()))

    thread = threading.Thread(target=run, name="a-rather-long-thread-name")
    thread.start()
    thread.join()
    assert seen == ["a-rather-long-t"]


def test_the_seat_loop_and_the_lease_keeper_are_named() -> None:
    seats = SeatLoop()
    try:

        async def name() -> str:
            return os_name(threading.current_thread())

        assert seats.run(name()) == "bot-seats"
    finally:
        seats.loop.call_soon_threadsafe(seats.loop.stop)

    class Lease:  # what the keeper reads of a lease before its first renewal
        ttl_ms = 60_000
        held = True

    keeper, lease = LeaseKeeper(), Lease()
    keeper.add(lease)  # type: ignore[arg-type]
    try:
        assert keeper._thread is not None
        for _ in range(200):  # the name is set as the thread starts
            if os_name(keeper._thread) == "leases":
                break
            threading.Event().wait(0.01)
        assert os_name(keeper._thread) == "leases"
    finally:
        keeper.remove(lease)  # type: ignore[arg-type]  # (nothing to renew: it waits on)
