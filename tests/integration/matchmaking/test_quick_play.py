"""Quick play's tables are bounded: a table its person left before the match started is
dissolved (not played on by three bots and an auto-played seat), also when the engine was out of
reach when the dissolving fell due, and quick play holds at most
``max_quick_play_tables`` live tables, so anonymous requests never take the engine's tables
from the tournaments. Real parts: the servers on loopback, PostgreSQL, a bot worker."""

from __future__ import annotations

import threading
import time
from typing import Any

import grpc
import pytest

from hebei.bots.policies import make_policy
from hebei.bots.session import SeatSession, SeatTicket
from hebei.common.config import ConfigError
from hebei.matchmaking.quickplay import JOIN_GRACE_SECONDS, LEFT_REASON
from hebei.matchmaking.service import MatchmakingConfig
from hebei.v1 import ledger_pb2, table_pb2
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from tests.integration.matchmaking.conftest import Stack
from tests.integration.table.helpers import wait_for
from tests.integration.tcp_proxy import TcpProxy


def _ask(stack: Stack, hands: int = 1, name: str = "Mei"):
    """A quick-play stream (anonymous) and its first reply."""
    request = mm.QuickPlayRequest(name=name, bot_policy="random")
    request.length.hands = hands
    stream = stack.mm(token=None).QuickPlay(request, timeout=180)
    return stream, next(stream)


def _seated(stack: Stack, hands: int = 1) -> tuple[Any, mm.QuickPlayResponse]:
    stream, queued = _ask(stack, hands)
    assert queued.status == mm.QUICK_PLAY_STATUS_QUEUED
    seated = next(stream)
    assert seated.status == mm.QUICK_PLAY_STATUS_SEATED
    return stream, seated


def _join_as_the_person(stack: Stack, seating: Any) -> threading.Thread:
    """The person of ``seating`` joins its seat (and plays it, randomly): a thread, started,
    returned once the engine has the seat connected."""
    ticket = SeatTicket(
        seating.table_endpoint, seating.match_id, seating.seat, seating.seat_token, "random"
    )
    person = threading.Thread(
        target=lambda: SeatSession(ticket, make_policy("random")).run(), daemon=True
    )
    person.start()
    assert wait_for(
        lambda: _match(stack, seating.match_id).seats[seating.seat].connected, timeout=60
    )
    return person


def _match(stack: Stack, match_id: str) -> table_pb2.MatchInfo:
    return stack.table().GetMatch(table_pb2.GetMatchRequest(match_id=match_id)).match


def _stored(stack: Stack, match_id: str):
    with stack.matchmaking.store.reading() as conn:
        return stack.matchmaking.store.match(conn, match_id)


def _live_tables(stack: Stack) -> int:
    with stack.matchmaking.store.reading() as conn:
        return stack.matchmaking.store.live_quick_play(conn)


def _engine_live(stack: Stack) -> set[str]:
    ids = set()
    for status in (pb.MATCH_STATUS_WAITING, pb.MATCH_STATUS_PLAYING):
        page = stack.table().ListTables(table_pb2.ListTablesRequest(status=status, page_size=500))
        ids |= {m.match_id for m in page.matches}
    return ids


def test_a_request_cancelled_once_seated_leaves_no_live_table(stack: Stack, start_worker) -> None:
    """40 anonymous requests cancelled once seated used to leave 10 live tables, three bots
    and an auto-played seat each: one address could fill the engine. The table is dissolved
    now, nothing booked."""
    stack.start_matchmaking()
    start_worker(sessions=4)  # the bots join: only the person is missing
    stream, seated = _seated(stack, hands=4)
    match_id = seated.seating.match_id
    stream.cancel()

    assert wait_for(
        lambda: _match(stack, match_id).status == pb.MATCH_STATUS_DISSOLVED, timeout=90, step=0.2
    ), _match(stack, match_id)
    info = _match(stack, match_id)
    assert info.hands_played == 0 and [s.score for s in info.seats] == [0, 0, 0, 0]
    assert match_id not in _engine_live(stack)
    assert wait_for(lambda: _stored(stack, match_id).status == "dissolved", timeout=60, step=0.2)
    stored = _stored(stack, match_id)
    assert stored.reason == LEFT_REASON and stored.scores == [0, 0, 0, 0]
    assert _live_tables(stack) == 0
    history = stack.ledger().GetHistory(ledger_pb2.GetHistoryRequest(match_id=match_id))
    assert list(history.entries) == []  # nothing booked


