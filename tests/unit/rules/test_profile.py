"""Rule profiles: every Decision is a field; the classic profile (RULES.md §9) differs from the
main one in exactly the fields its rules name, and keeps the main rules where §9 is silent."""

from __future__ import annotations

import dataclasses

import pytest

from hebei.rules.profile import CLASSIC, MAIN, PROFILES, RuleProfile, get_profile
from hebei.rules.scoring import system_of

# What §9 changes (and the Decisions it needed), field by field: (main, classic).
CLASSIC_CHANGES = {
    "name": ("main", "classic"),
    "reserve_tiles_per_kong": (0, 2),  # six stacks, one more per kong
    "allow_chow": (False, True),
    "one_suit_minimum": (0, 8),  # 一色够八张
    "scoring": ("additive", "doubling"),  # a pattern x2 per doubling, everyone pays
    "men_qing_allows_concealed_kong": (True, False),  # Decision: no kong of any kind
    "dealer_payment_factor": (1, 2),  # the dealer pays / receives double, once (Decision)
    "false_win_penalty": (0, 1),  # 诈胡
    "false_win_dealer_penalty": (0, 2),
    "false_win_passes_deal": (False, True),
}


def test_the_classic_profile_changes_exactly_what_section_9_says() -> None:
    changed = {
        f.name: (getattr(MAIN, f.name), getattr(CLASSIC, f.name))
        for f in dataclasses.fields(RuleProfile)
        if getattr(MAIN, f.name) != getattr(CLASSIC, f.name)
    }
    assert changed == CLASSIC_CHANGES


@pytest.mark.parametrize(
    ("field", "value"),
    [
        # §9 is silent: the main rules and their Decisions hold (list of Decisions kept).
        ("reserve_tiles", 12),
        ("reserve_odd_kong_extra", 1),  # the lone tail tile is no stack
        ("kong_allowed_on_last_draw", False),
        ("thirteen_orphans_pair_must_be_dragon", True),
        ("seven_pairs_allow_quads", True),
        ("men_qing_on_special_hands", False),
        ("dealer_stays_if_among_winners", True),
        ("kong_payments_void_on_draw", True),  # the exhaustive draw pays nothing
        ("doubling_patterns_add", False),  # Decision: the highest pattern only
        ("exposed_kong_discarder_pays", 3),  # §7 kong payments
        ("added_kong_each_pays", 1),
        ("concealed_kong_each_pays", 2),
    ],
)
def test_where_section_9_is_silent_the_classic_profile_keeps_the_main_rules(field, value):
    assert getattr(CLASSIC, field) == getattr(MAIN, field) == value


def test_profiles_by_name() -> None:
    assert PROFILES == {"main": MAIN, "classic": CLASSIC}
    assert get_profile("classic") is CLASSIC and get_profile("main") is MAIN
    with pytest.raises(ValueError, match="unknown rule profile 'nope'; known profiles: classic"):
        get_profile("nope")


@pytest.mark.parametrize("profile", PROFILES.values(), ids=lambda p: p.name)
def test_every_profile_names_a_scoring_system(profile) -> None:
    assert system_of(profile).name == profile.scoring


def test_an_unknown_scoring_system_is_refused() -> None:
    with pytest.raises(ValueError, match="names the scoring 'nope'; known: additive, doubling"):
        system_of(dataclasses.replace(MAIN, name="t", scoring="nope"))
