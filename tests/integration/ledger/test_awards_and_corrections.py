"""Awards (points given from the tournament's account) and a referee's corrections of a match
result (points moved among its players): new entries, zero-sum, counted in the standings in
columns of their own, a correction in its match's total, an award never; cancelled by a
reversal; hidden tournaments refuse anonymous reads."""

from __future__ import annotations

import pytest

from hebei.common.errors import InvalidArgument, PermissionDenied
from hebei.ledger import TOURNAMENT_ACCOUNT
from hebei.ledger.journal import Ledger
from tests.integration.ledger.conftest import hand_settlement
from tests.integration.ledger.test_adjustments import adjustment

T = TOURNAMENT_ACCOUNT


@pytest.fixture
def cup(ledger: Ledger) -> Ledger:
    """One match m1: a 6, b -6, c 0, d 0."""
    players = ["a", "b", "c", "d"]
    ledger.post_settlement(hand_settlement("m1", 1, players, [6, -6, 0, 0], winner=0, discarder=1))
    return ledger


def _rows(ledger: Ledger) -> dict:
    return {s.player_id: s for s in ledger.standings("cup")}


def test_an_award_and_a_correction_count_in_their_own_columns(cup: Ledger):
    cup.post_adjustment(adjustment("award:1", "AWARD", {"c": 10, T: -10}))
    fixed = cup.post_adjustment(
        adjustment("correction:1", "CORRECTION", {"a": -4, "b": 4}, match_id="m1")
    )
    rows = _rows(cup)
    assert (rows["c"].points, rows["c"].award_points, rows["c"].best_match_points) == (10, 10, 0)
    assert (rows["a"].points, rows["a"].correction_points, rows["a"].best_match_points) == (
        2, -4, 2,
    )  # fmt: skip
    assert (rows["b"].points, rows["b"].correction_points) == (-2, 4)
    cup.cancel_adjustment(fixed.entry_id, "appeal upheld", "cancel:correction:1")
    rows = _rows(cup)
    assert (rows["a"].points, rows["a"].correction_points) == (6, 0)
    assert cup.audit("cup").ok


@pytest.mark.parametrize(
    ("kind", "lines", "fields", "words"),
    [
        ("AWARD", {"c": -10, T: 10}, {}, "an award gives points"),
        ("AWARD", {"c": 10, "d": -10}, {}, "no line"),
        ("CORRECTION", {"a": -4, "b": 4}, {}, "belongs to a match"),
        ("CORRECTION", {"a": -4, T: 4}, {"match_id": "m1"}, "without"),
        ("CORRECTION", {"a": -4, "b": 3}, {"match_id": "m1"}, "unbalanced"),
    ],
)
def test_awards_and_corrections_keep_their_shapes(cup: Ledger, kind, lines, fields, words):
    with pytest.raises(InvalidArgument, match=words):
        cup.post_adjustment(adjustment(f"{kind}:bad", kind, lines, **fields))


def test_hidden_results_refuse_public_reads_only(cup: Ledger):
    cup.set_results_hidden("cup", True)
    cup.set_results_hidden("cup", True)  # idempotent
    with pytest.raises(PermissionDenied):
        cup.standings("cup", public=True)
    assert cup.standings("cup")  # a token holder
    assert not cup.history(tournament_id="cup", public=True).entries
    assert not cup.history(player_id="a", public=True).entries
    assert cup.history(player_id="a").entries
    cup.set_results_hidden("cup", False)
    assert cup.standings("cup", public=True)
    assert cup.history(player_id="a", public=True).entries
