"""Worked examples of the classic rules (RULES.md §9), written by hand from the text: one or
more for each pattern, doubling, payment rule and Decision, through the library and
``hebei score`` (the input names ``"profile": "classic"``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hebei.rules.scoring import WinContext, request_profile, score_win, system_of
from hebei.rules.scoring.fans import CLASSIC_FANS
from tests.unit.cli.score_runner import invoke, run
from tests.unit.rules.test_scoring_examples import as_expected

DATA = Path(__file__).with_name("data") / "classic_scoring_examples.json"
EXAMPLES = json.loads(DATA.read_text(encoding="utf-8"))
IDS = [e["about"] for e in EXAMPLES]


def test_examples_cover_every_classic_item_and_illegal_hands() -> None:
    named = {fan for e in EXAMPLES if e["expect"]["legal"] for fan in e["expect"]["fans"]}
    assert named == {rule.id for rule in CLASSIC_FANS}
    assert {e["expect"]["legal"] for e in EXAMPLES} == {True, False}
    assert all(e["input"]["profile"] == "classic" for e in EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=IDS)
def test_example_through_the_library(example: dict) -> None:
    profile = request_profile(example["input"])
    scored = score_win(WinContext.from_json(example["input"], profile), profile)
    expect = example["expect"]
    if not expect["legal"]:
        assert scored is None
        return
    assert scored is not None
    assert [f.id for f in scored.fans] == expect["fans"]
    assert scored.points == expect["points"]
    assert list(scored.deltas) == expect["deltas"]
    assert sum(scored.deltas) == 0
    # The points are the pattern's times two per doubling.
    pattern, *doublings = scored.fans
    assert not pattern.doubling and all(f.doubling and f.fan == 2 for f in doublings)
    assert scored.points == pattern.fan * 2 ** len(doublings)
    assert system_of(profile).value(scored.fans, profile) == scored.points


@pytest.mark.parametrize("example", EXAMPLES, ids=IDS)
def test_example_through_the_cli(example: dict) -> None:
    out = invoke(example["input"])
    assert out.code == 0, out.stderr
    assert as_expected(out.json()) == example["expect"]


@pytest.mark.parametrize("index", [0, 1, 10, 23])
def test_example_through_the_installed_command(index: int) -> None:
    example = EXAMPLES[index]
    out = run(example["input"])
    assert out.code == 0, out.stderr
    assert out.stderr == ""
    assert as_expected(out.json()) == example["expect"]


def test_cli_lists_doublings_with_their_factor() -> None:
    out = invoke(EXAMPLES[10]["input"]).json()
    assert out == {
        "legal": True,
        "fans": [
            {"id": "long", "fan": 3},
            {"id": "qing_yi_se", "times": 2},
            {"id": "zi_mo", "times": 2},
            {"id": "men_qing", "times": 2},
        ],
        "points": 24,
        "deltas": [-48, -24, -24, 96],
    }


def test_the_profile_option_reads_an_input_without_the_key() -> None:
    example = EXAMPLES[3]
    bare = {k: v for k, v in example["input"].items() if k != "profile"}
    assert as_expected(invoke(bare, "--profile", "classic").json()) == example["expect"]
    assert invoke(bare).json()["fans"] == [{"id": "men_qing", "fan": 2}]  # main by default
