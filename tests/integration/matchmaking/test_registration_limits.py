"""Register without the operator token, bounded (hebei.matchmaking.registration) on the real
stack: a tournament's budget of wrong codes shared by every client address (many addresses are
simulated by calling the servicer with their peer strings; one call per limit goes over gRPC
from loopback), rating identities only the operator chooses, bots only the operator registers,
calls per client address, a default bound of self-registered entrants, strong new codes."""

from __future__ import annotations

import re

import grpc
import pytest
from typer.testing import CliRunner

from hebei.cli import app, commands  # noqa: F401  (commands: registers the sub-commands)
from hebei.common.config import ConfigError
from hebei.matchmaking.registration import CODE_ALPHABET, CodeLocked
from hebei.matchmaking.service import MatchmakingConfig
from hebei.matchmaking.settings import DEFAULT_MAX_PLAYERS
from hebei.matchmaking.tournaments import WrongRegistrationCode
from hebei.v1 import matchmaking_pb2 as mm
from tests.integration.matchmaking.conftest import Stack
from tests.integration.table.conftest import OPERATOR_TOKEN

CODE = "autumn-cup-7Kq"


class Peer:
    """The context of an anonymous call from ``host`` (a client address of its own)."""

    def __init__(self, host: str) -> None:
        self.host = host

    def peer(self) -> str:
        return f"ipv4:{self.host}:40000"

    def invocation_metadata(self) -> tuple:
        return ()


def _person(tid: str, name: str, code: str = "", rating_id: str = "") -> mm.RegisterRequest:
    return mm.RegisterRequest(
        tournament_id=tid,
        person=mm.PersonEntrant(name=name, rating_id=rating_id),
        registration_code=code,
    )


