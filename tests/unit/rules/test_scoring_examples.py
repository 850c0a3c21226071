"""The worked examples of RULES.md §4-§6 (examples/scoring.json) through the library and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hebei.rules.scoring import WinContext, score_win, win_deltas
from tests.unit.cli.score_runner import invoke, run

DATA = Path(__file__).with_name("data") / "scoring_examples.json"
SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "examples" / "scoring.json"
EXAMPLES = json.loads(DATA.read_text(encoding="utf-8"))
IDS = [e["about"] for e in EXAMPLES]


def as_expected(output: dict) -> dict:
    """The CLI lists fans as {"id", "fan"} objects; the examples list bare ids."""
    if not output["legal"]:
        return output
    return {**output, "fans": [f["id"] for f in output["fans"]]}


def test_vendored_examples_equal_the_shared_file() -> None:
    if not SHARED.exists():
        pytest.skip(f"{SHARED} is not on this machine; the vendored copy is used")
    assert json.loads(SHARED.read_text(encoding="utf-8")) == EXAMPLES


def test_examples_cover_legal_and_illegal_hands() -> None:
    assert len(EXAMPLES) >= 14
    assert {e["expect"]["legal"] for e in EXAMPLES} == {True, False}


@pytest.mark.parametrize("example", EXAMPLES, ids=IDS)
def test_example_through_the_library(example: dict) -> None:
    scored = score_win(WinContext.from_json(example["input"]))
    expect = example["expect"]
    if not expect["legal"]:
        assert scored is None
        assert win_deltas(WinContext.from_json(example["input"])) is None
        return
    assert scored is not None
    assert [f.id for f in scored.fans] == expect["fans"]
    assert scored.bonus == expect["bonus"]
    assert list(scored.deltas) == expect["deltas"]
    assert sum(scored.deltas) == 0
    assert list(win_deltas(WinContext.from_json(example["input"]))) == expect["deltas"]


@pytest.mark.parametrize("example", EXAMPLES, ids=IDS)
def test_example_through_the_cli(example: dict) -> None:
    out = invoke(example["input"])
    assert out.code == 0, out.stderr
    assert as_expected(out.json()) == example["expect"]


@pytest.mark.parametrize("index", [0, 4, 6, 11])
def test_example_through_the_installed_command(index: int) -> None:
    example = EXAMPLES[index]
    out = run(example["input"])
    assert out.code == 0, out.stderr
    assert out.stderr == ""
    assert as_expected(out.json()) == example["expect"]
