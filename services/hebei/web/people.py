"""A person's whole tournament in the browser: the registration's cookie, and the gateway
following the event for that person.

**The cookie** (:class:`Credentials`) carries the registration itself: tournament id, player id
and the player secret matchmaking gave at ``Register``. It is ``HttpOnly`` (no script reads it),
``SameSite=Strict`` (no other site's page sends it), ``Path=/api/tournaments/ID/me`` (sent to
that tournament's person routes only), ``Secure`` over https. Nothing is kept on the gateway, so
a restarted gateway (or another replica) serves it as before; the secret is the credential
matchmaking checks anyway, and a sealed copy of it would be as good as it to whoever held it.

**The follower** (:class:`Follower`): one per registration while a page reads it. A thread
watches the tournament with the player's secret (``WatchTournament``, joined again after
matchmaking restarts) and publishes ``{"tournament", "rounds", "standings", "me"}`` to a feed;
when ``my_seating`` names a match of the person that is open on the engine, the follower opens
the seat session itself (the seat token never leaves the gateway). The page reaches that seat
through the same cookie (``/api/tournaments/ID/me/seat/...``): no key in any URL.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import grpc
from starlette.requests import Request
from starlette.responses import Response

from hebei.common.auth import same_token
from hebei.seatclient.stream import describe_rpc_error
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from hebei.web.backend import Backend, HttpError, get_match_attempt
from hebei.web.feeds import Feed
from hebei.web.tables import SeatSession
from hebei.web.tournament_views import player_json
from hebei.web.tournaments import STREAM_ENDED, TournamentProducer, change_json

if TYPE_CHECKING:
    from hebei.web.hub import Hub

COOKIE = "hebei_player"
COOKIE_DAYS = 30
MAX_COOKIE = 1024
# A watch refused with one of these is final (a wrong secret, an unknown tournament);
# anything else (matchmaking restarting, out of reach, busy) is joined again.
REFUSALS = frozenset(
    {
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.INVALID_ARGUMENT,
    }
)
FIRST_DELAY, MAX_DELAY = 0.5, 5.0  # seconds between watches, doubling
# A seat stream that ended so is joined again (the engine away for long, or not holding the
# match yet), every REJOIN_SECONDS, at most REJOINS times in a row.
REJOIN = ("UNAVAILABLE", "DEADLINE_EXCEEDED", "NOT_FOUND")
REJOIN_SECONDS = 5.0
REJOINS = 24
LIVE_TABLES = ("waiting", "playing")
ENDED_TABLES = ("finished", "dissolved")


# ------------------------------------------------------------------------------ the cookie


@dataclass(frozen=True)
class Credentials:
    """A registration: what the cookie carries."""

    tournament_id: str
    player_id: str
    secret: str

    def encode(self) -> str:
        text = json.dumps([self.tournament_id, self.player_id, self.secret])
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")

    @classmethod
    def decode(cls, value: str) -> Credentials | None:
        if not value or len(value) > MAX_COOKIE:
            return None
        try:
            raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
            items = json.loads(raw)
        except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
            return None
        if not (isinstance(items, list) and len(items) == 3):
            return None
        if not all(isinstance(i, str) and i.isprintable() and 0 < len(i) <= 256 for i in items):
            return None
        return cls(*items)


def cookie_path(tournament_id: str) -> str:
    """The person routes of one tournament (as a page's encodeURIComponent writes them)."""
    return "/api/tournaments/" + quote(tournament_id, safe="!'()*") + "/me"


def set_cookie(response: Response, request: Request, credentials: Credentials) -> None:
    response.set_cookie(
        COOKIE,
        credentials.encode(),
        max_age=COOKIE_DAYS * 86_400,
        path=cookie_path(credentials.tournament_id),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )


def clear_cookie(response: Response, request: Request, tournament_id: str) -> None:
    response.delete_cookie(
        COOKIE,
        path=cookie_path(tournament_id),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )


def credentials_of(request: Request, tournament_id: str) -> Credentials:
    """The registration the request's cookie carries for this tournament (401 without)."""
    found = Credentials.decode(request.cookies.get(COOKIE, ""))
    if found is None or found.tournament_id != tournament_id:
        raise HttpError(
            401,
            "you are not signed in to this tournament on this device: register, or enter "
            "your player id and secret",
            "UNAUTHENTICATED",
        )
    return found


def check_same_origin(request: Request) -> None:
    """A state-changing request must come from the gateway's own pages (403 otherwise): the
    browser's Sec-Fetch-Site and Origin say where it comes from (clients that are not
    browsers send neither and carry no cookie they did not set themselves)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        raise HttpError(403, "this request must come from the gateway's own pages")
    origin = request.headers.get("origin")
    # The host alone: behind a proxy that ends TLS, the scheme the gateway sees may differ.
    if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
        raise HttpError(403, "this request must come from the gateway's own pages")


def check_json_type(request: Request) -> None:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HttpError(415, "send the body as application/json")


# --------------------------------------------------------------------- following a person


class PlayerProducer(TournamentProducer):
    """The tournament as one person sees it: the public state plus ``me`` (their status, table
    of each round, results, rank). Its own seq counts the states posted, so the follower may
    post too (a seat opened, a match over) without breaking the order."""

    def __init__(
        self,
        feed: Feed,
        backend: Backend,
        credentials: Credentials,
        timeout: float,
        on_seating: Callable[[mm.Seating], None],
    ) -> None:
        super().__init__(feed, backend.channels["matchmaking"], credentials.tournament_id, timeout)
        self.credentials = credentials
        self.router = backend.router  # the table engine's replicas
        self.on_seating = on_seating
        self.me: dict[str, Any] = {
            "player_id": credentials.player_id,
            "player": None,
            "connection": "",
            "seat": None,
            "table": None,
            "results": [],
            "waiting_tables": 0,
            "rank": None,
            "points": None,
        }
        self.state["me"] = self.me
        self.count = 0
        self.verified = threading.Event()  # matchmaking took the secret
        self.refused: str | None = None
        self._results: dict[str, dict[str, Any]] = {}
        self.final_scores: dict[str, list[int]] = {}  # match -> scores (see match_over)
        self._tournament: mm.Tournament | None = None
        self._state_lock = threading.RLock()

    def watch_request(self) -> mm.WatchTournamentRequest:
        c = self.credentials
        return mm.WatchTournamentRequest(
            tournament_id=c.tournament_id, player_id=c.player_id, player_secret=c.secret
        )

    def run(self) -> str | None:
        delay = FIRST_DELAY
        while not self.stopped.is_set():
            try:
                reason = self.watch_once()
                if reason != STREAM_ENDED:
                    return reason
                why = "matchmaking ended the stream"
            except grpc.RpcError as error:
                if self.stopped.is_set():
                    return "stopped"
                if error.code() in REFUSALS:
                    self.refused = describe_rpc_error(error).split(": ", 1)[-1]
                    self.verified.set()  # answered: a refusal
                    return self.refused
                why = describe_rpc_error(error)
            self.update(connection=f"{why}; following the tournament again…")
            if self.stopped.wait(delay):
                return "stopped"
            delay = min(delay * 2, MAX_DELAY)
        return "stopped"

    def _apply(self, event: mm.WatchTournamentResponse) -> None:
        super()._apply(event)
        self.verified.set()
        if event.my_seating.match_id:
            self.on_seating(event.my_seating)

    def post_change(self, event: mm.WatchTournamentResponse) -> None:
        self.me["connection"] = ""
        self._tournament = event.tournament
        self._follow(event.tournament)
        self._post(event=change_json(event))

    def update(self, **changes: Any) -> None:
        """Change ``me`` and post the state (from any thread)."""
        with self._state_lock:
            self.me.update(changes)
            self._post()

    def _post(self, **extra: Any) -> None:
        with self._state_lock:
            self.count += 1
            self.publish(self.count, self.state, **extra)

    # ----------------------------------------------------------------- the person's view

    def _follow(self, tournament: mm.Tournament) -> None:
        me, pid = self.me, self.credentials.player_id
        for player in tournament.players:
            if player.player_id == pid:
                me["player"] = player_json(player)
        mine = []
        for seating in self.state["rounds"]:
            for table in seating["tables"]:
                for seat in table["seats"]:
                    if seat["player_id"] == pid:
                        mine.append(
                            {**table, "seat": seat["seat"], "round_finished": seating["finished"]}
                        )
        me["table"] = mine[-1] if mine else None
        me["results"] = [r for r in (self._result(t) for t in mine) if r is not None]
        current = [r for r in self.state["rounds"] if r["round_no"] == tournament.current_round]
        me["waiting_tables"] = sum(
            1 for r in current for t in r["tables"] if t["status"] in LIVE_TABLES
        )
        standings = self.state["standings"] or {"ranking": []}
        row = next((r for r in standings["ranking"] if r["player_id"] == pid), None)
        me["rank"], me["points"] = (row["rank"], row["points"]) if row else (None, None)

    def _result(self, table: dict[str, Any]) -> dict[str, Any] | None:
        """The person's result at a finished table: score and place. The scores are those of
        the seat's last observation when the gateway played the match, else the engine's
        (once it says the match ended)."""
        if table["status"] not in ENDED_TABLES:
            return None
        match_id = table["match_id"]
        if match_id not in self._results:
            scores = self.final_scores.get(match_id)
            if scores is None:
                try:
                    info = self.router.call(
                        match_id, get_match_attempt(match_id), attempt_timeout=self.timeout
                    ).match
                except grpc.RpcError:
                    return None  # the engine is away: read again at the next change
                if info.status not in (pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_DISSOLVED):
                    return None
                scores = [s.score for s in sorted(info.seats, key=lambda s: s.seat)]
            mine = scores[table["seat"]] if table["seat"] < len(scores) else 0
            self._results[match_id] = {
                "round_no": table["round_no"],
                "seat": table["seat"],
                "table_id": table["table_id"],
                "match_id": match_id,
                "status": table["status"],
                "score": mine,
                "place": 1 + sum(1 for s in scores if s > mine),
            }
        return self._results[match_id]

    def match_over(self, match_id: str, scores: list[int]) -> None:
        """The seat's last observation of a finished match (from the loop): its scores serve
        the result; the state is computed again off the loop."""
        self.final_scores[match_id] = scores
        threading.Thread(target=self._refresh, name="player-refresh", daemon=True).start()

    def _refresh(self) -> None:
        with self._state_lock:
            tournament = self._tournament
        if tournament is not None and not self.stopped.is_set():
            self._follow(tournament)
            self._post()


class Follower:
    """One registration followed for its person (see the module doc). Runs on the loop but
    for :meth:`_seated` and :meth:`_ended`, which the threads call."""

    def __init__(self, hub: Hub, credentials: Credentials, owner: str) -> None:
        self.hub = hub
        self.credentials = credentials
        self.owner = owner
        self.feed = Feed(hub.loop, f"player:{credentials.tournament_id}:{credentials.player_id}")
        self.producer = PlayerProducer(
            self.feed, hub.backend, credentials, hub.config.call_timeout, self._seated
        )
        self.session: SeatSession | None = None
        self.opened = 0  # seat sessions opened: the page opens the seat's feed again on change
        self.epoch = secrets.token_hex(4)  # ... and a restarted gateway's sessions differ
        self.finished_matches: set[str] = set()
        self.seating: mm.Seating | None = None  # the seat last opened
        self.rejoins = 0  # its stream joined again in a row (see REJOIN)
        self.started = time.monotonic()

    def start(self) -> Follower:
        self.producer.start()
        return self

    def stop(self) -> None:
        self.producer.stop()
        if self.session is not None:
            self.session.close()

    def idle_for(self, now: float) -> float:
        """How long no page has read this person's feeds (0 while one does)."""
        feeds = [self.feed] + ([self.session.feed] if self.session is not None else [])
        if any(f.subscribers for f in feeds):
            return 0.0
        return now - max(self.started, *(f.idle_since for f in feeds))

    def matches(self, credentials: Credentials) -> bool:
        return same_token(self.credentials.secret, credentials.secret)

    # ------------------------------------------------------------------ the seat

    def _seated(self, seating: mm.Seating) -> None:
        """From the watch thread: a match of the person's is open on the engine."""
        copy = mm.Seating()
        copy.CopyFrom(seating)
        self.hub.call_soon(self._open, copy)

    def _open(self, seating: mm.Seating) -> None:
        session = self.session
        if seating.match_id in self.finished_matches or self.producer.stopped.is_set():
            return
        if (
            session is not None
            and session.match_id == seating.match_id
            and not session.closed
            and session.feed.ended is None
        ):
            return  # already playing it
        if session is not None:
            session.close()
        try:
            session = self.hub.new_session(
                seating.match_id,
                seating.seat,
                seating.seat_token,
                self.owner,
                self.credentials.player_id,
                keyed=False,
            )
        except HttpError as error:
            self.producer.update(seat={"match_id": seating.match_id, "error": error.message})
            return
        session.on_end = lambda why: self.hub.call_soon(self._ended, session, why)
        if self.seating is None or self.seating.match_id != seating.match_id:
            self.rejoins = 0
        self.seating = seating
        self.session = session
        self.opened += 1
        session.start()
        self.producer.update(seat=self.seat_json(seating.round_no))

    def _ended(self, session: SeatSession, why: str) -> None:
        obs = session.obs
        if obs is not None and obs.match_finished:
            self.finished_matches.add(session.match_id)
            self.producer.match_over(session.match_id, [s.score for s in obs.seats])
        elif (
            why.startswith(REJOIN)
            and not session.closed
            and self.seating is not None
            and self.rejoins < REJOINS
        ):
            # Try again, as long as this is still the person's table.
            self.rejoins += 1
            self.hub.loop.call_later(REJOIN_SECONDS, self._rejoin, session, self.seating)
        if session is self.session:
            self.producer.update(seat={**(self.producer.me["seat"] or {}), "ended": why})

    def _rejoin(self, session: SeatSession, seating: mm.Seating) -> None:
        if self.session is session and not self.producer.stopped.is_set():
            self._open(seating)

    def seat_json(self, round_no: int = 0) -> dict[str, Any] | None:
        session = self.session
        if session is None:
            return None
        return {
            "match_id": session.match_id,
            "seat": session.seat,
            "round_no": round_no,
            "session": self.session_id(),
            "ended": session.feed.ended,
        }

    def session_id(self) -> str:
        """The open session's id: a page resuming its feed with Last-Event-ID must resume the
        same session's (a new one, after a restart too, starts with a snapshot)."""
        return f"{self.epoch}.{self.opened}"

    def live_session(self) -> SeatSession:
        session = self.session
        if session is None or session.closed:
            raise HttpError(404, "no table is open for you right now", "NOT_FOUND")
        return session
