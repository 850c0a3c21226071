"""The web tests' stack: the whole local stack as processes (``start_stack``: ledger, table
engine, matchmaking, the bot service, one bot worker) on the session's PostgreSQL and Redis with
private schemas and queues, started once per pytest session however many test folders use it,
and gateways served in threads of this process on port 0.

Also a small SSE reader over httpx for the tests without a browser.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

from hebei.stack.processes import Stack, StackOptions, available_services, start_stack
from hebei.web.config import WebConfig
from hebei.web.server import RunningGateway, start_gateway
from tests.conftest import drop_schemas, unique_name

BOT_PACE = "0.05"  # seconds: HEBEI_TABLE_BOT_PACE_SECONDS of the web tests' engine
SCHEMA_VARIABLES = ("HEBEI_LEDGER_SCHEMA", "HEBEI_TABLE_SCHEMA", "HEBEI_MATCHMAKING_SCHEMA")

_lock = threading.Lock()
_shared: dict[str, Any] = {"users": 0, "stack": None, "env": None, "dir": None, "db": None}


def acquire_stack(database_url: str, broker_url: str) -> Stack:
    """The shared stack (started on first use)."""
    with _lock:
        if _shared["stack"] is None:
            env = {name: unique_name("web") for name in SCHEMA_VARIABLES}
            env.update(
                HEBEI_BOTS_QUEUE_PREFIX=unique_name("webbots"),
                HEBEI_MATCHMAKING_QUICK_PLAY_WAIT_SECONDS="0.3",
                HEBEI_BOTS_WARM_HANDS="0",
                HEBEI_TABLE_MAX_SPECTATORS_PER_PEER="64",
                # Bots at tables with people wait this long (0.8 s unless set): small here, so
                # that the tests' quick-play matches do not take minutes.
                HEBEI_TABLE_BOT_PACE_SECONDS=BOT_PACE,
            )
            folder = Path(tempfile.mkdtemp(prefix="hebei-web-"))
            options = StackOptions(
                services=(*available_services(), "botservice"),  # hints and reviews
                data_dir=folder,
                database_url=database_url,
                broker_url=broker_url,
                bot_workers=1,
                worker_processes=1,
                worker_sessions=48,
                env=env,
            )
            _shared.update(stack=start_stack(options), env=env, dir=folder, db=database_url)
        _shared["users"] += 1
        return _shared["stack"]


def release_stack() -> None:
    """Stop the shared stack once its last user is done; drop its schemas."""
    with _lock:
        _shared["users"] -= 1
        if _shared["users"] > 0 or _shared["stack"] is None:
            return
        stack, env, folder, database_url = (_shared[k] for k in ("stack", "env", "dir", "db"))
        _shared.update(stack=None, env=None, dir=None, db=None)
    stack.stop()
    drop_schemas(database_url, [env[name] for name in SCHEMA_VARIABLES])
    shutil.rmtree(folder, ignore_errors=True)


def web_config(stack: Stack, **overrides: Any) -> WebConfig:
    """A gateway on 127.0.0.1 port 0 in front of ``stack``."""
    config = WebConfig(
        table_address=stack.address("table"),
        matchmaking_address=stack.address("matchmaking"),
        ledger_address=stack.address("ledger"),
        botservice_address=stack.address("botservice"),
        port=0,
        operator_token=stack.operator_token,
    )
    return replace(config, **overrides)


@contextlib.contextmanager
def gateway(stack: Stack, **overrides: Any) -> Iterator[RunningGateway]:
    running = start_gateway(web_config(stack, **overrides))
    try:
        yield running
    finally:
        running.stop()


# ------------------------------------------------------------------------------ SSE


@dataclass
class Message:
    event: str
    id: int | None
    data: Any
    raw: str


@dataclass
class SseReader:
    """Reads one SSE response in a thread into :attr:`messages` (until closed or it ends)."""

    client: httpx.Client
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    status: int | None = None
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    _response: Any = None
    # Where :meth:`wait_for_state` stopped: the replayed state, its seqs, messages applied.
    _replayed: tuple[Any, list[int], int] = field(default_factory=lambda: (None, [], 0))

    def start(self) -> SseReader:
        # A connection of its own, so that closing it is a real disconnect, as in a browser.
        self.client = httpx.Client(base_url=self.client.base_url, timeout=None)
        threading.Thread(target=self._run, daemon=True).start()
        return self

    def _run(self) -> None:
        try:
            with self.client.stream("GET", self.url, headers=self.headers) as r:
                self._response = r
                self.status = r.status_code
                if r.status_code != 200:
                    r.read()
                    self.error = r.text
                    return
                event, ident, data = "message", None, []
                for line in r.iter_lines():
                    if line == "":
                        if data:
                            text = "\n".join(data)
                            self.messages.append(Message(event, ident, json.loads(text), text))
                        event, ident, data = "message", None, []
                    elif line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("id: "):
                        ident = int(line[4:])
                    elif line.startswith("data: "):
                        data.append(line[6:])
        except (httpx.HTTPError, RuntimeError) as exc:
            self.error = self.error or str(exc)
        finally:
            self.done.set()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self._response is not None:
                self._response.close()
            self.client.close()

    def wait_for(self, predicate: Any, timeout: float = 60) -> Message:
        """The first message for which ``predicate(message)`` holds (AssertionError after
        ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            for message in self.messages[seen:]:
                if predicate(message):
                    return message
            seen = len(self.messages)
            if self.done.is_set() and seen == len(self.messages):
                break
            time.sleep(0.05)
        raise self._not_seen("message", timeout)

    def _not_seen(self, what: str, timeout: float) -> AssertionError:
        return AssertionError(
            f"no such {what} within {timeout} s from {self.url} (status {self.status}, "
            f"error {self.error}, {len(self.messages)} messages)"
        )

    def wait_for_state(self, predicate: Any, timeout: float = 60) -> dict[str, Any]:
        """The state the page holds (replayed from the messages, one at a time) at the first
        message after which ``predicate(state)`` holds (AssertionError after ``timeout`` s).
        Each call goes on from the message the previous call stopped at."""
        deadline = time.monotonic() + timeout
        state, seqs, seen = self._replayed
        while time.monotonic() < deadline:
            for message in self.messages[seen:]:
                seen += 1
                state, applied = apply_message(state, seqs, message)
                if applied and state is not None and predicate(state):
                    self._replayed = (state, seqs, seen)
                    return state
            self._replayed = (state, seqs, seen)
            if self.done.is_set() and seen == len(self.messages):
                break
            time.sleep(0.05)
        raise self._not_seen("state", timeout)


def replay(messages: list[Message]) -> tuple[Any, list[int]]:
    """The state a browser would hold after ``messages`` (snapshots and deltas), and the
    seqs applied in order."""
    state, seqs = None, []
    for message in messages:
        state, _ = apply_message(state, seqs, message)
    return state, seqs


def apply_message(state: Any, seqs: list[int], message: Message) -> tuple[Any, bool]:
    """``state`` after one more message, as the pages apply it (a repeated delta is skipped);
    appends the seq applied to ``seqs``. The second value says whether it applied."""
    from hebei.web.feeds import apply_patch

    if message.event == "snapshot":
        seqs.append(message.data["seq"])
        return copy.deepcopy(message.data["state"]), True
    if message.event == "delta" and (not seqs or message.data["seq"] > seqs[-1]):
        seqs.append(message.data["seq"])
        return apply_patch(state, message.data["patch"]), True
    return state, False


# ------------------------------------------------------------------------------ playing

TILE_NAME = re.compile(r"^[1-9][mpsz]$")


def choose(state: dict[str, Any], *, pong: bool = True, win: bool = False) -> str | None:
    """A command for the seat's open decision: pong (or win) when asked, else pass; on a turn,
    discard the drawn tile unless it pairs with the hand, else a tile without a pair.
    None when there is nothing to decide."""
    options = {o["kind"]: o["command"] for o in state["options"]}
    if win and "win" in options:
        return options["win"]
    if pong and "pong" in options:
        return options["pong"]
    discardable = [t for t in state["hand"] if t["discard"]]
    if not discardable:
        return options.get("pass")
    counts: dict[str, int] = {}
    for item in state["hand"]:
        counts[item["tile"]] = counts.get(item["tile"], 0) + 1
    drawn = [t for t in discardable if t["drawn"]]
    if drawn and counts[drawn[0]["tile"]] == 1:
        return drawn[0]["tile"]
    singles = [t for t in discardable if counts[t["tile"]] == 1]
    return (singles or discardable)[-1]["tile"]


def operator_stub(stack: Stack) -> Any:
    from hebei.common.client import create_channel
    from hebei.v1 import matchmaking_pb2_grpc

    channel = create_channel(stack.address("matchmaking"), token=stack.operator_token, timeout=30)
    return matchmaking_pb2_grpc.MatchmakingServiceStub(channel)


def bot_tournament(stack: Stack, *, players: int = 4, rounds: int = 1, hands: int = 1) -> str:
    """A started tournament of efficiency bots; its id."""
    tournament_id = open_tournament(stack, bots=players, rounds=rounds, hands=hands, seed=3)
    start_tournament(stack, tournament_id)
    return tournament_id


def play_out(
    client: httpx.Client, seat: SseReader, commands: str, timeout: float = 120, **headers: str
) -> dict[str, Any]:
    """Answer every decision of the seat (``seat``'s feed; ``commands`` its commands route)
    until the match ends; the final state."""
    deadline = time.monotonic() + timeout
    answered = None
    while time.monotonic() < deadline:
        state, _ = replay(seat.messages)
        if state is not None and (state["finished"] or seat.done.is_set()):
            return state
        if state is not None and state["decision_id"] and state["decision_id"] != answered:
            command = choose(state, pong=True)
            if command is not None:
                body = {"command": command, "decision_id": state["decision_id"]}
                reply = client.post(commands, json=body, headers=headers)
                assert reply.status_code in (202, 409), reply.text
                answered = state["decision_id"]
        time.sleep(0.05)
    raise AssertionError("the match did not end in time")


def open_tournament(
    stack: Stack, *, bots: int = 3, rounds: int = 2, hands: int = 1, **config: Any
) -> str:
    """A tournament in registration with ``bots`` efficiency bots (people register through
    the gateway, then :func:`start_tournament`); its id. ``config``: TournamentConfig fields."""
    from hebei.v1 import matchmaking_pb2 as mm

    stub = operator_stub(stack)
    config.setdefault("seed", 5)
    settings = mm.TournamentConfig(name=f"Web cup {uuid.uuid4().hex[:4]}", rounds=rounds, **config)
    settings.length.hands = hands
    tournament = stub.CreateTournament(mm.CreateTournamentRequest(config=settings)).tournament
    for _ in range(bots):
        stub.Register(
            mm.RegisterRequest(
                tournament_id=tournament.tournament_id, bot=mm.BotEntrant(policy="efficiency")
            )
        )
    return tournament.tournament_id


def start_tournament(stack: Stack, tournament_id: str) -> None:
    from hebei.v1 import matchmaking_pb2 as mm

    operator_stub(stack).StartTournament(mm.StartTournamentRequest(tournament_id=tournament_id))
