"""The fleet's policy catalogue: what a level means for a policy, and clear refusals."""

from __future__ import annotations

import pytest

from hebei.fleet.catalogue import parse_policy, resolve_level, strongest_level


def test_no_level_is_the_policys_default_level() -> None:
    assert resolve_level("expert", None) == resolve_level("expert", 0) == 3
    assert resolve_level("random", None) == 1
    assert resolve_level("expert", 4) == strongest_level("expert") == 4


def test_an_unknown_policy_or_level_names_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown policy 'genius'; known: random, efficiency"):
        resolve_level("genius", None)
    with pytest.raises(ValueError, match="policy expert has levels 1, 2, 3, 4, got 5"):
        resolve_level("expert", 5)
    with pytest.raises(ValueError, match="policy random has levels 1, got 2"):
        resolve_level("random", 2)


def test_a_policy_spec_is_a_name_and_an_optional_level() -> None:
    assert parse_policy(" expert:2 ") == ("expert", 2)
    assert parse_policy("random") == ("random", None)
    with pytest.raises(ValueError, match="level must be a number"):
        parse_policy("expert:x")
