"""``hebei bots ...``: run a bot worker, list the live workers, queue a seat."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from hebei.cli import app
from hebei.cli._util import check_range, fail

if TYPE_CHECKING:
    from hebei.common.tls import ClientTls

bots_app = typer.Typer(help="The bot fleet: Celery workers playing seats.", no_args_is_help=True)
app.add_typer(bots_app, name="bots")

# A worker's processes (`hebei up --processes` has the same bound) and seat sessions per
# process (`hebei demo` asks for one per player and eight more: 264 at its 256 players).
MAX_PROCESSES, MAX_SESSIONS = 64, 1024

# The worker's TLS variables, which its options set for its processes (hebei.bots.config).
TLS_VARIABLES = ("HEBEI_BOTS_TLS_CA", "HEBEI_BOTS_TLS_CLIENT_CERT", "HEBEI_BOTS_TLS_CLIENT_KEY")
CHECK_SECONDS = 5.0
CA_HELP = "The CA that signed the table engine's certificate (TLS)."
CERT_HELP = "A client certificate to present to the engine (mutual TLS), with --key-file."
KEY_HELP = "The key of --cert-file."


def _client_tls(ca_file: str, cert_file: str, key_file: str) -> ClientTls | None:
    """The TLS files given as options, checked (one line naming the option), or None."""
    from hebei.common.config import ConfigError
    from hebei.common.tls import ClientTls

    if not (ca_file or cert_file or key_file):
        return None
    try:
        return ClientTls.from_options(
            *(Path(f).expanduser().resolve() if f else None for f in (ca_file, cert_file, key_file))
        )
    except ConfigError as exc:
        fail(str(exc))


@bots_app.command("worker")
def worker_command(
    processes: int = typer.Option(
        0, "--processes", "-p", help="Worker processes, 0-64; 0 = one per CPU core."
    ),
    sessions: int = typer.Option(
        32, "--sessions", "-s", help="Seat sessions (threads) per process, 1-1,024."
    ),
    policies: str = typer.Option(
        "random,efficiency,expert", "--policies", help="Policies this worker serves."
    ),
    loglevel: str = typer.Option("INFO", "--loglevel", help="DEBUG, INFO, WARNING or ERROR."),
    name: str = typer.Option("bots", "--name", help="Worker name prefix (name-N@host)."),
    metrics_port: int = typer.Option(
        -1, "--metrics-port", help="Serve /metrics from this port up (one per process); 0 = any."
    ),
    ca_file: str = typer.Option("", "--ca-file", help=f"{CA_HELP} Default: $HEBEI_BOTS_TLS_CA."),
    cert_file: str = typer.Option("", "--cert-file", help=CERT_HELP),
    key_file: str = typer.Option("", "--key-file", help=KEY_HELP),
) -> None:
    """Start a bot worker: processes per core, many seat sessions per process. Its TLS files
    (options or HEBEI_BOTS_TLS_*) decide how its sessions reach the engine, whatever a seat
    ticket says."""
    from hebei.bots.worker import run_workers
    from hebei.common.config import ConfigError

    tls = _client_tls(ca_file, cert_file, key_file)
    if tls is not None:
        files = (tls.ca_file, tls.cert_file, tls.key_file)
        for name, path in zip(TLS_VARIABLES, files, strict=True):
            if path is not None:
                os.environ[name] = str(path)  # the worker processes read them
    check_range("--processes", processes, 0, MAX_PROCESSES)
    check_range("--sessions", sessions, 1, MAX_SESSIONS)
    check_range("--metrics-port", metrics_port, -1, 65535)
    if loglevel.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        fail(f"--loglevel must be DEBUG, INFO, WARNING or ERROR, got {loglevel!r}")
    try:
        code = run_workers(
            processes or os.cpu_count() or 1,
            sessions,
            policies.split(","),
            loglevel=loglevel.upper(),
            name=name,
            metrics_port=None if metrics_port < 0 else metrics_port,
        )
    except (ValueError, ConfigError) as exc:
        fail(str(exc))
    raise typer.Exit(code)


@bots_app.command("workers")
def workers_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List the live bot workers and the policies they serve."""
    import redis

    from hebei.common.config import ConfigError
    from hebei.fleet.registry import live_workers

    try:
        workers = live_workers()
    except (redis.RedisError, ConfigError) as exc:
        fail(f"cannot read the worker registry: {exc}")
    if as_json:
        print(json.dumps(workers))
        return
    table = Table(title=f"{len(workers)} live bot workers")
    for column in ("worker", "policies", "sessions", "pid"):
        table.add_column(column)
    for name, info in sorted(workers.items()):
        table.add_row(
            name, ", ".join(info["policies"]), str(info.get("sessions", "")), str(info["pid"])
        )
    Console().print(table)