@pytest.mark.parametrize("stack", [{"ready_seconds": 150.0}], indirect=True)
def test_a_left_table_is_dissolved_once_the_engine_is_back_in_reach(stack: Stack) -> None:
    """The dissolving falls due while the engine is out of matchmaking's reach: it is tried
    again until the engine answers. It used to be given up at the first failure, and the
    engine then started the match with the seat auto-played, a quick-play table held for a
    whole match nobody played."""
    proxy = TcpProxy(stack.table_address)
    try:
        stack.start_matchmaking(table_address=proxy.address)
        stream, seated = _seated(stack)
        match_id = seated.seating.match_id
        quick = stack.matchmaking.quick_play
        proxy.cut()
        stream.cancel()

        def retrying() -> bool:
            timer = quick._leaving.get(match_id)
            return timer is not None and timer.args[1] >= 2  # two attempts failed

        assert wait_for(retrying, timeout=90, step=0.1)
        assert _match(stack, match_id).status == pb.MATCH_STATUS_WAITING  # the engine's own
        proxy.restore()
        assert wait_for(
            lambda: _match(stack, match_id).status == pb.MATCH_STATUS_DISSOLVED,
            timeout=90,
            step=0.2,
        ), _match(stack, match_id)
        assert wait_for(lambda: _stored(stack, match_id).status == "dissolved", timeout=60)
        assert _stored(stack, match_id).reason == LEFT_REASON
        assert _live_tables(stack) == 0
    finally:
        proxy.close()


@pytest.mark.parametrize("stack", [{"ready_seconds": 150.0}], indirect=True)
def test_after_a_restart_the_tables_nobody_joined_are_dissolved_and_the_others_kept(
    stack: Stack,
) -> None:
    """A restart of matchmaking ends every QuickPlay stream and forgot the dissolvings they
    had due: such a table was played out with its seat auto-played. Now the new run makes
    every live quick-play table due; the engine keeps the one whose person joined."""
    stack.start_matchmaking()
    left_stream, left = _seated(stack, hands=1)
    kept_stream, kept = _seated(stack, hands=2)  # another length: another table
    seating = kept.seating
    _join_as_the_person(stack, seating)
    stack.stop_matchmaking()  # both streams end with it
    for stream in (left_stream, kept_stream):
        stream.cancel()
    stack.start_matchmaking()
    left_id = left.seating.match_id
    assert wait_for(
        lambda: _match(stack, left_id).status == pb.MATCH_STATUS_DISSOLVED, timeout=90, step=0.2
    ), _match(stack, left_id)
    assert wait_for(lambda: _stored(stack, left_id).status == "dissolved", timeout=60)
    assert _stored(stack, left_id).reason == LEFT_REASON
    quick = stack.matchmaking.quick_play
    assert wait_for(lambda: not quick._leaving, timeout=60)  # the kept one is no longer due
    assert _match(stack, seating.match_id).status == pb.MATCH_STATUS_WAITING  # its bots: none
    assert _stored(stack, seating.match_id).status == "opened"


@pytest.mark.parametrize("stack", [{"ready_seconds": 90.0}], indirect=True)
def test_a_person_who_joined_and_then_closed_the_stream_plays_on(
    stack: Stack, start_worker
) -> None:
    """The normal flow: the person joins its seat, then closes the QuickPlay stream. Here it
    closes it while the match still waits (its bots have not joined yet): the match is not
    dissolved, and the engine refuses to dissolve it as left."""
    stack.start_matchmaking()
    stream, seated = _seated(stack, hands=1)
    seating = seated.seating
    person = _join_as_the_person(stack, seating)
    stream.cancel()
    closed = time.monotonic()
    quick = stack.matchmaking.quick_play
    # Past the grace, and no dissolving of the table is due any more.
    assert wait_for(
        lambda: time.monotonic() > closed + JOIN_GRACE_SECONDS + 1 and not quick._leaving,
        timeout=60,
        step=0.2,
    )
    assert _match(stack, seating.match_id).status == pb.MATCH_STATUS_WAITING
    assert _stored(stack, seating.match_id).status == "opened"
    with pytest.raises(grpc.RpcError) as refused:
        stack.table().Dissolve(
            table_pb2.DissolveRequest(
                match_id=seating.match_id, reason="test", only_if_no_person_joined=True
            )
        )
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION

    start_worker(sessions=4)  # the bots join: the match starts and is played out
    person.join(180)
    assert not person.is_alive()
    assert wait_for(
        lambda: _match(stack, seating.match_id).status == pb.MATCH_STATUS_FINISHED, timeout=60
    )
    assert wait_for(
        lambda: _stored(stack, seating.match_id).status == "finished", timeout=60, step=0.2
    )


