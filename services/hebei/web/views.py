"""Protobuf messages of the contracts as the JSON the pages read.

One shape for a table, whoever looks at it (``table_view``): the person at a seat gets it from
each ``Observation`` of the Play stream (:func:`observation_view`), a spectator from the public
events of the Spectate stream folded by :class:`PublicTable`. Tiles are the rules' names
(``"5m"``, ``"7z"``); a hidden tile is ``null``. The hand, the keys and the prompt come from
:mod:`hebei.seatclient` (the reading of an observation the terminal client shares), so the
page and ``hebei play`` agree on what a key does.

Nothing here reads a concealed tile that the message does not already show its reader: a
spectator's view is built from spectator events only, which never carry one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from hebei.common import convert
from hebei.rules.actions import ActionKind
from hebei.rules.errors import NotationError
from hebei.rules.profile import MAIN, get_profile
from hebei.rules.tiles import N_TILES, TILE_NAMES
from hebei.seatclient.commands import (
    KONG_NAMES,
    chow_label,
    chow_options,
    discard_keys,
    kong_options,
    prompt_text,
)
from hebei.seatclient.observations import MELD_NAMES, seat_name, what_changed
from hebei.seatclient.tiles import POSITION_KEYS, hand_order
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb

__all__ = [
    "PublicTable",
    "enum_name",
    "event_json",
    "match_json",
    "observation_view",
    "settlement_json",
    "tile",
]

DEALT = 13 * 4 + 1  # tiles dealt from the wall: 13 each and the dealer's 14th

PHASES = {
    pb.PHASE_WAITING: "waiting",
    pb.PHASE_TURN: "turn",
    pb.PHASE_CLAIM: "claim",
    pb.PHASE_ROB_KONG: "rob_kong",
    pb.PHASE_HAND_END: "hand_end",
    pb.PHASE_MATCH_END: "match_end",
}
WIN_KINDS = {
    pb.WIN_KIND_SELF_DRAW: "self_draw",
    pb.WIN_KIND_DISCARD: "discard",
    pb.WIN_KIND_ROB_KONG: "rob_kong",
}
SEAT_KINDS = {pb.SEAT_KIND_PERSON: "person", pb.SEAT_KIND_BOT: "bot"}
OPTION_LABELS = {
    ActionKind.WIN: ("h", "胡 Win"),
    ActionKind.PONG: ("p", "碰 Pong"),
    ActionKind.PASS: ("x", "过 Pass"),
}


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


def _length_hands(length: pb.MatchLength) -> int | None:
    which = length.WhichOneof("length")
    if which == "hands":
        return length.hands
    if which == "wind_rounds":
        return length.wind_rounds.max_hands or None
    return None


def _seat_json(view: pb.SeatView) -> dict[str, Any]:
    return {
        "seat": view.seat,
        "name": view.player_name or f"Seat {view.seat}",
        "kind": SEAT_KINDS.get(view.kind, "unknown"),
        "melds": [meld_json(m) for m in view.melds],
        "discards": tiles(view.discards),
        "concealed": view.concealed_count,
        "score": view.score,
        "connected": view.connected,
        "auto": view.auto_played,
        "wind": tile(view.seat_wind),
    }


def _options(obs: pb.Observation) -> tuple[list[dict[str, Any]], str]:
    """The buttons of an open decision (key, label, the command the key types) and the
    terminal client's prompt for it."""
    if not (obs.decision_id and obs.legal_actions):
        return [], ""
    try:
        view = convert.observation_from_proto(obs)
    except NotationError:
        return [], ""
    legal = view.legal_actions
    options = []
    for kind in (ActionKind.WIN, ActionKind.PONG):
        if any(a.kind is kind for a in legal):
            key, label = OPTION_LABELS[kind]
            options.append({"key": key, "label": label, "command": key, "kind": kind.value})
    kongs = kong_options(legal)
    for number, kong in enumerate(kongs, 1):
        key = "k" if len(kongs) == 1 else f"k{number}"
        label = f"杠 {KONG_NAMES[kong.kind].capitalize()} {TILE_NAMES[kong.tile]}"
        options.append(
            {
                "key": key,
                "label": label,
                "command": key,
                "kind": kong.kind.value,
                "tile": TILE_NAMES[kong.tile],
            }
        )
    chows = chow_options(legal)  # §9 classic profile
    for number, chow in enumerate(chows, 1):
        key = "ch" if len(chows) == 1 else f"ch{number}"
        label = f"吃 Chow {chow_label(chow)}"
        options.append({"key": key, "label": label, "command": key, "kind": "chow"})
    if any(a.kind is ActionKind.PASS for a in legal):
        key, label = OPTION_LABELS[ActionKind.PASS]
        options.append({"key": key, "label": label, "command": key, "kind": "pass"})
    names = [seat_name(obs, s) for s in range(len(obs.seats))]
    prompt = prompt_text(view, names).removesuffix(" > ").replace("  [q] quit", "")
    return options, prompt


