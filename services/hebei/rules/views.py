"""What each seat (and a spectator) may see (RULES.md §3, ARCHITECTURE "service boundaries").

A seat sees its own hand, everyone's melds and discards, the wall count, the
scores and its own legal actions: never another hand, the wall or the seed.
Concealed kongs are face down to the others (their tile is :data:`HIDDEN`);
passes on a claim are private (they would tell the others what a seat holds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hebei.rules.actions import Action
from hebei.rules.hand import HandState, Phase
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.tiles import N_KINDS, TILE_NAMES, from_counts

SPECTATOR = None
HIDDEN = -1  # the tile of a concealed kong, as the other seats see it


@dataclass(frozen=True, slots=True)
class SeatView:
    """The public side of one seat."""

    seat: int
    melds: tuple[Meld, ...]
    discards: tuple[int, ...]
    concealed_count: int
    score: int


@dataclass(frozen=True, slots=True)
class ClaimView:
    """A discard (or an added-kong tile) that seats are answering."""

    tile: int
    from_seat: int
    rob: bool  # True: robbing an added kong; False: a discard


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a hand; tiles are kinds (ints), see :mod:`hebei.rules.tiles`."""

    seat: int
    hand_no: int
    dealer: int
    phase: Phase
    current: int
    hand: tuple[int, ...]  # own concealed tiles, sorted
    drawn: int | None  # the tile this seat just drew, on its own turn
    seats: tuple[SeatView, ...]
    wall: int  # live tiles left for normal draws
    claim: ClaimView | None
    legal_actions: tuple[Action, ...]
    profile: RuleProfile = MAIN  # the rules of the table (§9: chow, one suit of eight, ...)

    def counts(self) -> list[int]:
        """Own concealed tiles as a 34-long count list."""
        counts = [0] * N_KINDS
        for k in self.hand:
            counts[k] += 1
        return counts

    def visible(self) -> list[int]:
        """Counts of the tiles this seat sees outside its own hand: discards and melds."""
        counts = [0] * N_KINDS
        for view in self.seats:
            for k in view.discards:
                counts[k] += 1
            for meld in view.melds:
                if meld.kind is MeldKind.CHOW:  # §9: a run
                    for k in meld.tiles:
                        counts[k] += 1
                elif meld.tile != HIDDEN:
                    counts[meld.tile] += meld.size
        return counts

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "current": self.current,
            "hand": [TILE_NAMES[k] for k in self.hand],
            "drawn": None if self.drawn is None else TILE_NAMES[self.drawn],
            "seats": [
                {
                    "seat": v.seat,
                    "melds": [meld_json(m) for m in v.melds],
                    "discards": [TILE_NAMES[k] for k in v.discards],
                    "concealed_count": v.concealed_count,
                    "score": v.score,
                }
                for v in self.seats
            ],
            "wall": self.wall,
            "claim": None
            if self.claim is None
            else {
                "tile": TILE_NAMES[self.claim.tile],
                "from": self.claim.from_seat,
                "rob": self.claim.rob,
            },
            "legal_actions": [a.to_json() for a in self.legal_actions],
        }


def meld_json(meld: Meld) -> dict:
    if meld.tile == HIDDEN:
        return {"type": meld.kind.value}
    return meld.to_json()


def public_meld(meld: Meld, owner: int, viewer: int | None) -> Meld:
    if meld.kind is MeldKind.CONCEALED_KONG and viewer != owner:
        return Meld(MeldKind.CONCEALED_KONG, HIDDEN)
    return meld


def observe(state: HandState, seat: int, scores: Sequence[int] = (0, 0, 0, 0)) -> Observation:
    """The observation of ``seat``: only what that player may see."""
    seats = tuple(
        SeatView(
            seat=s,
            melds=tuple(public_meld(m, s, seat) for m in state.melds[s]),
            discards=tuple(state.discards[s]),
            concealed_count=sum(state.hands[s]),
            score=scores[s],
        )
        for s in range(4)
    )
    claim = None
    if state.phase in (Phase.CLAIMS, Phase.ROB):
        claim = ClaimView(state.claim_tile, state.claim_from, state.phase is Phase.ROB)
    own_turn = state.phase is Phase.TURN and state.current == seat
    return Observation(
        seat=seat,
        hand_no=state.hand_no,
        dealer=state.dealer,
        phase=state.phase,
        current=state.current,
        hand=tuple(from_counts(state.hands[seat])),
        drawn=state.drawn if own_turn else None,
        seats=seats,
        wall=state.wall.live,
        claim=claim,
        legal_actions=state.legal_actions(seat),
        profile=state.profile,
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
    if kind in ("draw", "concealed_kong"):
        if event["seat"] == viewer:
            return event
        return {k: v for k, v in event.items() if k != "tile"}
    if kind == "pass":
        return event if event["seat"] == viewer else None
    if kind == "match_start":
        return {k: v for k, v in event.items() if k != "seed"}
    return event
