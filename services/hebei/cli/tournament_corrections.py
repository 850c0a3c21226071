"""``hebei tournament penalty|award|correct|undo|reveal|repair|dissolve``: a referee's and
operator's corrections of a running tournament, booked in the ledger where they move
points.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console

from hebei.cli._util import check_range, fail
from hebei.cli.tournament import tournament_app
from hebei.cli.tournament_connection import (
    ActorOption,
    AddressOption,
    JsonOption,
    TokenOption,
    _common,
    operator_call,
    print_json,
)
from hebei.cli.tournament_display import tables_table


@tournament_app.command("penalty")
def penalty_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Argument("", help="The player (not with --cancel)."),
    points: int = typer.Argument(0, help="Points taken, 1-1,000,000."),
    reason: str = typer.Option(..., "--reason"),
    by: str = typer.Option("operator", "--by", help="Who assigns (or cancels) it."),
    cancel: str = typer.Option("", "--cancel", help="Cancel this penalty id instead."),
    request_id: str = typer.Option("", "--request-id"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Assign a penalty (booked in the ledger), or cancel one with --cancel PENALTY_ID."""
    from hebei.matchmaking.tournaments import MAX_PENALTY
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    if cancel:
        request = mm.CancelPenaltyRequest(
            tournament_id=tournament_id, penalty_id=cancel, reason=reason, cancelled_by=by
        )
        penalty = conn.call("CancelPenalty", request, actor=by).penalty
    else:
        if not player_id or points <= 0:
            fail("give PLAYER_ID and POINTS (or --cancel PENALTY_ID)")
        check_range("POINTS", points, 1, MAX_PENALTY)
        penalty = _assign(conn, tournament_id, player_id, points, reason, by, request_id)
    _print_penalty(penalty, as_json)


def _assign(conn, tournament_id, player_id, points, reason, by, request_id) -> Any:
    """AssignPenalty: ``points`` > 0 taken, < 0 awarded."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.AssignPenaltyRequest(
        tournament_id=tournament_id, player_id=player_id, points=points, reason=reason,
        assigned_by=by, request_id=request_id,
    )  # fmt: skip
    return conn.call("AssignPenalty", request, actor=by).penalty


def _print_penalty(penalty: Any, as_json: bool) -> None:
    if as_json:
        print_json(penalty)
        return
    state = "cancelled" if penalty.cancelled else "booked"
    what = f"{penalty.points} points from" if penalty.points > 0 else f"{-penalty.points} to"
    print(f"{penalty.penalty_id}: {what} {penalty.player_id}, {state}"
          f" (ledger entry {penalty.entry_id})")  # fmt: skip


@tournament_app.command("award")
def award_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Argument(..., help="The player."),
    points: int = typer.Argument(..., help="Points given, 1-1,000,000."),
    reason: str = typer.Option(..., "--reason"),
    by: str = typer.Option("operator", "--by", help="Who awards them."),
    request_id: str = typer.Option("", "--request-id"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Award points (booked in the ledger against the tournament's account); `undo` or
    `penalty --cancel ID` takes it back."""
    from hebei.matchmaking.tournaments import MAX_PENALTY

    check_range("POINTS", points, 1, MAX_PENALTY)
    conn = _common(address, token)
    _print_penalty(
        _assign(conn, tournament_id, player_id, -points, reason, by, request_id), as_json
    )


@tournament_app.command("correct")
def correct_command(
    tournament_id: str = typer.Argument(...),
    match_id: str = typer.Argument(..., help="The ended match."),
    deltas: str = typer.Argument(..., help="Points moved per seat 0-3, e.g. 8,-8,0,0 (sum 0)."),
    reason: str = typer.Option(..., "--reason"),
    by: str = typer.Option("operator", "--by", help="Who rules."),
    request_id: str = typer.Option("", "--request-id"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Correct a match's result (a referee's ruling), booked in the ledger as a new entry."""
    from hebei.v1 import matchmaking_pb2 as mm

    try:
        seat_deltas = [int(x) for x in deltas.split(",")]
    except ValueError:
        fail(f"DELTAS must be four integers like 8,-8,0,0, got {deltas!r:.40}")
    request = mm.CorrectMatchResultRequest(
        tournament_id=tournament_id, match_id=match_id, seat_deltas=seat_deltas, reason=reason,
        ruled_by=by, request_id=request_id,
    )  # fmt: skip
    correction = _common(address, token).call("CorrectMatchResult", request, actor=by).correction
    if as_json:
        print_json(correction)
    else:
        print(f"{correction.correction_id}: {correction.match_id} corrected by"
              f" {','.join(map(str, correction.seat_deltas))} (ledger entry"
              f" {correction.entry_id})")  # fmt: skip


@tournament_app.command("undo")
def undo_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Undo the last correction, penalty or award still in force (its entry reversed)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.UndoCorrectionRequest(tournament_id=tournament_id, reason=reason)
    response = _common(address, token).call("UndoCorrection", request, actor=actor)
    if as_json:
        print_json(response)
    elif response.HasField("correction"):
        print(f"correction {response.correction.correction_id} of"
              f" {response.correction.match_id} undone")  # fmt: skip
    else:
        print(f"penalty {response.penalty.penalty_id} ({response.penalty.points}) undone")


@tournament_app.command("reveal")
def reveal_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option("", "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Reveal the hidden rounds' results (--hide-last-rounds) to everyone."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.RevealResultsRequest(tournament_id=tournament_id, reason=reason)
    operator_call("RevealResults", request, address, token, actor, as_json)


@tournament_app.command("repair")
def repair_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Re-pair the round in play before its first hand: it is planned again (`preview`,
    `swap`) and the tournament paused; `resume` seats it anew."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.RepairRoundRequest(tournament_id=tournament_id, reason=reason)
    operator_call("RepairRound", request, address, token, actor, as_json)


@tournament_app.command("dissolve")
def dissolve_command(
    tournament_id: str = typer.Argument(...),
    match_id: str = typer.Argument(..., help="The match (see `status`)."),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Dissolve one match of the tournament (booked as dissolved; the round goes on)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.DissolveTableRequest(tournament_id=tournament_id, match_id=match_id, reason=reason)
    table = _common(address, token).call("DissolveTable", request, actor=actor).table
    if as_json:
        print_json(table)
    else:
        Console().print(tables_table([table], f"{match_id} dissolved"))
