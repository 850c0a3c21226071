"""`hebei bench seating`: the figures of a case, the reference local search, the table and the
command's JSON (small cases: the full grid is the benchmark's run, not a test's)."""

from __future__ import annotations

import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

from hebei.bench import seating as bench
from hebei.cli import app
from hebei.cli.bench import seating_table

SMALL = ((16, 6, "schedule"), (20, 4, "swiss+roster"))


def test_a_planned_case_against_its_bounds_and_the_reference():
    (figures,) = bench.run_bench(seed=2, cases=((20, 6, "random"),))
    assert (figures.bound_most, figures.bound_repeats) == (1, 0)
    assert figures.most_met == 2 and figures.consecutive == 0 and figures.wind_spread <= 1
    assert figures.reference_repeats is not None and figures.repeats <= figures.reference_repeats
    assert figures.mean_span is None and figures.fillers_at_a_table is None


def test_a_roster_case_reports_fillers_and_the_standings_span():
    (figures,) = bench.run_bench(seed=1, cases=((20, 4, "swiss+roster"),))
    assert figures.fillers_at_a_table == 1
    assert figures.mean_span is not None and 3 <= figures.mean_span <= 19
    assert figures.reference_repeats is None  # no reference for swiss


def test_places_share_ties_and_spans_are_place_differences():
    assert bench.places({"a": 5, "b": 1, "c": 1, "d": -2}) == {"a": 0, "b": 1.5, "c": 1.5, "d": 3}
    (seated, standings, _), *_ = bench.roster_event(8, 2, 1, churn=0.0)
    assert bench.mean_span([(seated, standings)]) == 0.0  # round 1: no standings yet


def test_the_reference_needs_one_budget():
    with pytest.raises(ValueError, match="either iterations or seconds"):
        bench.reference_search(8, 2, 1)
    with pytest.raises(ValueError, match="either iterations or seconds"):
        bench.reference_search(8, 2, 1, iterations=10, seconds=1.0)
    plan = bench.reference_search(8, 2, 1, seconds=0.01)
    assert sorted(p for t in plan[1] for p in t) == list(range(8))


def test_the_table_and_the_json(monkeypatch):
    monkeypatch.setattr(bench, "CASES", SMALL)
    result = CliRunner().invoke(app, ["bench", "seating", "--json", "--seed", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["seed"] == 3 and [c["mode"] for c in data["cases"]] == ["schedule", "swiss+roster"]
    figures = bench.run_bench(seed=3, cases=SMALL)
    console = Console(width=200, record=True)
    console.print(seating_table(figures, 3, "at equal budgets"))
    text = console.export_text()
    assert "16 × 6 × schedule" in text and "20 × 4 × swiss+roster" in text
    assert "24 / 2" in text  # 16 x 6: the lower bound on repeats and on the most meetings