def observation_view(obs: pb.Observation) -> dict[str, Any]:
    """The person's table: an ``Observation`` as the page's table view."""
    discardable = {
        a.tile for a in obs.legal_actions if a.kind == pb.ACTION_KIND_DISCARD and obs.decision_id
    }
    drawn = convert.tile_from_proto(obs.drawn) if obs.drawn else None
    kinds = [k for k in (convert.tile_from_proto(t) for t in obs.concealed) if k is not None]
    ordered = hand_order(kinds, drawn)
    hand = []
    for index, kind in enumerate(ordered):
        hand.append(
            {
                "tile": TILE_NAMES[kind],
                "key": POSITION_KEYS[index] if index < len(POSITION_KEYS) else "",
                "drawn": drawn is not None and index == len(ordered) - 1,
                "discard": (kind + 1) in discardable,
            }
        )
    options, prompt = _options(obs)
    viewer = obs.seat if obs.seat < len(obs.seats) else 0
    return {
        "mode": "seat",
        "match_id": obs.match_id,
        "table_id": obs.table_id,
        "hand_no": obs.hand_no,
        "hands": _length_hands(obs.length),
        "dealer": obs.dealer,
        "prevailing_wind": tile(obs.prevailing_wind),
        "phase": PHASES.get(obs.phase, "unknown"),
        "current_seat": obs.current_seat,
        "wall": obs.wall_count,
        "viewer": obs.seat,
        "seats": [_seat_json(v) for v in obs.seats],
        "offer": (
            {"tile": tile(obs.last_discard), "from": obs.last_discarder}
            if obs.last_discard and obs.HasField("last_discarder")
            else None
        ),
        "hand": hand,
        "keys": discard_keys(len(hand)) if discardable else "",
        "options": options,
        "prompt": prompt,
        "decision_id": str(obs.decision_id) if obs.legal_actions else "",
        "deadline_ms": millis(obs.deadline) if obs.legal_actions else None,
        "time_bank_ms": (
            obs.time_bank.seconds * 1000 + obs.time_bank.nanos // 1_000_000
            if obs.HasField("time_bank")
            else None
        ),
        "settlement": settlement_json(obs.settlement) if obs.HasField("settlement") else None,
        "finished": obs.match_finished,
        "auto": bool(obs.seats) and obs.seats[viewer].auto_played,
        "status": "finished" if obs.match_finished else "playing",
        "paused": False,
        "seed": None,
        "last_event": event_json(obs.last_event) if obs.HasField("last_event") else None,
    }


def change_lines(prev: pb.Observation | None, cur: pb.Observation) -> list[str]:
    """What happened between two observations of a seat, in the terminal client's words."""
    return [change.plain for change in what_changed(prev, cur)]


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
        "hands": _length_hands(info.length),
        "seats": [seat_public(s) for s in info.seats],
        "opened_ms": millis(info.opened_at),
        "ended_ms": millis(info.ended_at),
        "events": info.event_count,
        "paused": bool(getattr(info, "paused", False)),
        "seed": str(info.seed) if info.seed else None,
    }


# The claims of a discard, by their priority when several seats answer (a win beats them all).
_CLAIM_PRIORITY = {pb.MELD_KIND_PONG: 2, pb.MELD_KIND_EXPOSED_KONG: 2, pb.MELD_KIND_CHOW: 1}


@dataclass
class _ClaimWindow:
    """The answers to one discard seen so far (see :meth:`PublicTable._claim`)."""

    claims: list[pb.Event] = field(default_factory=list)
    won: bool = False
    # each seat's melds, concealed count and discards, and the turn, before the first claim
    before: tuple[list[tuple[Any, Any, Any]], dict[str, Any]] | None = None