@pytest.mark.parametrize("stack", [{"ready_seconds": 120.0}], indirect=True)
def test_quick_play_holds_at_most_its_tables(stack: Stack) -> None:
    """With the cap at 1: a request while the one table is live is refused at once, a group
    seated beyond the cap is refused with no table opened, and once the table has ended a
    request is served again."""
    stack.start_matchmaking(max_quick_play_tables=1, quick_play_wait=8.0)
    message = "quick play has 1 tables in play: try again shortly"
    # Two requests that cannot share a table (other match lengths), both queued while no
    # table is live: the first seated takes the one table, the other is refused at seating.
    first, first_reply = _ask(stack, hands=1, name="Ann")
    second, second_reply = _ask(stack, hands=2, name="Bob")
    assert first_reply.status == second_reply.status == mm.QUICK_PLAY_STATUS_QUEUED
    outcome: dict[str, object] = {}

    def follow(name: str, stream) -> None:
        try:
            outcome[name] = next(stream)
        except grpc.RpcError as error:
            outcome[name] = error

    threads = [
        threading.Thread(target=follow, args=(name, stream), daemon=True)
        for name, stream in (("first", first), ("second", second))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    seated = [(n, r) for n, r in outcome.items() if isinstance(r, mm.QuickPlayResponse)]
    refused = [r for r in outcome.values() if isinstance(r, grpc.RpcError)]
    assert len(seated) == 1 and len(refused) == 1, outcome
    assert seated[0][1].status == mm.QUICK_PLAY_STATUS_SEATED
    assert refused[0].code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert refused[0].details() == message
    holder = first if seated[0][0] == "first" else second
    match_id = seated[0][1].seating.match_id
    with stack.matchmaking.store.reading() as conn:
        opened = conn.execute("SELECT match_id FROM matches WHERE tournament_id = ''").fetchall()
    assert [r["match_id"] for r in opened] == [match_id]  # none for the refused group

    # While the table is live, a request is refused when it arrives.
    with pytest.raises(grpc.RpcError) as caught:
        _ask(stack, name="Cy")
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert caught.value.details() == message

    holder.cancel()  # its person leaves: the table is dissolved, quick play has room again
    assert wait_for(lambda: _live_tables(stack) == 0, timeout=60, step=0.2)
    assert _match(stack, match_id).status == pb.MATCH_STATUS_DISSOLVED
    again, seated_again = _seated(stack, hands=1)
    assert seated_again.seating.match_id != match_id
    again.cancel()


def test_the_cap_is_read_from_the_environment_within_its_bounds() -> None:
    base = {
        "HEBEI_OPERATOR_TOKEN": "op",
        "HEBEI_MATCHMAKING_TABLE_ADDRESS": "127.0.0.1:1",
        "HEBEI_MATCHMAKING_LEDGER_ADDRESS": "127.0.0.1:2",
    }
    assert MatchmakingConfig.from_env(base).max_quick_play_tables == 64
    for value, expected in (("1", 1), ("10000", 10_000)):
        env = {**base, "HEBEI_MATCHMAKING_MAX_QUICK_PLAY_TABLES": value}
        assert MatchmakingConfig.from_env(env).max_quick_play_tables == expected
    for bad in ("0", "10001", "many"):
        with pytest.raises(ConfigError, match="HEBEI_MATCHMAKING_MAX_QUICK_PLAY_TABLES"):
            MatchmakingConfig.from_env({**base, "HEBEI_MATCHMAKING_MAX_QUICK_PLAY_TABLES": bad})
