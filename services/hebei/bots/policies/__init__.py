"""Bot policies, pure Python on :mod:`hebei.rules` (no grpc, no celery: benchmarked in process).

``make_policy("expert", level=2, seed=7)`` builds one; :data:`POLICIES` lists the names and
:func:`catalogue` describes every policy and level. A policy maps a seat's
:class:`~hebei.rules.views.Observation` to one of its legal actions (``choose``) and can say
what it weighed for each of them (``rank``, see :mod:`hebei.bots.policies.options`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hebei.bots.policies.base import Policy
from hebei.bots.policies.efficiency import EfficiencyPolicy
from hebei.bots.policies.expert import DEFAULT_LEVEL as EXPERT_DEFAULT_LEVEL
from hebei.bots.policies.expert import LEVELS as EXPERT_LEVELS
from hebei.bots.policies.expert import ExpertPolicy
from hebei.bots.policies.options import Option
from hebei.bots.policies.random_legal import RandomPolicy

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

POLICIES: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "efficiency": EfficiencyPolicy,
    "expert": ExpertPolicy,
}
# The levels each policy accepts (the strongest last).
POLICY_LEVELS: dict[str, tuple[int, ...]] = {
    "random": (1,),
    "efficiency": (1,),
    "expert": tuple(sorted(EXPERT_LEVELS)),
}
# The level used when none is given (the expert's default is not its strongest: level 4
# thinks longer on close decisions).
DEFAULT_LEVEL: dict[str, int] = {"random": 1, "efficiency": 1, "expert": EXPERT_DEFAULT_LEVEL}


def strongest_level(name: str) -> int:
    """The highest level of policy ``name``."""
    return POLICY_LEVELS[name][-1]


def make_policy(name: str, level: int | None = None, seed: int = 0) -> Policy:
    """The policy ``name`` at ``level`` (None or 0: its default level, :data:`DEFAULT_LEVEL`),
    randomness from ``seed``.

    Raises ValueError naming the choices for an unknown name or level.
    """
    level = resolve_level(name, level)
    return POLICIES[name](level=level, seed=seed)


def resolve_level(name: str, level: int | None) -> int:
    """The level ``level`` means for policy ``name`` (None or 0: its default,
    :data:`DEFAULT_LEVEL`); ValueError naming the choices for an unknown name or level."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(POLICIES)}")
    levels = POLICY_LEVELS[name]
    if not level:
        level = DEFAULT_LEVEL[name]
    if level not in levels:
        raise ValueError(f"policy {name} has levels {', '.join(map(str, levels))}, got {level!r}")
    return level


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


def parse_policy(spec: str) -> tuple[str, int | None]:
    """``"expert:2"`` -> ``("expert", 2)``; ``"efficiency"`` -> ``("efficiency", None)``."""
    name, _, level = spec.strip().partition(":")
    if not level:
        return name, None
    try:
        return name, int(level)
    except ValueError:
        raise ValueError(f"policy level must be a number, got {spec!r}") from None
