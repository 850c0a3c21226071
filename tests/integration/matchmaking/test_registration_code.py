"""A tournament's registration code: Register without it (or with a wrong one) is
PERMISSION_DENIED and stores nothing, with it or the operator token it works; no anonymous
read (GetTournament, WatchTournament, the web gateway's view) ever carries the code; one client
address may try only so many wrong codes; the CLI's ``--registration-code`` on create and
register."""

from __future__ import annotations

import json

import grpc
import pytest
from typer.testing import CliRunner

from hebei.cli import app, commands  # noqa: F401  (commands: registers the sub-commands)
from hebei.v1 import matchmaking_pb2 as mm
from hebei.web.tournament_views import tournament_json
from tests.integration.matchmaking.conftest import Stack
from tests.integration.table.conftest import OPERATOR_TOKEN

CODE = "spring-cup-Q7x!"


@pytest.fixture
def served(stack: Stack) -> Stack:
    stack.start_matchmaking(max_code_failures=64)  # these tests try many codes on purpose
    return stack


def _bot(tid: str, code: str = "") -> mm.RegisterRequest:
    return mm.RegisterRequest(
        tournament_id=tid, bot=mm.BotEntrant(policy="efficiency"), registration_code=code
    )


def _person(tid: str, name: str, code: str = "") -> mm.RegisterRequest:
    return mm.RegisterRequest(
        tournament_id=tid, person=mm.PersonEntrant(name=name), registration_code=code
    )


