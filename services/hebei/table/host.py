"""All the tables of one engine process: open, find, list, dissolve, and resume after a crash."""

from __future__ import annotations

import collections
import hashlib
import logging
import secrets
import threading
from dataclasses import dataclass

from hebei.common import convert
from hebei.common.errors import AlreadyExists, InvalidArgument, NotFound, ResourceExhausted
from hebei.rules.errors import NotationError
from hebei.rules.profile import get_profile
from hebei.table import metrics, timecontrol
from hebei.table.scheduler import Scheduler
from hebei.table.store import EventStore, StoredMatch
from hebei.table.table import (
    STATUS_NAMES,
    STATUSES,
    MatchSpec,
    SeatSpec,
    Table,
    hash_token,
)
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)

MAX_ID_LENGTH = 128


@dataclass(frozen=True, slots=True)
class HostSettings:
    """How the host runs its tables."""

    ready_seconds: float = 15.0  # the ready check: absent seats are auto-played after this
    max_tables: int = 256  # tables waiting or playing at once; more is RESOURCE_EXHAUSTED
    seat_queue: int = 256  # messages queued per seat stream before old ones are dropped
    keep_finished: int = 512  # ended tables kept in memory; older ones reload from the log


def _check_id(name: str, value: str, *, required: bool = True) -> None:
    if required and not value:
        raise InvalidArgument(f"{name} is required")
    if len(value) > MAX_ID_LENGTH or any(c.isspace() or c == ":" for c in value):
        raise InvalidArgument(
            f"{name} must be at most {MAX_ID_LENGTH} characters without spaces or ':'"
        )


def spec_from_request(request: table_pb2.OpenMatchRequest) -> MatchSpec:
    """Validate an OpenMatch request and turn it into a match spec (tokens hashed)."""
    _check_id("match_id", request.match_id)
    _check_id("table_id", request.table_id)
    _check_id("tournament_id", request.tournament_id, required=False)
    if request.round_no < 0:
        raise InvalidArgument(f"round_no must be >= 0, got {request.round_no}")
    profile = request.rule_profile.name or "main"
    try:
        get_profile(profile)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None
    try:
        length = convert.length_from_proto(request.length)
    except NotationError as exc:
        raise InvalidArgument(f"length: {exc}") from None
    if sorted(s.seat for s in request.seats) != [0, 1, 2, 3]:
        raise InvalidArgument("exactly four seats are needed, numbered 0-3")
    seats = []
    for seat in sorted(request.seats, key=lambda s: s.seat):
        if not seat.player_id:
            raise InvalidArgument(f"seat {seat.seat} needs a player_id")
        if seat.kind not in (pb.SEAT_KIND_PERSON, pb.SEAT_KIND_BOT):
            raise InvalidArgument(f"seat {seat.seat} needs a kind (person or bot)")
        if len(seat.seat_token) < 8:
            raise InvalidArgument(f"seat {seat.seat} needs a seat_token of at least 8 characters")
        seats.append(
            SeatSpec(
                seat=seat.seat,
                player_id=seat.player_id,
                player_name=seat.player_name or seat.player_id,
                kind=seat.kind,
                token_hash=hash_token(seat.seat_token),
                bot_policy=seat.bot_policy,
                bot_level=seat.bot_level,
            )
        )
    try:
        control = timecontrol.from_proto(request.time_control)
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None
    fingerprint = hashlib.sha256(request.SerializeToString(deterministic=True)).hexdigest()
    return MatchSpec(
        match_id=request.match_id,
        table_id=request.table_id,
        tournament_id=request.tournament_id,
        round_no=request.round_no,
        profile=profile,
        length=length,
        seed=request.seed or secrets.randbits(63),
        seats=tuple(seats),
        time_control=control,
        fingerprint=fingerprint,
    )


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
            if oldest is not None and self.store.durable_seq(oldest.match_id) < len(oldest.log):
                break
            self._tables.pop(self._finished.popleft(), None)

    def _add(self, table: Table) -> Table:
        with self._lock:
            existing = self._tables.get(table.match_id)
            if existing is not None:
                return existing
            self._tables[table.match_id] = table
            if table.over:
                self._remember_finished(table.match_id)
            else:
                self._active += 1
                metrics.TABLES_ACTIVE.set(self._active)
        return table

    @property
    def active(self) -> int:
        with self._lock:
            return self._active

    def resume_all(self) -> int:
        """Rebuild every unfinished match from the log; return how many."""
        resumed = 0
        for stored in self.store.load_unfinished():
            table = self._resume(stored)
            table.open_waiting(self.settings.ready_seconds)
            resumed += 1
        log.info("resumed %d unfinished matches", resumed)
        return resumed

    def _resume(self, stored: StoredMatch) -> Table:
        table = Table.resume(
            stored,
            self.store,
            self.scheduler,
            seat_queue=self.settings.seat_queue,
            on_end=self._ended,
        )
        return self._add(table)

    def open_match(self, request: table_pb2.OpenMatchRequest) -> Table:
        """Open a match (idempotent by match_id; a different request is ALREADY_EXISTS)."""
        spec = spec_from_request(request)
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
                seat_queue=self.settings.seat_queue,
                on_end=self._ended,
            )
        )
        table.open_waiting(self.settings.ready_seconds)
        return table

    def get(self, match_id: str) -> Table:
        """The table of ``match_id`` (a finished one is loaded from the log); NOT_FOUND."""
        if not match_id:
            raise InvalidArgument("match_id is required")
        with self._lock:
            self._evict()
            table = self._tables.get(match_id)
        if table is not None:
            return table
        stored = self.store.load_match(match_id)
        if stored is None:
            raise NotFound(f"no match {match_id!r}")
        return self._resume(stored)

    def list(
        self, tournament_id: str, status: int, page_size: int, page_token: str
    ) -> tuple[list[table_pb2.MatchInfo], str]:
        """A page of matches (from the store, live state from the tables in memory)."""
        if status and status not in STATUS_NAMES:
            raise InvalidArgument(f"unknown match status {status}")
        size = page_size if 0 < page_size <= 500 else 50
        rows = self.store.list_matches(
            tournament_id=tournament_id,
            status=STATUS_NAMES.get(status, ""),
            after=page_token,
            limit=size + 1,
        )
        infos = []
        for row in rows[:size]:
            with self._lock:
                table = self._tables.get(row.match_id)
            infos.append(table.info() if table is not None else _row_info(row))
        return infos, rows[size - 1].match_id if len(rows) > size else ""

    def dissolve(self, match_id: str, reason: str) -> Table:
        table = self.get(match_id)
        table.dissolve(reason)
        return table

    def close(self) -> None:
        self.scheduler.stop()


def _row_info(row: StoredMatch) -> table_pb2.MatchInfo:
    spec = MatchSpec.from_stored(row)
    over = row.status in ("finished", "dissolved")
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
                player_name=s.player_name,
                kind=s.kind,
                score=row.scores[s.seat],
            )
            for s in spec.seats
        ],
        rule_profile=pb.RuleProfile(name=spec.profile),
        length=convert.length_to_proto(spec.length),
        opened_at=convert.timestamp_from_seconds(row.opened_at),
        event_count=row.event_count,
        seed=spec.seed if over else 0,
    )
    if row.ended_at is not None:
        info.ended_at.CopyFrom(convert.timestamp_from_seconds(row.ended_at))
    return info
