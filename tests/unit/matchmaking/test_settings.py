"""A tournament's settings: bounds refused with the field named, defaults filled in."""

from __future__ import annotations

import pytest

from hebei.common.errors import InvalidArgument
from hebei.matchmaking.settings import DEFAULT_HANDS, Settings, normalise_config
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb


def config(**fields) -> mm.TournamentConfig:
    base = mm.TournamentConfig(name="Spring cup", rounds=4)
    for key, value in fields.items():
        if isinstance(value, (pb.MatchLength, pb.TimeControl, pb.RuleProfile)):
            getattr(base, key).CopyFrom(value)
        elif isinstance(value, list):
            getattr(base, key).extend(value)
        else:
            setattr(base, key, value)
    return base


def test_defaults_are_filled_in() -> None:
    normal = normalise_config(config())
    settings = Settings(normal)
    assert normal.rule_profile.name == "main"
    assert normal.length.hands == DEFAULT_HANDS
    assert settings.mode == "swiss"
    assert settings.tie_breaks == ("hands_won", "best_match", "seed_draw")
    assert normal.seed != 0
    assert settings.filler == ("expert", 3)
    assert settings.stall_seconds == 600 and settings.replace_absent_seconds == 30
    assert not settings.fixed_replacement and settings.placement_points == ()


def test_the_seed_draw_is_appended_to_a_chain() -> None:
    normal = normalise_config(config(tie_breaks=[mm.TIE_BREAK_FEWER_DEALT_IN]))
    assert Settings(normal).tie_breaks == ("fewer_dealt_in", "seed_draw")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": ""}, "config.name is required"),
        ({"name": "x" * 65}, "config.name must be at most 64"),
        ({"name": "a\x00b"}, "NUL"),
        ({"name": "a\nb"}, "control characters"),
        ({"rounds": 0}, "config.rounds must be 1-64"),
        ({"rounds": 65}, "config.rounds must be 1-64"),
        ({"length": pb.MatchLength(hands=2**31 - 1)}, "config.length.hands must be 1-64"),
        ({"length": pb.MatchLength(hands=-1)}, "config.length.hands must be 1-64"),
        ({"rule_profile": pb.RuleProfile(name="nope")}, "unknown rule profile"),
        ({"filler_bot_policy": "genius"}, "unknown policy"),
        ({"filler_bot_policy": "expert", "filler_bot_level": 9}, "levels"),
        ({"max_players": 5000}, "config.max_players must be 0-4096"),
        ({"seating": 99}, "unknown seating mode"),
        ({"last_registration_round": 5}, "config.last_registration_round must be 0-4"),
        ({"placement_points": [10, -10]}, "four values"),
        ({"placement_points": [10, 5, 0, 0]}, "sum to zero"),
        ({"tie_breaks": [mm.TIE_BREAK_HANDS_WON, mm.TIE_BREAK_HANDS_WON]}, "listed twice"),
        ({"tie_breaks": [mm.TIE_BREAK_SEED_DRAW, mm.TIE_BREAK_HANDS_WON]}, "comes last"),
        ({"replaced_match_points": 10**7}, "replaced_match_points must be"),
    ],
)
def test_bad_settings_are_refused(fields, message) -> None:
    with pytest.raises(InvalidArgument, match=message):
        normalise_config(config(**fields))


@pytest.mark.parametrize(
    ("seconds", "nanos", "message"),
    [
        (10**12, 0, "per_decision must be 0-300"),
        (1, 2_000_000_000, "not a valid duration"),
        (0, 50_000_000, "at least 0.1 s"),
        (-1, 0, "per_decision must be 0-300"),
    ],
)
def test_bad_time_controls_are_refused(seconds, nanos, message) -> None:
    control = pb.TimeControl()
    control.per_decision.seconds = seconds
    control.per_decision.nanos = nanos
    with pytest.raises(InvalidArgument, match=message):
        normalise_config(config(time_control=control))


def test_the_claim_window_is_bounded_and_kept() -> None:
    control = pb.TimeControl()
    control.claim_window.FromMilliseconds(1500)
    assert normalise_config(config(time_control=control)).time_control.claim_window == (
        control.claim_window
    )
    control.claim_window.FromMilliseconds(5001)
    with pytest.raises(InvalidArgument, match=r"config\.time_control\.claim_window must be 0-5"):
        normalise_config(config(time_control=control))


def test_durations_are_bounded() -> None:
    cfg = config()
    cfg.stall_timeout.seconds = 5
    with pytest.raises(InvalidArgument, match=r"config\.stall_timeout must be 10-86400"):
        normalise_config(cfg)


def test_the_registration_code_is_bounded_and_kept() -> None:
    assert normalise_config(config()).registration_code == ""
    assert normalise_config(config(registration_code="x" * 64)).registration_code == "x" * 64
    assert normalise_config(config(registration_code="Spring-2026!")).registration_code == (
        "Spring-2026!"
    )
    for bad, message in (
        ("x" * 65, "config.registration_code must be at most 64 characters, got 65"),
        ("two words", "config.registration_code must be printable characters without spaces"),
        ("nul\x00", "config.registration_code must be printable characters without spaces"),
        ("line\nbreak", "config.registration_code must be printable characters without spaces"),
    ):
        with pytest.raises(InvalidArgument) as caught:
            normalise_config(config(registration_code=bad))
        assert str(caught.value) == message
