"""Every size and duration of the table contract is bounded, every string clean: what is out of
bounds is INVALID_ARGUMENT with a short message, before any work, and the engine carries on."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest
from google.protobuf import duration_pb2

from hebei.common.errors import MAX_DETAILS
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import OPERATOR, new_match_request, play_clients, token_of
from tests.integration.table.helpers import stored_events, wait_for

HUGE = "x" * 1_000_000
MAX_DURATION_SECONDS = 315_576_000_000  # the largest google.protobuf.Duration

Change = Callable[[table_pb2.OpenMatchRequest], None]


def pb_duration(seconds: int, nanos: int) -> duration_pb2.Duration:
    return duration_pb2.Duration(seconds=seconds, nanos=nanos)


def _set(path: str, value) -> Change:
    def change(request: table_pb2.OpenMatchRequest) -> None:
        *parents, name = path.split(".")
        target = request
        for part in parents:
            target = (
                target.seats[int(part[6:-1])]
                if part.startswith("seats[")
                else getattr(target, part)
            )
        setattr(target, name, value)

    return change


STRING_FIELDS = [
    "table_id",
    "match_id",
    "tournament_id",
    "rule_profile.name",
    "seats[0].player_id",
    "seats[1].player_name",
    "seats[2].seat_token",
    "seats[3].bot_policy",
]

BAD_OPEN_MATCH: list[tuple[str, Change, str]] = [
    ("2^31-1 hands", _set("length.hands", 2**31 - 1), "1-64 hands"),
    ("65 hands", _set("length.hands", 65), "1-64 hands"),
    (
        "a wind round capped at 65 hands",
        lambda r: r.length.wind_rounds.MergeFrom(pb.WindRounds(rounds=1, max_hands=65)),
        "1-64 hands",
    ),
    ("a 1 MB player name", _set("seats[0].player_name", HUGE), "player_name"),
    ("a 65-character name", _set("seats[0].player_name", "n" * 65), "at most 64"),
    ("a 1 MB rule profile name", _set("rule_profile.name", HUGE), "rule_profile.name"),
    ("a 129-character id", _set("match_id", "m" * 129), "at most 128"),
    (
        "the same player on two seats",
        lambda r: setattr(r.seats[2], "player_id", r.seats[0].player_id),
        "four different player_ids",
    ),
    (
        "the largest Duration per decision",
        _set("time_control.per_decision.seconds", MAX_DURATION_SECONDS),
        "per_decision",
    ),
    ("nanos of 2e9", _set("time_control.per_decision.nanos", 2_000_000_000), "valid duration"),
    (
        "nanos against the sign of seconds",
        lambda r: r.time_control.time_bank.CopyFrom(pb_duration(1, -5)),
        "valid duration",
    ),
    (
        "0.05 s per decision",
        lambda r: r.time_control.per_decision.CopyFrom(pb_duration(0, 50_000_000)),
        "0.1-300",
    ),
    ("a 3601 s bank", _set("time_control.time_bank.seconds", 3601), "0-3600"),
    (
        "a 6 s claim window",
        _set("time_control.claim_window.seconds", 6),
        "claim_window must be 0-5",
    ),
    (
        "a negative claim window",
        lambda r: r.time_control.claim_window.CopyFrom(pb_duration(0, -1)),
        "claim_window must be 0-5",
    ),
    ("a 15-character token", _set("seats[1].seat_token", "t" * 15), "16-256"),
    ("a 257-character token", _set("seats[1].seat_token", "t" * 257), "16-256"),
    ("a token with a space", _set("seats[1].seat_token", "token with spaces"), "seat_token"),
    ("round -1", _set("round_no", -1), "round_no"),
    ("bot level 10", _set("seats[0].bot_level", 10), "bot_level"),
    (
        "a chosen seed without evaluation",
        lambda r: (setattr(r, "seed", 12345), setattr(r, "evaluation", False)),
        "evaluation",
    ),
    *[(f"a NUL in {field}", _set(field, "ab\x00cd" * 4), "") for field in STRING_FIELDS],
    *[(f"a newline in {field}", _set(field, "ab\ncdefghijklmnop"), "") for field in STRING_FIELDS],
]


def refused(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error = caught.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (error.code(), error.details())
    details = error.details() or ""
    assert "Traceback" not in details and len(details) <= MAX_DETAILS
    return error


@pytest.mark.parametrize(
    ("name", "change", "words"), BAD_OPEN_MATCH, ids=[c[0] for c in BAD_OPEN_MATCH]
)
def test_open_match_out_of_bounds_is_invalid_argument(engine, name, change, words) -> None:
    request = new_match_request()
    change(request)
    error = refused(lambda: engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10))
    assert words in error.details(), error.details()
    assert engine.engine.host.active == 0  # refused before any work


def test_limits_themselves_are_accepted(engine) -> None:
    request = new_match_request(hands=64, per_decision=300.0, bank=3600.0)
    request.seats[0].player_name = "名" * 64
    request.seats[1].seat_token = "t" * 16
    request.seats[2].seat_token = "t" * 256
    request.match_id = "m" * 128
    info = engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10).match
    assert info.evaluation and info.seats[0].player_name == "名" * 64
    tiny = new_match_request(per_decision=0.1)
    assert engine.stub.OpenMatch(tiny, metadata=OPERATOR, timeout=10).match.match_id


def test_an_engine_drawn_seed_is_fresh_and_not_an_evaluation(engine) -> None:
    request = new_match_request(seed=0)
    info = engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10).match
    assert not info.evaluation and info.seed == 0
    table = engine.engine.host.get(request.match_id)
    assert table.spec.seed and not engine.engine.store.seed_used(table.spec.seed + 1)
    assert engine.engine.store.seed_used(table.spec.seed)
    # An evaluation match may replay a seed already used (duplicate play).
    again = new_match_request(seed=table.spec.seed)
    assert engine.stub.OpenMatch(again, metadata=OPERATOR, timeout=10).match.evaluation


def join(match_id: str, seat: int = 0, token: str = "", client: str = "") -> table_pb2.PlayRequest:
    return table_pb2.PlayRequest(
        join=table_pb2.Join(match_id=match_id, seat=seat, seat_token=token, client_name=client)
    )


def test_reads_and_joins_with_bad_strings_are_invalid_argument(engine) -> None:
    request = new_match_request()
    engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    good = request.match_id
    stub = engine.stub
    calls = [
        lambda: stub.GetMatch(table_pb2.GetMatchRequest(match_id="m\x00"), timeout=10),
        lambda: stub.GetMatch(table_pb2.GetMatchRequest(match_id=HUGE), timeout=10),
        lambda: stub.ListTables(table_pb2.ListTablesRequest(tournament_id="t\x00"), timeout=10),
        lambda: stub.ListTables(table_pb2.ListTablesRequest(page_token="p\x00"), timeout=10),
        lambda: stub.ListTables(table_pb2.ListTablesRequest(page_size=501), timeout=10),
        lambda: stub.ListTables(table_pb2.ListTablesRequest(page_size=-1), timeout=10),
        lambda: list(stub.Spectate(table_pb2.SpectateRequest(match_id="\x00"), timeout=10)),
        lambda: stub.Dissolve(
            table_pb2.DissolveRequest(match_id=good, reason="bad\x00reason"),
            metadata=OPERATOR,
            timeout=10,
        ),
        lambda: stub.Dissolve(
            table_pb2.DissolveRequest(match_id=good, reason=HUGE), metadata=OPERATOR, timeout=10
        ),
    ]
    for bad_join in (
        join("m\x00"),
        join(good, 0, token_of(good, 0) + "\x00"),
        join(good, 0, "t" * 257),
        join(good, 0, token_of(good, 0), client="c\x00"),
        join(good, 0, token_of(good, 0), client=HUGE),
        join(good, -1, token_of(good, 0)),
    ):
        calls.append(lambda m=bad_join: list(stub.Play(iter([m]), timeout=10)))
    for call in calls:
        refused(call)
    assert stub.GetMatch(table_pb2.GetMatchRequest(match_id=good), timeout=10).match.status == (
        pb.MATCH_STATUS_WAITING
    )


def test_a_refused_dissolve_reason_leaves_the_event_log_writing(engine) -> None:
    """A NUL in a Dissolve reason used to be accepted and then block the event log writer
    for every table; it is refused, and every match's events are still saved."""
    first, second = new_match_request(hands=1, seed=3), new_match_request(hands=1, seed=4)
    for request in (first, second):
        engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    refused(
        lambda: engine.stub.Dissolve(
            table_pb2.DissolveRequest(match_id=first.match_id, reason="\x00"),
            metadata=OPERATOR,
            timeout=10,
        )
    )
    clients = play_clients(engine.channel, first.match_id) + play_clients(
        engine.channel, second.match_id
    )
    for client in clients:
        client.join(60)
        assert client.error is None and client.observations[-1].match_finished
    for request in (first, second):
        events = stored_events(engine.engine.store, request.match_id)
        assert wait_for(lambda r=request: stored_events(engine.engine.store, r.match_id))
        assert events[-1]["type"] == "match_end"
