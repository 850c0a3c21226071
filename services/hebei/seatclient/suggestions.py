"""The expert's suggestion as a person reads it: how many options are shown, and each action's
label (``discard 5m``, ``pong 中``, ``pass``). ``hebei play --hints`` computes the suggestion in
its own process, the web page asks the BotService; both show it in these words.
"""

from __future__ import annotations

from hebei.rules.actions import Action, ActionKind
from hebei.seatclient.tiles import tile_label

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
