"""The policies the bot fleet plays, as plain data: their names, levels and default levels.

What a client checks a seat's policy and level against before it queues the seat (and a
tournament its filler bots at creation), without loading the policies themselves: those live
on the worker side (:mod:`hebei.bots.policies`, whose ``POLICIES`` must name exactly these,
with these levels; a test keeps the two alike).
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_LEVEL",
    "POLICY_LEVELS",
    "POLICY_NAMES",
    "parse_policy",
    "resolve_level",
    "strongest_level",
]

# The levels each policy accepts (the strongest last).
POLICY_LEVELS: dict[str, tuple[int, ...]] = {
    "random": (1,),
    "efficiency": (1,),
    "expert": (1, 2, 3, 4),
}
POLICY_NAMES: tuple[str, ...] = tuple(POLICY_LEVELS)
# The level used when none is given (the expert's default is not its strongest: level 4
# thinks longer on close decisions).
DEFAULT_LEVEL: dict[str, int] = {"random": 1, "efficiency": 1, "expert": 3}


def strongest_level(name: str) -> int:
    """The highest level of policy ``name``."""
    return POLICY_LEVELS[name][-1]


def resolve_level(name: str, level: int | None) -> int:
    """The level ``level`` means for policy ``name`` (None or 0: its default,
    :data:`DEFAULT_LEVEL`); ValueError naming the choices for an unknown name or level."""
    if name not in POLICY_LEVELS:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(POLICY_NAMES)}")
    levels = POLICY_LEVELS[name]
    if not level:
        level = DEFAULT_LEVEL[name]
    if level not in levels:
        raise ValueError(f"policy {name} has levels {', '.join(map(str, levels))}, got {level!r}")
    return level


def parse_policy(spec: str) -> tuple[str, int | None]:
    """``"expert:2"`` -> ``("expert", 2)``; ``"efficiency"`` -> ``("efficiency", None)``."""
    name, _, level = spec.strip().partition(":")
    if not level:
        return name, None
    try:
        return name, int(level)
    except ValueError:
        raise ValueError(f"policy level must be a number, got {spec!r}") from None
