"""`hebei play`: sit at a table against three bots in the terminal (local or remote)."""

from __future__ import annotations

import logging
import secrets
import sys
from pathlib import Path

import typer
from rich.console import Console

from hebei.cli import app
from hebei.cli._util import check_range, fail

LOCAL_ONLY = ("--policy", "--level", "--hands", "--seed", "--think", "--name", "--profile")


def _quiet_logs(log_file: Path | None) -> None:
    """Keep service logs off the screen: into ``log_file``, or nowhere."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    if log_file is None:
        root.addHandler(logging.NullHandler())
        return
    try:
        handler: logging.Handler = logging.FileHandler(log_file, encoding="utf-8")
    except OSError as exc:
        fail(f"--log-file {log_file}: {exc.strerror or exc}")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def _console() -> Console:
    return Console(force_terminal=True if sys.stdout.isatty() else None, highlight=False)


@app.command("play")
def play_command(
    address: str = typer.Option(
        "",
        "--address",
        help="HOST:PORT of a table engine to join, or a comma-separated list of its replicas "
        "(default with --match: the one `hebei up` runs); without it, a local table.",
    ),
    match: str = typer.Option("", "--match", help="Remote: the match id."),
    seat: int = typer.Option(-1, "--seat", help="Remote: your seat, 0-3."),
    token: str = typer.Option("", "--token", help="Remote: your seat token."),
    tls: bool = typer.Option(False, "--tls", help="Remote: connect over TLS (system roots)."),
    ca_file: str = typer.Option(
        "", "--ca-file", help="Remote: the CA that signed the engine's certificate (TLS)."
    ),
    cert_file: str = typer.Option(
        "", "--cert-file", help="Remote: your client certificate (mutual TLS), with --key-file."
    ),
    key_file: str = typer.Option("", "--key-file", help="Remote: the key of --cert-file."),
    policy: str = typer.Option(
        "", "--policy", help="Local: the bots' policy (default expert, else efficiency)."
    ),
    level: int = typer.Option(
        0, "--level", help="Local: the bots' policy level (0: expert 2, else the strongest)."
    ),
    hands: int = typer.Option(4, "--hands", "-n", help="Local: hands in the match."),
    seed: int | None = typer.Option(
        None, "--seed", "-s", help="Local: the match seed (random when not given)."
    ),
    think: float = typer.Option(
        15.0, "--think", help="Local: seconds per decision (plus a 60 s time bank)."
    ),
    name: str = typer.Option("You", "--name", help="Local: your name at the table."),
    profile: str = typer.Option(
        "main", "--profile", help="Local: the rule profile, main or classic (RULES.md §9)."
    ),
    log_file: str = typer.Option("", "--log-file", help="Write the service logs to this file."),
    hints: bool = typer.Option(
        False, "--hints", help="The s key shows the expert's suggestion and why."
    ),
) -> None:
    """Play Hebei Mahjong in the terminal: against three bots on a local table, or at a seat
    of a remote table (--address, --match, --seat, --token). Type ? at a prompt for the keys."""
    _quiet_logs(Path(log_file) if log_file else None)
    if not address and (match or token or seat != -1):
        address = _running_table()
    if address:
        files = tuple(Path(f).expanduser() if f else None for f in (ca_file, cert_file, key_file))
        code = _play_remote(address, match, seat, token, tls, files, hints)
    else:
        code = _play_local(policy, level, hands, seed, think, name, profile, hints)
    raise typer.Exit(code)


def _running_table() -> str:
    """The table engine of the stack ``hebei up`` runs, for a remote seat without --address."""
    from hebei.stack.discovery import find_stack

    stack = find_stack()
    if stack is None or "table" not in stack.addresses:
        fail("--match, --seat and --token join a remote table: give --address too")
    return stack.address("table")


def _play_remote(
    address: str,
    match: str,
    seat: int,
    token: str,
    tls: bool,
    files: tuple[Path | None, Path | None, Path | None],
    hints: bool = False,
) -> int:
    from hebei.common.client import (
        describe_tls_failure,
        handshake_error,
        is_tls_failure,
    )
    from hebei.common.config import ConfigError
    from hebei.common.routing import MatchRouter
    from hebei.common.tls import ClientTls
    from hebei.play.session import CLIENT_NAME, run_session
    from hebei.v1 import table_pb2

    if not match or not token:
        fail("a remote table needs --match and --token (and --seat)")
    check_range("--seat", seat, 0, 3)
    entries = remote_entries(address)
    credentials: bool | ClientTls = tls
    if any(files):
        try:
            credentials = ClientTls.from_options(*files)
        except ConfigError as exc:
            fail(str(exc))
    for entry in entries:
        refused = handshake_error(entry, credentials)
        if refused is None:
            break  # one replica answers: the router finds the match's owner from there
        if is_tls_failure(refused):
            # Not an engine that is away (the session waits for that one): one that will
            # never accept this connection as it is.
            fail(
                f"--address {entry}: no connection: {describe_tls_failure(refused)} (see "
                "--tls, --ca-file, --cert-file/--key-file)",
                code=1,
            )
    router = MatchRouter(entries, tls=credentials)
    join = table_pb2.Join(match_id=match, seat=seat, seat_token=token, client_name=CLIENT_NAME)
    try:
        return run_session(router, join, _console(), hints=hints)
    finally:
        router.close()


def remote_entries(address: str) -> tuple[str, ...]:
    """The table engine's replica addresses ``--address`` names (one HOST:PORT or a comma
    list); a bad one exits with one line."""
    from hebei.common.routing import parse_addresses

    try:
        return parse_addresses(address)
    except ValueError as exc:
        fail(f"--address must be HOST:PORT[,HOST:PORT...]: {exc}")


def _play_local(
    policy: str,
    level: int,
    hands: int,
    seed: int | None,
    think: float,
    name: str,
    profile: str,
    hints: bool = False,
) -> int:
    from hebei.bots.policies import POLICY_LEVELS
    from hebei.play.local import LocalOptions, start_local_table
    from hebei.play.session import run_session
    from hebei.rules.profile import get_profile

    try:
        get_profile(profile)
    except ValueError as exc:
        fail(f"--profile: {exc}")
    check_range("--hands", hands, 1, 64)
    if not 1 <= think <= 3600:
        fail(f"--think must be 1-3600 seconds, got {think:g}")
    policy = policy or ("expert" if "expert" in POLICY_LEVELS else "efficiency")
    if policy not in POLICY_LEVELS:
        fail(f"unknown --policy {policy!r}; choose one of {', '.join(POLICY_LEVELS)}")
    if level == 0:
        level = 2 if 2 in POLICY_LEVELS[policy] else POLICY_LEVELS[policy][-1]
    if level not in POLICY_LEVELS[policy]:
        levels = ", ".join(map(str, POLICY_LEVELS[policy]))
        fail(f"--level for {policy} must be one of {levels}, got {level}")
    if seed is None:
        seed = secrets.randbelow(2**31 - 1) + 1
    console = _console()
    options = LocalOptions(
        policy=policy,
        level=level,
        hands=hands,
        seed=seed,
        think=think,
        name=name.strip() or "You",
        profile=profile,
    )
    console.print(
        f"Starting a local table: you against three {policy} {level} bots, {hands} hand(s), "
        f"{profile} rules…"
    )
    try:
        table = start_local_table(options)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except Exception as exc:  # one line, never a stack trace
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        fail(f"cannot start the local table: {reason}", code=1)
    try:
        code = run_session(table.channel, table.join_request(), console, hints=hints)
    finally:
        table.close()
    console.print(f"Seed {seed}: play the same deal again with --seed {seed}.")
    return code
