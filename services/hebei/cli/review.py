"""``hebei review FILE|MATCH --seat N``: a seat's play compared with the expert's, decision by
decision (the work lives in :mod:`hebei.botservice.review`).

FILE is a hand or match log (``hebei replay`` reads the same). MATCH is the id of a finished
match on the table engine (``--table``, else ``$HEBEI_TABLE_ADDRESS``, else the stack that
``hebei up`` runs): its seed is published when it ends, and with it the seat's tiles. With
``--address`` a bot service does the review instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from hebei.cli import app
from hebei.cli._util import check_range, fail, load_json_file

MAX_SHOWN = 1000


def _file_events(source: str) -> list | None:
    """The events of the log file ``source`` (chain records and all: a review ignores them,
    ``hebei replay`` checks them), or None when ``source`` names no file: a match id."""
    path = Path(source)
    if not path.is_file():
        if path.suffix == ".json" or os.sep in source:
            fail(f"{source}: no such file")
        return None
    log = load_json_file(source)
    if not isinstance(log, list) or not log:
        fail(f"{source}: a log is a non-empty JSON list of events")
    return log


def _local_logs(source: str, table: str | None) -> list[list[dict]]:
    from hebei.botservice.review import hand_logs  # drops the chain records itself

    events = _file_events(source)
    if events is None:
        return _match_logs(source, table)
    return hand_logs(events)


def _table_address(table: str | None) -> str:
    if table:
        return table
    if os.environ.get("HEBEI_TABLE_ADDRESS"):
        return os.environ["HEBEI_TABLE_ADDRESS"]
    from hebei.stack.discovery import find_stack

    stack = find_stack()
    if stack is None:
        fail("no such file, and no table engine to read a match from: give --table host:port")
    return stack.address("table")


def _match_logs(match_id: str, table: str | None) -> list[list[dict]]:
    from hebei.common.config import EnvReader
    from hebei.common.routing import MatchRouter
    from hebei.common.tls import ClientTls
    from hebei.seatclient.match_feed import TableFeed

    address = _table_address(table)
    with MatchRouter(address, tls=ClientTls.from_env(EnvReader(None))) as router:
        return TableFeed(router).finished_match(match_id).hand_logs()


def _remote(source: str, seat: int, level: int, limit: int, address: str) -> dict:
    import grpc

    from hebei.common.client import create_channel
    from hebei.v1 import bot_pb2, bot_pb2_grpc

    request = bot_pb2.ReviewRequest(seat=seat, level=level, max_differences=limit)
    events = _file_events(source)
    if events is None:
        request.match_id = source
    else:  # without the chain records and compact: the service's bound counts the bytes
        from hebei.botservice.review import plain_events

        plain = plain_events(events)
        request.log_json = json.dumps(plain, separators=(",", ":"), ensure_ascii=False)
    channel = create_channel(address, timeout=120.0)
    try:
        reply = bot_pb2_grpc.BotServiceStub(channel).Review(request)
    except grpc.RpcError as exc:
        fail(f"{address}: {exc.details() or exc.code().name}")
    finally:
        channel.close()
    return _reply_json(reply)


def _reply_json(reply) -> dict:
    from hebei.common.convert import action_from_proto, tile_from_proto
    from hebei.rules.tiles import TILE_NAMES, format_tiles

    differences = []
    for d in reply.differences:
        claimed = tile_from_proto(d.claimed_tile)
        differences.append(
            {
                "hand": d.hand_no,
                "turn": d.turn,
                "played": str(action_from_proto(d.played)),
                "expert": str(action_from_proto(d.expert)),
                "reason": d.reason,
                "cost": round(d.cost, 2),
                "concealed": format_tiles(tile_from_proto(t) for t in d.concealed),
                "claimed": None if claimed is None else TILE_NAMES[claimed],
            }
        )
    return {
        "seat": reply.seat,
        "level": reply.level,
        "hands": reply.hands,
        "decisions": reply.decisions,
        "agreed": reply.agreed,
        "agreement": round(reply.agreement, 4),
        "total_cost": round(reply.total_cost, 2),
        "auto_played": reply.auto_played,
        "differences": differences,
        "truncated": reply.truncated,
    }


def review_table(body: dict) -> Table:
    """The rich table of a review: one row per decision where the seat and the expert differ."""
    table = Table(
        title=(
            f"seat {body['seat']} against the expert (level {body['level']}): "
            f"{body['agreed']}/{body['decisions']} decisions agree "
            f"({body['agreement']:.0%}) over {body['hands']} hands, "
            f"{body['total_cost']:.1f} points given up"
        ),
        caption="cost: expected points the seat's action gives up, by the expert's estimate",
    )
    for column in ("hand", "turn", "your hand", "your action", "expert", "why", "cost"):
        table.add_column(column, justify="right" if column in ("hand", "turn", "cost") else "left")
    for d in body["differences"]:
        hand = d["concealed"] + (f" + {d['claimed']}?" if d["claimed"] else "")
        table.add_row(
            str(d["hand"]),
            str(d["turn"]),
            hand,
            d["played"],
            d["expert"],
            d["reason"],
            f"{d['cost']:.2f}",
        )
    return table


@app.command("review")
def review_command(
    source: str = typer.Argument(
        ..., help="A hand or match log (JSON file, at most 32 MiB), or a match id."
    ),
    seat: int = typer.Option(..., "--seat", help="The seat to review, 0-3."),
    level: int = typer.Option(0, "--level", help="Expert level to compare with (0: strongest)."),
    limit: int = typer.Option(0, "--max", help="Show at most this many (costliest); 0: all."),
    table: str | None = typer.Option(None, "--table", help="Table engine host:port (a match id)."),
    address: str | None = typer.Option(
        None, "--address", help="Ask the bot service at host:port instead of reviewing here."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """Compare a seat's decisions with the expert's: where they differ, why, and the cost."""
    from hebei.botservice.review import review_hands
    from hebei.common.errors import DomainError

    check_range("--seat", seat, 0, 3)
    if not 0 <= limit <= MAX_SHOWN:
        fail(f"--max must be 0-{MAX_SHOWN}, got {limit}")
    try:
        if address:
            body = _remote(source, seat, level, limit, address)
        else:
            body = review_hands(_local_logs(source, table), seat, level).to_json(limit)
    except DomainError as exc:
        fail(exc.message)
    if as_json:
        print(json.dumps(body, ensure_ascii=False))
        return
    Console().print(review_table(body))
