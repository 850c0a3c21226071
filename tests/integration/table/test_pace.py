"""The bot pace (HEBEI_TABLE_BOT_PACE_SECONDS): at a table with a person's seat the engine
applies every action the machine makes no sooner than the pace after the seat was asked (its
claims included), and holds every discard at least that long, whoever could claim it; a table
of bots only is never paced.

Asserted from the engine's own event times (never from how long the test took): each bot
action's event follows the event that asked for it by at least the pace."""

from __future__ import annotations

from collections.abc import Callable

from hebei.table.eventlog import TABLE_EVENTS
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import EngineUnderTest, new_match_request, play_clients

PACE = 0.3
SLACK = 0.002  # wall-clock rounding between two events' times
CLAIMS = frozenset({"pass", "pong", "exposed_kong", "chow"})
OPENERS = frozenset({"discard", "added_kong"})


def _play(
    engine: EngineUnderTest, people: tuple[int, ...], hands: int = 1
) -> list[tuple[dict, float]]:
    """A match of ``hands`` with these seats people (the rest bots), every seat answering at
    once; the rules events of the log with their times."""
    request = new_match_request(hands=hands, seed=0, per_decision=30.0)
    for seat in request.seats:
        seat.kind = pb.SEAT_KIND_PERSON if seat.seat in people else pb.SEAT_KIND_BOT
    engine.stub.OpenMatch(request, metadata=_operator(), timeout=10)
    clients = play_clients(engine.channel, request.match_id)
    for client in clients:
        client.join(timeout=300)
        assert client.finished.is_set() and client.error is None
        assert not [r for r in client.rejections if r.code != "FAILED_PRECONDITION"]
    table = engine.engine.host.get(request.match_id)
    assert table.status == "finished"
    return [(e.event, e.time) for e in table.log if e.event["type"] not in TABLE_EVENTS]


def _operator() -> list[tuple[str, str]]:
    from tests.integration.table.conftest import OPERATOR

    return OPERATOR


def _asked_by(events: list[tuple[dict, float]], index: int) -> tuple[dict, float]:
    """The event that asked for the action at ``index``: the discard (or added kong) a claim
    answers, else the event before it."""
    event = events[index][0]
    earlier = [e for e in events[:index] if e[0]["type"] != "pass"]
    claim = event["type"] in CLAIMS or (
        event["type"] == "win" and earlier and earlier[-1][0]["type"] in OPENERS | CLAIMS
    )
    if claim:
        return next(e for e in reversed(earlier) if e[0]["type"] in OPENERS)
    return earlier[-1]


def _gaps(events: list[tuple[dict, float]], who: Callable[[int], bool]) -> list[float]:
    """For every action of a seat ``who`` picks: seconds from the event that asked for it."""
    gaps = []
    for index, (event, at) in enumerate(events):
        if event.get("seat") in (0, 1, 2, 3) and who(event["seat"]) and event["type"] != "draw":
            if event["type"] in ("hand_start", "deal", "hand_end"):
                continue
            gaps.append(at - _asked_by(events, index)[1])
    return gaps


def test_bots_wait_for_the_pace_at_a_table_with_a_person(start_engine):
    engine = start_engine(bot_pace=PACE)
    events = _play(engine, people=(0,))
    bot_gaps = _gaps(events, lambda seat: seat != 0)
    assert len(bot_gaps) > 20  # a hand has many bot actions
    assert min(bot_gaps) >= PACE - SLACK, sorted(bot_gaps)[:5]
    # ... claims included: every draw after a discard waits the pace, whoever could claim.
    for index, (event, at) in enumerate(events):
        if event["type"] == "draw" and not event.get("replacement") and index > 2:
            before = events[index - 1]
            opener = _asked_by(events, index) if before[0]["type"] == "pass" else before
            if opener[0]["type"] == "discard":
                assert at - opener[1] >= PACE - SLACK, (event, opener)
    # The person's actions are never held: the engine took them (the hand finished with
    # every one of them logged as the seat's own, none auto-played).
    person = [e for e, _ in events if e.get("seat") == 0 and e["type"] not in ("draw",)]
    assert person and not [e for e in person if e.get("auto")]


def test_a_table_of_bots_is_not_paced(start_engine):
    pace = 5.0  # a paced hand would take minutes; unpaced bots answer in milliseconds
    engine = start_engine(bot_pace=pace)
    events = _play(engine, people=())
    gaps = _gaps(events, lambda seat: True)
    # how many turns a hand lasts depends on the walls and on which bots timed out under load
    # (13 to 60 seen): enough of them to tell, then most must be far under the pace
    assert len(gaps) > 8
    assert min(gaps) < pace
    assert sum(1 for gap in gaps if gap < pace) > len(gaps) // 2


def _breaks(events: list[tuple[dict, float]]) -> list[float]:
    """Seconds from each hand's end to the next hand's first event (not the match's end)."""
    ends = [i for i, (e, _) in enumerate(events) if e["type"] == "hand_end"]
    return [
        events[i + 1][1] - events[i][1]
        for i in ends
        if i + 1 < len(events) and not events[i + 1][0]["type"].startswith("match_")
    ]


def test_a_hands_settlement_is_shown_before_the_next_deal_at_a_table_with_a_person(
    start_engine,
):
    """The next hand is dealt HAND_BREAK_PACES paces after the last one's settlement (time to
    read it before anything is asked); at a table of bots, at once."""
    from hebei.table.table import HAND_BREAK_PACES

    pace = 0.05
    engine = start_engine(bot_pace=pace)
    breaks = _breaks(_play(engine, people=(0,), hands=2))
    assert len(breaks) == 1 and breaks[0] >= HAND_BREAK_PACES * pace - SLACK, breaks
    engine.close()  # two live engines on one schema would share its matches' shards
    bots = _breaks(_play(start_engine(bot_pace=5.0), people=(), hands=2))
    assert len(bots) == 1 and bots[0] < 5.0, bots
