"""A bot worker's threads carry their names in the operating system (per-thread CPU in
``/proc`` and ``top -H`` tells the seat loop from gRPC's poller, the lease keeper and the
registry beat)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from hebei.bots.lease import LeaseKeeper
from hebei.bots.session import SeatLoop
from hebei.common.threads import name_os_threads

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="thread names in /proc: Linux")


def os_name(thread: threading.Thread) -> str:
    return Path(f"/proc/self/task/{thread.native_id}/comm").read_text().strip()


def test_threads_are_named_in_the_os_cut_to_15_bytes_but_the_main_one() -> None:
    main_before = os_name(threading.main_thread())
    started, stop = threading.Event(), threading.Event()

    def run() -> None:
        started.set()
        stop.wait(10)

    thread = threading.Thread(target=run, name="a-rather-long-thread-name", daemon=True)
    thread.start()
    started.wait(10)
    try:
        name_os_threads()
        assert os_name(thread) == "a-rather-long-t"
        assert os_name(threading.main_thread()) == main_before  # the process's name
    finally:
        stop.set()
        thread.join()


def test_the_seat_loop_grpc_poller_and_lease_keeper_are_named() -> None:
    seats = SeatLoop()
    try:

        async def open_channel() -> str:
            router = seats.router(("127.0.0.1:9",), None)
            channel = router.stream_channel("m").channel  # not connected; the poller starts
            await channel.close()
            return os_name(threading.current_thread())

        assert seats.run(open_channel()) == "bot-seats"
        pollers = [t for t in threading.enumerate() if "_poll_wrapper" in t.name]
        assert pollers  # grpc.aio's poller, started on the seat loop's thread
        assert all(os_name(t) == t.name[:15] for t in pollers)  # not "bot-seats"
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
