"""End-to-end fixtures: the ``hebei`` program driven through a pseudo-terminal, and a table
engine served on port 0 for ``hebei play --address``."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pexpect
import pytest
from pexpect import fdpexpect

from hebei.bots.policies import make_policy
from hebei.common.client import create_channel
from hebei.common.server import Server
from hebei.fleet.ticket import SeatTicket
from hebei.play.local import BotSeat, LocalOptions, open_match_request, serve_engine
from hebei.table.service import TableEngine
from hebei.v1 import table_pb2_grpc

OPERATOR_TOKEN = "operator-token-for-e2e-tests"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
PROMPT_END = "> "
MATCH_OVER = "Match over"


def hebei_program() -> str:
    """The installed ``hebei`` command of this virtualenv."""
    beside = Path(sys.executable).with_name("hebei")
    return str(beside) if beside.exists() else shutil.which("hebei") or "hebei"


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text).replace("\r", "")


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A private, short data directory (a unix socket path inside it must stay short)."""
    folder = Path(tempfile.mkdtemp(prefix="hebei-play-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def play_env(database_url: str, data_dir: Path) -> dict[str, str]:
    """The environment of a ``hebei play`` child: the test database, a private data dir."""
    env = dict(os.environ)
    env.update(
        HEBEI_DATABASE_URL=database_url,
        HEBEI_DATA_DIR=str(data_dir),
        TERM="xterm-256color",
        COLUMNS="160",
    )
    return env


@dataclass
class Transcript:
    """What a driven ``hebei play`` printed (without ANSI codes) and how it ended."""

    text: str
    prompts: list[str]
    exit_status: int | None


def drive(
    args: list[str],
    env: dict[str, str],
    answer: Callable[[str, int], str],
    *,
    timeout: float = 60,
) -> Transcript:
    """Run ``hebei play ARGS`` in a pseudo-terminal; ``answer(prompt, n)`` types a line at each
    prompt until the match is over or the program ends."""
    child, process = spawn_in_terminal([hebei_program(), "play", *args], env, timeout)
    chunks: list[str] = []
    prompts: list[str] = []
    try:
        while True:
            found = child.expect([PROMPT_END, MATCH_OVER, pexpect.EOF])
            chunks.append(child.before + (child.after if isinstance(child.after, str) else ""))
            if found != 0:
                break
            lines = strip_ansi(child.before).strip("\n").splitlines()
            prompt = lines[-1] if lines else ""
            prompts.append(prompt)
            child.sendline(answer(prompt, len(prompts)))
        if found != 2:
            child.expect(pexpect.EOF)
            chunks.append(child.before)
    finally:
        child.close()
        if process.poll() is None:
            process.kill()
        process.wait()
    return Transcript(strip_ansi("".join(chunks)), prompts, process.returncode)


def spawn_in_terminal(
    argv: list[str], env: dict[str, str], timeout: float
) -> tuple[fdpexpect.fdspawn, subprocess.Popen]:
    """``argv`` on a new pseudo-terminal of 60 × 160, read and written through pexpect.

    Started by ``subprocess`` (vfork and exec in C), not ``pty.fork``: a fork in Python runs
    gRPC's fork handlers, and with the in-process engine's threads inside gRPC at that moment
    the child's gRPC poller broke (``epoll_wait error: Bad file descriptor``) before it could
    exec, seen once in CI."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 160, 0, 0))
    try:
        process = subprocess.Popen(
            argv, stdin=terminal, stdout=terminal, stderr=terminal, env=env,
            start_new_session=True, close_fds=True,
        )  # fmt: skip
    finally:
        os.close(terminal)
    return fdpexpect.fdspawn(controller, encoding="utf-8", timeout=timeout), process


def first_choice(prompt: str, _n: int) -> str:
    """Win when possible, pass on claims, else discard the tile at position 1."""
    if "[h] win" in prompt:
        return "h"
    if "[x] pass" in prompt:
        return "x"
    return "1"


@dataclass
class RunningEngine:
    engine: TableEngine
    server: Server
    bots: list[BotSeat] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def open_match(self, hands: int = 1, seed: int = 5) -> tuple[str, list[str]]:
        """A match with the person in seat 0 and bot seats 1-3; returns its id and the seat
        tokens (nobody has joined yet)."""
        match_id = f"e2e-{uuid.uuid4().hex[:10]}"
        tokens = [f"token-{seat}-{match_id}" for seat in range(4)]
        request = open_match_request(LocalOptions(hands=hands, seed=seed), match_id, tokens)
        channel = create_channel(self.address, token=OPERATOR_TOKEN)
        try:
            table_pb2_grpc.TableServiceStub(channel).OpenMatch(request)
        finally:
            channel.close()
        return match_id, tokens

    def seat_bots(self, match_id: str, tokens: list[str], seed: int = 5) -> None:
        """Seats 1-3 played by efficiency bots (the fleet's seat-session runner)."""
        for seat in (1, 2, 3):
            ticket = SeatTicket(
                target=self.address,
                match_id=match_id,
                seat=seat,
                seat_token=tokens[seat],
                policy="efficiency",
                seed=seed + seat,
            )
            policy = make_policy("efficiency", seed=seed + seat)
            self.bots.append(BotSeat(ticket, policy).start())


@pytest.fixture
def table_engine(database_url: str, fresh_schema: str) -> Iterator[RunningEngine]:
    """A table engine on 127.0.0.1 port 0 over a fresh schema."""
    engine, server = serve_engine(database_url, fresh_schema, OPERATOR_TOKEN, ready_seconds=30)
    running = RunningEngine(engine, server)
    yield running
    for bot in running.bots:
        bot.stop()
    server.stop(0)
    for bot in running.bots:
        bot.thread.join(5)
    engine.close()
