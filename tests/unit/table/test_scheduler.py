"""The one timer thread of the table engine, and per-seat clocks."""

from __future__ import annotations

import threading
import time

import pytest

from hebei.table.requests import time_control as control_from_proto
from hebei.table.scheduler import Scheduler
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
