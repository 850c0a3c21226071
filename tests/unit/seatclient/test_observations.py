"""An observation read for a person: seat names, and what changed between two observations
as plain words, the kind of each change and the tiles it concerns."""

from __future__ import annotations

from hebei.rules.tiles import parse_tile
from hebei.seatclient.observations import AUTO, DISCARD, HAND, MELD, seat_name, what_changed
from hebei.v1 import types_pb2 as pb


def tile(name: str) -> int:
    return parse_tile(name) + 1


def table(hand_no: int = 2) -> pb.Observation:
    """Seat 0's view on its turn: seat 1 ponged 9p; seat 2 has no name."""
    return pb.Observation(
        hand_no=hand_no,
        seat=0,
        dealer=1,
        phase=pb.PHASE_TURN,
        seats=[
            pb.SeatView(seat=0, player_name="Ann"),
            pb.SeatView(
                seat=1,
                player_name="Bot 1",
                melds=[pb.Meld(kind=pb.MELD_KIND_PONG, tile=tile("9p"), from_seat=3)],
            ),
            pb.SeatView(seat=2),
            pb.SeatView(seat=3, player_name="Bot 3"),
        ],
    )


def test_seats_are_named_from_the_observing_seat() -> None:
    obs = table()
    assert [seat_name(obs, s) for s in range(4)] == [
        "You",
        "Seat 1 (Bot 1)",
        "Seat 2",
        "Seat 3 (Bot 3)",
    ]


def test_each_change_has_its_kind_words_and_tiles() -> None:
    before, after = table(), table()
    after.seats[1].melds[0].kind = pb.MELD_KIND_ADDED_KONG
    after.seats[2].melds.append(pb.Meld(kind=pb.MELD_KIND_CONCEALED_KONG))
    after.seats[3].melds.append(
        pb.Meld(kind=pb.MELD_KIND_CHOW, tile=tile("3m"), tiles=[tile("3m"), tile("4m"), tile("5m")])
    )
    after.seats[3].discards.append(tile("7z"))
    after.seats[0].auto_played = True
    changes = what_changed(before, after)
    assert [(c.kind, c.plain) for c in changes] == [
        (AUTO, "Your seat is now auto-played (托管): press t to take over"),
        (MELD, "Seat 1 (Bot 1) declares kong+ 9p"),
        (MELD, "Seat 2 declares 暗杠 ??"),
        (MELD, "Seat 3 (Bot 3) chows 3m 4m 5m"),
        (DISCARD, "Seat 3 (Bot 3) discarded 中"),
    ]
    kong = changes[1]
    assert (kong.words, kong.meld_name, kong.tiles) == (
        "Seat 1 (Bot 1) declares ",
        "kong+",
        (tile("9p"),),
    )


def test_a_new_hand_is_one_line_and_nothing_before_the_deal() -> None:
    assert [(c.kind, c.plain) for c in what_changed(table(), table(3))] == [
        (HAND, "Hand 3 begins; dealer: Seat 1 (Bot 1)")
    ]
    assert [c.plain for c in what_changed(None, table())] == [
        "Hand 2 begins; dealer: Seat 1 (Bot 1)"
    ]
    assert what_changed(table(), table()) == []
    assert what_changed(None, pb.Observation(phase=pb.PHASE_WAITING)) == []
