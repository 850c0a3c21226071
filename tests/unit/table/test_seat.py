"""A seat's live state (hebei.table.seat): its decision ids."""

from __future__ import annotations

from hebei.table import seat as seat_module
from hebei.table.spec import SeatSpec, hash_token
from hebei.table.timecontrol import TimeControl
from hebei.v1 import types_pb2 as pb

# Seat 0 of tests/unit/table/test_hidden_information.py's spec().
SEAT_SPEC = SeatSpec(0, "p0", "P0", pb.SEAT_KIND_BOT, hash_token("token-0-0123456789"))


def test_decision_ids_random_bits_come_from_a_buffer_refilled_when_used_up() -> None:
    bits = seat_module._RandomBits()
    values = [bits.take() for _ in range(3 * seat_module._RandomBits.SIZE // 4 + 5)]
    assert all(0 <= v < 1 << seat_module.DECISION_RANDOM_BITS for v in values)
    assert len(set(values)) > len(values) - 5  # 31 random bits: hardly ever the same twice
    seat = seat_module.Seat(SEAT_SPEC, TimeControl(30.0, 0.0))
    ids = [seat.new_decision_id() for _ in range(5)]
    assert [i >> seat_module.DECISION_RANDOM_BITS for i in ids] == [1, 2, 3, 4, 5]
