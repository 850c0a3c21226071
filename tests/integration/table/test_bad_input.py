"""Bad input is refused with the right codes while the table carries on."""

from __future__ import annotations

import grpc
import pytest

from hebei.common.auth import bearer_metadata
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import (
    OPERATOR,
    SeatClient,
    new_match_request,
    play_clients,
    token_of,
)
from tests.integration.table.helpers import wait_for


def play_once(stub, *messages: table_pb2.PlayRequest) -> grpc.RpcError:
    """Open a Play stream with ``messages`` and return the error that ends it."""
    with pytest.raises(grpc.RpcError) as caught:
        for _ in stub.Play(iter(messages), timeout=10):
            pass
    return caught.value


def join(match_id: str, seat: int, token: str) -> table_pb2.PlayRequest:
    return table_pb2.PlayRequest(
        join=table_pb2.Join(match_id=match_id, seat=seat, seat_token=token)
    )


def test_operator_calls_need_a_token(engine) -> None:
    request = new_match_request()
    with pytest.raises(grpc.RpcError) as missing:
        engine.stub.OpenMatch(request)
    assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as wrong:
        engine.stub.OpenMatch(request, metadata=bearer_metadata("not-the-token"))
    assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: r.seats.pop(), "four seats"),
        (lambda r: setattr(r, "match_id", ""), "match_id"),
        (lambda r: r.length.Clear(), "length"),
        (lambda r: setattr(r.rule_profile, "name", "nope"), "unknown rule profile"),
        (lambda r: setattr(r.seats[0], "seat_token", "x"), "seat_token"),
        (lambda r: r.length.wind_rounds.MergeFrom(pb.WindRounds(rounds=3)), "one wind round"),
    ],
)
def test_bad_open_match_is_invalid_argument(engine, change, words) -> None:
    request = new_match_request()
    change(request)
    with pytest.raises(grpc.RpcError) as caught:
        engine.stub.OpenMatch(request, metadata=OPERATOR)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert words in caught.value.details()


def test_open_match_is_idempotent_by_match_id(engine) -> None:
    request = new_match_request(seed=3)
    first = engine.stub.OpenMatch(request, metadata=OPERATOR).match
    again = engine.stub.OpenMatch(request, metadata=OPERATOR).match
    assert again.match_id == first.match_id and again.opened_at == first.opened_at
    other = new_match_request(seed=4, match_id=request.match_id)
    with pytest.raises(grpc.RpcError) as caught:
        engine.stub.OpenMatch(other, metadata=OPERATOR)
    assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS


def test_unknown_match_and_bad_joins(engine) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id="nope"))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    request = new_match_request()
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    match_id = request.match_id
    cases = [
        ((join("nope", 0, "whatever-token"),), grpc.StatusCode.NOT_FOUND),
        ((join(match_id, 0, "wrong-token!"),), grpc.StatusCode.UNAUTHENTICATED),
        ((join(match_id, 0, token_of(match_id, 1)),), grpc.StatusCode.UNAUTHENTICATED),
        ((join(match_id, 0, ""),), grpc.StatusCode.UNAUTHENTICATED),
        ((join(match_id, 7, token_of(match_id, 0)),), grpc.StatusCode.INVALID_ARGUMENT),
        ((table_pb2.PlayRequest(action=pb.Action(kind=pb.ACTION_KIND_PASS)),), "INVALID"),
        ((), "INVALID"),
    ]
    for messages, code in cases:
        error = play_once(engine.stub, *messages)
        expected = grpc.StatusCode.INVALID_ARGUMENT if code == "INVALID" else code
        assert error.code() == expected, (messages, error.details())
        assert "Traceback" not in (error.details() or "")


class Troublemaker(SeatClient):
    """Answers its first decision only after a volley of bad messages."""

    volley_sent = False

    def _answer(self, obs: pb.Observation) -> None:
        if not self.volley_sent and obs.phase == pb.PHASE_TURN:
            self.volley_sent = True
            held = {t for t in obs.concealed}
            missing = next(t for t in range(1, 35) if t not in held)
            decision = obs.decision_id
            self.send(pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=99, decision_id=decision))
            self.send(pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=missing, decision_id=decision))
            self.send(pb.Action(kind=pb.ACTION_KIND_PONG, tile=missing, decision_id=decision))
            self.send(pb.Action(kind=pb.ACTION_KIND_PASS, decision_id=decision + 1000))
            self.send(pb.Action(kind=pb.ACTION_KIND_CHOW, tile=1, decision_id=decision))
            self._requests.put(join(self.match_id, self.seat, self.token))
        super()._answer(obs)


