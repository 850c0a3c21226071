"""Who pays whom: base payments (RULES.md §5), the bonus (§6 Decision), kongs (§7), and the
classic payments and false-win penalty (§9).

Every function returns four deltas by seat that sum to zero. The amounts come from
:class:`~hebei.rules.profile.RuleProfile` fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from hebei.rules.errors import NotationError
from hebei.rules.melds import MeldKind
from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.scoring.context import SEATS, WinKind

Deltas = tuple[int, int, int, int]
ZERO: Deltas = (0, 0, 0, 0)


def base_shares(
    winner: int, dealer: int, win: WinKind, discarder: int | None, profile: RuleProfile = MAIN
) -> dict[int, int]:
    """The base payment (基础分) each paying seat owes the winner (§5)."""
    if win is WinKind.SELF_DRAW:
        if winner == dealer:
            return {s: profile.dealer_self_draw_each for s in SEATS if s != winner}
        return {
            s: profile.nondealer_self_draw_dealer_pays
            if s == dealer
            else profile.nondealer_self_draw_other_pays
            for s in SEATS
            if s != winner
        }
    if discarder is None:
        raise NotationError(f"a {win.value} win needs the discarder's seat")
    if winner == dealer:
        amount = profile.dealer_wins_on_discard
    elif discarder == dealer:
        amount = profile.nondealer_wins_on_dealer_discard
    else:
        amount = profile.nondealer_wins_on_nondealer_discard
    return {discarder: amount}


def bonus_payers(
    shares: Mapping[int, int], winner: int, profile: RuleProfile = MAIN
) -> tuple[int, ...]:
    """Seats that pay the whole bonus on top of their base share (§6 Decision).

    Main rules: every payer of the base. With ``every_payer_pays_whole_bonus`` off,
    only the seat owing the largest base share pays it (ties: the first such seat
    after the winner in turn order).
    """
    if profile.every_payer_pays_whole_bonus:
        return tuple(sorted(shares))
    order = sorted(shares, key=lambda s: (-shares[s], (s - winner) % 4))
    return (order[0],)


def transfers_to_deltas(winner: int, owed: Mapping[int, int]) -> Deltas:
    """Deltas when each seat in ``owed`` pays its amount to ``winner``."""
    deltas = [0, 0, 0, 0]
    for seat, amount in owed.items():
        deltas[seat] -= amount
        deltas[winner] += amount
    return _four(deltas)


def win_payments(
    winner: int,
    dealer: int,
    win: WinKind,
    discarder: int | None,
    bonus: int,
    profile: RuleProfile = MAIN,
) -> tuple[Deltas, Deltas]:
    """(base deltas, base + bonus deltas) of one win."""
    shares = base_shares(winner, dealer, win, discarder, profile)
    owed = dict(shares)
    for seat in bonus_payers(shares, winner, profile):
        owed[seat] += bonus
    return transfers_to_deltas(winner, shares), transfers_to_deltas(winner, owed)


def doubled_payments(winner: int, dealer: int, points: int, profile: RuleProfile) -> Deltas:
    """§9: every other seat pays ``points``, the dealer ``dealer_payment_factor`` times as
    much; a winning dealer gets that factor from each seat (applied once: **Decision**)."""
    factor = profile.dealer_payment_factor
    owed = {
        s: points * factor if winner == dealer or s == dealer else points
        for s in SEATS
        if s != winner
    }
    return transfers_to_deltas(winner, owed)


def false_win_deltas(seat: int, dealer: int, profile: RuleProfile) -> Deltas:
    """§9 诈胡: ``seat`` declared a win it does not have and pays each other seat the
    penalty (the dealer pays the dealer's penalty to each)."""
    if seat not in SEATS or dealer not in SEATS:
        raise NotationError(f"a false win needs seats 0-3, got seat {seat!r}, dealer {dealer!r}")
    if not profile.false_win_penalty:
        raise NotationError(f"the {profile.name} profile has no false win (诈胡)")
    each = profile.false_win_dealer_penalty if seat == dealer else profile.false_win_penalty
    deltas = [each] * 4
    deltas[seat] = -3 * each
    return _four(deltas)


@dataclass(frozen=True, slots=True)
class KongRecord:
    """A kong made during the hand; ``from_seat`` is the discarder of an exposed kong."""

    seat: int
    kind: MeldKind
    from_seat: int | None = None


def kong_deltas(kongs: Iterable[KongRecord], profile: RuleProfile = MAIN) -> Deltas:
    """Kong payments (杠分, §7), added up over the hand's kongs."""
    deltas = [0, 0, 0, 0]
    for kong in kongs:
        if kong.seat not in SEATS:
            raise NotationError(f"kong seat must be 0-3, got {kong.seat!r}")
        if kong.kind is MeldKind.EXPOSED_KONG:
            if kong.from_seat not in SEATS or kong.from_seat == kong.seat:
                raise NotationError(
                    f"an exposed kong needs the discarder's seat (not the konger's), "
                    f"got from_seat={kong.from_seat!r}"
                )
            owed = {kong.from_seat: profile.exposed_kong_discarder_pays}
        elif kong.kind is MeldKind.ADDED_KONG:
            owed = {s: profile.added_kong_each_pays for s in SEATS if s != kong.seat}
        elif kong.kind is MeldKind.CONCEALED_KONG:
            owed = {s: profile.concealed_kong_each_pays for s in SEATS if s != kong.seat}
        else:
            raise NotationError(f"{kong.kind.value} is not a kong")
        for seat, delta in enumerate(transfers_to_deltas(kong.seat, owed)):
            deltas[seat] += delta
    return _four(deltas)


def add_deltas(*parts: Iterable[int]) -> Deltas:
    """Seat-wise sum of several delta tuples."""
    total = [0, 0, 0, 0]
    for part in parts:
        for seat, delta in enumerate(part):
            total[seat] += delta
    return _four(total)


def _four(values: list[int]) -> Deltas:
    return (values[0], values[1], values[2], values[3])
