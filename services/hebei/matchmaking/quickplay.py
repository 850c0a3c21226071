"""Quick play: a person asks to play now and is seated at once.

People waiting with the same rule profile and match length are seated together, four at a
table; a person who has waited :attr:`QuickPlay.wait_seconds` is seated with whoever waits
(possibly nobody) and bots of the level the first of them asked for. The match is stored like
a tournament's (so the round director follows it, dissolves it if it stalls, and records its
result); joining the table's Play stream is the ready signal, and the engine's ready check
makes an absent seat ready when its time runs out (RULES.md §8).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from hebei.common.errors import DomainError, InvalidArgument, ResourceExhausted, Unavailable
from hebei.common.validation import MAX_NAME_LENGTH, check_text
from hebei.matchmaking import metrics
from hebei.matchmaking.settings import check_match_length, check_policy
from hebei.matchmaking.store import MatchRow, PlayerRow
from hebei.matchmaking.tournaments import Tournaments, bot_seed, open_request
from hebei.rules.profile import get_profile
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb

__all__ = ["QuickPlay"]

QUICK_HANDS = 4


@dataclass
class Ticket:
    """One person's request, waiting to be seated."""

    player: PlayerRow
    key: tuple[str, bytes]  # (profile, length): who may share a table
    policy: str
    level: int
    since: float = field(default_factory=time.monotonic)
    match: MatchRow | None = None
    ready_deadline: Timestamp = field(default_factory=Timestamp)  # the engine's ready check
    error: DomainError | None = None
    seated: threading.Event = field(default_factory=threading.Event)


