"""Event logs: JSON-serialisable, start with the seed, replay exactly, reject tampering."""

import json

import pytest

from hebei.rules.errors import ReplayError
from hebei.rules.match import Match, MatchLength
from hebei.rules.players import RandomPlayer
from hebei.rules.replay import replay_hand, replay_match
from hebei.rules.simulate import SimulationSummary, play_match


@pytest.fixture(scope="module")
def match() -> Match:
    m = Match(2024, MatchLength(hands=6))
    play_match(m, [RandomPlayer(s) for s in range(4)], SimulationSummary())
    return m


def test_every_hand_log_is_json_and_starts_with_its_seed(match):
    for log in match.hand_logs:
        assert log[0]["type"] == "hand_start" and isinstance(log[0]["seed"], int)
        assert json.loads(json.dumps(log)) == log


def test_replay_rebuilds_the_exact_state_and_settlement(match):
    for log in match.hand_logs:
        state = replay_hand(json.loads(json.dumps(log)))
        assert state.events == log
        assert state.result.settlement.to_json() == log[-1]["settlement"]


def test_replay_match_reproduces_the_scores(match):
    replayed = replay_match(json.loads(json.dumps(match.log())))
    assert replayed.scores == match.scores and replayed.hand_no == match.hand_no


def _first(log, kind):
    return next(i for i, e in enumerate(log) if e["type"] == kind)


def test_a_changed_discard_is_rejected(match):
    log = [dict(e) for e in match.hand_logs[0]]
    i = _first(log, "discard")
    log[i]["tile"] = "7z" if log[i]["tile"] != "7z" else "6z"
    with pytest.raises(ReplayError, match=f"event #{i}"):
        replay_hand(log)


def test_a_changed_draw_is_rejected(match):
    log = [dict(e) for e in match.hand_logs[0]]
    i = _first(log, "draw")
    log[i]["tile"] = "1m" if log[i]["tile"] != "1m" else "2m"
    with pytest.raises(ReplayError, match="does not match"):
        replay_hand(log)


def test_a_changed_seed_is_rejected(match):
    log = [dict(e) for e in match.hand_logs[0]]
    log[0]["seed"] += 1
    with pytest.raises(ReplayError, match="does not match"):
        replay_hand(log)


def test_a_changed_settlement_is_rejected(match):
    log = [dict(e) for e in match.hand_logs[0]]
    end = dict(log[-1])
    end["settlement"] = dict(end["settlement"], total=[1, -1, 0, 0])
    log[-1] = end
    with pytest.raises(ReplayError, match="does not match"):
        replay_hand(log)


def test_a_removed_event_is_rejected(match):
    log = [dict(e) for e in match.hand_logs[0]]
    del log[_first(log, "discard")]
    with pytest.raises(ReplayError):
        replay_hand(log)


def test_a_truncated_log_is_rejected_unless_asked_for_a_partial_replay(match):
    log = match.hand_logs[0][:20]
    with pytest.raises(ReplayError, match="goes on"):
        replay_hand(log)
    state = replay_hand(log, complete=False)
    assert not state.ended and state.events == log


@pytest.mark.parametrize(
    "log",
    [
        [],
        [{"type": "draw"}],
        [{"type": "hand_start", "seed": "x", "dealer": 0}],
        [{"type": "hand_start", "seed": 1, "dealer": 9}],
        ["junk"],
    ],
)
def test_malformed_logs_are_rejected(log):
    with pytest.raises(ReplayError):
        replay_hand(log)


def test_a_tampered_match_log_is_rejected(match):
    log = match.log()
    log[-1] = dict(log[-1], scores=[100, -100, 0, 0])
    with pytest.raises(ReplayError):
        replay_match(log)


def test_an_evaluation_match_start_replays_and_nothing_else_is_added(match):
    log = match.log()
    log[0] = dict(log[0], evaluation=True)  # the table marks a match whose seed was chosen
    assert replay_match(log).scores == match.scores
    for tampered in (dict(log[0], evaluation=False), dict(log[0], evaluation=1), dict(log[0], x=1)):
        with pytest.raises(ReplayError):
            replay_match([tampered, *log[1:]])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda log: [dict(log[0], length=8), *log[1:]], "a match length is an object"),
        (lambda log: [dict(log[0], length=[8]), *log[1:]], "a match length is an object"),
        (lambda log: [*log[:3], 7, *log[3:]], "event #3 is not an object"),
        (lambda log: [*log[:-1], "match_end"], "is not an object"),
        # an action's type that is not a string (a TypeError from the type lookup before)
        (lambda log: [*log[:3], dict(log[3], type={"discard": 1}), *log[4:]], "was not produced"),
        (lambda log: [*log[:3], dict(log[3], type=["discard"]), *log[4:]], "was not produced"),
    ],
)
def test_a_match_log_of_the_wrong_shapes_is_a_replay_error(match, change, message):
    """Found by fuzzing the bot service's reviews: these raised AttributeError from inside
    the replay (a crash of the service, a stack trace from `hebei replay`)."""
    with pytest.raises(ReplayError, match=message):
        replay_match(change(match.log()))
