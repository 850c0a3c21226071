"""What spectators see: the table builds a spectator's event message only when someone reads
it (a live spectator as it is logged, a late one from the log when it subscribes); both see
the same messages, each the public view of its log event with its public number, hand and
time, the hand's end with its settlement."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from hebei.common import convert
from hebei.rules.match import MatchLength
from hebei.rules.views import public_event
from hebei.table.eventlog import TABLE_EVENTS
from hebei.table.scheduler import Scheduler
from hebei.table.sessions import Outbound
from hebei.table.table import Table
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.unit.table.fakes import InstantStore
from tests.unit.table.test_hidden_information import spec


@pytest.fixture
def scheduler() -> Iterator[Scheduler]:
    timers = Scheduler()
    yield timers
    timers.stop()


def taken(queue: Outbound) -> list[bytes]:
    """Every message queued so far, serialised (the spectator's stream sends these)."""
    return [message.SerializeToString() for _seq, message, _keep in queue._items]


def play_to_the_end(table: Table, sessions: list[Outbound]) -> None:
    """Each seat answers its decisions with its last legal action (a discard or a pass)."""
    while not table.over:
        moved = False
        for session in sessions:
            items = list(session._items)
            session._items.clear()
            for _seq, message, _keep in items:
                if not message.HasField("observation"):
                    continue
                observation = message.observation
                if not observation.decision_id:
                    continue
                action = convert.observation_from_proto(observation).legal_actions[-1]
                table.act(session, convert.action_to_proto(action, observation.decision_id))
                moved = True
        assert moved, "nobody had a decision"


def test_a_late_spectator_sees_what_a_live_one_saw(scheduler: Scheduler) -> None:
    table = Table(
        dataclasses.replace(spec(), length=MatchLength(hands=2)), InstantStore(), scheduler
    )
    live = table.subscribe(0)
    sessions = [table.join(s, f"token-{s}-0123456789", decisions_only=True) for s in range(4)]
    play_to_the_end(table, sessions)
    late = table.subscribe(1)
    seen = taken(live)
    assert len(seen) > 50
    assert taken(late) == seen
    assert taken(table.subscribe(len(seen) - 2)) == seen[-3:]

    # Each is its log event's public view, numbered among the public ones.
    expected = []
    for entry in table.log:
        if entry.public_seq is None:
            continue
        event = entry.event
        kind = event["type"]
        if kind == "match_end":
            event = {**event, "seed": table.spec.seed}
        elif kind not in TABLE_EVENTS:
            event = public_event(event, None)
        settlement = table.settlements.get(entry.hand_no) if kind == "hand_end" else None
        message = convert.event_to_proto(
            event,
            seq=entry.public_seq,
            match_id=table.match_id,
            hand_no=entry.hand_no,
            time=entry.time,
            settlement=settlement,
        )
        expected.append(message.SerializeToString())
    events = [table_pb2.SpectateResponse.FromString(raw).event for raw in seen]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert [e.SerializeToString() for e in events] == expected  # as if built at once
    assert sum(e.type == pb.EVENT_TYPE_HAND_END and e.HasField("settlement") for e in events) == 2


def read_backlog(table: Table, from_seq: int, limit: int) -> tuple[list[bytes], list[int]]:
    """What a spectator from ``from_seq`` is sent when its backlog comes ``limit`` messages at
    a time (as the Spectate stream reads it): the messages, and each chunk's size."""
    seen: list[bytes] = []
    sizes: list[int] = []
    step = table.backlog(from_seq, limit)
    while not isinstance(step, Outbound):
        messages, from_seq = step
        sizes.append(len(messages))
        seen += [message.SerializeToString() for message in messages]
        step = table.backlog(from_seq, limit)
    live = taken(step)
    sizes.append(len(live))
    return seen + live, sizes


@pytest.mark.parametrize("limit", [1, 7, 64, 10_000])
def test_a_long_backlog_comes_a_chunk_at_a_time(scheduler: Scheduler, limit: int) -> None:
    table = Table(
        dataclasses.replace(spec(), length=MatchLength(hands=2)), InstantStore(), scheduler
    )
    live = table.subscribe(0)
    sessions = [table.join(s, f"token-{s}-0123456789", decisions_only=True) for s in range(4)]
    play_to_the_end(table, sessions)
    everything = taken(live)
    assert len(everything) > 64

    seen, sizes = read_backlog(table, 1, limit)
    assert seen == everything  # in order, none lost or repeated across the chunks
    assert max(sizes) <= limit  # never more built at once than one chunk
    assert len(sizes) == max(1, -(-len(everything) // limit))
    # From the middle, too.
    assert read_backlog(table, 40, limit)[0] == everything[39:]


def test_a_backlog_stops_where_the_log_is_not_durable_yet(scheduler: Scheduler) -> None:
    store = InstantStore()
    table = Table(dataclasses.replace(spec(), length=MatchLength(hands=2)), store, scheduler)
    live = table.subscribe(0)
    sessions = [table.join(s, f"token-{s}-0123456789", decisions_only=True) for s in range(4)]
    play_to_the_end(table, sessions)
    everything = taken(live)
    durable = table.public[29][0]  # the log seq of public event 30
    store.durable_seq = lambda match_id: durable  # type: ignore[method-assign]
    step = table.backlog(1, 20)
    assert isinstance(step, tuple) and len(step[0]) == 20
    step = table.backlog(step[1], 20)  # events 21-30 are durable, 31 on are not
    assert isinstance(step, tuple) and len(step[0]) == 10 and step[1] == 31
    rest = table.backlog(31, 20)  # the live queue holds the rest, sent once durable
    assert isinstance(rest, Outbound) and taken(rest) == everything[30:]