class QuickPlay:
    """The quick-play queue (see the module docstring)."""

    def __init__(
        self,
        ts: Tournaments,
        *,
        wait_seconds: float = 3.0,
        max_waiting: int = 1000,
    ) -> None:
        self.ts = ts
        self.wait_seconds = wait_seconds
        self.max_waiting = max_waiting
        self._lock = threading.Lock()
        self._waiting: list[Ticket] = []

    def ticket(self, request: mm.QuickPlayRequest) -> Ticket:
        """Check a request and make its ticket (InvalidArgument naming the bad field)."""
        name = check_text("name", request.name, max_length=MAX_NAME_LENGTH, required=True)
        profile = check_text("rule_profile.name", request.rule_profile.name, max_length=32)
        try:
            get_profile(profile or "main")
        except ValueError as exc:
            raise InvalidArgument(f"rule_profile: {exc}") from None
        length = (
            check_match_length(request.length)
            if request.HasField("length")
            else pb.MatchLength(hands=QUICK_HANDS)
        )
        policy, level = check_policy("bot", request.bot_policy, request.bot_level)
        player = PlayerRow(
            "", f"q-{secrets.token_hex(6)}", 0, name, "person", rating_id=f"person:{name}"
        )
        key = (profile or "main", length.SerializeToString(deterministic=True))
        return Ticket(player, key, policy, level)

    def play(self, request: mm.QuickPlayRequest, active: Callable[[], bool]) -> Iterator:
        """The stream of one request: QUEUED, then SEATED, then STARTED."""
        ticket = self.ticket(request)
        with self._lock:
            if len(self._waiting) >= self.max_waiting:
                raise ResourceExhausted("the quick-play queue is full; try again shortly")
            self._waiting.append(ticket)
            metrics.QUICK_PLAY_QUEUE.set(len(self._waiting))
        metrics.WATCH_STREAMS.labels("quick_play").inc()
        try:
            yield mm.QuickPlayResponse(
                status=mm.QUICK_PLAY_STATUS_QUEUED, player_id=ticket.player.player_id
            )
            while not ticket.seated.wait(0.1):
                if not active():
                    return
                self._seat_due()
            if ticket.error is not None:
                raise ticket.error
            yield self._response(ticket, mm.QUICK_PLAY_STATUS_SEATED)
            while active():
                info = self.ts.table.get_match(ticket.match.match_id)
                if info.status != pb.MATCH_STATUS_WAITING:
                    yield self._response(ticket, mm.QUICK_PLAY_STATUS_STARTED)
                    return
                time.sleep(0.2)
        finally:
            with self._lock:
                if ticket in self._waiting:
                    self._waiting.remove(ticket)
                metrics.QUICK_PLAY_QUEUE.set(len(self._waiting))
            metrics.WATCH_STREAMS.labels("quick_play").dec()

    def _response(self, ticket: Ticket, status: int) -> mm.QuickPlayResponse:
        match = ticket.match
        seat = next(s for s in match.request.seats if s.player_id == ticket.player.player_id)
        response = mm.QuickPlayResponse(
            status=status,
            player_id=ticket.player.player_id,
            seating=mm.Seating(
                table_id=match.table_id,
                match_id=match.match_id,
                seat=seat.seat,
                seat_token=seat.seat_token,
                table_endpoint=self.ts.table_endpoint,
            ),
            seats=[
                mm.PublicSeat(
                    seat=s.seat, player_id=s.player_id, player_name=s.player_name, kind=s.kind
                )
                for s in match.request.seats
            ],
        )
        if status == mm.QUICK_PLAY_STATUS_SEATED:
            response.ready_deadline.CopyFrom(ticket.ready_deadline)
        return response

    def _seat_due(self) -> None:
        """Seat the groups that are due: four people of one kind, or whoever waits with the
        oldest request once it has waited ``wait_seconds``."""
        with self._lock:
            group = self._take_group()
        if group:
            self._open(group)

    def _take_group(self) -> list[Ticket]:
        by_key: dict[tuple[str, bytes], list[Ticket]] = {}
        for ticket in self._waiting:
            by_key.setdefault(ticket.key, []).append(ticket)
        now = time.monotonic()
        for tickets in by_key.values():
            if len(tickets) >= 4 or now - tickets[0].since >= self.wait_seconds:
                group = tickets[:4]
                for ticket in group:
                    self._waiting.remove(ticket)
                metrics.QUICK_PLAY_QUEUE.set(len(self._waiting))
                return group
        return []

    def _open(self, group: list[Ticket]) -> None:
        """Store the match, open it on the engine, queue its bots, tell the tickets."""
        first = group[0]
        seated = [t.player for t in group]
        for number in range(len(seated), 4):
            seated.append(
                PlayerRow(
                    "",
                    f"q-{secrets.token_hex(6)}",
                    0,
                    f"{first.policy}-{first.level} bot {number}",
                    "bot",
                    rating_id=f"bot:{first.policy}:{first.level}",
                    bot_policy=first.policy,
                    bot_level=first.level,
                )
            )
        order = secrets.SystemRandom().sample(range(4), 4)  # seats drawn at random
        seated = [seated[i] for i in order]
        match_id = f"q-{secrets.token_hex(8)}"
        length = pb.MatchLength.FromString(first.key[1])
        match = MatchRow(
            match_id=match_id,
            tournament_id="",
            round_no=0,
            table_no=0,
            table_id=f"quick-{secrets.token_hex(4)}",
            request=open_request(
                None,
                match_id=match_id,
                table_id="",
                round_no=0,
                seated=seated,
                profile=first.key[0],
                length=length,
            ),
        )
        match.request.table_id = match.table_id
        try:
            with self.ts.store.transaction() as conn:
                self.ts.store.insert_match(conn, match)
            info = self.ts.table.open_match(match.request)
            for seat in match.request.seats:
                if seat.kind == pb.SEAT_KIND_BOT:
                    self.ts.fleet.send(
                        match_id,
                        seat.seat,
                        seat.seat_token,
                        seat.bot_policy,
                        seat.bot_level,
                        bot_seed(match_id, seat.seat),
                    )
            with self.ts.store.transaction() as conn:
                current = self.ts.store.match(conn, match_id, lock=True)
                current.status = "opened"
                current.opened_at = current.progress_at = datetime.now(UTC)
                self.ts.store.update_match(conn, current)
        except DomainError as error:
            for ticket in group:
                ticket.error = Unavailable(f"cannot open a table now: {error.message}")
                ticket.seated.set()
            return
        for ticket in group:
            metrics.QUICK_PLAY_WAIT_SECONDS.observe(time.monotonic() - ticket.since)
            ticket.match = match
            ticket.ready_deadline.CopyFrom(info.ready_deadline)
            ticket.seated.set()
        self.ts.changes.notify()
