"""All the tables of one engine process: open, find, list, dissolve, resume after a crash, and
suspend them all when the engine stops.

A stored match that cannot be resumed (its spec is out of today's bounds, its log does not
replay, ...) is dissolved with an error line and a ``match_dissolved`` event: it never keeps
the engine from starting, however often it restarts.
"""

from __future__ import annotations

import collections
import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

from hebei.common import convert
from hebei.common.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
)
from hebei.table import metrics, requests
from hebei.table.scheduler import Scheduler
from hebei.table.spec import STATUS_NAMES, STATUSES, WAITING, MatchSpec, shown_name
from hebei.table.store import EventStore, OutboxRow, StoredMatch
from hebei.table.table import Table
from hebei.v1 import matchmaking_pb2, table_pb2
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)
ENDED = ("finished", "dissolved")


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
    ) -> None:
        self.store = store
        self.settings = settings
        self.scheduler = scheduler or Scheduler()
        self._tables: dict[str, Table] = {}
        self._finished: collections.deque[str] = collections.deque()
        self._lock = threading.Lock()
        self._active = 0
        self._cold_loads = threading.BoundedSemaphore(settings.cold_loads)
        self.stopping = False
        store.on_failed = self._storage_failed

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
            if existing is None:
                self._tables[table.match_id] = table
                if table.over:
                    self._remember_finished(table.match_id)
                else:
                    self._active += 1
                    metrics.TABLES_ACTIVE.set(self._active)
        if existing is not None:  # built twice at once: the other one is the table
            table.discard()
            return existing
        return table

    @property
    def active(self) -> int:
        with self._lock:
            return self._active

    def resume_all(self) -> int:
        """Rebuild every unfinished match from the log; return how many. One that cannot be
        resumed is dissolved loudly (see the module docstring) and the others go on."""
        resumed = 0
        for stored in self.store.load_unfinished():
            try:
                table = self._resume(stored, check=True)
            except Exception as exc:
                self._dissolve_broken(stored, exc)
                continue
            table.open_waiting(self.settings.ready_seconds)
            resumed += 1
        log.info("resumed %d unfinished matches", resumed)
        return resumed

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
        same tournament and round. (Every live match is in memory: see resume_all.)"""
        if not spec.evaluation:
            return False
        with self._lock:
            tables = list(self._tables.values())
        return any(
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

    def fresh_seed(self) -> int:
        """A seed no stored match has (the seed of a live match must never be known)."""
        while True:
            seed = secrets.randbits(63)
            if seed and not self.store.seed_used(seed):
                return seed

    def open_match(self, spec: MatchSpec) -> Table:
        """Open a match (idempotent by match_id; a different request is ALREADY_EXISTS)."""
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
        """A table not in memory, read from the log (resumed when it is unfinished)."""
        stored = self.store.load_match(match_id)
        if stored is None:
            raise NotFound(f"no match {match_id!r}")
        try:
            table = self._resume(stored)
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
        """RevealMatchResults: the stored matches first, then those in memory; the number of
        matches whose results were hidden."""
        revealed = self.store.reveal_results(tournament_id, round_no)
        for match_id in revealed:
            with self._lock:
                table = self._tables.get(match_id)
            if table is not None:
                with table.lock:
                    table.spec = replace(table.spec, results_hidden=False)
        return len(revealed)

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
