"""The matchmaking rows as contract messages (what clients see; never a seat token, never a
tournament's registration code)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hebei.matchmaking.settings import Settings
from hebei.matchmaking.store import MatchRow, PenaltyRow, PlayerRow, RoundRow, TournamentRow
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb

__all__ = [
    "KINDS",
    "MATCH_STATUSES",
    "PLAYER_STATUSES",
    "STATUSES",
    "penalty_message",
    "player_message",
    "quality_message",
    "round_message",
    "shown_played_by",
    "table_message",
    "tournament_message",
]

STATUSES = {
    "registration": mm.TOURNAMENT_STATUS_REGISTRATION,
    "running": mm.TOURNAMENT_STATUS_RUNNING,
    "paused": mm.TOURNAMENT_STATUS_PAUSED,
    "finished": mm.TOURNAMENT_STATUS_FINISHED,
    "cancelled": mm.TOURNAMENT_STATUS_CANCELLED,
}
MATCH_STATUSES = {
    "pending": pb.MATCH_STATUS_WAITING,
    "opened": pb.MATCH_STATUS_PLAYING,
    "finished": pb.MATCH_STATUS_FINISHED,
    "dissolved": pb.MATCH_STATUS_DISSOLVED,
}
PLAYED_BY_LENGTH = 64  # ReplaceSeatRequest.played_by's bound
KINDS = {"person": pb.SEAT_KIND_PERSON, "bot": pb.SEAT_KIND_BOT}
PLAYER_STATUSES = {
    "active": mm.PLAYER_STATUS_ACTIVE,
    "withdrawn": mm.PLAYER_STATUS_WITHDRAWN,
    "no_show": mm.PLAYER_STATUS_NO_SHOW,
    "removed": mm.PLAYER_STATUS_REMOVED,
}


def _stamp(message: Any, field: str, value) -> None:
    if value is not None:
        getattr(message, field).FromDatetime(value)


def player_message(player: PlayerRow) -> mm.Player:
    return mm.Player(
        player_id=player.player_id,
        name=player.name,
        kind=KINDS[player.kind],
        bot_policy=player.bot_policy,
        bot_level=player.bot_level,
        removed=player.removed,
        filler=player.filler,
        rating_id=player.rating_id,
        withdrawn=player.withdrawn_after is not None,
        first_round=player.first_round,
        replaced_by=player.replaced_by,
        status=PLAYER_STATUSES[player.status],
        status_reason=player.status_reason,
        missed_rounds=player.missed_rounds,
        checked_in=player.checked_in,
    )


def shown_played_by(match: MatchRow, seat: int, names: Mapping[str, PlayerRow]) -> str:
    """How a seat a bot plays for its player is shown ("filler for Lin": an absent person's,
    until the engine says the person took the seat back; "replacement for Lin": a removed or
    withdrawn player's); empty while the player plays it."""
    replaced = match.replaced.get(str(seat))
    if not replaced:
        return ""
    player = names.get(replaced["player_id"])
    name = player.name if player else replaced["player_id"]
    if replaced.get("cause") != "absent":
        return f"replacement for {name}"[:PLAYED_BY_LENGTH]
    if match.seats_seen.get(str(seat), {}).get("back"):
        return ""
    return f"filler for {name}"[:PLAYED_BY_LENGTH]


def quality_message(quality: Mapping[str, Any]) -> mm.SeatingQuality:
    return mm.SeatingQuality(
        repeat_pairs=int(quality.get("repeat_pairs", 0)),
        consecutive_repeats=int(quality.get("consecutive_repeats", 0)),
        max_pair_meetings=int(quality.get("max_pair_meetings", 0)),
        wind_spread=int(quality.get("wind_spread", 0)),
        standings_spread=float(quality.get("standings_spread", 0.0)),
        deadline_hit=bool(quality.get("deadline_hit", False)),
        seconds=float(quality.get("seconds", 0.0)),
    )


def table_message(match: MatchRow, names: Mapping[str, PlayerRow]) -> mm.TableAssignment:
    seats = []
    for seat in sorted(match.request.seats, key=lambda s: s.seat):
        player = names.get(seat.player_id)
        seats.append(
            mm.PublicSeat(
                seat=seat.seat,
                player_id=seat.player_id,
                player_name=player.name if player else seat.player_name,
                kind=seat.kind,
                played_by=shown_played_by(match, seat.seat, names),
            )
        )
    return mm.TableAssignment(
        round_no=match.round_no,
        table_id=match.table_id,
        match_id=match.match_id,
        seats=seats,
        status=MATCH_STATUSES[match.status],
        duplicate_group=match.duplicate_group,
        hands_played=match.hands_played,
        dissolved_reason=match.reason if match.status == "dissolved" else "",
    )


def planned_tables(round_row: RoundRow, names: Mapping[str, PlayerRow]) -> list[mm.TableAssignment]:
    """The tables of a round that has no matches yet (a planned round)."""
    tables = []
    for number, (ids, group) in enumerate(zip(round_row.tables, round_row.groups, strict=True)):
        tables.append(
            mm.TableAssignment(
                round_no=round_row.round_no,
                seats=[
                    mm.PublicSeat(
                        seat=seat,
                        player_id=pid,
                        player_name=names[pid].name if pid in names else pid,
                        kind=KINDS[names[pid].kind] if pid in names else pb.SEAT_KIND_BOT,
                    )
                    for seat, pid in enumerate(ids)
                ],
                table_id=f"table {number + 1}",
                duplicate_group=group,
            )
        )
    return tables


def round_message(
    round_row: RoundRow, matches: Sequence[MatchRow], names: Mapping[str, PlayerRow]
) -> mm.RoundSeating:
    tables = (
        [table_message(m, names) for m in matches] if matches else planned_tables(round_row, names)
    )
    return mm.RoundSeating(
        round_no=round_row.round_no,
        tables=tables,
        quality=quality_message(round_row.quality),
        finished=round_row.status == "finished",
    )


def tournament_message(
    row: TournamentRow,
    players: Sequence[PlayerRow],
    rounds: Sequence[RoundRow],
    current_matches: Sequence[MatchRow],
) -> mm.Tournament:
    names = {p.player_id: p for p in players}
    config = mm.TournamentConfig()
    config.CopyFrom(row.config)
    config.registration_code = ""  # a secret: never returned, to anyone
    message = mm.Tournament(
        tournament_id=row.tournament_id,
        config=config,
        registration_code_required=bool(row.config.registration_code),
        status=STATUSES[row.status],
        current_round=row.current_round,
        players=[player_message(p) for p in players],
        tables=[table_message(m, names) for m in current_matches],
        rounds=[
            mm.RoundSeating(
                round_no=r.round_no,
                quality=quality_message(r.quality),
                finished=r.status == "finished",
            )
            for r in rounds
            if r.status != "planned"
        ],
        problems=row.problems,
        status_reason=row.status_reason,
    )
    _stamp(message, "created_at", row.created_at)
    _stamp(message, "started_at", row.started_at)
    _stamp(message, "finished_at", row.finished_at)
    if row.status in ("registration", "running"):  # a pause stops the clocks
        _stamp(message, "next_round_at", row.next_round_at)
        _stamp(message, "round_ends_at", row.round_ends_at)
    window = Settings(row.config).check_in_window(row.created_at) if row.created_at else None
    if window is not None:
        opens, closes = window
        _stamp(message, "check_in_opens_at", opens)
        _stamp(message, "check_in_closes_at", closes or row.started_at)
    return message


def penalty_message(penalty: PenaltyRow) -> mm.Penalty:
    message = mm.Penalty(
        penalty_id=penalty.penalty_id,
        tournament_id=penalty.tournament_id,
        player_id=penalty.player_id,
        points=penalty.points,
        reason=penalty.reason,
        assigned_by=penalty.assigned_by,
        cancelled=penalty.cancelled,
        cancel_reason=penalty.cancel_reason,
        entry_id=penalty.entry_id,
    )
    _stamp(message, "assigned_at", penalty.assigned_at)
    return message
