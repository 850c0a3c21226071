"""What a seat learns from its observations, checked on a Table with stacked walls (no I/O: the
store is a stand-in that makes everything durable at once).

A seat with nothing to claim must see exactly the same stream whether or not another seat
could claim the discard: at a real table the next turn simply begins a little later. With a
claim window's floor (TimeControl.claim_window) it also begins as late, and the events' times
say nothing either."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from hebei.common import convert
from hebei.rules.actions import PASS
from hebei.rules.match import MatchLength
from hebei.rules.tiles import parse_tile
from hebei.table import table as table_module
from hebei.table.scheduler import Scheduler
from hebei.table.sessions import Outbound
from hebei.table.spec import MatchSpec, SeatSpec, hash_token
from hebei.table.table import Table
from hebei.table.timecontrol import TimeControl
from hebei.v1 import types_pb2 as pb
from tests.unit.rules.rigging import rigged_hand
from tests.unit.table.fakes import InstantStore

DEALER = "147m2589p369s1234z"  # 14 tiles; discards 9p at once
SOUTH = "258m36p147s12567z"
WEST_CAN_PONG = "369m4799p258s345z"  # holds 9p9p: may pong the dealer's 9p
WEST_CANNOT = "369m47p258s34566z"  # the same seat with 6z6z instead
NORTH = "159m148p267s1367z"


def spec(
    match_id: str = "m1", claim_window: float = 0.0, kind: int = pb.SEAT_KIND_BOT
) -> MatchSpec:
    return MatchSpec(
        match_id=match_id,
        table_id="t",
        tournament_id="",
        round_no=0,
        profile="main",
        length=MatchLength(hands=1),
        seed=1,
        seats=tuple(
            SeatSpec(s, f"p{s}", f"P{s}", kind, hash_token(f"token-{s}-0123456789"))
            for s in range(4)
        ),
        time_control=TimeControl(30.0, 0.0),
        claim_window=claim_window,
    )


@pytest.fixture
def scheduler() -> Iterator[Scheduler]:
    timers = Scheduler()
    yield timers
    timers.stop()


def rigged_table(
    scheduler: Scheduler, west: str, claim_window: float = 0.0
) -> tuple[Table, list[Outbound]]:
    """A table whose first hand deals the hands above (dealer seat 0), all four seats joined."""
    table = Table(spec(claim_window=claim_window), InstantStore(), scheduler)

    def next_hand():
        table.match.hand = rigged_hand([DEALER, SOUTH, west, NORTH], dealer=0, draws="9s1m")
        return table.match.hand

    table.match.next_hand = next_hand
    sessions = [table.join(s, f"token-{s}-0123456789") for s in range(4)]
    return table, sessions


def wait_until(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return bool(predicate())


def observations(session: Outbound) -> list[pb.Observation]:
    return [m.observation for _seq, m, _keep in session._items if m.HasField("observation")]


def answer(table: Table, session: Outbound, action) -> None:
    obs = observations(session)[-1]
    assert obs.decision_id and action in convert.observation_from_proto(obs).legal_actions
    table.act(session, convert.action_to_proto(action, obs.decision_id))


def play_first_discard(scheduler: Scheduler, west: str) -> list[list[pb.Observation]]:
    """The dealer discards 9p; west passes if it may pong; south then draws and is to play.
    Every seat's observations so far."""
    table, sessions = rigged_table(scheduler, west)
    nine_pin = parse_tile("9p")
    answer(table, sessions[0], convert.action_from_proto(pb.Action(kind=1, tile=nine_pin + 1)))
    west_obs = observations(sessions[2])[-1]
    if west_obs.phase == pb.PHASE_CLAIM and west_obs.legal_actions:
        answer(table, sessions[2], PASS)
    south = observations(sessions[1])[-1]
    assert south.phase == pb.PHASE_TURN and south.current_seat == 1 and south.decision_id
    return [observations(s) for s in sessions]


