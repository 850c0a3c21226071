"""Review: a seat's decisions against the expert's, from a hand or match log."""

from __future__ import annotations

import json

import pytest

from hebei.botservice.review import (
    MAX_EVENTS,
    Reviewer,
    hand_logs,
    parse_log,
    review_hands,
)
from hebei.common.errors import InvalidArgument
from tests.unit.botservice.positions import match_log

EXPERT = match_log("expert", seed=42, hands=3, level=3)
RANDOM = match_log("random", seed=42, hands=2)


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_the_expert_agrees_with_itself_everywhere(seat: int) -> None:
    review = review_hands(hand_logs(EXPERT), seat)
    assert review.hands == 3 and review.decisions > 10
    assert review.agreed == review.decisions and review.agreement == 1.0
    assert review.differences == [] and review.total_cost == 0


def test_a_random_player_shows_its_disagreements() -> None:
    review = review_hands(hand_logs(RANDOM), 2)
    assert review.decisions > 10 and review.agreement < 0.5
    assert len(review.differences) == review.decisions - review.agreed
    for d in review.differences:
        assert d.played is not d.expert and d.cost >= 0 and d.reason
        assert d.hand_no in (1, 2) and d.turn >= 1 and d.concealed
    assert review.total_cost > 1


def test_one_hand_reviews_like_the_same_hand_in_its_match() -> None:
    logs = hand_logs(RANDOM)
    alone = review_hands(hand_logs(logs[0]), 1)
    both = review_hands(logs, 1)
    assert alone.decisions <= both.decisions
    assert alone.differences == both.differences[: len(alone.differences)]


def test_the_costliest_differences_come_out_in_order_of_play() -> None:
    review = review_hands(hand_logs(RANDOM), 0)
    worst = review.worst(3)
    assert len(worst) == 3
    assert worst == sorted(worst, key=review.differences.index)
    assert min(d.cost for d in worst) >= max(d.cost for d in review.differences if d not in worst)
    body = review.to_json(3)
    assert body["truncated"] and len(body["differences"]) == 3
    assert json.loads(json.dumps(body)) == body


def test_chain_records_of_an_exported_log_are_ignored() -> None:
    signed = [{**event, "chain": {"hash": "x"}} for event in EXPERT]
    assert len(hand_logs(signed)) == 3


def tampered() -> list[dict]:
    log = json.loads(json.dumps(RANDOM))
    discard = next(e for e in log if e["type"] == "discard")
    discard["tile"] = "9z" if discard["tile"] != "7z" else "1z"
    return log


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not JSON"),
        ("{}", "non-empty JSON list"),
        ("[]", "non-empty JSON list"),
        (json.dumps([{"type": "draw"}]), "does not replay"),
        (json.dumps(RANDOM[:-3]), "does not replay"),
        (json.dumps([{"type": "hand_start"}] * (MAX_EVENTS + 1)), "at most 20,000"),
        ("[" * 1_000_000, "nested too deeply"),
    ],
    ids=["text", "object", "empty", "no-start", "cut", "too-long", "too-deep"],
)
def test_logs_that_do_not_replay_are_refused(text: str, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        parse_log(text)


def test_a_tampered_log_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="does not replay"):
        parse_log(json.dumps(tampered()))


@pytest.mark.parametrize(("seat", "level", "message"), [(4, 0, "seat"), (0, 7, "levels 1, 2, 3")])
def test_bad_seats_and_levels_are_refused(seat: int, level: int, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        Reviewer(seat, level)
