"""Quick play's names at one table: distinct, with defaults for people who gave none."""

from __future__ import annotations

from hebei.common.validation import MAX_NAME_LENGTH
from hebei.matchmaking.quickplay import distinct_names
from hebei.matchmaking.store import PlayerRow


def people(*names: str) -> list[PlayerRow]:
    return [
        PlayerRow("", f"q-{i}", 0, name, "person", rating_id="") for i, name in enumerate(names)
    ]


def test_people_without_a_name_are_numbered():
    assert [p.name for p in distinct_names(people("", ""))] == ["Player 1", "Player 2"]


def test_a_default_skips_a_name_someone_gave():
    named = distinct_names(people("", "Player 1", ""))
    assert [p.name for p in named] == ["Player 2", "Player 1", "Player 3"]


def test_a_name_given_twice_is_told_apart():
    named = distinct_names(people("Mei", "Mei", "Mei"))
    assert [p.name for p in named] == ["Mei", "Mei 2", "Mei 3"]
    long = "x" * MAX_NAME_LENGTH
    twice = distinct_names(people(long, long))
    assert twice[1].name != twice[0].name and len(twice[1].name) <= MAX_NAME_LENGTH


def test_the_rest_of_a_player_is_kept():
    before = people("Lin", "")
    after = distinct_names(before)
    assert after[0] is before[0]
    assert after[1].player_id == before[1].player_id and after[1].name == "Player 1"
