"""``expert`` (高手陪练, the sparring partner): efficiency, hand value, defence, push/fold.

Every option is priced in expected points for this hand:

    EV = P(win) x value of the win - P(deal-in) x its cost

- P(win) from shanten, ukeire and the live wall (:func:`value.win_chance`, measured);
- the value of the win from the base payment and the expected bonus fan of the
  routes still open (:mod:`hebei.bots.policies.value`): 门清 for a concealed hand,
  flushes, 碰碰胡; a ready hand, and a hand one tile from ready looking one draw ahead,
  are priced exactly instead: every live winning tile by the fan its win scores and
  what that pays under these rules (:mod:`hebei.bots.policies.waits`: the bonus paid by
  each of three payers on a self-draw), so of equally fast discards the one with the
  wider and better-paying waits wins;
- the deal-in cost of a discard from the opponents' melds and discards
  (:mod:`hebei.bots.policies.danger`).

Speed comes first (measured in duplicate play: in this game nearly every hand ends in a
win around the tenth turn, so a slower hand mostly loses the race): a discard is chosen
among the fastest ones (lowest shanten), where value and danger break the ties by EV, and
a pong that gets the hand closer is always taken (one that keeps the distance only for a
clear gain). Push/fold: with a hand two or more
tiles from ready against an opponent that looks ready (three melds, or two late in the
hand), it folds, throwing the tile that opponent is least likely to wait on (its own
discards first). Levels a person can choose:

- 1: efficiency with 门清, no defence, and now and then the second-best discard;
- 2: value routes and light defence, rare slips;
- 3: value, defence and folding, no slips.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hebei.bots.policies.analysis import (
    candidates,
    discard_shantens,
    hand_ukeire,
    kong_keeps_pace,
    without,
)
from hebei.bots.policies.base import HandFacts, hand_facts
from hebei.bots.policies.danger import Threat, deal_in_cost, threats
from hebei.bots.policies.value import (
    TYPICAL_UKEIRE,
    flush_bonus,
    peng_peng_bonus,
    win_chance,
    win_value,
)
from hebei.bots.policies.waits import ready_quality, wait_value
from hebei.rules.actions import DISCARD, EXPOSED_KONG, PASS, PONG, WIN, Action, ActionKind
from hebei.rules.hand import Phase
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.shanten import ukeire
from hebei.rules.views import Observation

KONG_PAYMENT_ODDS = 0.7  # kong payments are void in an exhaustive draw
EXPOSED_KONG_POINTS = 3  # RULES.md §7: the discarder pays 3
PONG_MARGIN = 0.5  # a pong must add at least this much EV (points)
PONG_WHEN_FASTER = True  # a pong that gets the hand closer is always taken
LOOKAHEAD = 4  # one-away discards (most ukeire first) priced by the ready hands they reach
WAIT_EXPONENT = 0.5  # how a one-away hand's EV scales with the live waits it reaches
THREAT_FLOOR = 0.6  # opponents less likely ready than this are not defended against
# Fold with a hand this many shanten away (after the discard) when an opponent is at least
# this likely to be ready.
FOLD_RULES = ((2, 0.5), (1, 0.7))


@dataclass(frozen=True, slots=True)
class ExpertLevel:
    """How much of the expert's judgement a level uses."""

    value: bool  # price the flush and 碰碰胡 routes
    defence: float  # weight of the deal-in cost (0: never defends)
    noise: float  # chance of playing the second-best discard
    slack: int = 0  # price discards up to this many shanten slower than the fastest
    fold: bool = False  # break a far hand against a likely ready opponent


LEVELS = {
    1: ExpertLevel(value=False, defence=0.0, noise=0.15),
    2: ExpertLevel(value=True, defence=0.25, noise=0.03),
    3: ExpertLevel(value=True, defence=0.5, noise=0.0, fold=True),
}


@dataclass(frozen=True, slots=True)
class _Held:
    """A 3n+1 hand being priced: concealed counts, declared melds, shanten and ukeire."""

    counts: list[int]
    n_melds: int
    melds: tuple[Meld, ...]
    concealed: bool
    shanten: int
    ukeire: int


