"""Rebuild a finished match's hand logs from its public events and its published seed.

A spectator sees every discard, claim, kong and win, but not the draws, the dealt tiles,
the tile of a concealed kong or the passes. Once a match has ended the table engine
publishes its seed, and the seed gives every wall: playing the public actions on the
seeded hands again brings back the hidden ones (a draw is whatever the wall gives; a
concealed kong is of the kind the seat holds four of; a seat with a claim open that made
none passed). Each rebuilt hand is checked against the settlement the engine published.

Only complete hands are rebuilt (a dissolved match stops at its last settled hand).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hebei.common.errors import InvalidArgument
from hebei.rules.actions import (
    ADDED_KONG,
    CONCEALED_KONG,
    DISCARD,
    EXPOSED_KONG,
    PASS,
    PONG,
    WIN,
    Action,
)
from hebei.rules.errors import IllegalActionError
from hebei.rules.hand import HandState, Phase
from hebei.rules.match import Match, MatchLength
from hebei.rules.profile import RuleProfile
from hebei.rules.tiles import N_KINDS

CLAIMS = frozenset({"pong", "exposed_kong", "win"})
TURN_ACTIONS = frozenset({"discard", "concealed_kong", "added_kong", "win"})


@dataclass(frozen=True, slots=True)
class PublicEvent:
    """A public event as a spectator reads it (tiles as kinds, None when hidden)."""

    type: str  # the rules event type: discard, pong, exposed_kong, ..., hand_end
    seat: int | None = None
    tile: int | None = None
    auto: bool = False
    totals: tuple[int, ...] | None = None  # hand_end: each seat's points for the hand


class _Cursor:
    """The public actions of one hand, read in order."""

    def __init__(self, events: Sequence[PublicEvent]) -> None:
        self.events = events
        self.i = 0

    def peek(self) -> PublicEvent | None:
        return self.events[self.i] if self.i < len(self.events) else None

    def take(self) -> PublicEvent:
        event = self.peek()
        if event is None:
            raise InvalidArgument("the public events stop in the middle of a hand")
        self.i += 1
        return event


def _split_hands(events: Sequence[PublicEvent]) -> Iterator[tuple[list[PublicEvent], PublicEvent]]:
    """Each complete hand's game actions and its hand_end event."""
    current: list[PublicEvent] | None = None
    for event in events:
        if event.type == "hand_start":
            current = []
        elif event.type == "hand_end":
            if current is not None:
                yield current, event
            current = None
        elif current is not None and (event.type in TURN_ACTIONS or event.type in CLAIMS):
            current.append(event)


def _turn_action(state: HandState, event: PublicEvent) -> Action:
    seat = state.current
    if event.seat != seat or event.type not in TURN_ACTIONS:
        raise InvalidArgument(
            f"hand {state.hand_no + 1}: seat {seat} is on its turn but the next public event is "
            f"{event.type} by seat {event.seat}"
        )
    if event.type == "win":
        return WIN
    if event.type == "concealed_kong" and event.tile is None:
        quads = [k for k in range(N_KINDS) if state.hands[seat][k] == 4]
        if not quads:
            raise InvalidArgument(f"hand {state.hand_no + 1}: seat {seat} holds no four of a kind")
        return CONCEALED_KONG[quads[0]]
    if event.tile is None:
        raise InvalidArgument(f"hand {state.hand_no + 1}: a public {event.type} without its tile")
    table = {"discard": DISCARD, "concealed_kong": CONCEALED_KONG, "added_kong": ADDED_KONG}
    return table[event.type][event.tile]


def _claim_action(state: HandState, event: PublicEvent) -> Action | None:
    """The answer ``event`` gives to the open claim, or None when it is not one."""
    if event.type not in CLAIMS or event.seat not in state.to_act():
        return None
    tile = state.claim_tile
    action = {"win": WIN, "pong": PONG[tile], "exposed_kong": EXPOSED_KONG[tile]}[event.type]
    return action if action in state.legal_actions(event.seat) else None


def _play_hand(state: HandState, actions: Sequence[PublicEvent]) -> None:
    cursor = _Cursor(actions)
    while not state.ended:
        if state.phase is Phase.TURN:
            event = cursor.take()
            state.apply(state.current, _turn_action(state, event), auto=event.auto)
            continue
        answers: dict[int, tuple[Action, bool]] = {}
        while (event := cursor.peek()) is not None and event.seat not in answers:
            action = _claim_action(state, event)
            if action is None:
                break
            answers[event.seat] = (action, event.auto)
            cursor.take()
        for seat in state.to_act():
            action, auto = answers.get(seat, (PASS, False))
            state.apply(seat, action, auto=auto)
    if cursor.peek() is not None:
        raise InvalidArgument(f"hand {state.hand_no + 1}: public events left after its end")


def rebuild_hands(
    seed: int, length: MatchLength, profile: RuleProfile, events: Sequence[PublicEvent]
) -> list[list[dict]]:
    """The full logs (dealt tiles and draws included) of the match's complete hands.

    InvalidArgument when the public events do not fit the seed's walls, or a rebuilt hand
    settles otherwise than the engine published.
    """
    match = Match(seed, length, profile)
    logs = []
    for actions, end in _split_hands(events):
        if match.finished:
            raise InvalidArgument("the public events hold more hands than the match")
        state = match.next_hand()
        try:
            _play_hand(state, actions)
        except IllegalActionError as exc:
            raise InvalidArgument(
                f"hand {state.hand_no + 1} does not replay from the seed: {exc}"
            ) from None
        totals = tuple(state.result.settlement.total)
        if end.totals is not None and tuple(end.totals) != totals:
            raise InvalidArgument(
                f"hand {state.hand_no + 1} settles {list(totals)} when rebuilt, "
                f"the engine published {list(end.totals)}"
            )
        logs.append(list(state.events))
        match.finish_hand()
    return logs
