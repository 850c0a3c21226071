"""Suggest: one policy's ranking of a checked position, with reasons."""

from __future__ import annotations

from dataclasses import dataclass

from hebei.bots.policies import POLICIES, Option, make_policy, resolve_level
from hebei.bots.policies.explain import explain
from hebei.botservice.positions import check_observation
from hebei.common.errors import InvalidArgument, NotFound
from hebei.rules.views import Observation

DEFAULT_POLICY = "expert"
MAX_POLICY_NAME = 32


@dataclass(frozen=True, slots=True)
class Advice:
    """A policy's ranking of one position: ``options`` best first, each with its reason."""

    policy: str
    level: int
    options: list[Option]


def resolve_policy(name: str, level: int) -> tuple[str, int]:
    """``(name, level)`` with the defaults filled in (empty name: the expert; level 0: the
    policy's default); NotFound for an unknown policy, InvalidArgument for a bad level."""
    name = (name or DEFAULT_POLICY).strip()
    if len(name) > MAX_POLICY_NAME:
        raise InvalidArgument(f"policy must be at most {MAX_POLICY_NAME} characters")
    if name not in POLICIES:
        raise NotFound(f"no policy {name!r}; the policies are {', '.join(POLICIES)}")
    try:
        return name, resolve_level(name, level)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None


def suggest(obs: Observation, policy: str = "", level: int = 0, seed: int = 0) -> Advice:
    """Every legal action of ``obs`` ranked by the policy, best first, with reasons."""
    name, level = resolve_policy(policy, level)
    check_observation(obs)
    ranked = make_policy(name, level, seed=seed).rank(obs)
    return Advice(name, level, explain(ranked))
