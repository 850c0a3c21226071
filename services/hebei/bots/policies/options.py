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
