"""Reasons a person can read, from the figures of ranked options (:class:`Option`).

:func:`explain` gives each option of a ranking one short line: the best says why it is
chosen (the figure that decides), every other what it gives up against the best.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from hebei.bots.policies.options import Option
from hebei.rules.actions import ActionKind
from hebei.rules.tiles import TILE_NAMES

NOTABLE_DANGER = 0.15  # points: below this a tile counts as safe enough not to mention
CLOSE = 0.05  # points: options closer than this are a matter of taste


def distance(shanten: int | None) -> str:
    """``ready``, ``1 from ready``, ..."""
    if shanten is None:
        return "?"
    if shanten < 0:
        return "complete"
    return "ready" if shanten == 0 else f"{shanten} from ready"


def _tiles(option: Option) -> str:
    if option.shanten == 0:
        return f"{len(option.useful)} waits, {option.useful_unseen} live"
    return f"{option.useful_unseen} useful tiles unseen"


def _safety(option: Option) -> str:
    if option.danger is None:
        return ""
    if option.danger < NOTABLE_DANGER / 3:
        return "; safe"
    return f"; deal-in risk {option.danger:.2f} pts"


def _best_reason(option: Option) -> str:
    action = option.action
    kind = action.kind
    if kind is ActionKind.WIN:
        points = option.extras.get("win_points")
        return "win now" if points is None else f"win now: +{points:.0f} points"
    if kind is ActionKind.PASS:
        return f"pass: the hand stays {distance(option.shanten)}, {_tiles(option)}"
    if kind is ActionKind.PONG:
        then = f", then discard {TILE_NAMES[option.then.tile]}" if option.then else ""
        return f"pong: {distance(option.shanten)}, {_tiles(option)}{then}{_safety(option)}"
    if kind in (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG, ActionKind.EXPOSED_KONG):
        name = kind.value.replace("_", " ")
        return f"{name}: kong payment and a replacement draw, {distance(option.shanten)}"
    if "break_cost" in option.extras:
        return f"fold: gives up a step for the safest tile{_safety(option)}"
    points = option.extras.get("win_points")
    worth = f", a win ≈ {points:.1f} pts" if points is not None and option.shanten == 0 else ""
    if option.extras.get("ready_hands", 0.0) >= CLOSE:
        worth += ", better ready hands ahead"
    return f"{distance(option.shanten)}, {_tiles(option)}{worth}{_safety(option)}"


def _versus(option: Option, best: Option) -> str:
    """What ``option`` gives up against ``best``."""
    why = []
    if option.action.kind is ActionKind.PASS and best.action.kind is not ActionKind.PASS:
        why.append(f"passes up the {best.action.kind.value.replace('_', ' ')}")
    if option.shanten is not None and best.shanten is not None and option.shanten > best.shanten:
        why.append(f"slower ({distance(option.shanten)})")
    elif option.shanten == best.shanten and option.useful_unseen < best.useful_unseen:
        why.append(f"fewer useful tiles ({option.useful_unseen} vs {best.useful_unseen})")
    if (
        option.danger is not None
        and best.danger is not None
        and option.danger > best.danger + NOTABLE_DANGER / 3
    ):
        why.append(f"riskier (deal-in {option.danger:.2f} vs {best.danger:.2f} pts)")
    a, b = option.extras.get("win_points"), best.extras.get("win_points")
    if a is not None and b is not None and a < b - 0.5 and option.shanten == best.shanten:
        why.append(f"a win pays less ({a:.1f} vs {b:.1f})")
    a, b = option.extras.get("ready_hands"), best.extras.get("ready_hands")
    if a is not None and b is not None and a < b - CLOSE:
        why.append("poorer ready hands ahead")
    if not why:
        why.append("close call" if _gap(option, best) < CLOSE else "worse shape")
    gap = _gap(option, best)
    cost = f" (−{gap:.2f} pts)" if gap >= 0.005 else ""
    return "; ".join(why) + cost


def _gap(option: Option, best: Option) -> float:
    if option.value is None or best.value is None:
        return 0.0
    return max(0.0, best.value - option.value)


def explain(options: Sequence[Option]) -> list[Option]:
    """``options`` (ranked, best first) each with its reason filled in."""
    if not options:
        return []
    best = options[0]
    out = [dataclasses.replace(best, reason=_best_reason(best))]
    out += [dataclasses.replace(o, reason=_versus(o, best)) for o in options[1:]]
    return out
