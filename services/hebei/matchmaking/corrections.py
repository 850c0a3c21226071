"""The referee's corrections: a match's result corrected, points awarded as well as taken, the
last correction undone.

Each correction is a new ledger entry, never an edit: a match's result is corrected by an
adjustment (ADJUSTMENT_KIND_CORRECTION) moving points among its seats, an award is an
adjustment against the tournament's account (ADJUSTMENT_KIND_AWARD, through
:meth:`Tournaments.assign_penalty` with negative points), and undoing one reverses its entry.
Every one is in the operator record with who and why; the standings come from the ledger, so
they are recomputed by the next read. Stored in the ``corrections`` table (the penalties'
table keeps penalties and awards).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import psycopg

from hebei.common.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from hebei.common.validation import MAX_NAME_LENGTH, MAX_REASON_LENGTH, check_id, check_text
from hebei.matchmaking.gateways import Line
from hebei.v1 import ledger_pb2
from hebei.v1 import matchmaking_pb2 as mm

__all__ = [
    "MAX_DELTA",
    "REPAIR",
    "Correction",
    "active_lines",
    "correct_match_result",
    "match_prefix",
    "repair_round",
    "undo_correction",
]

REPAIR = "repair"  # the operator action that takes a seated round back to its plan

MAX_DELTA = 1_000_000  # a seat's points moved by one correction


@dataclass
class Correction:
    correction_id: str
    tournament_id: str
    match_id: str
    round_no: int
    seat_deltas: list[int]
    player_ids: list[str]
    reason: str
    ruled_by: str
    request_id: str | None = None
    corrected_at: datetime | None = None
    entry_id: str = ""
    undone: bool = False
    undo_reason: str = ""

    @classmethod
    def from_db(cls, row: dict) -> Correction:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})

    def message(self) -> mm.MatchCorrection:
        out = mm.MatchCorrection(
            correction_id=self.correction_id,
            tournament_id=self.tournament_id,
            match_id=self.match_id,
            round_no=self.round_no,
            seat_deltas=self.seat_deltas,
            player_ids=self.player_ids,
            reason=self.reason,
            ruled_by=self.ruled_by,
            entry_id=self.entry_id,
            undone=self.undone,
            undo_reason=self.undo_reason,
        )
        if self.corrected_at is not None:
            out.corrected_at.FromDatetime(self.corrected_at)
        return out

    def detail(self) -> str:
        pairs = zip(self.player_ids, self.seat_deltas, strict=True)
        moved = ", ".join(f"{pid} {d:+d}" for pid, d in pairs)
        return f"{self.match_id}: {moved} by {self.ruled_by}: {self.reason}"


def corrections(conn: psycopg.Connection, tournament_id: str) -> list[Correction]:
    rows = conn.execute(
        "SELECT * FROM corrections WHERE tournament_id = %s ORDER BY corrected_at, correction_id",
        (tournament_id,),
    ).fetchall()
    return [Correction.from_db(r) for r in rows]


def active_lines(conn: psycopg.Connection, tournament_id: str) -> list[Line]:
    """The points each correction in force moved (to cross-check the ledger's standings)."""
    return [
        Line(pid, delta)
        for c in corrections(conn, tournament_id)
        if c.entry_id and not c.undone
        for pid, delta in zip(c.player_ids, c.seat_deltas, strict=True)
        if delta
    ]


def _save(conn: psycopg.Connection, c: Correction) -> None:
    conn.execute(
        "UPDATE corrections SET entry_id = %s, undone = %s, undo_reason = %s"
        " WHERE correction_id = %s",
        (c.entry_id, c.undone, c.undo_reason, c.correction_id),
    )


def _check_deltas(deltas: Sequence[int]) -> list[int]:
    if len(deltas) != 4:
        raise InvalidArgument(f"seat_deltas: exactly four, one per seat 0-3, got {len(deltas)}")
    for seat, delta in enumerate(deltas):
        if not -MAX_DELTA <= delta <= MAX_DELTA:
            raise InvalidArgument(f"seat_deltas[{seat}]: within ±{MAX_DELTA:,}, got {delta}")
    if sum(deltas) != 0:
        raise InvalidArgument(f"seat_deltas: must sum to zero, they sum to {sum(deltas)}")
    if not any(deltas):
        raise InvalidArgument("seat_deltas: all zero, nothing to correct")
    return [int(d) for d in deltas]


def correct_match_result(
    ts, request: mm.CorrectMatchResultRequest, actor: str
) -> mm.MatchCorrection:
    """Book a referee's correction of an ended match's result (see the module docstring)."""
    check_id("match_id", request.match_id)
    check_id("request_id", request.request_id, required=False)
    deltas = _check_deltas(request.seat_deltas)
    reason = check_text("reason", request.reason, max_length=MAX_REASON_LENGTH, required=True)
    by = check_text("ruled_by", request.ruled_by, max_length=MAX_NAME_LENGTH, required=True)
    with ts.store.transaction() as conn:
        row = ts._load(conn, request.tournament_id, lock=True)
        if row.status in ("registration", "cancelled"):
            raise FailedPrecondition(f"corrections are for a started tournament ({row.status})")
        match = ts.store.match(conn, request.match_id)
        if match is None or match.tournament_id != row.tournament_id:
            raise NotFound(f"no match {request.match_id!r} in tournament {row.tournament_id!r}")
        if not match.ended:
            raise FailedPrecondition(f"match {match.match_id} has not ended: correct it after")
        correction = Correction(
            f"cor-{secrets.token_hex(5)}",
            row.tournament_id,
            match.match_id,
            match.round_no,
            deltas,
            match.player_ids(),
            reason,
            by,
            request_id=request.request_id or None,
        )
        earlier = None
        if correction.request_id:
            found = conn.execute(
                "SELECT * FROM corrections WHERE tournament_id = %s AND request_id = %s",
                (row.tournament_id, correction.request_id),
            ).fetchone()
            earlier = Correction.from_db(found) if found else None
        if earlier is not None:
            same = (earlier.match_id, earlier.seat_deltas, earlier.reason)
            if same != (correction.match_id, correction.seat_deltas, correction.reason):
                raise AlreadyExists(f"request_id {request.request_id!r} was another correction")
            correction = earlier
        else:
            found = conn.execute(
                "INSERT INTO corrections (correction_id, tournament_id, request_id, match_id,"
                " round_no, seat_deltas, player_ids, reason, ruled_by)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING *",
                (
                    correction.correction_id, correction.tournament_id, correction.request_id,
                    correction.match_id, correction.round_no, correction.seat_deltas,
                    correction.player_ids, correction.reason, correction.ruled_by,
                ),
            ).fetchone()  # fmt: skip
            correction = Correction.from_db(found)
    if not correction.entry_id:
        correction.entry_id = ts.ledger.post_adjustment(
            key=f"correction:{correction.correction_id}",
            tournament_id=correction.tournament_id,
            kind=ledger_pb2.ADJUSTMENT_KIND_CORRECTION,
            lines=[
                Line(pid, d)
                for pid, d in zip(correction.player_ids, correction.seat_deltas, strict=True)
                if d
            ],
            reason=correction.reason,
            assigned_by=correction.ruled_by,
            round_no=correction.round_no,
            match_id=correction.match_id,
        )
        with ts.store.transaction() as conn:
            ts._load(conn, correction.tournament_id, lock=True)
            _save(conn, correction)
            ts._action(conn, correction.tournament_id, "correct_result", actor, correction.detail())
        ts.changes.notify()
    return correction.message()


def undo_correction(ts, tournament_id: str, reason: str, actor: str) -> mm.UndoCorrectionResponse:
    """Undo the tournament's last correction in force: a match correction (its entry reversed)
    or a penalty or award (cancelled); FailedPrecondition when none is left."""
    reason = check_text("reason", reason, max_length=MAX_REASON_LENGTH, required=True)
    with ts.store.reading() as conn:
        ts._load(conn, tournament_id)
        found = [c for c in corrections(conn, tournament_id) if c.entry_id and not c.undone]
        penalties = [
            p for p in ts.store.penalties(conn, tournament_id) if p.entry_id and not p.cancelled
        ]
    last_correction = found[-1] if found else None
    last_penalty = max(penalties, key=lambda p: p.assigned_at, default=None)
    if last_correction is None and last_penalty is None:
        raise FailedPrecondition("no correction, penalty or award is left to undo")
    if last_correction is None or (
        last_penalty is not None and last_penalty.assigned_at > last_correction.corrected_at
    ):
        penalty = ts.cancel_penalty(
            mm.CancelPenaltyRequest(
                tournament_id=tournament_id,
                penalty_id=last_penalty.penalty_id,
                reason=f"undone: {reason}",
            ),
            actor,
        )
        return mm.UndoCorrectionResponse(penalty=penalty)
    correction = last_correction
    ts.ledger.cancel_adjustment(
        correction.entry_id, reason, key=f"cancel:correction:{correction.correction_id}"
    )
    with ts.store.transaction() as conn:
        ts._load(conn, tournament_id, lock=True)
        correction.undone, correction.undo_reason = True, reason
        _save(conn, correction)
        ts._action(
            conn,
            tournament_id,
            "undo_correction",
            actor,
            f"correction {correction.correction_id} of {correction.match_id}: {reason}",
        )
    ts.changes.notify()
    return mm.UndoCorrectionResponse(correction=correction.message())


# ------------------------------------------------------------------------------ re-pairing


def _repaired(actions: Sequence[mm.OperatorAction], round_no: int) -> int:
    return sum(
        1 for a in actions if a.action == REPAIR and a.detail.startswith(f"round {round_no}:")
    )


def match_prefix(actions: Sequence[mm.OperatorAction], round_no: int) -> str:
    """The match ids' part for ``round_no``: ``r3``, or ``r3p1`` once it was re-paired (the
    engine keeps the dissolved matches, so a new seating needs new ids)."""
    times = _repaired(actions, round_no)
    return f"r{round_no}" + (f"p{times}" if times else "")


def repair_round(ts, tournament_id: str, reason: str, actor: str) -> mm.Tournament:
    """Take the round in play back to its plan before its first hand: its matches are
    dissolved on the engine (nothing was dealt, so nothing is booked) and forgotten, the round
    is planned again with the same tables (PreviewRound and SwapSeats change it) and the
    tournament is paused; Resume seats it anew (new match ids and seat tokens).
    FailedPrecondition once a hand has been dealt at any of its tables."""
    from hebei.v1 import types_pb2 as pb

    reason = check_text("reason", reason, max_length=MAX_REASON_LENGTH, required=True)
    with ts.store.reading() as conn:
        row = ts._load(conn, tournament_id)
        matches = ts.store.matches(conn, tournament_id, row.current_round or None)
    seated = row.current_round and any(not m.ended for m in matches)
    if row.status not in ("running", "paused") or not seated:
        raise FailedPrecondition("no round is being seated or played: nothing to re-pair")

    def started(info) -> bool:
        return info.hands_played > 0 or info.status not in (pb.MATCH_STATUS_WAITING,)

    opened = [m for m in matches if m.status == "opened" or m.ended]
    for match in opened:
        try:
            info = ts.table.get_match(match.match_id)
        except NotFound:
            continue
        if started(info) or match.hands_played:
            raise FailedPrecondition(
                f"round {row.current_round} cannot be re-paired: {match.table_id} has dealt"
                " its first hand"
            )
    _dissolve(ts, matches, reason, row.current_round)
    round_no = row.current_round
    with ts.store.transaction() as conn:
        row = ts._load(conn, tournament_id, lock=True)
        if row.current_round != round_no:
            raise FailedPrecondition("the round changed meanwhile: try again")
        conn.execute(
            "DELETE FROM matches WHERE tournament_id = %s AND round_no = %s",
            (tournament_id, round_no),
        )
        conn.execute(
            "UPDATE rounds SET status = 'planned', seated_at = NULL"
            " WHERE tournament_id = %s AND round_no = %s",
            (tournament_id, round_no),
        )
        row.current_round = round_no - 1
        row.round_ends_at = None
        row.next_round_at = None
        if row.status == "running":
            row.status, row.status_reason = "paused", f"re-pairing round {round_no}"
            row.paused_at = datetime.now(UTC)
        ts.store.update_tournament(conn, row)
        ts._action(conn, tournament_id, REPAIR, actor, f"round {round_no}: {reason}")
        ts._event(conn, tournament_id, mm.TOURNAMENT_EVENT_TYPE_PAUSED, round_no=round_no)
    # Once more: a match the director opened on the engine meanwhile (one it opens from now on
    # finds its row gone and dissolves it itself).
    _dissolve(ts, matches, reason, round_no)
    ts.changes.notify()
    return ts.get(tournament_id)


def _dissolve(ts, matches: Sequence, reason: str, round_no: int) -> None:
    """Dissolve the round's matches on the engine (those it holds); FailedPrecondition if one
    of them has played a hand."""
    for match in matches:  # a pending match may be on the engine already
        try:
            info = ts.table.dissolve(match.match_id, f"round re-paired: {reason}")
        except (NotFound, FailedPrecondition):
            continue
        if info.hands_played:
            log_hands = f"{match.match_id} played {info.hands_played} hands"
            raise FailedPrecondition(f"round {round_no} cannot be re-paired: {log_hands}")
