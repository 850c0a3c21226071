"""`hebei tournament join` follows WatchTournament: a service it never reached fails at once
with the one line every command gives (it retried silently for 2 minutes before), and a
stream that drops after it worked is resumed from the last event, telling the person so."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
import typer

from hebei.cli import tournament_connection, tournament_join
from hebei.v1 import matchmaking_pb2 as mm


class Unavailable(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "failed to connect to all addresses"


@dataclass
class Stub:
    """Each call plays the next script: a list of events, then (optionally) an error."""

    scripts: list[tuple[list[int], bool]]
    requests: list[int] = field(default_factory=list)

    def WatchTournament(self, request: Any):
        self.requests.append(request.from_seq)
        events, drop = self.scripts.pop(0)
        for seq in events:
            yield mm.WatchTournamentResponse(seq=seq)
        if drop:
            raise Unavailable()


def follow(stub: Stub, monkeypatch) -> tuple[list[int], list[str]]:
    monkeypatch.setattr(tournament_join.time, "sleep", lambda _s: None)
    conn = tournament_connection.Connection("127.0.0.1:1", None, None, stub)  # type: ignore[arg-type]
    said: list[str] = []
    request = mm.WatchTournamentRequest(tournament_id="t")
    seqs = [e.seq for e in tournament_join._reconnecting(conn, request, said.append)]
    return seqs, said


def test_a_service_never_reached_fails_at_once(monkeypatch, capsys) -> None:
    stub = Stub([([], True)] * 40)
    with pytest.raises(typer.Exit) as exited:
        follow(stub, monkeypatch)
    assert exited.value.exit_code == 1 and len(stub.requests) == 1
    assert "matchmaking at 127.0.0.1:1 is unreachable" in capsys.readouterr().err


def test_a_dropped_stream_resumes_after_the_last_event_and_says_so(monkeypatch) -> None:
    stub = Stub([([1, 2, 3], True), ([], True), ([4, 5], False)])
    seqs, said = follow(stub, monkeypatch)
    assert seqs == [1, 2, 3, 4, 5]
    assert stub.requests == [0, 4, 4]  # resumed from the event after the last one seen
    assert said[0].startswith("matchmaking at 127.0.0.1:1 dropped the stream: reconnecting")
    assert said[1:] == ["reconnected to matchmaking"]


def test_a_stream_gone_for_good_ends_with_one_line(monkeypatch, capsys) -> None:
    tries = tournament_join.RESUME_TRIES
    stub = Stub([([1], True)] + [([], True)] * (tries + 1))
    with pytest.raises(typer.Exit) as exited:
        follow(stub, monkeypatch)
    assert exited.value.exit_code == 1 and len(stub.requests) == tries + 1
    assert "is unreachable" in capsys.readouterr().err
