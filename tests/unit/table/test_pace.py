"""The bot pace at one table, without a server or a database: a bot's answer is held until the
pace is up (its clock stopped when it came: a pace longer than the bot's time never times it
out), a second answer to the same decision is refused, a person's answer is applied at once,
and a table of bots only has no pace."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator

import pytest

from hebei.common import convert
from hebei.rules.actions import PASS, ActionKind
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


def table_of(scheduler: Scheduler, person: bool, pace: float = PACE) -> tuple[Table, list]:
    match = spec(kind=pb.SEAT_KIND_BOT)
    seats = tuple(
        dataclasses.replace(s, kind=pb.SEAT_KIND_PERSON) if person and s.seat == 0 else s
        for s in match.seats
    )
    match = dataclasses.replace(match, seats=seats, time_control=TimeControl(PER_DECISION, 0.0))
    table = Table(match, InstantStore(), scheduler, bot_pace=pace)
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


async def _drain(session) -> list:
    return [message async for message in session.messages()]


def test_a_match_dissolved_while_a_discard_is_held_tells_every_seat_it_is_over(scheduler) -> None:
    """The claim window after a person's discard is held for the floor, and the discarder is
    told nothing meanwhile; a match dissolved then still ends every seat's stream with the
    observation saying it is over (not a stream that just stops, which clients take for a lost
    connection and join again)."""
    table, sessions = table_of(scheduler, person=True, pace=1.0)  # the bots before it: 1 s each
    deadline = time.monotonic() + 30
    while True:  # the person passes claims until it is asked to discard
        assert time.monotonic() < deadline, "the person was never asked to discard"
        with table.lock:
            asked = table.seats[0].decision_id and table._hears_now(0)
            legal = table.hand.legal_actions(0) if asked else []
            discards = [a for a in legal if a.kind is ActionKind.DISCARD]
            if discards:
                message = convert.action_to_proto(discards[0], table.seats[0].decision_id)
                break
        if asked:
            answer(table, sessions, 0)
        time.sleep(0.01)
    with table.lock:  # one step: the held window cannot end in between
        table.act(sessions[0], message)
        assert table._holding() and not table._hears_now(0)  # the window is held
        table.dissolve("the organiser ended it")
    for seat, session in enumerate(sessions):
        told = asyncio.run(_drain(session))
        assert told and told[-1].observation.match_finished, (seat, told[-1:])
