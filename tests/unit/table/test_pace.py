"""The bot pace at one table, without a server or a database: a bot's answer is held until the
pace is up (its clock stopped when it came: a pace longer than the bot's time never times it
out), a second answer to the same decision is refused, a person's answer is applied at once,
and a table of bots only has no pace."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator

import pytest

from hebei.common import convert
from hebei.rules.actions import PASS
from hebei.rules.replay import ACTION_TYPES
from hebei.table.scheduler import Scheduler
from hebei.table.table import Table
from hebei.table.timecontrol import TimeControl
from hebei.v1 import types_pb2 as pb
from tests.unit.table.fakes import InstantStore
from tests.unit.table.test_hidden_information import spec

PACE = 3.0  # far above the seats' time, and than anything the test does meanwhile
PER_DECISION = 0.1


@pytest.fixture
def scheduler() -> Iterator[Scheduler]:
    timers = Scheduler()
    yield timers
    timers.stop()


def table_of(scheduler: Scheduler, person: bool) -> tuple[Table, list]:
    match = spec(kind=pb.SEAT_KIND_BOT)
    seats = tuple(
        dataclasses.replace(s, kind=pb.SEAT_KIND_PERSON) if person and s.seat == 0 else s
        for s in match.seats
    )
    match = dataclasses.replace(match, seats=seats, time_control=TimeControl(PER_DECISION, 0.0))
    table = Table(match, InstantStore(), scheduler, bot_pace=PACE)
    sessions = [
        table.join(s, f"token-{s}-0123456789", decisions_only=True, bot=s != 0) for s in range(4)
    ]
    return table, sessions


def actions_of(table: Table, seat: int) -> list[dict]:
    return [e for e in table.log.data() if e["type"] in ACTION_TYPES and e.get("seat") == seat]


def answer(table: Table, sessions: list, seat: int) -> pb.Action:
    """The seat's answer to its open decision: pass a claim, else its first option."""
    with table.lock:
        legal = table.hand.legal_actions(seat)
        action = PASS if PASS in legal else legal[-1]
        message = convert.action_to_proto(action, table.seats[seat].decision_id)
    table.act(sessions[seat], message)
    return message


def test_a_bots_answer_waits_for_the_pace_and_is_taken_once(scheduler) -> None:
    table, sessions = table_of(scheduler, person=True)
    assert table.pace == PACE and table.floor == PACE
    deadline = time.monotonic() + 30
    while True:  # the person answers at once until a bot is asked (the deal's dealer: seat 0)
        assert time.monotonic() < deadline
        with table.lock:
            bots = [s for s in (1, 2, 3) if table.seats[s].decision_id and table._hears_now(s)]
            person = table.seats[0].decision_id and table._hears_now(0)
        if bots:
            break
        if person:
            before = len(actions_of(table, 0))
            answer(table, sessions, 0)
            assert len(actions_of(table, 0)) == before + 1  # a person's: applied at once
        time.sleep(0.01)
    seat = bots[0]
    before = len(actions_of(table, seat))
    message = answer(table, sessions, seat)
    table.act(sessions[seat], message)  # the same answer again: refused, nothing more
    assert len(actions_of(table, seat)) == before  # held
    assert table.seats[seat].answer is not None and table.seats[seat].timer is None
    time.sleep(PER_DECISION * 3)  # past the bot's own time: its clock stopped when it answered
    assert len(actions_of(table, seat)) == before
    while len(actions_of(table, seat)) == before:
        assert time.monotonic() < deadline + PACE, "the held answer was never applied"
        time.sleep(0.02)
    assert len(actions_of(table, seat)) == before + 1
    timeouts = [e for e in table.log.data() if e["type"] == "seat_auto" and e.get("seat") == seat]
    assert timeouts == []


def test_a_table_of_bots_has_no_pace(scheduler) -> None:
    table, sessions = table_of(scheduler, person=False)
    assert table.pace == 0 and table.floor == 0
    with table.lock:
        seat = next(s for s in range(4) if table.seats[s].decision_id)
    before = len(actions_of(table, seat))
    answer(table, sessions, seat)
    assert len(actions_of(table, seat)) == before + 1  # applied as it came
