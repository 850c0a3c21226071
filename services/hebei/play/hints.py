"""``hebei play --hints``: the expert's suggestion for the open decision, and why.

The hint is computed in this process by the same code the BotService's Suggest runs
(:func:`hebei.botservice.advice.suggest`): the expert's ranking of the legal actions with
the figures it decided on and a short reason.
"""

from __future__ import annotations

from hebei.bots.policies import Option
from hebei.botservice.advice import suggest
from hebei.play.tiles import tile_label
from hebei.rules.actions import Action, ActionKind
from hebei.rules.views import Observation

SHOWN = 3  # the expert's choice and the next two

_NAMES = {
    ActionKind.WIN: "win 胡",
    ActionKind.PASS: "pass",
    ActionKind.PONG: "pong",
    ActionKind.EXPOSED_KONG: "kong",
    ActionKind.CONCEALED_KONG: "concealed kong",
    ActionKind.ADDED_KONG: "added kong",
    ActionKind.CHOW: "chow",
}


def action_label(action: Action) -> str:
    """``discard 5m``, ``pong 中``, ``pass``."""
    if action.kind is ActionKind.DISCARD:
        return f"discard {tile_label(action.tile)}"
    name = _NAMES.get(action.kind, action.kind.value.replace("_", " "))
    return (
        name
        if action.tile is None or action.kind is ActionKind.WIN
        else f"{name} {tile_label(action.tile)}"
    )


def _figures(option: Option) -> str:
    parts = []
    if option.value is not None:
        parts.append(f"EV {option.value:+.2f}")
    if option.danger is not None:
        parts.append(f"danger {option.danger:.2f}")
    return f" [{', '.join(parts)}]" if parts else ""


def hint_lines(view: Observation, level: int = 0) -> list[str]:
    """The expert's choice for ``view`` and the next options, one line each with the reason."""
    advice = suggest(view, "expert", level)
    options = advice.options[:SHOWN]
    if not options:
        return ["Nothing to decide."]
    best = options[0]
    lines = [
        f"Expert {advice.level} suggests: {action_label(best.action)} — {best.reason}{_figures(best)}"
    ]
    for option in options[1:]:
        lines.append(f"  or {action_label(option.action)}: {option.reason}{_figures(option)}")
    return lines
