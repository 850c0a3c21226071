"""A seat's ``Observation`` messages read for a person: the names of the seats and the melds,
and what happened between two observations, in the words ``hebei play`` prints and the web
page's table log shows.

Everything read comes from the observation the engine sent this seat, so another seat's
concealed tiles can only appear once the engine reveals them (a winner's hand at hand end).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hebei.common.convert import tile_from_proto
from hebei.seatclient.tiles import tile_label
from hebei.v1 import types_pb2 as pb

MELD_NAMES = {
    pb.MELD_KIND_PONG: "pong",
    pb.MELD_KIND_EXPOSED_KONG: "kong",
    pb.MELD_KIND_ADDED_KONG: "kong+",
    pb.MELD_KIND_CONCEALED_KONG: "暗杠",
    pb.MELD_KIND_CHOW: "chow",
}

# What a change line tells (a front-end styles each its own way).
HAND = "hand"  # a new hand begins
MELD = "meld"  # a seat declared a meld
DISCARD = "discard"
AUTO = "auto"  # a seat handed over to auto-play or took it back


@dataclass(frozen=True, slots=True)
class Change:
    """One thing that happened: its ``words`` (``"Seat 2 (Bot 2) pongs "``), then a meld's
    name when a kong is declared (``"kong+"``), then the tiles it concerns (``Tile`` enum
    values, shown by their labels with a space between)."""

    kind: str  # HAND, MELD, DISCARD or AUTO
    words: str
    meld_name: str = ""
    tiles: tuple[int, ...] = ()

    @property
    def plain(self) -> str:
        """The line as plain text, e.g. ``Seat 1 (Bot 1) declares kong+ 9p``."""
        name = f"{self.meld_name} " if self.meld_name else ""
        return self.words + name + " ".join(tile_label(tile_from_proto(t)) for t in self.tiles)


def seat_name(obs: pb.Observation, seat: int) -> str:
    """``"Seat 2 (Bot 2)"``, or ``"You"`` for the observing seat."""
    if seat == obs.seat:
        return "You"
    name = obs.seats[seat].player_name if seat < len(obs.seats) else ""
    return f"Seat {seat} ({name})" if name else f"Seat {seat}"


def _meld_key(meld: pb.Meld) -> tuple[int, int]:
    return meld.kind, meld.tile


def _meld_change(who: str, you: bool, meld: pb.Meld) -> Change:
    if meld.kind == pb.MELD_KIND_PONG:
        return Change(MELD, f"{who} {'pong' if you else 'pongs'} ", tiles=(meld.tile,))
    if meld.kind == pb.MELD_KIND_CHOW:
        return Change(MELD, f"{who} {'chow' if you else 'chows'} ", tiles=_meld_tiles(meld))
    return Change(
        MELD,
        f"{who} {'declare' if you else 'declares'} ",
        meld_name=MELD_NAMES.get(meld.kind, "meld"),
        tiles=(meld.tile,),
    )


def _meld_tiles(meld: pb.Meld) -> tuple[int, ...]:
    return tuple(meld.tiles or [meld.tile])


def _auto_change(who: str, you: bool, auto_played: bool) -> Change:
    if you:
        words = (
            "Your seat is now auto-played (托管): press t to take over"
            if auto_played
            else "You play again"
        )
    else:
        words = f"{who} is now auto-played (托管)" if auto_played else f"{who} plays again"
    return Change(AUTO, words)


def what_changed(prev: pb.Observation | None, cur: pb.Observation) -> list[Change]:
    """One change per thing that happened between two observations of the same seat: a new
    hand, discards, melds declared, seats handed over to or taken back from auto-play."""
    if cur.phase == pb.PHASE_WAITING or not cur.seats or cur.hand_no == 0:
        return []
    if prev is None or prev.hand_no != cur.hand_no or len(prev.seats) != len(cur.seats):
        return [Change(HAND, f"Hand {cur.hand_no} begins; dealer: {seat_name(cur, cur.dealer)}")]
    changes: list[Change] = []
    for before, after in zip(prev.seats, cur.seats, strict=True):
        you = after.seat == cur.seat
        who = seat_name(cur, after.seat)
        for i, meld in enumerate(after.melds):
            if i < len(before.melds) and _meld_key(before.melds[i]) == _meld_key(meld):
                continue
            changes.append(_meld_change(who, you, meld))
        discards: Sequence[int] = after.discards[len(before.discards) :]
        changes.extend(Change(DISCARD, f"{who} discarded ", tiles=(t,)) for t in discards)
        if after.auto_played != before.auto_played:
            changes.append(_auto_change(who, you, after.auto_played))
    return changes
