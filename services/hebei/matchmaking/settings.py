"""A tournament's settings: the TournamentConfig a client sends, checked and completed.

:func:`normalise_config` refuses out-of-range values with InvalidArgument and fills in every
default, so the stored config says exactly what the tournament plays; :class:`Settings` reads
it in plain Python terms (seconds, mode names, the tie-break chain).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hebei.common.errors import InvalidArgument
from hebei.common.validation import MAX_NAME_LENGTH, check_int, check_text
from hebei.fleet.catalogue import resolve_level
from hebei.rules.profile import get_profile
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb

__all__ = [
    "DEFAULT_HANDS",
    "DEFAULT_MAX_PLAYERS",
    "DEFAULT_TIE_BREAKS",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "MIN_REGISTRATION_CODE",
    "SEATING_MODES",
    "Settings",
    "check_match_length",
    "check_policy",
    "check_registration_code",
    "check_time_control",
    "normalise_config",
]

MAX_ROUNDS = 64
MAX_PLAYERS = 4096
# max_players 0: people registering themselves (no operator token) stop at this many entrants;
# the operator registers up to MAX_PLAYERS.
DEFAULT_MAX_PLAYERS = 256
MAX_HANDS = 64
MAX_POINTS = 1_000_000
DEFAULT_HANDS = 8
DEFAULT_FILLER_POLICY = "expert"
DEFAULT_STALL_SECONDS = 600.0
DEFAULT_REPLACE_ABSENT_SECONDS = 30.0
MAX_PER_DECISION_SECONDS = 300.0
MAX_TIME_BANK_SECONDS = 3600.0
MAX_CLAIM_WINDOW_SECONDS = 5.0
MAX_REGISTRATION_CODE = 64
MIN_REGISTRATION_CODE = 8  # a new tournament's code (see hebei.matchmaking.registration)
MAX_SCHEDULE_DAYS = 366
DEFAULT_NO_SHOW_LIMIT = 2
MAX_NO_SHOW_LIMIT = 64

SEATING_MODES = {
    mm.SEATING_MODE_SWISS: "swiss",
    mm.SEATING_MODE_RANDOM: "random",
    mm.SEATING_MODE_SCHEDULE: "schedule",
    mm.SEATING_MODE_DUPLICATE: "duplicate",
}
TIE_BREAK_NAMES = {
    mm.TIE_BREAK_HANDS_WON: "hands_won",
    mm.TIE_BREAK_BEST_MATCH: "best_match",
    mm.TIE_BREAK_FEWER_DEALT_IN: "fewer_dealt_in",
    mm.TIE_BREAK_SELF_DRAWS: "self_draws",
    mm.TIE_BREAK_SEED_DRAW: "seed_draw",
}
DEFAULT_TIE_BREAKS = (mm.TIE_BREAK_HANDS_WON, mm.TIE_BREAK_BEST_MATCH, mm.TIE_BREAK_SEED_DRAW)


def _seconds(duration) -> float:
    return duration.seconds + duration.nanos / 1e9


def _check_duration(field: str, duration, *, lo: float, hi: float) -> float:
    if not -999_999_999 <= duration.nanos <= 999_999_999 or (
        duration.seconds and duration.nanos and (duration.seconds > 0) != (duration.nanos > 0)
    ):
        raise InvalidArgument(f"{field} is not a valid duration")
    if not lo <= duration.seconds <= hi:  # before the float sum, which could overflow
        raise InvalidArgument(f"{field} must be {lo:g}-{hi:g} seconds, got {duration.seconds}")
    value = _seconds(duration)
    if not lo <= value <= hi:
        raise InvalidArgument(f"{field} must be {lo:g}-{hi:g} seconds, got {value:g}")
    return value


def check_match_length(length: pb.MatchLength, field: str = "length") -> pb.MatchLength:
    """A bounded match length (unset: :data:`DEFAULT_HANDS` hands)."""
    which = length.WhichOneof("length")
    if which is None:
        return pb.MatchLength(hands=DEFAULT_HANDS)
    if which == "hands":
        check_int(f"{field}.hands", length.hands, lo=1, hi=MAX_HANDS)
        return pb.MatchLength(hands=length.hands)
    rounds = length.wind_rounds
    check_int(f"{field}.wind_rounds.rounds", rounds.rounds, lo=0, hi=1)
    check_int(f"{field}.wind_rounds.max_hands", rounds.max_hands, lo=0, hi=MAX_HANDS)
    return pb.MatchLength(wind_rounds=pb.WindRounds(rounds=1, max_hands=rounds.max_hands or 16))


def check_time_control(control: pb.TimeControl, field: str = "time_control") -> pb.TimeControl:
    """A bounded time control (zero: the engine's defaults per seat kind)."""
    per = _check_duration(
        f"{field}.per_decision", control.per_decision, lo=0, hi=MAX_PER_DECISION_SECONDS
    )
    bank = _check_duration(f"{field}.time_bank", control.time_bank, lo=0, hi=MAX_TIME_BANK_SECONDS)
    if bank and not per:
        raise InvalidArgument(f"{field}.per_decision is required with a time bank")
    if per and per < 0.1:
        raise InvalidArgument(f"{field}.per_decision must be at least 0.1 s, got {per:g}")
    _check_duration(
        f"{field}.claim_window", control.claim_window, lo=0, hi=MAX_CLAIM_WINDOW_SECONDS
    )
    out = pb.TimeControl()
    out.CopyFrom(control)
    return out


def check_policy(field: str, policy: str, level: int) -> tuple[str, int]:
    """A bot policy and level the fleet plays (empty policy: :data:`DEFAULT_FILLER_POLICY`,
    level 0: the policy's default level)."""
    policy = check_text(f"{field} policy", policy, max_length=32) or DEFAULT_FILLER_POLICY
    check_int(f"{field} level", level, lo=0, hi=99)
    try:
        return policy, resolve_level(policy, level)
    except ValueError as exc:
        raise InvalidArgument(f"{field}: {exc}") from None


def check_registration_code(field: str, code: str, *, new: bool = False) -> str:
    """A registration code: empty, or up to :data:`MAX_REGISTRATION_CODE` printable characters
    without spaces; a ``new`` one (a tournament's, at its creation) has at least
    :data:`MIN_REGISTRATION_CODE`. The message never repeats the code (it is a secret)."""
    if len(code) > MAX_REGISTRATION_CODE:
        raise InvalidArgument(
            f"{field} must be at most {MAX_REGISTRATION_CODE} characters, got {len(code)}"
        )
    if any(c.isspace() or not c.isprintable() for c in code):
        raise InvalidArgument(f"{field} must be printable characters without spaces")
    if new and code and len(code) < MIN_REGISTRATION_CODE:
        raise InvalidArgument(
            f"{field} must be at least {MIN_REGISTRATION_CODE} characters, got {len(code)}"
            " (a short code is guessed: `hebei tournament create --registration-code auto`"
            " makes a strong one)"
        )
    return code


def normalise_config(
    config: mm.TournamentConfig, *, now: datetime | None = None
) -> mm.TournamentConfig:
    """``config`` checked (InvalidArgument naming the field) and with every default filled
    (``now``: what a scheduled start is checked against)."""
    out = mm.TournamentConfig()
    out.name = check_text("config.name", config.name, max_length=MAX_NAME_LENGTH, required=True)
    profile = check_text("config.rule_profile.name", config.rule_profile.name, max_length=32)
    try:
        get_profile(profile or "main")
    except ValueError as exc:
        raise InvalidArgument(f"config.rule_profile: {exc}") from None
    out.rule_profile.name = profile or "main"
    out.length.CopyFrom(check_match_length(config.length, "config.length"))
    out.time_control.CopyFrom(check_time_control(config.time_control, "config.time_control"))
    out.rounds = check_int("config.rounds", config.rounds, lo=1, hi=MAX_ROUNDS)
    out.filler_bot_policy, out.filler_bot_level = check_policy(
        "config.filler_bot", config.filler_bot_policy, config.filler_bot_level
    )
    out.seed = config.seed or secrets.randbits(63)
    out.max_players = check_int("config.max_players", config.max_players, lo=0, hi=MAX_PLAYERS)
    if config.seating not in (0, *SEATING_MODES):
        raise InvalidArgument(f"config.seating: unknown seating mode {config.seating}")
    out.seating = config.seating or mm.SEATING_MODE_SWISS
    out.last_registration_round = check_int(
        "config.last_registration_round", config.last_registration_round, lo=0, hi=out.rounds
    )
    if config.replaced_match not in (
        0,
        mm.REPLACED_MATCH_COUNTING_AS_PLAYED,
        mm.REPLACED_MATCH_COUNTING_FIXED,
    ):
        raise InvalidArgument(f"config.replaced_match: unknown value {config.replaced_match}")
    out.replaced_match = config.replaced_match or mm.REPLACED_MATCH_COUNTING_AS_PLAYED
    out.replaced_match_points = check_int(
        "config.replaced_match_points", config.replaced_match_points, lo=-MAX_POINTS, hi=MAX_POINTS
    )
    out.hide_round_results = config.hide_round_results
    out.hide_last_rounds = check_int(
        "config.hide_last_rounds", config.hide_last_rounds, lo=0, hi=out.rounds
    )
    chain = list(config.tie_breaks) or list(DEFAULT_TIE_BREAKS)
    for tie_break in chain:
        if tie_break not in TIE_BREAK_NAMES:
            raise InvalidArgument(f"config.tie_breaks: unknown tie-break {tie_break}")
    if len(set(chain)) != len(chain):
        raise InvalidArgument("config.tie_breaks: a tie-break is listed twice")
    if mm.TIE_BREAK_SEED_DRAW in chain and chain[-1] != mm.TIE_BREAK_SEED_DRAW:
        raise InvalidArgument("config.tie_breaks: the seed draw always decides, so it comes last")
    if chain[-1] != mm.TIE_BREAK_SEED_DRAW:
        chain.append(mm.TIE_BREAK_SEED_DRAW)
    out.tie_breaks.extend(chain)
    if config.placement_points:
        if len(config.placement_points) != 4:
            raise InvalidArgument("config.placement_points: give four values, first to fourth")
        for value in config.placement_points:
            check_int("config.placement_points", value, lo=-MAX_POINTS, hi=MAX_POINTS)
        if sum(config.placement_points) != 0:
            raise InvalidArgument("config.placement_points must sum to zero")
        out.placement_points.extend(config.placement_points)
    day = 24 * 3600.0
    if config.HasField("stall_timeout"):
        _check_duration("config.stall_timeout", config.stall_timeout, lo=10, hi=day)
        out.stall_timeout.CopyFrom(config.stall_timeout)
    else:
        out.stall_timeout.FromSeconds(int(DEFAULT_STALL_SECONDS))
    if config.HasField("replace_absent_after"):
        _check_duration("config.replace_absent_after", config.replace_absent_after, lo=0, hi=3600)
        out.replace_absent_after.CopyFrom(config.replace_absent_after)
    else:
        out.replace_absent_after.FromSeconds(int(DEFAULT_REPLACE_ABSENT_SECONDS))
    out.registration_code = check_registration_code(
        "config.registration_code", config.registration_code, new=True
    )
    _check_schedule(config, out, now=now or datetime.now(UTC))
    return out


def _check_schedule(
    config: mm.TournamentConfig, out: mm.TournamentConfig, *, now: datetime
) -> None:
    """The schedule's fields (scheduled start, check-in, breaks, a round's time limit) and the
    people's rules (no-show limit, where inactive players rank), copied to ``out``."""
    day = 24 * 3600.0
    if config.HasField("scheduled_start"):
        try:
            start = config.scheduled_start.ToDatetime(tzinfo=UTC)
        except (ValueError, OverflowError):
            raise InvalidArgument("config.scheduled_start is not a valid timestamp") from None
        if start <= now:
            raise InvalidArgument("config.scheduled_start must be in the future")
        if start > now + timedelta(days=MAX_SCHEDULE_DAYS):
            raise InvalidArgument(f"config.scheduled_start must be within {MAX_SCHEDULE_DAYS} days")
        out.scheduled_start.CopyFrom(config.scheduled_start)
    for name, lo in (("check_in_window", 60), ("round_break", 0), ("round_time_limit", 60)):
        if config.HasField(name):
            _check_duration(f"config.{name}", getattr(config, name), lo=lo, hi=day)
            getattr(out, name).CopyFrom(getattr(config, name))
    out.no_show_limit = (
        check_int("config.no_show_limit", config.no_show_limit, lo=1, hi=MAX_NO_SHOW_LIMIT)
        if config.no_show_limit
        else DEFAULT_NO_SHOW_LIMIT
    )
    if config.inactive_players not in (
        0,
        mm.INACTIVE_PLAYERS_RANKED_LAST,
        mm.INACTIVE_PLAYERS_LEFT_OUT,
    ):
        raise InvalidArgument(f"config.inactive_players: unknown value {config.inactive_players}")
    out.inactive_players = config.inactive_players or mm.INACTIVE_PLAYERS_RANKED_LAST


def fingerprint(config: mm.TournamentConfig, *, seed_given: bool) -> str:
    """What makes two CreateTournament requests the same (the drawn seed excluded)."""
    copy = mm.TournamentConfig()
    copy.CopyFrom(config)
    if not seed_given:
        copy.seed = 0
    return hashlib.sha256(copy.SerializeToString(deterministic=True)).hexdigest()


@dataclass(frozen=True)
class Settings:
    """A normalised TournamentConfig, read in plain terms."""

    config: mm.TournamentConfig

    @property
    def rounds(self) -> int:
        return self.config.rounds

    @property
    def mode(self) -> str:
        return SEATING_MODES[self.config.seating]

    @property
    def seed(self) -> int:
        return self.config.seed

    @property
    def tie_breaks(self) -> tuple[str, ...]:
        return tuple(TIE_BREAK_NAMES[t] for t in self.config.tie_breaks)

    @property
    def placement_points(self) -> tuple[int, ...]:
        return tuple(self.config.placement_points)

    @property
    def fixed_replacement(self) -> bool:
        return self.config.replaced_match == mm.REPLACED_MATCH_COUNTING_FIXED

    @property
    def stall_seconds(self) -> float:
        return _seconds(self.config.stall_timeout)

    @property
    def replace_absent_seconds(self) -> float:
        return _seconds(self.config.replace_absent_after)

    @property
    def filler(self) -> tuple[str, int]:
        return self.config.filler_bot_policy, self.config.filler_bot_level

    @property
    def duplicate(self) -> bool:
        return self.mode == "duplicate"

    @property
    def no_show_limit(self) -> int:
        return self.config.no_show_limit or DEFAULT_NO_SHOW_LIMIT

    @property
    def inactive_left_out(self) -> bool:
        return self.config.inactive_players == mm.INACTIVE_PLAYERS_LEFT_OUT

    @property
    def scheduled_start(self) -> datetime | None:
        if not self.config.HasField("scheduled_start"):
            return None
        return self.config.scheduled_start.ToDatetime(tzinfo=UTC)

    @property
    def check_in(self) -> timedelta | None:
        """The check-in window (None: no check-in)."""
        return self._duration("check_in_window")

    @property
    def round_break(self) -> timedelta | None:
        return self._duration("round_break")

    @property
    def round_time_limit(self) -> timedelta | None:
        return self._duration("round_time_limit")

    def _duration(self, name: str) -> timedelta | None:
        if not self.config.HasField(name):
            return None
        return timedelta(seconds=_seconds(getattr(self.config, name)))

    def check_in_window(self, created_at: datetime) -> tuple[datetime, datetime | None] | None:
        """When check-in opens and closes (None: the start, whenever it comes); None without
        check-in."""
        window = self.check_in
        if window is None:
            return None
        start = self.scheduled_start
        if start is None:
            return created_at, None
        return start - window, start
