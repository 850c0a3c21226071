"""The one place where the table engine checks what clients send, before any work is done.

Each RPC's request goes through one function here first; a field out of its bounds (the
bounds are documented in ``protos/hebei/v1/table.proto``), a string with a NUL or another
control character, or a malformed value is :class:`~hebei.common.errors.InvalidArgument`
with a message that never echoes a long value whole. What passes is bounded: nothing a
client sends can make a match, an observation or a log line arbitrarily large or long.

A stored match is checked against the same bounds when it is resumed (:func:`check_spec`),
so a match stored before a bound existed fails loudly instead of wedging the engine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from hebei.common import convert
from hebei.common.errors import InvalidArgument, Unauthenticated
from hebei.common.validation import (
    MAX_NAME_LENGTH,
    MAX_REASON_LENGTH,
    MAX_TOKEN_LENGTH,
    check_duration,
    check_id,
    check_int,
    check_text,
    check_token,
)
from hebei.rules.errors import NotationError
from hebei.rules.match import MatchLength
from hebei.rules.profile import get_profile
from hebei.table.spec import STATUS_NAMES, MatchSpec, SeatSpec, hash_token
from hebei.table.timecontrol import TimeControl
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb

MAX_HANDS = 64  # hands of a match, and the cap of a wind-round match
MIN_PER_DECISION = 0.1  # seconds
MAX_PER_DECISION = 300.0
MAX_BANK = 3600.0
MAX_CLAIM_WINDOW = 5.0  # seconds: TimeControl.claim_window
MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 50
MAX_ROUND_NO = 10_000
MAX_BOT_LEVEL = 9
MAX_POLICY_LENGTH = 64
MAX_PROFILE_LENGTH = 32
MAX_CLIENT_NAME_LENGTH = 64
SEATS = (0, 1, 2, 3)
SEAT_KINDS = (pb.SEAT_KIND_PERSON, pb.SEAT_KIND_BOT)


@dataclass(frozen=True, slots=True)
class JoinRequest:
    """A checked Join: the token is bounded and clean, but not yet compared."""

    match_id: str
    seat: int
    token: str
    client_name: str
    decisions_only: bool = False  # only the observations the seat must act on
    bot: bool = False  # the client is a bot (Join.bot)


@dataclass(frozen=True, slots=True)
class SeatReplacement:
    """A checked ReplaceSeat: the new token hashed ("" keeps the token)."""

    match_id: str
    seat: int
    token_hash: str
    played_by: str
    reason: str


@dataclass(frozen=True, slots=True)
class ListQuery:
    tournament_id: str
    status: int
    page_size: int
    page_token: str


# ----------------------------------------------------------------------------- parts


def match_id(value: str) -> str:
    """A match id of a read (GetMatch, Spectate, Dissolve, Join)."""
    return check_id("match_id", value)


def seat_number(value: int) -> int:
    if value not in SEATS:
        raise InvalidArgument(f"seat must be 0-3, got {value}")
    return value


def length(message: pb.MatchLength) -> MatchLength:
    """A match length within 1-:data:`MAX_HANDS` hands."""
    try:
        result = convert.length_from_proto(message)
    except NotationError as exc:
        raise InvalidArgument(f"length: {exc}") from None
    check_length(result)
    return result


def check_length(value: MatchLength) -> MatchLength:
    hands = value.cap if value.wind_round else value.hands
    what = "the hand cap of a wind round" if value.wind_round else "a match"
    if not 1 <= hands <= MAX_HANDS:
        raise InvalidArgument(f"length: {what} must be 1-{MAX_HANDS} hands, got {hands}")
    return value


def time_control(message: pb.TimeControl) -> TimeControl | None:
    """The time control of an OpenMatch request, or None when unset (per-kind defaults)."""
    per, bank = message.per_decision, message.time_bank
    if not (per.seconds or per.nanos or bank.seconds or bank.nanos):
        return None
    return check_time_control(
        TimeControl(
            check_duration(
                "time_control.per_decision",
                per.seconds,
                per.nanos,
                lo=MIN_PER_DECISION,
                hi=MAX_PER_DECISION,
            ),
            check_duration("time_control.time_bank", bank.seconds, bank.nanos, lo=0.0, hi=MAX_BANK),
        )
    )


def claim_window(message: pb.TimeControl) -> float:
    """The least time from a discard to what follows it (0: none), checked."""
    window = message.claim_window
    return check_duration(
        "time_control.claim_window", window.seconds, window.nanos, lo=0.0, hi=MAX_CLAIM_WINDOW
    )


def check_time_control(value: TimeControl) -> TimeControl:
    if not MIN_PER_DECISION <= value.per_decision <= MAX_PER_DECISION:
        raise InvalidArgument(
            f"time_control.per_decision must be {MIN_PER_DECISION:g}-{MAX_PER_DECISION:g} s"
        )
    if not 0 <= value.bank <= MAX_BANK:
        raise InvalidArgument(f"time_control.time_bank must be 0-{MAX_BANK:g} s")
    return value


def profile_name(message: pb.RuleProfile) -> str:
    name = check_text("rule_profile.name", message.name, max_length=MAX_PROFILE_LENGTH)
    name = name or "main"
    try:
        get_profile(name)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None
    return name


def _seat(message: table_pb2.SeatAssignment) -> SeatSpec:
    where = f"seats[{message.seat}]"
    player_id = check_id(f"{where}.player_id", message.player_id)
    name = check_text(f"{where}.player_name", message.player_name, max_length=MAX_NAME_LENGTH)
    if message.kind not in SEAT_KINDS:
        raise InvalidArgument(f"seat {message.seat} needs a kind (person or bot)")
    token = check_token(f"seat {message.seat}: seat_token", message.seat_token)
    policy = check_text(f"{where}.bot_policy", message.bot_policy, max_length=MAX_POLICY_LENGTH)
    level = check_int(f"{where}.bot_level", message.bot_level, lo=0, hi=MAX_BOT_LEVEL)
    return SeatSpec(
        seat=message.seat,
        player_id=player_id,
        player_name=name or player_id,
        kind=message.kind,
        token_hash=hash_token(token),
        bot_policy=policy,
        bot_level=level,
    )


# ----------------------------------------------------------------------------- requests


def open_match(request: table_pb2.OpenMatchRequest, *, draw_seed: Callable[[], int]) -> MatchSpec:
    """Check an OpenMatch request and turn it into a match spec (tokens hashed).

    ``draw_seed`` gives the engine's fresh seed (called once the request is valid), used
    unless the request is an evaluation that chooses its own.
    """
    request_id = check_id("match_id", request.match_id)
    table_id = check_id("table_id", request.table_id)
    tournament_id = check_id("tournament_id", request.tournament_id, required=False)
    round_no = check_int("round_no", request.round_no, lo=0, hi=MAX_ROUND_NO)
    profile = profile_name(request.rule_profile)
    match_length = length(request.length)
    if len(request.seats) != 4 or sorted(s.seat for s in request.seats) != list(SEATS):
        raise InvalidArgument("exactly four seats are needed, numbered 0-3")
    seats = tuple(_seat(s) for s in sorted(request.seats, key=lambda s: s.seat))
    if len({s.player_id for s in seats}) != 4:
        raise InvalidArgument("the four seats need four different player_ids")
    control = time_control(request.time_control)
    if request.seed and not request.evaluation:
        raise InvalidArgument(
            "seed may be chosen only for an evaluation match (set evaluation): the seed of a"
            " live match must never be known; leave it 0 and the engine draws one"
        )
    fingerprint = hashlib.sha256(request.SerializeToString(deterministic=True)).hexdigest()
    return MatchSpec(
        match_id=request_id,
        table_id=table_id,
        tournament_id=tournament_id,
        round_no=round_no,
        profile=profile,
        length=match_length,
        seed=request.seed or draw_seed(),
        seats=seats,
        time_control=control,
        fingerprint=fingerprint,
        evaluation=request.evaluation,
        claim_window=claim_window(request.time_control),
        results_hidden=request.results_hidden,
    )


def check_spec(spec: MatchSpec) -> MatchSpec:
    """A stored match's spec against today's bounds (ValueError names what is wrong)."""
    try:
        check_id("match_id", spec.match_id)
        check_length(spec.length)
        get_profile(spec.profile)
        if spec.time_control is not None:
            check_time_control(spec.time_control)
        if not 0 <= spec.claim_window <= MAX_CLAIM_WINDOW:
            raise InvalidArgument(f"time_control.claim_window must be 0-{MAX_CLAIM_WINDOW:g} s")
        if len(spec.seats) != 4 or [s.seat for s in spec.seats] != list(SEATS):
            raise InvalidArgument("the spec does not have the four seats 0-3")
        for seat in spec.seats:
            check_text("player_name", seat.player_name, max_length=MAX_NAME_LENGTH)
    except InvalidArgument as exc:
        raise ValueError(exc.message) from None
    return spec


def list_tables(request: table_pb2.ListTablesRequest) -> ListQuery:
    tournament_id = check_id("tournament_id", request.tournament_id, required=False)
    if request.status and request.status not in STATUS_NAMES:
        raise InvalidArgument(f"unknown match status {request.status}")
    size = check_int("page_size", request.page_size, lo=0, hi=MAX_PAGE_SIZE)
    token = check_id("page_token", request.page_token, required=False)
    return ListQuery(tournament_id, request.status, size or DEFAULT_PAGE_SIZE, token)


def dissolve(request: table_pb2.DissolveRequest) -> tuple[str, str, bool]:
    """(match id, reason, only while no person has joined the waiting match)."""
    reason = check_text("reason", request.reason, max_length=MAX_REASON_LENGTH)
    return match_id(request.match_id), reason, request.only_if_no_person_joined


def replace_seat(request: table_pb2.ReplaceSeatRequest) -> SeatReplacement:
    found = match_id(request.match_id)
    seat = seat_number(request.seat)
    token = request.seat_token
    token_hash = hash_token(check_token("seat_token", token)) if token else ""
    played_by = check_text(
        "played_by", request.played_by, max_length=MAX_NAME_LENGTH, required=True
    )
    reason = check_text("reason", request.reason, max_length=MAX_REASON_LENGTH)
    return SeatReplacement(found, seat, token_hash, played_by, reason)


def conclude_match(request: table_pb2.ConcludeMatchRequest) -> tuple[str, str]:
    """(match id, reason)."""
    reason = check_text("reason", request.reason, max_length=MAX_REASON_LENGTH)
    return match_id(request.match_id), reason


def reveal_match_results(request: table_pb2.RevealMatchResultsRequest) -> tuple[str, int]:
    """(tournament id, round number; 0: every round)."""
    tournament_id = check_id("tournament_id", request.tournament_id)
    return tournament_id, check_int("round_no", request.round_no, lo=0, hi=MAX_ROUND_NO)


def spectate(request: table_pb2.SpectateRequest) -> tuple[str, int]:
    return match_id(request.match_id), request.from_seq


def join(first: table_pb2.PlayRequest | None) -> JoinRequest:
    """The first message of a Play stream: a Join."""
    if first is None or first.WhichOneof("request") != "join":
        raise InvalidArgument("the first message of a Play stream must be a Join")
    message = first.join
    found = match_id(message.match_id)
    seat = seat_number(message.seat)
    token = message.seat_token
    if not token:
        raise Unauthenticated("a seat token is required to join a seat")
    if len(token) > MAX_TOKEN_LENGTH or any(not c.isprintable() for c in token):
        raise InvalidArgument(f"seat_token must be at most {MAX_TOKEN_LENGTH} printable characters")
    client = check_text("client_name", message.client_name, max_length=MAX_CLIENT_NAME_LENGTH)
    return JoinRequest(found, seat, token, client, message.decisions_only, message.bot)
