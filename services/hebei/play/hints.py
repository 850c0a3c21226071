"""``hebei play --hints``: the expert's suggestion for the open decision, and why.

The hint is computed in this process by the same code the BotService's Suggest runs
(:func:`hebei.botservice.advice.suggest`): the expert's ranking of the legal actions with
the figures it decided on and a short reason, in the words of
:mod:`hebei.seatclient.suggestions`.
"""

from __future__ import annotations

from hebei.bots.policies import Option
from hebei.botservice.advice import suggest
from hebei.rules.views import Observation
from hebei.seatclient.suggestions import SHOWN, action_label


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
