"""Quick play: a person asks to play now and is seated at once.

People waiting with the same rule profile and match length are seated together, four at a
table; a person who has waited :attr:`QuickPlay.wait_seconds` is seated with whoever waits
(possibly nobody) and bots of the level the first of them asked for. The match is stored like
a tournament's (so the round director follows it, dissolves it if it stalls, and records its
result); joining the table's Play stream is the ready signal, and the engine's ready check
makes an absent seat ready when its time runs out (RULES.md §8).

A match nobody is coming to is not played: when the QuickPlay streams of a table's people have
all ended before the match started (cancelled, or closed on SEATED), the table waits
:attr:`QuickPlay.join_grace` seconds for one of them to join its seat, then is dissolved — by
the engine only while it still waits for its seats and none of its people joined (one step
under the table's lock, so a person joining at that moment keeps the match), and recorded as
dissolved with nothing booked; while the engine or the database is down, it is tried again.
After a restart, or when the replica driving the quick-play matches died, the tables a run
that ended seated are due the same way (:meth:`resume_left`). Quick play holds at most :attr:`QuickPlay.max_tables` live
tables (counted in the store, under a transaction lock, so it holds across restarts and
replicas): a request beyond it is RESOURCE_EXHAUSTED when it arrives, and a group seated
beyond it is refused the same way with no table opened, so tournaments always keep the
engine's other tables.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

from hebei.common.errors import (
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    Unavailable,
)
from hebei.common.validation import MAX_NAME_LENGTH, check_text
from hebei.matchmaking import metrics
from hebei.matchmaking.match_requests import bot_seed, open_request
from hebei.matchmaking.settings import check_match_length, check_policy
from hebei.matchmaking.store import MatchRow, PlayerRow
from hebei.matchmaking.tournaments import Tournaments
from hebei.rules.profile import get_profile
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb

__all__ = ["QuickPlay"]

log = logging.getLogger(__name__)

QUICK_HANDS = 4
JOIN_GRACE_SECONDS = 10.0  # a table its people left waits this long for one to join
READY_MARGIN_SECONDS = 0.5  # ... and is dissolved at least this long before its ready check ends
# A dissolving the engine or the database could not do (down) is tried again after 1, 2, 4, 8,
# then every 10 s, until done or refused (a person joined, the match started or ended).
RETRY_FIRST_SECONDS, RETRY_MAX_SECONDS = 1.0, 10.0
LEFT_REASON = "quick play: the player left before the match started"


@dataclass(eq=False)  # one ticket is one request: compared and hashed by identity
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
    started: bool = False  # the stream said STARTED
    ended: bool = False  # the stream has ended (set under QuickPlay._lock)


DEFAULT_NAME = "Player {n}"  # a person who gave no name, numbered at their table


def distinct_names(people: list[PlayerRow]) -> list[PlayerRow]:
    """The people of one table with names nobody else there has: one who gave none is "Player
    1", "Player 2", ... (a number no one at the table holds), and a name given twice gets
    " 2", " 3", ... after it, so a page's "X's turn" always names one seat."""
    given = {p.name for p in people if p.name}
    taken: set[str] = set()
    number = 0
    named = []
    for person in people:
        name = person.name
        if not name:
            number += 1
            while DEFAULT_NAME.format(n=number) in given | taken:
                number += 1
            name = DEFAULT_NAME.format(n=number)
        base, suffix = name, 2
        while name in taken:
            name = f"{base[: MAX_NAME_LENGTH - 1 - len(str(suffix))]} {suffix}"
            suffix += 1
        taken.add(name)
        named.append(person if name == person.name else replace(person, name=name))
    return named