class PublicTable:
    """A spectator's table view, folded from the public events of one match.

    Starts from the match's public state (``GetMatch``: names, kinds, the length) and applies
    each event in order: the deal (13 tiles each and the dealer's 14th), draws (count only),
    discards, melds, wins, settlements, seat flags. The live tile count follows the wall as
    the rules keep it: the reserve at the tail, one more tile held back after an odd number of
    kong replacement draws.
    """

    def __init__(self, info: table_pb2.MatchInfo) -> None:
        try:
            profile = get_profile(info.rule_profile.name or "main")
        except ValueError:
            profile = MAIN
        self.reserve = profile.reserve_tiles
        self.reserve_odd = profile.reserve_odd_kong_extra
        self.draws = 0
        self.replacements = 0
        self.seq = 0
        self._window: _ClaimWindow | None = None  # the answers to the last discard (_claim)
        seats = sorted(info.seats, key=lambda s: s.seat)
        self.state: dict[str, Any] = {
            "mode": "spectator",
            "match_id": info.match_id,
            "table_id": info.table_id,
            "tournament_id": info.tournament_id,
            "round_no": info.round_no,
            "hand_no": 0,
            "hands": _length_hands(info.length),
            "dealer": 0,
            "prevailing_wind": None,
            "phase": "waiting",
            "current_seat": 0,
            "wall": 0,
            "viewer": None,
            "seats": [
                {
                    "seat": s.seat,
                    "name": s.player_name or s.player_id,
                    "kind": SEAT_KINDS.get(s.kind, "unknown"),
                    "played_by": s.played_by,
                    "melds": [],
                    "discards": [],
                    "concealed": 0,
                    "score": 0,
                    "connected": False,
                    "auto": False,
                    "wind": None,
                }
                for s in seats
            ],
            "offer": None,
            "hand": [],
            "keys": "",
            "options": [],
            "prompt": "",
            "decision_id": "",
            "deadline_ms": None,
            "time_bank_ms": None,
            "settlement": None,
            "wins": [],
            "finished": False,
            "auto": False,
            "status": "waiting",
            "paused": False,
            "seed": None,
            "last_event": None,
            "turn_since_ms": None,
        }

    def _live(self) -> int:
        odd = self.reserve_odd if self.replacements % 2 else 0
        left = N_TILES - DEALT - self.draws - self.replacements - self.reserve - odd
        return max(0, left)

    def set_played_by(self, seats: Iterable[table_pb2.SeatInfo]) -> None:
        """Who plays each seat now (``SeatInfo.played_by``: a bot in a person's seat)."""
        for info in seats:
            seat = self._seat(info.seat)
            if seat is not None:
                seat["played_by"] = info.played_by

    def _seat(self, number: int | None) -> dict[str, Any] | None:
        seats = self.state["seats"]
        if number is None or not 0 <= number < len(seats):
            return None
        return seats[number]

    def apply(self, event: pb.Event) -> dict[str, Any]:
        """Fold one event into the state; returns the event as JSON."""
        state = self.state
        data = event_json(event)
        self.seq = event.seq
        state["last_event"] = data
        kind = event.type
        seat = self._seat(event.seat) if event.HasField("seat") else None
        if data.get("time_ms"):
            state["turn_since_ms"] = data["time_ms"]
        if kind in (pb.EVENT_TYPE_HAND_START, pb.EVENT_TYPE_DRAW, pb.EVENT_TYPE_DISCARD):
            self._window = None  # a new turn: the last discard's answers are settled
        if kind == pb.EVENT_TYPE_HAND_START:
            self._hand_start(event)
        elif kind == pb.EVENT_TYPE_DRAW and seat is not None:
            seat["concealed"] += 1
            if event.replacement:
                self.replacements += 1
            else:
                self.draws += 1
            state.update(phase="turn", current_seat=event.seat, offer=None, wall=self._live())
        elif kind == pb.EVENT_TYPE_DISCARD and seat is not None:
            seat["concealed"] = max(0, seat["concealed"] - 1)
            seat["discards"] = [*seat["discards"], data.get("tile")]
            state.update(
                phase="claim",
                current_seat=event.seat,
                offer={"tile": data.get("tile"), "from": event.seat},
            )
            self._window = _ClaimWindow()
        elif kind in (pb.EVENT_TYPE_PONG, pb.EVENT_TYPE_KONG, pb.EVENT_TYPE_CHOW) and seat:
            if self._window is not None and event.meld.kind in _CLAIM_PRIORITY:
                self._claim(event)
            else:  # a kong of the seat's own turn
                self._window = None
                self._meld(event, seat)
        elif kind == pb.EVENT_TYPE_WIN:
            if "win" in data:
                state["wins"] = [*state["wins"], data["win"]]
            if self._window is not None:  # a win (or false win) ends the hand: no claim is made
                self._window.won = True
                self._settle_window()
        elif kind == pb.EVENT_TYPE_HAND_END and "settlement" in data:
            settlement = data["settlement"]
            for result in settlement["results"]:
                target = self._seat(result["seat"])
                if target is not None:
                    target["score"] += result["total"]
            state.update(settlement=settlement, phase="hand_end", offer=None)
        elif kind == pb.EVENT_TYPE_MATCH_END:
            for number, score in enumerate(event.scores):
                target = self._seat(number)
                if target is not None:
                    target["score"] = score
            state.update(finished=True, phase="match_end", status="finished", seed=data["seed"])
        elif kind == pb.EVENT_TYPE_MATCH_DISSOLVED:
            state.update(finished=True, status="dissolved", phase="match_end")
        elif kind in (pb.EVENT_TYPE_SEAT_AUTO, pb.EVENT_TYPE_SEAT_RESUMED) and seat:
            seat["auto"] = kind == pb.EVENT_TYPE_SEAT_AUTO
        elif kind in (pb.EVENT_TYPE_SEAT_CONNECTED, pb.EVENT_TYPE_SEAT_DISCONNECTED) and seat:
            seat["connected"] = kind == pb.EVENT_TYPE_SEAT_CONNECTED
        elif kind in (pb.EVENT_TYPE_MATCH_PAUSED, pb.EVENT_TYPE_MATCH_RESUMED):
            state["paused"] = kind == pb.EVENT_TYPE_MATCH_PAUSED
        return data

    def _hand_start(self, event: pb.Event) -> None:
        state = self.state
        self.draws = self.replacements = 0
        dealer = event.dealer if 0 <= event.dealer < 4 else 0
        for seat in state["seats"]:
            seat.update(
                melds=[],
                discards=[],
                concealed=14 if seat["seat"] == dealer else 13,
                wind=TILE_NAMES[27 + (seat["seat"] - dealer) % 4],
            )
        state.update(
            hand_no=event.hand_no,
            dealer=dealer,
            phase="turn",
            current_seat=dealer,
            offer=None,
            settlement=None,
            wins=[],
            status="playing",
            wall=self._live(),
        )

    def _claim(self, event: pb.Event) -> None:
        """A seat's answer claiming the last discard. The log holds every answer as it came,
        and the rules make only the best: a win takes the tile from any claim, a pong or kong
        from a chow (RULES.md §3, §9). So the table shows the best claim so far, none once a
        seat has won on the tile, and puts back what a lesser claim had moved."""
        window = self._window
        assert window is not None
        if window.before is None:
            seats = self.state["seats"]
            window.before = (
                [(s["melds"], s["concealed"], s["discards"]) for s in seats],
                {k: self.state[k] for k in ("phase", "offer", "current_seat")},
            )
        window.claims.append(event)
        self._settle_window()

    def _settle_window(self) -> None:
        window = self._window
        if window is None or window.before is None:
            return
        parts, turn = window.before
        for seat, (melds, concealed, discards) in zip(self.state["seats"], parts, strict=True):
            seat.update(melds=melds, concealed=concealed, discards=discards)
        self.state.update(turn)
        if window.won or not window.claims:
            return
        best = max(window.claims, key=lambda e: _CLAIM_PRIORITY[e.meld.kind])  # first of equals
        seat = self._seat(best.seat)
        if seat is not None:
            self._meld(best, seat)

    def _meld(self, event: pb.Event, seat: dict[str, Any]) -> None:
        meld = meld_json(event.meld)
        kind = event.meld.kind
        taken = {
            pb.MELD_KIND_PONG: 2,
            pb.MELD_KIND_EXPOSED_KONG: 3,
            pb.MELD_KIND_CONCEALED_KONG: 4,
            pb.MELD_KIND_ADDED_KONG: 1,
            pb.MELD_KIND_CHOW: 2,
        }.get(kind, 0)
        seat["concealed"] = max(0, seat["concealed"] - taken)
        if event.meld.HasField("from_seat"):
            source = self._seat(event.meld.from_seat)
            if source is not None and source["discards"]:
                source["discards"] = source["discards"][:-1]
        if kind == pb.MELD_KIND_ADDED_KONG:
            melds = list(seat["melds"])
            for index, old in enumerate(melds):
                if old["kind"] == "pong" and old["tile"] == meld["tile"]:
                    melds[index] = {**meld, "from": old.get("from")}
                    break
            else:
                melds.append(meld)
            seat["melds"] = melds
            self.state.update(offer={"tile": meld["tile"], "from": event.seat}, phase="rob_kong")
        else:
            seat["melds"] = [*seat["melds"], meld]
            self.state.update(offer=None, phase="turn", current_seat=event.seat)


