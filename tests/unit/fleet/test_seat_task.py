"""The seat task's argument is a SeatTask protobuf message (bytes), read back exactly."""

from __future__ import annotations

import pytest

from hebei.fleet.seat_task import decode_seat_task, encode_seat_task
from hebei.fleet.ticket import SeatTicket
from hebei.v1 import bot_pb2


def _ticket(**kw) -> SeatTicket:
    base = dict(target="table:50051", match_id="m-1", seat=2, seat_token="tok")
    return SeatTicket(**{**base, **kw})


def test_a_ticket_round_trips_through_its_message() -> None:
    ticket = _ticket(policy="efficiency", level=1, seed=2**40 + 3, pace=0.5, tls=True)
    payload = encode_seat_task(ticket, 1_700_000_000.25)
    assert isinstance(payload, bytes)
    assert decode_seat_task(payload) == (ticket, 1_700_000_000.25)
    message = bot_pb2.SeatTask.FromString(payload)  # what a worker in another language reads
    assert (message.match_id, message.seat, message.policy, message.level) == (
        "m-1",
        2,
        "efficiency",
        1,
    )


def test_defaults_mean_the_default_level_and_no_send_time() -> None:
    ticket, sent_at = decode_seat_task(encode_seat_task(_ticket()))
    assert ticket.level is None and ticket.policy == "expert" and sent_at is None


def test_a_legacy_json_ticket_is_still_read() -> None:
    ticket = _ticket()
    assert decode_seat_task(ticket.to_json(), 5.0) == (ticket, 5.0)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"\xff\xff\xff", "not a SeatTask"),
        ("a string", "SeatTask bytes"),
        (
            bot_pb2.SeatTask(
                target="t:1", match_id="m", seat=7, seat_token="x"
            ).SerializeToString(),
            "seat must be 0-3",
        ),
        (bot_pb2.SeatTask(target="t:1", seat=1, seat_token="x").SerializeToString(), "match_id"),
    ],
)
def test_a_malformed_task_is_refused_clearly(payload: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_seat_task(payload)


def test_a_target_names_one_replica_or_a_comma_list_of_them() -> None:
    assert _ticket().entries == ("table:50051",)
    ticket = _ticket(target="table-0:50051, table-1:50051")
    assert ticket.entries == ("table-0:50051", "table-1:50051")
    assert decode_seat_task(encode_seat_task(ticket)) == (ticket, None)  # travels as it is


@pytest.mark.parametrize("target", ["", "nohost", "a:1,,b:2", "a:1,a:1", "a:99999"])
def test_a_bad_target_is_refused_in_one_line(target: str) -> None:
    with pytest.raises(ValueError, match=r"^target must be host:port\[,host:port\.\.\.\]"):
        _ticket(target=target)
