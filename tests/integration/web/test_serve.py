"""``hebei web serve`` and ``python -m hebei.web`` as a person starts them; the feed's patches."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from hebei.web.feeds import apply_patch, diff
from hebei.web.server import ready

HEBEI = str(Path(sys.executable).with_name("hebei"))


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    env["HEBEI_DATA_DIR"] = tempfile.mkdtemp(prefix="hebei-web-none-")  # no `hebei up` there
    env.update(extra)
    return env


def test_web_serve_prints_its_address_and_stops_on_sigterm(web_stack) -> None:
    argv = [HEBEI, "web", "serve", "--port", "0", "--table", web_stack.address("table")]
    argv += ["--matchmaking", web_stack.address("matchmaking")]
    process = subprocess.Popen(
        argv,
        env=_env(HEBEI_OPERATOR_TOKEN="t" * 24),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("web: http://127.0.0.1:") and line.endswith("/"), line
        url = line.removeprefix("web: ")
        assert httpx.get(url + "api/health", timeout=10).json()["status"] == "ok"
        assert ready(url.removeprefix("http://").rstrip("/"))
        tables = httpx.get(url + "api/tables?status=all", timeout=10)
        assert tables.status_code == 200
        process.send_signal(signal.SIGTERM)
        assert process.wait(20) == 0
        assert "Traceback" not in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_configuration_errors_are_one_line() -> None:
    missing = subprocess.run(
        [HEBEI, "web", "serve", "--port", "0"], env=_env(), capture_output=True, text=True
    )
    assert missing.returncode == 2
    assert missing.stderr.strip() == "hebei: HEBEI_WEB_TABLE_ADDRESS is required but not set"
    bad = subprocess.run(
        [sys.executable, "-m", "hebei.web"],
        env=_env(
            HEBEI_WEB_TABLE_ADDRESS="127.0.0.1:1",
            HEBEI_WEB_MATCHMAKING_ADDRESS="nowhere",
        ),
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "hebei-web: HEBEI_WEB_MATCHMAKING_ADDRESS must be host:port, got 'nowhere'"
    )
    taken = subprocess.run(
        [sys.executable, "-m", "hebei.web"],
        env=_env(
            HEBEI_WEB_TABLE_ADDRESS="127.0.0.1:1",
            HEBEI_WEB_MATCHMAKING_ADDRESS="127.0.0.1:2",
            HEBEI_WEB_PORT="99999",
        ),
        capture_output=True,
        text=True,
    )
    assert taken.returncode == 2 and "HEBEI_WEB_PORT must be an integer 0-65535" in taken.stderr
    assert len(taken.stderr.strip().splitlines()) == 1
    assert not ready("127.0.0.1:1")


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(6 if depth < 3 else 3)
    if kind == 0:
        return rng.choice([None, True, 0, 1, "5m", "x"])
    if kind == 1:
        return rng.randrange(-5, 5)
    if kind == 2:
        return rng.choice(["a", "b", "7z"])
    if kind == 3:
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 4:
        return [{"k": _random_json(rng, depth + 1)} for _ in range(rng.randrange(3))]
    return {rng.choice("abcd"): _random_json(rng, depth + 1) for _ in range(rng.randrange(4))}


def test_a_patch_turns_one_state_into_the_next() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        old = {"s": _random_json(rng), "seats": [{"d": [1, 2]}, {"d": []}]}
        new = {"s": _random_json(rng), "seats": [{"d": [1, 2, 3]}, {"d": ["5m"]}]}
        if rng.random() < 0.3:
            new["s"] = old["s"]
        patch = diff(old, new)
        assert json.loads(json.dumps(patch)) == patch
        assert apply_patch(json.loads(json.dumps(old)), patch) == new
    assert diff({"l": [1, 2]}, {"l": [1, 2, 3]}) == [["push", ["l"], [3]]]
    assert diff({"a": 1}, {"a": 1}) == []
