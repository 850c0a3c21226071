"""``hebei tournament create|register|start|status|standings|watch|ratings|penalty|award|repair|
correct|undo|reveal|dissolve|export|pause|resume|cancel|remove|preview|swap|actions|join``: run
a tournament on a matchmaking service.

The service is found from ``--address``/``--token``, else ``$HEBEI_MATCHMAKING_ADDRESS`` /
``$HEBEI_OPERATOR_TOKEN``, else the stack ``hebei up`` runs (its discovery file). The work is
the service's; this parses, calls and prints (rich tables and progress bars, or ``--json``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import typer
from google.protobuf import json_format
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hebei.cli._util import check_range, fail
from hebei.cli.tournament import tournament_app
from hebei.common.auth import actor_metadata, is_metadata_text

DEFAULT_ADDRESS = "127.0.0.1:50052"
ADDRESS_HELP = "Matchmaking HOST:PORT (default: $HEBEI_MATCHMAKING_ADDRESS, else `hebei up`'s)."
TOKEN_HELP = "The operator token (default: $HEBEI_OPERATOR_TOKEN, else `hebei up`'s)."
MODES = ("swiss", "random", "schedule", "duplicate")
ENDED = (3, 4)  # MATCH_STATUS_FINISHED, MATCH_STATUS_DISSOLVED
TIE_BREAKS = ("hands_won", "best_match", "fewer_dealt_in", "self_draws", "seed_draw")
INACTIVE = ("ranked-last", "left-out")


@dataclass
class Connection:
    """A channel to matchmaking with the operator token, and the stub."""

    address: str
    token: str | None
    channel: grpc.Channel
    stub: Any

    def call(self, method: str, request: Any, *, actor: str | None = None) -> Any:
        """A unary call; a failure exits with the service's one-line message."""
        metadata = actor_metadata(actor) if actor else None
        try:
            return getattr(self.stub, method)(request, metadata=metadata)
        except grpc.RpcError as error:
            fail(_rpc_message(error, self.address), code=1)


def _rpc_message(error: grpc.RpcError, address: str) -> str:
    code = error.code() if hasattr(error, "code") else None
    details = (error.details() if hasattr(error, "details") else "") or ""
    if code == grpc.StatusCode.UNAVAILABLE:
        return f"matchmaking at {address} is unreachable ({details.splitlines()[0] if details else 'unavailable'}); is `hebei up` running?"
    name = code.name if code is not None else "ERROR"
    return f"{name}: {details}"


def connect(address: str | None, token: str | None) -> Connection:
    """Resolve where matchmaking is and with which token (see the module docstring)."""
    from hebei.common.client import create_channel
    from hebei.v1 import matchmaking_pb2_grpc

    found = None
    if not address or not token:
        try:
            from hebei.stack.discovery import find_stack

            found = find_stack()
        except ImportError:
            found = None
    address = (
        address
        or os.environ.get("HEBEI_MATCHMAKING_ADDRESS")
        or (found.addresses.get("matchmaking") if found else None)
        or DEFAULT_ADDRESS
    )
    if ":" not in address:
        fail(f"--address must be HOST:PORT, got {address!r}")
    token = (
        token or os.environ.get("HEBEI_OPERATOR_TOKEN") or (found.operator_token if found else None)
    )
    if token is not None and not is_metadata_text(token):
        fail("the operator token (--token or $HEBEI_OPERATOR_TOKEN) must be printable ASCII")
    channel = create_channel(address, token=token, timeout=30.0)
    return Connection(address, token, channel, matchmaking_pb2_grpc.MatchmakingServiceStub(channel))


def _print_json(message: Any) -> None:
    print(json.dumps(json_format.MessageToDict(message, preserving_proto_field_name=True)))


# ---------------------------------------------------------------------------- rendering


def standings_table(response: Any, title: str) -> Table:
    """The ranking with the tie-break that decided each place, matches played, penalties,
    awards and corrections; a player who is not active has the status after the name
    ("Mei (withdrawn)", "(filler)")."""
    from hebei.common.exports import player_status

    table = Table(title=title)
    left = ("player", "decided by")
    columns = ("rank", "player", "points", "matches", "won", "dealt in", "best match",
               "penalties", "awards", "corrections", "decided by")  # fmt: skip
    names = []
    for row in response.ranking or []:
        status = player_status(row)
        name = row.standing.player_name or row.standing.player_id
        names.append(name + ("" if status == "active" else f" ({status})"))
    for column in columns:
        widths = {"min_width": max(map(len, names), default=6), "no_wrap": True}
        table.add_column(
            column,
            justify="left" if column in left else "right",
            **(widths if column == "player" else {}),
        )
    for name, row in zip(names, response.ranking or [], strict=True):
        s = row.standing
        table.add_row(
            str(s.rank) if s.rank else "–",
            name,
            str(s.points),
            str(s.matches_played),
            str(s.hands_won),
            str(s.hands_dealt_in),
            str(s.best_match_points),
            str(s.penalty_points),
            str(s.award_points),
            str(s.correction_points),
            row.decided_by or "",
        )
    return table


def _when(stamp: Any) -> str:
    return stamp.ToDatetime(tzinfo=UTC).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


