"""Tournaments as the JSON the pages read: a tournament's summary, each round's seating and its
quality, the standings with the tie-break that decided each place, and a player as the
person's own page shows them.
"""

from __future__ import annotations

from typing import Any

from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from hebei.web.views import SEAT_KINDS, enum_name, length_hands, millis


def quality_json(quality: mm.SeatingQuality) -> dict[str, Any]:
    return {
        "repeat_pairs": quality.repeat_pairs,
        "consecutive_repeats": quality.consecutive_repeats,
        "max_pair_meetings": quality.max_pair_meetings,
        "wind_spread": quality.wind_spread,
        "standings_spread": round(quality.standings_spread, 2),
        "deadline_hit": quality.deadline_hit,
        "seconds": round(quality.seconds, 4),
    }


def table_assignment_json(table: mm.TableAssignment) -> dict[str, Any]:
    return {
        "round_no": table.round_no,
        "table_id": table.table_id,
        "match_id": table.match_id,
        "seats": [
            {
                "seat": s.seat,
                "player_id": s.player_id,
                "name": s.player_name,
                "kind": SEAT_KINDS.get(s.kind, "unknown"),
                "played_by": s.played_by,
            }
            for s in sorted(table.seats, key=lambda s: s.seat)
        ],
        "status": enum_name(pb.MatchStatus, table.status, "MATCH_STATUS_"),
        "hands_played": table.hands_played,
        "duplicate_group": table.duplicate_group,
        "dissolved_reason": table.dissolved_reason,
    }


def round_json(seating: mm.RoundSeating) -> dict[str, Any]:
    return {
        "round_no": seating.round_no,
        "tables": [table_assignment_json(t) for t in seating.tables],
        "quality": quality_json(seating.quality),
        "finished": seating.finished,
    }


def tournament_json(tournament: mm.Tournament) -> dict[str, Any]:
    """A tournament's public summary (players counted, not listed with secrets: none are)."""
    config = tournament.config
    players = [p for p in tournament.players if not p.filler]
    return {
        "tournament_id": tournament.tournament_id,
        "name": config.name,
        "status": enum_name(mm.TournamentStatus, tournament.status, "TOURNAMENT_STATUS_"),
        "status_reason": tournament.status_reason,
        "rounds": config.rounds,
        "current_round": tournament.current_round,
        "hands": length_hands(config.length),
        "seating": enum_name(mm.SeatingMode, config.seating, "SEATING_MODE_")
        if config.seating
        else "swiss",
        "players": len(players),
        "people": sum(1 for p in players if p.kind == pb.SEAT_KIND_PERSON),
        "fillers": sum(1 for p in tournament.players if p.filler),
        "tables": [table_assignment_json(t) for t in tournament.tables],
        "round_quality": [
            {"round_no": r.round_no, "finished": r.finished, "quality": quality_json(r.quality)}
            for r in tournament.rounds
        ],
        "problems": list(tournament.problems),
        "hide_round_results": config.hide_round_results,
        "registration_code_required": tournament.registration_code_required,
        "registration_open": registration_open(tournament),
        "next_round_at_ms": millis(tournament.next_round_at),
        "round_ends_at_ms": millis(tournament.round_ends_at),
        "check_in_opens_ms": millis(tournament.check_in_opens_at),
        "check_in_closes_ms": millis(tournament.check_in_closes_at),
        "scheduled_start_ms": millis(config.scheduled_start),
        "created_ms": millis(tournament.created_at),
        "started_ms": millis(tournament.started_at),
        "finished_ms": millis(tournament.finished_at),
    }


def standings_json(response: mm.GetStandingsResponse) -> dict[str, Any]:
    """The ranking with the tie-break that decided each place (fillers last, unranked)."""
    rows = []
    for row in response.ranking:
        s = row.standing
        rows.append(
            {
                "rank": s.rank or None,
                "player_id": s.player_id,
                "name": s.player_name or s.player_id,
                "points": s.points,
                "hands_won": s.hands_won,
                "self_draw_wins": s.self_draw_wins,
                "dealt_in": s.hands_dealt_in,
                "best_match": s.best_match_points,
                "hands_played": s.hands_played,
                "matches_played": s.matches_played,
                "penalty_points": row.penalty_points,
                "award_points": s.award_points,
                "correction_points": s.correction_points,
                "placement_points": row.placement_points,
                "decided_by": row.decided_by,
                "filler": row.filler,
                "withdrawn": row.withdrawn,
                "status": player_status(row.status, row.withdrawn),
            }
        )
    return {
        "round_no": response.round_no,
        "ranking": rows,
        "mismatch": response.mismatch,
        "problems": list(response.problems),
    }


def registration_open(tournament: mm.Tournament) -> bool:
    """Whether Register may still take someone (before the start, or late registration)."""
    if tournament.status == mm.TOURNAMENT_STATUS_REGISTRATION:
        return True
    late = tournament.config.last_registration_round
    running = (mm.TOURNAMENT_STATUS_RUNNING, mm.TOURNAMENT_STATUS_PAUSED)
    return tournament.status in running and tournament.current_round < late


def player_status(status: int, withdrawn: bool = False, removed: bool = False) -> str:
    """``active``, ``withdrawn``, ``no_show`` or ``removed`` (older servers: from the flags)."""
    if status:
        return enum_name(mm.PlayerStatus, status, "PLAYER_STATUS_")
    return "removed" if removed else "withdrawn" if withdrawn else "active"


def player_json(player: mm.Player) -> dict[str, Any]:
    """A player as the person's own page shows it (never a secret: the message has none)."""
    return {
        "player_id": player.player_id,
        "name": player.name,
        "kind": SEAT_KINDS.get(player.kind, "unknown"),
        "status": player_status(player.status, player.withdrawn, player.removed),
        "status_reason": player.status_reason,
        "missed_rounds": list(player.missed_rounds),
        "checked_in": player.checked_in,
        "first_round": player.first_round,
        "replaced_by": player.replaced_by,
    }
