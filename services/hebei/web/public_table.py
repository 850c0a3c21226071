"""The spectators' table: the public events of one match (the Spectate stream) folded into the
same table view the person at a seat gets (:mod:`hebei.web.seat_view`), and one line of the
table's log per event.

Nothing here reads a concealed tile: a spectator's view is built from spectator events only,
which never carry one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hebei.rules.profile import MAIN, get_profile
from hebei.rules.tiles import N_TILES, TILE_NAMES
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from hebei.web.views import SEAT_KINDS, event_json, length_hands, meld_json

DEALT = 13 * 4 + 1  # tiles dealt from the wall: 13 each and the dealer's 14th


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
            "hands": length_hands(info.length),
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
