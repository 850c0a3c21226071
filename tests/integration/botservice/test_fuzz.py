"""Fuzzing the BotService over a real gRPC server: byte-level fuzz of every RPC (the shared
machinery of :mod:`tests.fuzz`), then positions and logs that parse but lie: observations
edited into states no table reaches (a tile held five times, melds that were never made,
a legal action that does not fit or one the rules always give left out, a chow at a table
without chows) and match or hand logs cut, reordered, duplicated or retyped. Never INTERNAL
(nor UNKNOWN), never a stack trace in a reply; each refusal is INVALID_ARGUMENT (or
NOT_FOUND for a policy or match that does not exist). Seeded: a failure replays.

The semantic part found three crashes, fixed where they lived: the expert ranked discards
of a turn whose legal actions left some out (KeyError), a chow offered at a main-rules table
reached the kong pricing (negative tile counts), and a match log whose ``length`` was not an
object, or with an event that was not one, broke the replay (AttributeError)."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import random
from collections import Counter

import grpc
import pytest

from hebei.common import convert
from hebei.rules.profile import CLASSIC
from hebei.v1 import bot_pb2
from hebei.v1 import types_pb2 as pb
from tests.fuzz import Fuzzer, big_channel, call, check, edit_log, rpcs
from tests.integration.botservice.conftest import Running
from tests.unit.botservice.positions import match_log, random_positions

SEED = 20261205
RPCS = rpcs(bot_pb2.DESCRIPTOR.services_by_name["BotService"])
POLICIES = ("", "expert", "efficiency", "random", "genius")


@pytest.fixture(scope="module")
def positions():
    return random_positions(80, seed=SEED % 1000)


@pytest.fixture(scope="module")
def logs() -> list[list[dict]]:
    return [
        match_log("expert", seed=5, hands=2, level=3),
        match_log("random", seed=6, hands=2),
        match_log("efficiency", seed=7, hands=2),
    ]


def suggest_request(rng: random.Random, positions) -> bot_pb2.SuggestRequest:
    obs = rng.choice(positions)
    if rng.random() < 0.15:  # the same position read under the classic rules
        obs = dataclasses.replace(obs, profile=CLASSIC)
    policy = rng.choice(POLICIES)
    level = rng.choice([0, 1, 2, 3, 4]) if policy in ("", "expert") else rng.choice([0, 0, 1, 3])
    return bot_pb2.SuggestRequest(
        observation=convert.observation_to_proto(obs, decision_id=1),
        policy=policy,
        level=level,
        seed=rng.randrange(2**32),
    )


def edit_observation(rng: random.Random, o: pb.Observation) -> None:
    """One edit that keeps the message well-formed and the position, most often, wrong."""
    held = list(o.concealed) or [1]
    seat = o.seats[rng.randrange(4)]
    edits = [
        lambda: o.concealed.__setitem__(rng.randrange(len(o.concealed)), rng.randint(0, 35)),
        lambda: o.concealed.append(rng.choice(held)),
        lambda: o.concealed.pop(rng.randrange(len(o.concealed))),
        lambda: seat.melds.add(kind=rng.randint(0, 6), tile=rng.choice(held)),
        lambda: seat.melds.add(
            kind=rng.randint(0, 6), tile=rng.choice(held), from_seat=rng.randint(-1, 5)
        ),
        lambda: seat.discards.append(rng.choice(held)),
        lambda: setattr(seat, "concealed_count", rng.choice([0, 1, 13, 14, -1, 99])),
        lambda: setattr(seat, "seat", rng.choice([0, 1, 2, 3, 5])),
        lambda: setattr(o, "wall_count", rng.choice([0, 1, -1, 83, 137, 2**31 - 1])),
        lambda: setattr(o, "seat", rng.choice([0, 1, 2, 3, -1, 4])),
        lambda: setattr(o, "dealer", rng.choice([0, 1, 2, 3, -1, 99])),
        lambda: setattr(o, "current_seat", rng.choice([0, 1, 2, 3, 7])),
        lambda: setattr(o, "phase", rng.randint(0, 9)),
        lambda: setattr(o, "drawn", rng.choice([*held, 0, 35])),
        lambda: setattr(o, "last_discard", rng.choice([*held, 0, rng.randint(1, 34)])),
        lambda: setattr(o, "last_discarder", rng.choice([0, 1, 2, 3, -1, 5])),
        lambda: o.rule_profile.__setattr__("name", rng.choice(["main", "classic", "", "x"])),
        lambda: o.legal_actions.add(
            kind=rng.randint(0, 9), tile=rng.choice([*held, rng.randint(0, 35)])
        ),
        lambda: o.legal_actions.pop(rng.randrange(len(o.legal_actions))),
        lambda: setattr(
            o.legal_actions[rng.randrange(len(o.legal_actions))], "kind", rng.randint(0, 9)
        ),
    ]
    # an edit that does not apply to this message (nothing to pop, out of range) is skipped
    with contextlib.suppress(IndexError, ValueError, TypeError):
        rng.choice(edits)()


def review_request(rng: random.Random, logs: list[list[dict]]) -> bot_pb2.ReviewRequest:
    log = copy.deepcopy(rng.choice(logs))
    if rng.random() < 0.5:  # one hand of it
        starts = [i for i, e in enumerate(log) if e["type"] == "hand_start"]
        first = rng.choice(starts)
        end = next(i for i, e in enumerate(log) if i > first and e["type"] == "hand_end")
        log = log[first : end + 1]
    return bot_pb2.ReviewRequest(
        log_json=json.dumps(log),
        seat=rng.choice([0, 1, 2, 3, 4, -1]),
        level=rng.choice([0, 3, 4, 9]),
        max_differences=rng.choice([0, 3, 1001]),
    )


def answers(method, requests) -> Counter:
    """Send each request; count the outcomes. Only INVALID_ARGUMENT or NOT_FOUND may refuse
    one (:func:`tests.fuzz.check` fails on INTERNAL, UNKNOWN and stack traces)."""
    seen: Counter = Counter()
    for n, request in enumerate(requests):
        try:
            method(request, timeout=60)
        except grpc.RpcError as error:
            try:
                check(error, seen)
                assert error.code() in (
                    grpc.StatusCode.INVALID_ARGUMENT,
                    grpc.StatusCode.NOT_FOUND,
                ), (error.code(), error.details())
            except AssertionError as failed:
                raise AssertionError(f"call {n}: {failed}\n{str(request)[:2000]}") from None
        else:
            check(None, seen)
    return seen


def test_byte_level_fuzz_of_every_rpc(running: Running, positions, logs) -> None:
    rng = random.Random(SEED)

    def valid(name: str):
        if name == "ListPolicies":
            return bot_pb2.ListPoliciesRequest()
        if name == "Suggest":
            return suggest_request(rng, positions)
        request = review_request(rng, logs)
        if rng.random() < 0.3:  # a finished match of the engine the service reads
            request.match_id = rng.choice(["expert-done", "random-done", "still-playing", "x"])
        return request

    fuzz = Fuzzer(rng, valid, strings=("expert-done", "still-playing"))
    seen: Counter = Counter()
    channel = big_channel(f"127.0.0.1:{running.bots.port}")
    try:
        for n in range(1500):
            rpc = rng.choice(list(RPCS.values()))
            error, _ = call(channel, fuzz, rpc, None)
            try:
                check(error, seen)
            except AssertionError as failed:
                raise AssertionError(f"{rpc.name} (call {n}): {failed}") from None
    finally:
        channel.close()
    assert seen["OK"] > 100 and seen["INVALID_ARGUMENT"] > 300, seen


def edited_suggestions(rng: random.Random, positions, count: int):
    """``count`` Suggest requests, each observation edited one to three times."""
    for _ in range(count):
        request = suggest_request(rng, positions)
        for _ in range(rng.randint(1, 3)):
            edit_observation(rng, request.observation)
        yield request


def edited_reviews(rng: random.Random, logs: list[list[dict]], count: int):
    """``count`` Review requests, each log edited up to three times (a fifth unedited)."""
    for _ in range(count):
        request = review_request(rng, logs)
        edited = json.loads(request.log_json)
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            edit_log(rng, edited)
        request.log_json = json.dumps(edited)
        yield request


def test_positions_that_parse_but_lie_are_refused_never_crash(running: Running, positions) -> None:
    requests = edited_suggestions(random.Random(SEED + 1), positions, 3000)
    seen = answers(running.stub(bare=True).Suggest, requests)
    assert seen["OK"] > 200 and seen["INVALID_ARGUMENT"] > 1500, seen


def test_logs_that_parse_but_lie_are_refused_never_crash(running: Running, logs) -> None:
    seen = answers(
        running.stub(bare=True).Review, edited_reviews(random.Random(SEED + 2), logs, 1500)
    )
    assert seen["OK"] > 80 and seen["INVALID_ARGUMENT"] > 900, seen
