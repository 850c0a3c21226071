"""The round director: drives every running tournament (and quick-play match) forward.

One pass (a *tick*) does what is due, each step idempotent and recorded before the next:

1. a running tournament whose last round finished gets its next round seated — computed
   outside any transaction, then stored in one (round, fillers, matches with their seat
   tokens, the change-feed entry), which re-checks that nobody seated it meanwhile: a round is
   never seated twice;
2. each match not yet opened is opened on the table engine (OpenMatch is idempotent by
   match_id) and its bot seats are queued on the fleet (a duplicate seat task finds the seat's
   lease held and exits), then marked opened with its TABLE_OPENED event in one transaction
   (only then is a person told the seat); seats of players who left get their new token on
   the engine (ReplaceSeat) before their bot is queued;
3. open matches are followed through the engine's ListTables: progress, results the engine's
   report has not brought yet, a stall (no event for the tournament's stall timeout: the match
   is dissolved and reported), and persons absent after the ready check (a filler bot takes the
   seat with the seat's token; the person can still come back);
4. each ended match is settled once: placement points and fixed points of replaced players
   booked in the ledger (idempotent keys), ratings updated and the people absent for the
   whole match (the engine's person_joined) given a missed round — a no-show at the
   tournament's limit — in the same transaction that marks it settled;
5. a round whose matches all ended and settled is closed once the ledger's standings agree with
   the reported results, points and hands booked alike (a drawn hand moves no points; a
   mismatch still there after a grace period is reported, not hidden):
   its standings are kept and published, and the tournament finishes after its last round.

The clocks: a tournament in registration starts at its scheduled start; the next round is
seated once its break is over (``next_round_at``); at a round's time limit
(``round_ends_at``) its live matches are told to end after the hand in progress
(ConcludeMatch). A paused tournament's clocks stand still (see ``tournaments.stop_clocks``);
the director wakes for the soonest clock.

The director passes when a change is notified in this process (a tournament started, a match
ended or reported, a round seated or closed), again after ``tick_seconds`` while something is
left to do (a step failed, a round waits for the ledger), else every ``idle_seconds``; between
passes it only follows the open matches (3), every ``follow_seconds``.

After a crash (even ``kill -9``) the next process simply ticks again: every step reads its
state from PostgreSQL.

Several replicas (issue 46): each pass first claims the leases of the tournaments with work
(:class:`hebei.matchmaking.driving.Driving`: a fair share, one holder per tournament, ``quickplay``
for the quick-play matches) and then acts only for those it holds; a tournament another replica
drove is taken over where it stood, since every step starts from the stored state: a seated
round is kept (its matches, ids and seat tokens were stored with it in one transaction; a
round is seated only while ``current_round`` is the one before, checked under the tournament's
row lock), its pending matches are opened (OpenMatch is idempotent by match id, the match is
marked opened only while pending, under its row lock), its ended matches settled once (the
ledger's idempotent keys, ``settled`` under the row lock) and the round closed once (only while
still ``seated``, under the tournament's lock). A lease lost stops the driving at once: every
step asks :meth:`Driving.drives` first, and every driving transaction calls
:meth:`Driving.fence` after its row locks, so its write is rolled back; a write past its fence
when the loss is detected is one of the idempotent steps above, and the new holder waits the
ownership's takeover grace before acting.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import psycopg

from hebei.common.errors import DomainError, FailedPrecondition, NotFound
from hebei.matchmaking import corrections, metrics
from hebei.matchmaking.driving import QUICK_PLAY, Driving, key_of
from hebei.matchmaking.gateways import Line
from hebei.matchmaking.match_points import expected_points, fixed_seat_deltas, placement_lines
from hebei.matchmaking.match_requests import bot_seed
from hebei.matchmaking.round_seating import seat_next_round, start
from hebei.matchmaking.settings import Settings
from hebei.matchmaking.store import MatchRow, RatingRow, RoundRow, TournamentRow
from hebei.matchmaking.tournaments import EVENT, TOURNAMENT_ACCOUNT, Tournaments
from hebei.matchmaking.views import shown_played_by, table_message
from hebei.v1 import ledger_pb2
from hebei.v1 import types_pb2 as pb

__all__ = ["Director"]

log = logging.getLogger(__name__)

LEDGER_GRACE_SECONDS = 30.0  # how long a round waits for the ledger to catch up
BOT_REQUEUE_SECONDS = 1.5  # a bot seat not connected this long is queued again
BOT_REQUEUE_BACKOFF = 12.0  # ... and queued again only this long after
IDLE_SECONDS = 5.0  # a full pass at least this often when nothing is waiting or changed
COALESCE_SECONDS = 0.1  # passes for changes at least this far apart (a burst makes one)
LIVE_SECONDS = 1.0  # the director looks this often whether a replica came or went
GAUGE_SECONDS = 1.0  # the tournament gauges' query at most this often
SETTINGS_KEPT = 1024  # tournaments whose settings the director keeps (see Director._settings)
ENGINE_ENDED = {pb.MATCH_STATUS_FINISHED: "finished", pb.MATCH_STATUS_DISSOLVED: "dissolved"}


def _now() -> datetime:
    return datetime.now(UTC)


# ---------------------------------------------------------------------------- following


def seats_seen(match: MatchRow, info) -> dict[str, dict]:
    """What the engine's ``info`` says of each seat, as kept on the match row: whether its
    person joined (the engine's person_joined: a client not joined as a bot held the seat),
    who plays it (played_by), whether a client holds it, and whether a person whose absence
    brought a filler took the seat back (the engine showed a bot, then a client that is not
    one)."""
    out = {}
    for seat in info.seats:
        key = str(seat.seat)
        before = match.seats_seen.get(key, {})
        botted = bool(before.get("botted") or seat.played_by)  # a bot was shown there once
        out[key] = {
            "joined": bool(before.get("joined") or seat.person_joined),
            "played_by": seat.played_by,
            "connected": seat.connected,
            "botted": botted,
            "back": botted and not seat.played_by and bool(seat.connected or before.get("back")),
        }
    return out


def played_by_of(match: MatchRow, seat: int) -> str:
    return shown_played_by(match, seat, {})


# ---------------------------------------------------------------------------- the director


def next_wake(full_due: float, follow_due: float | None) -> float:
    """When the director wakes next unless a change wakes it first: its next full pass, or
    its next follow of the open matches when there are any (``None``: none open)."""
    return full_due if follow_due is None else min(full_due, follow_due)


class Director:
    """Runs :meth:`tick` on its own thread for the tournaments whose leases it holds (see the
    module docstring). ``tick`` may also be called directly (tests). ``quick_play_taken`` runs
    when this replica begins to drive the quick-play matches (those of a run that ended are
    then due to be dissolved: :meth:`QuickPlay.resume_left`)."""

    def __init__(
        self,
        ts: Tournaments,
        driving: Driving,
        *,
        tick_seconds: float = 0.5,
        follow_seconds: float = 1.0,
        idle_seconds: float = IDLE_SECONDS,
        coalesce_seconds: float = COALESCE_SECONDS,
        ledger_grace: float = LEDGER_GRACE_SECONDS,
        quick_play_taken: Callable[[], object] | None = None,
    ) -> None:
        self.ts = ts
        self.driving = driving
        self.quick_play_taken = quick_play_taken
        self.tick_seconds = tick_seconds
        self.follow_seconds = follow_seconds
        self.idle_seconds = max(idle_seconds, tick_seconds)
        self.coalesce_seconds = min(coalesce_seconds, tick_seconds)
        self.ledger_grace = ledger_grace
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._absent: dict[tuple[str, int], float] = {}
        self._ledger_waits: dict[tuple[str, int], float] = {}
        self._followed = 0.0
        self._opened = False  # the last pass saw open matches (to follow every follow_seconds)
        self._counted = -math.inf  # when the tournament gauges were last set
        self._errors: dict[str, str] = {}
        self._settings_of: dict[str, Settings] = {}  # see _settings
        self._clock_due: float | None = None  # the soonest tournament clock (monotonic)
        self._concluded: set[str] = set()  # matches told to end at their round's time limit

    # -- the thread --------------------------------------------------------------------------

    def start(self) -> None:
        """Start the leases' replica (registry, beat) and the director's thread."""
        self.driving.start()
        self._thread = threading.Thread(target=self._run, name="matchmaking-director", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (a pass in progress ends first), then release every lease."""
        self._stop.set()
        self.ts.changes.notify()
        if self._thread is not None:
            self._thread.join(timeout=15)
        self.driving.stop()

    def leases_lost(self, keys: frozenset[str]) -> None:
        """The ownership's ``on_leases_lost`` (through :class:`Driving`): the steps already
        refuse (``drives`` says no); wake the thread so it claims again soon."""
        self.ts.changes.notify()

    def _run(self) -> None:
        """A full pass when something changed (``changes``: a tournament started, a round
        seated or closed, a match ended or was created, a player registered, ...), at most one
        every ``coalesce_seconds`` (registering 64 players made 64 passes); soon again while
        something is left to do; else every ``idle_seconds`` (a change another replica made, a
        plan that could not be seated). Between them only the open matches are followed, every
        ``follow_seconds``. A full pass is 7 queries or more."""
        seen = self.ts.changes.version
        changed = True
        passed = -math.inf
        full_due = follow_due = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if (changed and now >= passed + self.coalesce_seconds) or now >= full_due:
                changed, passed = False, now
                busy = self._timed(self.tick) or self.driving.retry_soon
                full_due = now + (self.tick_seconds if busy else self.idle_seconds)
                if self._clock_due is not None:  # a tournament's clock comes sooner
                    full_due = min(full_due, max(self._clock_due, now + self.tick_seconds))
                follow_due = self._followed + self.follow_seconds
            elif self._opened and now >= follow_due:
                if self._timed(self.follow_opened):
                    full_due = now
                follow_due = self._followed + self.follow_seconds
            wake = next_wake(full_due, follow_due if self._opened else None)
            if changed:  # a change within coalesce_seconds of the last pass
                wake = min(wake, passed + self.coalesce_seconds)
            wait = min(wake - time.monotonic(), LIVE_SECONDS)  # a replica that came or went
            before = seen
            seen = self.ts.changes.wait(seen, max(0.0, wait))
            changed = changed or seen != before or self._live_changed()

    def _timed(self, one_pass) -> bool:
        """Run a pass (a bug must not stop every tournament: logged, retried soon); True when
        it asks to be run again soon."""
        started = time.perf_counter()
        try:
            return bool(one_pass())
        except Exception:
            log.exception("director pass failed")
            return True
        finally:
            metrics.DIRECTOR_TICK_SECONDS.observe(time.perf_counter() - started)

    # -- one pass ---------------------------------------------------------------------------

    def _guard(self, what: str, step, *args) -> bool:
        """Run one step; a domain error (a service down, ...) is logged once and retried on
        the next tick. True when the step ran through."""
        try:
            step(*args)
        except DomainError as error:
            if self._errors.get(what) != error.message:
                log.warning("%s: %s", what, error.message)
                self._errors[what] = error.message
            return False
        self._errors.pop(what, None)
        return True

    def tick(self) -> bool:
        """One pass over the live tournaments and matches this replica drives (their leases
        claimed first: see the module docstring); True when something may be left to do soon
        (a step failed, a match was opened or settled, a round waits for the ledger), so the
        next pass comes after ``tick_seconds`` rather than ``idle_seconds``."""
        with self.ts.store.reading() as conn:
            tournaments = self.ts.store.active_tournaments(conn)
            scheduled = self.ts.store.scheduled_due(conn, _now())
            live = self.ts.store.live_matches(conn)
            unsettled = self.ts.store.unsettled_matches(conn)
            clock = self.ts.store.next_clock(conn)
        held = self._claim(tournaments, scheduled, [*live, *unsettled])
        tournaments = [t for t in tournaments if t in held]
        scheduled = [t for t in scheduled if t in held]
        live = [m for m in live if key_of(m.tournament_id) in held]
        unsettled = [m for m in unsettled if key_of(m.tournament_id) in held]
        self._clock_due = (
            None if clock is None else time.monotonic() + (clock - _now()).total_seconds()
        )
        with self.ts.store.reading() as conn:
            if time.monotonic() - self._counted >= GAUGE_SECONDS:
                self._counted = time.monotonic()
                self._count_tournaments(conn)
        metrics.MATCHES_LIVE.labels("pending").set(sum(m.status == "pending" for m in live))
        metrics.MATCHES_LIVE.labels("opened").set(sum(m.status == "opened" for m in live))
        pending = [m for m in live if m.status == "pending"]
        done = [self._guard(f"open {m.match_id}", self.open_match, m) for m in pending]
        self._opened = any(m.status == "opened" for m in live) or bool(pending)
        if time.monotonic() - self._followed >= self.follow_seconds:
            done.append(self._follow([m for m in live if m.status == "opened"]))
        done += [self._guard(f"settle {m.match_id}", self.settle, m) for m in unsettled]
        done += [self._guard(f"start {t}", self.start_scheduled, t) for t in scheduled]
        done += [self._guard(f"tournament {t}", self.step, t) for t in tournaments]
        return bool(pending or unsettled or self._ledger_waits) or not all(done)

    def _claim(
        self, tournaments: list[str], scheduled: list[str], matches: list[MatchRow]
    ) -> frozenset[str]:
        """Claim the leases of what has work (see :class:`Driving`); what this replica drives
        now. A tournament taken in the middle of its rounds is a takeover (counted, logged);
        the quick-play lease taken makes the quick-play tables of a run that ended due."""
        wanted = {*tournaments, *scheduled, QUICK_PLAY, *(key_of(m.tournament_id) for m in matches)}
        held, acquired = self.driving.claim(wanted)
        if QUICK_PLAY in acquired and self.quick_play_taken is not None:
            self.quick_play_taken()
        taken = sorted(acquired - {QUICK_PLAY})
        if taken:
            with self.ts.store.reading() as conn:
                rows = [self.ts.store.tournament(conn, t) for t in taken]
            for row in rows:
                if row is not None and row.current_round and row.status in ("running", "paused"):
                    metrics.TAKEOVERS.inc()
                    log.info(
                        "tournament taken over",
                        extra={"tournament_id": row.tournament_id, "round_no": row.current_round},
                    )
        return held

    def _live_changed(self) -> bool:
        try:
            return self.driving.live_changed()
        except Exception:  # never stop the thread
            log.exception("reading the live replicas failed")
            return False

    def start_scheduled(self, tournament_id: str) -> None:
        """Start a tournament at its scheduled start (recorded as by "schedule"); one nobody
        registered for is cancelled."""
        self.driving.fence(tournament_id)
        try:
            start(self.ts, tournament_id, "schedule")
        except FailedPrecondition as error:
            if "nobody" not in error.message:
                raise
            self.ts.cancel(tournament_id, "nobody registered by the scheduled start", "schedule")

    @staticmethod
    def _count_tournaments(conn: psycopg.Connection) -> None:
        counts = conn.execute(
            "SELECT status, count(*) AS n FROM tournaments GROUP BY status"
        ).fetchall()
        for status in ("registration", "running", "paused", "finished", "cancelled"):
            metrics.TOURNAMENTS.labels(status).set(
                next((r["n"] for r in counts if r["status"] == status), 0)
            )

    def follow_opened(self) -> bool:
        """The follow pass alone, between full passes (see :meth:`follow`); True when a full
        pass is due (the follow failed, or a match waits to be opened)."""
        with self.ts.store.reading() as conn:
            live = self.ts.store.live_matches(conn)
        live = [m for m in live if self.driving.drives(key_of(m.tournament_id))]
        self._opened = any(m.status == "opened" for m in live)
        followed = self._follow([m for m in live if m.status == "opened"])
        return not followed or any(m.status == "pending" for m in live)

    def _follow(self, opened: Sequence[MatchRow]) -> bool:
        self._followed = time.monotonic()
        return self._guard("follow", self.follow, opened)

    def step(self, tournament_id: str) -> None:
        """Seat the next round, or close the current one, or finish the tournament."""
        self.driving.fence(tournament_id)
        with self.ts.store.reading() as conn:
            row = self.ts._load(conn, tournament_id)
            rounds = [r for r in self.ts.store.rounds(conn, tournament_id) if r.status != "planned"]
            matches = (
                self.ts.store.matches(conn, tournament_id, row.current_round)
                if row.current_round
                else []
            )
        current = rounds[-1] if rounds else None
        now = _now()
        if current is None or current.status == "finished":
            if row.status == "running":
                if current is not None and current.round_no >= row.config.rounds:
                    self.finish(row)
                elif row.next_round_at is None or row.next_round_at <= now:
                    seat_next_round(
                        self.ts, tournament_id, fence=lambda: self.driving.fence(tournament_id)
                    )
            return
        if matches and all(m.ended and m.settled for m in matches):
            self.close_round(row, current, matches)
        elif row.status == "running" and row.round_ends_at and row.round_ends_at <= now:
            self.conclude(matches)

    def conclude(self, matches: Sequence[MatchRow]) -> None:
        """A round's time limit: its matches still playing finish the hand in progress and
        end (TableService.ConcludeMatch, idempotent; each told once by this director)."""
        for match in matches:
            if match.status == "opened" and match.match_id not in self._concluded:
                self.ts.table.conclude_match(match.match_id, "the round's time limit")
                self._concluded.add(match.match_id)
                log.info("match %s told to end at the round's time limit", match.match_id)
        if len(self._concluded) > 4 * SETTINGS_KEPT:
            self._concluded.clear()

    def open_match(self, match: MatchRow) -> None:
        """Open a pending match on the engine and queue its bot seats."""
        key = key_of(match.tournament_id)
        self.driving.fence(key)
        row = None
        if match.tournament_id:
            with self.ts.store.reading() as conn:
                row = self.ts._load(conn, match.tournament_id)
            if row.status == "cancelled":
                self.ts.record_result(match.match_id, "dissolved", [0, 0, 0, 0], 0, "cancelled")
                return
        filler = self._filler(match, row)
        self.ts.table.open_match(match.request)
        for seat in match.request.seats:
            if seat.kind == pb.SEAT_KIND_BOT:
                self.ts.fleet.send(
                    match.match_id,
                    seat.seat,
                    seat.seat_token,
                    seat.bot_policy,
                    seat.bot_level,
                    bot_seed(match.match_id, seat.seat),
                )
        with self.ts.store.transaction() as conn:
            if match.tournament_id:  # lock order: the tournament first
                self.ts._load(conn, match.tournament_id, lock=True)
            current = self.ts.store.match(conn, match.match_id, lock=True)
            self.driving.fence(key)
            if current is not None and current.status == "pending":
                current.status = "opened"
                current.opened_at = current.progress_at = _now()
                self.ts.store.update_match(conn, current)
                if match.tournament_id:
                    # The engine holds the match now: its people may be told their seats.
                    players = {
                        p.player_id: p for p in self.ts.store.players(conn, match.tournament_id)
                    }
                    self.ts._event(
                        conn,
                        match.tournament_id,
                        EVENT.TOURNAMENT_EVENT_TYPE_TABLE_OPENED,
                        round_no=current.round_no,
                        tables=[table_message(current, players)],
                    )
        if current is None:  # forgotten while it was being opened: its round was re-paired
            self.ts.table.dissolve(match.match_id, "its round was re-paired")
            return
        if current.status == "dissolved":  # dissolved (cancelled) while it was being opened
            self.ts.table.dissolve(match.match_id, current.reason or "dissolved")
            return
        self.ts.changes.notify()
        self._replace_opened(current, *filler)

    def _replace_opened(self, match: MatchRow, policy: str, level: int) -> None:
        """The bots of an opened match's replaced seats: a new token given on the engine
        first where the player left (see Tournaments.revoke_seat), else (an absent person)
        the seat's own token."""
        for seat, entry in sorted(match.replaced.items()):
            if "token" in entry:
                self.ts.revoke_seat(match.match_id, int(seat))
            else:
                token = next(s.seat_token for s in match.request.seats if s.seat == int(seat))
                self.ts.fleet.send(
                    match.match_id, int(seat), token, policy, level,
                    bot_seed(match.match_id, int(seat)),
                )  # fmt: skip

    def _settings(self, tournament_id: str, row: TournamentRow | None = None) -> Settings:
        """A tournament's settings, read once (``row``: already read) and kept: its config is
        written when it is created and never changes (the last SETTINGS_KEPT tournaments)."""
        found = self._settings_of.get(tournament_id)
        if found is None:
            if row is None:
                with self.ts.store.reading() as conn:
                    row = self.ts._load(conn, tournament_id)
            if len(self._settings_of) >= SETTINGS_KEPT:
                self._settings_of.clear()
            found = self._settings_of[tournament_id] = Settings(row.config)
        return found

    def _filler(self, match: MatchRow, row: TournamentRow | None = None) -> tuple[str, int]:
        if not match.tournament_id:
            return "expert", 0
        return self._settings(match.tournament_id, row).filler

    def _stall_seconds(self, match: MatchRow) -> float:
        if not match.tournament_id:
            return 600.0
        return self._settings(match.tournament_id).stall_seconds

    def follow(self, opened: Sequence[MatchRow]) -> None:
        """Read the open matches' state from the engine (one ListTables per tournament)."""
        by_tournament: dict[str, list[MatchRow]] = defaultdict(list)
        for match in opened:
            by_tournament[match.tournament_id].append(match)
        for tournament_id, matches in by_tournament.items():
            if not self.driving.drives(key_of(tournament_id)):
                continue  # its lease was lost during this pass
            if tournament_id:
                infos = {i.match_id: i for i in self.ts.table.tournament_matches(tournament_id)}
            else:
                infos = {}
                for match in matches:
                    try:
                        infos[match.match_id] = self.ts.table.get_match(match.match_id)
                    except NotFound:
                        continue
            settings = self._settings(tournament_id) if tournament_id else None
            progressed = [
                (match, infos[match.match_id])
                for match in matches
                if match.match_id in infos
                and self._follow_one(match, infos[match.match_id], settings)
            ]
            if progressed:
                self._progress(tournament_id, progressed, _now())

    def _follow_one(self, match: MatchRow, info, settings: Settings | None) -> bool:
        """Follow one open match; True when it moved (its progress is then written with the
        tournament's others in one transaction: see :meth:`_progress`)."""
        self.driving.fence(key_of(match.tournament_id))  # a lease lost during this pass
        if info.status in ENGINE_ENDED:
            scores = [s.score for s in sorted(info.seats, key=lambda s: s.seat)]
            self.ts.record_result(
                match.match_id, ENGINE_ENDED[info.status], scores, info.hands_played
            )
            return False
        for seat, entry in sorted(match.replaced.items()):
            if entry.get("revoked") is False:  # a revoke the engine missed: try it again
                self._guard(f"revoke {match.match_id}:{seat}", self.ts.revoke_seat,
                            match.match_id, int(seat))  # fmt: skip
        now = _now()
        moved = info.event_count != match.event_count or seats_seen(match, info) != (
            match.seats_seen
        )
        stall_seconds = settings.stall_seconds if settings else 600.0
        if not moved and (now - (match.progress_at or now)).total_seconds() > stall_seconds:
            reason = f"stalled: no event for {stall_seconds:.0f} s"
            self.ts.dissolve_match(match, reason)
            if match.tournament_id:
                self._problem(match.tournament_id, f"match {match.match_id} {reason}; dissolved")
            return False
        if info.status == pb.MATCH_STATUS_PLAYING:
            self._check_seats(match, info, settings)
        return moved

    def _check_seats(self, match: MatchRow, info, settings: Settings | None) -> None:
        """Queue a bot seat left empty again; replace a person absent too long."""
        absent_after = settings.replace_absent_seconds if settings else 30.0
        now_mono = time.monotonic()
        for seat in info.seats:
            key = (match.match_id, seat.seat)
            if seat.connected:
                self._absent.pop(key, None)
                continue
            first = self._absent.setdefault(key, now_mono)
            botted = seat.kind == pb.SEAT_KIND_BOT or str(seat.seat) in match.replaced
            if botted and now_mono - first >= BOT_REQUEUE_SECONDS:
                # A bot seat left empty (its worker died, or its task was lost): queue the
                # seat again now rather than after the broker's visibility timeout; the
                # seat's lease makes sure only one session ever plays it. Once queued, the
                # seat is queued again only after BOT_REQUEUE_BACKOFF (each duplicate task
                # holds a worker slot while it waits for the lease).
                self._requeue(match, seat.seat)
                self._absent[key] = now_mono + BOT_REQUEUE_BACKOFF - BOT_REQUEUE_SECONDS
            elif not botted and now_mono - first >= absent_after:
                self.ts.replace_seat(match.match_id, seat.seat, "absent", "as_played")
                self._absent.pop(key, None)

    def _requeue(self, match: MatchRow, seat_no: int) -> None:
        seat = next(s for s in match.request.seats if s.seat == seat_no)
        replaced = match.replaced.get(str(seat_no), {})
        if replaced.get("revoked") is False:
            return  # its new token is not on the engine yet (see _follow_one)
        if replaced:
            policy, level = self._filler(match)
        else:
            policy, level = seat.bot_policy, seat.bot_level
        self.ts.fleet.send(
            match.match_id,
            seat_no,
            replaced.get("token", seat.seat_token),
            policy,
            level,
            bot_seed(match.match_id, seat_no),
        )
        metrics.BOT_REQUEUES.inc()
        log.info("bot seat %d of %s re-queued (not connected)", seat_no, match.match_id)

    def _progress(self, tournament_id: str, progressed: list, now: datetime) -> None:
        """Record the open matches of one tournament that moved (their event and hand counts,
        and a progress event for each new hand) in one transaction: one tournament lock and
        one commit a pass, not one for each match."""
        with self.ts.store.transaction() as conn:
            if tournament_id:
                self.ts._load(conn, tournament_id, lock=True)
            self.driving.fence(key_of(tournament_id))
            players = None
            for match, info in progressed:
                current = self.ts.store.match(conn, match.match_id, lock=True)
                if current is None or current.ended:  # None: its round was re-paired
                    continue
                played = current.hands_played
                if info.event_count != current.event_count:
                    current.progress_at = now
                current.event_count = info.event_count
                current.hands_played = info.hands_played
                shown = [played_by_of(current, s) for s in range(4)]
                current.seats_seen = seats_seen(current, info)
                self.ts.store.update_match(conn, current)
                changed = shown != [played_by_of(current, s) for s in range(4)]
                if tournament_id and (info.hands_played != played or changed):
                    if players is None:
                        players = {
                            p.player_id: p for p in self.ts.store.players(conn, tournament_id)
                        }
                    self.ts._event(
                        conn,
                        tournament_id,
                        EVENT.TOURNAMENT_EVENT_TYPE_PROGRESS,
                        round_no=current.round_no,
                        tables=[table_message(current, players)],
                    )

    def _problem(self, tournament_id: str, text: str) -> None:
        with self.ts.store.transaction() as conn:
            row = self.ts._load(conn, tournament_id, lock=True)
            self.driving.fence(tournament_id)
            if text not in row.problems:
                row.problems = [*row.problems, text][-100:]
                self.ts.store.update_tournament(conn, row)
        log.warning("tournament %s: %s", tournament_id, text)

    # -- settling ----------------------------------------------------------------------------

    def settle(self, match: MatchRow) -> None:
        """Book an ended match's placement and fixed points, rate it, mark it settled."""
        key = key_of(match.tournament_id)
        self.driving.fence(key)
        row: TournamentRow | None = None
        if match.tournament_id:
            with self.ts.store.reading() as conn:
                row = self.ts._load(conn, match.tournament_id)
        if row is not None and match.scores is not None:
            settings = Settings(row.config)
            if settings.placement_points and match.status == "finished":
                lines = placement_lines(match, settings.placement_points)
                if lines:
                    self.ts.ledger.post_adjustment(
                        key=f"placement:{match.match_id}",
                        tournament_id=match.tournament_id,
                        kind=ledger_pb2.ADJUSTMENT_KIND_PLACEMENT,
                        lines=lines,
                        reason="placement points",
                        round_no=match.round_no,
                        match_id=match.match_id,
                    )
            # One correction per replaced seat: the difference between what its hands and
            # placement booked and the fixed figure, whatever the replacement played.
            for seat, player_id, delta in fixed_seat_deltas(match, settings):
                self.ts.ledger.post_adjustment(
                    key=f"replacement:{match.match_id}:{seat}",
                    tournament_id=match.tournament_id,
                    kind=ledger_pb2.ADJUSTMENT_KIND_REPLACEMENT,
                    lines=[Line(player_id, delta), Line(TOURNAMENT_ACCOUNT, -delta)],
                    reason=(
                        f"fixed points of a replaced player's match:"
                        f" {settings.config.replaced_match_points} in all"
                    ),
                    round_no=match.round_no,
                    match_id=match.match_id,
                )
        absent = self._absent_people(match) if row is not None else []
        with self.ts.store.transaction() as conn:
            if row is not None:  # lock order: the tournament first
                self.ts._load(conn, match.tournament_id, lock=True)
            current = self.ts.store.match(conn, match.match_id, lock=True)
            self.driving.fence(key)
            if current is None or current.settled:  # None: its round was re-paired
                return
            if row is not None and current.status == "finished" and current.scores:
                self._rate(conn, current)
            for player_id in absent:
                self._missed(conn, row, player_id, current.round_no)
            current.settled = True
            self.ts.store.update_match(conn, current)
        if absent:
            self.ts.changes.notify()

    def _absent_people(self, match: MatchRow) -> list[str]:
        """The people of a finished match absent for all of it (the engine's person_joined,
        read once more now the match ended; a seat taken from a player who left is not
        theirs any more)."""
        people = [
            s for s in match.request.seats
            if s.kind == pb.SEAT_KIND_PERSON and "token" not in match.replaced.get(str(s.seat), {})
        ]  # fmt: skip
        if match.status != "finished" or not people:
            return []
        seen = dict(match.seats_seen)
        with contextlib.suppress(NotFound):  # else what was seen while following
            seen = seats_seen(match, self.ts.table.get_match(match.match_id))
        return [s.player_id for s in people if not seen.get(str(s.seat), {}).get("joined")]

    def _missed(self, conn, row: TournamentRow, player_id: str, round_no: int) -> None:
        """A person missed ``round_no``; at the tournament's no-show limit they are withdrawn
        by the rules from the next round on."""
        player = self.ts.store.player(conn, row.tournament_id, player_id)
        if player is None or not player.active or round_no in player.missed_rounds:
            return
        player.missed_rounds = sorted([*player.missed_rounds, round_no])
        self.ts.store.update_player(conn, player)
        missed = len(player.missed_rounds)
        if missed >= Settings(row.config).no_show_limit:
            self.ts.leave_by_rules(
                conn, player, round_no, f"missed {missed} round{'s' if missed > 1 else ''}"
            )
        self.ts._event(conn, row.tournament_id, EVENT.TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED)

    def _rate(self, conn: psycopg.Connection, match: MatchRow) -> None:
        """Update the ratings of the match's rated players (not fillers, not replaced seats;
        an identity seated twice at one table is not rated on that match)."""
        from hebei.matchmaking.ratings import DEFAULT_RATING, Rating, rate_match

        players = {p.player_id: p for p in self.ts.store.players(conn, match.tournament_id)}
        seats = []
        for seat, (pid, score) in enumerate(zip(match.player_ids(), match.scores, strict=True)):
            player = players.get(pid)
            if player is None or player.filler or str(seat) in match.replaced:
                continue
            seats.append((player, score))
        counts = defaultdict(int)
        for player, _ in seats:
            counts[player.rating_id] += 1
        seats = [(p, s) for p, s in seats if counts[p.rating_id] == 1]
        if len(seats) < 2:
            return
        stored = self.ts.store.ratings_for(conn, [p.rating_id for p, _ in seats])
        before = {
            p.rating_id: Rating(
                stored[p.rating_id].mu, stored[p.rating_id].sigma, stored[p.rating_id].matches
            )
            if p.rating_id in stored
            else DEFAULT_RATING
            for p, _ in seats
        }
        after = rate_match(before, [(p.rating_id, float(s)) for p, s in seats])
        self.ts.store.save_ratings(
            conn,
            [
                RatingRow(
                    p.rating_id,
                    p.name if p.kind == "person" else p.rating_id,
                    after[p.rating_id].mu,
                    after[p.rating_id].sigma,
                    after[p.rating_id].matches,
                )
                for p, _ in seats
            ],
        )

    # -- closing -----------------------------------------------------------------------------

    def close_round(
        self, row: TournamentRow, current: RoundRow, matches: Sequence[MatchRow]
    ) -> None:
        """Close a round whose matches all ended: cross-check the ledger, publish standings."""
        tournament_id = row.tournament_id
        with self.ts.store.reading() as conn:
            every_match = self.ts.store.matches(conn, tournament_id)
            penalties = self.ts.store.penalties(conn, tournament_id)
            players = self.ts.store.players(conn, tournament_id)
            corrected = corrections.active_lines(conn, tournament_id)
        ledger_rows = self.ts.ledger.standings(tournament_id)
        expected = expected_points(every_match, penalties, Settings(row.config), corrected)
        actual = {s.player_id: s.points for s in ledger_rows}
        differ = sorted(
            pid
            for pid in set(expected) | set(actual)
            if pid != TOURNAMENT_ACCOUNT and expected.get(pid, 0) != actual.get(pid, 0)
        )
        # A hand that moved no points (a drawn hand) leaves the sums equal while its
        # settlement is still in the engine's outbox: the hands booked must agree too, or the
        # standings would publish a hand too few (each hand books a line for each seat).
        hands = sum(m.hands_played * len(m.player_ids()) for m in every_match if m.ended)
        booked = sum(s.hands_played for s in ledger_rows)
        problems = []
        if differ or booked != hands:
            key = (tournament_id, current.round_no)
            waited = time.monotonic() - self._ledger_waits.setdefault(key, time.monotonic())
            if waited < self.ledger_grace:
                return  # the engine's outbox may still be posting settlements
            if differ:
                shown = ", ".join(
                    f"{pid} ledger {actual.get(pid, 0)} vs results {expected.get(pid, 0)}"
                    for pid in differ[:5]
                )
                problems.append(
                    f"ledger standings differ from the match results after round "
                    f"{current.round_no}: {shown}"
                )
            if booked != hands:
                problems.append(
                    f"ledger hands differ from the match results after round "
                    f"{current.round_no}: {booked} seat lines booked for {hands}"
                )
            metrics.STANDINGS_MISMATCHES.inc()
        self._ledger_waits.pop((tournament_id, current.round_no), None)
        self.ts.publish_closing_round(row, current.round_no)  # hidden results, when public
        response = self.ts.rank(row, players, ledger_rows)
        response.round_no = current.round_no
        with self.ts.store.transaction() as conn:
            locked = self.ts._load(conn, tournament_id, lock=True)
            self.driving.fence(tournament_id)
            if locked.current_round != current.round_no or not self._still_seated(
                conn, tournament_id, current.round_no
            ):
                return  # closed meanwhile (by a replica that drove it before)
            locked.problems = [*locked.problems, *problems][-100:]
            response.problems[:] = [p for p in locked.problems if "ledger" in p]
            response.mismatch = bool(response.problems)
            closed = _now()
            self.ts.store.finish_round(
                conn, tournament_id, current.round_no, response.SerializeToString(), closed
            )
            self.ts._event(
                conn,
                tournament_id,
                EVENT.TOURNAMENT_EVENT_TYPE_ROUND_FINISHED,
                round_no=current.round_no,
                standings=response.standings,
            )
            locked.round_ends_at = None
            pause = Settings(locked.config).round_break
            if pause and current.round_no < locked.config.rounds:
                locked.next_round_at = (locked.paused_at or closed) + pause
            if current.round_no >= locked.config.rounds and locked.status == "running":
                self._finish_locked(conn, locked, response)
            else:
                self.ts.store.update_tournament(conn, locked)
        metrics.ROUNDS_FINISHED.inc()
        log.info(
            "round finished", extra={"tournament_id": tournament_id, "round_no": current.round_no}
        )
        self.ts.changes.notify()

    def _still_seated(self, conn, tournament_id: str, round_no: int) -> bool:
        """Whether round ``round_no`` is still being played (not closed yet)."""
        rounds = self.ts.store.rounds(conn, tournament_id)
        return any(r.round_no == round_no and r.status == "seated" for r in rounds)

    def finish(self, row: TournamentRow) -> None:
        """Finish a tournament whose last round closed while it was paused."""
        with self.ts.store.reading() as conn:
            players = self.ts.store.players(conn, row.tournament_id)
        response = self.ts.rank(row, players, self.ts.ledger.standings(row.tournament_id))
        with self.ts.store.transaction() as conn:
            locked = self.ts._load(conn, row.tournament_id, lock=True)
            self.driving.fence(row.tournament_id)
            if locked.status == "running":
                self._finish_locked(conn, locked, response)
        self.ts.changes.notify()

    def _finish_locked(self, conn, row: TournamentRow, response) -> None:
        row.status = "finished"
        row.finished_at = _now()
        self.ts.store.update_tournament(conn, row)
        self.ts._event(
            conn,
            row.tournament_id,
            EVENT.TOURNAMENT_EVENT_TYPE_FINISHED,
            round_no=row.current_round,
            standings=response.standings,
        )
        log.info("tournament finished", extra={"tournament_id": row.tournament_id})
