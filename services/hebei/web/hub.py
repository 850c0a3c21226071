"""The gateway's live state: the feeds it follows, the seats it plays, and the bounds that keep
one client from taking them all.

Feeds are shared: every browser watching a table reads the one Spectate stream of that table
(the engine sees one spectator per table from the gateway). A feed nobody reads is let go after
:data:`LINGER_SECONDS`, or at once when another table needs its place; a finished one stays
readable for ``ended_keep_seconds``. One client address may be the only reader of at most
``max_tables_per_client`` live feeds. A seat whose page is closed is let go after
``session_idle_seconds`` (the engine then auto-plays it).

Seats (:meth:`Hub.new_session`): a seat session counts against ``max_sessions`` (and its
address's ``max_sessions_per_client``) only once the engine accepted its token (sent an
observation), and only while it lives: a refused token, a finished match, a seat left (DELETE)
free its place at once. Until the engine answers, it holds a place of the small joining pool
(``max_joining``, ``max_joining_per_client``), given back within :data:`JOIN_SECONDS`
whatever happens. A seat's own SSE streams have their own pool (``max_seat_streams`` per seat):
spectators never take a seated person's stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hebei.v1 import table_pb2
from hebei.web.backend import Backend, HttpError
from hebei.web.config import WebConfig
from hebei.web.feeds import Feed, Producer
from hebei.web.tables import CLIENT_NAME, SeatSession, SpectatorProducer
from hebei.web.tournaments import TournamentProducer

if TYPE_CHECKING:
    from hebei.web.people import Credentials, Follower

log = logging.getLogger(__name__)

LINGER_SECONDS = 30.0  # a feed nobody reads is let go after this long
JANITOR_SECONDS = 2.0
MAX_REMEMBERED_TOURNAMENTS = 64
JOIN_SECONDS = 30.0  # a seat whose token the engine has not answered is let go after this


@dataclass
class Watched:
    """A followed feed and the producer thread behind it."""

    feed: Feed
    producer: Producer
    finished: Callable[[], bool] = lambda: False


@dataclass
class Counter:
    """Things held per client address, with a total."""

    per_client: int
    total: int
    held: dict[str, int] = field(default_factory=dict)
    what: str = "streams"

    @property
    def count(self) -> int:
        return sum(self.held.values())

    def acquire(self, client: str) -> Callable[[], None]:
        """Hold one for ``client``; returns the release (safe to call twice), or raises 429."""
        if self.held.get(client, 0) >= self.per_client:
            raise HttpError(
                429,
                f"too many {self.what} from your address ({self.per_client}); "
                "close another page or wait a moment",
            )
        if self.count >= self.total:
            raise HttpError(429, f"the gateway has {self.total} {self.what} open: try again later")
        return hold(self.held, client)


def hold(
    held: dict[str, int], key: str, emptied: Callable[[], None] = lambda: None
) -> Callable[[], None]:
    """Count one more for ``key`` in ``held``; returns the release (safe to call twice), which
    drops ``key`` at zero and then calls ``emptied`` if ``held`` is empty."""
    held[key] = held.get(key, 0) + 1
    released = False

    def release() -> None:
        nonlocal released
        if released:
            return
        released = True
        left = held.get(key, 0) - 1
        if left > 0:
            held[key] = left
            return
        held.pop(key, None)
        if not held:
            emptied()

    return release


def live_seat(session: SeatSession) -> bool:
    """Whether a seat session holds a place: open, its stream on, its match not over."""
    obs = session.obs
    return (
        not session.closed
        and session.feed.ended is None
        and not (obs is not None and obs.match_finished)
    )


class Hub:
    """Feeds, seats and bounds (every method runs on the event loop)."""

    def __init__(self, config: WebConfig, backend: Backend) -> None:
        self.config = config
        self.backend = backend
        self.tables: dict[str, Watched] = {}
        self.tournaments: dict[str, Watched] = {}
        self.seats: dict[str, SeatSession] = {}
        self.opened_at: dict[str, float] = {}  # seat session key -> when it was opened
        self.readers: dict[str, dict[str, int]] = {}  # table -> client address -> its streams
        self.followers: dict[tuple[str, str], Follower] = {}  # a person's event, by cookie
        self.streams = Counter(config.max_streams_per_client, config.max_streams, what="streams")
        self.seat_streams = Counter(  # by seat session key: a seat's own pool
            config.max_seat_streams,
            config.max_seat_streams * 4 * config.max_sessions,
            what="streams of this seat",
        )
        self.quick_play = Counter(
            config.max_quick_play_per_client, config.max_sessions, what="quick-play requests"
        )
        self.seen_tournaments: OrderedDict[str, float] = OrderedDict()
        self.activity: dict[str, tuple[int, float]] = {}  # match -> (event count, since)
        self._janitor: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.stopping = asyncio.Event()  # set at shutdown: SSE responses end at once

    def spectate_token(self, match: table_pb2.MatchInfo) -> str | None:
        """The token a Spectate of ``match`` carries: the service token (the engine's service
        pool) unless the match hides its results (then none, so that the gateway sees no more
        of it than anyone)."""
        if getattr(match, "results_hidden", False):
            return None
        return self.config.service_token or None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._janitor = self._loop.create_task(self._sweep_forever())

    def request_stop(self) -> None:
        """Thread-safe: end every SSE response now (the server is stopping)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.stopping.set)

    async def close(self) -> None:
        self.stopping.set()
        if self._janitor is not None:
            self._janitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._janitor
        for watched in [*self.tables.values(), *self.tournaments.values()]:
            watched.producer.stop()
        for follower in self.followers.values():
            follower.stop()
        for seat in self.seats.values():
            seat.close()
        for watched in [*self.tables.values(), *self.tournaments.values()]:
            await asyncio.to_thread(watched.producer.join, 2.0)
        self.tables.clear()
        self.tournaments.clear()
        self.seats.clear()
        self.followers.clear()

    # ----------------------------------------------------------------------- tables

    async def watch_table(self, match_id: str, client: str) -> tuple[Feed, Callable[[], None]]:
        """The feed of a table for one SSE stream of ``client``, and its release (see the
        module doc: a client address alone on too many feeds is refused 429)."""
        readers = self.readers.get(match_id, {})
        if not set(readers) - {client}:  # nobody else reads it: it would count as the client's
            alone = sum(
                1
                for table, who in self.readers.items()
                if table != match_id and set(who) == {client} and self._live_table(table)
            )
            if alone >= self.config.max_tables_per_client:
                raise HttpError(
                    429,
                    f"your address alone follows {alone} tables already (at most "
                    f"{self.config.max_tables_per_client}); close one first",
                )
        feed = await self.table_feed(match_id)
        readers = self.readers.setdefault(match_id, {})

        def emptied() -> None:
            if self.readers.get(match_id) is readers:
                del self.readers[match_id]

        return feed, hold(readers, client, emptied)

    def _live_table(self, match_id: str) -> bool:
        watched = self.tables.get(match_id)
        return watched is not None and watched.feed.ended is None

    async def table_feed(self, match_id: str) -> Feed:
        """The feed of a table, started on first use (404 for an unknown match)."""
        watched = self.tables.get(match_id)
        if watched is not None and (watched.feed.ended is None or watched.finished()):
            return watched.feed
        reply = await self.backend.call_match(
            match_id, "GetMatch", table_pb2.GetMatchRequest(match_id=match_id)
        )
        watched = self.tables.get(match_id)  # another request may have started it meanwhile
        if watched is not None and (watched.feed.ended is None or watched.finished()):
            return watched.feed
        self._make_room(self.tables, match_id)
        if watched is not None:
            watched.producer.stop()
        feed = Feed(self.loop, f"table:{match_id}")
        producer = SpectatorProducer(
            feed,
            self.backend.router,
            reply.match,
            self.config.spectator_delay,
            token=self.spectate_token(reply.match),
        )
        self.tables[match_id] = Watched(
            feed, producer, lambda: bool(producer.table.state["finished"])
        )
        producer.start()
        return feed

    def _make_room(self, registry: dict[str, Watched], key: str) -> None:
        """Room for one more live feed: a live feed nobody reads is let go (the longest idle
        first) when the bound is reached; 429 when every live feed has readers."""
        live = [(k, w) for k, w in registry.items() if w.feed.ended is None and k != key]
        if len(live) < self.config.max_tables:
            return
        idle = sorted((w.feed.idle_since, k) for k, w in live if not w.feed.subscribers)
        if not idle:
            what = "tables" if registry is self.tables else "tournaments"
            raise HttpError(
                429,
                f"the gateway follows {self.config.max_tables} {what} already, each watched; "
                "try again when one ends",
            )
        for _since, k in idle[: len(live) - self.config.max_tables + 1]:
            registry.pop(k).producer.stop()

    # ------------------------------------------------------------------- tournaments

    async def tournament_feed(self, tournament_id: str) -> Feed:
        watched = self.tournaments.get(tournament_id)
        if watched is not None and (watched.feed.ended is None or watched.finished()):
            return watched.feed
        from hebei.v1 import matchmaking_pb2 as mm

        await self.backend.call(
            "matchmaking", "GetTournament", mm.GetTournamentRequest(tournament_id=tournament_id)
        )
        self.remember_tournament(tournament_id)
        watched = self.tournaments.get(tournament_id)
        if watched is not None and (watched.feed.ended is None or watched.finished()):
            return watched.feed
        self._make_room(self.tournaments, tournament_id)
        if watched is not None:
            watched.producer.stop()
        feed = Feed(self.loop, f"tournament:{tournament_id}")
        producer = TournamentProducer(
            feed, self.backend.channels["matchmaking"], tournament_id, self.config.call_timeout
        )

        def finished() -> bool:
            tournament = producer.state.get("tournament") or {}
            return tournament.get("status") in ("finished", "cancelled")

        self.tournaments[tournament_id] = Watched(feed, producer, finished)
        producer.start()
        return feed

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Thread-safe: ``fn(*args)`` on the loop (nothing once the loop has closed)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(fn, *args)

    def follower(self, credentials: Credentials, owner: str) -> Follower:
        """The person's follower, started on first use. A cookie whose secret differs from the
        follower's is refused (403) once matchmaking took the follower's; before that, or after
        matchmaking refused it, the newer cookie's follower replaces it."""
        from hebei.web.people import Follower as Following

        key = (credentials.tournament_id, credentials.player_id)
        follower = self.followers.get(key)
        if follower is not None:
            if follower.matches(credentials) and follower.producer.refused is None:
                follower.owner = owner
                return follower
            settled = follower.producer.verified.is_set() and follower.producer.refused is None
            if settled and not follower.matches(credentials):
                raise HttpError(403, "the player secret is wrong", "PERMISSION_DENIED")
            follower.stop()
            del self.followers[key]
        if len(self.followers) >= self.config.max_sessions:
            raise HttpError(429, "the gateway follows as many people as it may; try again later")
        follower = self.followers[key] = Following(self, credentials, owner).start()
        return follower

    def drop_follower(self, follower: Follower) -> None:
        key = (follower.credentials.tournament_id, follower.credentials.player_id)
        if self.followers.get(key) is follower:
            del self.followers[key]
        follower.stop()

    def remember_tournament(self, tournament_id: str) -> None:
        self.seen_tournaments[tournament_id] = time.time()
        self.seen_tournaments.move_to_end(tournament_id)
        while len(self.seen_tournaments) > MAX_REMEMBERED_TOURNAMENTS:
            self.seen_tournaments.popitem(last=False)

    # ------------------------------------------------------------------------- seats

    def open_seat(
        self, match_id: str, seat: int, token: str, owner: str, player_id: str = ""
    ) -> SeatSession:
        """Join a seat's Play stream for a browser; the session's key goes back to the page."""
        session = self.new_session(match_id, seat, token, owner, player_id)
        self._forget_ended_seats()
        self.seats[session.key] = session
        return session.start()

    def _forget_ended_seats(self) -> None:
        """Ended seats stay readable for ``ended_keep_seconds`` but hold no place; at most
        four times ``max_sessions`` of them are kept, the oldest let go first."""
        room = 4 * self.config.max_sessions - len(self.seats)
        if room > 0:
            return
        ended = [k for k, s in self.seats.items() if not live_seat(s)]
        for key in ended[: 1 - room]:
            self.close_seat(key)

    async def accepted(self, session: SeatSession, timeout: float) -> None:
        """Wait until the engine accepted the session's token (its first observation), or
        refused it (then the session is let go and the refusal raised as HttpError), or
        ``timeout`` seconds passed (it stays in the joining pool for :data:`JOIN_SECONDS`)."""
        deadline = time.monotonic() + timeout
        while session.obs is None and session.feed.ended is None and not session.closed:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            await Feed.wait(session.feed.signal(), min(left, 1.0))
        if session.obs is None:
            why = session.feed.ended or "the seat session was closed"
            self.close_seat(session.key)
            status, code = 403, "PERMISSION_DENIED"
            if "not found" in why.lower() or "no match" in why.lower():
                status, code = 404, "NOT_FOUND"
            raise HttpError(status, f"the table refused this seat: {why}", code)

    def sessions(self) -> list[SeatSession]:
        """Every seat session played through the gateway: by key and by cookie."""
        followed = [f.session for f in self.followers.values() if f.session is not None]
        return [*self.seats.values(), *followed]

    def new_session(
        self,
        match_id: str,
        seat: int,
        token: str,
        owner: str,
        player_id: str = "",
        *,
        keyed: bool = True,
    ) -> SeatSession:
        """A seat session within the bounds (not started; see the module doc): the joining
        pool while the engine has not accepted the token, then the seats' pool."""
        live = [s for s in self.sessions() if live_seat(s)]
        joining = [s for s in live if s.obs is None]
        seated = [s for s in live if s.obs is not None]
        config = self.config
        mine = sum(1 for s in seated if s.owner == owner)
        if mine >= config.max_sessions_per_client:
            raise HttpError(
                429,
                f"your address plays {mine} seats already (at most "
                f"{config.max_sessions_per_client}); leave one first",
            )
        if len(seated) >= config.max_sessions:
            raise HttpError(429, "the gateway plays as many seats as it may; try again later")
        if sum(1 for s in joining if s.owner == owner) >= config.max_joining_per_client:
            raise HttpError(
                429,
                f"your address has {config.max_joining_per_client} seats waiting for the "
                "table's answer; try again in a moment",
            )
        if len(joining) >= config.max_joining:
            raise HttpError(429, "too many seats are waiting for the table; try again shortly")
        key = secrets.token_urlsafe(18)
        feed = Feed(self.loop, f"seat:{match_id}:{seat}", history=1024)
        join = table_pb2.Join(
            match_id=match_id, seat=seat, seat_token=token, client_name=CLIENT_NAME
        )
        session = SeatSession(key, feed, self.backend.router, join, owner, player_id)
        session.keyed = keyed
        self.opened_at[key] = time.monotonic()
        return session

    def seat(self, key: str) -> SeatSession:
        session = self.seats.get(key)
        if session is None:
            raise HttpError(404, "no such seat session: it ended or the gateway restarted")
        return session

    def close_seat(self, key: str) -> None:
        session = self.seats.pop(key, None)
        self.opened_at.pop(key, None)
        if session is not None:
            session.close()

    # ----------------------------------------------------------------------- upkeep

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(JANITOR_SECONDS)
            try:
                self.sweep()
            except Exception:  # the janitor must go on
                log.exception("the gateway's sweep failed")

    def sweep(self, now: float | None = None) -> None:
        """Let go of feeds nobody reads and seats nobody plays."""
        now = time.monotonic() if now is None else now
        keep = self.config.ended_keep_seconds
        for registry in (self.tables, self.tournaments):
            for key, watched in list(registry.items()):
                feed = watched.feed
                if feed.subscribers:
                    continue
                idle = now - feed.idle_since
                ended_long_ago = feed.ended_at is not None and now - feed.ended_at > keep
                if (
                    (feed.ended is None and idle > LINGER_SECONDS)
                    or ended_long_ago
                    or (feed.ended is not None and not watched.finished() and idle > LINGER_SECONDS)
                ):
                    watched.producer.stop()
                    del registry[key]
        for session in self.sessions():
            opened = self.opened_at.get(session.key)
            if opened is not None and (session.obs is not None or session.closed):
                del self.opened_at[session.key]
            elif opened is not None and now - opened > JOIN_SECONDS:
                del self.opened_at[session.key]
                session.close()  # the engine never answered: its joining place back
        for key in [k for k in self.opened_at if k not in {s.key for s in self.sessions()}]:
            del self.opened_at[key]
        for key, session in list(self.seats.items()):
            feed = session.feed
            if feed.subscribers:
                continue
            idle = now - feed.idle_since
            if (feed.ended is not None and feed.ended_at and now - feed.ended_at > keep) or (
                feed.ended is None and idle > self.config.session_idle_seconds
            ):
                session.close()
                del self.seats[key]
        for key, follower in list(self.followers.items()):
            if follower.idle_for(now) > self.config.session_idle_seconds or (
                follower.feed.ended is not None and follower.idle_for(now) > LINGER_SECONDS
            ):
                follower.stop()
                del self.followers[key]

    def stats(self) -> dict[str, Any]:
        return {
            "tables_followed": sum(1 for w in self.tables.values() if w.feed.ended is None),
            "tournaments_followed": sum(
                1 for w in self.tournaments.values() if w.feed.ended is None
            ),
            "seats_played": sum(1 for s in self.sessions() if live_seat(s)),
            "people_followed": len(self.followers),
            "streams_open": self.streams.count,
            "limits": {
                "max_tables": self.config.max_tables,
                "max_streams": self.config.max_streams,
                "max_streams_per_client": self.config.max_streams_per_client,
                "max_sessions": self.config.max_sessions,
                "max_sessions_per_client": self.config.max_sessions_per_client,
                "max_tables_per_client": self.config.max_tables_per_client,
                "max_seat_streams": self.config.max_seat_streams,
                "stream_seconds": self.config.stream_seconds,
                "spectator_delay_seconds": self.config.spectator_delay,
            },
        }
