"""What the ``hebei tournament`` commands print: the standings, schedule, players, seating
quality and tables as rich tables, a player's status, and a tournament followed live with
progress bars.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from typing import Any

import grpc
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hebei.cli._util import fail
from hebei.cli.tournament_connection import Connection, rpc_message

ENDED = (3, 4)  # MATCH_STATUS_FINISHED, MATCH_STATUS_DISSOLVED


def standings_table(response: Any, title: str) -> Table:
    """The ranking with the tie-break that decided each place, matches played, penalties,
    awards and corrections; a player who is not active has the status after the name
    ("Mei (withdrawn)", "(filler)")."""
    from hebei.common.exports import player_status

    table = Table(title=title)
    left = ("player", "decided by")
    columns = ("rank", "player", "points", "matches", "won", "dealt in", "best match",
               "penalties", "awards", "corrections", "decided by")  # fmt: skip
    names = []
    for row in response.ranking or []:
        status = player_status(row)
        name = row.standing.player_name or row.standing.player_id
        names.append(name + ("" if status == "active" else f" ({status})"))
    for column in columns:
        widths = {"min_width": max(map(len, names), default=6), "no_wrap": True}
        table.add_column(
            column,
            justify="left" if column in left else "right",
            **(widths if column == "player" else {}),
        )
    for name, row in zip(names, response.ranking or [], strict=True):
        s = row.standing
        table.add_row(
            str(s.rank) if s.rank else "–",
            name,
            str(s.points),
            str(s.matches_played),
            str(s.hands_won),
            str(s.hands_dealt_in),
            str(s.best_match_points),
            str(s.penalty_points),
            str(s.award_points),
            str(s.correction_points),
            row.decided_by or "",
        )
    return table


def _when(stamp: Any) -> str:
    return stamp.ToDatetime(tzinfo=UTC).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


def schedule_lines(tournament: Any) -> list[str]:
    """The tournament's clocks as lines: the scheduled start or next round, a round's time
    limit, the check-in window, the break and the per-decision time."""
    config = tournament.config
    lines = []
    if tournament.HasField("next_round_at"):
        what = "starts" if not tournament.current_round else "next round seated"
        lines.append(f"{what} at {_when(tournament.next_round_at)}")
    if tournament.HasField("round_ends_at"):
        lines.append(f"round {tournament.current_round} ends at {_when(tournament.round_ends_at)}"
                     " (after the hand in progress)")  # fmt: skip
    if tournament.HasField("check_in_opens_at"):
        closes = (
            _when(tournament.check_in_closes_at)
            if tournament.HasField("check_in_closes_at")
            else "the start"
        )
        lines.append(f"check-in from {_when(tournament.check_in_opens_at)} to {closes}")
    for name, label in (("round_break", "break between rounds"),
                        ("round_time_limit", "round time limit")):  # fmt: skip
        if config.HasField(name):
            lines.append(
                f"{label}: {shown_duration(getattr(config, name).ToTimedelta().total_seconds())}"
            )
    control = config.time_control
    if control.HasField("per_decision") and control.per_decision.ToNanoseconds():
        bank = control.time_bank.ToTimedelta().total_seconds()
        lines.append(
            f"each decision: {shown_duration(control.per_decision.ToTimedelta().total_seconds())}"
            + (f", time bank {shown_duration(bank)}" if bank else "")
        )
    if config.no_show_limit:
        lines.append(f"a person missing {config.no_show_limit} rounds is a no-show")
    return lines


def players_table(tournament: Any) -> Table:
    """Every registered player (no fillers) with its status, missed rounds, check-in."""
    from hebei.v1 import types_pb2 as pb

    table = Table(title="players")
    for column in ("player", "id", "kind", "status", "missed rounds", "checked in"):
        table.add_column(column)
    checking = tournament.HasField("check_in_opens_at")
    for player in tournament.players:
        if player.filler:
            continue
        kind = "person" if player.kind == pb.SEAT_KIND_PERSON else "bot"
        table.add_row(
            player.name, player.player_id, kind, player_status(player),
            ", ".join(str(r) for r in player.missed_rounds),
            ("yes" if player.checked_in else "no") if checking and kind == "person" else "",
        )  # fmt: skip
    return table


def quality_table(rounds: list[Any], title: str = "seating quality by round") -> Table:
    """Per round: repeat pairs, pairs that met the round before too, the most meetings of a
    pair, the widest spread of a player's seat winds, the standings spread at a table."""
    table = Table(
        title=title,
        caption="repeats: pairs that met before; in a row: also the "
        "round before; spread: points between a table's first and last (swiss)",
    )
    for column in ("round", "tables", "repeats", "in a row", "most met", "winds", "spread",
                   "secs"):  # fmt: skip
        table.add_column(column, justify="right")
    for r in rounds:
        q = r.quality
        table.add_row(
            str(r.round_no),
            str(len(r.tables)) if r.tables else "",
            str(q.repeat_pairs),
            str(q.consecutive_repeats),
            str(q.max_pair_meetings),
            str(q.wind_spread),
            f"{q.standings_spread:.1f}",
            f"{q.seconds:.3f}" + (" (deadline)" if q.deadline_hit else ""),
        )
    return table