@bots_app.command("send")
def send_command(
    target: str = typer.Option(..., "--target", help="The table engine, host:port."),
    match_id: str = typer.Option(..., "--match", help="The match id."),
    seat: int = typer.Option(..., "--seat", help="The seat, 0-3."),
    token: str = typer.Option(..., "--token", help="The seat token."),
    policy: str = typer.Option("expert", "--policy", help="random, efficiency or expert."),
    level: int = typer.Option(0, "--level", help="Policy level (0: its strongest)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the policy's randomness, 0-2^64-1."),
    pace: float = typer.Option(0.0, "--pace", help="Seconds a decision takes at least."),
    tls: bool = typer.Option(
        False, "--tls", help="The engine speaks TLS (default: when HEBEI_BOTS_TLS_* are set)."
    ),
    ca_file: str = typer.Option(
        "", "--ca-file", help=f"{CA_HELP} Implies --tls; the handshake is checked first."
    ),
    cert_file: str = typer.Option("", "--cert-file", help=CERT_HELP),
    key_file: str = typer.Option("", "--key-file", help=KEY_HELP),
) -> None:
    """Queue one seat task: a bot worker joins the seat and plays it to the match end.

    The task only says whether the engine speaks TLS: the worker's own TLS files decide its
    credentials. With --ca-file (and --cert-file/--key-file) the engine's TLS handshake is
    checked with these files first, so a wrong target or CA is told here, not by a worker."""
    from hebei.common.config import ConfigError, EnvReader
    from hebei.common.tls import ClientTls
    from hebei.fleet.catalogue import resolve_level
    from hebei.fleet.client import send_seat
    from hebei.fleet.ticket import SeatTicket

    files = _client_tls(ca_file, cert_file, key_file)
    if not tls and files is None:
        try:
            tls = ClientTls.from_env(EnvReader("bots")) is not None
        except ConfigError as exc:
            fail(str(exc))
    try:
        tls = tls or files is not None
        ticket = SeatTicket(target, match_id, seat, token, policy, level or None, seed, pace, tls)
        if files is not None:
            resolve_level(policy, level or None)  # a bad policy is told before any connection
            _check_handshake(target, files)
        task_id = send_seat(ticket)
    except ValueError as exc:
        fail(str(exc))
    print(task_id)


def _check_handshake(target: str, tls: ClientTls) -> None:
    """One line and exit 1 unless the engine at ``target`` completes a TLS handshake with
    ``tls``."""
    from hebei.common.client import describe_tls_failure, handshake_error

    error = handshake_error(target, tls, CHECK_SECONDS)
    if error is not None:
        fail(
            f"--target {target}: no TLS connection with these files: "
            f"{describe_tls_failure(error)}; the seat was not queued",
            code=1,
        )


def bench_table(result: dict) -> Table:
    """The rich table of one line-up of ``hebei bench bots``."""
    table = Table(
        title=f"{' / '.join(result['lineup'])}: {result['seeds']} seeds x 4 rotations, "
        f"{result['hands']:,} hands ({result['seat_hands']:,} seat-hands), "
        f"{result['seconds']:.0f} s",
        caption="points per hand with 95% interval; decision times in ms",
    )
    for column in ("policy", "seats", "points/hand", "95% CI", "decisions", "median", "p99"):
        table.add_column(column, justify="left" if column == "policy" else "right")
    for p in result["policies"]:
        pph, ms = p["points_per_hand"], p["decision_ms"]
        table.add_row(
            p["policy"],
            str(p["seats"]),
            f"{pph['mean']:+.2f}",
            f"± {pph['ci95']:.2f}",
            f"{p['decisions']:,}",
            f"{ms['median']:.3f}",
            f"{ms['p99']:.3f}",
        )
    return table


def bench_verdicts(result: dict) -> list[str]:
    """One line per comparison: who beats whom, by how much, and whether it is significant."""
    lines = []
    for c in result["comparisons"]:
        d = c["difference"]
        mark = "[green]beats[/]" if c["significant"] else "[red]does not surely beat[/]"
        lines.append(
            f"{c['stronger']} {mark} {c['weaker']}: {d['mean']:+.2f} ± {d['ci95']:.2f} "
            f"points per hand (95%, over {result['hands']:,} hands)"
        )
    return lines
