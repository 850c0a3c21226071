"""What a policy is, and the hand facts every policy reads from an observation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from hebei.bots.policies.options import Option
from hebei.rules.actions import Action
from hebei.rules.melds import MeldKind
from hebei.rules.views import Observation


class Policy(Protocol):
    """A bot's brain: picks one of ``obs.legal_actions``. Pure: no I/O, seeded randomness.

    ``rank`` lists every legal action with what the policy weighed, its choice first (a
    level that slips on purpose may play the second instead).
    """

    name: str
    level: int
    description: str  # what the policy does, one line
    level_description: str  # what this level of it does, one line

    def choose(self, obs: Observation) -> Action: ...

    def rank(self, obs: Observation) -> list[Option]: ...


@dataclass(frozen=True, slots=True)
class HandFacts:
    """One seat's own hand as policies need it."""

    counts: list[int]  # own concealed tiles (34 counts)
    n_melds: int  # declared melds (each counts as a set)
    visible: list[int]  # tiles seen outside the own hand (discards, melds)
    concealed: bool  # no pong / exposed / added kong: 门清 still possible


def hand_facts(obs: Observation) -> HandFacts:
    """The own hand of ``obs`` as counts, meld count, visible tiles and concealment."""
    melds = obs.seats[obs.seat].melds
    return HandFacts(
        counts=obs.counts(),
        n_melds=len(melds),
        visible=obs.visible(),
        concealed=all(m.kind is MeldKind.CONCEALED_KONG for m in melds),
    )