def comparable(stream: list[pb.Observation]) -> list[pb.Observation]:
    """The stream without wall-clock times, decision ids replaced by their order."""
    ids: dict[int, int] = {}
    out = []
    for obs in stream:
        copy = pb.Observation()
        copy.CopyFrom(obs)
        for name in ("deadline", "time_bank"):
            copy.ClearField(name)
        copy.last_event.ClearField("time")
        if copy.decision_id:
            number = ids.setdefault(copy.decision_id, len(ids) + 1)
            copy.decision_id = number
            for action in copy.legal_actions:
                action.decision_id = number
        out.append(copy)
    return out


def test_a_seat_without_a_claim_cannot_tell_whether_another_seat_had_one(scheduler) -> None:
    with_claim = play_first_discard(scheduler, WEST_CAN_PONG)
    without = play_first_discard(scheduler, WEST_CANNOT)
    # West really had a claim window in the first case (and only there).
    assert any(o.phase == pb.PHASE_CLAIM for o in with_claim[2])
    assert not any(o.phase == pb.PHASE_CLAIM for o in without[2])
    for seat in (0, 1, 3):  # the discarder, the next player, the seat across
        assert comparable(with_claim[seat]) == comparable(without[seat]), seat
        assert not any(o.phase == pb.PHASE_CLAIM for o in with_claim[seat])


def test_decision_ids_count_only_the_seats_own_and_a_stale_one_is_refused(scheduler) -> None:
    """Ids used to be positions in the engine's log: the gaps between a seat's ids counted the
    other seats' hidden passes. Now: the seat's own count above 31 random bits."""
    ids = {}
    for west in (WEST_CAN_PONG, WEST_CANNOT):
        play = play_first_discard(scheduler, west)
        ids[west] = [[o.decision_id for o in stream if o.decision_id] for stream in play]
    for seat in (0, 1, 3):  # the same decisions whether or not west had a claim to pass
        counts = [[d >> 31 for d in ids[west][seat]] for west in ids]
        assert counts[0] == counts[1]
    south = ids[WEST_CAN_PONG][1]
    assert south and south[0] >> 31 == 1  # south's first decision, whatever came before
    table, sessions = rigged_table(scheduler, WEST_CAN_PONG)
    first = observations(sessions[0])[-1]
    assert first.decision_id >> 31 == 1 and first.decision_id & (2**31 - 1)
    answer(table, sessions[0], convert.action_from_proto(pb.Action(kind=1, tile=18)))
    west = observations(sessions[2])[-1]
    assert west.decision_id not in (0, first.decision_id)
    table.act(sessions[2], pb.Action(kind=pb.ACTION_KIND_PASS, decision_id=first.decision_id))
    refused = [m.rejected for _s, m, _k in sessions[2]._items if m.HasField("rejected")]
    assert refused and refused[-1].code == "FAILED_PRECONDITION"
    assert refused[-1].message == f"decision {first.decision_id} is not the seat's open decision"


def test_auto_play_goes_in_bounded_steps(scheduler, monkeypatch) -> None:
    """Auto-play never runs long under a table's lock or on the timer thread: after
    STEP_ACTIONS actions the rest goes on in a later step, behind other tables' timers."""
    monkeypatch.setattr(table_module, "STEP_ACTIONS", 2)
    store = InstantStore()
    table = Table(spec(kind=pb.SEAT_KIND_PERSON), store, scheduler)
    session = table.join(1, "token-1-0123456789")  # seats 0, 2 and 3 (people) stay away
    ran: list[str] = []
    with table.lock:
        table.on_ready_timeout()
        first = len(store.events())
        scheduler.call_later(0, lambda: ran.append("another table's timer"))
    assert wait_until(lambda: observations(session) and observations(session)[-1].decision_id)
    assert ran == ["another table's timer"]
    in_first_step = [e for e in store.events()[:first] if e.get("auto")]
    assert len(in_first_step) <= 2  # the deal and one action
    assert len([e for e in store.events() if e.get("auto")]) > 2  # the rest in later steps


FLOOR = 1.0  # seconds: the claim window's floor in the tests below


def _souths_turn(session: Outbound) -> bool:
    last = observations(session)[-1]
    return last.phase == pb.PHASE_TURN and last.current_seat == 1 and bool(last.decision_id)