def _denied(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert caught.value.details() == "this tournament needs its registration code"
    return caught.value


def test_register_needs_the_code_and_stores_nothing_without_it(served: Stack) -> None:
    stack = served
    anonymous, operator = stack.mm(token=None), stack.mm()
    created = stack.create(registration_code=CODE)
    tid = created.tournament_id
    assert created.registration_code_required
    assert CODE.encode() not in created.SerializeToString()  # not even to the operator

    for code in ("", "spring-cup-Q7x", CODE + "x", "x" * 10_000):
        _denied(lambda code=code: anonymous.Register(_bot(tid, code)))
        _denied(lambda code=code: anonymous.Register(_person(tid, "Mei", code)))
    # Checked before anything else: even a request that is otherwise invalid is refused so.
    _denied(lambda: anonymous.Register(mm.RegisterRequest(tournament_id=tid)))
    _denied(lambda: anonymous.Register(_person(tid, "x" * 100_000)))
    tournament = anonymous.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert list(tournament.players) == []

    mei = anonymous.Register(_person(tid, "Mei", CODE))
    assert mei.player.name == "Mei" and mei.player_secret
    by_operator = operator.Register(_bot(tid)).player  # the operator needs no code
    tournament = anonymous.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert sorted(p.player_id for p in tournament.players) == sorted(
        [mei.player.player_id, by_operator.player_id]
    )


def test_an_address_that_tried_too_many_wrong_codes_is_refused_for_a_while(stack: Stack) -> None:
    stack.start_matchmaking(max_code_failures=3, code_failure_seconds=600)
    anonymous, operator = stack.mm(token=None), stack.mm()
    tid = stack.create(registration_code=CODE).tournament_id
    open_tid = stack.create().tournament_id
    for code in ("1234", "1235", "1236"):
        _denied(lambda code=code: anonymous.Register(_bot(tid, code)))
    # the fourth try is refused before the code is looked at, even the right code, and a
    # registration elsewhere from the same address too; nothing is stored
    for request in (_bot(tid, CODE), _person(tid, "Mei", CODE), _bot(open_tid)):
        with pytest.raises(grpc.RpcError) as refused:
            anonymous.Register(request)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refused.value.details().startswith(
            "3 wrong registration codes from this client address in 600 s; try again in "
        )
    for t in (tid, open_tid):
        assert not anonymous.GetTournament(
            mm.GetTournamentRequest(tournament_id=t)
        ).tournament.players
    # the operator is never refused; the right code does not count as a failure
    assert operator.Register(_bot(tid)).player.player_id


def test_a_tournament_without_a_code_stays_open(served: Stack) -> None:
    anonymous = served.mm(token=None)
    created = served.create()
    assert not created.registration_code_required
    assert anonymous.Register(_person(created.tournament_id, "Mei")).player.player_id
    # A code given to a tournament that has none is not needed and does no harm.
    assert anonymous.Register(_person(created.tournament_id, "Lin", "anything")).player.player_id


def test_anonymous_reads_never_carry_the_code(served: Stack) -> None:
    stack = served
    anonymous = stack.mm(token=None)
    tid = stack.create(registration_code=CODE).tournament_id

    got = anonymous.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert got.registration_code_required and got.config.registration_code == ""
    assert CODE.encode() not in got.SerializeToString()
    view = tournament_json(got)
    assert view["registration_code_required"] is True
    assert CODE not in json.dumps(view)

    watch = anonymous.WatchTournament(mm.WatchTournamentRequest(tournament_id=tid), timeout=30)
    try:
        snapshot = next(watch)
        assert snapshot.type == mm.TOURNAMENT_EVENT_TYPE_SNAPSHOT
        stack.mm().Register(_bot(tid))
        change = next(watch)
        assert change.type == mm.TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED
        for message in (snapshot, change):
            assert message.tournament.registration_code_required
            assert CODE.encode() not in message.SerializeToString()
    finally:
        watch.cancel()
    # Nor the feed read again from its start.
    replay = anonymous.WatchTournament(
        mm.WatchTournamentRequest(tournament_id=tid, from_seq=1), timeout=30
    )
    try:
        assert CODE.encode() not in next(replay).SerializeToString()
    finally:
        replay.cancel()


def test_the_cli_creates_with_a_code_and_registers_with_it(
    served: Stack, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HEBEI_DATA_DIR", str(tmp_path))  # no `hebei up` stack found
    monkeypatch.delenv("HEBEI_OPERATOR_TOKEN", raising=False)
    monkeypatch.delenv("HEBEI_MATCHMAKING_ADDRESS", raising=False)
    where = ["--address", served.matchmaking_address]
    runner = CliRunner()
    created = runner.invoke(
        app,
        ["tournament", "create", "--name", "code cup", "--registration-code", CODE, *where,
         "--token", OPERATOR_TOKEN],
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    tid = created.stdout.strip()
    assert (
        served.mm(token=None)
        .GetTournament(mm.GetTournamentRequest(tournament_id=tid))
        .tournament.registration_code_required
    )

    without = runner.invoke(app, ["tournament", "register", tid, "--bot", "efficiency", *where])
    assert without.exit_code == 1
    assert (
        without.stderr == "hebei: PERMISSION_DENIED: this tournament needs its registration code\n"
    )
    with_code = runner.invoke(
        app,
        ["tournament", "register", tid, "--person", "Mei", "--registration-code", CODE, *where],
    )
    assert with_code.exit_code == 0, with_code.output
    assert with_code.stdout.split()[0].startswith("p-")


@pytest.mark.parametrize(
    ("code", "line"),
    [
        ("x" * 65, "--registration-code must be at most 64 characters, got 65"),
        ("two words", "--registration-code must be printable characters without spaces"),
        ("tab\there", "--registration-code must be printable characters without spaces"),
    ],
)
@pytest.mark.parametrize("command", ["create", "register"])
def test_the_cli_refuses_a_bad_code_in_one_line(code: str, line: str, command: str) -> None:
    nowhere = ["--address", "127.0.0.1:1", "--token", "operator-token-0123456789"]
    args = ["--name", "cup"] if command == "create" else ["t-1", "--bot", "efficiency"]
    result = CliRunner().invoke(
        app, ["tournament", command, *args, "--registration-code", code, *nowhere]
    )
    assert result.exit_code == 2
    assert result.stderr == f"hebei: {line}\n"
