"""Who may register for a tournament, as whom, and how often: plain rules over plain values.

``Register`` is anonymous, so everything an anonymous caller could abuse is bounded here:

- **Registration codes** (:class:`CodeBudget`): besides the bound per client address (the
  servicer's :class:`~hebei.common.quota.FailureLimit`), a tournament takes at most ``limit``
  wrong codes in ``seconds`` from every address together; the failure that uses the budget up
  locks registration with a code for that tournament (every code refused unchecked, right or
  wrong, so guessing learns nothing) until the oldest failure leaves the window, and the
  organiser is told (the operator record, ``Tournament.problems``). A new code has at least
  :data:`~hebei.matchmaking.settings.MIN_REGISTRATION_CODE` characters;
  :func:`new_registration_code` makes a strong one (12 characters of 31: 59 bits).
- **Rating identities** (:func:`person_rating_id`): only the operator token chooses a person's
  ``rating_id`` (never a ``bot:`` or ``guest:`` one: bots' and self-registered people's); a
  person registering themselves gets ``guest:<tournament>:<player>``, an identity made for
  this registration alone, so nobody writes onto someone else's rating.
- **Bots** are the organiser's choice: only the operator token registers them
  (:func:`check_entrant`). A bot costs the fleet a worker at every match and nothing to whoever
  entered it, so an anonymous caller could otherwise fill a field with them for free.
- **How often** (:class:`RegistrationGate`): ``Register`` calls without the operator token from
  one client address, ``per_address`` in ``seconds`` in all and ``per_tournament`` of them for
  one tournament; beyond, RESOURCE_EXHAUSTED with the wait, before any work.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from hebei.common.errors import InvalidArgument, PermissionDenied, ResourceExhausted
from hebei.common.quota import FailureLimit
from hebei.common.validation import MAX_NAME_LENGTH, check_id, check_text

__all__ = [
    "CODE_ALPHABET",
    "CODE_PROBLEM",
    "RESERVED_RATING_PREFIXES",
    "CodeBudget",
    "CodeLocked",
    "RegistrationGate",
    "check_entrant",
    "new_registration_code",
    "person_rating_id",
]

# Wrong codes one tournament takes in TOURNAMENT_CODE_FAILURE_SECONDS, every address together.
MAX_TOURNAMENT_CODE_FAILURES = 50
TOURNAMENT_CODE_FAILURE_SECONDS = 3600.0
# Register calls without the operator token from one client address in REGISTRATION_SECONDS.
MAX_REGISTRATIONS_PER_ADDRESS = 60
MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT = 20
REGISTRATION_SECONDS = 600.0

CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0/o, 1/l/i: read aloud, typed on a phone
CODE_GROUPS, CODE_GROUP = 3, 4
CODE_PROBLEM = "registration codes:"  # the start of the tournament's problem, kept once
RESERVED_RATING_PREFIXES = ("bot:", "guest:")


def new_registration_code() -> str:
    """A strong registration code: three groups of four characters of :data:`CODE_ALPHABET`
    (31^12, about 2^59), e.g. ``k7m2-9xqd-4hpf``."""
    return "-".join(
        "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_GROUP))
        for _ in range(CODE_GROUPS)
    )


class CodeLocked(ResourceExhausted):
    """Registration with a code is locked for the tournament (its budget of wrong codes)."""


@dataclass(frozen=True)
class CodeBudget:
    """At most ``limit`` wrong registration codes for one tournament in any ``seconds``."""

    limit: int = MAX_TOURNAMENT_CODE_FAILURES
    seconds: float = TOURNAMENT_CODE_FAILURE_SECONDS

    @property
    def window(self) -> timedelta:
        return timedelta(seconds=self.seconds)

    def locked_until(self, failures: Sequence[datetime], now: datetime) -> datetime | None:
        """When registration with a code opens again, given the tournament's failures (oldest
        first); None while it is open."""
        recent = [at for at in failures if at > now - self.window]
        if len(recent) < self.limit:
            return None
        return recent[-self.limit] + self.window

    def check(self, failures: Sequence[datetime], now: datetime) -> None:
        """:class:`CodeLocked` (RESOURCE_EXHAUSTED, with the wait) while locked."""
        until = self.locked_until(failures, now)
        if until is not None:
            wait = max(1, int((until - now).total_seconds() + 0.999))
            raise CodeLocked(
                f"registration with a code is locked for this tournament: {self.limit} wrong"
                f" codes in {self.seconds:g} s; try again in {wait} s, or ask the organiser"
            )

    def problem(self, failures: Sequence[datetime], clients: int, now: datetime) -> str | None:
        """What the organiser is told when the failure just counted used the budget up (None
        when it did not): for ``Tournament.problems`` and the operator record."""
        until = self.locked_until(failures, now)
        recent = [at for at in failures if at > now - self.window]
        if until is None or len(recent) != self.limit:
            return None
        return (
            f"{CODE_PROBLEM} {self.limit} wrong codes in {self.seconds:g} s from {clients}"
            f" client address{'es' if clients != 1 else ''}; registration with a code locked"
            f" until {until:%Y-%m-%d %H:%M:%S} UTC (the operator token still registers)"
        )


def check_entrant(kind: str | None, *, operator: bool) -> str:
    """The entrant's kind ("person" or "bot"): InvalidArgument without one; PermissionDenied
    for a bot without the operator token (see the module docstring)."""
    if kind is None:
        raise InvalidArgument("entrant: a person or a bot is required")
    if kind == "bot" and not operator:
        raise PermissionDenied(
            "only the organiser (the operator token) registers bots; people register themselves"
        )
    return kind


def person_rating_id(
    chosen: str, *, name: str, tournament_id: str, player_id: str, operator: bool
) -> str:
    """A person's rating identity: the operator's choice (``chosen``; else ``person:<name>``),
    never a reserved one; for anyone else a new ``guest:`` identity of this registration,
    and PermissionDenied if they chose one."""
    chosen = check_text("person.rating_id", chosen, max_length=MAX_NAME_LENGTH)
    if not operator:
        if chosen:
            raise PermissionDenied(
                "only the organiser (the operator token) chooses a person's rating_id; leave"
                " it empty and this registration gets a rating identity of its own"
            )
        return f"guest:{tournament_id}:{player_id}"
    if chosen.startswith(RESERVED_RATING_PREFIXES):
        raise InvalidArgument(
            "person.rating_id: 'bot:' and 'guest:' identities are the service's (bots',"
            " self-registered people's); choose another, e.g. person:NAME"
        )
    return chosen or f"person:{name}"


class RegistrationGate:
    """Register calls without the operator token, per client address: ``per_address`` in any
    ``seconds`` in all, ``per_tournament`` of them for one tournament. :meth:`admit` counts a
    call or refuses it (RESOURCE_EXHAUSTED, with the wait) in one step, before any work;
    memory is bounded (see :class:`~hebei.common.quota.FailureLimit`)."""

    def __init__(
        self,
        per_address: int = MAX_REGISTRATIONS_PER_ADDRESS,
        per_tournament: int = MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT,
        seconds: float = REGISTRATION_SECONDS,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.overall = FailureLimit("registration attempts", per_address, seconds, clock=clock)
        self.tournament = FailureLimit(
            "registration attempts for this tournament", per_tournament, seconds, clock=clock
        )
        self._lock = threading.Lock()

    def admit(self, peer: str, tournament_id: str) -> None:
        """Count one Register call of ``peer`` for ``tournament_id``, or refuse it."""
        check_id("tournament_id", tournament_id)  # a bounded key
        key = f"{peer} {tournament_id}"
        with self._lock:  # the checks and the counting together: no burst slips between
            self.tournament.check(key)
            self.overall.check(peer)
            self.tournament.failed(key)
            self.overall.failed(peer)
