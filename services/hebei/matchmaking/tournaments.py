"""Tournaments: what organisers, players and the table engine ask of matchmaking.

Plain Python over the store and the gateways; the gRPC servicer only translates messages. Every
change is one transaction that locks the tournament's row first and appends its entry to the
change feed; operator actions are also recorded with who did them and when. The rounds
themselves are driven by :class:`hebei.matchmaking.director.Director`.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import psycopg

from hebei.common.auth import same_token
from hebei.common.errors import (
    AlreadyExists,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
)
from hebei.common.validation import (
    MAX_NAME_LENGTH,
    MAX_REASON_LENGTH,
    check_id,
    check_int,
    check_text,
)
from hebei.matchmaking import corrections, hidden, metrics
from hebei.matchmaking.gateways import BotFleet, LedgerGateway, Line, TableGateway
from hebei.matchmaking.match_requests import bot_seed
from hebei.matchmaking.registration import (
    CODE_PROBLEM,
    CodeBudget,
    check_entrant,
    person_rating_id,
)
from hebei.matchmaking.settings import (
    DEFAULT_MAX_PLAYERS,
    MAX_PLAYERS,
    Settings,
    check_policy,
    fingerprint,
    normalise_config,
)
from hebei.matchmaking.standings import Figures, rank_players
from hebei.matchmaking.store import (
    MatchRow,
    PenaltyRow,
    PlayerRow,
    RoundRow,
    Store,
    TournamentRow,
)
from hebei.matchmaking.views import (
    PLAYER_STATUSES,
    penalty_message,
    player_message,
    round_message,
    shown_played_by,
    table_message,
    tournament_message,
)
from hebei.v1 import ledger_pb2
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb

__all__ = ["TOURNAMENT_ACCOUNT", "Changes", "Tournaments", "WrongRegistrationCode"]

log = logging.getLogger(__name__)

TOURNAMENT_ACCOUNT = "#tournament"  # the ledger's account of the tournament itself
MAX_PENALTY = 1_000_000
MAX_SCORE = 10**12  # a match total, as the ledger bounds its amounts
SEATING_REPLY_BYTES = 1024 * 1024  # GetSeating: whole rounds up to this much a reply
EVENT = mm.TournamentEventType


class WrongRegistrationCode(PermissionDenied):
    """Register without the tournament's registration code, or with a wrong one."""


def _now() -> datetime:
    return datetime.now(UTC)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _new_id(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(5)}"


