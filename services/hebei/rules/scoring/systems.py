"""Scoring systems: how a profile turns the items of a reading into a value and payments.

A profile names its system in ``RuleProfile.scoring``:

* ``"additive"`` (RULES.md §5-§6): the bonus items of :data:`ALL_FANS` add up; the base
  table plus the bonus is paid by the discarder, or by all three on a self-draw.
* ``"doubling"`` (§9): one pattern of :data:`CLASSIC_FANS` gives the points, each doubling
  multiplies them by two; every other seat pays, the dealer ``dealer_payment_factor`` times.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from hebei.rules.scoring.fans import ALL_FANS, CLASSIC_FANS, FanRule
from hebei.rules.scoring.fans.base import Fan
from hebei.rules.scoring.payments import Deltas, doubled_payments, win_payments

if TYPE_CHECKING:
    from hebei.rules.profile import RuleProfile
    from hebei.rules.readings import Reading
    from hebei.rules.scoring.context import WinContext


def applied(
    table: tuple[FanRule, ...], reading: Reading, ctx: WinContext, profile: RuleProfile
) -> tuple[FanRule, ...]:
    """The items of ``table`` that score on ``reading``, after replacements (混七对 drops
    七对 and 混一色), in table order."""
    hits = [rule for rule in table if rule.applies(reading, ctx, profile)]
    replaced = {r for rule in hits for r in rule.replaces}
    return tuple(rule for rule in hits if rule.id not in replaced)


class ScoringSystem:
    """The items of a reading, their value (which picks the best reading) and payments."""

    name: ClassVar[str]
    fans: ClassVar[tuple[FanRule, ...]]
    # True: a win reports ``points`` (one figure every payer's share is made of).
    reports_points: ClassVar[bool] = False

    def items(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> tuple[Fan, ...]:
        """The scored items of ``reading``, in the order a win lists them."""
        raise NotImplementedError

    def value(self, items: tuple[Fan, ...], profile: RuleProfile) -> int:
        raise NotImplementedError

    def payments(self, ctx: WinContext, value: int, profile: RuleProfile) -> tuple[Deltas, Deltas]:
        """(base deltas, all deltas) of the win."""
        raise NotImplementedError


class AdditiveScoring(ScoringSystem):
    """§5-§6: bonus items add up, on top of the base payment table."""

    name = "additive"
    fans = ALL_FANS

    def items(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> tuple[Fan, ...]:
        found = (Fan.of(rule) for rule in applied(self.fans, reading, ctx, profile))
        return tuple(sorted(found, key=lambda f: f.id))

    def value(self, items: tuple[Fan, ...], profile: RuleProfile) -> int:
        return sum(f.fan for f in items)

    def payments(self, ctx: WinContext, value: int, profile: RuleProfile) -> tuple[Deltas, Deltas]:
        return win_payments(ctx.winner, ctx.dealer, ctx.win, ctx.discarder, value, profile)


class DoublingScoring(ScoringSystem):
    """§9: the points of one pattern (**Decision**: the highest; ``doubling_patterns_add``
    adds the patterns instead) times two per doubling. A pattern that doubles another
    (青一色) is a doubling when the hand has another pattern than the basic 屁胡."""

    name = "doubling"
    fans = CLASSIC_FANS
    reports_points = True

    def items(self, reading: Reading, ctx: WinContext, profile: RuleProfile) -> tuple[Fan, ...]:
        hits = applied(self.fans, reading, ctx, profile)
        patterns = [r for r in hits if not r.doubling]
        doublings = [Fan.of(r) for r in hits if r.doubling]
        others = [r for r in patterns if not r.basic and not r.doubles_another_pattern]
        if others:
            for rule in patterns:
                if rule.doubles_another_pattern:
                    doublings.insert(0, Fan(rule.id, 2, rule.name_zh, doubling=True))
            patterns = others
        if profile.doubling_patterns_add and len(patterns) > 1:
            chosen = [Fan.of(r) for r in patterns if not r.basic]
        else:  # the highest; among equals the first of the table
            chosen = [Fan.of(max(patterns, key=lambda r: (r.fan, -self.fans.index(r))))]
        return (*chosen, *doublings)

    def value(self, items: tuple[Fan, ...], profile: RuleProfile) -> int:
        points = sum(f.fan for f in items if not f.doubling)
        for f in items:
            if f.doubling:
                points *= f.fan
        return points

    def payments(self, ctx: WinContext, value: int, profile: RuleProfile) -> tuple[Deltas, Deltas]:
        deltas = doubled_payments(ctx.winner, ctx.dealer, value, profile)
        return deltas, deltas


SYSTEMS: dict[str, ScoringSystem] = {s.name: s for s in (AdditiveScoring(), DoublingScoring())}


def system_of(profile: RuleProfile) -> ScoringSystem:
    """The scoring system ``profile.scoring`` names."""
    try:
        return SYSTEMS[profile.scoring]
    except KeyError:
        known = ", ".join(sorted(SYSTEMS))
        raise ValueError(
            f"profile {profile.name!r} names the scoring {profile.scoring!r}; known: {known}"
        ) from None


def fans_by_id(profile: RuleProfile) -> dict[str, FanRule]:
    """The items of ``profile``'s table by id."""
    return {rule.id: rule for rule in system_of(profile).fans}
