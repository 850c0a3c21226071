"""Scoring (RULES.md §5-§7, §9): the fan calculator, base and bonus payments, kong payments,
the classic patterns, doublings and payments, and the false-win penalty.

>>> from hebei.rules.scoring import WinContext, WinKind, score_win
"""

from __future__ import annotations

from hebei.rules.scoring.calculator import (
    Fan,
    ScoredWin,
    best_reading,
    fans_of,
    score_win,
    win_deltas,
)
from hebei.rules.scoring.context import WinContext, WinKind, request_profile
from hebei.rules.scoring.fans import (
    ALL_FANS,
    CLASSIC_FANS,
    CLASSIC_FANS_BY_ID,
    FANS_BY_ID,
    FanRule,
)
from hebei.rules.scoring.payments import (
    Deltas,
    KongRecord,
    base_shares,
    doubled_payments,
    false_win_deltas,
    kong_deltas,
    win_payments,
)
from hebei.rules.scoring.settlement import HandSettlement, settle_hand
from hebei.rules.scoring.systems import SYSTEMS, ScoringSystem, fans_by_id, system_of

__all__ = [
    "ALL_FANS",
    "CLASSIC_FANS",
    "CLASSIC_FANS_BY_ID",
    "FANS_BY_ID",
    "SYSTEMS",
    "Deltas",
    "Fan",
    "FanRule",
    "HandSettlement",
    "KongRecord",
    "ScoredWin",
    "ScoringSystem",
    "WinContext",
    "WinKind",
    "base_shares",
    "best_reading",
    "doubled_payments",
    "false_win_deltas",
    "fans_by_id",
    "fans_of",
    "kong_deltas",
    "request_profile",
    "score_win",
    "settle_hand",
    "system_of",
    "win_deltas",
    "win_payments",
]
