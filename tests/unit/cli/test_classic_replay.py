"""`hebei replay` of classic hand logs (RULES.md §9): chows, classic points and doublings, and
a false win, as a user runs it (a real subprocess)."""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from hebei.rules.actions import PASS, WIN
from hebei.rules.hand import HandState
from hebei.rules.profile import CLASSIC
from hebei.rules.tiles import parse_tile
from tests.unit.table.greedy import greedy_choice

HEBEI = str(Path(sys.executable).with_name("hebei"))


def replay(tmp_path: Path, events: list[dict]) -> str:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    result = subprocess.run(
        [HEBEI, "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "300"},
    )
    assert result.returncode == 0, result.stderr
    return " ".join(result.stdout.split())  # the table wraps: compare words


def seeded_hand_with(action_at_claim: str) -> HandState:
    """A replayable classic hand (from its seed) played until the first chow is on offer;
    that seat chows, or declares a false win."""
    for seed in range(200):
        state = HandState(seed, 0, 0, CLASSIC)
        while not state.ended:
            seat = state.to_act()[0]
            chows = [a for a in state.legal_actions(seat) if a.kind.value == "chow"]
            if chows:
                if action_at_claim == "chow":
                    for other in state.to_act():
                        if other != seat:
                            state.apply(other, PASS)
                    state.apply(seat, chows[0])
                    return state
                state.apply(seat, WIN)  # a false win: a chow is not a win
                for other in state.to_act():
                    state.apply(other, PASS)
                return state
            state.apply(seat, state.auto_action(seat))
    raise AssertionError("no chow offered in 200 seeds")


def test_replay_shows_a_chow_as_its_run(tmp_path):
    state = seeded_hand_with("chow")
    while not state.ended:
        seat = state.to_act()[0]
        state.apply(seat, state.auto_action(seat))
    chow = next(e for e in state.events if e["type"] == "chow")
    base = parse_tile(chow["tile"])
    text = replay(tmp_path, state.events)
    run = "".join(str(r) for r in range(base % 9 + 1, base % 9 + 4)) + chow["tile"][-1]
    assert f"│ chow │ {run} claiming {chow['claimed']} from seat {chow['from']}" in text


def test_replay_shows_a_false_win_and_its_penalty(tmp_path):
    state = seeded_hand_with("false win")
    assert state.result.settlement.false_wins
    (seat,) = state.result.settlement.false_wins
    text = replay(tmp_path, state.events)
    assert "FALSE WIN (诈胡: no winning hand)" in text
    assert f"false win of seat {seat}" in text
    assert f"seat {seat} declared a false win (诈胡) and pays the penalty" in text


def test_replay_shows_classic_points_and_doublings(tmp_path):
    for seed in range(100):
        state = HandState(seed, seed % 4, 0, CLASSIC)
        rng = random.Random(seed)
        while not state.ended:
            seat = state.to_act()[0]
            options = state.legal_actions(seat)
            melds = len(state.melds[seat])
            state.apply(seat, greedy_choice(options, state.hands[seat], melds, rng))
        if state.result.settlement.wins:
            break
    else:
        raise AssertionError("no classic win in 100 greedy hands")
    (win,) = state.result.settlement.wins[:1]
    text = replay(tmp_path, state.events)
    assert f"= {win.points} points" in text
    assert all(f"{f.id} ×2" in text for f in win.fans if f.doubling)
