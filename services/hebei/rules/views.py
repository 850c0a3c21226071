"""What each seat (and a spectator) may see (RULES.md §3, ARCHITECTURE "service boundaries").

A seat sees its own hand, everyone's melds and discards, the wall count, the
scores and its own legal actions: never another hand, the wall or the seed.
Concealed kongs are face down to the others; passes on a claim are private
(they would tell the others what a seat holds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hebei.rules.actions import Action
from hebei.rules.hand import HandState, Phase
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.tiles import TILE_NAMES, from_counts

SPECTATOR = None


@dataclass(frozen=True, slots=True)
class SeatView:
    """The public side of one seat."""

    seat: int
    melds: tuple[dict, ...]
    discards: tuple[str, ...]
    concealed_count: int
    score: int


@dataclass(frozen=True, slots=True)
class Observation:
    seat: int
    hand_no: int
    dealer: int
    phase: str
    current: int
    hand: tuple[str, ...]  # own concealed tiles, sorted
    drawn: str | None  # the tile this seat just drew, if it is this seat's turn
    seats: tuple[SeatView, ...]
    wall: int  # live tiles left for normal draws
    claim: dict | None  # {"tile", "from"} while a discard or added kong is being answered
    legal_actions: tuple[Action, ...]
    ended: bool

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "phase": self.phase,
            "current": self.current,
            "hand": list(self.hand),
            "drawn": self.drawn,
            "seats": [
                {
                    "seat": v.seat,
                    "melds": list(v.melds),
                    "discards": list(v.discards),
                    "concealed_count": v.concealed_count,
                    "score": v.score,
                }
                for v in self.seats
            ],
            "wall": self.wall,
            "claim": self.claim,
            "legal_actions": [a.to_json() for a in self.legal_actions],
            "ended": self.ended,
        }


def public_meld(meld: Meld, owner: int, viewer: int | None) -> dict:
    out = meld.to_json()
    if meld.kind is MeldKind.CONCEALED_KONG and viewer != owner:
        del out["tile"]
    return out


def observe(state: HandState, seat: int, scores: Sequence[int] = (0, 0, 0, 0)) -> Observation:
    """The observation of ``seat``: only what that player may see."""
    seats = tuple(
        SeatView(
            seat=s,
            melds=tuple(public_meld(m, s, seat) for m in state.melds[s]),
            discards=tuple(TILE_NAMES[k] for k in state.discards[s]),
            concealed_count=sum(state.hands[s]),
            score=scores[s],
        )
        for s in range(4)
    )
    claim = None
    if state.phase in (Phase.CLAIMS, Phase.ROB):
        claim = {
            "tile": TILE_NAMES[state.claim_tile],
            "from": state.claim_from,
            "kind": state.phase.value,
        }
    drawn = state.drawn if state.phase is Phase.TURN and state.current == seat else None
    return Observation(
        seat=seat,
        hand_no=state.hand_no,
        dealer=state.dealer,
        phase=state.phase.value,
        current=state.current,
        hand=tuple(TILE_NAMES[k] for k in from_counts(state.hands[seat])),
        drawn=None if drawn is None else TILE_NAMES[drawn],
        seats=seats,
        wall=state.wall.live,
        claim=claim,
        legal_actions=state.legal_actions(seat),
        ended=state.ended,
    )


def public_event(event: dict, viewer: int | None = SPECTATOR) -> dict | None:
    """``event`` as ``viewer`` (a seat, or None for a spectator) may see it; None = not shown.

    Hidden: the seed and dice (published after the match), other seats' dealt hands and
    draws, the tile of another seat's concealed kong, and other seats' passes.
    """
    kind = event["type"]
    if kind == "hand_start":
        return {k: v for k, v in event.items() if k not in ("seed", "dice")}
    if kind == "deal":
        hands = event["hands"]
        return {"type": "deal", "hand": hands[viewer]} if viewer is not None else {"type": "deal"}
    if kind == "draw" or kind == "concealed_kong":
        if event["seat"] == viewer:
            return event
        return {k: v for k, v in event.items() if k != "tile"}
    if kind == "pass":
        return event if event["seat"] == viewer else None
    if kind == "match_start":
        return {k: v for k, v in event.items() if k != "seed"}
    return event
