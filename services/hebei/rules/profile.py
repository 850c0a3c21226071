"""Rule profiles: every **Decision** of RULES.md lives here, in one place.

The main ruleset (§1-§8) is :data:`MAIN`; the classic home rules of §9 are
:data:`CLASSIC`, another instance of :class:`RuleProfile`. Code never tests a
profile's name, only its fields. Where §9 is silent the classic profile keeps
the main rules (and their Decisions); the Decisions §9 needed are marked
"§9 Decision" below.
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
    # §9: one more stack (two tiles) reserved per kong made (the replacement draws).
    reserve_tiles_per_kong: int = 0
    # §2 Decision: no kong may be declared on or after drawing the last normal tile.
    kong_allowed_on_last_draw: bool = False
    # §3: chow is not allowed in the main rules; §9: chow of the previous seat's discard.
    allow_chow: bool = False
    # §4 Decision: the thirteen-orphans extra tile must be a dragon.
    thirteen_orphans_pair_must_be_dragon: bool = True
    # §4: in seven pairs, four identical tiles count as two pairs.
    seven_pairs_allow_quads: bool = True
    # §9 一色够八张: a standard hand (four sets + a pair) wins only with at least this many
    # tiles of one suit, melds included (a kong counts its four tiles); 0 = no condition.
    # Hands without a suited tile (清风), seven pairs and thirteen orphans need none.
    one_suit_minimum: int = 0
    # How a win is scored and paid (hebei.rules.scoring.systems): "additive" (§5-§6: the
    # base table plus the sum of the bonus items) or "doubling" (§9: one pattern's points,
    # x2 per doubling, paid by every other player).
    scoring: str = "additive"
    # §9 Decision (doubling scoring): a hand matching several patterns scores the highest
    # one (patterns do not add up; only 青一色 combines, as a doubling). True: the patterns
    # other than the basic 屁胡 add up.
    doubling_patterns_add: bool = False
    # §6 Decision: men_qing is not counted on seven-pairs or thirteen-orphans hands
    # (§9 Decision: nor its doubling in the classic profile).
    men_qing_on_special_hands: bool = False
    # §6: men_qing allows concealed kongs; §9 Decision: "no chow/pong/kong" means no kong
    # of any kind in the classic profile.
    men_qing_allows_concealed_kong: bool = True
    # §5 base payments.
    dealer_self_draw_each: int = 4
    nondealer_self_draw_dealer_pays: int = 4
    nondealer_self_draw_other_pays: int = 2
    dealer_wins_on_discard: int = 8
    nondealer_wins_on_dealer_discard: int = 6
    nondealer_wins_on_nondealer_discard: int = 5
    # §6 Decision: every payer of the base pays the whole bonus on top.
    every_payer_pays_whole_bonus: bool = True
    # §9 (doubling scoring): the dealer pays this many times the points when another seat
    # wins, and each seat pays it to a winning dealer. §9 Decision: applied once.
    dealer_payment_factor: int = 1
    # §7 kong payments.
    exposed_kong_discarder_pays: int = 3
    added_kong_each_pays: int = 1
    concealed_kong_each_pays: int = 2
    kong_payments_void_on_draw: bool = True  # ... and in a hand that ends without a win
    # §9 诈胡 false win: 0 = a seat may declare only a legal win. Otherwise a seat that has
    # a decision to make may declare a win it does not have: the hand ends and it pays
    # this much to each other seat (the dealer pays false_win_dealer_penalty to each).
    false_win_penalty: int = 0
    false_win_dealer_penalty: int = 0
    # §9: a dealer's false win passes the deal to the next seat.
    false_win_passes_deal: bool = False


MAIN = RuleProfile()

CLASSIC = RuleProfile(
    name="classic",
    reserve_tiles_per_kong=2,
    allow_chow=True,
    one_suit_minimum=8,
    scoring="doubling",
    men_qing_allows_concealed_kong=False,
    dealer_payment_factor=2,
    false_win_penalty=1,
    false_win_dealer_penalty=2,
    false_win_passes_deal=True,
)

PROFILES: dict[str, RuleProfile] = {MAIN.name: MAIN, CLASSIC.name: CLASSIC}


def get_profile(name: str) -> RuleProfile:
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f"unknown rule profile {name!r}; known profiles: {known}") from None
