"""Tables in the browser: a spectated table (one Spectate stream, folded into the public view)
and a person's seat (one Play stream, through :class:`hebei.seatclient.stream.PlayStream`).

Both run their gRPC stream in threads and post to a :class:`~hebei.web.feeds.Feed`; the seat
also takes the person's commands (the terminal client's keys, read by
:func:`hebei.seatclient.commands.parse_command`) and sends them on the stream.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc

from hebei.common import convert
from hebei.common.auth import bearer_metadata
from hebei.common.routing import MatchRouter
from hebei.rules.errors import NotationError
from hebei.seatclient.commands import CommandKind, parse_command
from hebei.seatclient.stream import (
    CLOSED,
    MESSAGE,
    MOVED,
    MOVED_LINE,
    PlayStream,
    describe_rpc_error,
)
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from hebei.web.backend import HttpError, get_match_attempt
from hebei.web.feeds import Feed, Poster, Producer
from hebei.web.public_table import PublicTable, describe_event
from hebei.web.seat_view import change_lines, observation_view

log = logging.getLogger(__name__)

CLIENT_NAME = "hebei-web/0.1"
# Events after which the spectator's view reads who plays each seat again.
SEAT_CHANGES = frozenset(
    {
        pb.EVENT_TYPE_SEAT_CONNECTED,
        pb.EVENT_TYPE_SEAT_DISCONNECTED,
        pb.EVENT_TYPE_SEAT_AUTO,
        pb.EVENT_TYPE_SEAT_RESUMED,
    }
)
MAX_COMMAND_LENGTH = 16
DECISION_OVER = "that decision is over"  # a command for a decision answered or closed (409)


class SpectatorProducer(Producer):
    """One Spectate stream from the first event, folded into a :class:`PublicTable`.

    Events up to the count the match had when the feed opened are folded silently and posted
    as one snapshot; each later event is a delta whose seq is the engine's event number. With
    a spectator delay, each event is held until ``delay`` seconds after it happened.

    The stream goes to the match's owner through ``router``: when it ends with a refusal (the
    match moved to another replica) or UNAVAILABLE (its replica went away), it opens again
    after the last event folded, at the owner the refusal named (at once) or at the next entry,
    after the router's :class:`~hebei.common.routing.RejoinSchedule` (every ~0.25 s while the
    match is being taken over, else the router's short backoff); the page sees a pause, not an
    end. It ends only when no replica served the match for the router's deadline. ``token``:
    sent with the Spectate calls (the engine's service pool), never with the GetMatch reads.
    """

    def __init__(
        self,
        feed: Feed,
        router: MatchRouter,
        info: table_pb2.MatchInfo,
        delay: float = 0.0,
        token: str | None = None,
    ) -> None:
        super().__init__(feed, f"spectate-{info.match_id}")
        self.router = router
        self.info = info
        self.delay = delay
        self.metadata = bearer_metadata(token) if token else None
        self.table = PublicTable(info)
        self.reopened = 0  # streams opened again after a failure
        self._served = False  # the stream open now sent something
        self._call: Any = None
        self._lock = threading.Lock()

    def cancel(self) -> None:
        with self._lock:
            if self._call is not None:
                self._call.cancel()

    def run(self) -> str | None:
        catch_up = self.info.event_count
        if catch_up == 0:  # nothing to catch up with: the empty table is the first state
            self.publish(0, self.table.state, reset=True)
        self.caught_up = catch_up == 0
        schedule = self.router.rejoin_schedule(self.router.settings.backoff)
        lost_since = 0.0  # when the match was last served (or the feed opened)
        while True:
            address, channel = self.router.stream_channel(self.info.match_id)
            try:
                ended = self._follow(channel, address, catch_up)
                break
            except grpc.RpcError as error:
                if self.stopped.is_set():
                    return "stopped"
                if self.router.note_failure(self.info.match_id, error, address) is None:
                    return describe_rpc_error(error)
                now = time.monotonic()
                if self._served or not lost_since:
                    lost_since = now
                    schedule.served()
                if now - lost_since >= self.router.settings.deadline_seconds:
                    return describe_rpc_error(error)
                wait = schedule.after(error, address)  # a redirect: at once
                if wait.seconds and self.stopped.wait(wait.seconds):
                    return "stopped"
                self.reopened += 1
        if ended is not None:
            return ended
        if not self.caught_up:  # the stream ended before its last (hidden) events
            self.publish(self.table.seq, self.table.state, reset=True)
        return "the match is over" if self.table.state["finished"] else "the table closed"

    def _follow(self, channel: grpc.Channel, address: str, catch_up: int) -> str | None:
        """One Spectate stream from the event after the last one folded, until it ends:
        "stopped", or None when it ended by itself; its failure raised."""
        from hebei.v1 import table_pb2_grpc

        self._served = False
        stub = table_pb2_grpc.TableServiceStub(channel)
        request = table_pb2.SpectateRequest(
            match_id=self.info.match_id, from_seq=self.table.seq + 1
        )
        with self._lock:
            if self.stopped.is_set():
                return "stopped"
            self._call = stub.Spectate(request, metadata=self.metadata)
        names = [s["name"] for s in self.table.state["seats"]]
        for message in self._call:
            if not self._served:
                self._served = True
                self.router.note_served(self.info.match_id, address)
            event = message.event
            self._hold(event)
            if self.stopped.is_set():
                return "stopped"
            if event.seq <= self.table.seq:
                continue  # folded already, before the stream was opened again
            data = self.table.apply(event)
            if event.type in SEAT_CHANGES and event.seq >= catch_up:
                self._played_by()
            if event.seq < catch_up:
                continue
            line = describe_event(data, names)
            self.publish(
                event.seq,
                self.table.state,
                reset=not self.caught_up,  # the events so far, folded, as one snapshot
                event=data,
                **({"log": [line]} if line else {}),
            )
            self.caught_up = True
        return None

    def _played_by(self) -> None:
        """Who plays each seat now (a filler may have taken a person's seat): the engine's
        ``SeatInfo.played_by``, read again when a seat's client comes, goes or is replaced."""
        try:
            info = self.router.call(
                self.info.match_id, get_match_attempt(self.info.match_id), deadline=5
            )
        except grpc.RpcError:
            return  # the next seat change reads it again
        self.table.set_played_by(info.match.seats)

    def _hold(self, event: pb.Event) -> None:
        """Wait until ``delay`` seconds after the event happened (or arrived)."""
        if self.delay <= 0:
            return
        now = time.time()
        happened = event.time.seconds + event.time.nanos / 1e9 if event.HasField("time") else now
        wait = min(now, happened) + self.delay - now
        if wait > 0:
            self.stopped.wait(wait)


class SeatSession:
    """A person's seat played from the browser: the Play stream, its feed, the commands.

    :attr:`key` is the secret the page uses in its URLs (never the seat token, which stays in
    the gateway). The stream's reader thread turns each observation into the table view and
    posts it; a refused action or a reconnection travels as a notice with the next delta.
    """

    def __init__(
        self,
        key: str,
        feed: Feed,
        route: MatchRouter | grpc.Channel,
        join: table_pb2.Join,
        owner: str,
        player_id: str = "",
    ) -> None:
        self.key = key
        self.feed = feed
        self.owner = owner
        self.player_id = player_id
        self.match_id = join.match_id
        self.seat = join.seat
        self.poster = Poster(feed)
        self.obs: pb.Observation | None = None
        self.count = 0
        self.closed = False
        self.answered = 0  # the last decision id a command answered through this session
        # A session reached by its key (quick play) counts against its address's seat bound
        # at once; a cookie session (a tournament person's, see hebei.web.people) only once
        # the engine accepted its token (sent an observation).
        self.keyed = True
        self.on_end: Callable[[str], None] | None = None  # called on the stream's thread
        self._lock = threading.Lock()
        self.stream = PlayStream(route, join, self)  # type: ignore[arg-type]

    def start(self) -> SeatSession:
        self.stream.start()
        return self

    @property
    def counted(self) -> bool:
        """Whether it counts against its address's seat bound (see :attr:`keyed`)."""
        return not self.closed and (self.keyed or self.obs is not None)

    def close(self) -> None:
        """End the Play stream (the engine auto-plays the seat until someone joins it again)."""
        self.closed = True
        self.stream.close()

    # ------------------------------------------------------------- from the stream thread

    def put(self, item: tuple[str, Any]) -> None:
        """PlayStream's inbox: every server message, reconnection and the end."""
        kind, value = item
        try:
            if kind == MESSAGE:
                self._on_message(value)
            elif kind == CLOSED:
                why = "the match is over"
                if value is not None and not self.closed:
                    why = describe_rpc_error(value)
                elif self.obs is None or not self.obs.match_finished:
                    why = "the table closed the stream"
                self._notice(why)
                self.feed.post_end(why)
                if self.on_end is not None:
                    self.on_end(why)
            elif kind == MOVED:  # the match's owner changed: a calm line, the seat goes on
                self._notice(MOVED_LINE)
            else:  # reconnecting (and any later kinds): tell the page
                self._notice(f"{value}; joining the table again…")
        except Exception:  # never kill the stream's thread over one message
            log.exception("seat %s of %s: a message could not be shown", self.seat, self.match_id)

    def _on_message(self, message: table_pb2.PlayResponse) -> None:
        if message.HasField("rejected"):
            rejected = message.rejected
            self._notice(f"Refused ({rejected.code}): {rejected.message}")
            return
        if not message.HasField("observation"):
            return
        obs = message.observation
        with self._lock:
            previous, self.obs = self.obs, obs
            self.count += 1
            extra: dict[str, Any] = {}
            lines = change_lines(previous, obs)
            if lines:
                extra["log"] = lines
            if obs.HasField("last_event") and (
                previous is None or previous.last_event.seq != obs.last_event.seq
            ):
                extra["event"] = {"seq": obs.last_event.seq, "time_ms": _millis(obs.last_event)}
            self.poster.publish(self.count, observation_view(obs), **extra)

    def _notice(self, text: str) -> None:
        with self._lock:
            if self.obs is None:
                return
            self.count += 1
            self.poster.publish(self.count, observation_view(self.obs), notice=text)

    # ------------------------------------------------------------- from the loop

    def check_live(self) -> None:
        """410 (with why) once the session has ended: the page shows it and stops."""
        if self.closed or self.feed.ended:
            why = self.feed.ended or "the page left the table"
            raise HttpError(410, f"this seat's session has ended: {why}", "GONE")

    def command(self, text: str, decision_id: int | None = None) -> dict[str, Any]:
        """A key or typed command (``p``, ``h``, ``k2``, ``5m``, ``3``, ``x``, ``t``) against
        decision ``decision_id`` (None: the one open now, for clients that send none); sends
        the action with that decision's id, or raises HttpError saying why not: 409
        ``DECISION_OVER`` when that decision is not open any more or was answered already (a
        stale or second click: nothing is sent)."""
        text = text.strip()
        if len(text) > MAX_COMMAND_LENGTH:
            raise HttpError(400, f"a command is at most {MAX_COMMAND_LENGTH} characters")
        self.check_live()
        with self._lock:
            obs = self.obs
        if obs is None:
            raise HttpError(409, "the table has not sent this seat anything yet")
        acting = decision_id is not None and decision_id != 0
        if acting and (decision_id != obs.decision_id or decision_id == self.answered):
            raise HttpError(409, DECISION_OVER, "DECISION_OVER")
        view = None
        if obs.decision_id and obs.legal_actions and not _auto_played(obs):
            try:
                view = convert.observation_from_proto(obs)
            except NotationError:
                view = None
        command = parse_command(text, view)
        if command.kind is CommandKind.ACT and command.action is not None:
            action = convert.action_to_proto(command.action, obs.decision_id)
            self.answered = obs.decision_id
            self.stream.send(action)
            return {"sent": _action_json(action)}
        if command.kind is CommandKind.TOGGLE_AUTO:
            return self.toggle_auto(not _auto_played(obs))
        if command.kind in (CommandKind.REDRAW, CommandKind.HELP):
            return {"sent": None}
        if command.kind is CommandKind.HINT:
            raise HttpError(
                409, "a hint is asked with GET /api/seats/KEY/hint (the page's Hint, s)"
            )
        if command.kind is CommandKind.QUIT:
            raise HttpError(400, "to leave the table, close the page (the engine plays on)")
        raise HttpError(409, command.message)

    def toggle_auto(self, on: bool) -> dict[str, Any]:
        """Hand the seat over to auto-play (托管) or take it back."""
        self.check_live()
        if self.obs is None or self.obs.phase == pb.PHASE_WAITING:
            raise HttpError(409, "The match has not started yet.")
        kind = pb.ACTION_KIND_HAND_OVER if on else pb.ACTION_KIND_TAKE_OVER
        action = pb.Action(kind=kind)
        self.stream.send(action)
        return {"sent": _action_json(action)}


def _auto_played(obs: pb.Observation) -> bool:
    return obs.seat < len(obs.seats) and obs.seats[obs.seat].auto_played


def _millis(event: pb.Event) -> int | None:
    if not event.HasField("time"):
        return None
    return event.time.seconds * 1000 + event.time.nanos // 1_000_000


def _action_json(action: pb.Action) -> dict[str, Any]:
    from hebei.web.views import enum_name, tile

    return {
        "kind": enum_name(pb.ActionKind, action.kind, "ACTION_KIND_"),
        "tile": tile(action.tile),
    }
