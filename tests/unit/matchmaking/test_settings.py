"""A tournament's settings: bounds refused with the field named, defaults filled in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

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


def test_the_schedule_s_defaults_and_windows() -> None:
    now = datetime(2026, 12, 7, 5, 0, tzinfo=UTC)
    plain = Settings(normalise_config(config(), now=now))
    assert plain.no_show_limit == 2 and not plain.inactive_left_out
    assert plain.scheduled_start is None and plain.check_in_window(now) is None
    assert plain.round_break is None and plain.round_time_limit is None
    scheduled = config()
    scheduled.scheduled_start.FromDatetime(now + timedelta(hours=2))
    scheduled.check_in_window.FromSeconds(900)
    scheduled.round_break.FromSeconds(0)
    scheduled.round_time_limit.FromSeconds(1800)
    scheduled.inactive_players = mm.INACTIVE_PLAYERS_LEFT_OUT
    settings = Settings(normalise_config(scheduled, now=now))
    start = now + timedelta(hours=2)
    assert settings.scheduled_start == start
    assert settings.check_in_window(now) == (start - timedelta(minutes=15), start)
    assert settings.round_break == timedelta(0)  # set: no break, but said so
    assert settings.round_time_limit == timedelta(minutes=30) and settings.inactive_left_out
    unscheduled = config()
    unscheduled.check_in_window.FromSeconds(60)
    created = now - timedelta(days=3)
    assert Settings(normalise_config(unscheduled, now=now)).check_in_window(created) == (
        created,
        None,
    )


@pytest.mark.parametrize(
    ("field", "seconds", "message"),
    [
        ("scheduled_start", 0, "config.scheduled_start must be in the future"),
        ("scheduled_start", 367 * 86400, "config.scheduled_start must be within 366 days"),
        ("check_in_window", 59, "config.check_in_window must be 60-86400 seconds, got 59"),
        ("round_break", 86401, "config.round_break must be 0-86400 seconds, got 86401"),
        ("round_time_limit", 30, "config.round_time_limit must be 60-86400 seconds, got 30"),
    ],
)
def test_schedule_bounds_name_the_field(field: str, seconds: int, message: str) -> None:
    now = datetime(2026, 12, 7, 5, 0, tzinfo=UTC)
    bad = config()
    if field == "scheduled_start":
        bad.scheduled_start.FromDatetime(now + timedelta(seconds=seconds))
    else:
        getattr(bad, field).FromSeconds(seconds)
    with pytest.raises(InvalidArgument) as refused:
        normalise_config(bad, now=now)
    assert refused.value.message == message


def test_a_timestamp_out_of_range_is_invalid_argument() -> None:
    bad = config()
    bad.scheduled_start.seconds = 10**15
    with pytest.raises(InvalidArgument, match=r"config\.scheduled_start"):
        normalise_config(bad)
