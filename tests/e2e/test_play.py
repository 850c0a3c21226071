"""``hebei play`` driven through a pseudo-terminal: a whole hand on a local table against three
bots, a remote seat that hands over to auto-play, one-line errors for a bad seat, and a remote
seat over mutual TLS with a client certificate (one line without it)."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from hebei.common.client import create_channel, handshake_error
from hebei.common.tls import ClientTls
from hebei.play.local import LocalOptions, open_match_request
from hebei.play.session import EXIT_ERROR
from hebei.v1 import table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.e2e.conftest import OPERATOR_TOKEN, drive, first_choice, hebei_program
from tests.integration.table.helpers import engine_env, wait_for


def test_a_whole_local_hand_against_three_bots(play_env) -> None:
    played = drive(["--hands", "1", "--seed", "7", "--think", "30"], play_env, first_choice)
    assert played.exit_status == 0, played.text[-3000:]
    assert played.prompts, played.text[-3000:]
    assert all(p.rstrip().endswith("[t] auto  [q] quit") for p in played.prompts)
    text = played.text
    assert "Starting a local table: you against three expert 2 bots, 1 hand(s)" in text
    assert "Your hand" in text and "Hand 1 of 1" in text
    assert re.search(r"You discarded \S+", text)  # our keys reached the table
    assert "Hand 1 settlement" in text
    assert re.search(r"won by|荒庄 exhaustive draw", text)
    assert "Match over. Final scores: You " in text
    assert "Seed 7: play the same deal again with --seed 7." in text
    assert "Refused" not in text and "Traceback" not in text


def test_bad_keys_then_hand_over_on_an_embedded_database(play_env, data_dir) -> None:
    """No HEBEI_DATABASE_URL: the program starts its own embedded PostgreSQL."""

    def answer(prompt: str, n: int) -> str:
        return "zz" if n == 1 else "t"

    env = {k: v for k, v in play_env.items() if k != "HEBEI_DATABASE_URL"}
    played = drive(["--hands", "1", "--seed", "11"], env, answer)
    assert played.exit_status == 0, played.text[-3000:]
    assert "Unknown key 'zz': type ? for help." in played.text
    assert "Auto-play on (托管)" in played.text
    assert "Your seat is now auto-played (托管)" in played.text
    assert len(played.prompts) == 2  # after t, the engine played the rest of the hand
    assert "Hand 1 settlement" in played.text and "Match over" in played.text
    assert (data_dir / "postgres").is_dir()


def test_a_remote_seat_plays_then_hands_over_and_the_log_marks_it(play_env, table_engine) -> None:
    match_id, tokens = table_engine.open_match(hands=1, seed=5)
    table_engine.seat_bots(match_id, tokens)

    def answer(prompt: str, n: int) -> str:
        return first_choice(prompt, n) if n <= 3 else "t"

    args = ["--address", table_engine.address, "--match", match_id, "--seat", "0"]
    played = drive([*args, "--token", tokens[0]], play_env, answer)
    assert played.exit_status == 0, played.text[-3000:]
    assert "Hand 1 settlement" in played.text and "Match over" in played.text
    assert len(played.prompts) == 4  # three answers, then t: the engine played the rest
    log = [entry.event for entry in table_engine.engine.host.get(match_id).log]
    assert {"type": "seat_auto", "seat": 0, "reason": "hand_over"} in log
    assert not any(e["type"] == "seat_auto" and e["seat"] != 0 for e in log)
    own = [e for e in log if e.get("seat") == 0 and e["type"] in ("discard", "pass", "win")]
    assert len([e for e in own if not e.get("auto")]) == 3
    assert any(e.get("auto") for e in own)


def run_remote(play_env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``hebei play ARGS`` with stdin kept open, so the error (not the end of input) ends it."""
    proc = subprocess.Popen(
        [hebei_program(), "play", *args],
        env=play_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        proc.wait(timeout=30)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_a_wrong_token_or_match_is_one_line_on_stderr_and_exit_1(play_env, table_engine) -> None:
    match_id, tokens = table_engine.open_match()
    base = ["--address", table_engine.address, "--seat", "1"]
    wrong = run_remote(play_env, *base, "--match", match_id, "--token", "nope-nope")
    assert wrong.returncode == EXIT_ERROR
    assert wrong.stderr.strip().splitlines() == [
        f"hebei: UNAUTHENTICATED: wrong seat token for seat 1 of match {match_id}"
    ]
    unknown = run_remote(play_env, *base, "--match", "no-such", "--token", tokens[1])
    assert unknown.returncode == EXIT_ERROR
    assert unknown.stderr.strip() == "hebei: NOT_FOUND: no match 'no-such'"
    usage = run_remote(play_env, "--address", table_engine.address, "--seat", "1")
    assert usage.returncode == 2
    assert usage.stderr.strip() == "hebei: a remote table needs --match and --token (and --seat)"


def test_an_address_list_finds_the_engine_among_its_entries(play_env, table_engine) -> None:
    """``--address A,B``: the replicas' entries; the first one out of reach, the seat's stream
    goes on to the next (the wrong token then says so in one line, as with one address)."""
    match_id, _ = table_engine.open_match()
    entries = f"127.0.0.1:1,{table_engine.address}"
    wrong = run_remote(
        play_env, "--address", entries, "--seat", "1", "--match", match_id, "--token", "nope"
    )
    assert wrong.returncode == EXIT_ERROR, wrong.stderr
    assert wrong.stderr.strip().splitlines() == [
        f"hebei: UNAUTHENTICATED: wrong seat token for seat 1 of match {match_id}"
    ]
    bad = run_remote(
        play_env, "--address", "a:1,,b:2", "--seat", "1", "--match", match_id, "--token", "x"
    )
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "hebei: --address must be HOST:PORT[,HOST:PORT...]: address 2 of 'a:1,,b:2' is empty"
    )


