"""`hebei simulate`: self-play in one process, with a summary."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from hebei.cli import app
from hebei.cli._util import check_range, fail
from hebei.rules.profile import PROFILES, get_profile
from hebei.rules.scoring import system_of
from hebei.rules.simulate import PLAYER_KINDS, simulate


@app.command("simulate")
def simulate_command(
    hands: int = typer.Option(1000, "--hands", "-n", help="How many hands to play, 1-10,000,000."),
    seed: int = typer.Option(
        0, "--seed", "-s", help="Seed of the whole run; the same seed replays it."
    ),
    players: str = typer.Option(
        "random", "--players", help=f"Player kind: {', '.join(sorted(PLAYER_KINDS))}."
    ),
    profile: str = typer.Option(
        "main", "--profile", help=f"Rule profile: {', '.join(sorted(PROFILES))}."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table."),
) -> None:
    """Self-play: random-legal players in one process; prints outcomes, average fan, hands/s."""
    check_range("--hands", hands, 1, 10_000_000)
    if players not in PLAYER_KINDS:
        fail(f"unknown --players {players!r}; choose one of {', '.join(sorted(PLAYER_KINDS))}")
    try:
        rules = get_profile(profile)
    except ValueError as exc:
        fail(f"--profile: {exc}")
    if as_json:
        summary = simulate(hands, seed, players, rules)
        print(json.dumps(summary.to_json()))
        return
    console = Console()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("playing", total=hands)
        summary = simulate(hands, seed, players, rules, on_hand=lambda: progress.advance(task))
    table = Table(title=f"{summary.hands} hands, seed {seed}, {players} players")
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("rule profile", rules.name)
    for outcome, count in sorted(summary.outcomes.items()):
        table.add_row(f"outcome {outcome}", f"{count} ({100 * count / summary.hands:.1f}%)")
    table.add_row("wins", str(summary.wins))
    per_win = "points" if system_of(rules).reports_points else "fan"
    table.add_row(f"average {per_win} per win", f"{summary.average_fan:.2f}")
    for fan, count in summary.fan_counts.most_common(8):
        table.add_row(f"  fan {fan}", str(count))
    table.add_row("actions", str(summary.actions))
    table.add_row("hands per second", f"{summary.hands_per_second:.0f}")
    console.print(table)