def _event_time(table: Table, kind: str, seat: int) -> float:
    return next(e.time for e in table.log if e.event["type"] == kind and e.event["seat"] == seat)


@pytest.mark.parametrize(
    "west", [WEST_CAN_PONG, WEST_CANNOT], ids=["west-may-pong", "west-may-not"]
)
def test_with_a_claim_window_floor_the_next_turn_begins_as_late_whatever_the_claims(
    scheduler, west: str
) -> None:
    """Without the floor the next draw follows a discard nobody may claim at once, and one a
    seat may claim only once it answered: the time it took (told by when the next turn
    begins, and by the events' times) said whether a seat could claim. With it, both wait
    the floor, and a claimant answering within it is told by nothing."""
    table, sessions = rigged_table(scheduler, west, claim_window=FLOOR)
    told = [len(observations(s)) for s in sessions]
    started = time.time()
    answer(
        table, sessions[0], convert.action_from_proto(pb.Action(kind=1, tile=parse_tile("9p") + 1))
    )
    claim = observations(sessions[2])[-1]
    if west == WEST_CAN_PONG:  # the claimant is asked at once, and passes at once
        assert claim.phase == pb.PHASE_CLAIM and claim.decision_id
        answer(table, sessions[2], PASS)
    # Nothing that follows the discard is told, logged or timed before the floor is up: not
    # the next draw, not the pass, to no seat but the claimant asked.
    assert [len(observations(s)) for s in (sessions[0], sessions[1], sessions[3])] == [
        told[0],
        told[1],
        told[3],
    ]
    assert not any(e.event["type"] == "draw" and e.event.get("seat") == 1 for e in table.log)
    assert wait_until(lambda: _souths_turn(sessions[1]), timeout=30)
    south = observations(sessions[1])[-1]
    discard_at = _event_time(table, "discard", 0)
    assert _event_time(table, "draw", 1) - discard_at >= FLOOR - 0.01
    assert time.time() - started >= FLOOR - 0.01
    # South's clock ran only from the floor's end: its deadline is its whole time after it.
    assert south.deadline.ToMicroseconds() / 1e6 >= discard_at + FLOOR + 30.0 - 0.05
    assert [e.event["type"] for e in table.log if e.event["type"] in ("discard", "pass", "draw")][
        -2 if west == WEST_CANNOT else -3 :
    ] == (["discard", "draw"] if west == WEST_CANNOT else ["discard", "pass", "draw"])


def test_with_a_floor_the_seats_without_a_claim_see_the_same_stream(scheduler) -> None:
    streams = {}
    for west in (WEST_CAN_PONG, WEST_CANNOT):
        table, sessions = rigged_table(scheduler, west, claim_window=FLOOR)
        answer(
            table,
            sessions[0],
            convert.action_from_proto(pb.Action(kind=1, tile=parse_tile("9p") + 1)),
        )
        if west == WEST_CAN_PONG:  # wait for west's claim, however loaded the machine is
            assert wait_until(
                lambda s=sessions: observations(s[2])[-1].phase == pb.PHASE_CLAIM, timeout=30
            )
            answer(table, sessions[2], PASS)
        assert wait_until(lambda s=sessions: _souths_turn(s[1]), timeout=30)
        streams[west] = [observations(s) for s in sessions]
    for seat in (0, 1, 3):
        assert comparable(streams[WEST_CAN_PONG][seat]) == comparable(streams[WEST_CANNOT][seat])


def test_without_a_floor_the_next_draw_follows_an_unclaimable_discard_at_once(scheduler) -> None:
    """What the floor changes: the default table goes on as soon as it may."""
    table, sessions = rigged_table(scheduler, WEST_CANNOT)
    answer(
        table, sessions[0], convert.action_from_proto(pb.Action(kind=1, tile=parse_tile("9p") + 1))
    )
    assert _souths_turn(sessions[1])  # told in the same step
    assert _event_time(table, "draw", 1) - _event_time(table, "discard", 0) < FLOOR
