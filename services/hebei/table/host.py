"""All the tables of one engine process: open, find, list, dissolve, resume after a crash, and
suspend them all when the engine stops.

Shards (issue 46): a match belongs to shard ``shard_of(match_id, shard_count)`` and the host
holds tables only of the shards it serves (all of them for a host on its own; an engine's are
given by its :class:`~hebei.table.ownership.MatchOwnership`). :meth:`TableHost.serve_shards`
serves new shards at once and :meth:`TableHost.resume_shards` resumes their unfinished matches
from their logs, as after a crash (one resumption at a time: a match is never resumed twice);
:meth:`TableHost.release_shards` suspends their tables as a clean stop does, waits (bounded)
until their logs are durable and drops them; :meth:`TableHost.lose_shards` fences the store at
once (:meth:`TableHost.may_write` says no: no group of those matches is written any more),
ends their streams with :class:`~hebei.table.ownership.NotServed` and drops them. A table of a
shard not served is never added (:class:`NotServed`), so none is resumed or opened after a
loss, whatever the race.

A stored match that cannot be resumed (its spec is out of today's bounds, its log does not
replay, ...) is dissolved with an error line and a ``match_dissolved`` event: it never keeps
the engine from starting, however often it restarts.
"""

from __future__ import annotations

import collections
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from hebei.common import convert
from hebei.common.errors import (
    AlreadyExists,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
)
from hebei.common.ownership.shards import shard_of
from hebei.table import metrics, requests
from hebei.table.ownership import NotServed
from hebei.table.scheduler import Scheduler
from hebei.table.spec import STATUS_NAMES, STATUSES, WAITING, MatchSpec, shown_name
from hebei.table.store import EventStore, OutboxRow, StoredMatch
from hebei.table.table import Table
from hebei.v1 import matchmaking_pb2, table_pb2
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)
ENDED = ("finished", "dissolved")
RELEASE_FLUSH_SECONDS = 1.0  # a released shard's tables' logs are awaited this long at most
WALL_CHECK_SECONDS = 1.0  # how long a stored "no live match shares this wall" is trusted
WALL_CHECKS = 1024  # such answers kept at most


@dataclass(frozen=True, slots=True)
class HostSettings:
    """How the host runs its tables."""

    ready_seconds: float = 15.0  # the ready check: absent seats are auto-played after this
    max_tables: int = 256  # tables waiting or playing at once; more is RESOURCE_EXHAUSTED
    seat_queue: int = 256  # messages queued per seat stream before old ones are dropped
    # Ended tables kept in memory; older ones reload from the log. About 1 MiB each after 8
    # hands (their logs): 512 held half a GiB in a 10-minute soak of 64 tables.
    keep_finished: int = 64
    # Ended matches read back from their logs at once (a Spectate or Play of one no longer in
    # memory replays its whole log); more at once is RESOURCE_EXHAUSTED, so public calls
    # cycling through old matches never take the engine's threads from its seats.
    cold_loads: int = 2
    pause_seconds: float = 120.0  # a match with every seat auto-played waits this long
    rejoin_seconds: float | None = None  # seats' time to come back after a restart (ready)
    bot_pace: float = 0.0  # the machine's actions at a table with people (Table.pace)
    shard_count: int = 64  # the matches' shards (hebei.common.ownership.shard_of)

    def table_options(self) -> dict:
        return {
            "seat_queue": self.seat_queue,
            "pause_seconds": self.pause_seconds,
            "bot_pace": self.bot_pace,
            "rejoin_seconds": (
                self.ready_seconds if self.rejoin_seconds is None else self.rejoin_seconds
            ),
        }


