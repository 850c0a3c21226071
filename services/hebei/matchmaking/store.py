"""The matchmaking service's PostgreSQL tables (``migrations/``): rows in, rows out.

Every state change is one transaction. Changes of one tournament take the tournament's row lock
first (:meth:`Store.tournament_for_update`), so two writers — two calls, or a call and the
round director — never interleave; each change also appends its entry to the tournament's
change feed (``tournament_events``) in the same transaction, so a watcher never sees a change
that did not commit, nor misses one that did.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from hebei.common import db
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import table_pb2

__all__ = [
    "MIGRATIONS_PACKAGE",
    "MatchRow",
    "PenaltyRow",
    "PlayerRow",
    "RatingRow",
    "RoundRow",
    "Store",
    "TournamentRow",
]

MIGRATIONS_PACKAGE = "hebei.matchmaking.migrations"
OPEN_STATUSES = ("pending", "opened")
ENDED_STATUSES = ("finished", "dissolved")
QUICK_PLAY_LOCK = 0x4865_6265_6951_504C  # pg_advisory_xact_lock key: counting quick play's tables


@dataclass
class TournamentRow:
    tournament_id: str
    config: mm.TournamentConfig
    status: str
    status_reason: str = ""
    current_round: int = 0
    created_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    problems: list[str] = field(default_factory=list)
    next_round_at: datetime | None = None  # the scheduled start, or the next round after a break
    round_ends_at: datetime | None = None  # the running round's time limit
    paused_at: datetime | None = None

    @classmethod
    def from_db(cls, row: dict[str, Any]) -> TournamentRow:
        return cls(
            tournament_id=row["tournament_id"],
            config=mm.TournamentConfig.FromString(row["config"]),
            status=row["status"],
            status_reason=row["status_reason"],
            current_round=row["current_round"],
            created_at=row["created_at"],
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            problems=list(row["problems"]),
            next_round_at=row["next_round_at"],
            round_ends_at=row["round_ends_at"],
            paused_at=row["paused_at"],
        )


@dataclass
class PlayerRow:
    tournament_id: str
    player_id: str
    ordinal: int
    name: str
    kind: str  # "person" | "bot"
    rating_id: str
    bot_policy: str = ""
    bot_level: int = 0
    secret_hash: str | None = None
    filler: bool = False
    first_round: int = 1
    withdrawn_after: int | None = None
    removed: bool = False
    replaced_by: str = ""
    status: str = "active"  # active | withdrawn | no_show | removed
    status_reason: str = ""
    missed_rounds: list[int] = field(default_factory=list)
    checked_in: bool = False

    @property
    def active(self) -> bool:
        return self.status == "active"

    def seated_in(self, round_no: int) -> bool:
        """Whether the player takes part in ``round_no`` (fillers are chosen separately)."""
        if self.removed or round_no < self.first_round:
            return False
        return self.withdrawn_after is None or round_no <= self.withdrawn_after

    @classmethod
    def from_db(cls, row: dict[str, Any]) -> PlayerRow:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})


@dataclass
class RoundRow:
    tournament_id: str
    round_no: int
    status: str  # planned | seated | finished
    players: list[str]
    tables: list[list[str]]
    groups: list[int]
    quality: dict[str, Any]
    standings: bytes | None = None
    seated_at: datetime | None = None
    finished_at: datetime | None = None

    @classmethod
    def from_db(cls, row: dict[str, Any]) -> RoundRow:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})


@dataclass
class MatchRow:
    match_id: str
    tournament_id: str
    round_no: int
    table_no: int
    table_id: str
    request: table_pb2.OpenMatchRequest
    status: str = "pending"
    duplicate_group: int = 0
    hands_played: int = 0
    event_count: int = 0
    progress_at: datetime | None = None
    scores: list[int] | None = None
    reason: str = ""
    replaced: dict[str, dict[str, Any]] = field(default_factory=dict)
    settled: bool = False
    opened_at: datetime | None = None
    ended_at: datetime | None = None
    # What the engine last said of each seat: {"joined": person_joined, "played_by": ...,
    # "connected": ...}, by seat number as a string.
    seats_seen: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ended(self) -> bool:
        return self.status in ENDED_STATUSES

    def player_ids(self) -> list[str]:
        return [s.player_id for s in sorted(self.request.seats, key=lambda s: s.seat)]

    @classmethod
    def from_db(cls, row: dict[str, Any]) -> MatchRow:
        values = {k: row[k] for k in cls.__dataclass_fields__}
        values["request"] = table_pb2.OpenMatchRequest.FromString(row["request"])
        values["scores"] = None if row["scores"] is None else [int(s) for s in row["scores"]]
        return cls(**values)


@dataclass
class PenaltyRow:
    penalty_id: str
    tournament_id: str
    player_id: str
    points: int
    reason: str
    assigned_by: str
    request_id: str | None = None
    assigned_at: datetime | None = None
    entry_id: str = ""
    cancelled: bool = False
    cancel_reason: str = ""

    @classmethod
    def from_db(cls, row: dict[str, Any]) -> PenaltyRow:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})


@dataclass
class RatingRow:
    rating_id: str
    name: str
    mu: float
    sigma: float
    matches: int


class Store:
    """The matchmaking tables, over a connection pool whose sessions use the service's schema."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool

    @classmethod
    def open(cls, url: str, schema: str, *, min_size: int = 2, max_size: int = 10) -> Store:
        """Migrate ``schema`` and open a pool on it."""
        db.migrate(url, schema, MIGRATIONS_PACKAGE)
        pool = db.create_pool(
            url, schema=schema, min_size=min_size, max_size=max_size, name="hebei-matchmaking"
        )
        return cls(pool)

    def close(self) -> None:
        self.pool.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """One transaction (database failures mapped to domain errors)."""
        with db.database_errors(), self.pool.connection() as conn:
            conn.row_factory = dict_row
            with conn.transaction():
                yield conn

    @contextlib.contextmanager
    def reading(self) -> Iterator[psycopg.Connection]:
        with db.database_errors(), self.pool.connection() as conn:
            conn.row_factory = dict_row
            yield conn
            conn.rollback()

    # -- tournaments ---------------------------------------------------------------------

    @staticmethod
    def insert_tournament(
        conn: psycopg.Connection,
        row: TournamentRow,
        request_id: str | None,
        fingerprint: str,
    ) -> tuple[TournamentRow, str] | None:
        """Insert ``row``; when ``request_id`` was used before, return (that tournament,
        its fingerprint) instead (None: inserted)."""
        if request_id:
            found = conn.execute(
                "SELECT * FROM tournaments WHERE request_id = %s", (request_id,)
            ).fetchone()
            if found is not None:
                return TournamentRow.from_db(found), found["fingerprint"]
        inserted = conn.execute(
            "INSERT INTO tournaments (tournament_id, request_id, fingerprint, config, status)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (request_id) DO NOTHING"
            " RETURNING tournament_id",
            (
                row.tournament_id,
                request_id or None,
                fingerprint,
                row.config.SerializeToString(),
                row.status,
            ),
        ).fetchone()
        if inserted is None:  # a concurrent call with the same request id won
            found = conn.execute(
                "SELECT * FROM tournaments WHERE request_id = %s", (request_id,)
            ).fetchone()
            return TournamentRow.from_db(found), found["fingerprint"]
        return None

    @staticmethod
    def tournament(conn: psycopg.Connection, tournament_id: str) -> TournamentRow | None:
        row = conn.execute(
            "SELECT * FROM tournaments WHERE tournament_id = %s", (tournament_id,)
        ).fetchone()
        return None if row is None else TournamentRow.from_db(row)

    @staticmethod
    def tournament_for_update(conn: psycopg.Connection, tournament_id: str) -> TournamentRow | None:
        row = conn.execute(
            "SELECT * FROM tournaments WHERE tournament_id = %s FOR UPDATE", (tournament_id,)
        ).fetchone()
        return None if row is None else TournamentRow.from_db(row)

    @staticmethod
    def update_tournament(conn: psycopg.Connection, row: TournamentRow) -> None:
        conn.execute(
            "UPDATE tournaments SET status = %s, status_reason = %s, current_round = %s,"
            " started_at = %s, finished_at = %s, problems = %s, next_round_at = %s,"
            " round_ends_at = %s, paused_at = %s WHERE tournament_id = %s",
            (
                row.status,
                row.status_reason,
                row.current_round,
                row.started_at,
                row.finished_at,
                row.problems,
                row.next_round_at,
                row.round_ends_at,
                row.paused_at,
                row.tournament_id,
            ),
        )

    @staticmethod
    def active_tournaments(conn: psycopg.Connection) -> list[str]:
        rows = conn.execute(
            "SELECT tournament_id FROM tournaments WHERE status IN ('running', 'paused')"
            " ORDER BY created_at"
        ).fetchall()
        return [r["tournament_id"] for r in rows]

    @staticmethod
    def scheduled_due(conn: psycopg.Connection, now: datetime) -> list[str]:
        """Tournaments still in registration whose scheduled start has come."""
        rows = conn.execute(
            "SELECT tournament_id FROM tournaments WHERE status = 'registration'"
            " AND next_round_at IS NOT NULL AND next_round_at <= %s ORDER BY next_round_at",
            (now,),
        ).fetchall()
        return [r["tournament_id"] for r in rows]

    @staticmethod
    def next_clock(conn: psycopg.Connection) -> datetime | None:
        """The soonest clock of any tournament (a scheduled start, the end of a break, a
        round's time limit) that is not stopped by a pause."""
        return conn.execute(
            "SELECT least(min(next_round_at), min(round_ends_at)) AS at FROM tournaments"
            " WHERE status IN ('registration', 'running')"
        ).fetchone()["at"]

    # -- players -------------------------------------------------------------------------

    @staticmethod
    def players(conn: psycopg.Connection, tournament_id: str) -> list[PlayerRow]:
        rows = conn.execute(
            "SELECT * FROM players WHERE tournament_id = %s ORDER BY ordinal", (tournament_id,)
        ).fetchall()
        return [PlayerRow.from_db(r) for r in rows]

    @staticmethod
    def player(conn: psycopg.Connection, tournament_id: str, player_id: str) -> PlayerRow | None:
        row = conn.execute(
            "SELECT * FROM players WHERE tournament_id = %s AND player_id = %s",
            (tournament_id, player_id),
        ).fetchone()
        return None if row is None else PlayerRow.from_db(row)

    @staticmethod
    def insert_player(conn: psycopg.Connection, player: PlayerRow) -> PlayerRow:
        """Insert ``player`` with the next ordinal of its tournament (returned filled in)."""
        ordinal = conn.execute(
            "SELECT coalesce(max(ordinal), 0) + 1 AS n FROM players WHERE tournament_id = %s",
            (player.tournament_id,),
        ).fetchone()["n"]
        player.ordinal = ordinal
        names = list(PlayerRow.__dataclass_fields__)
        conn.execute(
            f"INSERT INTO players ({', '.join(names)}) VALUES ({', '.join(['%s'] * len(names))})",
            [getattr(player, n) for n in names],
        )
        return player

    @staticmethod
    def update_player(conn: psycopg.Connection, player: PlayerRow) -> None:
        conn.execute(
            "UPDATE players SET withdrawn_after = %s, removed = %s, replaced_by = %s,"
            " status = %s, status_reason = %s, missed_rounds = %s, checked_in = %s"
            " WHERE tournament_id = %s AND player_id = %s",
            (
                player.withdrawn_after,
                player.removed,
                player.replaced_by,
                player.status,
                player.status_reason,
                player.missed_rounds,
                player.checked_in,
                player.tournament_id,
                player.player_id,
            ),
        )

    @staticmethod
    def delete_player(conn: psycopg.Connection, tournament_id: str, player_id: str) -> None:
        conn.execute(
            "DELETE FROM players WHERE tournament_id = %s AND player_id = %s",
            (tournament_id, player_id),
        )

    # -- registration codes ---------------------------------------------------------------

    @staticmethod
    def code_failures(
        conn: psycopg.Connection, tournament_id: str, since: datetime
    ) -> list[tuple[datetime, str]]:
        """The tournament's wrong registration codes after ``since`` (time, client address),
        oldest first; older ones are deleted."""
        conn.execute(
            "DELETE FROM registration_code_failures WHERE tournament_id = %s AND at <= %s",
            (tournament_id, since),
        )
        rows = conn.execute(
            "SELECT at, client FROM registration_code_failures WHERE tournament_id = %s"
            " ORDER BY at",
            (tournament_id,),
        ).fetchall()
        return [(r["at"], r["client"]) for r in rows]

    @staticmethod
    def add_code_failure(
        conn: psycopg.Connection, tournament_id: str, at: datetime, client: str
    ) -> None:
        conn.execute(
            "INSERT INTO registration_code_failures (tournament_id, at, client)"
            " VALUES (%s, %s, %s)",
            (tournament_id, at, client),
        )

    # -- rounds --------------------------------------------------------------------------

    @staticmethod
    def rounds(conn: psycopg.Connection, tournament_id: str) -> list[RoundRow]:
        rows = conn.execute(
            "SELECT * FROM rounds WHERE tournament_id = %s ORDER BY round_no", (tournament_id,)
        ).fetchall()
        return [RoundRow.from_db(r) for r in rows]

    @staticmethod
    def save_round(conn: psycopg.Connection, row: RoundRow) -> None:
        """Insert or replace a round (a planned round may be replaced; a seated one is only
        ever moved on to finished, see :meth:`finish_round`)."""
        conn.execute(
            "INSERT INTO rounds (tournament_id, round_no, status, players, tables, groups,"
            " quality, seated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (tournament_id, round_no) DO UPDATE SET status = EXCLUDED.status,"
            " players = EXCLUDED.players, tables = EXCLUDED.tables, groups = EXCLUDED.groups,"
            " quality = EXCLUDED.quality, seated_at = EXCLUDED.seated_at"
            " WHERE rounds.status = 'planned'",
            (
                row.tournament_id,
                row.round_no,
                row.status,
                row.players,
                Jsonb(row.tables),
                row.groups,
                Jsonb(row.quality),
                row.seated_at,
            ),
        )

    @staticmethod
    def finish_round(
        conn: psycopg.Connection,
        tournament_id: str,
        round_no: int,
        standings: bytes,
        finished_at: datetime,
    ) -> None:
        conn.execute(
            "UPDATE rounds SET status = 'finished', standings = %s, finished_at = %s"
            " WHERE tournament_id = %s AND round_no = %s AND status = 'seated'",
            (standings, finished_at, tournament_id, round_no),
        )

    @staticmethod
    def delete_planned(conn: psycopg.Connection, tournament_id: str) -> None:
        conn.execute(
            "DELETE FROM rounds WHERE tournament_id = %s AND status = 'planned'", (tournament_id,)
        )

    # -- matches -------------------------------------------------------------------------

    @staticmethod
    def insert_match(conn: psycopg.Connection, match: MatchRow) -> None:
        conn.execute(
            "INSERT INTO matches (match_id, tournament_id, round_no, table_no, table_id,"
            " duplicate_group, request, status) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (
                match.match_id,
                match.tournament_id,
                match.round_no,
                match.table_no,
                match.table_id,
                match.duplicate_group,
                match.request.SerializeToString(deterministic=True),
                match.status,
            ),
        )

    @staticmethod
    def match(conn: psycopg.Connection, match_id: str, *, lock: bool = False) -> MatchRow | None:
        row = conn.execute(
            "SELECT * FROM matches WHERE match_id = %s" + (" FOR UPDATE" if lock else ""),
            (match_id,),
        ).fetchone()
        return None if row is None else MatchRow.from_db(row)

    @staticmethod
    def matches(
        conn: psycopg.Connection, tournament_id: str, round_no: int | None = None
    ) -> list[MatchRow]:
        rows = conn.execute(
            "SELECT * FROM matches WHERE tournament_id = %s"
            " AND (%s::int IS NULL OR round_no = %s) ORDER BY round_no, table_no",
            (tournament_id, round_no, round_no),
        ).fetchall()
        return [MatchRow.from_db(r) for r in rows]

    @staticmethod
    def live_matches(conn: psycopg.Connection) -> list[MatchRow]:
        """Matches not yet opened or not yet ended, every tournament and quick play."""
        rows = conn.execute(
            "SELECT * FROM matches WHERE status IN ('pending', 'opened')"
            " ORDER BY tournament_id, round_no, table_no"
        ).fetchall()
        return [MatchRow.from_db(r) for r in rows]

    @staticmethod
    def live_quick_play(conn: psycopg.Connection, *, lock: bool = False) -> int:
        """How many quick-play matches are opened (or about to be) and not yet ended (the
        partial index ``matches_quick_play_live``). ``lock``: first take the transaction's
        quick-play lock, so two callers counting and then inserting never both pass a cap."""
        if lock:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (QUICK_PLAY_LOCK,))
        return conn.execute(
            "SELECT count(*) AS n FROM matches"
            " WHERE tournament_id = '' AND status IN ('pending', 'opened')"
        ).fetchone()["n"]

    @staticmethod
    def unsettled_matches(conn: psycopg.Connection) -> list[MatchRow]:
        rows = conn.execute(
            "SELECT * FROM matches WHERE NOT settled AND status IN ('finished', 'dissolved')"
            " ORDER BY ended_at"
        ).fetchall()
        return [MatchRow.from_db(r) for r in rows]

    @staticmethod
    def update_match(conn: psycopg.Connection, match: MatchRow) -> None:
        conn.execute(
            "UPDATE matches SET status = %s, hands_played = %s, event_count = %s,"
            " progress_at = %s, scores = %s, reason = %s, replaced = %s, settled = %s,"
            " opened_at = %s, ended_at = %s, seats_seen = %s WHERE match_id = %s",
            (
                match.status,
                match.hands_played,
                match.event_count,
                match.progress_at,
                match.scores,
                match.reason,
                Jsonb(match.replaced),
                match.settled,
                match.opened_at,
                match.ended_at,
                Jsonb(match.seats_seen),
                match.match_id,
            ),
        )

    # -- penalties and operator actions ----------------------------------------------------

    @staticmethod
    def insert_penalty(conn: psycopg.Connection, penalty: PenaltyRow) -> PenaltyRow | None:
        """Insert ``penalty``; return the earlier one with the same request id, if any."""
        if penalty.request_id:
            found = conn.execute(
                "SELECT * FROM penalties WHERE tournament_id = %s AND request_id = %s",
                (penalty.tournament_id, penalty.request_id),
            ).fetchone()
            if found is not None:
                return PenaltyRow.from_db(found)
        names = list(PenaltyRow.__dataclass_fields__)
        names.remove("assigned_at")
        conn.execute(
            f"INSERT INTO penalties ({', '.join(names)}) VALUES ({', '.join(['%s'] * len(names))})",
            [getattr(penalty, n) for n in names],
        )
        return None

    @staticmethod
    def penalties(conn: psycopg.Connection, tournament_id: str) -> list[PenaltyRow]:
        rows = conn.execute(
            "SELECT * FROM penalties WHERE tournament_id = %s ORDER BY assigned_at, penalty_id",
            (tournament_id,),
        ).fetchall()
        return [PenaltyRow.from_db(r) for r in rows]

    @staticmethod
    def update_penalty(conn: psycopg.Connection, penalty: PenaltyRow) -> None:
        conn.execute(
            "UPDATE penalties SET entry_id = %s, cancelled = %s, cancel_reason = %s"
            " WHERE penalty_id = %s",
            (penalty.entry_id, penalty.cancelled, penalty.cancel_reason, penalty.penalty_id),
        )

    @staticmethod
    def record_action(
        conn: psycopg.Connection,
        tournament_id: str,
        action: str,
        actor: str,
        detail: str,
        player_id: str = "",
    ) -> mm.OperatorAction:
        row = conn.execute(
            "INSERT INTO operator_actions (tournament_id, action, actor, player_id, detail)"
            " VALUES (%s, %s, %s, %s, %s) RETURNING seq, at",
            (tournament_id, action, actor, player_id, detail),
        ).fetchone()
        message = mm.OperatorAction(
            seq=row["seq"],
            tournament_id=tournament_id,
            action=action,
            actor=actor,
            detail=detail,
            player_id=player_id,
        )
        message.at.FromDatetime(row["at"])
        return message

    @staticmethod
    def actions(conn: psycopg.Connection, tournament_id: str) -> list[mm.OperatorAction]:
        rows = conn.execute(
            "SELECT * FROM operator_actions WHERE tournament_id = %s ORDER BY seq",
            (tournament_id,),
        ).fetchall()
        out = []
        for row in rows:
            message = mm.OperatorAction(
                seq=row["seq"],
                tournament_id=row["tournament_id"],
                action=row["action"],
                actor=row["actor"],
                detail=row["detail"],
                player_id=row["player_id"],
            )
            message.at.FromDatetime(row["at"])
            out.append(message)
        return out

    # -- the change feed -------------------------------------------------------------------

    @staticmethod
    def append_event(
        conn: psycopg.Connection, tournament_id: str, event: mm.WatchTournamentResponse
    ) -> int:
        """Append ``event`` (under the tournament's row lock); return its sequence number."""
        seq = conn.execute(
            "SELECT coalesce(max(seq), 0) + 1 AS seq FROM tournament_events"
            " WHERE tournament_id = %s",
            (tournament_id,),
        ).fetchone()["seq"]
        event.seq = seq
        conn.execute(
            "INSERT INTO tournament_events (tournament_id, seq, payload) VALUES (%s, %s, %s)",
            (tournament_id, seq, event.SerializeToString()),
        )
        return seq

    @staticmethod
    def events_after(
        conn: psycopg.Connection, tournament_id: str, after: int, limit: int = 200
    ) -> list[mm.WatchTournamentResponse]:
        rows = conn.execute(
            "SELECT payload FROM tournament_events WHERE tournament_id = %s AND seq > %s"
            " ORDER BY seq LIMIT %s",
            (tournament_id, after, limit),
        ).fetchall()
        return [mm.WatchTournamentResponse.FromString(r["payload"]) for r in rows]

    @staticmethod
    def last_event_seq(conn: psycopg.Connection, tournament_id: str) -> int:
        return conn.execute(
            "SELECT coalesce(max(seq), 0) AS seq FROM tournament_events WHERE tournament_id = %s",
            (tournament_id,),
        ).fetchone()["seq"]

    # -- ratings ---------------------------------------------------------------------------

    @staticmethod
    def ratings_for(conn: psycopg.Connection, ids: Sequence[str]) -> dict[str, RatingRow]:
        rows = conn.execute(
            "SELECT rating_id, name, mu, sigma, matches FROM ratings WHERE rating_id = ANY(%s)"
            " FOR UPDATE",
            (list(ids),),
        ).fetchall()
        return {r["rating_id"]: RatingRow(**r) for r in rows}

    @staticmethod
    def save_ratings(conn: psycopg.Connection, rows: Sequence[RatingRow]) -> None:
        for row in rows:
            conn.execute(
                "INSERT INTO ratings (rating_id, name, mu, sigma, matches)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (rating_id) DO UPDATE SET"
                " name = EXCLUDED.name, mu = EXCLUDED.mu, sigma = EXCLUDED.sigma,"
                " matches = EXCLUDED.matches, updated_at = now()",
                (row.rating_id, row.name, row.mu, row.sigma, row.matches),
            )

    @staticmethod
    def ratings_page(
        conn: psycopg.Connection, ids: Sequence[str], offset: int, limit: int
    ) -> list[RatingRow]:
        rows = conn.execute(
            "SELECT rating_id, name, mu, sigma, matches FROM ratings"
            " WHERE cardinality(%s::text[]) = 0 OR rating_id = ANY(%s::text[])"
            " ORDER BY mu - 3 * sigma DESC, rating_id OFFSET %s LIMIT %s",
            (list(ids), list(ids), offset, limit),
        ).fetchall()
        return [RatingRow(**r) for r in rows]


def dumps(value: Any) -> str:
    """Compact JSON (for logs and details)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
