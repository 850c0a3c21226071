"""A finished match comes back from its public events and its published seed."""

from __future__ import annotations

import pytest

from hebei.botservice.review import hand_logs
from hebei.common.errors import InvalidArgument
from hebei.rules.match import MatchLength
from hebei.rules.profile import MAIN
from hebei.rules.tiles import parse_tile
from hebei.rules.views import public_event
from hebei.seatclient.hand_rebuild import PublicEvent, rebuild_hands
from tests.unit.botservice.positions import match_log

HANDS = 3


def public(log: list[dict]) -> list[PublicEvent]:
    """What a spectator sees of ``log``, as the bot service reads it from the engine."""
    out = []
    for event in log:
        seen = public_event(event, None)
        if seen is None or seen["type"] in ("deal", "draw", "match_start"):
            continue
        tile = seen.get("tile")
        totals = None
        if seen["type"] == "hand_end":
            totals = tuple(seen["settlement"]["total"])
        out.append(
            PublicEvent(
                seen["type"],
                seen.get("seat"),
                None if tile is None else parse_tile(tile),
                bool(seen.get("auto")),
                totals,
            )
        )
    return out


def without_passes(log: list[dict]) -> list[dict]:
    return [e for e in log if e["type"] != "pass"]


@pytest.mark.parametrize("policy", ["random", "efficiency", "expert"])
def test_every_hand_is_rebuilt_from_what_spectators_see(policy: str) -> None:
    log = match_log(policy, seed=7, hands=HANDS)
    seed = log[0]["seed"]
    rebuilt = rebuild_hands(seed, MatchLength(hands=HANDS), MAIN, public(log))
    original = hand_logs(log)
    assert len(rebuilt) == HANDS
    for mine, theirs in zip(rebuilt, original, strict=True):
        assert without_passes(mine) == without_passes(theirs)


def test_only_complete_hands_are_rebuilt() -> None:
    log = match_log("efficiency", seed=8, hands=HANDS)
    events = public(log)
    last_end = max(i for i, e in enumerate(events) if e.type == "hand_end")
    cut = events[:last_end]  # a dissolved match: its last hand never settled
    rebuilt = rebuild_hands(log[0]["seed"], MatchLength(hands=HANDS), MAIN, cut)
    assert len(rebuilt) == HANDS - 1


def test_events_that_do_not_fit_the_seed_are_refused() -> None:
    log = match_log("efficiency", seed=9, hands=HANDS)
    events = public(log)
    with pytest.raises(InvalidArgument):
        rebuild_hands(log[0]["seed"] + 1, MatchLength(hands=HANDS), MAIN, events)


def test_a_settlement_that_differs_is_refused() -> None:
    log = match_log("efficiency", seed=10, hands=HANDS)
    events = public(log)
    i = next(i for i, e in enumerate(events) if e.type == "hand_end")
    events[i] = PublicEvent("hand_end", totals=(99, -99, 0, 0))
    with pytest.raises(InvalidArgument, match="settles"):
        rebuild_hands(log[0]["seed"], MatchLength(hands=HANDS), MAIN, events)
