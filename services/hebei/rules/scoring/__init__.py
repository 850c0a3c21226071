"""Scoring (RULES.md §5-§7): the fan calculator, base and bonus payments, kong payments.

>>> from hebei.rules.scoring import WinContext, WinKind, score_win
"""

from __future__ import annotations

from hebei.rules.scoring.calculator import Fan, ScoredWin, best_reading, fans_of, score_win
from hebei.rules.scoring.context import WinContext, WinKind
from hebei.rules.scoring.fans import ALL_FANS, FANS_BY_ID, FanRule
from hebei.rules.scoring.payments import (
    Deltas,
    KongRecord,
    base_shares,
    kong_deltas,
    win_payments,
)
from hebei.rules.scoring.settlement import HandSettlement, settle_hand

__all__ = [
    "ALL_FANS",
    "FANS_BY_ID",
    "Deltas",
    "Fan",
    "FanRule",
    "HandSettlement",
    "KongRecord",
    "ScoredWin",
    "WinContext",
    "WinKind",
    "base_shares",
    "best_reading",
    "fans_of",
    "kong_deltas",
    "score_win",
    "settle_hand",
    "win_payments",
]
