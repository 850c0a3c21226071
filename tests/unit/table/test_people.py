"""The table's side of people in tournaments, without a server or a database: a conclusion ends
the match after the hand in progress and its log replays (and only so), a table resumed from
its log keeps its conclusion and its replaced seats, and an ended match's seed is published
only when the host lets it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from hebei.common.errors import FailedPrecondition, PermissionDenied, Unauthenticated
from hebei.rules.errors import ReplayError
from hebei.rules.match import MatchLength
from hebei.rules.replay import replay_match
from hebei.table.scheduler import Scheduler
from hebei.table.spec import FINISHED, PLAYING, hash_token
from hebei.table.table import Table
from hebei.v1 import types_pb2 as pb
from tests.unit.table.fakes import InstantStore
from tests.unit.table.test_hidden_information import spec
from tests.unit.table.test_spectators import play_to_the_end

REASON = "the round's time limit"


def token(seat: int) -> str:
    return f"token-{seat}-0123456789"


@pytest.fixture
def scheduler() -> Iterator[Scheduler]:
    timers = Scheduler()
    yield timers
    timers.stop()


def started(store: InstantStore, scheduler: Scheduler, hands: int = 4) -> tuple[Table, list]:
    """A match of four people, every seat joined (the first hand is dealt)."""
    match = dataclasses.replace(spec(kind=pb.SEAT_KIND_PERSON), length=MatchLength(hands=hands))
    table = Table(match, store, scheduler, rejoin_seconds=300.0)
    sessions = [table.join(s, token(s), decisions_only=True) for s in range(4)]
    assert table.status == PLAYING and table.hand is not None and not table.hand.ended
    return table, sessions


def test_a_conclusion_mid_hand_ends_the_match_after_it_and_the_log_replays(scheduler) -> None:
    table, sessions = started(InstantStore(), scheduler)
    table.conclude(REASON)
    assert table.info().concluding and table.status == PLAYING
    table.conclude("asked again")  # nothing more
    assert [e["type"] for e in table.log.data()].count("match_concluding") == 1
    play_to_the_end(table, sessions)
    assert table.status == FINISHED and table.match.hand_no == 1  # of 4
    log = table.rules_log()
    assert log[-2:] == [
        {"type": "match_concluded", "reason": REASON},
        table.match.end_event(),
    ]
    replayed = replay_match(log)
    assert replayed.hand_no == 1 and replayed.scores == table.match.scores
    assert replayed.conclusion == REASON
    # Cut short without its conclusion, the log is not the match's.
    without = [e for e in log if e["type"] != "match_concluded"]
    with pytest.raises(ReplayError, match="hand_start"):
        replay_match(without)
    # A conclusion inside a hand is not one either.
    with pytest.raises(ReplayError):
        replay_match([*without[:6], log[-2], *without[6:]])
    with pytest.raises(ReplayError, match="match_concluded"):
        replay_match([*log[:-2], {"type": "match_concluded", "reason": 7}, log[-1]])


def test_a_waiting_match_concluded_ends_at_once_and_replays(scheduler) -> None:
    match = dataclasses.replace(spec(kind=pb.SEAT_KIND_PERSON), length=MatchLength(hands=4))
    table = Table(match, InstantStore(), scheduler)
    table.conclude(REASON)
    assert table.status == FINISHED and table.match.hand_no == 0
    replayed = replay_match(table.rules_log())
    assert replayed.finished and replayed.hand_no == 0 and replayed.scores == [0, 0, 0, 0]


def test_a_resumed_table_keeps_its_conclusion_and_its_replaced_seat(scheduler) -> None:
    store = InstantStore()
    table, _sessions = started(store, scheduler)
    new = "a-new-token-0123456789"
    table.conclude(REASON)
    table.replace_seat(1, hash_token(new), "bot for P1", "removed by the operator")
    table.replace_seat(1, hash_token(new), "bot for P1", "removed by the operator")  # again
    events = [row for group in store.groups for row in group.events]
    assert sum(row.event["type"] == "seat_replaced" for row in events) == 1
    table.discard()

    stored = dataclasses.replace(table.spec.stored(), status=PLAYING, events=events)
    resumed = Table.resume(stored, InstantStore(), scheduler, rejoin_seconds=300.0)
    try:
        assert resumed.concluding == REASON and resumed.match.conclusion == REASON
        info = resumed.info()
        assert info.concluding and [s.played_by for s in info.seats] == ["", "bot for P1", "", ""]
        assert all(s.person_joined for s in info.seats)
        with pytest.raises(PermissionDenied, match=r"^your seat was given to a bot: removed by"):
            resumed.join(1, token(1))
        with pytest.raises(Unauthenticated):
            resumed.join(1, "not-a-token-of-this-seat")
        session = resumed.join(1, new, decisions_only=True, bot=True)
        assert not session.closed and resumed.seats[1].connected
        assert resumed.info().seats[1].played_by == "bot for P1"  # ReplaceSeat's, not a filler
    finally:
        resumed.discard()


def test_the_seat_of_an_ended_match_cannot_be_replaced(scheduler) -> None:
    table = Table(spec(kind=pb.SEAT_KIND_PERSON), InstantStore(), scheduler)
    table.dissolve("gone")
    with pytest.raises(FailedPrecondition, match="dissolved"):
        table.replace_seat(0, hash_token("a-new-token-0123456789"), "bot", "")


def test_an_ended_matchs_seed_is_published_only_when_the_host_lets_it(scheduler) -> None:
    table, sessions = started(InstantStore(), scheduler, hands=1)
    withheld = True
    table.seed_withheld = lambda match: withheld
    play_to_the_end(table, sessions)
    assert table.over
    end = table._public_message(len(table.public) - 1)
    assert end.type == pb.EVENT_TYPE_MATCH_END and end.seed == 0
    assert table.info().seed == 0
    withheld = False  # the last match sharing its wall ended
    assert table._public_message(len(table.public) - 1).seed == table.spec.seed != 0
    assert table.info().seed == table.spec.seed