def _refused(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


def test_many_addresses_share_one_budget_of_wrong_codes(stack: Stack) -> None:
    """1,112 addresses once tried all 10,000 four-digit codes in 28 s: each stayed below its
    own limit. Now the tournament's budget is shared by them all."""
    stack.start_matchmaking(max_code_failures=3, max_tournament_code_failures=6)
    servicer = stack.matchmaking.servicer
    anonymous, operator = stack.mm(token=None), stack.mm()
    tid = stack.create(registration_code=CODE).tournament_id
    other = stack.create(registration_code=CODE).tournament_id
    for n in range(5):  # five addresses, one wrong code each: none near its own limit (3)
        with pytest.raises(WrongRegistrationCode):
            servicer.Register(_person(tid, f"P{n}", f"guess-{n:04d}"), Peer(f"10.0.0.{n + 1}"))
    for n in range(3):  # no code at all is no guess: not counted against the tournament
        with pytest.raises(WrongRegistrationCode):
            servicer.Register(_person(tid, f"E{n}"), Peer(f"10.0.2.{n + 1}"))
    servicer.Register(_person(tid, "Early", CODE), Peer("10.0.3.1"))  # not locked yet
    with pytest.raises(WrongRegistrationCode):  # the sixth wrong code uses the budget up
        servicer.Register(_person(tid, "P5", "guess-0005"), Peer("10.0.0.6"))
    locked_message = re.compile(
        r"registration with a code is locked for this tournament: 6 wrong codes in 3600 s; "
        r"try again in \d+ s, or ask the organiser"
    )
    # a seventh address is refused unchecked, the right code too: guessing learns nothing
    for code in (CODE, "guess-0007", ""):
        with pytest.raises(CodeLocked) as locked:
            servicer.Register(_person(tid, "Mei", code), Peer("10.0.1.1"))
        assert locked_message.fullmatch(locked.value.message), locked.value.message
    over_grpc = _refused(lambda: anonymous.Register(_person(tid, "Mei", CODE)))
    assert over_grpc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert locked_message.fullmatch(over_grpc.details()), over_grpc.details()

    # the organiser is told, once: the tournament's problems and the operator record
    tournament = operator.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    problems = [p for p in tournament.problems if p.startswith("registration codes:")]
    assert len(problems) == 1, problems
    assert "6 wrong codes in 3600 s from 6 client addresses" in problems[0]
    assert "10.0.0." not in problems[0]  # addresses are counted, never shown
    actions = operator.ListOperatorActions(mm.ListOperatorActionsRequest(tournament_id=tid))
    locks = [(a.action, a.actor, a.detail) for a in actions.actions if a.action == "code_lock"]
    assert locks == [("code_lock", "rules", problems[0])]
    assert [p.name for p in tournament.players] == ["Early"]  # nothing more was registered

    # the operator still registers; another tournament's budget is its own
    assert operator.Register(_person(tid, "Mei")).player.player_id
    reply = servicer.Register(_person(other, "Mei", CODE), Peer("10.0.1.1"))
    assert reply.player.name == "Mei" and reply.player_secret


def test_a_stranger_cannot_take_another_identitys_rating(stack: Stack) -> None:
    """A stranger once registered as a person with rating_id 'bot:expert:4' and the bot's
    public rating changed name, mu and match count."""
    stack.start_matchmaking()
    anonymous, operator = stack.mm(token=None), stack.mm()
    tid = stack.create().tournament_id
    for chosen in ("bot:expert:4", "person:Mei", "guest:t-0:p-0"):
        refused = _refused(
            lambda chosen=chosen: anonymous.Register(_person(tid, "Mal", "", chosen))
        )
        assert refused.code() == grpc.StatusCode.PERMISSION_DENIED
        assert refused.details().startswith(
            "only the organiser (the operator token) chooses a person's rating_id"
        )
    mal = anonymous.Register(_person(tid, "Mal")).player
    assert mal.rating_id == f"guest:{tid}:{mal.player_id}"  # never one that exists
    # a person named like a rated one gets no part of that rating either
    mei = anonymous.Register(_person(tid, "Mei")).player
    assert mei.rating_id == f"guest:{tid}:{mei.player_id}"

    for reserved in ("bot:expert:4", "guest:x"):
        refused = _refused(
            lambda reserved=reserved: operator.Register(_person(tid, "Lin", "", reserved))
        )
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert operator.Register(_person(tid, "Lin", "", "person:lin-club")).player.rating_id == (
        "person:lin-club"
    )
    assert operator.Register(_person(tid, "Ann")).player.rating_id == "person:Ann"

    bot = mm.RegisterRequest(tournament_id=tid, bot=mm.BotEntrant(policy="expert", level=4))
    refused = _refused(lambda: anonymous.Register(bot))
    assert refused.code() == grpc.StatusCode.PERMISSION_DENIED
    assert refused.details() == (
        "only the organiser (the operator token) registers bots; people register themselves"
    )
    assert operator.Register(bot).player.rating_id == "bot:expert:4"
    players = operator.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament.players
    assert sorted(p.name for p in players) == ["Ann", "Lin", "Mal", "Mei", "expert-4 #1"]


def test_one_address_registers_only_so_often(stack: Stack) -> None:
    """300 bot entrants once came from one address in 3.6 s."""
    stack.start_matchmaking(
        max_registrations_per_address=5, max_registrations_per_address_and_tournament=3
    )
    anonymous, operator = stack.mm(token=None), stack.mm()
    first, second = stack.create().tournament_id, stack.create().tournament_id
    for n in range(3):
        anonymous.Register(_person(first, f"P{n}"))
    refused = _refused(lambda: anonymous.Register(_person(first, "P3")))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert re.fullmatch(
        r"3 registration attempts for this tournament from this client address in 600 s; "
        r"try again in \d+ s",
        refused.details(),
    ), refused.details()
    anonymous.Register(_person(second, "P0"))
    anonymous.Register(_person(second, "P1"))  # five in all now
    refused = _refused(lambda: anonymous.Register(_person(second, "P2")))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert re.fullmatch(
        r"5 registration attempts from this client address in 600 s; try again in \d+ s",
        refused.details(),
    ), refused.details()
    # other addresses and the operator are not touched by it
    stack.matchmaking.servicer.Register(_person(first, "Q0"), Peer("10.0.0.2"))
    operator.Register(_person(first, "R0"))
    names = [
        p.name
        for p in operator.GetTournament(
            mm.GetTournamentRequest(tournament_id=first)
        ).tournament.players
    ]
    assert sorted(names) == ["P0", "P1", "P2", "Q0", "R0"]


def test_a_tournament_without_a_limit_takes_so_many_self_registered(stack: Stack) -> None:
    stack.start_matchmaking()
    anonymous, operator = stack.mm(token=None), stack.mm()
    tid = stack.create().tournament_id  # max_players 0
    stack.register_bots(tid, DEFAULT_MAX_PLAYERS, "random")
    refused = _refused(lambda: anonymous.Register(_person(tid, "Mei")))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refused.details() == (
        f"the tournament is full ({DEFAULT_MAX_PLAYERS} players); the organiser may register more"
    )
    assert operator.Register(_person(tid, "Mei")).player.player_id  # up to 4096


def test_a_new_code_is_long_enough_and_the_cli_makes_a_strong_one(
    stack: Stack, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack.start_matchmaking()
    short = mm.TournamentConfig(name="pin cup", rounds=1, registration_code="1234")
    refused = _refused(
        lambda: stack.mm().CreateTournament(mm.CreateTournamentRequest(config=short))
    )
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.details().startswith(
        "config.registration_code must be at least 8 characters, got 4"
    )

    monkeypatch.setenv("HEBEI_DATA_DIR", str(tmp_path))  # no `hebei up` stack found
    monkeypatch.delenv("HEBEI_OPERATOR_TOKEN", raising=False)
    monkeypatch.delenv("HEBEI_MATCHMAKING_ADDRESS", raising=False)
    where = ["--address", stack.matchmaking_address, "--token", OPERATOR_TOKEN]
    runner = CliRunner()
    weak = runner.invoke(
        app, ["tournament", "create", "--name", "pin", "--registration-code", "1234", *where]
    )
    assert weak.exit_code == 2
    assert weak.stderr.startswith("hebei: --registration-code must be at least 8 characters, got 4")
    created = runner.invoke(
        app, ["tournament", "create", "--name", "auto", "--registration-code", "auto", *where]
    )
    assert created.exit_code == 0, created.output
    tid = created.stdout.strip()  # stdout: the id alone, as scripts read it
    shown = re.fullmatch(r"registration code: (\S+)\n", created.stderr)
    assert shown is not None, created.stderr
    code = shown[1]
    assert len(code) == 14 and set(code.replace("-", "")) <= set(CODE_ALPHABET)
    anonymous = stack.mm(token=None)
    assert _refused(lambda: anonymous.Register(_person(tid, "Mei"))).code() == (
        grpc.StatusCode.PERMISSION_DENIED
    )
    assert anonymous.Register(_person(tid, "Mei", code)).player.name == "Mei"


def test_the_registration_bounds_are_read_from_the_environment() -> None:
    base = {
        "HEBEI_OPERATOR_TOKEN": "op-token-0123456789",
        "HEBEI_MATCHMAKING_TABLE_ADDRESS": "127.0.0.1:1",
        "HEBEI_MATCHMAKING_LEDGER_ADDRESS": "127.0.0.1:2",
    }
    config = MatchmakingConfig.from_env(base)
    assert (config.max_tournament_code_failures, config.tournament_code_failure_seconds) == (
        50,
        3600.0,
    )
    assert (
        config.max_registrations_per_address,
        config.max_registrations_per_address_and_tournament,
        config.registration_seconds,
    ) == (60, 20, 600.0)
    chosen = MatchmakingConfig.from_env(
        {
            **base,
            "HEBEI_MATCHMAKING_MAX_TOURNAMENT_CODE_FAILURES": "7",
            "HEBEI_MATCHMAKING_TOURNAMENT_CODE_FAILURE_SECONDS": "90",
            "HEBEI_MATCHMAKING_MAX_REGISTRATIONS_PER_ADDRESS": "500",
            "HEBEI_MATCHMAKING_MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT": "300",
            "HEBEI_MATCHMAKING_REGISTRATION_SECONDS": "60",
        }
    )
    assert (chosen.max_tournament_code_failures, chosen.tournament_code_failure_seconds) == (7, 90)
    assert chosen.max_registrations_per_address_and_tournament == 300
    for name, value in (
        ("MAX_TOURNAMENT_CODE_FAILURES", "0"),
        ("TOURNAMENT_CODE_FAILURE_SECONDS", "0"),
        ("MAX_REGISTRATIONS_PER_ADDRESS", "many"),
        ("MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT", "100001"),
        ("REGISTRATION_SECONDS", "86401"),
    ):
        with pytest.raises(ConfigError) as bad:
            MatchmakingConfig.from_env({**base, f"HEBEI_MATCHMAKING_{name}": value})
        assert f"HEBEI_MATCHMAKING_{name} must be" in str(bad.value)


def test_a_service_forwards_the_address_of_the_person_it_registers(stack: Stack) -> None:
    """The web gateway registers every person of the browser from its one address: with the
    service token it names each person's address (hebei-client), and the bounds count those;
    an anonymous caller naming addresses is counted on its own."""
    from hebei.common.auth import client_metadata
    from tests.integration.table.conftest import SERVICE_TOKEN

    stack.start_matchmaking(
        max_registrations_per_address=50, max_registrations_per_address_and_tournament=2
    )
    service, anonymous = stack.mm(token=SERVICE_TOKEN), stack.mm(token=None)
    tid = stack.create().tournament_id
    for n in range(2):
        service.Register(_person(tid, f"A{n}"), metadata=client_metadata("203.0.113.1"))
    refused = _refused(
        lambda: service.Register(_person(tid, "A2"), metadata=client_metadata("203.0.113.1"))
    )
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    for n in range(2):  # another person behind the same gateway is not touched by it
        service.Register(_person(tid, f"B{n}"), metadata=client_metadata("203.0.113.2"))
    # Without a token the header is ignored: a crowd cannot pose as many addresses.
    for n in range(2):
        anonymous.Register(_person(tid, f"C{n}"), metadata=client_metadata(f"198.51.100.{n}"))
    refused = _refused(
        lambda: anonymous.Register(_person(tid, "C2"), metadata=client_metadata("198.51.100.9"))
    )
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