def schedule_lines(tournament: Any) -> list[str]:
    """The tournament's clocks as lines: the scheduled start or next round, a round's time
    limit, the check-in window, the break and the per-decision time."""
    config = tournament.config
    lines = []
    if tournament.HasField("next_round_at"):
        what = "starts" if not tournament.current_round else "next round seated"
        lines.append(f"{what} at {_when(tournament.next_round_at)}")
    if tournament.HasField("round_ends_at"):
        lines.append(f"round {tournament.current_round} ends at {_when(tournament.round_ends_at)}"
                     " (after the hand in progress)")  # fmt: skip
    if tournament.HasField("check_in_opens_at"):
        closes = (
            _when(tournament.check_in_closes_at)
            if tournament.HasField("check_in_closes_at")
            else "the start"
        )
        lines.append(f"check-in from {_when(tournament.check_in_opens_at)} to {closes}")
    for name, label in (("round_break", "break between rounds"),
                        ("round_time_limit", "round time limit")):  # fmt: skip
        if config.HasField(name):
            lines.append(f"{label}: {_shown(getattr(config, name).ToTimedelta().total_seconds())}")
    control = config.time_control
    if control.HasField("per_decision") and control.per_decision.ToNanoseconds():
        bank = control.time_bank.ToTimedelta().total_seconds()
        lines.append(
            f"each decision: {_shown(control.per_decision.ToTimedelta().total_seconds())}"
            + (f", time bank {_shown(bank)}" if bank else "")
        )
    if config.no_show_limit:
        lines.append(f"a person missing {config.no_show_limit} rounds is a no-show")
    return lines


def players_table(tournament: Any) -> Table:
    """Every registered player (no fillers) with its status, missed rounds, check-in."""
    from hebei.v1 import types_pb2 as pb

    table = Table(title="players")
    for column in ("player", "id", "kind", "status", "missed rounds", "checked in"):
        table.add_column(column)
    checking = tournament.HasField("check_in_opens_at")
    for player in tournament.players:
        if player.filler:
            continue
        kind = "person" if player.kind == pb.SEAT_KIND_PERSON else "bot"
        table.add_row(
            player.name, player.player_id, kind, player_status(player),
            ", ".join(str(r) for r in player.missed_rounds),
            ("yes" if player.checked_in else "no") if checking and kind == "person" else "",
        )  # fmt: skip
    return table


def quality_table(rounds: list[Any], title: str = "seating quality by round") -> Table:
    """Per round: repeat pairs, pairs that met the round before too, the most meetings of a
    pair, the widest spread of a player's seat winds, the standings spread at a table."""
    table = Table(
        title=title,
        caption="repeats: pairs that met before; in a row: also the "
        "round before; spread: points between a table's first and last (swiss)",
    )
    for column in ("round", "tables", "repeats", "in a row", "most met", "winds", "spread",
                   "secs"):  # fmt: skip
        table.add_column(column, justify="right")
    for r in rounds:
        q = r.quality
        table.add_row(
            str(r.round_no),
            str(len(r.tables)) if r.tables else "",
            str(q.repeat_pairs),
            str(q.consecutive_repeats),
            str(q.max_pair_meetings),
            str(q.wind_spread),
            f"{q.standings_spread:.1f}",
            f"{q.seconds:.3f}" + (" (deadline)" if q.deadline_hit else ""),
        )
    return table


def tables_table(tables: list[Any], title: str) -> Table:
    """A round's tables: full names (folded, never cut) and the status in words ("planned"
    for a table not yet opened)."""
    from hebei.common.exports import WINDS, match_status

    table = Table(title=title)
    for column in ("table", *WINDS, "hands", "status"):
        table.add_column(column, overflow="fold", min_width=len(column))
    for t in tables:
        names = [s.player_name or s.player_id for s in sorted(t.seats, key=lambda s: s.seat)]
        table.add_row(t.table_id or t.match_id, *names, str(t.hands_played), match_status(t.status))
    return table


def follow(
    conn: Connection,
    tournament_id: str,
    console: Console,
    *,
    hands_per_match: int,
    on_event: Callable[[Any], None] | None = None,
) -> Any:
    """Watch a tournament with progress bars (rounds, hands of the round) until it ends;
    return the last event (FINISHED or CANCELLED)."""
    from hebei.v1 import matchmaking_pb2 as mm

    kinds = mm.TournamentEventType
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    stream = conn.stub.WatchTournament(mm.WatchTournamentRequest(tournament_id=tournament_id))
    last = None
    with Progress(*columns, console=console, transient=False) as progress:
        rounds_task = None
        round_tasks: list[Any] = []  # the current round's tables and hands bars
        played: dict[str, int] = {}
        ended: set[str] = set()
        seated = (kinds.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, kinds.TOURNAMENT_EVENT_TYPE_SNAPSHOT)
        try:
            for event in stream:
                last = event
                tournament = event.tournament
                if rounds_task is None:
                    rounds_task = progress.add_task("rounds", total=tournament.config.rounds)
                finished_rounds = sum(1 for r in tournament.rounds if r.finished)
                progress.update(rounds_task, completed=finished_rounds)
                if event.type in seated and tournament.tables:
                    for task in round_tasks:
                        progress.update(task, visible=False)
                    played = {t.match_id: t.hands_played for t in tournament.tables}
                    ended = {t.match_id for t in tournament.tables if t.status in ENDED}
                    round_no = tournament.current_round
                    round_tasks = [
                        progress.add_task(f"round {round_no}: tables", total=len(played)),
                        progress.add_task(
                            f"round {round_no}: hands", total=len(played) * hands_per_match
                        ),
                    ]
                for table in event.tables:
                    if table.match_id in played:
                        played[table.match_id] = max(played[table.match_id], table.hands_played)
                        if table.status in ENDED:
                            ended.add(table.match_id)
                if round_tasks:
                    progress.update(round_tasks[0], completed=len(ended))
                    progress.update(round_tasks[1], completed=sum(played.values()))
                if on_event is not None:
                    on_event(event)
                if event.type in (
                    kinds.TOURNAMENT_EVENT_TYPE_FINISHED,
                    kinds.TOURNAMENT_EVENT_TYPE_CANCELLED,
                ):
                    break
        except grpc.RpcError as error:
            fail(_rpc_message(error, conn.address), code=1)
    return last


