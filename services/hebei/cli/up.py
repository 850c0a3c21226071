"""`hebei up`: the whole local stack in the foreground, until Ctrl-C or SIGTERM."""

from __future__ import annotations

import sys
from typing import Any

import click
import typer
import typer.core

from hebei.cli import app
from hebei.cli._util import fail
from hebei.cli.bots import MAX_PROCESSES


def _usage_errors() -> tuple[type[Exception], ...]:
    """click's UsageError and, in typer versions that bundle their own click, typer's copy."""
    bundled = getattr(typer.core, "_click", None)
    return (click.UsageError, *((bundled.exceptions.UsageError,) if bundled else ()))


class _OneLineErrors(typer.core.TyperCommand):
    """Usage errors (``--workers abc``, an unknown option) as one line, exit status 2."""

    def make_context(self, info_name: str | None, args: list[str], **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, **extra)
        except _usage_errors() as exc:
            print(f"hebei: {exc.format_message()}", file=sys.stderr)
            raise typer.Exit(2) from None


# A process of the stack that dies is started again (same ports, tokens and environment) up
# to this many times in 10 minutes; one more exit stops the stack with one line.
RESTARTS = 5


def _say(text: str) -> None:
    print(text, flush=True)


@app.command("up", cls=_OneLineErrors)
def up_command(
    workers: int = typer.Option(1, "--workers", help="Bot workers (0: none)."),
    processes: int = typer.Option(1, "--processes", help="Celery processes per bot worker."),
    monitoring: bool = typer.Option(
        False,
        "--monitoring",
        help="Also run Prometheus (when installed) with deploy/monitoring's rules and alerts.",
    ),
    web: bool = typer.Option(True, "--web/--no-web", help="Run the web gateway (the pages)."),
    botservice: bool = typer.Option(
        True, "--botservice/--no-botservice", help="Run the bot service (hints and reviews)."
    ),
    table_replicas: int = typer.Option(
        1, "--table-replicas", help="Table engine replicas sharing the matches, 1-8."
    ),
    matchmaking_replicas: int = typer.Option(
        1, "--matchmaking-replicas", help="Matchmaking replicas sharing the tournaments, 1-8."
    ),
) -> None:
    """Run the whole local stack in the foreground: ledger, table engine, matchmaking, the bot
    service and bot workers on 127.0.0.1, on embedded PostgreSQL and Redis unless HEBEI_DATABASE_URL /
    HEBEI_BROKER_URL are set; with --monitoring a Prometheus scraping them all. Writes
    .hebei/stack.json for the other commands. A process that dies is started again on the
    same ports with the same tokens (up to 5 times in 10 minutes); Ctrl-C or SIGTERM stops.
    With --table-replicas / --matchmaking-replicas, each replica is a process of its own
    (its own ports, restarted on its own), and every client is given all the engines."""
    if not 0 <= workers <= 16 or not 1 <= processes <= MAX_PROCESSES:
        fail(
            f"--workers must be 0-16 and --processes 1-{MAX_PROCESSES}, got {workers} and"
            f" {processes}"
        )
    from hebei.stack.replicas import check_replicas

    try:
        check_replicas(table_replicas, matchmaking_replicas)
    except ValueError as exc:
        fail(str(exc))
    from hebei.common.embedded import default_data_dir
    from hebei.stack.discovery import (
        StackLock,
        StackRunning,
        remove_stack_file,
        stack_file,
        write_stack_file,
    )
    from hebei.stack.processes import (
        SERVICES,
        StackError,
        StackOptions,
        available_services,
        redact,
        start_stack,
    )
    from hebei.stack.prometheus import monitoring_dir

    data_dir = default_data_dir()
    lock = StackLock(data_dir)
    try:
        lock.acquire()
    except StackRunning as exc:
        fail(str(exc), code=1)
    except OSError as exc:
        fail(f"cannot use the data directory {data_dir}: {exc.strerror or exc}", code=1)
    path = stack_file(data_dir)
    chosen = {*available_services(), *(("botservice",) if botservice else ())}
    services = tuple(s for s in SERVICES if s in chosen)  # in start order
    options = StackOptions(
        services=services,
        data_dir=data_dir,
        bot_workers=workers,
        worker_processes=processes,
        monitoring=monitoring,
        web=web,
        restarts=RESTARTS,
        table_replicas=table_replicas,
        matchmaking_replicas=matchmaking_replicas,
    )
    stack = None
    code = 0
    try:
        stack = start_stack(options, status=lambda text: _say(f"{text}…"))
        write_stack_file(path, stack.info())
        for name, address in stack.replica_addresses.items():  # each replica on its line
            _say(f"{name}: {address}")
        metrics = ", ".join(f"{n} {a}" for n, a in stack.metrics_addresses.items())
        _say(f"metrics: {metrics}")
        if stack.web_url:
            _say(f"web: {stack.web_url}")
            _say(f"web metrics: http://{stack.web_metrics_address}/metrics")
        count = stack.bot_processes
        _say(f"bots: {count} worker process{'' if count == 1 else 'es'}")
        if stack.bot_metrics_addresses:
            _say(f"bot metrics: {', '.join(stack.bot_metrics_addresses)}")
        if monitoring:
            if stack.prometheus_address:
                rules = stack.options.monitoring_dir or monitoring_dir()
                where = f"rules and alerts from {rules}" if rules else "no rules or alerts"
                _say(f"prometheus: http://{stack.prometheus_address} ({where})")
            else:
                _say(f"prometheus: not started: {stack.monitoring_note}")
        _say(f"database: {redact(stack.database_url)}")
        _say(f"broker: {redact(stack.broker_url)}")
        _say(f"logs: {stack.log_dir}")
        _say(f"stack file: {path} (addresses and the operator token)")
        _say("ready: Ctrl-C stops the stack")
        stack.wait()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the normal end
        if stack is None:
            _say("interrupted before the stack was ready")
    except StackError as exc:  # it did not start (already stopped), or a process ended
        print(f"hebei: {exc}", file=sys.stderr, flush=True)
        code = 1
    except OSError as exc:
        print(f"hebei: cannot write {path}: {exc.strerror or exc}", file=sys.stderr, flush=True)
        code = 1
    finally:
        if stack is not None:
            remove_stack_file(path)
            stack.stop()
        lock.release()
    _say("stopped")
    raise typer.Exit(code)