def describe_event(event: dict[str, Any], names: Sequence[str]) -> str:
    """One line for a public event, e.g. ``Bot 2 discarded 5m`` (empty: not worth a line)."""
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else ""
    kind = event["type"]
    auto = " (auto)" if event.get("auto") else ""
    if kind == "hand_start":
        dealer = event.get("dealer", 0)
        name = names[dealer] if 0 <= dealer < len(names) else dealer
        return f"Hand {event['hand_no']} begins; dealer: {name}"
    if kind == "discard":
        return f"{who} discarded {event.get('tile')}{auto}"
    if kind in ("pong", "kong", "chow"):
        meld = event.get("meld", {})
        return f"{who} declares {meld.get('name', kind)} {meld.get('tile') or ''}{auto}".rstrip()
    if kind == "win":
        return f"{who} wins (胡)"
    if kind == "hand_end":
        return "The hand is over"
    if kind == "match_end":
        return "Match over"
    if kind == "match_dissolved":
        return f"The match was dissolved: {event.get('reason', '')}".rstrip(": ")
    if kind == "seat_auto":
        return f"{who} is now auto-played (托管)"
    if kind == "seat_resumed":
        return f"{who} plays again"
    if kind == "match_paused":
        return "The match is paused: nobody is at the table"
    if kind == "match_resumed":
        return "The match goes on"
    return ""