class TableHost:
    """The tables of this process, by match id. Finished tables stay readable."""

    def __init__(
        self,
        store: EventStore,
        settings: HostSettings = HostSettings(),
        *,
        scheduler: Scheduler | None = None,
        shards: frozenset[int] | None = None,
    ) -> None:
        """``shards``: those served from the start (None: every one; an engine passes none
        and is given its own by :meth:`serve_shards`)."""
        self.store = store
        self.settings = settings
        self.scheduler = scheduler or Scheduler()
        every = frozenset(range(settings.shard_count))
        # Shards whose tables may be added (serving) and whose groups may be written
        # (writable: serving, and those being released until their logs are durable).
        self._serving = every if shards is None else frozenset(shards) & every
        self._writable = self._serving
        self._walls: dict[str, float] = {}  # match id -> until when no live match shares it
        self._tables: dict[str, Table] = {}
        self._finished: collections.deque[str] = collections.deque()
        self._lock = threading.Lock()
        self._active = 0
        self._cold_loads = threading.BoundedSemaphore(settings.cold_loads)
        self._resuming = threading.Lock()  # one unfinished match resumed at a time
        self.stopping = False
        store.on_failed = self._storage_failed
        store.admits = self.may_write
        metrics.SHARDS_OWNED.set(len(self._serving))

    def _ended(self, table: Table) -> None:
        with self._lock:
            self._active -= 1
            metrics.TABLES_ACTIVE.set(self._active)
            self._remember_finished(table.match_id)

    def _remember_finished(self, match_id: str) -> None:
        """Keep the last ``keep_finished`` ended tables in memory (under ``_lock``); an older
        one leaves only once its whole log is durable (it is then reloaded from the log)."""
        self._finished.append(match_id)
        self._evict()

    def _evict(self) -> None:
        while len(self._finished) > self.settings.keep_finished:
            oldest = self._tables.get(self._finished[0])
            if oldest is not None and self.store.durable_seq(oldest.match_id) < len(
                oldest.eventlog
            ):
                break
            match_id = self._finished.popleft()
            if oldest is not None:  # a reader that holds it still sees its log as durable
                oldest.eventlog.durable_floor = len(oldest.eventlog)
            self._tables.pop(match_id, None)
            self.store.forget(match_id)

    def _add(self, table: Table) -> Table:
        table.seed_withheld = self.seed_withheld
        with self._lock:
            existing = self._tables.get(table.match_id)
            if existing is None and not table.over and not self.serves(table.match_id):
                existing = NotServed(table.match_id)  # lost or released meanwhile
            elif existing is None:
                self._tables[table.match_id] = table
                if table.over:
                    self._remember_finished(table.match_id)
                else:
                    self._active += 1
                    metrics.TABLES_ACTIVE.set(self._active)
        if isinstance(existing, NotServed):
            table.discard()
            raise existing
        if existing is not None:  # built twice at once: the other one is the table
            table.discard()
            return existing
        return table

    @property
    def active(self) -> int:
        with self._lock:
            return self._active

    # ------------------------------------------------------------------ shards

    def shard(self, match_id: str) -> int:
        """The shard of ``match_id``."""
        return shard_of(match_id, self.settings.shard_count)

    def serves(self, match_id: str) -> bool:
        """Whether this host serves the match's shard (may hold, open and resume its table)."""
        return self.shard(match_id) in self._serving

    def may_write(self, match_id: str) -> bool:
        """The store's fence: whether the match's events may still be written from here."""
        return self.shard(match_id) in self._writable

    @property
    def shards(self) -> frozenset[int]:
        """The shards served now."""
        return self._serving

    def serve_shards(self, shards: frozenset[int]) -> None:
        """Serve ``shards`` from now on (quick: their matches are resumed by
        :meth:`resume_shards`, or on their first call)."""
        with self._lock:
            self._serving |= shards
            self._writable |= shards
            metrics.SHARDS_OWNED.set(len(self._serving))

    def resume_shards(self, shards: frozenset[int], *, cause: str = "handover") -> int:
        """Resume the unfinished matches of ``shards`` (served) from the log, as after a crash
        (seats have ``rejoin_seconds`` to come back, clocks held meanwhile); return how many.
        ``cause`` labels :data:`metrics.MATCHES_RESUMED` ("takeover": their holder died). One
        that cannot be resumed is dissolved loudly and the others go on."""
        resumed = 0
        for stored in self.store.load_unfinished(lambda match_id: self.shard(match_id) in shards):
            if not self.serves(stored.match_id):
                continue  # lost or released meanwhile
            with self._resuming:
                with self._lock:
                    if stored.match_id in self._tables:  # opened or resumed here meanwhile
                        continue
                try:
                    table = self._resume(stored, check=True)
                except NotServed:
                    continue
                except Exception as exc:
                    self._dissolve_broken(stored, exc)
                    continue
            table.open_waiting(self.settings.ready_seconds)
            resumed += 1
            metrics.MATCHES_RESUMED.labels(cause).inc()
        log.info("resumed %d unfinished matches of %d shards (%s)", resumed, len(shards), cause)
        return resumed

    def release_shards(self, shards: frozenset[int]) -> frozenset[int]:
        """Stop serving ``shards`` cleanly (another replica takes them next): their tables are
        suspended as a clean stop does (streams end with :class:`NotServed`), their logs
        awaited until durable (at most :data:`RELEASE_FLUSH_SECONDS`), then the store is
        fenced and the tables dropped. Returns the shards not released cleanly: those with a
        table whose log was not durable in time (a write of theirs may still land, so their
        next holder waits the takeover grace)."""
        with self._lock:
            self._serving -= shards
            metrics.SHARDS_OWNED.set(len(self._serving))
            tables = [t for t in self._tables.values() if self.shard(t.match_id) in shards]
        for table in tables:
            table.suspend(NotServed(table.match_id))
        deadline = time.monotonic() + RELEASE_FLUSH_SECONDS
        unclean: set[int] = set()
        for table in tables:
            left = max(0.0, deadline - time.monotonic())
            if not self.store.wait_durable(table.match_id, len(table.eventlog), left):
                log.warning("match %s: released before its log was durable", table.match_id)
                unclean.add(self.shard(table.match_id))
        with self._lock:
            self._writable -= shards - self._serving
            self._drop(tables)
        log.info("released %d shards (%d tables)", len(shards), len(tables))
        return frozenset(unclean)

    def lose_shards(self, shards: frozenset[int]) -> None:
        """Stop serving ``shards`` at once (another replica may hold them soon): no group of
        their matches is written from now on, their streams end with :class:`NotServed`, their
        tables leave memory; all before this returns."""
        with self._lock:
            self._serving -= shards
            self._writable -= shards
            metrics.SHARDS_OWNED.set(len(self._serving))
            tables = [t for t in self._tables.values() if self.shard(t.match_id) in shards]
            self._drop(tables)
        for table in tables:
            table.suspend(NotServed(table.match_id))
        log.warning("lost %d shards: %d tables stopped at once", len(shards), len(tables))

    def _drop(self, tables: list[Table]) -> None:
        """Forget ``tables`` (under ``_lock``): they are served elsewhere now."""
        gone = {table.match_id for table in tables}
        for table in tables:
            if self._tables.get(table.match_id) is table:
                del self._tables[table.match_id]
                if not table.over:
                    self._active -= 1
            self.store.forget(table.match_id)
        self._finished = collections.deque(m for m in self._finished if m not in gone)
        metrics.TABLES_ACTIVE.set(self._active)

    def _resume(self, stored: StoredMatch, *, check: bool = False) -> Table:
        """A table rebuilt from its log; ``check``: against today's bounds first (a match to
        play on; an ended one is only read)."""
        table = Table.resume(
            stored,
            self.store,
            self.scheduler,
            check=requests.check_spec if check else None,
            on_end=self._ended,
            **self.settings.table_options(),
        )
        table = self._add(table)
        if self.stopping:
            table.suspend()
        return table

    def _dissolve_broken(self, stored: StoredMatch, error: Exception) -> None:
        reason = f"technical: the match could not be resumed ({type(error).__name__}: {error})"
        reason = reason[:300]
        log.error("match %s dissolved: %s", stored.match_id, reason, exc_info=error)
        metrics.MATCHES_FAILED.labels("resume").inc()
        metrics.MATCHES_ENDED.labels("failed").inc()
        seats = stored.spec.get("seats") if isinstance(stored.spec, dict) else None
        result = matchmaking_pb2.ReportMatchResultRequest(
            match_id=stored.match_id,
            table_id=stored.table_id,
            tournament_id=stored.tournament_id,
            round_no=stored.round_no,
            status=pb.MATCH_STATUS_DISSOLVED,
            hands_played=stored.hands_played,
            reason=reason,
        )
        try:
            for i, seat in enumerate(seats or ()):
                result.seats.add(
                    seat=i, player_id=str(seat["player_id"]), score=int(stored.scores[i])
                )
        except (KeyError, IndexError, TypeError, ValueError):
            del result.seats[:]
        event = {"type": "match_dissolved", "reason": reason}
        try:
            self.store.fail_match(
                stored.match_id,
                len(stored.events) + 1,
                event,
                [OutboxRow("match_result", stored.match_id, result.SerializeToString())],
            )
        except Exception:
            log.exception("match %s: could not record its dissolution", stored.match_id)

    def _storage_failed(self, match_id: str, reason: str) -> None:
        """The store refused a match's events (writer thread): fail that table, off the
        writer's thread."""
        with self._lock:
            table = self._tables.get(match_id)
        if table is not None:
            self.scheduler.call_later(0, lambda: table.fail_storage(reason))

    def suspend_all(self) -> None:
        """The engine is stopping: every table stops its clocks and ends its streams with
        UNAVAILABLE (see Table.suspend); tables opened from now on start suspended."""
        with self._lock:
            self.stopping = True
            tables = list(self._tables.values())
        for table in tables:
            table.suspend()
        log.info("suspended %d tables", len(tables))

    def seed_withheld(self, spec: MatchSpec) -> bool:
        """Whether the seed of ``spec``'s ended match must still be withheld: no published
        seed may ever belong to a live match, and an evaluation match shares its wall with
        others (duplicate mode: the matches of one tournament round). So an evaluation
        match's seed waits while a live match on this engine has the same seed or is of the
        same tournament and round: on this replica (in memory) or another (the store)."""
        if not spec.evaluation:
            return False
        with self._lock:
            tables = list(self._tables.values())
        live_here = any(
            not table.over
            and table.match_id != spec.match_id
            and (
                table.spec.seed == spec.seed
                or (
                    spec.tournament_id
                    and table.spec.tournament_id == spec.tournament_id
                    and table.spec.round_no == spec.round_no
                )
            )
            for table in tables
        )
        here = [spec.match_id, *(table.match_id for table in tables)]
        return live_here or self._wall_shared_elsewhere(spec, here)

    def _wall_shared_elsewhere(self, spec: MatchSpec, here: list[str]) -> bool:
        """Whether a live match on another replica (not ``here``: this host's own, whose
        state in memory is ahead of their rows) shares ``spec``'s wall (the store says; a
        "no" is trusted for :data:`WALL_CHECK_SECONDS`, a failure to ask withholds)."""
        now = time.monotonic()
        if self._walls.get(spec.match_id, 0.0) > now:
            return False
        try:
            shared = self.store.live_match_shares_wall(
                spec.seed, spec.tournament_id, spec.round_no, besides=here
            )
        except DomainError:
            return True
        if not shared:
            if len(self._walls) >= WALL_CHECKS:
                self._walls.clear()
            self._walls[spec.match_id] = now + WALL_CHECK_SECONDS
        return shared

    def fresh_seed(self) -> int:
        """A seed no stored match has (the seed of a live match must never be known)."""
        while True:
            seed = secrets.randbits(63)
            if seed and not self.store.seed_used(seed):
                return seed

    def open_match(self, spec: MatchSpec) -> Table:
        """Open a match (idempotent by match_id; a different request is ALREADY_EXISTS);
        :class:`NotServed` when its shard is not this host's."""
        if not self.serves(spec.match_id):
            raise NotServed(spec.match_id)
        with self._lock:
            table = self._tables.get(spec.match_id)
            if table is None and self._active >= self.settings.max_tables:
                raise ResourceExhausted(
                    f"this engine already runs {self._active} tables (the most it takes)"
                )
        if table is not None:
            if table.spec.fingerprint != spec.fingerprint:
                raise AlreadyExists(
                    f"match {spec.match_id} was already opened with a different request"
                )
            return table
        row = spec.stored()
        if self.store.create_match(row) is not row:
            return self.get(spec.match_id)  # opened before (by an earlier call or process)
        table = self._add(
            Table(
                spec,
                self.store,
                self.scheduler,
                on_end=self._ended,
                **self.settings.table_options(),
            )
        )
        if self.stopping:
            table.suspend()
        else:
            table.open_waiting(self.settings.ready_seconds)
        return table

    def _find(self, match_id: str) -> Table | StoredMatch:
        """The table of ``match_id`` in memory, else its stored row (without its events);
        NOT_FOUND."""
        if not match_id:
            raise InvalidArgument("match_id is required")
        with self._lock:
            self._evict()
            table = self._tables.get(match_id)
        if table is not None:
            return table
        row = self.store.load_match(match_id, events=False)
        if row is None:
            raise NotFound(f"no match {match_id!r}")
        return row

    def get(self, match_id: str) -> Table:
        """The table of ``match_id`` (a finished one is loaded from the log, at most
        ``cold_loads`` at once: more is RESOURCE_EXHAUSTED); NOT_FOUND."""
        found = self._find(match_id)
        if isinstance(found, Table):
            return found
        if found.status not in ENDED:
            return self._load(match_id)
        if not self._cold_loads.acquire(blocking=False):
            metrics.COLD_LOADS_REFUSED.inc()
            raise ResourceExhausted(
                f"the engine is reading {self.settings.cold_loads} other finished matches from "
                "their logs; try again shortly"
            )
        try:
            return self._load(match_id)
        finally:
            self._cold_loads.release()

    def _load(self, match_id: str) -> Table:
        """A table not in memory, read from the log (resumed when it is unfinished: only in a
        shard served here, one resumption at a time, never twice)."""
        stored = self.store.load_match(match_id)
        if stored is None:
            raise NotFound(f"no match {match_id!r}")
        if stored.status in ENDED:
            return self._read(stored)
        if not self.serves(match_id):
            raise NotServed(match_id)
        with self._resuming:
            with self._lock:
                table = self._tables.get(match_id)
            if table is not None:  # resumed meanwhile
                return table
            return self._read(self.store.load_match(match_id) or stored)

    def _read(self, stored: StoredMatch) -> Table:
        """The table of a stored match (with its events)."""
        match_id = stored.match_id
        try:
            table = self._resume(stored)
        except NotServed:
            raise
        except Exception:
            if stored.status not in ENDED:
                log.exception("match %s: its log could not be read", match_id)
                raise FailedPrecondition(
                    f"match {match_id!r} cannot be read: its log does not replay"
                ) from None
            table = self._add(Table.ended(stored, self.store, self.scheduler))
        log_read = table.eventlog  # read from the store: durable
        log_read.durable_floor = max(log_read.durable_floor, len(stored.events))
        return table

    def info(self, match_id: str) -> table_pb2.MatchInfo:
        """GetMatch: the state of ``match_id``; an ended match no longer in memory is answered
        from its stored row, without reading its log back."""
        found = self._find(match_id)
        if isinstance(found, Table):
            return found.info()
        if found.status in ENDED:
            return _row_info(found, self.seed_withheld)
        return self._load(match_id).info()

    def list(self, query: requests.ListQuery) -> tuple[list[table_pb2.MatchInfo], str]:
        """A page of matches (from the store, live state from the tables in memory)."""
        size = query.page_size
        rows = self.store.list_matches(
            tournament_id=query.tournament_id,
            status=STATUS_NAMES.get(query.status, ""),
            after=query.page_token,
            limit=size + 1,
        )
        infos = []
        for row in rows[:size]:
            with self._lock:
                table = self._tables.get(row.match_id)
            infos.append(table.info() if table is not None else _row_info(row, self.seed_withheld))
        return infos, rows[size - 1].match_id if len(rows) > size else ""

    def dissolve(
        self, match_id: str, reason: str, *, only_if_no_person_joined: bool = False
    ) -> Table:
        """End a match now; with ``only_if_no_person_joined``, only while it still waits for
        its seats and no person's seat has joined (else FailedPrecondition). The check and the
        dissolving hold the table's lock, as a join does: a person joining at that moment
        either keeps the match or finds it dissolved."""
        table = self.get(match_id)
        with table.lock:
            if only_if_no_person_joined:
                people = [s for s in table.seats if s.spec.kind == pb.SEAT_KIND_PERSON]
                if table.status != WAITING or any(s.joined for s in people):
                    raise FailedPrecondition(
                        f"match {match_id} is {table.status} and "
                        f"{sum(s.joined for s in people)} of its people joined: not dissolved"
                    )
            table.dissolve(reason)
        return table

    def replace_seat(self, change: requests.SeatReplacement) -> table_pb2.MatchInfo:
        """ReplaceSeat (see Table.replace_seat); FailedPrecondition for an ended match (one
        no longer in memory is not read back for it), NotFound."""
        found = self._find(change.match_id)
        if isinstance(found, StoredMatch) and found.status in ENDED:
            raise FailedPrecondition(
                f"match {change.match_id} is {found.status}: its seats can no longer change"
            )
        table = found if isinstance(found, Table) else self.get(change.match_id)
        table.replace_seat(change.seat, change.token_hash, change.played_by, change.reason)
        return table.info()

    def conclude(self, match_id: str, reason: str) -> table_pb2.MatchInfo:
        """ConcludeMatch (see Table.conclude): the match's state after it; an ended match is
        left as it is. NotFound."""
        found = self._find(match_id)
        if isinstance(found, StoredMatch) and found.status in ENDED:
            return _row_info(found, self.seed_withheld)
        table = found if isinstance(found, Table) else self.get(match_id)
        table.conclude(reason)
        return table.info()

    def reveal_results(self, tournament_id: str, round_no: int) -> int:
        """RevealMatchResults: the stored matches first (every replica's), then those in
        memory; the number of stored matches whose results were hidden."""
        revealed = self.store.reveal_results(tournament_id, round_no)
        self.reveal_in_memory(tournament_id, round_no)
        return len(revealed)

    def reveal_in_memory(self, tournament_id: str, round_no: int) -> int:
        """Show the results of this host's tables of ``tournament_id`` (of ``round_no``; 0:
        every round) whose stored rows were revealed (by this replica or another); how many."""
        with self._lock:
            tables = [
                t
                for t in self._tables.values()
                if t.spec.results_hidden
                and t.spec.tournament_id == tournament_id
                and round_no in (0, t.spec.round_no)
            ]
        for table in tables:
            with table.lock:
                table.spec = replace(table.spec, results_hidden=False)
        return len(tables)

    def close(self) -> None:
        self.scheduler.stop()


