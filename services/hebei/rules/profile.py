"""Rule profiles: every **Decision** of RULES.md lives here, in one place.

The main ruleset (§1-§8) is :data:`MAIN`. A second profile (the classic home
rules of §9) will be another instance of :class:`RuleProfile`; code never tests
a profile's name, only its fields.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RuleProfile:
    name: str = "main"
    # §2 Decision: with several winners on one discard the dealer stays if the
    # dealer is one of them, else the deal passes to the seat after the dealer.
    dealer_stays_if_among_winners: bool = True
    # §2 reserve (留牌): tiles at the tail never drawn as normal draws, plus one
    # while an odd number of replacement tiles has been taken.
    reserve_tiles: int = 12
    reserve_odd_kong_extra: int = 1
    # §2 Decision: no kong may be declared on or after drawing the last normal tile.
    kong_allowed_on_last_draw: bool = False
    # §3: chow is not allowed in the main rules.
    allow_chow: bool = False
    # §4 Decision: the thirteen-orphans extra tile must be a dragon.
    thirteen_orphans_pair_must_be_dragon: bool = True
    # §4: in seven pairs, four identical tiles count as two pairs.
    seven_pairs_allow_quads: bool = True
    # §6 Decision: men_qing is not counted on seven-pairs or thirteen-orphans hands.
    men_qing_on_special_hands: bool = False
    # §5 base payments.
    dealer_self_draw_each: int = 4
    nondealer_self_draw_dealer_pays: int = 4
    nondealer_self_draw_other_pays: int = 2
    dealer_wins_on_discard: int = 8
    nondealer_wins_on_dealer_discard: int = 6
    nondealer_wins_on_nondealer_discard: int = 5
    # §6 Decision: every payer of the base pays the whole bonus on top.
    every_payer_pays_whole_bonus: bool = True
    # §7 kong payments.
    exposed_kong_discarder_pays: int = 3
    added_kong_each_pays: int = 1
    concealed_kong_each_pays: int = 2
    kong_payments_void_on_draw: bool = True


MAIN = RuleProfile()

PROFILES: dict[str, RuleProfile] = {MAIN.name: MAIN}


def get_profile(name: str) -> RuleProfile:
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f"unknown rule profile {name!r}; known profiles: {known}") from None
