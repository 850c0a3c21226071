"""The BotService over a real gRPC server: policies, suggestions, reviews, and refusals."""

from __future__ import annotations

import json

import grpc
import pytest

from hebei.common import convert
from hebei.v1 import bot_pb2
from tests.integration.botservice.conftest import Running
from tests.unit.botservice.positions import random_positions

POSITIONS = random_positions(25, seed=17)


def test_list_policies_describes_every_level(running: Running) -> None:
    reply = running.stub().ListPolicies(bot_pb2.ListPoliciesRequest())
    names = [p.name for p in reply.policies]
    assert names == ["random", "efficiency", "expert"]
    expert = reply.policies[2]
    assert [lv.level for lv in expert.levels] == [1, 2, 3, 4] and expert.default_level == 3
    assert all(p.description and all(lv.description for lv in p.levels) for p in reply.policies)


@pytest.mark.parametrize(("policy", "level"), [("expert", 3), ("expert", 1), ("efficiency", 0)])
def test_suggest_ranks_only_the_legal_actions(running: Running, policy: str, level: int) -> None:
    stub = running.stub()
    for obs in POSITIONS:
        request = bot_pb2.SuggestRequest(
            observation=convert.observation_to_proto(obs, decision_id=1),
            policy=policy,
            level=level,
        )
        reply = stub.Suggest(request)
        actions = [convert.action_from_proto(s.action) for s in reply.suggestions]
        assert sorted(actions, key=str) == sorted(obs.legal_actions, key=str)
        assert [s.rank for s in reply.suggestions] == list(range(1, len(actions) + 1))
        assert all(s.reason for s in reply.suggestions)
        if policy == "expert" and level == 3:
            values = [s.expected_value for s in reply.suggestions if s.action.kind != 2]
            assert values == sorted(values, reverse=True)  # wins aside, best first
            assert all(s.HasField("danger") for s in reply.suggestions if s.action.kind == 1)


def _code(call) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value.code(), caught.value.details()


def test_bad_suggestions_are_refused_clearly(running: Running) -> None:
    stub = running.stub()
    good = convert.observation_to_proto(POSITIONS[0], decision_id=1)
    code, details = _code(
        lambda: stub.Suggest(bot_pb2.SuggestRequest(observation=good, policy="genius"))
    )
    assert code == grpc.StatusCode.NOT_FOUND and "no policy 'genius'" in details
    code, details = _code(lambda: stub.Suggest(bot_pb2.SuggestRequest(observation=good, level=9)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "levels 1, 2, 3" in details
    code, details = _code(lambda: stub.Suggest(bot_pb2.SuggestRequest()))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "observation is required" in details
    three_seats = bot_pb2.SuggestRequest(observation=good)
    del three_seats.observation.seats[3]
    code, details = _code(lambda: stub.Suggest(three_seats))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "four seats" in details
    short = bot_pb2.SuggestRequest(observation=good)
    del short.observation.concealed[0]
    code, details = _code(lambda: stub.Suggest(short))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "concealed tiles" in details


def test_review_of_an_inline_log(running: Running) -> None:
    stub = running.stub(bare=True)
    expert = stub.Review(
        bot_pb2.ReviewRequest(log_json=json.dumps(running.logs["expert-done"]), seat=2)
    )
    assert expert.agreement == 1.0 and not expert.differences and expert.hands == 2
    random = stub.Review(
        bot_pb2.ReviewRequest(
            log_json=json.dumps(running.logs["random-done"]), seat=1, max_differences=4
        )
    )
    assert random.agreement < 0.5 and len(random.differences) == 4 and random.truncated
    worst = random.differences[0]
    assert worst.cost >= 0 and worst.reason and worst.concealed
    assert convert.action_from_proto(worst.played) != convert.action_from_proto(worst.expert)


def test_review_of_a_finished_match_by_id(running: Running) -> None:
    stub = running.stub()
    by_id = stub.Review(bot_pb2.ReviewRequest(match_id="random-done", seat=1))
    inline = stub.Review(
        bot_pb2.ReviewRequest(log_json=json.dumps(running.logs["random-done"]), seat=1)
    )
    assert by_id.decisions == inline.decisions and by_id.agreed == inline.agreed
    assert by_id.total_cost == pytest.approx(inline.total_cost)
    expert = stub.Review(bot_pb2.ReviewRequest(match_id="expert-done", seat=0))
    assert expert.agreement == 1.0


@pytest.mark.parametrize(
    ("request_", "bare", "code", "words"),
    [
        (bot_pb2.ReviewRequest(log_json="[1, 2", seat=0), False, "INVALID_ARGUMENT", "not JSON"),
        (
            bot_pb2.ReviewRequest(log_json='[{"type": "draw"}]', seat=0),
            False, "INVALID_ARGUMENT", "does not replay",
        ),
        (bot_pb2.ReviewRequest(match_id="x", seat=5), False, "INVALID_ARGUMENT", "seat"),
        (bot_pb2.ReviewRequest(seat=0), False, "INVALID_ARGUMENT", "log_json or match_id"),
        (bot_pb2.ReviewRequest(match_id="nope", seat=0), False, "NOT_FOUND", "no match 'nope'"),
        (
            bot_pb2.ReviewRequest(match_id="still-playing", seat=0),
            False, "FAILED_PRECONDITION", "has not ended",
        ),
        (
            bot_pb2.ReviewRequest(match_id="random-done", seat=0),
            True, "UNAVAILABLE", "no table engine",
        ),
        (
            bot_pb2.ReviewRequest(match_id="random-done", seat=0, max_differences=5000),
            False, "INVALID_ARGUMENT", "max_differences",
        ),
    ],
    ids=["json", "replay", "seat", "source", "unknown", "playing", "no-engine", "limit"],
)  # fmt: skip
def test_bad_reviews_are_refused_clearly(
    running: Running, request_: bot_pb2.ReviewRequest, bare: bool, code: str, words: str
) -> None:
    status, details = _code(lambda: running.stub(bare=bare).Review(request_))
    assert status == getattr(grpc.StatusCode, code) and words in details
