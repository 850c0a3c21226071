"""`hebei replay FILE --key-file K` as a user runs it: the engine's original is "signed by the
engine", an edit is rejected naming the event, an unsigned log is said to be unsigned."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hebei.rules.chain import RECORD, seal
from hebei.rules.match import Match, MatchLength
from hebei.rules.players import RandomPlayer
from hebei.rules.simulate import SimulationSummary, play_match

HEBEI = str(Path(sys.executable).with_name("hebei"))
KEY_TEXT = "0123456789abcdef" * 4


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([HEBEI, "replay", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def match() -> Match:
    m = Match(31, MatchLength(hands=2))
    play_match(m, [RandomPlayer(s) for s in range(4)], SimulationSummary())
    return m


@pytest.fixture
def files(tmp_path: Path, match: Match) -> dict[str, Path]:
    key = tmp_path / "table-log.key"
    key.write_text(KEY_TEXT + "\n")
    signed = seal(match.log(), "m-cli", KEY_TEXT.encode())
    paths = {"key": key, "signed": tmp_path / "signed.json", "plain": tmp_path / "plain.json"}
    paths["signed"].write_text(json.dumps(signed))
    paths["plain"].write_text(json.dumps(match.log()))
    edited = json.loads(json.dumps(signed))
    i = next(i for i, e in enumerate(edited) if e["type"] == "discard")
    edited[i]["tile"] = "7z" if edited[i]["tile"] != "7z" else "6z"
    paths["edited"] = tmp_path / "edited.json"
    paths["edited"].write_text(json.dumps(edited))
    paths["edited_at"] = i
    other = seal(match.log(), "m-cli", b"another key, long enough to be a key")
    paths["other"] = tmp_path / "other.json"
    paths["other"].write_text(json.dumps(other))
    return paths


def test_the_engines_original_is_signed_by_the_engine(files, match) -> None:
    result = run(str(files["signed"]), "--key-file", str(files["key"]))
    assert result.returncode == 0, result.stderr
    assert f"final scores {match.scores}" in result.stdout
    assert "signed by the engine" in result.stdout and "match m-cli" in result.stdout


def test_without_the_key_the_chain_is_checked_and_the_rest_is_said(files) -> None:
    result = run(str(files["signed"]))
    assert result.returncode == 0, result.stderr
    assert "chain intact" in result.stdout and "--key-file" in result.stdout


def test_an_edited_event_is_one_line_naming_it(files) -> None:
    for extra in ((), ("--key-file", str(files["key"]))):
        result = run(str(files["edited"]), *extra)
        assert result.returncode == 1
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "rejected" in lines[0], result.stderr
        assert f"event #{files['edited_at']} (discard" in lines[0] and "was edited" in lines[0]


def test_a_log_signed_with_another_key_is_rejected(files) -> None:
    result = run(str(files["other"]), "--key-file", str(files["key"]))
    assert result.returncode == 1
    assert "no signature verifies with this key" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_unsigned_log_is_reported_as_unsigned(files) -> None:
    result = run(str(files["plain"]))
    assert result.returncode == 0 and "UNSIGNED" in result.stdout
    assert "signed by the engine" not in result.stdout
    keyed = run(str(files["plain"]), "--key-file", str(files["key"]))
    assert keyed.returncode == 1 and "the log is not signed" in keyed.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("short", "at least 32 characters"),
        (b"\xff\xfe", "not a text"),
        ("0" * 5000, "larger than 4,096 bytes"),
    ],
)
def test_a_bad_key_file_is_one_line(tmp_path, files, content, message) -> None:
    key = tmp_path / "bad.key"
    if isinstance(content, bytes):
        key.write_bytes(content)
    elif content is not None:
        key.write_text(content)
    result = run(str(files["signed"]), "--key-file", str(key))
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_record_is_not_part_of_the_event(files) -> None:
    signed = json.loads(files["signed"].read_text())
    assert all(RECORD in e for e in signed) and signed[0][RECORD]["match_id"] == "m-cli"
