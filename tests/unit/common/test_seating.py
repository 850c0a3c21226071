"""every_round: a tournament's whole seating over as many GetSeating replies as it takes, and
never a loop on a reply that does not move on."""

from __future__ import annotations

import pytest

from hebei.common.seating import every_round, next_request
from hebei.v1 import matchmaking_pb2 as mm


def _round(number: int) -> mm.RoundSeating:
    return mm.RoundSeating(round_no=number, tables=[mm.TableAssignment(round_no=number)])


def test_the_replies_are_followed_from_round_to_round() -> None:
    pages = {0: ([1, 2], 3), 3: ([3], 4), 4: ([4, 5], 0)}
    asked: list[int] = []

    def fetch(request: mm.GetSeatingRequest) -> mm.GetSeatingResponse:
        assert request.tournament_id == "t-1" and request.round_no == 0
        asked.append(request.from_round)
        numbers, next_round = pages[request.from_round]
        return mm.GetSeatingResponse(rounds=[_round(n) for n in numbers], next_round=next_round)

    assert [r.round_no for r in every_round(fetch, "t-1")] == [1, 2, 3, 4, 5]
    assert asked == [0, 3, 4]


@pytest.mark.parametrize(
    ("numbers", "next_round"),
    [([], 0), ([2], 0), ([2], 2), ([2, 3], 1), ([], -5)],
    ids=["empty", "last", "the-same-round", "backwards", "negative"],
)
def test_a_reply_that_does_not_move_on_ends_the_reading(
    numbers: list[int], next_round: int
) -> None:
    reply = mm.GetSeatingResponse(rounds=[_round(n) for n in numbers], next_round=next_round)
    assert next_request("t-1", reply) is None


def test_a_reply_moving_on_asks_from_its_next_round() -> None:
    reply = mm.GetSeatingResponse(rounds=[_round(1)], next_round=2)
    assert next_request("t-1", reply) == mm.GetSeatingRequest(tournament_id="t-1", from_round=2)
    assert next_request("t-1", None) == mm.GetSeatingRequest(tournament_id="t-1")
