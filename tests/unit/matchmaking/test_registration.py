"""Who may register, as whom and how often (hebei.matchmaking.registration), with many client
addresses simulated by peer strings and time by a hand-moved clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hebei.common.errors import InvalidArgument, PermissionDenied, ResourceExhausted
from hebei.matchmaking.registration import (
    CODE_ALPHABET,
    CODE_PROBLEM,
    CodeBudget,
    CodeLocked,
    RegistrationGate,
    check_entrant,
    new_registration_code,
    person_rating_id,
)
from hebei.matchmaking.settings import MIN_REGISTRATION_CODE, check_registration_code

T0 = datetime(2026, 12, 7, 5, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- the tournament's budget of wrong codes ------------------------------------------------------


def test_wrong_codes_from_every_address_together_lock_the_tournament() -> None:
    budget = CodeBudget(limit=5, seconds=3600)
    failures: list[datetime] = []
    problems = []
    for n in range(5):  # five addresses, one wrong code each: no address is near its own limit
        now = T0 + timedelta(seconds=n)
        budget.check(failures, now)
        failures.append(now)
        problems.append(budget.problem(failures, clients=n + 1, now=now))
    # the organiser is told once, by the failure that used the budget up
    assert problems[:4] == [None] * 4
    assert problems[4] == (
        f"{CODE_PROBLEM} 5 wrong codes in 3600 s from 5 client addresses; registration with a"
        " code locked until 2026-12-07 06:00:00 UTC (the operator token still registers)"
    )
    with pytest.raises(CodeLocked) as locked:
        budget.check(failures, T0 + timedelta(seconds=10))
    assert isinstance(locked.value, ResourceExhausted)
    assert locked.value.message == (
        "registration with a code is locked for this tournament: 5 wrong codes in 3600 s;"
        " try again in 3590 s, or ask the organiser"
    )
    # open again once the oldest leaves the window, for one more try at a time
    assert budget.locked_until(failures, T0 + timedelta(seconds=3600)) is None
    budget.check(failures, T0 + timedelta(seconds=3600))


def test_failures_older_than_the_window_do_not_count() -> None:
    budget = CodeBudget(limit=3, seconds=60)
    old = [T0, T0 + timedelta(seconds=1)]
    now = T0 + timedelta(seconds=61)
    assert budget.locked_until([*old, now], now) is None
    assert budget.problem([*old, now], clients=1, now=now) is None


# -- registrations per client address -----------------------------------------------------------


def test_one_address_registers_only_so_often_for_a_tournament_and_in_all() -> None:
    clock = Clock()
    gate = RegistrationGate(per_address=5, per_tournament=3, seconds=600, clock=clock)
    for _ in range(3):
        gate.admit("10.0.0.1", "t-1")
    with pytest.raises(ResourceExhausted) as refused:
        gate.admit("10.0.0.1", "t-1")
    assert refused.value.message == (
        "3 registration attempts for this tournament from this client address in 600 s;"
        " try again in 600 s"
    )
    for _ in range(3):  # other addresses are not touched by it
        gate.admit("10.0.0.2", "t-1")
    gate.admit("10.0.0.1", "t-2")
    gate.admit("10.0.0.1", "t-3")  # five in all now
    with pytest.raises(ResourceExhausted) as refused:
        gate.admit("10.0.0.1", "t-4")
    assert refused.value.message == (
        "5 registration attempts from this client address in 600 s; try again in 600 s"
    )
    clock.now += 601  # the window has passed
    gate.admit("10.0.0.1", "t-1")


def test_a_refused_call_is_not_counted_and_the_key_is_bounded() -> None:
    clock = Clock()
    gate = RegistrationGate(per_address=2, per_tournament=1, seconds=60, clock=clock)
    gate.admit("10.0.0.1", "t-1")
    for _ in range(5):
        with pytest.raises(ResourceExhausted):
            gate.admit("10.0.0.1", "t-1")
    gate.admit("10.0.0.1", "t-2")  # the refusals above did not use the address's budget
    with pytest.raises(InvalidArgument):
        gate.admit("10.0.0.9", "t" * 100_000)


# -- rating identities and entrants -------------------------------------------------------------


def test_only_the_operator_chooses_a_rating_identity() -> None:
    ids = {"name": "Mei", "tournament_id": "t-1", "player_id": "p-2"}
    assert person_rating_id("", operator=False, **ids) == "guest:t-1:p-2"
    for chosen in ("bot:expert:4", "person:Mei", "guest:t-0:p-0"):
        with pytest.raises(PermissionDenied) as refused:
            person_rating_id(chosen, operator=False, **ids)
        assert "only the organiser (the operator token) chooses" in refused.value.message
    assert person_rating_id("", operator=True, **ids) == "person:Mei"
    assert person_rating_id("person:mei-club", operator=True, **ids) == "person:mei-club"
    for reserved in ("bot:expert:4", "guest:t-1:p-9"):
        with pytest.raises(InvalidArgument) as refused:
            person_rating_id(reserved, operator=True, **ids)
        assert refused.value.message.startswith("person.rating_id: 'bot:' and 'guest:'")


def test_bots_are_the_organisers() -> None:
    assert check_entrant("person", operator=False) == "person"
    assert check_entrant("bot", operator=True) == "bot"
    with pytest.raises(PermissionDenied) as refused:
        check_entrant("bot", operator=False)
    assert refused.value.message == (
        "only the organiser (the operator token) registers bots; people register themselves"
    )
    with pytest.raises(InvalidArgument):
        check_entrant(None, operator=True)


# -- codes ---------------------------------------------------------------------------------------


def test_a_new_code_is_strong_and_a_short_one_is_refused() -> None:
    codes = {new_registration_code() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        groups = code.split("-")
        assert [len(g) for g in groups] == [4, 4, 4]
        assert set("".join(groups)) <= set(CODE_ALPHABET)
        assert check_registration_code("c", code, new=True) == code
    with pytest.raises(InvalidArgument) as refused:
        check_registration_code("config.registration_code", "1234", new=True)
    assert refused.value.message.startswith(
        f"config.registration_code must be at least {MIN_REGISTRATION_CODE} characters, got 4"
    )
    assert "1234" not in refused.value.message
    # a code given to Register (an older tournament's) is not held to the new minimum
    assert check_registration_code("registration_code", "1234") == "1234"