def _row_info(row: StoredMatch, seed_withheld: Callable[[MatchSpec], bool]) -> table_pb2.MatchInfo:
    """A match's state from its stored row (an ended match no longer in memory)."""
    spec = MatchSpec.from_stored(row)
    over = row.status in ENDED
    state = row.table_state if isinstance(row.table_state, dict) else {}
    seats = state.get("seats")
    if not isinstance(seats, list) or len(seats) != len(spec.seats):
        seats = [{} for _ in spec.seats]
    info = table_pb2.MatchInfo(
        table_id=row.table_id,
        match_id=row.match_id,
        tournament_id=row.tournament_id,
        round_no=row.round_no,
        status=STATUSES[row.status],
        hand_no=row.hands_played,
        hands_played=row.hands_played,
        seats=[
            table_pb2.SeatInfo(
                seat=s.seat,
                player_id=s.player_id,
                player_name=shown_name(s.player_name),
                kind=s.kind,
                score=row.scores[s.seat],
                played_by=str(seats[s.seat].get("played_by") or ""),
                person_joined=bool(seats[s.seat].get("person_joined")),
            )
            for s in spec.seats
        ],
        rule_profile=pb.RuleProfile(name=spec.profile),
        length=convert.length_to_proto(spec.length),
        opened_at=convert.timestamp_from_seconds(row.opened_at),
        event_count=row.event_count,
        seed=spec.seed if over and not seed_withheld(spec) else 0,
        evaluation=spec.evaluation,
        concluding=bool(state.get("concluding")),
        results_hidden=spec.results_hidden,
    )
    spec.fill_time_control(info.time_control)
    if row.ended_at is not None:
        info.ended_at.CopyFrom(convert.timestamp_from_seconds(row.ended_at))
    return info