@dataclass(slots=True)
class _Context:
    facts: HandFacts
    melds: tuple[Meld, ...]
    wall: int
    dealer: bool
    opponents: list[Threat]


class ExpertPolicy:
    """Expected-points play with value and defence; ``level`` 1-3."""

    name = "expert"

    def __init__(self, level: int = 3, seed: int = 0) -> None:
        if level not in LEVELS:
            raise ValueError(f"expert level must be one of {sorted(LEVELS)}, got {level!r}")
        self.level = level
        self.config = LEVELS[level]
        self._rng = random.Random(seed)

    def choose(self, obs: Observation) -> Action:
        """The legal action with the best expected points."""
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]
        if WIN in legal:
            return WIN
        ctx = self._context(obs)
        if obs.phase is Phase.TURN:
            return self._turn(obs, ctx)
        return self._claim(obs, ctx)

    # ------------------------------------------------------------------ pricing

    def _context(self, obs: Observation) -> _Context:
        facts = hand_facts(obs)
        return _Context(
            facts=facts,
            melds=obs.seats[obs.seat].melds,
            wall=obs.wall,
            dealer=obs.dealer == obs.seat,
            opponents=[t for t in threats(obs) if t.ready >= THREAT_FLOOR]
            if self.config.defence
            else [],
        )

    def _hand_ev(
        self,
        ctx: _Context,
        counts: list[int],
        n_melds: int,
        melds: tuple[Meld, ...],
        concealed: bool,
        sh: int,
        uke: int,
    ) -> float:
        """EV of a 3n+1 hand: P(win) x points of the win."""
        bonus = 2.0 if concealed else 0.0
        if self.config.value:
            bonus += flush_bonus(counts, melds) + peng_peng_bonus(counts, n_melds, sh)
        return win_chance(sh, uke, ctx.wall) * win_value(bonus, ctx.dealer)

    def _danger(self, ctx: _Context, kind: int) -> float:
        if not ctx.opponents:
            return 0.0
        return self.config.defence * deal_in_cost(
            kind, ctx.opponents, ctx.facts.counts, ctx.facts.visible
        )

    def _discards(
        self,
        ctx: _Context,
        counts: list[int],
        n_melds: int,
        melds: tuple[Meld, ...],
        concealed: bool,
    ) -> list[tuple[float, int]]:
        """``(EV, kind)`` of the discards worth pricing, best first.

        Pushing: the fastest discards (within the level's shanten slack), priced by win
        chance, value and danger. Folding (a far hand against a likely ready opponent):
        every discard, priced by danger alone.
        """
        scored = []
        cands = candidates(counts, n_melds, ctx.facts.visible, self.config.slack)
        if self._folding(ctx, cands[0].shanten):
            for kind in range(len(counts)):
                if counts[kind]:
                    scored.append((-self._danger(ctx, kind), kind))
        else:
            unseen = [4 - c - v for c, v in zip(counts, ctx.facts.visible, strict=True)]
            for rank, cand in enumerate(cands):
                counts[cand.kind] -= 1
                seen = list(ctx.facts.visible)
                seen[cand.kind] += 1
                try:
                    ev = self._held_ev(
                        ctx,
                        _Held(counts, n_melds, melds, concealed, cand.shanten, cand.ukeire),
                        seen,
                        unseen,
                        lookahead=rank < LOOKAHEAD,
                    )
                finally:
                    counts[cand.kind] += 1
                scored.append((ev - self._danger(ctx, cand.kind), cand.kind))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return scored

    def _held_ev(
        self,
        ctx: _Context,
        held: _Held,
        seen: list[int],
        unseen: list[int],
        lookahead: bool = True,
    ) -> float:
        """EV of the 3n+1 hand ``held``; ``seen`` counts the tiles it cannot draw, ``unseen``
        the copies that may still come.

        With the value level: a ready hand by the exact points of its live waits; a hand one
        tile from ready (``lookahead``) one draw ahead, by the win chance from its ukeire
        times the points of the ready hands its draws reach, scaled by how many live waits
        those have against a typical ready hand. Else the shanten/ukeire estimate.
        """
        counts, n_melds, melds = held.counts, held.n_melds, held.melds
        if self.config.value and held.shanten == 0:
            live, points = wait_value(counts, n_melds, melds, unseen, ctx.dealer)
            return win_chance(0, live, ctx.wall) * points
        if self.config.value and held.shanten == 1 and lookahead:
            draws = ukeire(counts, n_melds, seen).tiles
            live, points = ready_quality(counts, n_melds, melds, unseen, ctx.dealer, draws)
            shape = ((live + 1) / (TYPICAL_UKEIRE[0] + 1)) ** WAIT_EXPONENT
            return win_chance(1, held.ukeire, ctx.wall) * points * shape
        return self._hand_ev(ctx, counts, n_melds, melds, held.concealed, held.shanten, held.ukeire)

    def _folding(self, ctx: _Context, shanten_after: int) -> bool:
        """Fold when the hand is far and someone looks ready (a closer hand folds later)."""
        if not ctx.opponents or not self.config.fold:
            return False
        threat = max(t.ready for t in ctx.opponents)
        return any(shanten_after >= far and threat >= ready for far, ready in FOLD_RULES)

    def _pick(self, scored: list[tuple[float, int]]) -> tuple[float, int]:
        if len(scored) > 1 and self.config.noise and self._rng.random() < self.config.noise:
            return scored[1]
        return scored[0]

    # ------------------------------------------------------------------ decisions

    def _turn(self, obs: Observation, ctx: _Context) -> Action:
        facts = ctx.facts
        counts, n_melds = facts.counts, facts.n_melds
        for action in obs.legal_actions:
            if self._kong_worth_it(ctx, action) and kong_keeps_pace(counts, n_melds, action):
                return action
        _, kind = self._pick(self._discards(ctx, counts, n_melds, ctx.melds, facts.concealed))
        return DISCARD[kind]

    def _kong_worth_it(self, ctx: _Context, action: Action) -> bool:
        """Concealed kongs always (if they keep pace); an added kong unless its tile looks
        like another seat's win (it can be robbed)."""
        if action.kind is ActionKind.CONCEALED_KONG:
            return True
        return action.kind is ActionKind.ADDED_KONG and self._danger(ctx, action.tile) < 0.5

    def _claim(self, obs: Observation, ctx: _Context) -> Action:
        if obs.claim is None or obs.phase is not Phase.CLAIMS:
            return PASS
        tile = obs.claim.tile
        facts = ctx.facts
        counts, n_melds, visible = facts.counts, facts.n_melds, facts.visible
        sh, uke = hand_ukeire(counts, n_melds, visible)
        unseen = [4 - c - v for c, v in zip(counts, visible, strict=True)]
        held = _Held(counts, n_melds, ctx.melds, facts.concealed, sh, uke)
        best_action, best_ev = PASS, self._held_ev(ctx, held, visible, unseen)
        if ctx.opponents:
            best_ev -= min(self._danger(ctx, k) for k, c in enumerate(counts) if c)
        legal = obs.legal_actions
        if PONG[tile] in legal and not self._folding(ctx, sh):
            # Speed first: pong whenever it gets closer (declining costs more than 门清 pays),
            # or when it keeps the distance but raises the expected points.
            melds = (*ctx.melds, Meld(MeldKind.PONG, tile))
            after = without(counts, tile, 2)
            faster = min(s for _, s in discard_shantens(after, n_melds + 1)) < sh
            ev, _ = self._discards(ctx, after, n_melds + 1, melds, False)[0]
            if (faster and PONG_WHEN_FASTER) or ev > best_ev + PONG_MARGIN:
                best_action, best_ev = PONG[tile], ev
        if EXPOSED_KONG[tile] in legal:
            melds = (*ctx.melds, Meld(MeldKind.EXPOSED_KONG, tile))
            after = without(counts, tile, 3)
            ksh, kuke = hand_ukeire(after, n_melds + 1, visible)
            kong = _Held(after, n_melds + 1, melds, False, ksh, kuke)
            ev = self._held_ev(ctx, kong, visible, unseen)
            ev += KONG_PAYMENT_ODDS * EXPOSED_KONG_POINTS
            if ev > best_ev:
                best_action = EXPOSED_KONG[tile]
        return best_action
