"""Logs that can be trusted: a log edited into another *legal* game passes the rules, but not
its hash chain and signatures (hebei.rules.chain), which name the first event edited."""

from __future__ import annotations

import json
import random

import pytest

from hebei.rules.actions import ActionKind
from hebei.rules.chain import (
    RECORD,
    Chain,
    canonical,
    genesis,
    link,
    open_log,
    parse_key,
    seal,
    sign,
)
from hebei.rules.errors import ReplayError
from hebei.rules.hand import HandState
from hebei.rules.match import Match, MatchLength
from hebei.rules.players import RandomPlayer
from hebei.rules.profile import get_profile
from hebei.rules.replay import replay_hand, replay_log, replay_match
from hebei.rules.shanten import shanten
from hebei.rules.simulate import SimulationSummary, play_match

KEY = parse_key("k" * 40)
OTHER_KEY = parse_key("x" * 40)
MATCH_ID = "m-chain-1"
ANSWERS = {"pass", "pong", "exposed_kong", "win"}


@pytest.fixture(scope="module")
def match() -> Match:
    m = Match(2024, MatchLength(hands=3))
    play_match(m, [RandomPlayer(s) for s in range(4)], SimulationSummary())
    return m


@pytest.fixture(scope="module")
def signed(match: Match) -> list[dict]:
    """The match log as the engine exports it (through JSON, as a file would carry it)."""
    return json.loads(json.dumps(seal(match.log(), MATCH_ID, KEY)))


def _hand_bounds(log: list[dict], hand: int = 0) -> tuple[int, int]:
    starts = [i for i, e in enumerate(log) if e["type"] == "hand_start"]
    return starts[hand], next(
        i for i in range(starts[hand], len(log)) if log[i]["type"] == "hand_end"
    )


def _plain(log: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != RECORD} for e in log]


# ---------------------------------------------------------------------- the pieces


def test_canonical_encoding_is_order_and_round_trip_independent() -> None:
    a = {"type": "discard", "seat": 1, "tile": "5m", "auto": True}
    b = json.loads(json.dumps(dict(reversed(list(a.items())))))
    assert canonical(a) == canonical(b) == b'{"auto":true,"seat":1,"tile":"5m","type":"discard"}'
    with pytest.raises(ReplayError, match="not plain JSON"):
        canonical({"type": "x", "value": float("nan")})


def test_each_hash_covers_the_previous_one_and_the_key_signs_it() -> None:
    chain = Chain(MATCH_ID, KEY)
    first = chain.append({"type": "a"})
    second = chain.append({"type": "b"})
    assert first.prev == genesis(MATCH_ID) and second.prev == first.hash
    assert second.hash == link(first.hash, {"type": "b"}) != link(genesis("other"), {"type": "b"})
    assert first.mac == sign(KEY, first.hash) != sign(OTHER_KEY, first.hash)
    assert Chain(MATCH_ID).append({"type": "a"}).mac is None  # no key: chained, unsigned


@pytest.mark.parametrize("text", ["", "short", " " * 40, "k" * 31])
def test_a_short_key_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="at least 32 characters"):
        parse_key(text)


# ---------------------------------------------------------------------- the engine's original


def test_the_engines_original_verifies_and_replays(match: Match, signed: list[dict]) -> None:
    replayed = replay_log(signed, KEY)
    assert replayed.match is not None and replayed.match.scores == match.scores
    check = replayed.check
    assert check.verified and check.chained and check.match_id == MATCH_ID
    assert check.signatures == check.events == len(signed)
    assert "signed by the engine" in check.summary()


def test_one_hand_cut_from_the_match_log_verifies_too(signed: list[dict]) -> None:
    start, end = _hand_bounds(signed, 1)
    replayed = replay_log(signed[start : end + 1], KEY)
    assert replayed.hand is not None and replayed.check.verified
    assert replayed.check.match_id is None  # a hand log does not prove its match


def test_without_the_key_only_the_chain_is_proven(signed: list[dict]) -> None:
    check = replay_log(signed).check
    assert check.chained and not check.verified and check.signatures == len(signed)
    assert "not proven: that the engine wrote it" in check.summary()


# ---------------------------------------------------------------------- legal forgeries


def _play_from(prefix: list[dict], forced: dict) -> list[dict]:
    """A complete, legal hand log: ``prefix``, then ``forced``, then auto-play to the end."""
    state = replay_hand(prefix, complete=False)
    seat = forced["seat"]
    action = next(
        a
        for a in state.legal_actions(seat)
        if a.kind.value == forced["type"] and _name(a) == forced.get("tile")
    )
    state.apply(seat, action)
    while not state.ended:
        for who in state.to_act():
            state.apply(who, state.auto_action(who))
    return state.events


def _name(action) -> str | None:
    from hebei.rules.tiles import TILE_NAMES

    return None if action.tile is None else TILE_NAMES[action.tile]


def _swapped_discard(hand: list[dict]) -> tuple[int, list[dict]]:
    """(index, log): the first discard replaced by another tile the seat held, the hand then
    played on legally."""
    for index, event in enumerate(hand):
        if event["type"] != "discard" or index < 2:
            continue
        before = replay_hand(hand[:index], complete=False)
        others = [
            a
            for a in before.legal_actions(event["seat"])
            if a.kind is ActionKind.DISCARD and _name(a) != event["tile"]
        ]
        if others:
            forced = {"type": "discard", "seat": event["seat"], "tile": _name(others[0])}
            return index, _play_from(hand[:index], forced)
    raise AssertionError("no discard to swap in this hand")


