"""How a bot in a player's seat is shown (PublicSeat.played_by) from the match row and what
the engine last said of the seat: a removed or withdrawn player's replacement always; an
absent person's filler until the engine shows a bot there and then a client that is not one
(the person took the seat back)."""

from __future__ import annotations

from hebei.matchmaking.director import seats_seen
from hebei.matchmaking.store import MatchRow, PlayerRow
from hebei.matchmaking.views import shown_played_by
from hebei.v1 import table_pb2

NAMES = {"p-1": PlayerRow("t-1", "p-1", 1, "Lin", "person", "person:Lin")}


def _match(cause: str | None) -> MatchRow:
    request = table_pb2.OpenMatchRequest(
        seats=[table_pb2.SeatAssignment(seat=s, player_id=f"p-{s}") for s in range(4)]
    )
    match = MatchRow("m-1", "t-1", 1, 1, "t-1-t1", request, status="opened")
    if cause:
        match.replaced["1"] = {"player_id": "p-1", "cause": cause, "by": "bot:expert:3"}
    return match


def _seen(match: MatchRow, *, connected: bool, played_by: str, joined: bool = False) -> None:
    info = table_pb2.MatchInfo(
        seats=[
            table_pb2.SeatInfo(seat=s, connected=connected, played_by=played_by if s == 1 else "",
                               person_joined=joined and s == 1)
            for s in range(4)
        ]
    )  # fmt: skip
    match.seats_seen = seats_seen(match, info)


def test_a_player_who_plays_the_seat_is_shown_as_themselves() -> None:
    match = _match(None)
    _seen(match, connected=True, played_by="", joined=True)
    assert shown_played_by(match, 1, NAMES) == ""
    assert match.seats_seen["1"]["joined"]


def test_a_replacement_is_shown_whatever_the_engine_says() -> None:
    for cause in ("removed", "withdrawn"):
        match = _match(cause)
        _seen(match, connected=True, played_by="")
        assert shown_played_by(match, 1, NAMES) == "replacement for Lin"


def test_an_absent_person_s_filler_is_shown_until_the_person_is_back() -> None:
    match = _match("absent")
    assert shown_played_by(match, 1, NAMES) == "filler for Lin"  # queued, not yet seen
    _seen(match, connected=False, played_by="")
    assert shown_played_by(match, 1, NAMES) == "filler for Lin"  # nobody there yet
    _seen(match, connected=True, played_by="filler for Lin")
    assert shown_played_by(match, 1, NAMES) == "filler for Lin"
    _seen(match, connected=True, played_by="", joined=True)  # she joined, not as a bot
    assert shown_played_by(match, 1, NAMES) == ""
    _seen(match, connected=False, played_by="")  # she left again: nobody plays for her
    assert shown_played_by(match, 1, NAMES) == ""
    assert match.seats_seen["1"]["joined"]  # person_joined, once seen, stays
    _seen(match, connected=True, played_by="filler for Lin")  # a filler took it again
    assert shown_played_by(match, 1, NAMES) == "filler for Lin"


def test_a_long_name_still_fits_the_engine_s_bound() -> None:
    long = {"p-1": PlayerRow("t-1", "p-1", 1, "L" * 64, "person", "person:L")}
    match = _match("removed")
    shown = shown_played_by(match, 1, long)
    assert len(shown) == 64 and shown.startswith("replacement for LLL")
