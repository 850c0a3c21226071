"""When the round director wakes when no change wakes it first."""

from hebei.matchmaking.director import next_wake


def test_without_open_matches_it_sleeps_until_its_next_full_pass() -> None:
    assert next_wake(105.0, None) == 105.0


def test_with_open_matches_it_wakes_for_whichever_comes_first() -> None:
    assert next_wake(105.0, 101.0) == 101.0
    assert next_wake(100.5, 101.0) == 100.5
