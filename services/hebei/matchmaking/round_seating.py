"""Seating a tournament's next round: planned (PreviewRound, kept so an operator's SwapSeats
edit it, or planned afresh), then stored with its matches and seat tokens in one transaction;
and the start, which closes registration and seats round 1 at once.

Above :mod:`hebei.matchmaking.tournaments` (it reads and changes tournaments through
:class:`~hebei.matchmaking.tournaments.Tournaments`) and below
:mod:`hebei.matchmaking.director`, which seats every later round through
:func:`seat_next_round`. The seating itself is the pure :mod:`hebei.matchmaking.seating`.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from hebei.common.errors import FailedPrecondition, InvalidArgument, NotFound
from hebei.common.validation import MAX_REASON_LENGTH, check_id, check_text
from hebei.matchmaking import corrections, metrics, seating
from hebei.matchmaking.match_requests import open_request
from hebei.matchmaking.settings import Settings
from hebei.matchmaking.store import MatchRow, PlayerRow, RoundRow
from hebei.matchmaking.tournaments import EVENT, Tournaments
from hebei.matchmaking.views import quality_message, round_message, table_message
from hebei.v1 import matchmaking_pb2 as mm

__all__ = ["plan_round", "preview", "seat_next_round", "start", "swap"]

log = logging.getLogger(__name__)

SEATING_DEADLINE = 2.0


def _now() -> datetime:
    return datetime.now(UTC)


def start(ts: Tournaments, tournament_id: str, actor: str) -> mm.Tournament:
    """Close registration and seat round 1 now, so the caller sees it (the director would
    seat it on its next tick)."""
    ts.close_registration(tournament_id, actor)
    seat_next_round(ts, tournament_id)
    return ts.get(tournament_id)


def _fillers_for(players: Sequence[PlayerRow], entrants: int, tournament_id: str) -> list[str]:
    """The filler ids that complete ``entrants`` to a multiple of four (existing fillers
    first, then new ids)."""
    need = max(4 - entrants, (-entrants) % 4) if entrants else 0
    existing = [p.player_id for p in players if p.filler and not p.removed]
    out = existing[:need]
    number = len([p for p in players if p.filler])
    while len(out) < need:
        number += 1
        out.append(f"filler-{number}")
    return out


def plan_round(ts: Tournaments, tournament_id: str, *, keep: bool) -> RoundRow:
    """The seating of the tournament's next round; the stored plan when it still fits the
    players (so an operator's swaps stand), else a new one (stored when ``keep``)."""
    with ts.store.reading() as conn:
        row = ts._load(conn, tournament_id)
        players = ts.store.players(conn, tournament_id)
        rounds = ts.store.rounds(conn, tournament_id)
    if row.status not in ("registration", "running", "paused"):
        raise FailedPrecondition(f"the tournament is {row.status}")
    if any(r.status == "seated" for r in rounds):
        raise FailedPrecondition(
            f"round {row.current_round} is being played: pause the tournament and plan the next "
            "round once it has finished"
        )
    round_no = row.current_round + 1
    if round_no > row.config.rounds:
        raise FailedPrecondition("every round has been seated")
    entrants = [p.player_id for p in players if not p.filler and p.seated_in(round_no)]
    if not entrants:
        raise FailedPrecondition(f"nobody is left to seat in round {round_no}")
    ids = entrants + _fillers_for(players, len(entrants), tournament_id)
    planned = next((r for r in rounds if r.status == "planned"), None)
    if planned is not None and planned.round_no == round_no and planned.players == sorted(ids):
        return planned
    settings = Settings(row.config)
    standings = ts._points(tournament_id) if settings.mode == "swiss" and round_no > 1 else None
    history = [[tuple(t) for t in r.tables] for r in rounds if r.status != "planned"]
    started = time.perf_counter()
    seated = seating.seat_round(
        settings.mode,
        players=ids,
        round_no=round_no,
        rounds=settings.rounds,
        seed=settings.seed,
        history=history,
        standings=standings,
        deadline=SEATING_DEADLINE,
    )
    seconds = time.perf_counter() - started
    metrics.SEATING_SECONDS.labels(settings.mode).observe(seconds)
    planned = new_round(tournament_id, round_no, ids, seated, seconds)
    if keep:
        with ts.store.transaction() as conn:
            current = ts._load(conn, tournament_id, lock=True)
            if current.current_round != row.current_round:
                raise FailedPrecondition("a round was seated meanwhile; preview again")
            ts.store.delete_planned(conn, tournament_id)
            ts.store.save_round(conn, planned)
    return planned


def seat_next_round(
    ts: Tournaments, tournament_id: str, *, fence: Callable[[], None] | None = None
) -> bool:
    """Seat and store the next round of a running tournament; False when there is nothing
    to seat (not running, a round in play, or someone seated it first). ``fence`` (the round
    director's lease check) runs under the tournament's row lock before anything is written:
    raising, it rolls the seating back."""
    _check_in_no_shows(ts, tournament_id)
    try:
        planned = plan_round(ts, tournament_id, keep=False)
    except FailedPrecondition as error:
        if error.message == "nobody is left to seat in round 1":  # nobody checked in
            ts.cancel(tournament_id, "nobody is left to seat in round 1", "rules")
        return False
    round_no = planned.round_no
    with ts.store.transaction() as conn:
        row = ts._load(conn, tournament_id, lock=True)
        if fence is not None:
            fence()
        if row.status != "running" or row.current_round != round_no - 1:
            return False
        if any(
            not p.filler and not p.seated_in(round_no)
            for p in ts.store.players(conn, tournament_id)
            if p.player_id in planned.players
        ):
            return False  # someone left meanwhile: planned again on the next pass
        players = {p.player_id: p for p in ts.store.players(conn, tournament_id)}
        policy, level = Settings(row.config).filler
        for pid in (pid for table in planned.tables for pid in table):
            if pid not in players:
                players[pid] = ts.store.insert_player(
                    conn,
                    PlayerRow(
                        tournament_id,
                        pid,
                        0,
                        f"filler {pid.rsplit('-', 1)[-1]}",
                        "bot",
                        rating_id=f"bot:{policy}:{level}",
                        bot_policy=policy,
                        bot_level=level,
                        filler=True,
                        first_round=round_no,
                    ),
                )
        planned.status = "seated"
        planned.seated_at = _now()
        ts.store.delete_planned(conn, tournament_id)
        ts.store.save_round(conn, planned)
        duplicate = Settings(row.config).mode == "duplicate"
        group_seeds: dict[int, int] = defaultdict(lambda: secrets.randbits(63))
        prefix = corrections.match_prefix(ts.store.actions(conn, tournament_id), round_no)
        matches = []
        for number, (ids, group) in enumerate(
            zip(planned.tables, planned.groups, strict=True), start=1
        ):
            match = MatchRow(
                match_id=f"{tournament_id}-{prefix}-t{number}",
                tournament_id=tournament_id,
                round_no=round_no,
                table_no=number,
                table_id=f"{tournament_id}-t{number}",
                duplicate_group=group + 1 if duplicate else 0,
                request=open_request(
                    row,
                    match_id=f"{tournament_id}-{prefix}-t{number}",
                    table_id=f"{tournament_id}-t{number}",
                    round_no=round_no,
                    seated=[players[pid] for pid in ids],
                    seed=group_seeds[group] if duplicate else 0,
                ),
            )
            ts.store.insert_match(conn, match)
            matches.append(match)
        row.current_round = round_no
        row.next_round_at = None
        limit = Settings(row.config).round_time_limit
        row.round_ends_at = planned.seated_at + limit if limit else None
        ts.store.update_tournament(conn, row)
        ts._event(
            conn,
            tournament_id,
            EVENT.TOURNAMENT_EVENT_TYPE_ROUND_SEATED,
            round_no=round_no,
            tables=[table_message(m, players) for m in matches],
            quality=quality_message(planned.quality),
        )
    mode = Settings(row.config).mode
    metrics.ROUNDS_SEATED.labels(mode).inc()
    metrics.SEATING_REPEAT_PAIRS.labels(mode).set(planned.quality.get("repeat_pairs", 0))
    metrics.SEATING_MAX_PAIR_MEETINGS.labels(mode).set(planned.quality.get("max_pair_meetings", 0))
    metrics.SEATING_WIND_SPREAD.labels(mode).set(planned.quality.get("wind_spread", 0))
    log.info(
        "round seated",
        extra={"tournament_id": tournament_id, "round_no": round_no, "tables": len(matches)},
    )
    ts.changes.notify()
    return True


def _check_in_no_shows(ts: Tournaments, tournament_id: str) -> None:
    """Before round 1 of a tournament with check-in: the people who did not check in are
    no-shows ("did not check in"), not seated."""
    with ts.store.transaction() as conn:
        row = ts._load(conn, tournament_id, lock=True)
        if row.current_round or row.status != "running" or not Settings(row.config).check_in:
            return
        for player in ts.store.players(conn, tournament_id):
            if player.kind == "person" and player.active and not player.checked_in:
                ts.leave_by_rules(conn, player, 0, "did not check in")


def preview(ts: Tournaments, tournament_id: str) -> mm.RoundSeating:
    """Plan the next round now (kept, so SwapSeats can edit it)."""
    planned = plan_round(ts, tournament_id, keep=True)
    with ts.store.reading() as conn:
        players = {p.player_id: p for p in ts.store.players(conn, tournament_id)}
    return round_message(planned, [], players)


def swap(
    ts: Tournaments, tournament_id: str, player_a: str, player_b: str, reason: str, actor: str
) -> mm.RoundSeating:
    """Swap two players in the planned next round; its quality is recomputed."""
    check_id("player_a", player_a)
    check_id("player_b", player_b)
    if player_a == player_b:
        raise InvalidArgument("player_a and player_b must differ")
    reason = check_text("reason", reason, max_length=MAX_REASON_LENGTH)
    with ts.store.transaction() as conn:
        row = ts._load(conn, tournament_id, lock=True)
        rounds = ts.store.rounds(conn, tournament_id)
        planned = next((r for r in rounds if r.status == "planned"), None)
        if planned is None:
            raise FailedPrecondition("no round is planned: call PreviewRound first")
        flat = [pid for table in planned.tables for pid in table]
        for pid in (player_a, player_b):
            if pid not in flat:
                raise NotFound(f"player {pid!r} is not seated in round {planned.round_no}")
        swapped = {player_a: player_b, player_b: player_a}
        planned.tables = [[swapped.get(pid, pid) for pid in table] for table in planned.tables]
        history = [r.tables for r in rounds if r.status != "planned"]
        quality = seating.round_quality(
            [tuple(t) for t in planned.tables],
            history=[[tuple(t) for t in past] for past in history],
            standings=ts._points(tournament_id) if Settings(row.config).mode == "swiss" else None,
        )
        planned.quality = quality_dict(quality, seconds=0.0)
        ts.store.save_round(conn, planned)
        ts._action(
            conn,
            tournament_id,
            "swap",
            actor,
            f"round {planned.round_no}: {player_a} <-> {player_b}"
            + (f" ({reason})" if reason else ""),
        )
        players = {p.player_id: p for p in ts.store.players(conn, tournament_id)}
    return round_message(planned, [], players)


def quality_dict(quality, *, seconds: float) -> dict:
    """A seating quality report as stored (JSON)."""
    return {
        "repeat_pairs": quality.repeat_pairs,
        "consecutive_repeats": quality.consecutive_repeats,
        "max_pair_meetings": quality.max_pair_meetings,
        "wind_spread": quality.wind_spread,
        "standings_spread": round(float(quality.standings_spread), 3),
        "deadline_hit": bool(quality.deadline_hit),
        "seconds": round(seconds, 4),
    }


def new_round(
    tournament_id: str, round_no: int, players: Sequence[str], seated, seconds: float
) -> RoundRow:
    """A round row from a seating (``seated``: :class:`hebei.matchmaking.seating.SeatedRound`)."""
    return RoundRow(
        tournament_id=tournament_id,
        round_no=round_no,
        status="planned",
        players=sorted(players),
        tables=[list(t) for t in seated.tables],
        groups=list(seated.groups),
        quality=quality_dict(seated.quality, seconds=seconds),
    )
