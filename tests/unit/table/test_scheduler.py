"""The one timer thread of the table engine, and per-seat clocks."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

from hebei.table.requests import time_control as control_from_proto
from hebei.table.scheduler import CLEANUP_MIN, Scheduler
from hebei.table.timecontrol import BOT_DEFAULT, PERSON_DEFAULT, SeatClock, TimeControl
from hebei.v1 import types_pb2 as pb


@pytest.fixture
def scheduler():
    timers = Scheduler()
    yield timers
    timers.stop()


def test_callbacks_run_in_deadline_order(scheduler: Scheduler) -> None:
    ran: list[int] = []
    done = threading.Event()
    now = time.monotonic()
    for delay, tag in ((0.06, 3), (0.02, 1), (0.04, 2)):
        scheduler.call_at(now + delay, lambda tag=tag: ran.append(tag))
    scheduler.call_at(now + 0.08, done.set)
    assert done.wait(2)
    assert ran == [1, 2, 3]


def test_a_cancelled_timer_never_runs(scheduler: Scheduler) -> None:
    ran: list[str] = []
    done = threading.Event()
    timer = scheduler.call_later(0.02, lambda: ran.append("cancelled"))
    scheduler.call_later(0.05, done.set)
    timer.cancel()
    assert done.wait(2)
    assert ran == [] and scheduler.pending() == 0


class _Table:
    """Stands for what a timer's closure holds (a table)."""

    def on_deadline(self) -> None:
        raise AssertionError("a cancelled timer ran")


def test_a_cancelled_timer_lets_go_of_its_callback_at_once(scheduler: Scheduler) -> None:
    table = _Table()
    held = weakref.ref(table)
    timer = scheduler.call_later(60, table.on_deadline)  # a bound method holds its table
    del table
    gc.collect()
    assert held() is not None  # the queued timer's closure keeps it
    timer.cancel()
    timer.cancel()  # twice is once
    assert held() is None and timer.callback is None


def test_cancelled_timers_leave_the_heap_once_they_are_most_of_it(scheduler: Scheduler) -> None:
    keep = [scheduler.call_later(60, lambda: None) for _ in range(10)]
    doomed = [scheduler.call_later(60, lambda: None) for _ in range(3 * CLEANUP_MIN)]
    assert scheduler.queued() == len(keep) + len(doomed)
    for timer in doomed[: CLEANUP_MIN - 1]:
        timer.cancel()
    assert scheduler.queued() == len(keep) + len(doomed)  # too few to be worth a rebuild
    for timer in doomed[CLEANUP_MIN - 1 :]:
        timer.cancel()
    # Dropped when they became more than half: what is left is the live ones and the few
    # cancelled since the last rebuild, never more than the live ones.
    assert scheduler.queued() <= 2 * len(keep) + CLEANUP_MIN
    assert scheduler.pending() == len(keep)
    ran = threading.Event()
    scheduler.call_later(0.01, ran.set)  # the heap still works
    assert ran.wait(2)


def test_an_earlier_timer_wakes_the_thread(scheduler: Scheduler) -> None:
    done = threading.Event()
    scheduler.call_later(30, lambda: None)
    started = time.monotonic()
    scheduler.call_later(0.01, done.set)
    assert done.wait(2) and time.monotonic() - started < 1


def test_a_failing_callback_does_not_stop_the_others(scheduler: Scheduler) -> None:
    done = threading.Event()
    scheduler.call_later(0.01, lambda: 1 / 0)
    scheduler.call_later(0.02, done.set)
    assert done.wait(2)


def test_defaults_by_seat_kind() -> None:
    assert TimeControl(8.0, 30.0) == PERSON_DEFAULT
    assert TimeControl(2.0, 0.0) == BOT_DEFAULT
    assert control_from_proto(pb.TimeControl()) is None
    message = pb.TimeControl()
    message.per_decision.FromMilliseconds(200)
    assert control_from_proto(message) == TimeControl(0.2, 0.0)


@pytest.mark.parametrize(("per", "bank"), [(0, 1), (-1, 0), (1, -1)])
def test_bad_time_controls_are_refused(per: float, bank: float) -> None:
    with pytest.raises(ValueError, match="time control"):
        TimeControl(per, bank)


def test_the_bank_pays_for_slow_decisions() -> None:
    clock = SeatClock(TimeControl(per_decision=2.0, bank=5.0))
    assert clock.open(100.0) == 107.0  # per-decision time plus the whole bank
    assert clock.close(101.5) == 1.5 and clock.bank == 5.0  # in time: bank untouched
    clock.open(200.0)
    clock.close(204.0)  # 2 s over the allowance
    assert clock.bank == 3.0
    assert clock.open(300.0) == 305.0
    clock.expire()
    assert clock.bank == 0.0 and clock.open(400.0) == 402.0
