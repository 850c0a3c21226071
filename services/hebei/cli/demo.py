"""`hebei demo` (what `make run` runs): a bot tournament on the whole local stack."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hebei.cli import app
from hebei.cli._util import fail


@app.command("demo")
def demo_command(
    tables: int = typer.Option(2, "--tables", help="Tables per round (four bots each)."),
    rounds: int = typer.Option(
        2, "--rounds", help="Rounds; after the first, seats follow the standings."
    ),
    hands: int = typer.Option(4, "--hands", help="Hands per match."),
    seed: int = typer.Option(1, "--seed", help="Seed of the seating and of every wall."),
    processes: int = typer.Option(1, "--processes", help="Bot worker processes."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
) -> None:
    """Run a tournament of bots on the local stack: ledger, table engine and a Celery bot worker,
    on embedded PostgreSQL and Redis unless HEBEI_DATABASE_URL / HEBEI_BROKER_URL are set."""
    if not 1 <= tables <= 16 or not 1 <= rounds <= 10 or not 1 <= hands <= 64 or processes < 1:
        fail("--tables must be 1-16, --rounds 1-10, --hands 1-64 and --processes at least 1")
    from hebei.stack.local import (
        DemoOptions,
        StackError,
        audit,
        local_stack,
        play_round,
        players_for,
        seat_round,
        standings,
        wait_for_ledger,
    )

    options = DemoOptions(
        tables=tables, rounds=rounds, hands=hands, seed=seed, worker_processes=processes
    )
    console = Console(stderr=as_json)
    tournament_id = f"demo-{seed}-{uuid.uuid4().hex[:6]}"
    players = players_for(options)
    started = time.perf_counter()
    try:
        with local_stack(
            options, Path(".hebei"), lambda text: console.print(f"[dim]{text}…[/dim]")
        ) as stack:
            ranking: list[str] = []
            columns = (
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
            )
            with Progress(*columns, console=console) as progress:
                for round_no in range(1, rounds + 1):
                    task = progress.add_task(f"round {round_no}: hands", total=tables * hands)
                    seated = seat_round(players, ranking, round_no, seed)
                    play_round(
                        stack,
                        tournament_id,
                        round_no,
                        seated,
                        options,
                        lambda done, task=task: progress.update(task, completed=done),
                    )
                    wait_for_ledger(stack, tournament_id, round_no * tables * hands)
                    ranking = [s.player_id for s in standings(stack, tournament_id)]
            rows = standings(stack, tournament_id)
            checked = audit(stack, tournament_id)
    except StackError as exc:
        fail(str(exc), code=1)
    seconds = time.perf_counter() - started
    names = {p.player_id: p.name for p in players}
    if as_json:
        print(
            json.dumps(
                {
                    "tournament_id": tournament_id,
                    "hands": rounds * tables * hands,
                    "seconds": round(seconds, 1),
                    "audit_ok": checked.ok,
                    "standings": [
                        {
                            "rank": s.rank,
                            "player_id": s.player_id,
                            "name": names.get(s.player_id, s.player_name),
                            "points": s.points,
                            "hands_won": s.hands_won,
                            "hands_dealt_in": s.hands_dealt_in,
                        }
                        for s in rows
                    ],
                }
            )
        )
    else:
        table = Table(
            title=f"{tournament_id}: {rounds} rounds x {tables} tables x {hands} hands, standings from the ledger"
        )
        for column in ("rank", "player", "points", "won", "dealt in", "best match"):
            table.add_column(column, justify="left" if column == "player" else "right")
        for s in rows:
            table.add_row(
                str(s.rank),
                names.get(s.player_id, s.player_name),
                str(s.points),
                str(s.hands_won),
                str(s.hands_dealt_in),
                str(s.best_match_points),
            )
        console.print(table)
        verdict = "every entry sums to zero" if checked.ok else "; ".join(checked.problems)
        console.print(
            f"ledger audit: {checked.entries_checked} entries, {verdict}; {seconds:.1f} s in all"
        )
    if not checked.ok:
        raise typer.Exit(1)
