"""``hebei tournament create|register``: create a tournament (its rounds, seating, schedule,
time control and people's options) and register people or bots in it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import typer
from google.protobuf import json_format

from hebei.cli._util import check_range, fail
from hebei.cli.tournament import tournament_app
from hebei.cli.tournament_connection import (
    AddressOption,
    JsonOption,
    TokenOption,
    _common,
    print_json,
)
from hebei.cli.tournament_display import shown_duration

MODES = ("swiss", "random", "schedule", "duplicate")
TIE_BREAKS = ("hands_won", "best_match", "fewer_dealt_in", "self_draws", "seed_draw")
INACTIVE = ("ranked-last", "left-out")

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
        fail(f"{option} must be {shown_duration(low)} to {shown_duration(high)}, got {text!r:.40}")
    return seconds


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
        print_json(response.tournament)
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
            print_json(response)
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