class QuickPlay:
    """The quick-play queue (see the module docstring)."""

    def __init__(
        self,
        ts: Tournaments,
        *,
        wait_seconds: float = 3.0,
        max_waiting: int = 1000,
        max_tables: int = 64,
        join_grace: float = JOIN_GRACE_SECONDS,
    ) -> None:
        self.ts = ts
        self.wait_seconds = wait_seconds
        self.max_waiting = max_waiting
        self.max_tables = max_tables
        self.join_grace = join_grace
        self._lock = threading.Lock()
        self._waiting: list[Ticket] = []
        self._holding: dict[str, set[Ticket]] = {}  # match id -> its people's live streams
        self._leaving: dict[str, threading.Timer] = {}  # match id -> its dissolving, due
        self._closed = False

    def ticket(self, request: mm.QuickPlayRequest) -> Ticket:
        """Check a request and make its ticket (InvalidArgument naming the bad field)."""
        name = check_text("name", request.name, max_length=MAX_NAME_LENGTH)
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
        player_id = f"q-{secrets.token_hex(6)}"
        rating_id = f"person:{name}" if name else f"guest:quick:{player_id}"
        player = PlayerRow("", player_id, 0, name, "person", rating_id=rating_id)
        key = (profile or "main", length.SerializeToString(deterministic=True))
        return Ticket(player, key, policy, level)

    def play(self, request: mm.QuickPlayRequest, active: Callable[[], bool]) -> Iterator:
        """The stream of one request: QUEUED, then SEATED, then STARTED."""
        ticket = self.ticket(request)
        self._check_tables()
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
                    ticket.started = True
                    yield self._response(ticket, mm.QUICK_PLAY_STATUS_STARTED)
                    return
                time.sleep(0.2)
        finally:
            with self._lock:
                if ticket in self._waiting:
                    self._waiting.remove(ticket)
                metrics.QUICK_PLAY_QUEUE.set(len(self._waiting))
                ticket.ended = True
                if ticket.match is not None and not ticket.started:
                    self._let_go(ticket.match.match_id, ticket)
            metrics.WATCH_STREAMS.labels("quick_play").dec()

    # -- the cap on live tables -----------------------------------------------------------------

    def _check_tables(self) -> None:
        """RESOURCE_EXHAUSTED when quick play already holds ``max_tables`` live tables."""
        with self.ts.store.reading() as conn:
            live = self.ts.store.live_quick_play(conn)
        if live >= self.max_tables:
            metrics.QUICK_PLAY_REFUSED.inc()
            raise _full(live)

    # -- tables their people left ---------------------------------------------------------------

    def _let_go(self, match_id: str, ticket: Ticket) -> None:
        """``ticket``'s stream ended before its match started (under ``_lock``): when no other
        person's stream holds the table, its dissolving is due after ``join_grace`` (before
        the engine's ready check would start it with the seats auto-played)."""
        holders = self._holding.get(match_id)
        if holders is not None:
            holders.discard(ticket)
            if holders:
                return
            del self._holding[match_id]
        if self._closed or match_id in self._leaving:
            return
        ready_in = ticket.ready_deadline.ToMicroseconds() / 1e6 - time.time()
        delay = max(0.0, min(self.join_grace, ready_in - READY_MARGIN_SECONDS))
        self._dissolve_after(match_id, delay, 0)

    def _dissolve_after(self, match_id: str, delay: float, attempt: int) -> None:
        """Due: dissolving ``match_id`` in ``delay`` seconds (under ``_lock``)."""
        timer = threading.Timer(delay, self._dissolve_left, args=(match_id, attempt))
        timer.name = f"quick-play-left-{match_id}"
        timer.daemon = True
        self._leaving[match_id] = timer
        timer.start()

    def _dissolve_left(self, match_id: str, attempt: int = 0) -> None:
        """Dissolve a table its people left, unless one of them joined meanwhile or it started:
        the engine checks that and dissolves in one step (FailedPrecondition: it plays on).
        When the engine or the database is down it is tried again (see RETRY_FIRST_SECONDS):
        once back, the engine would start the match with the seat auto-played, holding one of
        quick play's tables for a whole match nobody plays."""
        with self._lock:
            self._leaving.pop(match_id, None)
            if self._closed:
                return
        try:
            with self.ts.store.reading() as conn:
                match = self.ts.store.match(conn, match_id)
            if match is None or match.ended:
                return
            self.ts.dissolve_match(match, LEFT_REASON, only_if_no_person_joined=True)
        except (FailedPrecondition, NotFound):
            return  # a person joined, or the match started: it is played
        except DomainError as error:  # the engine or the database is down: later
            delay = min(RETRY_FIRST_SECONDS * 2**attempt, RETRY_MAX_SECONDS)
            log.warning(
                "quick-play match %s not dissolved yet (%s); trying again in %g s",
                match_id,
                error.message,
                delay,
            )
            with self._lock:
                if not self._closed and match_id not in self._leaving:
                    self._dissolve_after(match_id, delay, min(attempt + 1, 8))
            return
        metrics.QUICK_PLAY_LEFT.inc()
        log.info("quick-play match %s dissolved: %s", match_id, LEFT_REASON)

    def resume_left(self) -> int:
        """When this replica takes the ``quickplay`` lease (at start when it is free, or from
        a replica that died or stopped: see :mod:`hebei.matchmaking.driving`): the quick-play
        matches still live that this process does not hold were seated by a run that ended,
        whose QuickPlay streams all ended with it, so each is due to be dissolved after
        ``join_grace`` like a table its people left; the engine keeps those a person joined
        (or that started). Return how many are due."""
        with self.ts.store.reading() as conn:
            live = [m.match_id for m in self.ts.store.live_matches(conn) if not m.tournament_id]
        with self._lock:
            due = [m for m in live if m not in self._leaving and m not in self._holding]
            for match_id in due:
                self._dissolve_after(match_id, self.join_grace, 0)
        if due:
            log.info("%d quick-play matches of an earlier run are due to be dissolved", len(due))
        return len(due)

    def close(self) -> None:
        """Cancel the dissolvings still due (the service is stopping)."""
        with self._lock:
            self._closed = True
            timers = list(self._leaving.values())
            self._leaving.clear()
        for timer in timers:
            timer.cancel()

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
        for ticket, player in zip(group, distinct_names([t.player for t in group]), strict=True):
            ticket.player = player
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
                live = self.ts.store.live_quick_play(conn, lock=True)
                if live >= self.max_tables:
                    metrics.QUICK_PLAY_REFUSED.inc()
                    raise _full(live)
                self.ts.store.insert_match(conn, match)
        except DomainError as error:
            self._refuse(group, error)
            return
        try:
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
            try:  # stored, maybe opened: not to be played by nobody (else the director opens it)
                self.ts.dissolve_match(match, "quick play: the table could not be opened")
            except DomainError as again:
                log.warning("quick-play match %s left to the director: %s", match_id, again)
            self._refuse(group, Unavailable(f"cannot open a table now: {error.message}"))
            return
        with self._lock:
            holders = self._holding[match_id] = set()
            for ticket in group:
                metrics.QUICK_PLAY_WAIT_SECONDS.observe(time.monotonic() - ticket.since)
                ticket.match = match
                ticket.ready_deadline.CopyFrom(info.ready_deadline)
                if not ticket.ended:
                    holders.add(ticket)
                ticket.seated.set()
            if not holders:  # every stream of the group ended while its table was opened
                self._let_go(match_id, group[0])
        self.ts.changes.notify()

    @staticmethod
    def _refuse(group: list[Ticket], error: DomainError) -> None:
        for ticket in group:
            ticket.error = error
            ticket.seated.set()


def _full(live: int) -> ResourceExhausted:
    """The refusal of a request beyond the cap on live quick-play tables."""
    return ResourceExhausted(f"quick play has {live} tables in play: try again shortly")
