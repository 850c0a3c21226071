"""``hebei bench stack``: the whole-stack benchmark (on the ``bench`` sub-app).

The measuring lives in :mod:`hebei.bench.stack`; this parses, prints and compares with the
targets of ARCHITECTURE.md.
"""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from hebei.cli._util import fail
from hebei.cli.bench import bench_app


@bench_app.command("stack")
def stack_command(
    tables: int = typer.Option(16, "--tables", help="Tables of four bots, 1-256."),
    hands: int = typer.Option(8, "--hands", help="Hands per match, 1-64."),
    policy: str = typer.Option("expert", "--policy", help="The bots' policy."),
    processes: int = typer.Option(2, "--processes", help="Celery processes of the bot worker."),
    seed: int = typer.Option(1, "--seed", help="Seed of the seating."),
    soak: float = typer.Option(
        0.0, "--soak", help="Seconds of back-to-back rounds (memory and p99 per window)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Play TABLES tables of bots through the real services as separate processes and report
    hands/s, the same walls in one process and the ratio, the seat round trip, p99 per
    method, CPU seconds per component, events and settlements per second."""
    from hebei.bots.policies import POLICIES

    if not 1 <= tables <= 256 or not 1 <= hands <= 64 or not 1 <= processes <= 16:
        fail("--tables must be 1-256, --hands 1-64 and --processes 1-16")
    if policy not in POLICIES:
        fail(f"unknown --policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if not 0 <= soak <= 24 * 3600:
        fail("--soak must be 0-86400 seconds")
    from hebei.bench.stack import TARGETS, StackBenchOptions, run_stack_bench
    from hebei.stack.processes import StackError

    console = Console(stderr=True)
    options = StackBenchOptions(
        tables=tables, hands=hands, policy=policy, worker_processes=processes, seed=seed,
        soak_seconds=soak,
    )  # fmt: skip
    try:
        result = run_stack_bench(options, status=lambda text: console.print(f"[dim]{text}…"))
    except StackError as exc:
        fail(str(exc), code=1)
    if as_json:
        print(json.dumps(result))
        return
    out = Console()
    table = Table(
        title=f"hebei bench stack: {tables} tables × {hands} hands of {policy} bots",
        caption="ratio ≥ 1 meets the target",
    )
    for column in ("metric", "value", "target", "ratio"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    rows = (
        ("hands/s through the stack", "hands_per_second", ">="),
        ("hands/s in one process (same walls)", "in_process_hands_per_second", None),
        ("stack ÷ in process", "ratio", ">="),
        ("seat round trip p50, ms", "seat_rtt_p50_ms", None),
        ("seat round trip p99, ms", "seat_rtt_p99_ms", "<="),
        ("events written/s", "events_per_second", None),
        ("settlements booked/s", "settlements_per_second", None),
    )
    for label, key, sense in rows:
        value = result.get(key)
        target = TARGETS.get(key)
        ratio = ""
        if value is not None and target and sense:
            met = value / target if sense == ">=" else target / value if value else float("inf")
            ratio = f"[{'green' if met >= 1 else 'red'}]{met:.2f}"
        shown = "n/a" if value is None else f"{value:g}"
        target_text = f"{sense} {target:g}" if target and sense else ""
        table.add_row(label, shown, target_text, ratio)
    out.print(table)
    cpu = ", ".join(f"{name} {seconds:g}" for name, seconds in result["cpu_seconds"].items())
    out.print(f"CPU seconds: {cpu} (in {result['seconds']:g} s)")
    for service, methods in result["method_p99_ms"].items():
        if methods:
            shown = ", ".join(f"{m} {v:g}" for m, v in methods.items())
            out.print(f"p99 ms, {service}: {shown}")
    if "soak" in result:
        out.print(f"soak: {json.dumps(result['soak'])}")
