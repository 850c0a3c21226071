"""The seat round trip's part outside the engine: a decisions-only stream notes when it hands
a message to gRPC, and the seat's answer to that decision is measured from then
(``hebei_table_decision_answer_seconds``); a full stream's answers are not (its last message
need not be the decision)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY

from hebei.common import convert
from hebei.table.scheduler import Scheduler
from hebei.table.sessions import Outbound
from hebei.table.table import Table
from tests.unit.table.fakes import InstantStore
from tests.unit.table.test_hidden_information import spec


@pytest.fixture
def scheduler() -> Iterator[Scheduler]:
    timers = Scheduler()
    yield timers
    timers.stop()


def answers_measured() -> float:
    value = REGISTRY.get_sample_value(
        "hebei_table_decision_answer_seconds_count", {"seat_kind": "bot"}
    )
    return value or 0.0


def sent_decision(session: Outbound):
    """Take the stream's queued messages as the Play handler does; the last observation."""

    async def take():
        stream = session.messages()
        taken = [await asyncio.wait_for(anext(stream), 2) for _ in range(len(session._items))]
        await stream.aclose()
        return taken

    taken = asyncio.run(take())
    return [m.observation for m in taken if m.HasField("observation")][-1]


def first_discard(observation):
    action = convert.observation_from_proto(observation).legal_actions[-1]
    return convert.action_to_proto(action, observation.decision_id)


@pytest.mark.parametrize("decisions_only", [True, False])
def test_an_answer_is_measured_from_its_decision_leaving_a_decisions_only_stream(
    scheduler: Scheduler, decisions_only: bool
) -> None:
    table = Table(spec(), InstantStore(), scheduler)
    sessions = [
        table.join(s, f"token-{s}-0123456789", decisions_only=decisions_only) for s in range(4)
    ]
    dealer = next(s for s in sessions if s._items and s._items[-1][1].observation.decision_id)
    assert dealer.sent_at == 0.0
    observation = sent_decision(dealer)
    assert observation.decision_id and dealer.sent_at > 0.0
    before = answers_measured()
    table.act(dealer, first_discard(observation))
    assert answers_measured() == before + (1 if decisions_only else 0)
