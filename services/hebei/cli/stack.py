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
    table_replicas: int = typer.Option(
        1, "--table-replicas", help="Table engine replicas sharing the matches, 1-8."
    ),
    soak: bool = typer.Option(
        False,
        "--soak",
        help="Play one-round tournaments back to back for --minutes: errors (must be 0), RSS"
        " of every process against a bound, the seat round trip's p99 per window.",
    ),
    minutes: float = typer.Option(10.0, "--minutes", help="The soak's length, 0.05-1440."),
    window: float = typer.Option(60.0, "--window", help="Seconds per soak window, 1-3600."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Play TABLES tables of bots through the real services as separate processes and report
    hands/s, the same walls in one process and the ratio, the seat round trip, p99 per
    method, CPU seconds per component, events and settlements per second."""
    from hebei.fleet.catalogue import POLICY_NAMES
    from hebei.stack.replicas import MAX_REPLICAS

    if not 1 <= tables <= 256 or not 1 <= hands <= 64 or not 1 <= processes <= 16:
        fail("--tables must be 1-256, --hands 1-64 and --processes 1-16")
    if not 1 <= table_replicas <= MAX_REPLICAS:
        fail(f"--table-replicas must be 1-{MAX_REPLICAS}, got {table_replicas}")
    if policy not in POLICY_NAMES:
        fail(f"unknown --policy {policy!r}; choose one of {', '.join(POLICY_NAMES)}")
    if not 0.05 <= minutes <= 1440 or not 1 <= window <= 3600:
        fail("--minutes must be 0.05-1440 and --window 1-3600 seconds")
    from hebei.bench.stack import StackBenchOptions, run_stack_bench
    from hebei.stack.processes import StackError

    console = Console(stderr=True)
    options = StackBenchOptions(
        tables=tables, hands=hands, policy=policy, worker_processes=processes, seed=seed,
        soak_seconds=60.0 * minutes if soak else 0.0, window_seconds=window,
        table_replicas=table_replicas,
    )  # fmt: skip
    try:
        result = run_stack_bench(options, status=lambda text: console.print(f"[dim]{text}…"))
    except StackError as exc:
        fail(str(exc), code=1)
    if as_json:
        print(json.dumps(result))
    else:
        _print(result, tables, hands, policy, table_replicas)
    failed = _soak_failures(result) if soak else []
    if failed:
        fail("; ".join(failed), code=1)


def _soak_failures(result: dict) -> list[str]:
    """Why a soak failed: errors, or a process's memory grew beyond the bound."""
    out = []
    if result["errors"]["total"]:
        out.append(f"soak: {result['errors']['total']} errors")
    summary = result["soak"]
    if not summary["memory_within_bound"]:
        grown = [
            f"{name} +{m['growth_mib']:g} MiB"
            for name, m in summary["memory"].items()
            if m["growth_mib"] > m["bound_mib"]
        ]
        out.append(f"soak: memory grew beyond its bound: {', '.join(grown)}")
    return out


def _print(result: dict, tables: int, hands: int, policy: str, replicas: int = 1) -> None:
    from hebei.bench.stack import TARGETS

    out = Console()
    table = Table(
        title=f"hebei bench stack: {tables} tables × {hands} hands of {policy} bots"
        + (f" on {replicas} engine replicas" if replicas > 1 else ""),
        caption=(
            "ratio ≥ 1 meets the target; the round trip is at the engine, from the observation"
            " handed to gRPC to the answer; the decision opened → answer adds its log commit"
        ),
    )
    for column in ("metric", "value", "target", "ratio"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    rows = (
        ("hands/s through the stack", "hands_per_second", ">="),
        ("hands/s in one process (same walls)", "in_process_hands_per_second", None),
        ("stack ÷ in process", "ratio", ">="),
        ("seat round trip p50, ms (sent → answer)", "seat_rtt_p50_ms", None),
        ("seat round trip p99, ms", "seat_rtt_p99_ms", "<="),
        ("decision opened → answer p99, ms", "decision_wait_p99_ms", None),
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
    errors = {k: v for k, v in result["errors"].items() if k != "total"}
    out.print(f"errors: {result['errors']['total']}" + (f" {json.dumps(errors)}" if errors else ""))
    if "soak" in result:
        summary = result["soak"]
        for window in summary["windows"]:
            out.print(
                f"window of {window['seconds']:g} s: {window['hands_per_second']:g} hands/s,"
                f" seat round trip p99 {window['seat_rtt_p99_ms']} ms (decision opened →"
                f" answer {window['decision_wait_p99_ms']} ms)"
            )
        out.print(
            f"p99 per window: median {summary['seat_rtt_p99_ms_median']} ms, max"
            f" {summary['seat_rtt_p99_ms_max']} ms, stable: {summary['p99_stable']}"
        )
        for name, m in summary["memory"].items():
            out.print(
                f"{name}: RSS {m['start_rss_mib']:g} → {m['end_rss_mib']:g} MiB; PSS"
                f" {m['start_mib']:g}, after warm-up {m['warm_mib']:g}, end {m['end_mib']:g}"
                f" (max {m['max_mib']:g}, growth {m['growth_mib']:g}, bound {m['bound_mib']:g})"
            )
        out.print(f"memory growth after warm-up within bounds: {summary['memory_within_bound']}")
