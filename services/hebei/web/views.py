"""Protobuf messages of the contracts as the JSON the pages read: the pieces every view is made
of (enum names, tiles, times, melds, wins, settlements, public events) and a match as the
lobby lists it.

Tiles are the rules' names (``"5m"``, ``"7z"``); a hidden tile is ``null``. The table views are
built from these: the person's seat (:mod:`hebei.web.seat_view`), the spectators' table
(:mod:`hebei.web.public_table`); and the tournaments' (:mod:`hebei.web.tournament_views`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf.message import Message

from hebei.common import convert
from hebei.rules.errors import NotationError
from hebei.rules.tiles import TILE_NAMES
from hebei.seatclient.observations import MELD_NAMES
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb

WIN_KINDS = {
    pb.WIN_KIND_SELF_DRAW: "self_draw",
    pb.WIN_KIND_DISCARD: "discard",
    pb.WIN_KIND_ROB_KONG: "rob_kong",
}
SEAT_KINDS = {pb.SEAT_KIND_PERSON: "person", pb.SEAT_KIND_BOT: "bot"}


def enum_name(enum: Any, value: int, prefix: str) -> str:
    """``MATCH_STATUS_PLAYING`` as ``"playing"``; an unknown value as its number."""
    try:
        return enum.Name(value).removeprefix(prefix).lower()
    except ValueError:
        return str(value)


def tile(value: int) -> str | None:
    """A ``Tile`` enum value as its name (``"5m"``); hidden or unknown as None."""
    try:
        kind = convert.tile_from_proto(value)
    except NotationError:
        return None
    return None if kind is None else TILE_NAMES[kind]


def tiles(values: Iterable[int]) -> list[str | None]:
    return [tile(v) for v in values]


def millis(stamp: Any) -> int | None:
    """A Timestamp as milliseconds since the epoch, None when unset."""
    if stamp is None or (stamp.seconds == 0 and stamp.nanos == 0):
        return None
    return stamp.seconds * 1000 + stamp.nanos // 1_000_000


def meld_json(meld: pb.Meld) -> dict[str, Any]:
    """A meld: kind (pong, kong, added_kong, concealed_kong, chow), tile, from seat."""
    data: dict[str, Any] = {
        "kind": enum_name(pb.MeldKind, meld.kind, "MELD_KIND_"),
        "name": MELD_NAMES.get(meld.kind, "meld"),
        "tile": tile(meld.tile),
    }
    if meld.HasField("from_seat"):
        data["from"] = meld.from_seat
    if meld.tiles:
        data["tiles"] = tiles(meld.tiles)
    return data


def win_json(win: pb.Win) -> dict[str, Any]:
    """One win as settled: who, how, from whom, the tile, the fans and the revealed hand."""
    return {
        "winner": win.winner,
        "discarder": win.discarder if win.HasField("discarder") else None,
        "kind": WIN_KINDS.get(win.kind, "win"),
        "tile": tile(win.win_tile),
        "fans": [
            {"id": f.id, "name": f.name_zh, "fan": f.fan, "doubling": f.doubling} for f in win.fans
        ],
        "bonus": win.bonus,
        "base": win.base,
        "points": win.points,  # classic (§9): the pattern's points, doubled
        "deltas": list(win.deltas),
        "concealed": tiles(win.concealed),
        "melds": [meld_json(m) for m in win.melds],
    }


def settlement_json(settlement: pb.Settlement) -> dict[str, Any]:
    """A hand's settlement: the outcome, each win with its fans, and each seat's points."""
    return {
        "hand_no": settlement.hand_no,
        "dealer": settlement.dealer,
        "outcome": enum_name(pb.HandOutcome, settlement.outcome, "HAND_OUTCOME_"),
        "wins": [win_json(w) for w in settlement.wins],
        "false_wins": list(settlement.false_wins),  # classic (§9) 诈胡
        "results": [
            {
                "seat": r.seat,
                "hand": r.hand_delta,
                "kong": r.kong_delta,
                "total": r.total_delta,
            }
            for r in settlement.results
        ],
    }


def event_json(event: pb.Event) -> dict[str, Any]:
    """A public event, with the fields its type uses."""
    data: dict[str, Any] = {
        "seq": event.seq,
        "type": enum_name(pb.EventType, event.type, "EVENT_TYPE_"),
        "hand_no": event.hand_no,
        "time_ms": millis(event.time),
    }
    if event.HasField("seat"):
        data["seat"] = event.seat
    if event.tile:
        data["tile"] = tile(event.tile)
    if event.HasField("meld"):
        data["meld"] = meld_json(event.meld)
    if event.auto_played:
        data["auto"] = True
    if event.replacement:
        data["replacement"] = True
    if event.type == pb.EVENT_TYPE_HAND_START:
        data["dealer"] = event.dealer
    if event.HasField("win"):
        data["win"] = win_json(event.win)
    if event.HasField("settlement"):
        data["settlement"] = settlement_json(event.settlement)
    if event.type == pb.EVENT_TYPE_MATCH_END:
        data["scores"] = list(event.scores)
        data["seed"] = str(event.seed)  # a JSON number would lose digits of a 64-bit seed
    if event.reason:
        data["reason"] = event.reason
    return data


def length_hands(length: pb.MatchLength) -> int | None:
    which = length.WhichOneof("length")
    if which == "hands":
        return length.hands
    if which == "wind_rounds":
        return length.wind_rounds.max_hands or None
    return None


def seat_public(info: table_pb2.SeatInfo) -> dict[str, Any]:
    return {
        "seat": info.seat,
        "name": info.player_name or info.player_id,
        "kind": SEAT_KINDS.get(info.kind, "unknown"),
        "played_by": info.played_by,  # a bot in a person's seat: "filler for Lin"
        "connected": info.connected,
        "auto": info.auto_played,
        "score": info.score,
    }


def match_json(info: table_pb2.MatchInfo) -> dict[str, Any]:
    """A match as the lobby and the operators' view list it (its seed only once it ended)."""
    return {
        "match_id": info.match_id,
        "table_id": info.table_id,
        "tournament_id": info.tournament_id,
        "round_no": info.round_no,
        "status": enum_name(pb.MatchStatus, info.status, "MATCH_STATUS_"),
        "hand_no": info.hand_no,
        "hands_played": info.hands_played,
        "hands": length_hands(info.length),
        "seats": [seat_public(s) for s in info.seats],
        "opened_ms": millis(info.opened_at),
        "ended_ms": millis(info.ended_at),
        "events": info.event_count,
        "paused": bool(getattr(info, "paused", False)),
        "seed": str(info.seed) if info.seed else None,
    }


# The claims of a discard, by their priority when several seats answer (a win beats them all).


def message_json(message: Message) -> dict[str, Any]:
    """Any message as JSON with the proto field names (for fields no page formats)."""
    from google.protobuf import json_format

    return json_format.MessageToDict(message, preserving_proto_field_name=True)
