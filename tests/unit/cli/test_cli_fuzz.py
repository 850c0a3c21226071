"""Every `hebei` command that does not serve or run for long, given odd arguments and option
values (empty, negative, huge, NaN, non-ASCII, paths that do not exist, addresses nothing
listens on) and odd stdin: it answers, or exits with one line, never a stack trace. Seeded: a
failure replays.

It found: `table export` with a --database-url that is not one, `--as 李裁判` and a
non-ASCII --token (gRPC's "Invalid metadata"), and `tournament join` retrying for 2 minutes
for a matchmaking it never reached."""

from __future__ import annotations

import random
import time
import traceback
from collections import Counter

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from hebei.cli import app, commands  # noqa: F401  (commands: registers the sub-commands)

SEED = 20261205
CALLS = 300
NOWHERE = "127.0.0.1:1"  # nothing listens there: a call fails at once
# Commands that serve, play or measure until stopped (each has its own tests).
LONG_RUNNING = {"serve", "up", "demo", "worker", "play", "watch", "simulate"}
LONG_GROUPS = {"bench": {"pair"}}  # of the benchmarks, only pair reads files and returns
ODD = (
    "", "-1", "0", "1", "4", "17", "1e309", "nan", "inf", "x", "a" * 300, "名字", "../x",
    NOWHERE, "host", ":1", "a:b:c", "99999999999999999999", "-", "/dev/null",
    "/nonexistent/f", "1,2,3", "15,5,-5,-15", "expert:9", "random", "swiss", "main", "classic",
    "tab\there",
)  # fmt: skip
STDIN = ("", "{}", "x", '{"hand": "1m"}', "[1, 2]")


def commands_of(command, path=()):
    """(path, click command) of every leaf command."""
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from commands_of(sub, (*path, name))
    else:
        yield path, command


def quick_commands():
    out = []
    for path, command in commands_of(get_command(app)):
        if path[-1] in LONG_RUNNING:
            continue
        if path[0] in LONG_GROUPS and path[-1] not in LONG_GROUPS[path[0]]:
            continue
        out.append((path, command))
    return out


def odd_arguments(rng: random.Random, path, command) -> list[str]:
    args = list(path)
    for param in command.params:
        if param.param_type_name == "argument":
            args.append(rng.choice(ODD))
        elif rng.random() < 0.5:
            if getattr(param, "is_flag", False):
                args.append(param.opts[0])
            else:
                args += [param.opts[0], rng.choice(ODD)]
    if any("--address" in p.opts for p in command.params) and "--address" not in args:
        args += ["--address", NOWHERE]
    return args


@pytest.fixture
def nowhere(monkeypatch, tmp_path):
    """No stack to find, every service address one nothing listens on."""
    monkeypatch.chdir(tmp_path)
    for name in ("MATCHMAKING", "TABLE", "LEDGER", "BOTSERVICE"):
        monkeypatch.setenv(f"HEBEI_{name}_ADDRESS", NOWHERE)
    monkeypatch.setenv("HEBEI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GRPC_VERBOSITY", "NONE")


def test_every_quick_command_answers_odd_input_in_one_line(nowhere) -> None:
    rng = random.Random(SEED)
    runner = CliRunner()
    quick = quick_commands()
    assert len(quick) > 20, [" ".join(p) for p, _ in quick]
    codes: Counter = Counter()
    for n in range(CALLS):
        path, command = rng.choice(quick)
        args = odd_arguments(rng, path, command)
        started = time.monotonic()
        result = runner.invoke(app, args, input=rng.choice(STDIN))
        seconds = time.monotonic() - started
        what = f"call {n}: hebei {' '.join(args)!r:.300}"
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            trace = "".join(traceback.format_exception(result.exception))
            raise AssertionError(f"{what}: {trace[-1500:]}")
        assert "Traceback" not in result.output, f"{what}: {result.output[-1500:]}"
        assert "INTERNAL" not in result.output, f"{what}: {result.output[-1500:]}"
        assert result.exit_code in (0, 1, 2), f"{what}: exit {result.exit_code}"
        assert seconds < 30, f"{what}: {seconds:.0f} s"
        codes[result.exit_code] += 1
    assert codes[2] > CALLS // 3 and codes[1] > 10, codes  # refused, and calls that failed
