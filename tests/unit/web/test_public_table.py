"""The spectators' table (:class:`hebei.web.public_table.PublicTable`) folds the log's events, which
hold every answer to a discard as it came: it shows only the claim the rules make (a win takes
the tile from any claim, a pong from a chow), whatever order the answers came in."""

from __future__ import annotations

import itertools

import pytest

from hebei.common import convert
from hebei.rules.views import public_event
from hebei.v1 import table_pb2
from hebei.web.public_table import PublicTable

HAND_START = {"type": "hand_start", "seed": 7, "hand_no": 0, "dealer": 0, "profile": "classic"}
DISCARD = {"type": "discard", "seat": 0, "tile": "3s"}
PONG = {"type": "pong", "seat": 2, "tile": "3s", "from": 0}
CHOW = {"type": "chow", "seat": 1, "tile": "2s", "from": 0, "claimed": "3s"}
WIN = {"type": "win", "seat": 3, "tile": "3s", "from": 0}


def table_after(*events: dict) -> PublicTable:
    info = table_pb2.MatchInfo(match_id="m1")
    info.rule_profile.name = "classic"
    for seat in range(4):
        info.seats.add(seat=seat, player_name=f"p{seat}")
    table = PublicTable(info)
    for seq, event in enumerate((HAND_START, *events), 1):
        message = convert.event_to_proto(
            public_event(event, None), seq=seq, match_id="m1", hand_no=1, time=1.0
        )
        assert message is not None
        table.apply(message)
    return table


def melds(table: PublicTable) -> list[list[str]]:
    return [[m["kind"] for m in seat["melds"]] for seat in table.state["seats"]]


def test_a_claim_alone_is_made_at_once():
    table = table_after(DISCARD, PONG)
    assert melds(table) == [[], [], ["pong"], []]
    assert table.state["seats"][0]["discards"] == []
    assert table.state["seats"][2]["concealed"] == 13 - 2
    assert table.state["current_seat"] == 2 and table.state["phase"] == "turn"


@pytest.mark.parametrize("answers", list(itertools.permutations([PONG, WIN])))
def test_a_win_on_the_discard_leaves_no_claim_made(answers):
    table = table_after(DISCARD, *answers)
    assert melds(table) == [[], [], [], []]
    assert table.state["seats"][0]["discards"] == ["3s"]  # the tile the winner took
    assert table.state["seats"][2]["concealed"] == 13


@pytest.mark.parametrize("answers", list(itertools.permutations([PONG, CHOW])))
def test_a_pong_beats_a_chow_whichever_came_first(answers):
    table = table_after(DISCARD, *answers)
    assert melds(table) == [[], [], ["pong"], []]
    assert table.state["seats"][1]["concealed"] == 13  # the chow's tiles stay in its hand
    assert table.state["seats"][0]["discards"] == []


def test_the_next_discard_opens_a_new_window():
    after_pong = {"type": "discard", "seat": 2, "tile": "9m"}
    win_on_it = {"type": "win", "seat": 3, "tile": "9m", "from": 2}
    table = table_after(DISCARD, PONG, after_pong, win_on_it)
    assert melds(table) == [[], [], ["pong"], []]  # the earlier pong stands
