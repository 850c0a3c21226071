"""Seeded sample settlements for the benchmark, the tests and demos (valid unless told not).

The figures follow RULES.md's payment shape loosely (a winner paid by one discarder or by all
three on a self-draw, kong payments on the side); what matters to the ledger is that they are
well formed and balanced.
"""

from __future__ import annotations

import random
from typing import Any

from hebei.ledger.model import EXHAUSTIVE_DRAW, SEATS, WIN

__all__ = ["sample_settlement"]

_FANS = (("men_qing", "门清", 2), ("qing_yi_se", "青一色", 3), ("qi_dui", "七对", 2))


def _win(rng: random.Random, winner: int) -> tuple[dict[str, Any], list[int]]:
    base = rng.randint(1, 4)
    fans = [
        {"id": fan_id, "name_zh": name, "fan": value}
        for fan_id, name, value in _FANS
        if rng.random() < 0.3
    ]
    bonus = sum(fan["fan"] for fan in fans)
    deltas = [0, 0, 0, 0]
    win: dict[str, Any] = {
        "winner": winner,
        "win_tile": f"TILE_{rng.randint(1, 9)}M",
        "fans": fans,
        "bonus": bonus,
        "base": base,
    }
    if rng.random() < 0.4:
        win["kind"] = "WIN_KIND_SELF_DRAW"
        for seat in SEATS:
            if seat != winner:
                deltas[seat] -= base + bonus
                deltas[winner] += base + bonus
    else:
        discarder = rng.choice([seat for seat in SEATS if seat != winner])
        win["kind"] = "WIN_KIND_DISCARD"
        win["discarder"] = discarder
        deltas[discarder] -= base + bonus
        deltas[winner] += base + bonus
    win["deltas"] = deltas
    win["payments"] = [
        {"payer": seat, "payee": winner, "amount": -delta}
        for seat, delta in enumerate(deltas)
        if delta < 0
    ]
    return win, deltas


def _kongs(rng: random.Random) -> list[int]:
    kong = [0, 0, 0, 0]
    for _ in range(rng.choice((0, 0, 1, 2))):
        owner = rng.choice(SEATS)
        for seat in SEATS:
            if seat != owner:
                kong[seat] -= 1
                kong[owner] += 1
    return kong


def sample_settlement(
    rng: random.Random,
    *,
    match_id: str,
    hand_no: int,
    players: list[str],
    tournament_id: str = "sample",
    table_id: str = "table-1",
    round_no: int = 1,
) -> dict[str, Any]:
    """A random, valid, balanced settlement (protobuf JSON mapping) for ``players`` by seat."""
    dealer = (hand_no - 1) % 4
    wins: list[dict[str, Any]] = []
    hand = [0, 0, 0, 0]
    kong = [0, 0, 0, 0]
    if rng.random() < 0.85:
        win, hand = _win(rng, rng.choice(SEATS))
        wins.append(win)
        kong = _kongs(rng)
    return {
        "idempotency_key": f"{match_id}:{hand_no}",
        "tournament_id": tournament_id,
        "round_no": round_no,
        "table_id": table_id,
        "match_id": match_id,
        "hand_no": hand_no,
        "dealer": dealer,
        "outcome": WIN if wins else EXHAUSTIVE_DRAW,
        "results": [
            {
                "seat": seat,
                "player_id": players[seat],
                "hand_delta": hand[seat],
                "kong_delta": kong[seat],
                "total_delta": hand[seat] + kong[seat],
            }
            for seat in SEATS
        ],
        "wins": wins,
        "rule_profile": "main",
    }
