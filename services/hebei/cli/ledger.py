"""``hebei ledger serve|audit`` and ``hebei bench ledger``.

``serve`` runs the ledger service (options override the ``HEBEI_LEDGER_*`` variables);
``audit`` checks the ledger's invariants straight on the database; ``bench ledger`` (on the
``bench`` sub-app of :mod:`hebei.cli.bench`) measures settlements per second. The work lives
in :mod:`hebei.ledger` and :mod:`hebei.bench.ledger`; this only parses and prints.
"""

from __future__ import annotations

import json
import os

import typer
from rich.console import Console
from rich.table import Table

from hebei.cli import app
from hebei.cli._util import check_range, fail
from hebei.cli.bench import bench_app

ledger_app = typer.Typer(help="The ledger service: serve it, audit it.", no_args_is_help=True)
app.add_typer(ledger_app, name="ledger")

DATABASE_URL_HELP = "PostgreSQL URL (default: $HEBEI_DATABASE_URL, else an embedded PostgreSQL)."


@ledger_app.command("serve")
def serve_command(
    port: int | None = typer.Option(None, "--port", help="gRPC port (default 50053)."),
    metrics_port: int | None = typer.Option(None, "--metrics-port", help="Prometheus port."),
    database_url: str | None = typer.Option(None, "--database-url", help=DATABASE_URL_HELP),
    schema: str | None = typer.Option(None, "--schema", help="Schema of the ledger's tables."),
) -> None:
    """Run the ledger service until SIGTERM (same as ``python -m hebei.ledger``)."""
    from hebei.ledger.service import main

    overrides = {
        "HEBEI_LEDGER_PORT": port,
        "HEBEI_LEDGER_METRICS_PORT": metrics_port,
        "HEBEI_LEDGER_DATABASE_URL": database_url,
        "HEBEI_LEDGER_SCHEMA": schema,
    }
    os.environ.update({name: str(value) for name, value in overrides.items() if value is not None})
    main()


@ledger_app.command("audit")
def audit_command(
    database_url: str | None = typer.Option(None, "--database-url", help=DATABASE_URL_HELP),
    schema: str = typer.Option("ledger", "--schema", help="Schema of the ledger's tables."),
    tournament: str | None = typer.Option(None, "--tournament", help="Only this tournament."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Check every entry balances, every balance equals its postings, every tournament sums
    to zero. Exit status 1 when a problem is found."""
    from hebei.common import embedded
    from hebei.common.errors import DomainError
    from hebei.ledger.journal import Ledger

    try:
        ledger = Ledger.open(database_url or embedded.database_url(), schema)
        try:
            report = ledger.audit(tournament)
        finally:
            ledger.close()
    except (DomainError, ValueError) as error:
        fail(str(error))
    except Exception as error:  # psycopg errors, a timeout: one line, no stack trace
        fail(f"cannot audit the ledger: {str(error).strip().splitlines()[0]}")
    if as_json:
        print(
            json.dumps(
                {
                    "ok": report.ok,
                    "entries_checked": report.entries_checked,
                    "postings_checked": report.postings_checked,
                    "accounts_checked": report.accounts_checked,
                    "unbalanced_entries": report.unbalanced_entries,
                    "balance_mismatches": report.balance_mismatches,
                    "tournaments": [
                        {"tournament_id": t.tournament_id, "entries": t.entries, "total": t.total}
                        for t in report.tournaments
                    ],
                    "problems": list(report.problems),
                }
            )
        )
    else:
        console = Console()
        console.print(
            f"entries {report.entries_checked:,}, postings {report.postings_checked:,}, "
            f"accounts {report.accounts_checked:,}: "
            + ("[green]ok" if report.ok else f"[red]{len(report.problems)} problem(s)")
        )
        for problem in report.problems:
            console.print(f"  {problem}")
    if not report.ok:
        raise typer.Exit(1)


@bench_app.command("ledger")
def bench_ledger_command(
    database_url: str | None = typer.Option(None, "--database-url", help=DATABASE_URL_HELP),
    settlements: int = typer.Option(
        2000, "--settlements", "-n", help="Settlements per pass, 1-1,000,000."
    ),
    plain_rows: int = typer.Option(
        2000, "--plain-rows", help="Rows per plain-loop pass, 1-1,000,000."
    ),
    concurrency: int = typer.Option(8, "--concurrency", "-c", help="Threads posting, 1-64."),
    rounds: int = typer.Option(3, "--rounds", help="Passes of each, 1-100; the best one counts."),
    seed: int = typer.Option(1, "--seed", "-s", help="Seed of the sample settlements."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """Settlements/s (fsync on) against a plain single-row insert loop on the same database."""
    from hebei.bench.ledger import TARGET_RATIO, TARGET_SETTLEMENTS_PER_SECOND, run_ledger_bench

    check_range("--settlements", settlements, 1, 1_000_000)
    check_range("--plain-rows", plain_rows, 1, 1_000_000)
    check_range("--concurrency", concurrency, 1, 64)
    check_range("--rounds", rounds, 1, 100)
    kwargs = {
        "settlements": settlements,
        "plain_rows": plain_rows,
        "concurrency": concurrency,
        "rounds": rounds,
        "seed": seed,
    }
    try:
        if as_json:
            print(json.dumps(run_ledger_bench(database_url, **kwargs)))
            return
        console = Console()
        with console.status("starting") as status:
            result = run_ledger_bench(
                database_url, **kwargs, on_stage=lambda text: status.update(f"{text} ...")
            )
    except Exception as error:  # a database that cannot be reached: one line
        fail(f"bench ledger: {str(error).strip().splitlines()[0]}")
    table = Table(
        title=(
            f"hebei bench ledger: fsync {result['fsync']}, synchronous_commit "
            f"{result['synchronous_commit']}, {concurrency} posters, best of {rounds}"
        ),
        caption="ratio ≥ 1 meets the target",
    )
    for column, justify in (("metric", "left"), ("value", "right"), ("target", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    table.add_column("ratio", justify="right")
    rate = result["settlements_per_second"]
    share = result["ratio"]

    def ratio_text(value: float) -> str:
        return f"[{'green' if value >= 1 else 'red'}]{value:.2f}"

    table.add_row(
        "settlements/s",
        f"{rate:,.0f}",
        f"≥ {TARGET_SETTLEMENTS_PER_SECOND:,.0f}",
        ratio_text(rate / TARGET_SETTLEMENTS_PER_SECOND),
    )
    table.add_row("plain insert loop, rows/s", f"{result['plain_inserts_per_second']:,.0f}", "", "")
    table.add_row(
        "settlements / plain loop",
        f"{share:.0%}",
        f"≥ {TARGET_RATIO:.0%}",
        ratio_text(share / TARGET_RATIO),
    )
    table.add_row("audit", "ok" if result["audit_ok"] else "[red]FAILED", "ok", "")
    Console().print(table)
