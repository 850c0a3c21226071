"""``efficiency``: the fastest way to a complete hand, nothing else.

Takes every win; discards the tile leaving the lowest shanten with the most
unseen improving tiles (visible tiles counted out); declares a kong when the
hand's shanten does not suffer; pongs only when it lowers the shanten. At a table of a
profile with chow or a one-suit minimum (RULES.md §9) it plays the same way by that profile's
distance to a legal win, chows included (:mod:`hebei.bots.policies.classic`).
"""

from __future__ import annotations

from hebei.bots.policies.analysis import (
    best_after_pong,
    candidates,
    hand_ukeire,
    kong_keeps_pace,
    without,
)
from hebei.bots.policies.base import hand_facts
from hebei.bots.policies.classic import efficiency_choose, efficiency_rank, plays_classic
from hebei.bots.policies.options import Option
from hebei.rules.actions import DISCARD, EXPOSED_KONG, PASS, PONG, WIN, Action, ActionKind
from hebei.rules.hand import Phase
from hebei.rules.shanten import discard_options, shanten, ukeire
from hebei.rules.views import Observation

KONGS = (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG)
# Tiles a kong takes from the concealed hand.
KONG_TILES = {ActionKind.CONCEALED_KONG: 4, ActionKind.EXPOSED_KONG: 3, ActionKind.ADDED_KONG: 1}


class EfficiencyPolicy:
    """Minimise shanten, maximise ukeire, take wins."""

    name = "efficiency"
    description = "the fastest hand: fewest tiles from ready, most useful tiles; no defence"

    def __init__(self, level: int = 1, seed: int = 0) -> None:
        self.level = level
        self.level_description = self.description

    def choose(self, obs: Observation) -> Action:
        """The most efficient legal action."""
        if plays_classic(obs.profile):
            return efficiency_choose(obs)
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]
        if WIN in legal:
            return WIN
        if obs.phase is Phase.TURN:
            return self._turn(obs)
        return self._claim(obs)

    def _turn(self, obs: Observation) -> Action:
        facts = hand_facts(obs)
        for action in obs.legal_actions:
            if action.kind in KONGS and kong_keeps_pace(facts.counts, facts.n_melds, action):
                return action
        return DISCARD[candidates(facts.counts, facts.n_melds, facts.visible)[0].kind]

    def _claim(self, obs: Observation) -> Action:
        if obs.claim is None or obs.phase is not Phase.CLAIMS:
            return PASS
        tile = obs.claim.tile
        facts = hand_facts(obs)
        counts, n_melds = facts.counts, facts.n_melds
        now, _ = hand_ukeire(counts, n_melds, facts.visible)
        legal = obs.legal_actions
        if EXPOSED_KONG[tile] in legal and shanten(without(counts, tile, 3), n_melds + 1) <= now:
            return EXPOSED_KONG[tile]
        if PONG[tile] in legal:
            after = best_after_pong(counts, n_melds, facts.visible, tile)
            if after.shanten < now:
                return PONG[tile]
        return PASS

    def rank(self, obs: Observation) -> list[Option]:
        """The legal actions in this policy's order (its choice first), with the shanten and
        useful tiles it decided on; it does not price points (``value`` None)."""
        if plays_classic(obs.profile):
            return efficiency_rank(obs)
        chosen = self.choose(obs) if obs.legal_actions else None
        facts = hand_facts(obs)
        options = []
        if obs.phase is Phase.TURN:
            for opt in discard_options(facts.counts, facts.n_melds, facts.visible):
                options.append(Option(DISCARD[opt.kind], opt.shanten, tuple(opt.tiles)))
        for action in obs.legal_actions:
            if action.kind is ActionKind.DISCARD:
                continue
            if action is WIN:
                options.append(Option(WIN, -1))
                continue
            counts, n_melds = facts.counts, facts.n_melds
            if action.kind is ActionKind.PONG:
                after = without(counts, action.tile, 2)
                best = discard_options(after, n_melds + 1, facts.visible)[0]
                options.append(
                    Option(action, best.shanten, tuple(best.tiles), then=DISCARD[best.kind])
                )
                continue
            if action.kind in KONG_TILES:
                removed = KONG_TILES[action.kind]
                counts = without(counts, action.tile, removed)
                n_melds += removed != 1  # an added kong turns a pong it already has
            held = ukeire(counts, n_melds, facts.visible)
            options.append(Option(action, held.shanten, tuple(held.tiles)))
        first = [o for o in options if o.action is chosen]
        return first + [o for o in options if o.action is not chosen]
