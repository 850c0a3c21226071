"""``hebei score``: the fan calculator on one JSON object (stdin in, stdout out)."""

from __future__ import annotations

import json
import sys

import typer

from hebei.cli import app
from hebei.cli._util import fail
from hebei.rules.errors import RulesError
from hebei.rules.profile import get_profile
from hebei.rules.scoring import ScoredWin, WinContext, request_profile, score_win

MAX_INPUT_CHARS = 64 * 1024  # a win's object is some 200 characters


def score_output(result: ScoredWin | None) -> dict:
    """The JSON answer: ``{"legal": false}`` or the items, bonus (main) or points (classic)
    and hand deltas."""
    if result is None:
        return {"legal": False}
    if result.points is not None:
        return {
            "legal": True,
            "fans": [f.to_json() for f in result.fans],
            "points": result.points,
            "deltas": list(result.deltas),
        }
    return {
        "legal": True,
        "fans": [{"id": f.id, "fan": f.fan} for f in result.fans],
        "bonus": result.bonus,
        "deltas": list(result.deltas),
    }


@app.command("score")
def score(
    profile: str = typer.Option(
        None, help='Rule profile to score with (default: the input\'s "profile", else main).'
    ),
) -> None:
    """Score one win: a JSON object on stdin, a JSON object on stdout.

    Input keys: hand (concealed tiles, winning tile included, e.g. "123m456p789s22z"),
    melds (list of {"type": "pong"|"exposed_kong"|"added_kong"|"concealed_kong"|"chow",
    "tile": "7z"}; a chow by its lowest tile, classic only), win_tile,
    win ("self_draw"|"discard"|"rob_kong"), winner, dealer, discarder (seats 0-3;
    discarder for discard and rob_kong), kong_replacement, last_tile (true/false),
    profile ("main" by default, or "classic").

    Output: {"legal": true, "fans": ..., "bonus": ..., "deltas": ...} with the hand payments
    by seat (kong payments not included), or {"legal": false}. The classic profile lists its
    pattern ({"id", "fan"}) and doublings ({"id", "times": 2}) and gives "points" instead of
    "bonus". Bad input (or more than 64 KiB of it) exits with code 2.
    """
    if profile is not None:
        try:
            get_profile(profile)
        except ValueError as exc:
            fail(f"score: {exc}")
    text = sys.stdin.read(MAX_INPUT_CHARS + 1)
    if len(text) > MAX_INPUT_CHARS:
        fail(f"score: stdin is longer than {MAX_INPUT_CHARS:,} characters (one win's object)")
    try:
        obj = json.loads(text)
    except RecursionError:
        fail("score: stdin is JSON nested too deeply")
    except json.JSONDecodeError as exc:
        fail(f"score: stdin is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")
    try:
        rules = request_profile(obj, profile or "main")
        if profile is not None and rules.name != profile:
            fail(f'score: --profile {profile} but the input names "profile": "{rules.name}"')
        result = score_win(WinContext.from_json(obj, rules), rules)
    except RulesError as exc:
        fail("score: " + " ".join(str(exc).split()))
    typer.echo(json.dumps(score_output(result), ensure_ascii=False))