def test_illegal_and_malformed_actions_are_rejected_and_the_table_carries_on(engine) -> None:
    request = new_match_request(hands=1, seed=21)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    clients = [
        (Troublemaker if seat == 0 else SeatClient)(engine.channel, request.match_id, seat)
        for seat in range(4)
    ]
    for client in clients:
        client.start()
    # Out of turn: seat 2 sends a discard while someone else decides.
    assert wait_for(lambda: len(clients[2].observations) > 0)
    first = clients[2].observations[0]
    if not first.decision_id:
        clients[2].send(pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=1, decision_id=1))
    for client in clients:
        client.join(60)
        assert client.error is None, client.error
    codes = [(r.code, r.message) for r in clients[0].rejections]
    assert [c for c, _ in codes] == [
        "INVALID_ARGUMENT",  # unknown tile 99
        "FAILED_PRECONDITION",  # discarding a tile it does not hold
        "FAILED_PRECONDITION",  # pong on its own turn
        "FAILED_PRECONDITION",  # a stale decision id
        "INVALID_ARGUMENT",  # chow is not in these rules
        "INVALID_ARGUMENT",  # a second Join
    ]
    assert "unknown tile" in codes[0][1] and "holds no" in codes[1][1]
    assert "not the seat's open decision" in codes[3][1]
    if not first.decision_id:
        assert [r.code for r in clients[2].rejections] == ["FAILED_PRECONDITION"], clients[
            2
        ].rejections
    final = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
    assert final.status == pb.MATCH_STATUS_FINISHED and final.hands_played == 1


class Flooder(SeatClient):
    """Sends a flood of garbage before its first answer (which the rate limit may drop)."""

    flooded = False

    def _answer(self, obs: pb.Observation) -> None:
        if not self.flooded:
            self.flooded = True
            for _ in range(500):
                self.send(pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=0, decision_id=1))
        super()._answer(obs)


def test_a_flooding_client_does_not_stall_other_tables(engine) -> None:
    quiet = new_match_request(hands=1, seed=2)
    noisy = new_match_request(hands=1, seed=3, per_decision=0.5)
    for request in (quiet, noisy):
        engine.stub.OpenMatch(request, metadata=OPERATOR)
    flood = [Flooder(engine.channel, noisy.match_id, 0).start()] + [
        SeatClient(engine.channel, noisy.match_id, seat, stop_after=None).start()
        for seat in (1, 2, 3)
    ]
    calm = play_clients(engine.channel, quiet.match_id)
    for client in calm:
        client.join(60)
        assert client.error is None
    quiet_info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=quiet.match_id)).match
    assert quiet_info.status == pb.MATCH_STATUS_FINISHED
    for client in flood:
        client.join(90)
    assert any(r.code == "RESOURCE_EXHAUSTED" for r in flood[0].rejections)
    noisy_info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=noisy.match_id)).match
    assert noisy_info.status == pb.MATCH_STATUS_FINISHED


def test_answers_to_open_decisions_never_count_against_the_rate_limit(engine) -> None:
    """Bots answered faster than the limit allows other messages (60 decisions a second on a
    seat through the stack): their answers were dropped as a flood, and their decisions timed
    out. Only messages that answer no open decision count."""
    engine.engine.servicer.rate, engine.engine.servicer.burst = 1.0, 1  # one message a second
    request = new_match_request(hands=1, seed=4)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    clients = play_clients(engine.channel, request.match_id, stop_after=None)
    for client in clients:
        client.join(90)
        assert client.error is None
        assert not [r for r in client.rejections if r.code == "RESOURCE_EXHAUSTED"]
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
    assert info.status == pb.MATCH_STATUS_FINISHED
    assert sum(client.answers for client in clients) > 10  # in about a second or two