# ---------------------------------------------------------------------- mutual TLS

CERTS = Path(__file__).resolve().parents[1] / "integration" / "common" / "certs"
CLIENT = ClientTls(CERTS / "ca.pem", CERTS / "client.pem", CERTS / "client.key")
CLIENT_FILES = ["--ca-file", str(CERTS / "ca.pem"), "--cert-file", str(CERTS / "client.pem")]


@pytest.fixture
def tls_engine(database_url: str, fresh_schema: str, tmp_path: Path) -> Iterator[str]:
    """``python -m hebei.table`` served with mutual TLS (the test CA signs the server's and the
    clients' certificates), configured by its environment; its address. A process of its own:
    pexpect forks this process, which must hold no TLS connection then."""
    env = engine_env(
        database_url,
        fresh_schema,
        HEBEI_OPERATOR_TOKEN=OPERATOR_TOKEN,
        HEBEI_TLS_CERT=str(CERTS / "server.pem"),
        HEBEI_TLS_KEY=str(CERTS / "server.key"),
        HEBEI_TLS_CLIENT_CA=str(CERTS / "ca.pem"),
        HEBEI_TABLE_LOG_KEY="log-key-of-the-e2e-tests-0123456789",
        HEBEI_TABLE_READY_SECONDS="1",
    )
    address = f"127.0.0.1:{env['HEBEI_TABLE_PORT']}"
    log = (tmp_path / "engine.log").open("wb")
    engine = subprocess.Popen(
        [sys.executable, "-m", "hebei.table"], env=env, stdout=log, stderr=log
    )
    try:
        assert wait_for(
            lambda: engine.poll() is None and handshake_error(address, CLIENT, 1) is None,
            timeout=30,
            step=0.2,
        ), (tmp_path / "engine.log").read_text()[-2000:]
        yield address
    finally:
        engine.terminate()
        engine.wait(30)
        log.close()


def _open_over_tls(address: str) -> tuple[str, list[str]]:
    """A one-hand match for the person in seat 0; the other seats, people here, never join
    (auto-played; absent bot seats would pause the table for the fleet)."""
    match_id = f"e2e-tls-{uuid.uuid4().hex[:8]}"
    tokens = [f"token-{seat}-{match_id}" for seat in range(4)]
    request = open_match_request(LocalOptions(hands=1, seed=5), match_id, tokens)
    for seat in request.seats:
        seat.kind, seat.bot_policy, seat.bot_level = pb.SEAT_KIND_PERSON, "", 0
    with create_channel(address, token=OPERATOR_TOKEN, tls=CLIENT) as channel:
        table_pb2_grpc.TableServiceStub(channel).OpenMatch(request)
    return match_id, tokens


def test_a_remote_seat_over_mutual_tls_with_a_client_certificate(play_env, tls_engine) -> None:
    match_id, tokens = _open_over_tls(tls_engine)
    args = ["--address", tls_engine, "--match", match_id, "--seat", "0", "--token", tokens[0]]
    key = ["--key-file", str(CERTS / "client.key")]
    played = drive([*args, *CLIENT_FILES, *key], play_env, first_choice, timeout=90)
    assert played.exit_status == 0, played.text[-3000:]
    assert played.prompts and "Hand 1 settlement" in played.text and "Match over" in played.text


def test_without_a_client_certificate_or_with_a_wrong_key_one_line(play_env, tls_engine) -> None:
    match_id, tokens = _open_over_tls(tls_engine)
    base = ["--address", tls_engine, "--match", match_id, "--seat", "0", "--token", tokens[0]]
    anonymous = run_remote(play_env, *base, "--ca-file", str(CERTS / "ca.pem"))
    assert anonymous.returncode == EXIT_ERROR
    assert anonymous.stderr.strip().splitlines() == [
        f"hebei: --address {tls_engine}: no connection: it closed the connection during the "
        "handshake: it wants TLS, or a client certificate it trusts (see --tls, --ca-file, "
        "--cert-file/--key-file)"
    ]
    # The system's roots do not trust the test CA. (grpc itself may log the failed handshake
    # on stderr too, unless GRPC_VERBOSITY=ERROR.)
    untrusted = run_remote(play_env, *base, "--tls")
    assert untrusted.returncode == EXIT_ERROR
    assert [line for line in untrusted.stderr.splitlines() if line.startswith("hebei:")] == [
        f"hebei: --address {tls_engine}: no connection: its certificate is not signed by the "
        "CA trusted here (see --tls, --ca-file, --cert-file/--key-file)"
    ]
    mismatched = run_remote(play_env, *base, *CLIENT_FILES, "--key-file", str(CERTS / "server.key"))
    assert mismatched.returncode == 2
    assert mismatched.stderr.strip().splitlines() == [
        f"hebei: --cert-file ({CERTS / 'client.pem'}) and --key-file ({CERTS / 'server.key'}) "
        "do not match: the certificate is not for this key"
    ]