# ---------------------------------------------------------------------------- commands


def _common(address: str | None, token: str | None) -> Connection:
    return connect(address, token)


AddressOption = typer.Option(None, "--address", help=ADDRESS_HELP)
TokenOption = typer.Option(None, "--token", help=TOKEN_HELP)
ActorOption = typer.Option("operator", "--as", help="Your name in the operator record.")
JsonOption = typer.Option(False, "--json", help="Print JSON instead of tables.")
RegistrationCodeOption = typer.Option(
    "",
    "--registration-code",
    help="The tournament's registration code, up to 64 printable characters without spaces"
    " (create: Register needs it; register: a tournament created with one).",
)


NewRegistrationCodeOption = typer.Option(
    "",
    "--registration-code",
    help="Register then needs this code (without the operator token): 8-64 printable"
    " characters without spaces, or `auto` for a strong one, printed on stderr (never shown"
    " again).",
)


def _check_registration_code(code: str, *, new: bool = False) -> str:
    from hebei.common.errors import InvalidArgument
    from hebei.matchmaking.settings import check_registration_code

    try:
        return check_registration_code("--registration-code", code, new=new)
    except InvalidArgument as exc:
        fail(str(exc))


def _new_registration_code(code: str) -> str:
    """``--registration-code`` of create: ``auto`` makes a strong code and prints it on stderr
    (stdout keeps the tournament id alone); another is checked (at least 8 characters)."""
    if code != "auto":
        return _check_registration_code(code, new=True)
    import sys

    from hebei.matchmaking.registration import new_registration_code

    code = new_registration_code()
    print(f"registration code: {code}", file=sys.stderr)
    return code


def _parse_policy(spec: str) -> tuple[str, int]:
    from hebei.bots.policies import parse_policy

    try:
        name, level = parse_policy(spec)
    except ValueError as exc:
        fail(str(exc))
    return name, level or 0


DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(option: str, text: str, low: float, high: float) -> float:
    """Seconds from ``90s``, ``15m``, ``2h`` or plain seconds; one line and exit 2 unless
    ``low`` to ``high`` seconds."""
    value = text.strip().lower()
    unit = DURATION_UNITS.get(value[-1:]) if value else None
    number = value[:-1] if unit else value
    try:
        seconds = float(number) * (unit or 1)
    except ValueError:
        fail(f"{option} must be a duration like 90s, 15m or 2h, got {text!r:.40}")
    if not low <= seconds <= high:  # also refuses nan
        fail(f"{option} must be {_shown(low)} to {_shown(high)}, got {text!r:.40}")
    return seconds


def _shown(seconds: float) -> str:
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"


def parse_start_at(text: str, now: datetime) -> datetime:
    """When ``--start-at`` says: ``+10m`` (from ``now``) or an ISO time (a time without a
    zone is local); one line and exit 2 for anything else."""
    from hebei.matchmaking.settings import MAX_SCHEDULE_DAYS

    limit = MAX_SCHEDULE_DAYS * 86400.0
    if text.startswith("+"):
        return now + timedelta(seconds=parse_duration("--start-at", text[1:], 1, limit))
    try:
        at = datetime.fromisoformat(text)
        at = at.astimezone(UTC) if at.tzinfo else at.astimezone().astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        fail(f"--start-at must be an ISO time (2026-12-24T18:00) or +10m, got {text!r:.40}")
    if not now < at <= now + timedelta(seconds=limit):
        fail(f"--start-at must be in the next {MAX_SCHEDULE_DAYS} days, got {text!r:.40}")
    return at


def schedule_config(config: Any, options: dict[str, str], no_show_limit: int, inactive: str):
    """The schedule and people's options of ``create`` into ``config`` (see its help)."""
    from hebei.matchmaking.settings import (
        MAX_NO_SHOW_LIMIT,
        MAX_PER_DECISION_SECONDS,
        MAX_TIME_BANK_SECONDS,
    )
    from hebei.v1 import matchmaking_pb2 as mm

    day = 86400.0
    bounds = {
        "check_in_window": ("--check-in", 60, day),
        "round_break": ("--break", 0, day),
        "round_time_limit": ("--round-time-limit", 60, day),
        "stall_timeout": ("--stall-timeout", 10, day),
        "replace_absent_after": ("--replace-absent-after", 0, 3600),
    }
    for name, (option, low, high) in bounds.items():
        if options.get(name):
            seconds = parse_duration(option, options[name], low, high)
            getattr(config, name).FromNanoseconds(round(seconds * 1e9))
    if options.get("start_at"):
        config.scheduled_start.FromDatetime(parse_start_at(options["start_at"], datetime.now(UTC)))
    control = config.time_control
    if options.get("move_seconds"):
        per = parse_duration("--move-seconds", options["move_seconds"], 0.1,
                             MAX_PER_DECISION_SECONDS)  # fmt: skip
        control.per_decision.FromNanoseconds(round(per * 1e9))
    if options.get("time_bank"):
        if not options.get("move_seconds"):
            fail("--time-bank needs --move-seconds (the time each decision has first)")
        bank = parse_duration("--time-bank", options["time_bank"], 0, MAX_TIME_BANK_SECONDS)
        control.time_bank.FromNanoseconds(round(bank * 1e9))
    if no_show_limit:
        check_range("--no-show-limit", no_show_limit, 1, MAX_NO_SHOW_LIMIT)
        config.no_show_limit = no_show_limit
    if inactive not in INACTIVE:
        fail(f"--inactive must be one of {', '.join(INACTIVE)}, got {inactive!r:.40}")
    config.inactive_players = mm.InactivePlayers.Value(
        f"INACTIVE_PLAYERS_{inactive.replace('-', '_').upper()}"
    )