class Changes:
    """Wakes whoever waits for a tournament's next change (watchers, the director)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._version = 0

    def notify(self) -> None:
        with self._cond:
            self._version += 1
            self._cond.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        """Wait until the version passes ``seen`` or ``timeout``; return the version."""
        with self._cond:
            self._cond.wait_for(lambda: self._version != seen, timeout)
            return self._version

    @property
    def version(self) -> int:
        with self._cond:
            return self._version


@dataclass(frozen=True)
class Registration:
    """A new player and, for a person, the secret that proves it is them."""

    player: PlayerRow
    secret: str


class Tournaments:
    """The tournaments of this service (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        table: TableGateway,
        ledger: LedgerGateway,
        fleet: BotFleet,
        *,
        table_endpoint: str,
        changes: Changes | None = None,
        code_budget: CodeBudget | None = None,
    ) -> None:
        self.store = store
        self.table = table
        self.ledger = ledger
        self.fleet = fleet
        self.table_endpoint = table_endpoint  # what people are told to connect to
        self.changes = changes or Changes()
        self.code_budget = code_budget or CodeBudget()  # wrong registration codes, per tournament

    # -- reading ---------------------------------------------------------------------------

    def _load(self, conn: psycopg.Connection, tournament_id: str, *, lock: bool = False):
        check_id("tournament_id", tournament_id)
        row = (
            self.store.tournament_for_update(conn, tournament_id)
            if lock
            else self.store.tournament(conn, tournament_id)
        )
        if row is None:
            raise NotFound(f"no tournament {tournament_id!r}")
        return row

    def snapshot(self, conn: psycopg.Connection, row: TournamentRow) -> mm.Tournament:
        players = self.store.players(conn, row.tournament_id)
        rounds = self.store.rounds(conn, row.tournament_id)
        current = (
            self.store.matches(conn, row.tournament_id, row.current_round)
            if row.current_round
            else []
        )
        message = tournament_message(row, players, rounds, current)
        message.hidden_rounds.extend(self.hidden_rounds(conn, row, rounds))
        return message

    def hidden_rounds(
        self,
        conn: psycopg.Connection,
        row: TournamentRow,
        rounds: Sequence[RoundRow],
        *,
        closing: int = 0,
    ) -> list[int]:
        """The rounds whose results only the operator may see now (see
        :mod:`hebei.matchmaking.hidden`)."""
        if not hidden.hides_results(row.config):
            return []
        revealed = hidden.revealed(self.store.actions(conn, row.tournament_id))
        return hidden.hidden_rounds(row.config, rounds, revealed, closing=closing)

    def get(self, tournament_id: str) -> mm.Tournament:
        with self.store.reading() as conn:
            return self.snapshot(conn, self._load(conn, tournament_id))

    def _event(
        self,
        conn: psycopg.Connection,
        tournament_id: str,
        kind: int,
        *,
        round_no: int = 0,
        tables: Sequence[mm.TableAssignment] = (),
        standings: Sequence[pb.Standing] = (),
        quality: mm.SeatingQuality | None = None,
        action: mm.OperatorAction | None = None,
    ) -> None:
        event = mm.WatchTournamentResponse(
            type=kind, round_no=round_no, tables=tables, standings=standings
        )
        if quality is not None:
            event.quality.CopyFrom(quality)
        if action is not None:
            event.action.CopyFrom(action)
        self.store.append_event(conn, tournament_id, event)

    def _action(
        self,
        conn: psycopg.Connection,
        tournament_id: str,
        action: str,
        actor: str,
        detail: str,
        player_id: str = "",
    ) -> None:
        record = self.store.record_action(conn, tournament_id, action, actor, detail, player_id)
        metrics.OPERATOR_ACTIONS.labels(action).inc()
        self._event(conn, tournament_id, EVENT.TOURNAMENT_EVENT_TYPE_OPERATOR_ACTION, action=record)

    # -- lifecycle ---------------------------------------------------------------------------

    def create(self, config: mm.TournamentConfig, request_id: str) -> mm.Tournament:
        """A new tournament open for registration (idempotent by ``request_id``)."""
        check_id("request_id", request_id, required=False)
        normal = normalise_config(config)
        print_ = fingerprint(normal, seed_given=bool(config.seed))
        row = TournamentRow(_new_id("t-"), normal, "registration")
        with self.store.transaction() as conn:
            earlier = self.store.insert_tournament(conn, row, request_id or None, print_)
            if earlier is not None:
                existing, existing_print = earlier
                if existing_print != print_:
                    raise AlreadyExists(
                        f"request_id {request_id!r} was used for a different tournament"
                    )
                return self.snapshot(conn, existing)
            row = self._load(conn, row.tournament_id, lock=True)
            row.next_round_at = Settings(row.config).scheduled_start
            if row.next_round_at is not None:
                self.store.update_tournament(conn, row)
            return self.snapshot(conn, row)

    def register(
        self, request: mm.RegisterRequest, *, operator: bool = False, client: str = ""
    ) -> tuple[mm.Player, str]:
        """Register a person or a bot; return the player and (for a person) its secret. A
        tournament with a registration code needs it (not from the ``operator``): checked
        first, PermissionDenied and nothing registered without it (the failure is counted
        against the tournament's :class:`CodeBudget`, with the ``client`` address). Without
        the operator token: people only, with a rating identity of their own, up to
        :data:`DEFAULT_MAX_PLAYERS` when the tournament sets no limit (see
        :mod:`hebei.matchmaking.registration`)."""
        if not operator:
            self._check_code(request, client)
        with self.store.transaction() as conn:
            row = self._load(conn, request.tournament_id, lock=True)
            which = check_entrant(request.WhichOneof("entrant"), operator=operator)
            first_round = self._registration_round(row)
            players = self.store.players(conn, row.tournament_id)
            entrants = [p for p in players if not p.filler and not p.removed]
            limit = row.config.max_players or (MAX_PLAYERS if operator else DEFAULT_MAX_PLAYERS)
            if len(entrants) >= limit:
                raise FailedPrecondition(
                    f"the tournament is full ({limit} players)"
                    + ("" if row.config.max_players else "; the organiser may register more")
                )
            secret = ""
            if which == "person" and Settings(row.config).duplicate:
                raise FailedPrecondition(
                    "a duplicate-mode tournament is for bots: its tables share walls, so a "
                    "person could learn their own table's wall from another table's"
                )
            if which == "person":
                name = check_text(
                    "person.name", request.person.name, max_length=MAX_NAME_LENGTH, required=True
                )
                player_id = _new_id("p-")
                rating_id = person_rating_id(
                    request.person.rating_id,
                    name=name,
                    tournament_id=row.tournament_id,
                    player_id=player_id,
                    operator=operator,
                )
                secret = secrets.token_urlsafe(24)
                player = PlayerRow(
                    row.tournament_id,
                    player_id,
                    0,
                    name,
                    "person",
                    rating_id=rating_id,
                    secret_hash=_hash(secret),
                    first_round=first_round,
                )
            else:
                policy, level = check_policy("bot", request.bot.policy, request.bot.level)
                name = check_text("bot.name", request.bot.name, max_length=MAX_NAME_LENGTH)
                number = sum(1 for p in players if p.kind == "bot" and not p.filler) + 1
                player = PlayerRow(
                    row.tournament_id,
                    _new_id("b-"),
                    0,
                    name or f"{policy}-{level} #{number}",
                    "bot",
                    rating_id=f"bot:{policy}:{level}",
                    bot_policy=policy,
                    bot_level=level,
                    first_round=first_round,
                )
            if any(p.name == player.name for p in entrants):
                raise AlreadyExists(f"a player named {player.name!r} is already registered")
            self.store.insert_player(conn, player)
            self._event(conn, row.tournament_id, EVENT.TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED)
        self.changes.notify()
        return player_message(player), secret

    def _check_code(self, request: mm.RegisterRequest, client: str) -> None:
        """The registration code of a Register without the operator token, in a transaction
        of its own (a wrong one is recorded even though the call fails): CodeLocked while the
        tournament's budget of wrong codes is used up (the code unchecked), else
        WrongRegistrationCode for a missing or wrong one. A wrong one (not a missing one: no
        guess) counts against the budget, with the ``client`` address."""
        budget, wrong = self.code_budget, False
        with self.store.transaction() as conn:
            row = self._load(conn, request.tournament_id, lock=True)
            code = row.config.registration_code
            if not code:
                return
            now = _now()
            failures = self.store.code_failures(conn, row.tournament_id, now - budget.window)
            budget.check([at for at, _ in failures], now)
            if same_token(code, request.registration_code):
                return
            wrong = True
            if request.registration_code:
                self._count_code_failure(conn, row, [*failures, (now, client)], now)
        if wrong:  # after the transaction: the failure it recorded stays
            raise WrongRegistrationCode("this tournament needs its registration code")

    def _count_code_failure(
        self,
        conn: psycopg.Connection,
        row: TournamentRow,
        failures: Sequence[tuple[datetime, str]],
        now: datetime,
    ) -> None:
        """Record the last of ``failures`` (time, client address); when it uses the budget up,
        tell the organiser: the operator record and the tournament's problems (one line)."""
        self.store.add_code_failure(conn, row.tournament_id, *failures[-1])
        clients = len({client for _, client in failures})
        problem = self.code_budget.problem([at for at, _ in failures], clients, now)
        if problem is not None:
            row.problems = [p for p in row.problems if not p.startswith(CODE_PROBLEM)]
            row.problems.append(problem)
            self.store.update_tournament(conn, row)
            self._action(conn, row.tournament_id, "code_lock", "rules", problem)

    @staticmethod
    def _registration_round(row: TournamentRow) -> int:
        """The first round a player registering now plays (FailedPrecondition when closed)."""
        if row.status == "registration":
            return 1
        late = row.config.last_registration_round
        if row.status in ("running", "paused") and row.current_round < late:
            return row.current_round + 1
        raise FailedPrecondition(
            f"registration is closed: the tournament is {row.status}"
            + (
                f", round {row.current_round} seated (late registration ends at round {late})"
                if row.status in ("running", "paused")
                else ""
            )
        )

    def _authorise_player(
        self,
        conn: psycopg.Connection,
        tournament_id: str,
        player_id: str,
        secret: str,
        *,
        operator: bool,
    ) -> PlayerRow:
        check_id("player_id", player_id)
        player = self.store.player(conn, tournament_id, player_id)
        if player is None or player.filler:
            raise NotFound(f"no player {player_id!r} in tournament {tournament_id!r}")
        if not operator:
            if not secret:
                raise PermissionDenied("the player's secret (or the operator token) is required")
            if player.secret_hash is None or not secrets.compare_digest(
                player.secret_hash, _hash(secret)
            ):
                raise PermissionDenied("wrong player secret")
        return player

    def unregister(
        self, tournament_id: str, player_id: str, secret: str, *, operator: bool, actor: str
    ) -> mm.Tournament:
        """Withdraw: before the start the registration goes; later the player is not seated
        after the current round."""
        with self.store.transaction() as conn:
            row = self._load(conn, tournament_id, lock=True)
            player = self._authorise_player(
                conn, tournament_id, player_id, secret, operator=operator
            )
            by = "the operator" if operator else "the player"
            who = actor if operator else player.name
            live: list[MatchRow] = []
            if row.status == "registration":
                self.store.delete_player(conn, tournament_id, player_id)
                detail = f"{player.name}: registration withdrawn by {by} before the start"
            elif row.status in ("running", "paused"):
                if not player.active:
                    raise FailedPrecondition(f"player {player_id!r} has already left")
                player.withdrawn_after = row.current_round
                player.status, player.status_reason = "withdrawn", f"withdrawn by {by}"
                live = self._live_matches_of(conn, row, player_id)
                if live:
                    player.replaced_by = "bot:{}:{}".format(*Settings(row.config).filler)
                self.store.update_player(conn, player)
                detail = f"{player.name}: withdrawn by {by} after round {row.current_round}"
            else:
                raise FailedPrecondition(f"the tournament is {row.status}")
            self._action(conn, tournament_id, "withdraw", who, detail, player_id)
            self.store.delete_planned(conn, tournament_id)
            self._event(conn, tournament_id, EVENT.TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED)
        self._replace_leaving(row, live, player_id, "withdrawn", player.status_reason)
        self.changes.notify()
        return self.get(tournament_id)

    def _live_matches_of(
        self, conn: psycopg.Connection, row: TournamentRow, player_id: str
    ) -> list[MatchRow]:
        """The current round's matches of ``player_id`` not yet ended."""
        return [
            m
            for m in self.store.matches(conn, row.tournament_id, row.current_round or None)
            if not m.ended and player_id in m.player_ids()
        ]

    def _replace_leaving(
        self, row: TournamentRow, live: Sequence[MatchRow], player_id: str, cause: str, reason: str
    ) -> None:
        """A bot takes the seat of a player who left (removed, withdrawn) in its live match,
        with a new token: the player's stops working (see :meth:`replace_seat`)."""
        counting = "fixed" if Settings(row.config).fixed_replacement else "as_played"
        for match in live:
            seat = match.player_ids().index(player_id)
            self.replace_seat(match.match_id, seat, cause, counting, reason=reason)

    def check_in(
        self, tournament_id: str, player_id: str, secret: str, *, operator: bool
    ) -> mm.Player:
        """A registered person checks in (idempotent); FailedPrecondition outside the window
        or without check-in."""
        with self.store.transaction() as conn:
            row = self._load(conn, tournament_id, lock=True)
            player = self._authorise_player(
                conn, tournament_id, player_id, secret, operator=operator
            )
            window = Settings(row.config).check_in_window(row.created_at)
            if window is None:
                raise FailedPrecondition("this tournament has no check-in")
            if player.checked_in:
                return player_message(player)
            opens, closes = window
            now = _now()
            shown = f"check-in is open from {opens:%Y-%m-%d %H:%M:%S} UTC" + (
                f" to {closes:%Y-%m-%d %H:%M:%S} UTC" if closes else " to the start"
            )
            if row.status != "registration" or now < opens or (closes and now >= closes):
                raise FailedPrecondition(f"{shown}; it is now {now:%Y-%m-%d %H:%M:%S} UTC")
            player.checked_in = True
            self.store.update_player(conn, player)
            self._event(conn, tournament_id, EVENT.TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED)
        self.changes.notify()
        return player_message(player)

    def leave_by_rules(
        self, conn: psycopg.Connection, player: PlayerRow, after_round: int, reason: str
    ) -> None:
        """Mark ``player`` a no-show (withdrawn by the rules from the round after
        ``after_round``), recorded with the actor "rules"; in the caller's transaction."""
        player.status, player.status_reason = "no_show", reason
        player.withdrawn_after = after_round
        self.store.update_player(conn, player)
        self._action(
            conn, player.tournament_id, "no_show", "rules", f"{player.name}: {reason}",
            player.player_id,
        )  # fmt: skip
        self.store.delete_planned(conn, player.tournament_id)

    def close_registration(self, tournament_id: str, actor: str) -> None:
        """Close registration: the tournament runs (round 1 is seated by
        :func:`hebei.matchmaking.round_seating.start`). A tournament that hides results has the
        ledger hide them from anonymous reads first."""
        with self.store.reading() as conn:
            config = self._load(conn, tournament_id).config
        if hidden.hides_results(config):
            self.ledger.set_results_hidden(tournament_id, True)
        with self.store.transaction() as conn:
            row = self._load(conn, tournament_id, lock=True)
            if row.status != "registration":
                raise FailedPrecondition(f"the tournament is {row.status}, not open to start")
            entrants = [p for p in self.store.players(conn, tournament_id) if not p.filler]
            if not entrants:
                raise FailedPrecondition("nobody is registered")
            row.status = "running"
            row.started_at = _now()
            row.next_round_at = None
            self.store.update_tournament(conn, row)
            self._action(conn, tournament_id, "start", actor, f"{len(entrants)} players")
        self.changes.notify()

    def pause(self, tournament_id: str, reason: str, actor: str) -> mm.Tournament:
        return self._set_status(tournament_id, "pause", ("running",), "paused", reason, actor)

    def resume(self, tournament_id: str, actor: str) -> mm.Tournament:
        return self._set_status(tournament_id, "resume", ("paused",), "running", "", actor)

    def _set_status(
        self,
        tournament_id: str,
        action: str,
        allowed: tuple[str, ...],
        status: str,
        reason: str,
        actor: str,
    ) -> mm.Tournament:
        reason = check_text("reason", reason, max_length=MAX_REASON_LENGTH)
        kinds = {
            "paused": EVENT.TOURNAMENT_EVENT_TYPE_PAUSED,
            "running": EVENT.TOURNAMENT_EVENT_TYPE_RESUMED,
        }
        with self.store.transaction() as conn:
            row = self._load(conn, tournament_id, lock=True)
            if row.status not in allowed:
                raise FailedPrecondition(f"cannot {action}: the tournament is {row.status}")
            row.status = status
            row.status_reason = reason
            stop_clocks(row, _now())
            self.store.update_tournament(conn, row)
            self._action(conn, tournament_id, action, actor, reason)
            self._event(conn, tournament_id, kinds[status], round_no=row.current_round)
            message = self.snapshot(conn, row)
        self.changes.notify()
        return message

    def cancel(self, tournament_id: str, reason: str, actor: str) -> mm.Tournament:
        """Cancel: no more rounds; the open matches are dissolved (booked as such)."""
        reason = check_text("reason", reason, max_length=MAX_REASON_LENGTH, required=True)
        with self.store.transaction() as conn:
            row = self._load(conn, tournament_id, lock=True)
            if row.status in ("finished", "cancelled"):
                raise FailedPrecondition(f"the tournament is already {row.status}")
            row.status = "cancelled"
            row.status_reason = reason
            row.finished_at = _now()
            self.store.update_tournament(conn, row)
            self._action(conn, tournament_id, "cancel", actor, reason)
            self._event(conn, tournament_id, EVENT.TOURNAMENT_EVENT_TYPE_CANCELLED)
            live = [m for m in self.store.matches(conn, tournament_id) if not m.ended]
        for match in live:  # the director also retries what fails here
            self.dissolve_match(match, f"tournament cancelled: {reason}")
        self.changes.notify()
        return self.get(tournament_id)

    # -- players during the event --------------------------------------------------------------

    def remove_player(
        self, tournament_id: str, player_id: str, reason: str, actor: str
    ) -> mm.Tournament:
        """Remove a player: a filler bot takes its seat in the match being played; later
        rounds go on without it (the match counts as the tournament's setting says)."""
        reason = check_text("reason", reason, max_length=MAX_REASON_LENGTH, required=True)
        with self.store.transaction() as conn:
            row = self._load(conn, tournament_id, lock=True)
            if row.status not in ("registration", "running", "paused"):
                raise FailedPrecondition(f"the tournament is {row.status}")
            player = self._authorise_player(conn, tournament_id, player_id, "", operator=True)
            if player.removed:
                raise FailedPrecondition(f"player {player_id!r} was already removed")
            player.removed = True
            player.status, player.status_reason = "removed", reason
            policy, level = Settings(row.config).filler
            live = self._live_matches_of(conn, row, player_id)
            if live:
                player.replaced_by = f"bot:{policy}:{level}"
            self.store.update_player(conn, player)
            self.store.delete_planned(conn, tournament_id)
            self._action(conn, tournament_id, "remove", actor, reason, player_id)
            self._event(conn, tournament_id, EVENT.TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED)
        self._replace_leaving(row, live, player_id, "removed", f"removed: {reason}")
        self.changes.notify()
        return self.get(tournament_id)

    def replace_seat(
        self, match_id: str, seat: int, cause: str, counting: str, *, reason: str = ""
    ) -> None:
        """A filler bot plays ``seat`` of ``match_id`` from now on. For an absent person
        (``cause`` "absent") with the seat's token: the person may come back and take the
        seat by joining. For a player who left (removed, withdrawn) with a new token, given to
        the seat on the engine first (:meth:`revoke_seat`; the director retries it when the
        engine cannot be reached now), so the old token stops working at once."""
        with self.store.transaction() as conn:
            found = self.store.match(conn, match_id)
            if found is not None and found.tournament_id:  # lock order: the tournament first
                self._load(conn, found.tournament_id, lock=True)
            match = self.store.match(conn, match_id, lock=True)
            if match is None or match.ended:
                return
            earlier = match.replaced.get(str(seat))
            if earlier is not None and (cause == "absent" or "token" in earlier):
                return
            row = self.store.tournament(conn, match.tournament_id) if match.tournament_id else None
            policy, level = Settings(row.config).filler if row is not None else ("expert", 0)
            assignment = next(s for s in match.request.seats if s.seat == seat)
            entry = {
                "player_id": assignment.player_id,
                "by": f"bot:{policy}:{level}",
                "cause": cause,
                "counting": counting,
            }
            if cause != "absent":  # a new token, given to the seat on the engine next
                entry |= {
                    "token": secrets.token_urlsafe(24),
                    "revoked": False,
                    "reason": (reason or cause)[:MAX_REASON_LENGTH],
                }
            match.replaced[str(seat)] = entry
            self.store.update_match(conn, match)
            if match.tournament_id:  # watchers see the bot in the seat (played_by) at once
                players = {p.player_id: p for p in self.store.players(conn, match.tournament_id)}
                self._event(
                    conn,
                    match.tournament_id,
                    EVENT.TOURNAMENT_EVENT_TYPE_PROGRESS,
                    round_no=match.round_no,
                    tables=[table_message(match, players)],
                )
            if match.status == "opened" and cause == "absent":
                self.fleet.send(
                    match.match_id,
                    seat,
                    assignment.seat_token,
                    policy,
                    level,
                    bot_seed(match.match_id, seat),
                )
        metrics.REPLACEMENTS.labels(cause).inc()
        if match.status == "opened" and cause != "absent":
            try:
                self.revoke_seat(match_id, seat)
            except DomainError as error:  # the director tries again on its next follow
                log.warning("seat %d of %s not yet revoked: %s", seat, match_id, error.message)

    def revoke_seat(self, match_id: str, seat: int) -> None:
        """Give the seat its new token on the engine (TableService.ReplaceSeat: the old one
        stops working at once), mark it done, then queue the filler with the new token. A
        no-op once done."""
        with self.store.reading() as conn:
            match = self.store.match(conn, match_id)
            players = (
                {p.player_id: p for p in self.store.players(conn, match.tournament_id)}
                if match is not None and match.tournament_id
                else {}
            )
        entry = match.replaced.get(str(seat)) if match is not None else None
        if match is None or match.ended or not entry or entry.get("revoked", True):
            return
        self.table.replace_seat(
            match_id,
            seat,
            entry["token"],
            played_by=shown_played_by(match, seat, players),
            reason=entry.get("reason", ""),
        )
        with self.store.transaction() as conn:
            current = self.store.match(conn, match_id, lock=True)
            if current is None:  # forgotten meanwhile: its round was re-paired
                return
            current.replaced[str(seat)]["revoked"] = True
            self.store.update_match(conn, current)
        policy, level = entry["by"].split(":")[1:]
        self.fleet.send(
            match_id, seat, entry["token"], policy, int(level), bot_seed(match_id, seat)
        )

    # -- seating ---------------------------------------------------------------------------

    def seating(
        self, tournament_id: str, round_no: int, from_round: int = 0
    ) -> tuple[list[mm.RoundSeating], int]:
        """The seating of round ``round_no``, or (0) of the seated rounds from ``from_round``
        on, whole rounds up to SEATING_REPLY_BYTES (at least one); and the first round left
        out (0: none)."""
        check_int("round_no", round_no, lo=0, hi=10_000)
        check_int("from_round", from_round, lo=0, hi=10_000)
        with self.store.reading() as conn:
            self._load(conn, tournament_id)
            players = {p.player_id: p for p in self.store.players(conn, tournament_id)}
            rounds = [
                r
                for r in self.store.rounds(conn, tournament_id)
                if r.status != "planned"
                and (r.round_no == round_no if round_no else r.round_no >= from_round)
            ]
            if round_no and not rounds:
                raise NotFound(f"round {round_no} has not been seated")
            out: list[mm.RoundSeating] = []
            size = 0
            for r in rounds:
                seating = round_message(
                    r, self.store.matches(conn, tournament_id, r.round_no), players
                )
                size += seating.ByteSize()
                if out and size > SEATING_REPLY_BYTES:
                    return out, r.round_no
                out.append(seating)
            return out, 0

    # -- standings ---------------------------------------------------------------------------

    def _points(self, tournament_id: str) -> dict[str, float]:
        return {s.player_id: float(s.points) for s in self.ledger.standings(tournament_id)}

    def last_change(self, tournament_id: str) -> int:
        """The number of the tournament's last change (0: none, or no such tournament)."""
        check_id("tournament_id", tournament_id)
        with self.store.reading() as conn:
            return self.store.last_event_seq(conn, tournament_id)

    def standings(self, tournament_id: str, *, operator: bool) -> mm.GetStandingsResponse:
        """The ranking from the ledger's figures, with the tie-break chain (see
        :mod:`hebei.matchmaking.standings`). While rounds are hidden (see
        :mod:`hebei.matchmaking.hidden`), a player (not the operator) sees the standings of the
        last finished round before them."""
        with self.store.reading() as conn:
            row = self._load(conn, tournament_id)
            rounds = self.store.rounds(conn, tournament_id)
            players = self.store.players(conn, tournament_id)
            hidden_now = self.hidden_rounds(conn, row, rounds)
        finished = [r for r in rounds if r.status == "finished"]
        if hidden_now and not operator:
            shown = [r for r in finished if r.round_no not in hidden_now]
            if not shown or shown[-1].standings is None:
                return mm.GetStandingsResponse(round_no=0)
            return mm.GetStandingsResponse.FromString(shown[-1].standings)
        response = self.rank(row, players, self.ledger.standings(tournament_id))
        response.round_no = finished[-1].round_no if finished else 0
        return response

    @staticmethod
    def rank(
        row: TournamentRow, players: Sequence[PlayerRow], rows: Sequence[pb.Standing]
    ) -> mm.GetStandingsResponse:
        """Rank the ledger's ``rows``: active players by the chain, then the players who left
        (withdrawn, no-show, removed: by the chain among themselves, or unranked with rank 0
        when the tournament leaves them out), then fillers (never ranked)."""
        by_id = {s.player_id: s for s in rows}
        settings = Settings(row.config)
        response = mm.GetStandingsResponse(problems=[p for p in row.problems if "ledger" in p])
        response.mismatch = bool(response.problems)
        active = [p for p in players if not p.filler and p.active]
        inactive = [p for p in players if not p.filler and not p.active]
        groups = [(active, 0)]
        if inactive:
            groups.append((inactive, None if settings.inactive_left_out else len(active)))
        for group, offset in groups:
            ranked = rank_players(
                [_figures(p, by_id.get(p.player_id)) for p in group],
                settings.tie_breaks,
                row.config.seed,
            )
            known = {p.player_id: p for p in group}
            for entry in ranked:
                player = known[entry.figures.player_id]
                standing = _standing(player, by_id.get(player.player_id))
                standing.rank = 0 if offset is None else entry.rank + offset
                decided_by = entry.decided_by
                if offset and entry.rank == 1:
                    decided_by = "status"  # below every active player
                response.standings.append(standing)
                response.ranking.append(
                    mm.TournamentStanding(
                        standing=standing,
                        decided_by="" if offset is None else decided_by,
                        penalty_points=standing.penalty_points,
                        placement_points=standing.placement_points,
                        withdrawn=not player.active,
                        status=PLAYER_STATUSES[player.status],
                    )
                )
        for player in players:
            if player.filler and player.player_id in by_id:
                standing = _standing(player, by_id[player.player_id])
                standing.rank = 0
                response.ranking.append(
                    mm.TournamentStanding(
                        standing=standing, filler=True, status=mm.PLAYER_STATUS_ACTIVE
                    )
                )
        return response

    # -- penalties ---------------------------------------------------------------------------

    def assign_penalty(self, request: mm.AssignPenaltyRequest, actor: str) -> mm.Penalty:
        """A penalty booked in the ledger against the tournament's own account."""
        check_id("request_id", request.request_id, required=False)
        check_int("points", request.points, lo=-MAX_PENALTY, hi=MAX_PENALTY)
        if request.points == 0:
            raise InvalidArgument("points: 1 to 1,000,000 taken, or -1 to -1,000,000 awarded")
        reason = check_text("reason", request.reason, max_length=MAX_REASON_LENGTH, required=True)
        by = check_text(
            "assigned_by", request.assigned_by, max_length=MAX_NAME_LENGTH, required=True
        )
        penalty = PenaltyRow(
            _new_id("pen-"),
            request.tournament_id,
            request.player_id,
            request.points,
            reason,
            by,
            request_id=request.request_id or None,
        )
        with self.store.transaction() as conn:
            row = self._load(conn, request.tournament_id, lock=True)
            if row.status in ("registration", "cancelled"):
                raise FailedPrecondition(f"penalties are for a started tournament ({row.status})")
            self._authorise_player(
                conn, request.tournament_id, request.player_id, "", operator=True
            )
            earlier = self.store.insert_penalty(conn, penalty)
            if earlier is not None:
                if (earlier.player_id, earlier.points, earlier.reason) != (
                    penalty.player_id,
                    penalty.points,
                    penalty.reason,
                ):
                    raise AlreadyExists(
                        f"request_id {request.request_id!r} was used for another penalty"
                    )
                penalty = earlier
        if not penalty.entry_id:
            penalty.entry_id = self.ledger.post_adjustment(
                key=f"penalty:{penalty.penalty_id}",
                tournament_id=penalty.tournament_id,
                kind=ledger_pb2.ADJUSTMENT_KIND_PENALTY
                if penalty.points > 0
                else ledger_pb2.ADJUSTMENT_KIND_AWARD,
                lines=[
                    Line(penalty.player_id, -penalty.points),
                    Line(TOURNAMENT_ACCOUNT, penalty.points),
                ],
                reason=penalty.reason,
                assigned_by=penalty.assigned_by,
                round_no=row.current_round,
            )
            with self.store.transaction() as conn:
                self._load(conn, penalty.tournament_id, lock=True)
                self.store.update_penalty(conn, penalty)
                self._action(
                    conn,
                    penalty.tournament_id,
                    "penalty" if penalty.points > 0 else "award",
                    actor,
                    f"{abs(penalty.points)} points by {penalty.assigned_by}: {penalty.reason}",
                    penalty.player_id,
                )
        self.changes.notify()
        return penalty_message(self._penalty(penalty.tournament_id, penalty.penalty_id))

    def _penalty(self, tournament_id: str, penalty_id: str) -> PenaltyRow:
        with self.store.reading() as conn:
            found = [
                p for p in self.store.penalties(conn, tournament_id) if p.penalty_id == penalty_id
            ]
        if not found:
            raise NotFound(f"no penalty {penalty_id!r} in tournament {tournament_id!r}")
        return found[0]

    def cancel_penalty(self, request: mm.CancelPenaltyRequest, actor: str) -> mm.Penalty:
        check_id("tournament_id", request.tournament_id)
        check_id("penalty_id", request.penalty_id)
        reason = check_text("reason", request.reason, max_length=MAX_REASON_LENGTH, required=True)
        by = check_text("cancelled_by", request.cancelled_by, max_length=MAX_NAME_LENGTH)
        penalty = self._penalty(request.tournament_id, request.penalty_id)
        if penalty.cancelled:
            raise FailedPrecondition(f"penalty {penalty.penalty_id} is already cancelled")
        if penalty.entry_id:
            self.ledger.cancel_adjustment(
                penalty.entry_id, reason, key=f"cancel:penalty:{penalty.penalty_id}"
            )
        with self.store.transaction() as conn:
            self._load(conn, request.tournament_id, lock=True)
            penalty.cancelled = True
            penalty.cancel_reason = reason
            self.store.update_penalty(conn, penalty)
            self._action(
                conn,
                request.tournament_id,
                "cancel_penalty",
                by or actor,
                f"penalty {penalty.penalty_id} ({penalty.points} points): {reason}",
                penalty.player_id,
            )
        self.changes.notify()
        return penalty_message(penalty)

    # -- hidden results ------------------------------------------------------------------------

    def reveal(self, tournament_id: str, reason: str, actor: str) -> mm.Tournament:
        """RevealResults: the last rounds' hidden results are shown to everyone — on the
        engine and the ledger first, then recorded (so a failure leaves them hidden, and
        calling again completes it). A round in play under hide_round_results stays hidden
        until it is over."""
        reason = check_text("reason", reason, max_length=MAX_REASON_LENGTH)
        with self.store.reading() as conn:
            row = self._load(conn, tournament_id)
            rounds = self.store.rounds(conn, tournament_id)
            earlier = hidden.revealed(self.store.actions(conn, tournament_id))
        if row.status in ("registration",):
            raise FailedPrecondition("nothing to reveal: the tournament has not started")
        if not hidden.hides_results(row.config):
            raise FailedPrecondition("this tournament hides no results")
        still = hidden.hidden_rounds(row.config, rounds, True)
        self._publish(row, rounds, still)
        if not earlier:
            with self.store.transaction() as conn:
                self._load(conn, tournament_id, lock=True)
                shown = ", ".join(
                    str(r.round_no)
                    for r in rounds
                    if r.status != "planned" and r.round_no not in still
                )
                detail = f"results of rounds {shown or '-'} revealed" + (
                    f": {reason}" if reason else ""
                )
                self._action(conn, tournament_id, hidden.REVEAL, actor, detail)
            self.changes.notify()
        return self.get(tournament_id)

    def publish_closing_round(self, row: TournamentRow, round_no: int) -> None:
        """Before round ``round_no`` closes: once closed, is it public? Then the engine shows
        its matches' results; and once nothing of a tournament that ends with it is hidden,
        the ledger shows its results (idempotent: a failure is retried by the director)."""
        if not hidden.hides_results(row.config):
            return
        with self.store.reading() as conn:
            rounds = self.store.rounds(conn, row.tournament_id)
            still = self.hidden_rounds(conn, row, rounds, closing=round_no)
        self._publish(
            row,
            [r for r in rounds if r.round_no == round_no],
            still,
            last=round_no >= row.config.rounds,
        )

    def _publish(
        self,
        row: TournamentRow,
        rounds: Sequence[RoundRow],
        still: Sequence[int],
        *,
        last: bool | None = None,
    ) -> None:
        """Show the results of ``rounds`` not ``still`` hidden on the engine; and on the ledger
        when nothing is hidden any more and the tournament is over (``last``; default: it is
        finished, or has no round in play, or hides no round in play)."""
        for round_row in rounds:
            if round_row.status != "planned" and round_row.round_no not in still:
                self.table.reveal_results(row.tournament_id, round_row.round_no)
        if last is None:
            last = row.status in ("finished", "cancelled") or not row.config.hide_round_results
        if not still and last:
            self.ledger.set_results_hidden(row.tournament_id, False)

    def actions(self, tournament_id: str) -> mm.ListOperatorActionsResponse:
        with self.store.reading() as conn:
            self._load(conn, tournament_id)
            return mm.ListOperatorActionsResponse(
                actions=self.store.actions(conn, tournament_id),
                penalties=[penalty_message(p) for p in self.store.penalties(conn, tournament_id)],
                corrections=[c.message() for c in corrections.corrections(conn, tournament_id)],
            )

    # -- matches -------------------------------------------------------------------------------

    def dissolve_table(
        self, tournament_id: str, match_id: str, reason: str, actor: str
    ) -> mm.TableAssignment:
        reason = check_text("reason", reason, max_length=MAX_REASON_LENGTH, required=True)
        check_id("match_id", match_id)
        with self.store.transaction() as conn:
            self._load(conn, tournament_id, lock=True)
            match = self.store.match(conn, match_id)
            if match is None or match.tournament_id != tournament_id:
                raise NotFound(f"no match {match_id!r} in tournament {tournament_id!r}")
            if match.ended:
                raise FailedPrecondition(f"match {match_id} has already {match.status}")
            self._action(conn, tournament_id, "dissolve", actor, f"{match_id}: {reason}")
        self.dissolve_match(match, f"dissolved by the operator: {reason}")
        with self.store.reading() as conn:
            players = {p.player_id: p for p in self.store.players(conn, tournament_id)}
            return table_message(self.store.match(conn, match_id), players)

    def dissolve_match(
        self, match: MatchRow, reason: str, *, only_if_no_person_joined: bool = False
    ) -> None:
        """Dissolve a match on the engine (if opened) and record it as dissolved.
        ``only_if_no_person_joined``: only while the engine still waits for its seats and none
        of its people joined; else FailedPrecondition and nothing is recorded."""
        scores = [0, 0, 0, 0]
        hands = match.hands_played
        try:  # a pending match may be on the engine already (opened, not yet marked)
            info = self.table.dissolve(
                match.match_id, reason, only_if_no_person_joined=only_if_no_person_joined
            )
            scores = [s.score for s in sorted(info.seats, key=lambda s: s.seat)]
            hands = info.hands_played
        except NotFound:
            if match.status == "opened":
                raise
        self.record_result(match.match_id, "dissolved", scores, hands, reason)

    def record_result(
        self,
        match_id: str,
        status: str,
        scores: Sequence[int],
        hands_played: int,
        reason: str = "",
        ended_at: datetime | None = None,
    ) -> bool | None:
        """A match ended; return True when it was already recorded, None when unknown."""
        with self.store.transaction() as conn:
            found = self.store.match(conn, match_id)
            if found is None:
                metrics.MATCH_RESULTS.labels("unknown").inc()
                return None
            if found.tournament_id:
                self._load(conn, found.tournament_id, lock=True)  # lock order: tournament first
            match = self.store.match(conn, match_id, lock=True)
            if match is None:  # forgotten meanwhile: its round was re-paired
                metrics.MATCH_RESULTS.labels("unknown").inc()
                return None
            if match.ended:
                metrics.MATCH_RESULTS.labels("duplicate").inc()
                return True
            match.status = status
            match.scores = [int(s) for s in scores]
            match.hands_played = hands_played
            match.reason = reason
            match.ended_at = ended_at or _now()
            self.store.update_match(conn, match)
            if match.tournament_id:
                players = {p.player_id: p for p in self.store.players(conn, match.tournament_id)}
                self._event(
                    conn,
                    match.tournament_id,
                    EVENT.TOURNAMENT_EVENT_TYPE_MATCH_FINISHED,
                    round_no=match.round_no,
                    tables=[table_message(match, players)],
                )
        metrics.MATCH_RESULTS.labels("recorded").inc()
        how = "stalled" if reason.startswith("stalled") else status
        metrics.MATCHES_ENDED.labels(how).inc()
        if status == "dissolved":
            metrics.MATCHES_DISSOLVED.labels(metrics.dissolved_reason(reason)).inc()
        if how == "finished":
            metrics.LAST_MATCH_FINISHED.set_to_current_time()
            if match.opened_at is not None:
                seconds = (match.ended_at - match.opened_at).total_seconds()
                metrics.MATCH_SECONDS.observe(max(0.0, seconds))
        self.changes.notify()
        return False

    def report(self, request: mm.ReportMatchResultRequest) -> bool:
        """The table engine's report of an ended match (idempotent by match_id)."""
        check_id("match_id", request.match_id)
        statuses = {pb.MATCH_STATUS_FINISHED: "finished", pb.MATCH_STATUS_DISSOLVED: "dissolved"}
        if request.status not in statuses:
            raise InvalidArgument("status must be MATCH_STATUS_FINISHED or MATCH_STATUS_DISSOLVED")
        if sorted(s.seat for s in request.seats) != [0, 1, 2, 3]:
            raise InvalidArgument("seats: four results, one per seat 0-3")
        reason = check_text("reason", request.reason, max_length=MAX_REASON_LENGTH)
        check_int("hands_played", request.hands_played, lo=0, hi=10_000)
        scores = [s.score for s in sorted(request.seats, key=lambda s: s.seat)]
        for index, score in enumerate(scores):
            check_int(f"seats[{index}].score", score, lo=-MAX_SCORE, hi=MAX_SCORE)
        if sum(scores) != 0:
            raise InvalidArgument(f"seats: the scores must sum to zero, they sum to {sum(scores)}")
        ended = None
        if request.HasField("ended_at"):
            try:  # out-of-range seconds or nanos: ValueError (an INTERNAL if left alone)
                ended = request.ended_at.ToDatetime(tzinfo=UTC)
            except (ValueError, OverflowError):
                raise InvalidArgument(
                    "ended_at: not a valid timestamp (seconds within years 1-9999, nanos "
                    "0-999999999)"
                ) from None
        reported = [s.player_id for s in sorted(request.seats, key=lambda s: s.seat)]
        with self.store.reading() as conn:
            known = self.store.match(conn, request.match_id)
        if known is not None and reported != known.player_ids():
            raise InvalidArgument(f"seats: not the players of match {request.match_id}")
        duplicate = self.record_result(
            request.match_id, statuses[request.status], scores, request.hands_played, reason, ended
        )
        if duplicate is None:
            log.warning("result of unknown match %s ignored", request.match_id[:64])
        return bool(duplicate)

    # -- watching ------------------------------------------------------------------------------

    def watch(
        self,
        request: mm.WatchTournamentRequest,
        active,
        *,
        operator: bool,
        poll_seconds: float = 1.0,
    ) -> Iterator[mm.WatchTournamentResponse]:
        """The tournament's changes: a snapshot (or the feed from ``from_seq``), then each
        change as it commits, until the tournament ends or ``active()`` turns false."""
        with self.store.reading() as conn:
            row = self._load(conn, request.tournament_id)
            person = None
            if request.player_id or request.player_secret:
                person = self._authorise_player(
                    conn,
                    row.tournament_id,
                    request.player_id,
                    request.player_secret,
                    operator=False,
                )
            last = self.store.last_event_seq(conn, row.tournament_id)
        if request.from_seq:
            last = min(last, request.from_seq - 1)
        else:
            snapshot = mm.WatchTournamentResponse(
                type=EVENT.TOURNAMENT_EVENT_TYPE_SNAPSHOT, seq=last, round_no=row.current_round
            )
            snapshot.standings.extend(
                self.standings(row.tournament_id, operator=operator).standings
            )
            with self.store.reading() as conn:
                snapshot.tournament.CopyFrom(self.snapshot(conn, row))
            self._fill_seating(snapshot, person)
            yield snapshot
            if row.status in ("finished", "cancelled"):
                return
        seen = self.changes.version
        ending = (EVENT.TOURNAMENT_EVENT_TYPE_FINISHED, EVENT.TOURNAMENT_EVENT_TYPE_CANCELLED)
        while active():
            with self.store.reading() as conn:
                events = self.store.events_after(conn, row.tournament_id, last)
                current = (
                    self.snapshot(conn, self._load(conn, row.tournament_id)) if events else None
                )
            public = None
            for event in events:
                event.tournament.CopyFrom(current)
                if event.standings and current.hidden_rounds and not operator:
                    if public is None:  # what a player may see of the standings now
                        public = self.standings(row.tournament_id, operator=False).standings
                    del event.standings[:]
                    event.standings.extend(public)
                if event.type == EVENT.TOURNAMENT_EVENT_TYPE_TABLE_OPENED:
                    self._fill_seating(event, person)
                last = event.seq
                yield event
                if event.type in ending:
                    return
            if not events:
                seen = self.changes.wait(seen, poll_seconds)

    def _fill_seating(self, event: mm.WatchTournamentResponse, person: PlayerRow | None) -> None:
        """Tell a person its seat (and token) in a match the engine holds: on a SNAPSHOT, in
        the current round's opened matches; on TABLE_OPENED, in the event's tables. Never a
        match not yet opened or ended, nor a seat taken from the person (a new token)."""
        if person is None or not event.tournament.current_round:
            return
        wanted = {t.match_id for t in event.tables}
        with self.store.reading() as conn:
            matches = self.store.matches(
                conn, person.tournament_id, event.round_no or event.tournament.current_round
            )
        for match in matches:
            if match.status != "opened" or (wanted and match.match_id not in wanted):
                continue
            for seat in match.request.seats:
                if seat.player_id != person.player_id:
                    continue
                if "token" in match.replaced.get(str(seat.seat), {}):
                    continue  # revoked: a bot plays it with a new token
                event.my_seating.CopyFrom(
                    mm.Seating(
                        table_id=match.table_id,
                        match_id=match.match_id,
                        seat=seat.seat,
                        seat_token=seat.seat_token,
                        table_endpoint=self.table_endpoint,
                        round_no=match.round_no,
                    )
                )
                return

    # -- bots for other clients ------------------------------------------------------------------

    def request_bots(self, request: mm.RequestBotsRequest) -> int:
        """Queue a seat task per seat of a match opened on the engine by another client."""
        check_id("match_id", request.match_id)
        if not 1 <= len(request.seats) <= 4:
            raise InvalidArgument(f"seats: 1-4 seats, got {len(request.seats)}")
        if len({s.seat for s in request.seats}) != len(request.seats):
            raise InvalidArgument("seats: a seat is listed twice")
        checked = []
        for index, seat in enumerate(request.seats):
            check_int(f"seats[{index}].seat", seat.seat, lo=0, hi=3)
            if not 16 <= len(seat.seat_token) <= 256:
                raise InvalidArgument(f"seats[{index}].seat_token must be 16-256 characters")
            check_text(f"seats[{index}].seat_token", seat.seat_token, max_length=256)
            policy, level = check_policy(f"seats[{index}]", seat.policy, seat.level)
            checked.append((seat.seat, seat.seat_token, policy, level))
        self.table.get_match(request.match_id)  # NOT_FOUND for a match the engine lacks
        for seat, token, policy, level in checked:
            self.fleet.send(
                request.match_id, seat, token, policy, level, bot_seed(request.match_id, seat)
            )
        return len(checked)

    # -- ratings -------------------------------------------------------------------------------

    def ratings(self, request: mm.GetRatingsRequest) -> mm.GetRatingsResponse:
        from hebei.matchmaking.ratings import Rating

        size = request.page_size or 50
        check_int("page_size", size, lo=1, hi=500)
        if len(request.rating_ids) > 500:
            raise InvalidArgument("rating_ids: at most 500")
        for rating_id in request.rating_ids:
            check_text("rating_ids", rating_id, max_length=MAX_NAME_LENGTH + 16, required=True)
        offset = 0
        if request.page_token:
            token = request.page_token
            # at most 18 digits: the offset must fit PostgreSQL's bigint
            if not (token.isascii() and token.isdigit() and len(token) <= 18):
                raise InvalidArgument("page_token: not a token from this service")
            offset = int(token)
        with self.store.reading() as conn:
            rows = self.store.ratings_page(conn, list(request.rating_ids), offset, size + 1)
        response = mm.GetRatingsResponse()
        for index, row in enumerate(rows[:size]):
            rating = Rating(row.mu, row.sigma, row.matches)
            response.ratings.append(
                mm.Rating(
                    rating_id=row.rating_id,
                    name=row.name,
                    mu=row.mu,
                    sigma=row.sigma,
                    ordinal=rating.ordinal,
                    matches=row.matches,
                    rank=offset + index + 1,
                )
            )
        if len(rows) > size:
            response.next_page_token = str(offset + size)
        return response


def stop_clocks(row: TournamentRow, now: datetime) -> None:
    """A pause stops the tournament's clocks (the end of a break, a round's time limit);
    resuming moves them on by the time it was paused. ``row.status`` is the new status."""
    if row.status == "paused":
        row.paused_at = now
    elif row.paused_at is not None:
        paused = now - row.paused_at
        if row.next_round_at is not None:
            row.next_round_at += paused
        if row.round_ends_at is not None:
            row.round_ends_at += paused
        row.paused_at = None


def _figures(player: PlayerRow, row: pb.Standing | None) -> Figures:
    """A player's figures for the ranking (zeros before its first booked hand)."""
    row = row or pb.Standing()
    return Figures(
        player.player_id,
        points=row.points,
        hands_won=row.hands_won,
        self_draw_wins=row.self_draw_wins,
        hands_dealt_in=row.hands_dealt_in,
        best_match_points=row.best_match_points,
    )


def _standing(player: PlayerRow, row: pb.Standing | None) -> pb.Standing:
    standing = pb.Standing()
    if row is not None:
        standing.CopyFrom(row)
    standing.player_id = player.player_id
    standing.player_name = player.name
    return standing
