"""``hebei tournament ...``: tournaments. For now ``seating``: seat a whole event and show it.

``hebei tournament seating --players P --rounds R --mode random|swiss|schedule|duplicate
--seed S [--json] [--deadline SECONDS]`` seats players numbered 0..P-1 round by round as a
tournament would (swiss with results simulated from the seed) and prints every table East,
South, West, North with each round's quality and the event's totals against the lower bounds.
``--json`` prints exactly :func:`hebei.matchmaking.seating.plan_event` as one line (no timings,
so the same arguments print the same bytes). P must be a multiple of 4: a tournament adds
filler bots to fill its tables, so the error says how many to add. The work lives in
:mod:`hebei.matchmaking.seating`; this only checks, calls and prints.
"""

from __future__ import annotations

import json
import math

import typer
from rich.console import Console
from rich.table import Table

from hebei.cli import app
from hebei.cli._util import check_range, fail
from hebei.matchmaking.seating import (
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
    MODES,
    WINDS,
    SeatedRound,
    event_quality,
    plan_event,
    play_event,
)

tournament_app = typer.Typer(
    help="Tournaments: create, register, run, follow.", no_args_is_help=True
)
app.add_typer(tournament_app, name="tournament")


def check_seating_options(players: int, rounds: int, mode: str, deadline: float) -> None:
    """One clear line and exit status 2 for each bad option."""
    if mode not in MODES:
        fail(f"unknown --mode {mode!r}; choose one of {', '.join(MODES)}")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        fail(f"--players must be {MIN_PLAYERS}-{MAX_PLAYERS}, got {players}")
    if players % 4:
        fillers = 4 - players % 4
        fail(
            f"--players {players} is not a multiple of 4 (tables of four): "
            f"add {fillers} filler bot(s), i.e. --players {players + fillers}"
        )
    check_range("--rounds", rounds, 1, MAX_ROUNDS)
    if not (math.isfinite(deadline) and deadline > 0):
        fail(f"--deadline must be a positive number of seconds, got {deadline}")


@tournament_app.command("seating")
def seating_command(
    players: int = typer.Option(16, "--players", help="Players, 4-4096, a multiple of 4."),
    rounds: int = typer.Option(5, "--rounds", help=f"Rounds, 1-{MAX_ROUNDS}."),
    mode: str = typer.Option("random", "--mode", help=f"Seating mode: {', '.join(MODES)}."),
    seed: int = typer.Option(0, "--seed", help="Seed: the same seed gives the same seating."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON line (plan_event)."),
    deadline: float = typer.Option(
        2.0, "--deadline", help="Seconds per round after which the best seating found is used."
    ),
) -> None:
    """Seat an event of players 0..P-1 and print the tables with their quality."""
    check_seating_options(players, rounds, mode, deadline)
    try:
        if as_json:
            plan = plan_event(mode, players=players, rounds=rounds, seed=seed, deadline=deadline)
            print(json.dumps(plan, separators=(",", ":")))
            return
        seated, standings = play_event(
            mode, players=players, rounds=rounds, seed=seed, deadline=deadline
        )
    except ValueError as error:
        fail(str(error))
    console = Console()
    for seating, points in zip(seated, standings, strict=True):
        console.print(round_table(seating, points))
    console.print(summary_table(seated, players, rounds, mode, seed))


def round_table(seating: SeatedRound, points: dict[str, float]) -> Table:
    """One round: its tables East..North (and group, for duplicate), quality in the title."""
    q = seating.quality
    title = (
        f"Round {seating.round_no}: {q.repeat_pairs} repeat pairs, "
        f"{q.consecutive_repeats} consecutive, most meetings {q.max_pair_meetings}, "
        f"wind spread {q.wind_spread}"
    )
    if points:
        title += f", standings spread {q.standings_spread:.1f}"
    table = Table(
        title=title, caption=f"{q.seconds:.3f} s" + (", deadline hit" if q.deadline_hit else "")
    )
    table.add_column("table", justify="right")
    duplicate = any(seating.groups)
    if duplicate:
        table.add_column("group", justify="right")
    for wind in WINDS:
        table.add_column(wind, justify="right")
    for number, (seats, group) in enumerate(zip(seating.tables, seating.groups, strict=True), 1):
        cells = [_player(p, points) for p in seats]
        table.add_row(str(number), *([str(group)] if duplicate else []), *cells)
    return table


def _player(player: str, points: dict[str, float]) -> str:
    return f"{player} ({points[player]:+g})" if points else player


def summary_table(
    seated: list[SeatedRound], players: int, rounds: int, mode: str, seed: int
) -> Table:
    """The event's totals next to the lower bounds."""
    quality = event_quality(seated, players, rounds, mode)
    bounds = quality["lower_bounds"]
    assert isinstance(bounds, dict)
    table = Table(title=f"{mode} seating: {players} players, {rounds} rounds, seed {seed}")
    table.add_column("event")
    table.add_column("value", justify="right")
    table.add_column("lower bound", justify="right")
    table.add_row(
        "repeat pairs", str(quality["total_repeat_pairs"]), str(bounds["total_repeat_pairs"])
    )
    table.add_row(
        "most meetings of a pair",
        str(quality["max_pair_meetings"]),
        str(bounds["max_pair_meetings"]),
    )
    table.add_row("consecutive repeats", str(quality["consecutive_repeats"]), "0")
    table.add_row("wind spread (max - min of a player's winds)", str(quality["wind_spread"]), "")
    if "mean_standings_spread" in quality:
        table.add_row(
            "mean standings spread at a table", f"{quality['mean_standings_spread']:.1f}", ""
        )
    slowest = max(s.quality.seconds for s in seated)
    hits = sum(s.quality.deadline_hit for s in seated)
    table.add_row("slowest round, seconds", f"{slowest:.3f}", "")
    table.add_row("rounds that hit the deadline", str(hits), "")
    return table
