"""The settlement the engine posts to the ledger is the rules' scoring (RULES.md §5, §6, §9).

The ledger checks a settlement's figures against each other only (it imports nothing from
``hebei.rules``); that the figures are the rules' is checked here, where the engine builds the
message (``hebei.common.convert.settlement_to_proto``): every fan is the profile's, a main win's
bonus is the sum of its fans and its payments the base and bonus each payer owes, a classic
win's points are its pattern times its doublings and its payments those points doubled by or to
the dealer, and every false win pays the profile's penalty to each other seat.
"""

from __future__ import annotations

import random

import pytest

from hebei.rules.actions import WIN
from hebei.rules.hand import HandState
from hebei.rules.profile import CLASSIC, MAIN, RuleProfile
from hebei.rules.scoring import (
    Fan,
    WinKind,
    doubled_payments,
    false_win_deltas,
    fans_by_id,
    system_of,
    win_payments,
)
from hebei.v1 import types_pb2 as pb
from tests.unit.contracts.test_classic_convert import settle
from tests.unit.table.greedy import greedy_choice

_WIN_KINDS = {
    pb.WIN_KIND_SELF_DRAW: WinKind.SELF_DRAW,
    pb.WIN_KIND_DISCARD: WinKind.DISCARD,
    pb.WIN_KIND_ROB_KONG: WinKind.ROB_KONG,
}


def _played(seed: int, profile: RuleProfile, false_win_rate: float = 0.0) -> HandState:
    """A hand of greedy seats; now and then a seat declares a win it does not have."""
    rng = random.Random(seed)
    state = HandState(seed, dealer=seed % 4, profile=profile)
    while not state.ended:
        seat = state.to_act()[0]
        if false_win_rate and state.accepts_false_win(seat) and rng.random() < false_win_rate:
            state.apply(seat, WIN)
            continue
        options = state.legal_actions(seat)
        state.apply(seat, greedy_choice(options, state.hands[seat], len(state.melds[seat]), rng))
    return state


def _net(lines: list[pb.Payment]) -> list[int]:
    net = [0, 0, 0, 0]
    for line in lines:
        net[line.payer] -= line.amount
        net[line.payee] += line.amount
    return net


def rules_figures_problems(message: pb.Settlement, profile: RuleProfile) -> list[str]:
    """What in ``message`` is not the rules' scoring of its hand (empty: all of it is)."""
    problems: list[str] = []
    rules = fans_by_id(profile)
    system = system_of(profile)
    hand = [0, 0, 0, 0]
    for number, win in enumerate(message.wins):
        where = f"wins[{number}]"
        for fan in win.fans:
            rule = rules.get(fan.id)
            if rule is None or (fan.fan, fan.doubling, fan.name_zh) != (
                rule.fan,
                rule.doubling,
                rule.name_zh,
            ):
                problems.append(f"{where}: fan {fan.id!r} is not the {profile.name} profile's")
        value = system.value(
            tuple(Fan(f.id, f.fan, f.name_zh, f.doubling) for f in win.fans), profile
        )
        discarder = win.discarder if win.HasField("discarder") else None
        if system.reports_points:
            if (win.points, win.bonus, win.base) != (value, 0, 0):
                problems.append(f"{where}: points {win.points} are not its fans' {value}")
            owed = doubled_payments(win.winner, message.dealer, win.points, profile)
        else:
            if win.points or win.bonus != value:
                problems.append(f"{where}: bonus {win.bonus} is not its fans' sum {value}")
            kind = _WIN_KINDS[win.kind]
            owed = win_payments(win.winner, message.dealer, kind, discarder, win.bonus, profile)[1]
        if _net(list(win.payments)) != list(owed) or list(win.deltas) != list(owed):
            problems.append(f"{where}: payments {_net(list(win.payments))} are not {list(owed)}")
        hand = [total + delta for total, delta in zip(hand, owed, strict=True)]
    penalties = [0, 0, 0, 0]
    for seat in message.false_wins:
        owed = false_win_deltas(seat, message.dealer, profile)
        penalties = [total + delta for total, delta in zip(penalties, owed, strict=True)]
    if _net(list(message.false_win_penalties)) != penalties:
        problems.append(f"false_win_penalties are not the {profile.name} penalties {penalties}")
    hand = [total + penalty for total, penalty in zip(hand, penalties, strict=True)]
    if [r.hand_delta for r in message.results] != hand:
        problems.append(f"hand_delta are not {hand}")
    return problems


@pytest.mark.parametrize(
    ("profile", "false_win_rate"), [(MAIN, 0.0), (CLASSIC, 0.0), (CLASSIC, 0.03)]
)
def test_the_engines_settlements_are_the_rules_scoring(
    profile: RuleProfile, false_win_rate: float
) -> None:
    wins = false_wins = 0
    for seed in range(40):
        message = settle(_played(seed, profile, false_win_rate), profile.name)
        assert rules_figures_problems(message, profile) == []
        assert all(len(win.payments) >= 1 for win in message.wins)
        wins += len(message.wins)
        false_wins += len(message.false_wins)
    # enough won hands for the check to mean something (false wins end many hands early)
    assert wins >= (2 if false_win_rate else 10)
    assert (false_wins > 0) == bool(false_win_rate)


def _first_win(profile: RuleProfile) -> tuple[pb.Settlement, int]:
    seed = next(s for s in range(100) if _played(s, profile).result.settlement.wins)
    return settle(_played(seed, profile), profile.name), seed


def _flip_doubling(message: pb.Settlement) -> None:
    fan = message.wins[0].fans[-1]
    fan.doubling = not fan.doubling


def _pay_more(message: pb.Settlement) -> None:
    message.wins[0].payments[0].amount += 1


MISSCORED = [
    ("classic points off", CLASSIC, lambda s: setattr(s.wins[0], "points", s.wins[0].points + 1)),
    ("a main fan in classic", CLASSIC, lambda s: setattr(s.wins[0].fans[0], "id", "hua_long")),
    ("a doubling flipped", CLASSIC, _flip_doubling),
    ("a classic bonus", CLASSIC, lambda s: setattr(s.wins[0], "bonus", 12)),
    ("a main bonus off", MAIN, lambda s: setattr(s.wins[0], "bonus", s.wins[0].bonus + 1)),
    ("main points", MAIN, lambda s: setattr(s.wins[0], "points", 5)),
    ("a payment off", CLASSIC, _pay_more),
]


@pytest.mark.parametrize(
    ("profile", "change"), [m[1:] for m in MISSCORED], ids=[m[0] for m in MISSCORED]
)
def test_a_misscored_settlement_is_caught_by_the_check(profile: RuleProfile, change) -> None:
    """The check above sees what the ledger no longer checks (a fan, bonus, points or payment
    that is not the rules')."""
    message, _seed = _first_win(profile)
    change(message)
    assert rules_figures_problems(message, profile)