@tournament_app.command("create")
def create_command(
    name: str = typer.Option(..., "--name", help="The tournament's name (1-64 characters)."),
    rounds: int = typer.Option(4, "--rounds", help="Rounds, 1-64."),
    hands: int = typer.Option(8, "--hands", help="Hands per match, 1-64."),
    wind_round: int = typer.Option(
        0,
        "--wind-round",
        help="A match is one wind round instead, capped at this many hands, 1-64 (0: --hands).",
    ),
    mode: str = typer.Option(
        "swiss", "--mode", help="Seating: swiss, random, schedule, duplicate."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the seating (0: drawn), 0-2^64-1."),
    filler: str = typer.Option("expert", "--filler", help="Filler bots, POLICY[:LEVEL]."),
    max_players: int = typer.Option(
        0,
        "--max-players",
        help="At most this many, 0-4096 (0: 256 registering themselves, 4096 by the operator).",
    ),
    late: int = typer.Option(
        0, "--late-until", help="Late registration until this round, 0-64 (0: none)."
    ),
    placement: str = typer.Option("", "--placement", help="Placement points, e.g. 15,5,-5,-15."),
    fixed: int | None = typer.Option(
        None,
        "--fixed-replacement",
        help="A replaced player's match counts these points, ±1,000,000.",
    ),
    hide: bool = typer.Option(False, "--hide-results", help="Hide round results until it ends."),
    hide_last: int = typer.Option(
        0,
        "--hide-last-rounds",
        help="Hide the last N rounds' results from all but the operator until `reveal`.",
    ),
    stall_timeout: str = typer.Option(
        "", "--stall-timeout", help="Dissolve a match with no event this long, 10s-24h (10m)."
    ),
    replace_absent: str = typer.Option(
        "",
        "--replace-absent-after",
        help="A filler bot plays an absent person's seat after this long, 0s-1h (30s).",
    ),
    tie_breaks: str = typer.Option(
        "", "--tie-breaks", help=f"Comma list of {', '.join(TIE_BREAKS)}."
    ),
    profile: str = typer.Option("main", "--profile", help="Rule profile: main or classic."),
    claim_window: float = typer.Option(
        0.0,
        "--claim-window",
        help="Seconds, 0-5, that every discard waits before the game goes on, so that how soon"
        " it goes on never tells whether a seat could claim (about 1 with people, 0.05 for"
        " bots; 0: none).",
    ),
    start_at: str = typer.Option(
        "", "--start-at", help="Start by itself at this ISO time, or in +10m (≤ 366 days)."
    ),
    check_in: str = typer.Option(
        "", "--check-in", help="People check in during this window before the start, 1m-24h."
    ),
    round_break: str = typer.Option(
        "", "--break", help="Break between rounds, 0s-24h (e.g. 2m; none without)."
    ),
    round_time_limit: str = typer.Option(
        "",
        "--round-time-limit",
        help="A round's time limit from its seating, 1m-24h: then its matches end after the"
        " hand in progress.",
    ),
    no_show_limit: int = typer.Option(
        0, "--no-show-limit", help="Rounds a person may miss before a no-show, 1-64 (0: 2)."
    ),
    inactive: str = typer.Option(
        "ranked-last",
        "--inactive",
        help="Withdrawn, no-show and removed players: ranked-last or left-out.",
    ),
    move_seconds: str = typer.Option(
        "", "--move-seconds", help="Time for each decision, 0.1s-300s (default: the engine's)."
    ),
    time_bank: str = typer.Option(
        "", "--time-bank", help="A bank of extra time for each seat, 0s-1h (with --move-seconds)."
    ),
    request_id: str = typer.Option("", "--request-id", help="Makes the call idempotent."),
    registration_code: str = NewRegistrationCodeOption,
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Create a tournament, open for registration; prints its id."""
    from hebei.common.validation import MAX_SEED
    from hebei.matchmaking.settings import (
        MAX_CLAIM_WINDOW_SECONDS,
        MAX_HANDS,
        MAX_PLAYERS,
        MAX_POINTS,
        MAX_ROUNDS,
    )
    from hebei.v1 import matchmaking_pb2 as mm

    if mode not in MODES:
        fail(f"--mode must be one of {', '.join(MODES)}, got {mode!r}")
    # The service checks each against the others too; these keep a value inside its field.
    check_range("--rounds", rounds, 1, MAX_ROUNDS)
    check_range("--hands", hands, 1, MAX_HANDS)
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--max-players", max_players, 0, MAX_PLAYERS)
    check_range("--late-until", late, 0, MAX_ROUNDS)
    check_range("--hide-last-rounds", hide_last, 0, rounds)
    if not 0 <= claim_window <= MAX_CLAIM_WINDOW_SECONDS:  # also refuses nan
        fail(f"--claim-window must be 0-{MAX_CLAIM_WINDOW_SECONDS:g} seconds, got {claim_window:g}")
    if fixed is not None:
        check_range("--fixed-replacement", fixed, -MAX_POINTS, MAX_POINTS)
    policy, level = _parse_policy(filler)
    config = mm.TournamentConfig(
        name=name, rounds=rounds, seed=seed, filler_bot_policy=policy, filler_bot_level=level,
        max_players=max_players, last_registration_round=late, hide_round_results=hide,
        hide_last_rounds=hide_last,
        seating=mm.SeatingMode.Value(f"SEATING_MODE_{mode.upper()}"),
        registration_code=_new_registration_code(registration_code),
    )  # fmt: skip
    if wind_round:
        check_range("--wind-round", wind_round, 1, MAX_HANDS)
        config.length.wind_rounds.rounds = 1
        config.length.wind_rounds.max_hands = wind_round
    else:
        config.length.hands = hands
    config.rule_profile.name = profile  # the service refuses an unknown one, naming the known
    if claim_window:
        config.time_control.claim_window.FromNanoseconds(round(claim_window * 1e9))
    if placement:
        try:
            points = [int(x) for x in placement.split(",")]
        except ValueError:
            fail(f"--placement must be four integers like 15,5,-5,-15, got {placement!r}")
        for value in points:
            check_range("--placement", value, -MAX_POINTS, MAX_POINTS)
        config.placement_points.extend(points)
    if fixed is not None:
        config.replaced_match = mm.REPLACED_MATCH_COUNTING_FIXED
        config.replaced_match_points = fixed
    schedule = {
        "start_at": start_at, "check_in_window": check_in, "round_break": round_break,
        "round_time_limit": round_time_limit, "move_seconds": move_seconds,
        "time_bank": time_bank, "stall_timeout": stall_timeout,
        "replace_absent_after": replace_absent,
    }  # fmt: skip
    schedule_config(config, schedule, no_show_limit, inactive)
    for item in filter(None, (t.strip() for t in tie_breaks.split(","))):
        if item not in TIE_BREAKS:
            fail(f"--tie-breaks: unknown {item!r}; choose from {', '.join(TIE_BREAKS)}")
        config.tie_breaks.append(mm.TieBreak.Value(f"TIE_BREAK_{item.upper()}"))
    conn = _common(address, token)
    response = conn.call(
        "CreateTournament", mm.CreateTournamentRequest(config=config, request_id=request_id)
    )
    if as_json:
        _print_json(response.tournament)
    else:
        print(response.tournament.tournament_id)


@tournament_app.command("register")
def register_command(
    tournament_id: str = typer.Argument(..., help="The tournament."),
    bot: str = typer.Option("", "--bot", help="Register bots: POLICY[:LEVEL]."),
    count: int = typer.Option(1, "--count", help="How many bots (with --bot), 1-4096."),
    person: str = typer.Option("", "--person", help="Register a person by name."),
    rating_id: str = typer.Option("", "--rating-id", help="A person's identity for ratings."),
    registration_code: str = RegistrationCodeOption,
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Register a person (prints its player id and secret) or bots."""
    from hebei.v1 import matchmaking_pb2 as mm

    if bool(bot) == bool(person):
        fail("give either --bot POLICY[:LEVEL] or --person NAME")
    if not 1 <= count <= 4096:
        fail(f"--count must be 1-4096, got {count}")
    code = _check_registration_code(registration_code)
    conn = _common(address, token)
    if person:
        response = conn.call(
            "Register",
            mm.RegisterRequest(
                tournament_id=tournament_id,
                person=mm.PersonEntrant(name=person, rating_id=rating_id),
                registration_code=code,
            ),
        )
        if as_json:
            _print_json(response)
        else:
            print(f"{response.player.player_id} {response.player_secret}")
            print(
                f"join with: hebei tournament join {tournament_id} --player "
                f"{response.player.player_id} --secret {response.player_secret}",
                file=__import__("sys").stderr,
            )
        return
    policy, level = _parse_policy(bot)
    players = []
    for _ in range(count):
        response = conn.call(
            "Register",
            mm.RegisterRequest(
                tournament_id=tournament_id,
                bot=mm.BotEntrant(policy=policy, level=level),
                registration_code=code,
            ),
        )
        players.append(response.player)
    if as_json:
        print(json.dumps([json_format.MessageToDict(p, preserving_proto_field_name=True)
                          for p in players]))  # fmt: skip
    else:
        for player in players:
            print(f"{player.player_id} {player.name}")


def _operator_call(method: str, request: Any, address, token, actor, as_json) -> None:
    conn = _common(address, token)
    response = conn.call(method, request, actor=actor)
    if as_json:
        _print_json(response)
    else:
        tournament = getattr(response, "tournament", None)
        if tournament is not None and tournament.tournament_id:
            from hebei.v1 import matchmaking_pb2 as mm

            status = mm.TournamentStatus.Name(tournament.status).removeprefix("TOURNAMENT_STATUS_")
            print(f"{tournament.tournament_id}: {status.lower()}, round {tournament.current_round}"
                  f" of {tournament.config.rounds}")  # fmt: skip
        else:
            _print_json(response)


@tournament_app.command("start")
def start_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Close registration and seat round 1."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.StartTournamentRequest(tournament_id=tournament_id)
    _operator_call("StartTournament", request, address, token, actor, as_json)


@tournament_app.command("pause")
def pause_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option("", "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Pause: running matches finish, no new round is seated."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.PauseRequest(tournament_id=tournament_id, reason=reason)
    _operator_call("Pause", request, address, token, actor, as_json)


@tournament_app.command("resume")
def resume_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Resume a paused tournament."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.ResumeRequest(tournament_id=tournament_id)
    _operator_call("Resume", request, address, token, actor, as_json)


@tournament_app.command("cancel")
def cancel_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Cancel a tournament (its open matches are dissolved)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.CancelTournamentRequest(tournament_id=tournament_id, reason=reason)
    _operator_call("CancelTournament", request, address, token, actor, as_json)


@tournament_app.command("remove")
def remove_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Argument(...),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Remove a player: a bot takes its seat; later rounds go on without it."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.RemovePlayerRequest(
        tournament_id=tournament_id, player_id=player_id, reason=reason
    )
    _operator_call("RemovePlayer", request, address, token, actor, as_json)


SecretOption = typer.Option(
    "", "--secret", help="The player's secret (from register); else the operator token."
)


def _player_call(method: str, request: Any, address, token, secret: str, as_json: bool) -> Any:
    """A call a player makes with its secret, or the operator with the token (a secret given
    means the call is the player's: the token is not sent)."""
    conn = _common(address, token)
    if secret:
        conn.channel.close()
        conn = Connection(conn.address, None, *_anonymous(conn.address))
    response = conn.call(method, request)
    if as_json:
        _print_json(response)
    return response


def _anonymous(address: str) -> tuple[grpc.Channel, Any]:
    from hebei.common.client import create_channel
    from hebei.v1 import matchmaking_pb2_grpc

    channel = create_channel(address, token=None, timeout=30.0)
    return channel, matchmaking_pb2_grpc.MatchmakingServiceStub(channel)


@tournament_app.command("checkin")
def checkin_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Option(..., "--player", help="The player id (from register)."),
    secret: str = SecretOption,
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Check a person in for a tournament that asks for it (in its check-in window)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.CheckInRequest(
        tournament_id=tournament_id, player_id=player_id, player_secret=secret
    )
    response = _player_call("CheckIn", request, address, token, secret, as_json)
    if not as_json:
        print(f"{response.player.player_id} ({response.player.name}): checked in")


@tournament_app.command("withdraw")
def withdraw_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Argument(..., help="The player id."),
    secret: str = SecretOption,
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Withdraw a player: before the start the registration goes; later a bot plays out its
    match and it is not seated again (its points stay)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.UnregisterRequest(
        tournament_id=tournament_id, player_id=player_id, player_secret=secret
    )
    response = _player_call("Unregister", request, address, token, secret, as_json)
    if not as_json:
        player = next((p for p in response.tournament.players if p.player_id == player_id), None)
        print(f"{player_id}: " + (player_status(player) if player else "registration withdrawn"))


def player_status(player: Any) -> str:
    """``active``, ``no-show (missed 2 rounds)``, ... as the CLI shows a player's status."""
    text = _status_name(player.status)
    return text + (f" ({player.status_reason})" if player.status_reason else "")


def _status_name(status: int) -> str:
    from hebei.v1 import matchmaking_pb2 as mm

    if status not in mm.PlayerStatus.values() or not status:
        return "active"
    return mm.PlayerStatus.Name(status).removeprefix("PLAYER_STATUS_").lower().replace("_", "-")


@tournament_app.command("penalty")
def penalty_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Argument("", help="The player (not with --cancel)."),
    points: int = typer.Argument(0, help="Points taken, 1-1,000,000."),
    reason: str = typer.Option(..., "--reason"),
    by: str = typer.Option("operator", "--by", help="Who assigns (or cancels) it."),
    cancel: str = typer.Option("", "--cancel", help="Cancel this penalty id instead."),
    request_id: str = typer.Option("", "--request-id"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Assign a penalty (booked in the ledger), or cancel one with --cancel PENALTY_ID."""
    from hebei.matchmaking.tournaments import MAX_PENALTY
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    if cancel:
        request = mm.CancelPenaltyRequest(
            tournament_id=tournament_id, penalty_id=cancel, reason=reason, cancelled_by=by
        )
        penalty = conn.call("CancelPenalty", request, actor=by).penalty
    else:
        if not player_id or points <= 0:
            fail("give PLAYER_ID and POINTS (or --cancel PENALTY_ID)")
        check_range("POINTS", points, 1, MAX_PENALTY)
        penalty = _assign(conn, tournament_id, player_id, points, reason, by, request_id)
    _print_penalty(penalty, as_json)


def _assign(conn, tournament_id, player_id, points, reason, by, request_id) -> Any:
    """AssignPenalty: ``points`` > 0 taken, < 0 awarded."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.AssignPenaltyRequest(
        tournament_id=tournament_id, player_id=player_id, points=points, reason=reason,
        assigned_by=by, request_id=request_id,
    )  # fmt: skip
    return conn.call("AssignPenalty", request, actor=by).penalty


def _print_penalty(penalty: Any, as_json: bool) -> None:
    if as_json:
        _print_json(penalty)
        return
    state = "cancelled" if penalty.cancelled else "booked"
    what = f"{penalty.points} points from" if penalty.points > 0 else f"{-penalty.points} to"
    print(f"{penalty.penalty_id}: {what} {penalty.player_id}, {state}"
          f" (ledger entry {penalty.entry_id})")  # fmt: skip


@tournament_app.command("award")
def award_command(
    tournament_id: str = typer.Argument(...),
    player_id: str = typer.Argument(..., help="The player."),
    points: int = typer.Argument(..., help="Points given, 1-1,000,000."),
    reason: str = typer.Option(..., "--reason"),
    by: str = typer.Option("operator", "--by", help="Who awards them."),
    request_id: str = typer.Option("", "--request-id"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Award points (booked in the ledger against the tournament's account); `undo` or
    `penalty --cancel ID` takes it back."""
    from hebei.matchmaking.tournaments import MAX_PENALTY

    check_range("POINTS", points, 1, MAX_PENALTY)
    conn = _common(address, token)
    _print_penalty(
        _assign(conn, tournament_id, player_id, -points, reason, by, request_id), as_json
    )


@tournament_app.command("correct")
def correct_command(
    tournament_id: str = typer.Argument(...),
    match_id: str = typer.Argument(..., help="The ended match."),
    deltas: str = typer.Argument(..., help="Points moved per seat 0-3, e.g. 8,-8,0,0 (sum 0)."),
    reason: str = typer.Option(..., "--reason"),
    by: str = typer.Option("operator", "--by", help="Who rules."),
    request_id: str = typer.Option("", "--request-id"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Correct a match's result (a referee's ruling), booked in the ledger as a new entry."""
    from hebei.v1 import matchmaking_pb2 as mm

    try:
        seat_deltas = [int(x) for x in deltas.split(",")]
    except ValueError:
        fail(f"DELTAS must be four integers like 8,-8,0,0, got {deltas!r:.40}")
    request = mm.CorrectMatchResultRequest(
        tournament_id=tournament_id, match_id=match_id, seat_deltas=seat_deltas, reason=reason,
        ruled_by=by, request_id=request_id,
    )  # fmt: skip
    correction = _common(address, token).call("CorrectMatchResult", request, actor=by).correction
    if as_json:
        _print_json(correction)
    else:
        print(f"{correction.correction_id}: {correction.match_id} corrected by"
              f" {','.join(map(str, correction.seat_deltas))} (ledger entry"
              f" {correction.entry_id})")  # fmt: skip


@tournament_app.command("undo")
def undo_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Undo the last correction, penalty or award still in force (its entry reversed)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.UndoCorrectionRequest(tournament_id=tournament_id, reason=reason)
    response = _common(address, token).call("UndoCorrection", request, actor=actor)
    if as_json:
        _print_json(response)
    elif response.HasField("correction"):
        print(f"correction {response.correction.correction_id} of"
              f" {response.correction.match_id} undone")  # fmt: skip
    else:
        print(f"penalty {response.penalty.penalty_id} ({response.penalty.points}) undone")


@tournament_app.command("reveal")
def reveal_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option("", "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Reveal the hidden rounds' results (--hide-last-rounds) to everyone."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.RevealResultsRequest(tournament_id=tournament_id, reason=reason)
    _operator_call("RevealResults", request, address, token, actor, as_json)


@tournament_app.command("repair")
def repair_command(
    tournament_id: str = typer.Argument(...),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Re-pair the round in play before its first hand: it is planned again (`preview`,
    `swap`) and the tournament paused; `resume` seats it anew."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.RepairRoundRequest(tournament_id=tournament_id, reason=reason)
    _operator_call("RepairRound", request, address, token, actor, as_json)


@tournament_app.command("dissolve")
def dissolve_command(
    tournament_id: str = typer.Argument(...),
    match_id: str = typer.Argument(..., help="The match (see `status`)."),
    reason: str = typer.Option(..., "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Dissolve one match of the tournament (booked as dissolved; the round goes on)."""
    from hebei.v1 import matchmaking_pb2 as mm

    request = mm.DissolveTableRequest(tournament_id=tournament_id, match_id=match_id, reason=reason)
    table = _common(address, token).call("DissolveTable", request, actor=actor).table
    if as_json:
        _print_json(table)
    else:
        Console().print(tables_table([table], f"{match_id} dissolved"))


@tournament_app.command("export")
def export_command(
    tournament_id: str = typer.Argument(...),
    what: str = typer.Option("results", "--what", help="results or seating (every round)."),
    fmt: str = typer.Option("csv", "--format", help="csv or json."),
    out: str = typer.Option("", "--out", help="Write to this file (default: stdout)."),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
) -> None:
    """Export the results (every standings column, statuses) or every round's seating as CSV
    or JSON (README "Exports" lists the columns)."""
    from hebei.common import exports
    from hebei.common.seating import every_round
    from hebei.v1 import matchmaking_pb2 as mm

    if what not in ("results", "seating"):
        fail(f"--what must be results or seating, got {what!r:.40}")
    if fmt not in ("csv", "json"):
        fail(f"--format must be csv or json, got {fmt!r:.40}")
    conn = _common(address, token)
    extra = {}
    if what == "results":
        response = conn.call("GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id))
        rows, columns = exports.result_rows(response), exports.RESULT_COLUMNS
        extra["round_no"] = response.round_no
    else:
        rounds = every_round(lambda request: conn.call("GetSeating", request), tournament_id)
        rows, columns = exports.seating_rows(rounds), exports.SEATING_COLUMNS
    text = (
        exports.as_csv(columns, rows)
        if fmt == "csv"
        else exports.as_json(what, tournament_id, rows, **extra) + "\n"
    )
    if out:
        with open(out, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    else:
        typer.echo(text, nl=False)


@tournament_app.command("status")
def status_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """The tournament's state: rounds with their seating quality, the current tables."""
    from hebei.common.seating import every_round
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    tournament = conn.call(
        "GetTournament", mm.GetTournamentRequest(tournament_id=tournament_id)
    ).tournament
    if as_json:
        _print_json(tournament)
        return
    console = Console()
    status = mm.TournamentStatus.Name(tournament.status).removeprefix("TOURNAMENT_STATUS_")
    console.print(
        f"[bold]{tournament.config.name}[/bold] ({tournament.tournament_id}): {status.lower()}"
        f", round {tournament.current_round} of {tournament.config.rounds},"
        f" {sum(1 for p in tournament.players if not p.filler)} players"
        + (f" — {tournament.status_reason}" if tournament.status_reason else "")
    )
    for line in schedule_lines(tournament):
        console.print(line)
    console.print(players_table(tournament))
    rounds = every_round(lambda request: conn.call("GetSeating", request), tournament_id)
    if rounds:
        console.print(quality_table(rounds))
    if tournament.tables:
        console.print(tables_table(list(tournament.tables), f"round {tournament.current_round}"))
    for problem in tournament.problems:
        console.print(f"[red]problem:[/red] {problem}")


@tournament_app.command("standings")
def standings_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """The ranking from the ledger, with the tie-break that decided each place."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    response = conn.call("GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id))
    if as_json:
        _print_json(response)
        return
    console = Console()
    console.print(standings_table(response, f"standings after round {response.round_no}"))
    for problem in response.problems:
        console.print(f"[red]mismatch:[/red] {problem}")


@tournament_app.command("watch")
def watch_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
) -> None:
    """Follow a tournament live (progress bars) until it ends; then print the ranking."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    tournament = conn.call(
        "GetTournament", mm.GetTournamentRequest(tournament_id=tournament_id)
    ).tournament
    console = Console()
    hands = tournament.config.length.hands or tournament.config.length.wind_rounds.max_hands
    follow(conn, tournament_id, console, hands_per_match=hands or 8)
    response = conn.call("GetStandings", mm.GetStandingsRequest(tournament_id=tournament_id))
    console.print(standings_table(response, "final standings"))


@tournament_app.command("preview")
def preview_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Plan the next round (kept, so `swap` can change it) and show it with its quality."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    response = conn.call(
        "PreviewRound", mm.PreviewRoundRequest(tournament_id=tournament_id), actor=actor
    )
    _print_round(response.round, as_json)


@tournament_app.command("swap")
def swap_command(
    tournament_id: str = typer.Argument(...),
    player_a: str = typer.Argument(...),
    player_b: str = typer.Argument(...),
    reason: str = typer.Option("", "--reason"),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    actor: str = ActorOption,
    as_json: bool = JsonOption,
) -> None:
    """Swap two players' seats in the planned next round."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    request = mm.SwapSeatsRequest(
        tournament_id=tournament_id, player_a=player_a, player_b=player_b, reason=reason
    )
    _print_round(conn.call("SwapSeats", request, actor=actor).round, as_json)


def _print_round(seated: Any, as_json: bool) -> None:
    if as_json:
        _print_json(seated)
        return
    console = Console()
    console.print(tables_table(list(seated.tables), f"round {seated.round_no} (planned)"))
    console.print(quality_table([seated], "its quality"))


@tournament_app.command("actions")
def actions_command(
    tournament_id: str = typer.Argument(...),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Every operator action, with who and when, and the penalties."""
    from hebei.v1 import matchmaking_pb2 as mm

    conn = _common(address, token)
    response = conn.call(
        "ListOperatorActions", mm.ListOperatorActionsRequest(tournament_id=tournament_id)
    )
    if as_json:
        _print_json(response)
        return
    table = Table(title="operator actions")
    for column in ("#", "when", "who", "action", "player", "detail"):
        table.add_column(column)
    for action in response.actions:
        table.add_row(
            str(action.seq), action.at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S"), action.actor,
            action.action, action.player_id, action.detail,
        )  # fmt: skip
    Console().print(table)


@tournament_app.command("ratings")
def ratings_command(
    limit: int = typer.Option(50, "--limit", help="Rows, 1-500."),
    address: str | None = AddressOption,
    token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Ratings across tournaments (OpenSkill, Plackett-Luce), best first."""
    from hebei.v1 import matchmaking_pb2 as mm

    check_range("--limit", limit, 1, 500)
    conn = _common(address, token)
    response = conn.call("GetRatings", mm.GetRatingsRequest(page_size=limit))
    if as_json:
        _print_json(response)
        return
    table = Table(title="ratings (ordinal = mu - 3 sigma)")
    for column in ("rank", "identity", "name", "ordinal", "mu", "sigma", "matches"):
        table.add_column(column, justify="left" if column in ("identity", "name") else "right")
    for r in response.ratings:
        table.add_row(str(r.rank), r.rating_id, r.name, f"{r.ordinal:.2f}", f"{r.mu:.2f}",
                      f"{r.sigma:.2f}", str(r.matches))  # fmt: skip
    Console().print(table)
