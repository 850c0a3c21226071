"""``hebei play`` driven through a pseudo-terminal: a whole hand on a local table against three
bots, a remote seat that hands over to auto-play, and one-line errors for a bad seat."""

from __future__ import annotations

import re
import subprocess

from hebei.play.session import EXIT_ERROR
from tests.e2e.conftest import drive, first_choice, hebei_program


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
