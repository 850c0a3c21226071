"""A tournament's results and seating as flat rows (CSV and JSON), from the contract messages:
the same columns from the CLI (``hebei tournament export``) and the web gateway
(``/api/tournaments/{id}/export/...``). README's "Exports" lists the columns.

Results: one row per player of ``GetStandingsResponse.ranking`` (ranked players, then those
who left, then fillers), every standings column. Seating: one row per seat of every seated
round (``GetSeatingResponse.rounds``), with the seat's wind.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb

__all__ = [
    "RESULT_COLUMNS",
    "SEATING_COLUMNS",
    "WINDS",
    "as_csv",
    "as_json",
    "match_status",
    "player_status",
    "result_rows",
    "seating_rows",
]

RESULT_COLUMNS = (
    "rank", "player_id", "player", "status", "points", "matches_played", "hands_played",
    "hands_won", "self_draw_wins", "hands_dealt_in", "best_match_points", "kong_points",
    "placement_points", "replacement_points", "correction_points", "penalty_points",
    "award_points", "decided_by",
)  # fmt: skip
SEATING_COLUMNS = (
    "round", "table", "match_id", "status", "hands_played", "seat", "wind", "player_id",
    "player", "kind", "played_by",
)  # fmt: skip
WINDS = ("East", "South", "West", "North")  # seat 0-3's wind in the first hand


def player_status(row: mm.TournamentStanding) -> str:
    """``active``, ``withdrawn``, ``no-show``, ``removed`` or ``filler``."""
    if row.filler:
        return "filler"
    if not row.status or row.status not in mm.PlayerStatus.values():
        return "active"
    return mm.PlayerStatus.Name(row.status).removeprefix("PLAYER_STATUS_").lower().replace("_", "-")


def match_status(status: int) -> str:
    """``planned`` (a table not yet opened), ``waiting``, ``playing``, ``finished``,
    ``dissolved``."""
    if not status or status not in pb.MatchStatus.values():
        return "planned"
    return pb.MatchStatus.Name(status).removeprefix("MATCH_STATUS_").lower()


def result_rows(response: mm.GetStandingsResponse) -> list[dict[str, Any]]:
    rows = []
    for row in response.ranking:
        s = row.standing
        rows.append(
            {
                "rank": s.rank or "",
                "player_id": s.player_id,
                "player": s.player_name or s.player_id,
                "status": player_status(row),
                "points": s.points,
                "matches_played": s.matches_played,
                "hands_played": s.hands_played,
                "hands_won": s.hands_won,
                "self_draw_wins": s.self_draw_wins,
                "hands_dealt_in": s.hands_dealt_in,
                "best_match_points": s.best_match_points,
                "kong_points": s.kong_points,
                "placement_points": s.placement_points,
                "replacement_points": s.replacement_points,
                "correction_points": s.correction_points,
                "penalty_points": s.penalty_points,
                "award_points": s.award_points,
                "decided_by": row.decided_by,
            }
        )
    return rows


def seating_rows(rounds: Iterable[mm.RoundSeating]) -> list[dict[str, Any]]:
    rows = []
    for seated in rounds:
        for number, table in enumerate(seated.tables, start=1):
            for seat in sorted(table.seats, key=lambda s: s.seat):
                rows.append(
                    {
                        "round": seated.round_no,
                        "table": table.table_id or f"table {number}",
                        "match_id": table.match_id,
                        "status": match_status(table.status),
                        "hands_played": table.hands_played,
                        "seat": seat.seat,
                        "wind": WINDS[seat.seat] if 0 <= seat.seat < 4 else "",
                        "player_id": seat.player_id,
                        "player": seat.player_name or seat.player_id,
                        "kind": "person" if seat.kind == pb.SEAT_KIND_PERSON else "bot",
                        "played_by": seat.played_by,
                    }
                )
    return rows


def as_csv(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """RFC 4180 CSV with a header line; a cell that a spreadsheet would read as a formula (a
    name starting with =, +, - or @) is prefixed with an apostrophe."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\r\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value


def as_json(kind: str, tournament_id: str, rows: Sequence[Mapping[str, Any]], **extra: Any) -> str:
    """``{"tournament_id", "export", ..., "columns", "rows"}`` (rows as objects)."""
    columns = RESULT_COLUMNS if kind == "results" else SEATING_COLUMNS
    body = {"tournament_id": tournament_id, "export": kind, **extra}
    body |= {"columns": list(columns), "rows": list(rows)}
    return json.dumps(body, ensure_ascii=False, indent=1)
