"""The OpenMatch request of a new match (a tournament's or quick play's), with a fresh token
per seat, and the recorded randomness of a bot's policy at a seat."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

from hebei.matchmaking import hidden
from hebei.matchmaking.store import PlayerRow, TournamentRow
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb

__all__ = ["bot_seed", "open_request"]


def bot_seed(match_id: str, seat: int) -> int:
    """The randomness of a bot's policy at a seat (recorded: derived from the ids)."""
    digest = hashlib.sha256(f"hebei.bot:{match_id}:{seat}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def open_request(
    tournament: TournamentRow | None,
    *,
    match_id: str,
    table_id: str,
    round_no: int,
    seated: Sequence[PlayerRow],
    seed: int = 0,
    profile: str = "",
    length: pb.MatchLength | None = None,
) -> table_pb2.OpenMatchRequest:
    """The OpenMatch request of a new match, with a fresh token per seat."""
    request = table_pb2.OpenMatchRequest(
        table_id=table_id,
        match_id=match_id,
        tournament_id=tournament.tournament_id if tournament else "",
        round_no=round_no,
        seed=seed,
        evaluation=seed != 0,  # a chosen seed: the duplicate walls of bot evaluation
    )
    if tournament is not None:
        request.results_hidden = hidden.opened_hidden(tournament.config, round_no)
        request.rule_profile.CopyFrom(tournament.config.rule_profile)
        request.length.CopyFrom(tournament.config.length)
        request.time_control.CopyFrom(tournament.config.time_control)
    else:
        request.rule_profile.name = profile or "main"
        request.length.CopyFrom(length)
    for seat, player in enumerate(seated):
        request.seats.append(
            table_pb2.SeatAssignment(
                seat=seat,
                player_id=player.player_id,
                player_name=player.name,
                kind=pb.SEAT_KIND_PERSON if player.kind == "person" else pb.SEAT_KIND_BOT,
                seat_token=secrets.token_urlsafe(24),
                bot_policy=player.bot_policy,
                bot_level=player.bot_level,
            )
        )
    return request
