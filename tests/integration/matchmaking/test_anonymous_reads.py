"""What an anonymous caller can read of a tournament carries no secret: after a whole
tournament with a registration code, people who registered themselves and one the operator
registered, a removal during a match (its seat given a new token) and a withdrawal, every read
matchmaking answers without a token (GetTournament, GetStandings, WatchTournament from the
start of the feed and as a snapshot, GetSeating, GetRatings) is serialized and searched for
every secret the stack holds: the code, the player secrets and their hashes, every seat token
(the replaced seats' new ones too), the operator and service tokens. ListOperatorActions is the
operator's. A player's own watch carries nobody else's secret."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration

from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from tests.integration.matchmaking.conftest import Stack
from tests.integration.table.conftest import OPERATOR_TOKEN, SERVICE_TOKEN

CODE = "winter-open-Zq4"


def _person(tid: str, name: str, code: str = "", rating_id: str = "") -> mm.RegisterRequest:
    return mm.RegisterRequest(
        tournament_id=tid,
        person=mm.PersonEntrant(name=name, rating_id=rating_id),
        registration_code=code,
    )


def _stack_secrets(stack: Stack, tid: str) -> dict[str, str]:
    """Every secret of the tournament the service holds, by what it is."""
    store = stack.matchmaking.store
    with store.reading() as conn:
        matches = store.matches(conn, tid)
        players = store.players(conn, tid)
    found = {"registration code": CODE, "operator token": OPERATOR_TOKEN}
    found["service token"] = SERVICE_TOKEN
    for player in players:
        if player.secret_hash:
            found[f"secret hash of {player.name}"] = player.secret_hash
    for match in matches:
        for seat in match.request.seats:
            found[f"seat token {match.match_id}/{seat.seat}"] = seat.seat_token
        for seat, entry in match.replaced.items():
            if "token" in entry:
                found[f"new seat token {match.match_id}/{seat}"] = entry["token"]
    return found


def _leaks(responses: list, secrets: dict[str, str]) -> list[str]:
    blobs = [r.SerializeToString() for r in responses]
    return [
        f"{what} in a {type(r).__name__}"
        for what, value in secrets.items()
        for r, blob in zip(responses, blobs, strict=True)
        if value.encode() in blob
    ]


def test_no_anonymous_read_carries_a_secret(stack: Stack, start_worker) -> None:
    start_worker(sessions=8)
    stack.start_matchmaking()
    anonymous, operator = stack.mm(token=None), stack.mm()
    tid = stack.create(
        rounds=2, hands=1, registration_code=CODE, seating=mm.SEATING_MODE_RANDOM,
        replace_absent_after=Duration(seconds=0),
    ).tournament_id  # fmt: skip
    ann = anonymous.Register(_person(tid, "Ann", CODE))
    bob = anonymous.Register(_person(tid, "Bob", CODE))
    cy = operator.Register(_person(tid, "Cy", "", "person:cy-club"))
    with pytest.raises(grpc.RpcError):
        anonymous.Register(_person(tid, "Dee", "winter-open-Zq5"))  # a wrong code, recorded
    stack.register_bots(tid, 5, "random")
    started = operator.StartTournament(mm.StartTournamentRequest(tournament_id=tid)).tournament
    assert started.tables
    operator.RemovePlayer(
        mm.RemovePlayerRequest(tournament_id=tid, player_id=bob.player.player_id, reason="rude")
    )
    anonymous.Unregister(
        mm.UnregisterRequest(
            tournament_id=tid, player_id=ann.player.player_id, player_secret=ann.player_secret
        )
    )
    finished = stack.wait_finished(tid)
    assert finished.status == mm.TOURNAMENT_STATUS_FINISHED

    secrets = _stack_secrets(stack, tid)
    for who in (ann, bob, cy):
        secrets[f"secret of {who.player.name}"] = who.player_secret
    assert any(k.startswith("new seat token") for k in secrets), secrets.keys()  # Bob's seat
    assert sum(k.startswith("seat token") for k in secrets) == 16  # 2 rounds of 2 tables

    responses: list = [
        anonymous.GetTournament(mm.GetTournamentRequest(tournament_id=tid)),
        anonymous.GetStandings(mm.GetStandingsRequest(tournament_id=tid)),
        anonymous.GetSeating(mm.GetSeatingRequest(tournament_id=tid)),
        anonymous.GetRatings(mm.GetRatingsRequest(page_size=500)),
        anonymous.GetRatings(
            mm.GetRatingsRequest(rating_ids=[p.rating_id for p in finished.players])
        ),
    ]
    feed = list(
        anonymous.WatchTournament(
            mm.WatchTournamentRequest(tournament_id=tid, from_seq=1), timeout=60
        )
    )
    assert feed[-1].type == mm.TOURNAMENT_EVENT_TYPE_FINISHED
    kinds = {e.type for e in feed}
    assert mm.TOURNAMENT_EVENT_TYPE_TABLE_OPENED in kinds
    assert mm.TOURNAMENT_EVENT_TYPE_OPERATOR_ACTION in kinds
    snapshot = list(
        anonymous.WatchTournament(mm.WatchTournamentRequest(tournament_id=tid), timeout=60)
    )
    responses += feed + snapshot
    assert _leaks(responses, secrets) == []
    assert _leaks(responses[:1], {"the id": tid}) == ["the id in a GetTournamentResponse"]

    # the walk saw the event: the removal, the withdrawal, the tables of both rounds
    tournament = responses[0].tournament
    statuses = {p.name: p.status for p in tournament.players}
    assert statuses["Bob"] == mm.PLAYER_STATUS_REMOVED
    assert statuses["Ann"] == mm.PLAYER_STATUS_WITHDRAWN
    assert tournament.registration_code_required
    assert [r.round_no for r in responses[2].rounds] == [1, 2]
    assert {p.name: p.rating_id for p in tournament.players if p.kind == pb.SEAT_KIND_PERSON}[
        "Ann"
    ].startswith(f"guest:{tid}:")

    with pytest.raises(grpc.RpcError) as refused:
        anonymous.ListOperatorActions(mm.ListOperatorActionsRequest(tournament_id=tid))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED

    # a player's own watch: its own seat only, nobody else's secret
    own = list(
        anonymous.WatchTournament(
            mm.WatchTournamentRequest(
                tournament_id=tid,
                player_id=cy.player.player_id,
                player_secret=cy.player_secret,
                from_seq=1,
            ),
            timeout=60,
        )
    )
    others = {
        k: v for k, v in secrets.items() if not k.startswith("seat token") and k != "secret of Cy"
    }
    assert _leaks(own, others) == []
