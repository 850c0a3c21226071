"""Standings, history and audit figures on a small hand-made tournament."""

from __future__ import annotations

import pytest

from hebei.common.errors import InvalidArgument
from hebei.ledger.journal import Ledger
from hebei.ledger.standings import Standing
from tests.integration.ledger.conftest import hand_settlement


@pytest.fixture
def cup(ledger: Ledger) -> Ledger:
    """Two matches: a..d at t1, then a, b, e, f at t2."""
    first = ["a", "b", "c", "d"]
    ledger.post_settlement(hand_settlement("m1", 1, first, [6, -6, 0, 0], winner=0, discarder=1))
    ledger.post_settlement(
        hand_settlement("m1", 2, first, [-3, -3, 9, -3], kong=[2, 0, -1, -1], winner=2)
    )
    ledger.post_settlement(hand_settlement("m1", 3, first, [0, 0, 0, 0]))  # exhaustive draw
    second = ["e", "a", "b", "f"]
    ledger.post_settlement(
        hand_settlement("m2", 1, second, [-4, 0, 4, 0], winner=2, discarder=0, table="t2")
    )
    ledger.post_settlement(
        hand_settlement("m2", 2, second, [0, -5, 0, 5], winner=3, discarder=1, table="t2")
    )
    return ledger


def test_standings_figures_and_tie_breaks(cup: Ledger):
    by_player = {s.player_id: s for s in cup.standings("cup")}
    assert by_player["a"] == Standing(
        rank=3, player_id="a", points=6 + (-3 + 2) + 0 + 0 - 5, hands_won=1, self_draw_wins=0,
        hands_dealt_in=1, best_match_points=5, hands_played=5, matches_played=2, kong_points=2,
    )  # fmt: skip
    assert by_player["b"].points == -6 - 3 + 0 + 4 + 0
    assert by_player["b"].hands_dealt_in == 1 and by_player["b"].hands_won == 1
    assert by_player["c"].self_draw_wins == 1 and by_player["c"].kong_points == -1
    assert by_player["e"].hands_played == 2 and by_player["e"].matches_played == 1
    ranking = [(s.rank, s.player_id) for s in cup.standings("cup")]
    # c 8, f 5, a 0, then d and e on -4 with no wins: e dealt in once, so d ranks first
    assert ranking == [(1, "c"), (2, "f"), (3, "a"), (4, "d"), (5, "e"), (6, "b")]
    assert sum(s.points for s in cup.standings("cup")) == 0
    assert cup.standings("no such cup") == []


def test_history_filters_and_pages(cup: Ledger):
    assert [e.idempotency_key for e in cup.history(table_id="t2").entries] == ["m2:2", "m2:1"]
    keys: list[str] = []
    token = ""
    while True:
        page = cup.history(player_id="a", page_size=2, page_token=token)
        keys += [entry.idempotency_key for entry in page.entries]
        assert len(page.entries) <= 2
        token = page.next_page_token
        if not token:
            break
    assert keys == ["m2:2", "m2:1", "m1:3", "m1:2", "m1:1"]
    assert [e.idempotency_key for e in cup.history(match_id="m1", player_id="c").entries] == [
        "m1:3", "m1:2", "m1:1",
    ]  # fmt: skip
    assert cup.history(player_id="nobody").entries == ()
    with pytest.raises(InvalidArgument, match="page_token"):
        cup.history(page_token="abc")
    with pytest.raises(InvalidArgument, match="page_size"):
        cup.history(page_size=-1)


def test_audit_figures(cup: Ledger):
    report = cup.audit()
    assert report.ok
    assert report.entries_checked == 5
    assert report.postings_checked == 5 * 4 + 3  # a hand posting each, kong ones when not 0
    assert report.accounts_checked == 6
    assert [(t.tournament_id, t.entries, t.total) for t in report.tournaments] == [("cup", 5, 0)]
    assert cup.audit("other").entries_checked == 0
