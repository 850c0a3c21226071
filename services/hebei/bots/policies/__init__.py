"""Bot policies, pure Python on :mod:`hebei.rules` (no grpc, no celery: benchmarked in process).

``make_policy("expert", level=2, seed=7)`` builds one; :data:`POLICIES` maps the names to the
policies and :func:`catalogue` describes every policy and level (the names and levels
themselves are plain data the fleet's clients share: :mod:`hebei.fleet.catalogue`). A policy
maps a seat's :class:`~hebei.rules.views.Observation` to one of its legal actions (``choose``)
and can say what it weighed for each of them (``rank``, see :mod:`hebei.bots.policies.options`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hebei.bots.policies.base import Policy
from hebei.bots.policies.efficiency import EfficiencyPolicy
from hebei.bots.policies.expert import ExpertPolicy
from hebei.bots.policies.options import Option
from hebei.bots.policies.random_legal import RandomPolicy
from hebei.fleet.catalogue import (
    DEFAULT_LEVEL,
    POLICY_LEVELS,
    parse_policy,
    resolve_level,
    strongest_level,
)

__all__ = [
    "DEFAULT_LEVEL",
    "POLICIES",
    "POLICY_LEVELS",
    "EfficiencyPolicy",
    "ExpertPolicy",
    "Option",
    "Policy",
    "PolicyInfo",
    "RandomPolicy",
    "catalogue",
    "make_policy",
    "parse_policy",
    "resolve_level",
    "strongest_level",
]

# One policy per name of the catalogue, in its order, with its levels (a test checks it).
POLICIES: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "efficiency": EfficiencyPolicy,
    "expert": ExpertPolicy,
}


def make_policy(name: str, level: int | None = None, seed: int = 0) -> Policy:
    """The policy ``name`` at ``level`` (None or 0: its default level, :data:`DEFAULT_LEVEL`),
    randomness from ``seed``.

    Raises ValueError naming the choices for an unknown name or level.
    """
    level = resolve_level(name, level)
    return POLICIES[name](level=level, seed=seed)


@dataclass(frozen=True, slots=True)
class PolicyInfo:
    """One policy for a menu: its name, what it does, and each level's one-line description."""

    name: str
    description: str
    levels: tuple[tuple[int, str], ...]
    default_level: int


def catalogue() -> list[PolicyInfo]:
    """Every policy and level, described in one line each."""
    out = []
    for name, levels in POLICY_LEVELS.items():
        described = tuple((lv, make_policy(name, lv).level_description) for lv in levels)
        out.append(PolicyInfo(name, POLICIES[name].description, described, DEFAULT_LEVEL[name]))
    return out
