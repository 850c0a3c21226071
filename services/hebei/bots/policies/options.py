"""What a policy weighed for each legal action: the figures a person can check, and a reason.

Every policy ranks the legal actions of an observation (:meth:`rank`): a list of
:class:`Option`, best first, whose first entry is what :meth:`choose` plays (unless a level
slips on purpose). The BotService's Suggest and Review read these.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hebei.rules.actions import Action
from hebei.rules.tiles import TILE_NAMES


@dataclass(frozen=True, slots=True)
class Option:
    """One legal action as a policy sees it.

    ``shanten`` and ``useful`` describe the hand the action leaves (for a pong: after its
    best discard; a win ends the hand: shanten -1); ``danger`` is the expected points lost
    to a deal-in by the tile it throws; ``value`` the policy's expected points for the rest
    of the hand (None when the policy does not price in points).
    """

    action: Action
    shanten: int | None = None
    useful: tuple[tuple[int, int], ...] = ()  # (kind, copies unseen) that improve the hand
    danger: float | None = None
    value: float | None = None
    reason: str = ""
    then: Action | None = None  # for a pong or a claim: the discard it plans next
    extras: dict[str, float] = field(default_factory=dict)  # e.g. win points, P(win)

    @property
    def useful_unseen(self) -> int:
        return sum(n for _, n in self.useful)

    def useful_text(self) -> str:
        """The useful tiles as ``3m4m7p (9 unseen)``."""
        if not self.useful:
            return "-"
        kinds = "".join(TILE_NAMES[k] for k, _ in self.useful)
        return f"{kinds} ({self.useful_unseen} unseen)"


_new = object.__new__
# The slots' own setters (a frozen dataclass's __init__ goes through object.__setattr__).
_set_action, _set_shanten, _set_useful, _set_danger = (
    Option.action.__set__,
    Option.shanten.__set__,
    Option.useful.__set__,
    Option.danger.__set__,
)
_set_value, _set_reason, _set_then, _set_extras = (
    Option.value.__set__,
    Option.reason.__set__,
    Option.then.__set__,
    Option.extras.__set__,
)


def make_option(
    action: Action,
    shanten: int | None,
    useful: tuple[tuple[int, int], ...],
    danger: float | None,
    value: float | None,
    reason: str,
    then: Action | None,
    extras: dict[str, float],
) -> Option:
    """``Option(action, shanten, useful, danger, value, reason, then, extras)``, every field
    given: the same frozen instance without the generated ``__init__``'s
    ``object.__setattr__`` call per field (half the cost; the expert builds ten a decision)."""
    o = _new(Option)
    _set_action(o, action)
    _set_shanten(o, shanten)
    _set_useful(o, useful)
    _set_danger(o, danger)
    _set_value(o, value)
    _set_reason(o, reason)
    _set_then(o, then)
    _set_extras(o, extras)
    return o
