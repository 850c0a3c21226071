"""The oracle's change mode: where a level with changed settings departs, played out."""

from __future__ import annotations

import pytest

from hebei.bench.oracle import changed, parse_change, run
from hebei.bots.policies import make_policy


def test_the_oracle_plays_out_a_changed_levels_departures() -> None:
    # Half the defence weight departs from level 3 somewhere in two matches.
    decisions = run(5, 2, "change", worlds=2, first=600, change={"defence": 0.5})
    assert decisions
    for d in decisions:
        assert len(d.points) == 2 and all(len(p) == 2 for p in d.points)


def test_a_change_names_settings_of_an_expert_level() -> None:
    assert parse_change("defence=1.5,fold=0") == {"defence": 1.5, "fold": 0.0}
    policy = changed(make_policy("expert", 3), {"defence": 1.5, "fold": 0.0})
    assert policy.config.defence == 1.5 and policy.config.fold is False
    assert make_policy("expert", 3).config.defence == 2.0  # the level itself is untouched
    with pytest.raises(ValueError, match="name=value"):
        parse_change("defence")
    with pytest.raises(ValueError, match="no setting"):
        run(5, 1, "change", worlds=2, change={"defense": 1.0})
    with pytest.raises(ValueError, match="only it"):
        run(5, 1, "change", worlds=2)
    with pytest.raises(ValueError, match="changes an expert"):
        changed(make_policy("efficiency"), {"defence": 1.0})
