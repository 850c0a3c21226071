"""Exported and plain logs edited at random (events cut, swapped, duplicated, replaced by
non-events, fields retyped or removed, chain records broken): replaying them raises a
:class:`~hebei.rules.errors.RulesError` naming the problem, or replays the same game, and
nothing else (`hebei replay` and the bot service's reviews show that error as one line).
Seeded: a failure replays. It found a TypeError (an action's type that was a JSON object)."""

from __future__ import annotations

import copy
import random

import pytest

from hebei.rules.chain import seal
from hebei.rules.errors import RulesError
from hebei.rules.match import Match, MatchLength
from hebei.rules.players import RandomPlayer
from hebei.rules.replay import replay_log
from hebei.rules.simulate import SimulationSummary, play_match
from tests.fuzz import edit_log

KEY = b"k" * 32


@pytest.fixture(scope="module")
def logs() -> list[list[dict]]:
    match = Match(77, MatchLength(hands=2))
    play_match(match, [RandomPlayer(s) for s in range(4)], SimulationSummary())
    return [
        seal(match.log(), "match-1", KEY),
        seal(match.log(), "match-1", None),
        seal(match.hand_logs[0], "match-1", KEY),
        match.log(),
        match.hand_logs[1],
    ]


def test_edited_logs_replay_or_raise_a_rules_error(logs) -> None:
    rng = random.Random(20261205)
    outcomes = {"replayed": 0, "refused": 0}
    for n in range(3000):
        log = copy.deepcopy(rng.choice(logs))
        for _ in range(rng.randint(1, 3)):
            edit_log(rng, log)
            for record in (e.get("chain") for e in log if isinstance(e, dict)):
                if isinstance(record, dict) and record and rng.random() < 0.05:
                    record[rng.choice(list(record))] = rng.choice([None, "", "00", 1, {}])
        try:
            replay_log(log, KEY if rng.random() < 0.7 else None)
            outcomes["replayed"] += 1
        except RulesError:
            outcomes["refused"] += 1
        except Exception as exc:  # anything else is the bug this test is for
            raise AssertionError(f"edit {n}: {type(exc).__name__}: {exc}\n{log!r:.3000}") from exc
    assert outcomes["refused"] > 2500 and outcomes["replayed"] > 0, outcomes