def tables_table(tables: list[Any], title: str) -> Table:
    """A round's tables: full names (folded, never cut) and the status in words ("planned"
    for a table not yet opened)."""
    from hebei.common.exports import WINDS, match_status

    table = Table(title=title)
    for column in ("table", *WINDS, "hands", "status"):
        table.add_column(column, overflow="fold", min_width=len(column))
    for t in tables:
        names = [s.player_name or s.player_id for s in sorted(t.seats, key=lambda s: s.seat)]
        table.add_row(t.table_id or t.match_id, *names, str(t.hands_played), match_status(t.status))
    return table


def follow(
    conn: Connection,
    tournament_id: str,
    console: Console,
    *,
    hands_per_match: int,
    on_event: Callable[[Any], None] | None = None,
) -> Any:
    """Watch a tournament with progress bars (rounds, hands of the round) until it ends;
    return the last event (FINISHED or CANCELLED)."""
    from hebei.v1 import matchmaking_pb2 as mm

    kinds = mm.TournamentEventType
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    stream = conn.stub.WatchTournament(mm.WatchTournamentRequest(tournament_id=tournament_id))
    last = None
    with Progress(*columns, console=console, transient=False) as progress:
        rounds_task = None
        round_tasks: list[Any] = []  # the current round's tables and hands bars
        played: dict[str, int] = {}
        ended: set[str] = set()
        seated = (kinds.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, kinds.TOURNAMENT_EVENT_TYPE_SNAPSHOT)
        try:
            for event in stream:
                last = event
                tournament = event.tournament
                if rounds_task is None:
                    rounds_task = progress.add_task("rounds", total=tournament.config.rounds)
                finished_rounds = sum(1 for r in tournament.rounds if r.finished)
                progress.update(rounds_task, completed=finished_rounds)
                if event.type in seated and tournament.tables:
                    for task in round_tasks:
                        progress.update(task, visible=False)
                    played = {t.match_id: t.hands_played for t in tournament.tables}
                    ended = {t.match_id for t in tournament.tables if t.status in ENDED}
                    round_no = tournament.current_round
                    round_tasks = [
                        progress.add_task(f"round {round_no}: tables", total=len(played)),
                        progress.add_task(
                            f"round {round_no}: hands", total=len(played) * hands_per_match
                        ),
                    ]
                for table in event.tables:
                    if table.match_id in played:
                        played[table.match_id] = max(played[table.match_id], table.hands_played)
                        if table.status in ENDED:
                            ended.add(table.match_id)
                if round_tasks:
                    progress.update(round_tasks[0], completed=len(ended))
                    progress.update(round_tasks[1], completed=sum(played.values()))
                if on_event is not None:
                    on_event(event)
                if event.type in (
                    kinds.TOURNAMENT_EVENT_TYPE_FINISHED,
                    kinds.TOURNAMENT_EVENT_TYPE_CANCELLED,
                ):
                    break
        except grpc.RpcError as error:
            fail(rpc_message(error, conn.address), code=1)
    return last


def player_status(player: Any) -> str:
    """``active``, ``no-show (missed 2 rounds)``, ... as the CLI shows a player's status."""
    text = _status_name(player.status)
    return text + (f" ({player.status_reason})" if player.status_reason else "")


def _status_name(status: int) -> str:
    from hebei.v1 import matchmaking_pb2 as mm

    if status not in mm.PlayerStatus.values() or not status:
        return "active"
    return mm.PlayerStatus.Name(status).removeprefix("PLAYER_STATUS_").lower().replace("_", "-")


def shown_duration(seconds: float) -> str:
    """``2h``, ``15m`` or ``90s``: whole hours or minutes in their unit, else seconds."""
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"