def message_json(message: Message) -> dict[str, Any]:
    """Any message as JSON with the proto field names (for fields no page formats)."""
    from google.protobuf import json_format

    return json_format.MessageToDict(message, preserving_proto_field_name=True)


# ------------------------------------------------------------------------- tournaments


def quality_json(quality: mm.SeatingQuality) -> dict[str, Any]:
    return {
        "repeat_pairs": quality.repeat_pairs,
        "consecutive_repeats": quality.consecutive_repeats,
        "max_pair_meetings": quality.max_pair_meetings,
        "wind_spread": quality.wind_spread,
        "standings_spread": round(quality.standings_spread, 2),
        "deadline_hit": quality.deadline_hit,
        "seconds": round(quality.seconds, 4),
    }


def table_assignment_json(table: mm.TableAssignment) -> dict[str, Any]:
    return {
        "round_no": table.round_no,
        "table_id": table.table_id,
        "match_id": table.match_id,
        "seats": [
            {
                "seat": s.seat,
                "player_id": s.player_id,
                "name": s.player_name,
                "kind": SEAT_KINDS.get(s.kind, "unknown"),
                "played_by": s.played_by,
            }
            for s in sorted(table.seats, key=lambda s: s.seat)
        ],
        "status": enum_name(pb.MatchStatus, table.status, "MATCH_STATUS_"),
        "hands_played": table.hands_played,
        "duplicate_group": table.duplicate_group,
        "dissolved_reason": table.dissolved_reason,
    }


def round_json(seating: mm.RoundSeating) -> dict[str, Any]:
    return {
        "round_no": seating.round_no,
        "tables": [table_assignment_json(t) for t in seating.tables],
        "quality": quality_json(seating.quality),
        "finished": seating.finished,
    }


