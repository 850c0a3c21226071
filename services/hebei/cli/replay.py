"""`hebei replay FILE [--key-file K]`: check a hand (or match) log — its hash chain, with the
key its signatures, and the rules — and show it as a readable table."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from hebei.cli import app
from hebei.cli._util import fail, load_json_file, read_bounded
from hebei.rules.chain import parse_key
from hebei.rules.errors import ReplayError
from hebei.rules.hand import HandState
from hebei.rules.replay import replay_log
from hebei.rules.tiles import format_tiles, parse_tile

WINDS = "东南西北"


def _describe(event: dict) -> str:
    kind = event["type"]
    if kind == "hand_start":
        return f"hand {event['hand_no']}, dealer seat {event['dealer']}, seed {event['seed']}, dice {event.get('dice')}"
    if kind == "deal":
        return "  ".join(f"{i}: {h}" for i, h in enumerate(event["hands"]))
    if kind == "hand_end":
        s = event["settlement"]
        false = (
            f", false win of seat {', '.join(map(str, s['false_wins']))}"
            if s.get("false_wins")
            else ""
        )
        return f"{event['outcome']}{false}: hand {s['hand_deltas']} kong {s['kong_deltas']} total {s['total']}"
    parts = [event.get("tile", "")]
    if kind == "chow":  # the tile is the run's lowest
        base = parse_tile(event["tile"])
        parts = [format_tiles((base, base + 1, base + 2)), f"claiming {event.get('claimed')}"]
    if event.get("false_win"):
        parts.append("FALSE WIN (诈胡: no winning hand)")
    if "from" in event:
        parts.append(f"from seat {event['from']}")
    if event.get("replacement"):
        parts.append("(replacement)")
    if event.get("auto"):
        parts.append("(auto-played)")
    return " ".join(p for p in parts if p)


def _hand_table(state: HandState, console: Console) -> None:
    table = Table(title=f"hand {state.hand_no} (seed {state.seed})")
    table.add_column("#", justify="right")
    table.add_column("seat")
    table.add_column("event")
    table.add_column("detail")
    for i, event in enumerate(state.events):
        seat = event.get("seat")
        table.add_row(
            str(i),
            "" if seat is None else f"{seat} {WINDS[(seat - state.dealer) % 4]}",
            event["type"],
            _describe(event),
        )
    console.print(table)
    result = state.result
    wins = Table(title="settlement")
    wins.add_column("seat")
    wins.add_column("hand", justify="right")
    wins.add_column("kong", justify="right")
    wins.add_column("total", justify="right")
    s = result.settlement
    for seat in range(4):
        wins.add_row(
            str(seat), str(s.hand_deltas[seat]), str(s.kong_deltas[seat]), str(s.total[seat])
        )
    console.print(wins)
    for win in s.wins:
        fans = ", ".join(f"{f.id} ×{f.fan}" if f.doubling else f"{f.id} {f.fan}" for f in win.fans)
        points = "" if win.points is None else f" = {win.points} points"
        console.print(
            f"seat {win.winner} wins by {win.win.value}: {fans or 'no bonus'}{points}; "
            f"reading {win.reading}"
        )
    for seat in s.false_wins:
        console.print(f"seat {seat} declared a false win (诈胡) and pays the penalty")


MAX_KEY_FILE_BYTES = 4096  # a log key is some 64 characters (openssl rand -hex 32)


def read_key_file(path: str) -> bytes:
    """The log key in ``path`` (the engine's HEBEI_TABLE_LOG_KEY); one line on a bad file."""
    data = read_bounded(path, MAX_KEY_FILE_BYTES, "a key file", name=f"--key-file {path}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        fail(f"--key-file {path}: not a text file")
    try:
        return parse_key(text)
    except ValueError as exc:
        fail(f"--key-file {path}: {exc}")


@app.command("replay")
def replay_command(
    path: str = typer.Argument(
        ..., help="A hand log (JSON list of events) or a match log, at most 32 MiB."
    ),
    key_file: str = typer.Option(
        "",
        "--key-file",
        help="The engine's log key (HEBEI_TABLE_LOG_KEY; the local stack keeps it in "
        ".hebei/table-log.key; a file of at most 4 KiB): verify every event's signature.",
    ),
) -> None:
    """Check a log: its hash chain (with --key-file, that the engine signed every event) and
    the rules; print it, then what was proven."""
    key = read_key_file(key_file) if key_file else None
    log = load_json_file(path)
    if not isinstance(log, list) or not log:
        fail(f"{path}: a log is a non-empty JSON list of events")
    console = Console()
    try:
        replayed = replay_log(log, key)
    except ReplayError as exc:
        fail(f"{path}: rejected: {exc}", code=1)
    if replayed.match is not None:
        match = replayed.match
        console.print(
            f"match of {match.hand_no} hands, seed {match.seed}: final scores {match.scores}"
        )
    else:
        _hand_table(replayed.hand, console)
    console.print(f"{path}: {replayed.check.summary()}", highlight=False, soft_wrap=True)
