"""`hebei bots ...`: bad input is one clear line on stderr and exit code 2, never a trace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hebei.fleet.ticket import SeatTicket

HEBEI = str(Path(sys.executable).with_name("hebei"))
SEND = ["bots", "send", "--target", "127.0.0.1:1", "--match", "m1", "--token", "t"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bots", "worker", "--policies", "smart"], "hebei: unknown policies smart; known: "),
        (["bots", "worker", "--sessions", "0"], "hebei: --sessions must be 1-1,024, got 0"),
        (["bots", "worker", "--processes", "99999999999"], "hebei: --processes must be 0-64"),
        (["bots", "worker", "--metrics-port", "70000"], "hebei: --metrics-port must be -1-65,535"),
        ([*SEND, "--seat", "7"], "hebei: seat must be 0-3, got 7"),
        ([*SEND, "--seat", "1", "--policy", "expert", "--level", "5"], "hebei: policy expert"),
        ([*SEND, "--seat", "1", "--pace", "-1"], "hebei: pace must be 0-60 seconds"),
        ([*SEND, "--seat", "1", "--seed", "-1"], "hebei: seed must be 0-18,446,744,073,"),
        ([*SEND, "--seat", "1", "--seed", str(2**64)], "hebei: seed must be 0-18,446,744,073,"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], message: str) -> None:
    done = subprocess.run([HEBEI, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize(
    ("ticket", "message"),
    [
        ("not a dict", "a seat ticket is an object"),
        ({"target": "h:1", "match_id": "m", "seat": 0, "seat_token": "t", "x": 1}, "unknown"),
        ({"target": "h:1", "match_id": "m", "seat": 0}, "bad seat ticket"),
        ({"target": "nohost", "match_id": "m", "seat": 0, "seat_token": "t"}, "host:port"),
        ({"target": "h:1", "match_id": "", "seat": 0, "seat_token": "t"}, "match_id"),
    ],
)
def test_seat_tickets_are_validated(ticket: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SeatTicket.from_json(ticket)


def test_a_ticket_round_trips() -> None:
    ticket = SeatTicket("h:1", "m", 2, "tok", "expert", 2, 9, 0.5)
    assert SeatTicket.from_json(ticket.to_json()) == ticket
