"""The settlement of a whole hand: its wins plus the kong payments (RULES.md §5-§7), and any
false-win penalties (§9)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hebei.rules.errors import NotationError
from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.scoring.calculator import ScoredWin
from hebei.rules.scoring.context import WinKind
from hebei.rules.scoring.payments import (
    ZERO,
    Deltas,
    KongRecord,
    add_deltas,
    false_win_deltas,
    kong_deltas,
)


@dataclass(frozen=True, slots=True)
class HandSettlement:
    """Hand payments, kong payments and their total, each four deltas summing to zero."""

    wins: tuple[ScoredWin, ...]  # empty on exhaustive draw; several on 一炮多响
    hand_deltas: Deltas  # the wins' payments and the false-win penalties
    kong_deltas: Deltas  # zeros on exhaustive draw (profile)
    total: Deltas
    false_wins: tuple[int, ...] = ()  # seats that declared a win they did not have (§9)

    @property
    def exhaustive_draw(self) -> bool:
        return not self.wins and not self.false_wins

    def to_json(self) -> dict:
        out = {
            "wins": [w.to_json() for w in self.wins],
            "hand_deltas": list(self.hand_deltas),
            "kong_deltas": list(self.kong_deltas),
            "total": list(self.total),
        }
        if self.false_wins:
            out["false_wins"] = list(self.false_wins)
        return out


def _check_wins(wins: Sequence[ScoredWin]) -> None:
    if len(wins) <= 1:
        return
    if any(w.win is WinKind.SELF_DRAW for w in wins):
        raise NotationError("a self-draw ends the hand: it cannot share the hand with another win")
    if len({w.discarder for w in wins}) != 1 or len({w.win_tile for w in wins}) != 1:
        raise NotationError(
            "several winners in one hand must all win on the same tile of one discarder"
        )
    if len({w.winner for w in wins}) != len(wins):
        raise NotationError("a seat can win only once in a hand")


def settle_hand(
    wins: Sequence[ScoredWin],
    kongs: Iterable[KongRecord],
    profile: RuleProfile = MAIN,
    *,
    false_wins: Sequence[int] = (),
    dealer: int | None = None,
) -> HandSettlement:
    """Settle a hand. No wins means an exhaustive draw, which voids kong payments (profile).

    A robbed added kong is not a kong: leave it out of ``kongs``. ``false_wins`` are the
    seats that declared a win they did not have (§9 诈胡); each pays the profile's penalty
    (``dealer`` needed). A hand without a real win voids its kong payments (profile) too:
    **Decision**, a false win is not a win.
    """
    wins = tuple(wins)
    _check_wins(wins)
    false_wins = tuple(false_wins)
    if false_wins and dealer is None:
        raise NotationError("settling a false win needs the dealer's seat")
    if len(set(false_wins)) != len(false_wins) or {w.winner for w in wins} & set(false_wins):
        raise NotationError("a seat declares at most one win in a hand")
    penalties = [false_win_deltas(seat, dealer, profile) for seat in false_wins]
    hand = add_deltas(*(w.deltas for w in wins), *penalties)
    kongs = tuple(kongs)
    if not wins and profile.kong_payments_void_on_draw:
        kong_deltas(kongs, profile)  # still reject malformed records
        kong = ZERO
    else:
        kong = kong_deltas(kongs, profile)
    return HandSettlement(wins, hand, kong, add_deltas(hand, kong), false_wins)
