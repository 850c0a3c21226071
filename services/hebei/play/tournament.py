"""A person's whole tournament in the terminal, without I/O of its own.

:class:`TournamentFollower` is what ``hebei tournament join`` does between the tournament's
change feed (WatchTournament events), the person's keyboard (typed lines, the end of input),
the Play stream of the current seat (its items tagged with the stream's generation, so a late
item of a stream already closed is dropped) and the clock (:meth:`~TournamentFollower.on_tick`).
It says what happens on a rich console and asks a :class:`SeatPort` to open a seat's Play
stream, close it, or check the person in, so tests drive it with made-up events.

What it does:

- A seat is joined as soon as any event carries ``my_seating`` for a match not yet played
  (TABLE_OPENED and SNAPSHOT on servers that wait for the engine, ROUND_SEATED on older
  ones), so the person is never counted absent because of the client.
- A Join refused NOT_FOUND (the round announced before its match is open on the engine) is
  tried again, backing off from :data:`JOIN_FIRST_DELAY` to :data:`JOIN_MAX_DELAY` seconds,
  for :data:`JOIN_RETRY_SECONDS` from the first refusal; a Join refused because the seat's
  token was revoked (PERMISSION_DENIED, or UNAUTHENTICATED from an engine that says "wrong
  seat token") is told in one line, and the person waits for the next round. A stream lost
  otherwise is told in one line, and the seat is joined again if the feed seats it again.
- Between rounds: the person's result (final scores, their place at the table), the
  standings (the top rows and their own row, with statuses), when the next round starts
  (``next_round_at`` as a countdown, else how many of the round's tables still play), the
  round's time limit (``round_ends_at``) and, before the start, the schedule and check-in
  window (the person is checked in once the window is open: running ``join`` says they are
  here).
- When the person's status turns withdrawn, no-show or removed, one line says so and it
  stops (a withdrawn person first finishes the match in play, which still counts).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import grpc
from rich.console import Console
from rich.text import Text

from hebei.play.session import EOF, LINE, PlayerSession
from hebei.seatclient.stream import CLOSED, MESSAGE, describe_rpc_error
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb

# A Join refused NOT_FOUND is tried again for this long (seconds), backing off.
JOIN_RETRY_SECONDS = 60.0
JOIN_FIRST_DELAY, JOIN_MAX_DELAY = 0.5, 8.0
# Refusals that mean the seat is not (or no longer) this person's: its token was revoked.
REVOKED_CODES = frozenset({grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED})
# A failed CheckIn is tried again after this long (seconds) while the window is open.
CHECK_IN_RETRY_SECONDS = 5.0
# Standings rows shown between rounds (besides the person's own row).
TOP_ROWS = 3
# The countdown to the next round is said again when it passes these marks (seconds left).
COUNTDOWN_MARKS = (600, 300, 120, 60, 30, 10)

# How the command ends (see ``hebei tournament join --help``).
EXIT_FINISHED = 0  # the tournament finished; or the person withdrew, or left (q, end of input)
EXIT_ERROR = 1  # matchmaking unreachable or refused the watch
EXIT_OUT = 3  # removed by an operator, or withdrawn by the rules (no-show)
EXIT_CANCELLED = 4  # the tournament was cancelled
EXIT_INTERRUPTED = 130  # Ctrl-C

KIND = mm.TournamentEventType
STATUS_WORDS = {
    mm.PLAYER_STATUS_ACTIVE: "",
    mm.PLAYER_STATUS_WITHDRAWN: "withdrawn",
    mm.PLAYER_STATUS_NO_SHOW: "no-show",
    mm.PLAYER_STATUS_REMOVED: "removed",
}
ENDED_MATCHES = (pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_DISSOLVED)


class SeatPort(Protocol):
    """What the follower asks of the outside world."""

    def open_seat(self, seating: mm.Seating, generation: int) -> Callable[[pb.Action], None]:
        """Open the seat's Play stream (closing any other); its inbox items come back through
        :meth:`TournamentFollower.on_play` with ``generation``. Returns the stream's send."""
        ...

    def close_seat(self) -> None:
        """Close the current Play stream, if any."""
        ...

    def check_in(self) -> str | None:
        """Check the person in; None when done, else one line saying why not."""
        ...


