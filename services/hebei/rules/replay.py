"""Replay an event log: rebuild the exact state and settlement, reject a log that is not the
game its seed and actions give. :func:`replay_log` first checks an exported log's hash chain
and signatures (:mod:`hebei.rules.chain`): a log edited into another legal game passes the
rules but not the signatures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hebei.rules.actions import Action, ActionKind
from hebei.rules.chain import RECORD, LogCheck, open_log
from hebei.rules.errors import IllegalActionError, NotationError, ReplayError
from hebei.rules.hand import HandState
from hebei.rules.match import Match, MatchLength
from hebei.rules.profile import get_profile

ACTION_TYPES = frozenset(k.value for k in ActionKind)
# The events that end a hand's run of events in a match log (the next hand's start, or the
# match's end, which a match ended early precedes with match_concluded).
MATCH_LEVEL = ("hand_start", "match_concluded", "match_end")  # a tuple: a type may be unhashable


def _refuse_chained(events: Sequence) -> None:
    """Plain events only: a log with chain records is read with :func:`replay_log`, which
    checks the chain before the rules (never silently ignoring it)."""
    for index, event in enumerate(events):
        if isinstance(event, dict) and RECORD in event:
            raise ReplayError(f"event #{index} carries a chain record: check it with replay_log")


def _start_args(event: object) -> tuple[int, int, int, str]:
    if not isinstance(event, dict) or event.get("type") != "hand_start":
        raise ReplayError("a hand log starts with its hand_start event, which carries the seed")
    seed, dealer, hand_no = event.get("seed"), event.get("dealer"), event.get("hand_no", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ReplayError(f"hand_start has no integer seed: {seed!r}")
    if dealer not in (0, 1, 2, 3):
        raise ReplayError(f"hand_start dealer must be a seat 0-3, got {dealer!r}")
    if not isinstance(hand_no, int) or hand_no < 0:
        raise ReplayError(f"hand_start hand_no must be a whole number, got {hand_no!r}")
    return seed, dealer, hand_no, event.get("profile", "main")


def _action_of(event: dict, index: int) -> tuple[int, Action, bool]:
    seat = event.get("seat")
    if seat not in (0, 1, 2, 3):
        raise ReplayError(f"event #{index} ({event.get('type')}) has no seat 0-3: {seat!r}")
    kind = ActionKind(event["type"])
    body = {"type": kind.value}
    if kind not in (ActionKind.WIN, ActionKind.PASS):
        body["tile"] = event.get("tile")
    try:
        return seat, Action.from_json(body), bool(event.get("auto", False))
    except NotationError as exc:
        raise ReplayError(f"event #{index}: {exc}") from None


def replay_hand(events: Sequence[dict], *, complete: bool = True) -> HandState:
    """Rebuild a hand from its log and check every event against the game.

    Actions are applied in order; every other event (deal, draw, hand_end) must be exactly
    what the game produced. With ``complete=False`` a log cut short (a table that was
    still playing) is accepted and the state is returned where the log stops.
    """
    if not events:
        raise ReplayError("the log is empty")
    _refuse_chained(events)
    seed, dealer, hand_no, profile_name = _start_args(events[0])
    try:
        profile = get_profile(profile_name)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    state = HandState(seed, dealer, hand_no, profile)
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            raise ReplayError(f"event #{index} is not an object: {event!r}")
        if index >= len(state.events):
            kind = event.get("type")
            if not isinstance(kind, str) or kind not in ACTION_TYPES:
                raise ReplayError(
                    f"event #{index} ({event.get('type')}) was not produced by the game at this point"
                )
            seat, action, auto = _action_of(event, index)
            try:
                state.apply(seat, action, auto=auto)
            except IllegalActionError as exc:
                raise ReplayError(f"event #{index} is illegal: {exc}") from None
        if index >= len(state.events) or state.events[index] != event:
            expected = state.events[index] if index < len(state.events) else "nothing"
            raise ReplayError(
                f"event #{index} {event} does not match the game, which gives {expected}"
            )
    if complete and (not state.ended or len(state.events) != len(events)):
        raise ReplayError(f"the log stops after {len(events)} events but the hand goes on")
    return state


def replay_match(events: Sequence[dict]) -> Match:
    """Replay a match log: match_start, each hand's events, match_end.

    A match ended early (:meth:`hebei.rules.match.Match.conclude`, a round's time limit) has
    a ``match_concluded`` event with its reason after its last hand (or, when no hand was
    dealt, after match_start), before match_end.

    The match_start of an evaluation match (its seed chosen by the caller) carries
    ``"evaluation": true`` besides what the seed gives.
    """
    if not events or not isinstance(events[0], dict) or events[0].get("type") != "match_start":
        raise ReplayError("a match log starts with its match_start event")
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            raise ReplayError(f"event #{index} is not an object: {event!r}"[:200])
    _refuse_chained(events)
    start = events[0]
    try:
        match = Match(
            int(start["seed"]),
            MatchLength.from_json(start["length"]),
            get_profile(start.get("profile", "main")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"bad match_start event: {exc}") from None
    marked = {k: v for k, v in start.items() if k != "evaluation"}
    if marked != match.start_event() or start.get("evaluation", True) is not True:
        raise ReplayError(
            f"match_start {start} does not match the seed, which gives {match.start_event()}"
        )
    pos = 1
    while not match.finished:
        if pos < len(events) and events[pos].get("type") == "match_concluded":
            reason = events[pos].get("reason")
            match.conclude(reason if isinstance(reason, str) else "")
            if events[pos] != match.conclusion_event():
                raise ReplayError(f"event #{pos} should be {match.conclusion_event()}")
            pos += 1
            continue
        hand = match.next_hand()
        end = pos + 1
        while end < len(events) and events[end].get("type") not in MATCH_LEVEL:
            end += 1
        if pos >= len(events) or events[pos] != hand.events[0]:
            raise ReplayError(f"event #{pos} should be {hand.events[0]}")
        replayed = replay_hand(events[pos:end])
        match.hand = replayed
        match.finish_hand()
        pos = end
    if pos != len(events) - 1 or events[pos] != match.end_event():
        raise ReplayError(f"the match log should end with {match.end_event()}")
    return match


@dataclass(frozen=True, slots=True)
class ReplayedLog:
    """A checked log: its chain (:class:`hebei.rules.chain.LogCheck`) and its replay, a
    hand's state or a whole match."""

    check: LogCheck
    events: list[dict]
    hand: HandState | None = None
    match: Match | None = None


def replay_log(log: Sequence, key: bytes | None = None) -> ReplayedLog:
    """Check a hand or match log as exported (its chain, with ``key`` every signature: see
    :func:`hebei.rules.chain.open_log`), then replay it against the rules."""
    events, check = open_log(log, key)
    if not events:
        raise ReplayError("the log is empty")
    if events[0].get("type") == "match_start":
        return ReplayedLog(check, events, match=replay_match(events))
    return ReplayedLog(check, events, hand=replay_hand(events))