def tournament_json(tournament: mm.Tournament) -> dict[str, Any]:
    """A tournament's public summary (players counted, not listed with secrets: none are)."""
    config = tournament.config
    players = [p for p in tournament.players if not p.filler]
    return {
        "tournament_id": tournament.tournament_id,
        "name": config.name,
        "status": enum_name(mm.TournamentStatus, tournament.status, "TOURNAMENT_STATUS_"),
        "status_reason": tournament.status_reason,
        "rounds": config.rounds,
        "current_round": tournament.current_round,
        "hands": _length_hands(config.length),
        "seating": enum_name(mm.SeatingMode, config.seating, "SEATING_MODE_")
        if config.seating
        else "swiss",
        "players": len(players),
        "people": sum(1 for p in players if p.kind == pb.SEAT_KIND_PERSON),
        "fillers": sum(1 for p in tournament.players if p.filler),
        "tables": [table_assignment_json(t) for t in tournament.tables],
        "round_quality": [
            {"round_no": r.round_no, "finished": r.finished, "quality": quality_json(r.quality)}
            for r in tournament.rounds
        ],
        "problems": list(tournament.problems),
        "hide_round_results": config.hide_round_results,
        "registration_code_required": tournament.registration_code_required,
        "registration_open": registration_open(tournament),
        "next_round_at_ms": millis(tournament.next_round_at),
        "round_ends_at_ms": millis(tournament.round_ends_at),
        "check_in_opens_ms": millis(tournament.check_in_opens_at),
        "check_in_closes_ms": millis(tournament.check_in_closes_at),
        "scheduled_start_ms": millis(config.scheduled_start),
        "created_ms": millis(tournament.created_at),
        "started_ms": millis(tournament.started_at),
        "finished_ms": millis(tournament.finished_at),
    }


def standings_json(response: mm.GetStandingsResponse) -> dict[str, Any]:
    """The ranking with the tie-break that decided each place (fillers last, unranked)."""
    rows = []
    for row in response.ranking:
        s = row.standing
        rows.append(
            {
                "rank": s.rank or None,
                "player_id": s.player_id,
                "name": s.player_name or s.player_id,
                "points": s.points,
                "hands_won": s.hands_won,
                "self_draw_wins": s.self_draw_wins,
                "dealt_in": s.hands_dealt_in,
                "best_match": s.best_match_points,
                "hands_played": s.hands_played,
                "matches_played": s.matches_played,
                "penalty_points": row.penalty_points,
                "award_points": s.award_points,
                "correction_points": s.correction_points,
                "placement_points": row.placement_points,
                "decided_by": row.decided_by,
                "filler": row.filler,
                "withdrawn": row.withdrawn,
                "status": player_status(row.status, row.withdrawn),
            }
        )
    return {
        "round_no": response.round_no,
        "ranking": rows,
        "mismatch": response.mismatch,
        "problems": list(response.problems),
    }


def registration_open(tournament: mm.Tournament) -> bool:
    """Whether Register may still take someone (before the start, or late registration)."""
    if tournament.status == mm.TOURNAMENT_STATUS_REGISTRATION:
        return True
    late = tournament.config.last_registration_round
    running = (mm.TOURNAMENT_STATUS_RUNNING, mm.TOURNAMENT_STATUS_PAUSED)
    return tournament.status in running and tournament.current_round < late


def player_status(status: int, withdrawn: bool = False, removed: bool = False) -> str:
    """``active``, ``withdrawn``, ``no_show`` or ``removed`` (older servers: from the flags)."""
    if status:
        return enum_name(mm.PlayerStatus, status, "PLAYER_STATUS_")
    return "removed" if removed else "withdrawn" if withdrawn else "active"


def player_json(player: mm.Player) -> dict[str, Any]:
    """A player as the person's own page shows it (never a secret: the message has none)."""
    return {
        "player_id": player.player_id,
        "name": player.name,
        "kind": SEAT_KINDS.get(player.kind, "unknown"),
        "status": player_status(player.status, player.withdrawn, player.removed),
        "status_reason": player.status_reason,
        "missed_rounds": list(player.missed_rounds),
        "checked_in": player.checked_in,
        "first_round": player.first_round,
        "replaced_by": player.replaced_by,
    }