def _choose(state: HandState, seat: int, rng: random.Random):
    """Discard towards a win (fewest shanten), answer claims at random: hands get ready, so
    claim windows with two seats (a pong and a win, or two wins) come up."""
    options = state.legal_actions(seat)
    discards = [a for a in options if a.kind is ActionKind.DISCARD]
    if not discards:
        return options[rng.randrange(len(options))]

    def after(action) -> int:
        counts = list(state.hands[seat])
        counts[action.tile] -= 1
        return shanten(counts, len(state.melds[seat]))

    best = min(after(a) for a in discards)
    return rng.choice([a for a in discards if after(a) == best])


def _two_answers(seed_from: int = 1) -> list[dict]:
    """A hand log in which two seats answered one claim window (searching seeds)."""
    for seed in range(seed_from, seed_from + 400):
        rng = random.Random(seed)
        state = HandState(seed, 0, 0, get_profile("main"))
        while not state.ended:
            for who in state.to_act():
                state.apply(who, _choose(state, who, rng))
        events = state.events
        if any(
            events[i]["type"] in ANSWERS and events[i + 1]["type"] in ANSWERS
            for i in range(len(events) - 1)
        ):
            return events
    raise AssertionError("no claim window with two answers in 400 seeds")


def _naive(forged: list[dict], original: list[dict]) -> list[dict]:
    """Events edited, each left with the original's chain record at its place."""
    return [
        {**event, RECORD: original[i][RECORD]} if i < len(original) else event
        for i, event in enumerate(forged)
    ]


def _rechained(forged: list[dict], original: list[dict]) -> list[dict]:
    """The careful forger's log: the chain recomputed from the original's first link (anyone
    can), the original's signatures copied to their places (only the key makes new ones)."""
    chain = Chain(MATCH_ID, None, head=original[0][RECORD]["prev"])
    out = []
    for i, event in enumerate(forged):
        record = chain.append(event).record()
        if i < len(original):
            record["mac"] = original[i][RECORD]["mac"]
        out.append({**event, RECORD: record})
    return out


def test_a_discard_swapped_for_another_held_tile_is_a_legal_game_but_rejected(
    signed: list[dict],
) -> None:
    start, end = _hand_bounds(signed, 0)
    hand = signed[start : end + 1]
    index, forged = _swapped_discard(_plain(hand))
    assert replay_hand(forged).ended  # the rules alone accept the forgery
    assert replay_log(hand, KEY).check.verified

    with pytest.raises(ReplayError, match=rf"event #{index} \(discard of seat \d \w+\) was edited"):
        replay_log(_naive(forged, hand))
    rechained = _rechained(forged, hand)
    assert replay_log(rechained).check.chained  # without the key, nothing to see ...
    with pytest.raises(ReplayError, match=rf"event #{index} \(discard .*not what the engine"):
        replay_log(rechained, KEY)  # ... with it, the edited discard is named


def test_two_answers_of_one_claim_window_swapped_are_rejected() -> None:
    hand = _two_answers()
    i = next(
        k
        for k in range(len(hand) - 1)
        if hand[k]["type"] in ANSWERS and hand[k + 1]["type"] in ANSWERS
    )
    swapped = [*hand[:i], hand[i + 1], hand[i], *hand[i + 2 :]]
    assert replay_hand(swapped).ended  # still a legal game

    original = json.loads(json.dumps(seal(hand, MATCH_ID, KEY)))
    assert replay_log(original, KEY).check.verified
    naive = [*original[:i], original[i + 1], original[i], *original[i + 2 :]]
    with pytest.raises(ReplayError, match=rf"event #{i} .*does not follow event #{i - 1}"):
        replay_log(naive)
    rechained = _rechained(swapped, original)
    assert replay_log(rechained).check.chained
    with pytest.raises(ReplayError, match=rf"event #{i} .*not what the engine logged"):
        replay_log(rechained, KEY)


def test_a_log_re_signed_with_another_key_is_rejected(match: Match, signed: list[dict]) -> None:
    resigned = seal(match.log(), MATCH_ID, OTHER_KEY)
    assert replay_log(resigned, OTHER_KEY).check.verified
    with pytest.raises(ReplayError, match="no signature verifies with this key"):
        replay_log(resigned, KEY)


def test_an_old_unsigned_log_is_reported_unsigned_never_verified(match: Match) -> None:
    plain = json.loads(json.dumps(match.log()))
    check = replay_log(plain).check
    assert not check.chained and not check.verified and check.signatures == 0
    assert check.summary().startswith("UNSIGNED")
    with pytest.raises(ReplayError, match="the log is not signed"):
        replay_log(plain, KEY)


def test_chained_but_unsigned_events_are_not_verified(match: Match) -> None:
    chained = seal(match.log(), MATCH_ID, None)
    assert replay_log(chained).check.signatures == 0
    with pytest.raises(ReplayError, match=r"event #0 \(match_start\) is not signed"):
        replay_log(chained, KEY)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda log: log.pop(5), r"event #5 .*does not follow event #4"),
        (lambda log: log.insert(3, dict(log[3])), r"event #4 .*does not follow event #3"),
        (lambda log: log[4].pop(RECORD), r"event #4 .*has no chain record"),
        (lambda log: log[4][RECORD].update(hash="zz"), r"event #4 .*malformed chain record"),
        (lambda log: log[0][RECORD].update(match_id="m-other"), r"does not start the chain"),
    ],
)
def test_removed_inserted_or_garbled_events_are_named(signed: list[dict], edit, message) -> None:
    log = json.loads(json.dumps(signed))
    edit(log)
    with pytest.raises(ReplayError, match=message):
        replay_log(log)


def test_the_plain_replay_refuses_a_chained_log(signed: list[dict]) -> None:
    with pytest.raises(ReplayError, match="check it with replay_log"):
        replay_match(signed)
    with pytest.raises(ReplayError, match="a log is a list of events"):
        open_log("not a log")
