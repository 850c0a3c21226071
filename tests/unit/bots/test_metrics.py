"""The bot fleet's metrics: the policies exported from the start are the fleet's policies."""

from __future__ import annotations

from hebei.bots.metrics import POLICY_NAMES
from hebei.bots.policies import POLICIES


def test_every_policy_is_exported_from_the_start() -> None:
    assert set(POLICY_NAMES) == set(POLICIES)