def player_status(player: mm.Player) -> int:
    """The player's status, also from an older server's removed/withdrawn flags."""
    if player.status:
        return player.status
    if player.removed:
        return mm.PLAYER_STATUS_REMOVED
    if player.withdrawn:
        return mm.PLAYER_STATUS_WITHDRAWN
    return mm.PLAYER_STATUS_ACTIVE


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st, ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def duration_text(seconds: float) -> str:
    """``"45 s"``, ``"2 min 5 s"``, ``"1 h 3 min"``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def when_text(stamp: Any, now: float) -> str:
    """A timestamp as ``"05:12:30 UTC (in 2 min 5 s)"`` (the date too when not today)."""
    at = stamp.ToNanoseconds() / 1e9
    moment = datetime.fromtimestamp(at, UTC)
    today = datetime.fromtimestamp(now, UTC).date()
    clock = moment.strftime("%H:%M:%S UTC" if moment.date() == today else "%Y-%m-%d %H:%M UTC")
    left = at - now
    return f"{clock} (in {duration_text(left)})" if left > 0 else f"{clock} (now)"


def place_at_table(scores: Sequence[int], seat: int) -> int:
    """1 + the number of seats that scored more than ``seat`` (ties share a place)."""
    return 1 + sum(1 for s in scores if s > scores[seat])


@dataclass
class _Attempt:
    """Joining one seat: the refusals so far."""

    seating: mm.Seating
    round_no: int
    first_refusal: float | None = None
    delay: float = JOIN_FIRST_DELAY
    retry_at: float | None = None
    heard: bool = False  # the engine sent a message on this seat


class TournamentFollower:
    """The person's side of a tournament (see the module docstring)."""

    def __init__(
        self,
        console: Console,
        player_id: str,
        port: SeatPort,
        *,
        hints: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.console = console
        self.player_id = player_id
        self.port = port
        self.hints = hints
        self.clock = clock
        self.tournament: mm.Tournament | None = None
        self.session: PlayerSession | None = None
        self.attempt: _Attempt | None = None
        self.generation = 0
        self.played: set[str] = set()  # matches over for the person (finished, or left)
        self.revoked: set[tuple[str, str]] = set()  # (match, token) refused as not theirs
        self.standings: list[pb.Standing] = []
        self.exit_code: int | None = None
        self.leaving: str | None = None  # stop once the match in play is over, saying this
        self.waiting_round = 0  # the round whose result was shown, waiting for the next
        self.running_tables: tuple[int, int] | None = None  # (still playing, of), as said
        self.next_round_said: float | None = None  # next_round_at as last said
        self.countdown_mark: int | None = None
        self.check_in_retry_at = 0.0
        self.schedule_said = False
        self.rounds_said: set[int] = set()

    # ------------------------------------------------------------------ state

    @property
    def done(self) -> bool:
        return self.exit_code is not None

    @property
    def playing(self) -> bool:
        """A seat's stream is open (or being joined) and its match is not over."""
        return self.attempt is not None

    def me(self) -> mm.Player | None:
        if self.tournament is None:
            return None
        for player in self.tournament.players:
            if player.player_id == self.player_id:
                return player
        return None

    def say(self, text: str, style: str = "") -> None:
        if self.session is not None:
            self.session.say(text, style)  # after a prompt still open, on a line of its own
        else:
            self.console.print(Text(text, style=style), soft_wrap=True)

    def stop(self, code: int, line: str = "", style: str = "bold") -> None:
        if line:
            self.say(line, style)
        self.exit_code = code
        self._close_seat()

    # ------------------------------------------------------------------ the change feed

    def on_event(self, event: mm.WatchTournamentResponse) -> None:
        """One WatchTournament event."""
        if self.done:
            return
        now = self.clock()
        if event.HasField("tournament"):
            self.tournament = event.tournament
        if event.standings:
            self.standings = list(event.standings)
        if self._check_status():
            return
        kind = event.type
        if kind == KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT:
            self._on_snapshot(event, now)
        elif kind == KIND.TOURNAMENT_EVENT_TYPE_ROUND_SEATED:
            self._on_round_seated(event, now)
        elif kind == KIND.TOURNAMENT_EVENT_TYPE_ROUND_FINISHED:
            self._on_round_finished(event, now)
        elif kind == KIND.TOURNAMENT_EVENT_TYPE_PAUSED:
            reason = self.tournament.status_reason if self.tournament else ""
            self.say(f"The tournament is paused{': ' + reason if reason else ''}.", "yellow")
        elif kind == KIND.TOURNAMENT_EVENT_TYPE_RESUMED:
            self.say("The tournament resumed.", "yellow")
        elif kind == KIND.TOURNAMENT_EVENT_TYPE_FINISHED:
            self._on_finished()
            return
        elif kind == KIND.TOURNAMENT_EVENT_TYPE_CANCELLED:
            reason = self.tournament.status_reason if self.tournament else ""
            self.stop(
                EXIT_CANCELLED, f"The tournament was cancelled{': ' + reason if reason else ''}."
            )
            return
        if event.my_seating.match_id:
            self._seat(event.my_seating, event.round_no or self._current_round())
        self._say_tables_left()
        self._check_in(now)

    def _current_round(self) -> int:
        return self.tournament.current_round if self.tournament else 0

    def _rounds(self) -> int:
        return self.tournament.config.rounds if self.tournament else 0

    def _check_status(self) -> bool:
        """Stop (or plan to) when the person left the event; True when stopped."""
        player = self.me()
        if player is None or self.leaving is not None:
            return False
        status = player_status(player)
        if status == mm.PLAYER_STATUS_ACTIVE:
            return False
        reason = f" ({player.status_reason})" if player.status_reason else ""
        if status == mm.PLAYER_STATUS_WITHDRAWN:
            line = f"You withdrew from the tournament{reason}: you are not seated again."
            if self.session is not None and not self.session.done:
                self.leaving = line
                self.say(f"{line} Finish this match; it still counts.", "bold")
                return False
            self.stop(EXIT_FINISHED, line)
            return True
        what = "marked no-show" if status == mm.PLAYER_STATUS_NO_SHOW else "removed"
        self.stop(EXIT_OUT, f"You were {what}{reason}: you are out of the tournament.")
        return True

    def _on_snapshot(self, event: mm.WatchTournamentResponse, now: float) -> None:
        t = self.tournament
        if t is None:
            return
        if t.status == mm.TOURNAMENT_STATUS_REGISTRATION:
            self._say_schedule(now)
        elif t.status in (mm.TOURNAMENT_STATUS_RUNNING, mm.TOURNAMENT_STATUS_PAUSED):
            self.say(f"{t.config.name or t.tournament_id}: round {t.current_round} of "
                     f"{t.config.rounds} is being played.")  # fmt: skip
            self._say_round_limit(now)
            mine = [table for table in t.tables if self._seated_in([table])]
            if not mine or all(table.status in ENDED_MATCHES for table in mine):
                self.say(
                    "Your match of this round is over; waiting for the next round."
                    if mine
                    else "You have no seat in this round; waiting for the next one."
                )
                self.played.update(table.match_id for table in mine)
                self.waiting_round = t.current_round
                self._say_next_round(now)
            elif not event.my_seating.match_id:
                self.say("Waiting for your table to open on the table engine...")
        elif t.status == mm.TOURNAMENT_STATUS_FINISHED:
            self._on_finished()
        elif t.status == mm.TOURNAMENT_STATUS_CANCELLED:
            self.stop(EXIT_CANCELLED, "The tournament was cancelled.")

    def _say_schedule(self, now: float) -> None:
        t = self.tournament
        if t is None or self.schedule_said:
            return
        self.schedule_said = True
        players = sum(1 for p in t.players if not p.filler)
        name = t.config.name or t.tournament_id
        self.say(f"{name}: {t.config.rounds} round(s), {players} registered.", "bold")
        if t.config.HasField("scheduled_start"):
            self.say(f"It starts at {when_text(t.config.scheduled_start, now)}.")
        else:
            self.say("It starts when the organiser starts it; round 1 is played here.")
        if t.HasField("check_in_opens_at"):
            opens = when_text(t.check_in_opens_at, now)
            closes = (
                when_text(t.check_in_closes_at, now)
                if t.HasField("check_in_closes_at")
                else "the start"
            )
            self.say(f"Check-in: from {opens} until {closes}; you are checked in here once it "
                     "opens.")  # fmt: skip

    def _on_round_seated(self, event: mm.WatchTournamentResponse, now: float) -> None:
        round_no = event.round_no or self._current_round()
        if round_no in self.rounds_said:
            return
        self.rounds_said.add(round_no)
        self.waiting_round = 0
        self.running_tables = None
        self.next_round_said = None
        self.say(f"Round {round_no} of {self._rounds()} is seated.", "bold")
        self._say_round_limit(now)
        tables = list(event.tables) or list(self.tournament.tables if self.tournament else [])
        if not event.my_seating.match_id:
            if self._seated_in(tables):
                self.say("Waiting for your table to open on the table engine...")
            else:
                self.say("You have no seat in this round; waiting for the next one.")
                self.waiting_round = round_no

    def _seated_in(self, tables: Sequence[mm.TableAssignment]) -> bool:
        return any(s.player_id == self.player_id for t in tables for s in t.seats)

    def _say_round_limit(self, now: float) -> None:
        t = self.tournament
        if t is not None and t.HasField("round_ends_at"):
            self.say(f"The round's time limit: matches end after the hand in play at "
                     f"{when_text(t.round_ends_at, now)}.")  # fmt: skip

    def _on_round_finished(self, event: mm.WatchTournamentResponse, now: float) -> None:
        round_no = event.round_no or self._current_round()
        self.say(f"Round {round_no} of {self._rounds()} is over.", "bold")
        self.show_standings(f"Standings after round {round_no}")
        self.running_tables = None
        if round_no < self._rounds():
            self.waiting_round = round_no
            self._say_next_round(now, booked=True)

    def _on_finished(self) -> None:
        line = "The tournament is over."
        mine = self._my_standing()
        if mine is not None:
            ranked = sum(1 for s in self.standings if s.rank)
            line += f" You finished {ordinal(mine.rank)} of {ranked} with {mine.points} points."
        self.stop(EXIT_FINISHED, line)

    def _my_standing(self) -> pb.Standing | None:
        for row in self.standings:
            if row.player_id == self.player_id and row.rank:
                return row
        return None

    # ------------------------------------------------------------------ between rounds

    def show_standings(self, title: str) -> None:
        """The top rows and the person's own row, with each inactive player's status."""
        if not self.standings:
            return
        statuses = {
            p.player_id: player_status(p)
            for p in (self.tournament.players if self.tournament else [])
        }
        self.say(f"{title}:", "bold")
        rows = self.standings
        shown = [r for i, r in enumerate(rows) if i < TOP_ROWS or r.player_id == self.player_id]
        last_index = -1
        for row in shown:
            index = rows.index(row)
            if index > last_index + 1:
                self.say("   ...")
            last_index = index
            rank = row.rank or index + 1
            status = STATUS_WORDS.get(statuses.get(row.player_id, mm.PLAYER_STATUS_ACTIVE), "")
            note = f" ({status})" if status else ""
            you = "  <- you" if row.player_id == self.player_id else ""
            name = row.player_name or row.player_id
            self.say(f"{rank:>4}. {name}{note}: {row.points} points, {row.hands_won} hand(s) "
                     f"won{you}", "bold" if you else "")  # fmt: skip
        if len(rows) > last_index + 1:
            self.say(f"   ... {len(rows)} ranked")

    def _say_next_round(self, now: float, *, booked: bool = False) -> None:
        """When the next round starts: a countdown, else the tables still playing (none once
        the round is ``booked``)."""
        t = self.tournament
        if t is None or not self.waiting_round or self.waiting_round >= t.config.rounds:
            return
        upcoming = self.waiting_round + 1
        if t.HasField("next_round_at"):
            at = t.next_round_at.ToNanoseconds() / 1e9
            if at != self.next_round_said:
                self.next_round_said = at
                self.countdown_mark = None
                self.say(f"Round {upcoming} starts at {when_text(t.next_round_at, now)}.")
            return
        left = None if booked else self._tables_left()
        if booked:
            self.say(f"Round {upcoming} is being seated.")
        elif left is None:
            self.say(f"Round {upcoming} is seated when the other tables finish.")
        elif left[0] == 0:
            self.say(f"Round {upcoming} is seated once this round is booked.")
        else:
            self.say(f"Round {upcoming} is seated when the other tables finish: {left[0]} of "
                     f"{left[1]} still playing.")  # fmt: skip
        self.running_tables = left

    def _tables_left(self) -> tuple[int, int] | None:
        """(tables still playing, tables) of the current round, as the feed last said."""
        t = self.tournament
        if t is None or not t.tables:
            return None
        playing = sum(
            1
            for table in t.tables
            if table.status not in ENDED_MATCHES and table.match_id not in self.played
        )
        return playing, len(t.tables)

    def _say_tables_left(self) -> None:
        """While the person waits for the round's other tables: say when that count moves."""
        if not self.waiting_round or self.playing or self.waiting_round != self._current_round():
            return
        t = self.tournament
        if t is None or t.HasField("next_round_at") or self.waiting_round >= t.config.rounds:
            return
        left = self._tables_left()
        if left is not None and left != self.running_tables and left[0] > 0:
            self.running_tables = left
            self.say(f"{left[0]} of {left[1]} table(s) still playing.")

    def on_tick(self) -> None:
        """The clock: retries of a refused Join, the check-in, the countdown."""
        if self.done:
            return
        now = self.clock()
        attempt = self.attempt
        if attempt is not None and attempt.retry_at is not None and now >= attempt.retry_at:
            attempt.retry_at = None
            self._open(attempt)
        self._check_in(now)
        self._countdown(now)

    def _countdown(self, now: float) -> None:
        t = self.tournament
        if t is None or self.playing or not t.HasField("next_round_at"):
            return
        if not (self.waiting_round or t.status == mm.TOURNAMENT_STATUS_REGISTRATION):
            return
        left = t.next_round_at.ToNanoseconds() / 1e9 - now
        passed = [m for m in COUNTDOWN_MARKS if left <= m]
        mark = min(passed) if passed else None
        if mark is not None and mark != self.countdown_mark and left > 0:
            if self.countdown_mark is not None:  # the first mark: the time was just said
                self.say(f"The next round starts in {duration_text(left)}.")
            self.countdown_mark = mark

    def _check_in(self, now: float) -> None:
        t, player = self.tournament, self.me()
        if t is None or player is None or player.checked_in:
            return
        if t.status != mm.TOURNAMENT_STATUS_REGISTRATION or not t.HasField("check_in_opens_at"):
            return
        opens = t.check_in_opens_at.ToNanoseconds() / 1e9
        closes = (
            t.check_in_closes_at.ToNanoseconds() / 1e9 if t.HasField("check_in_closes_at") else None
        )
        if now < opens or (closes is not None and now >= closes) or now < self.check_in_retry_at:
            return
        why = self.port.check_in()
        if why is None:
            player.checked_in = True
            self.say("You are checked in.", "green")
        else:
            self.check_in_retry_at = now + CHECK_IN_RETRY_SECONDS
            self.say(f"Check-in failed: {why}; trying again in {CHECK_IN_RETRY_SECONDS:g} s.",
                     "yellow")  # fmt: skip

    # ------------------------------------------------------------------ the seat

    def _seat(self, seating: mm.Seating, round_no: int) -> None:
        """Join the seat unless it is the one in play, over, or refused as not the person's."""
        if seating.match_id in self.played or self.leaving is not None:
            return
        if (seating.match_id, seating.seat_token) in self.revoked:
            return
        current = self.attempt
        if current is not None and (current.seating.match_id, current.seating.seat_token) == (
            seating.match_id,
            seating.seat_token,
        ):
            return  # the seat in play
        round_no = seating.round_no or round_no
        table = seating.table_id or seating.match_id
        self.say(f"Round {round_no}: your seat is seat {seating.seat} at table {table}; "
                 "joining it.", "bold")  # fmt: skip
        self.waiting_round = 0
        self._open(_Attempt(seating, round_no))

    def _open(self, attempt: _Attempt) -> None:
        self._close_seat()
        self.generation += 1
        self.attempt = attempt
        send = self.port.open_seat(attempt.seating, self.generation)
        self.session = PlayerSession(self.console, send, self.hints)

    def _close_seat(self) -> None:
        if self.attempt is not None or self.session is not None:
            self.port.close_seat()
        self.attempt = None
        self.session = None

    def on_play(self, generation: int, kind: str, value: Any) -> None:
        """An item of a Play stream; those of a stream already closed are dropped."""
        if self.done or generation != self.generation or self.session is None:
            return
        session, attempt = self.session, self.attempt
        if kind == CLOSED:
            self._on_closed(value)
            return
        if kind == MESSAGE and attempt is not None:
            attempt.heard = True
        session.handle(kind, value)
        if session.finished:
            self._match_over(session)
        elif session.left:
            self.stop(EXIT_FINISHED, "You left the tournament: your seat is auto-played. Run "
                      "the same join again to come back.")  # fmt: skip

    def _on_closed(self, error: grpc.RpcError | None) -> None:
        session, attempt = self.session, self.attempt
        assert session is not None and attempt is not None
        if session.finished:
            self._match_over(session)
            return
        code = error.code() if error is not None and hasattr(error, "code") else None
        now = self.clock()
        seating = attempt.seating
        table = seating.table_id or seating.match_id
        if code == grpc.StatusCode.NOT_FOUND and not attempt.heard:
            if attempt.first_refusal is None:
                attempt.first_refusal = now
                self.say(f"Table {table} is not open on the engine yet: trying again for up to "
                         f"{duration_text(JOIN_RETRY_SECONDS)}...", "yellow")  # fmt: skip
            if now - attempt.first_refusal < JOIN_RETRY_SECONDS:
                attempt.retry_at = now + attempt.delay
                attempt.delay = min(attempt.delay * 2, JOIN_MAX_DELAY)
                return
        why = describe_rpc_error(error) if error is not None else "the table closed the stream"
        self._close_seat()
        self.running_tables = None
        if code in REVOKED_CODES:
            self.revoked.add((seating.match_id, seating.seat_token))
            self.say(f"Your seat at table {table} is no longer yours ({why}): waiting for the "
                     "next round.", "yellow")  # fmt: skip
        else:
            self.say(f"Lost table {table} ({why}): waiting for the next round (or for the "
                     "seat to be offered again).", "yellow")  # fmt: skip
        self.waiting_round = attempt.round_no
        if self.leaving is not None:
            self.stop(EXIT_FINISHED, self.leaving)

    def _match_over(self, session: PlayerSession) -> None:
        attempt = self.attempt
        assert attempt is not None
        self.played.add(attempt.seating.match_id)
        obs = session.obs
        self._close_seat()
        if obs is not None and obs.seat < len(obs.seats):
            scores = [seat.score for seat in obs.seats]
            place = place_at_table(scores, obs.seat)
            self.say(f"Round {attempt.round_no} result: you placed {ordinal(place)} at your "
                     f"table with {scores[obs.seat]:+d}.", "bold")  # fmt: skip
        if self.leaving is not None:
            self.stop(EXIT_FINISHED, self.leaving)
            return
        self.waiting_round = attempt.round_no
        self.running_tables = None
        if attempt.round_no >= self._rounds():
            self.say("That was your last round: the final standings come when every table "
                     "has finished.")  # fmt: skip
        else:
            self._say_next_round(self.clock())

    # ------------------------------------------------------------------ the keyboard

    def on_line(self, line: str) -> None:
        """A typed line: to the seat in play, else q leaves and s shows the standings."""
        if self.done:
            return
        session = self.session
        if session is not None and not session.done:
            self.on_play(self.generation, LINE, line)
            return
        word = line.strip().lower()
        if word in ("q", "quit"):
            self.stop(EXIT_FINISHED, "You left the tournament. Run the same join again to "
                      "come back.")  # fmt: skip
        elif word == "s":
            self.show_standings("Standings")
        elif word:
            self.say("Nothing to decide now: waiting for your next seat ([s] standings, "
                     "[q] leave).", "yellow")  # fmt: skip

    def on_eof(self) -> None:
        """Input closed: leave (the seat in play, if any, is auto-played)."""
        if self.done:
            return
        if self.session is not None and not self.session.done:
            self.session.handle(EOF, None)
        self.stop(EXIT_FINISHED, "Input closed: you left the tournament.")
