"""`hebei demo` (what `make run` runs): a bot tournament through the matchmaking service, on the
whole local stack started as separate processes (``hebei.stack.processes``)."""

from __future__ import annotations

import json
import time
from typing import Any

import typer
from rich.console import Console

from hebei.cli import app
from hebei.cli._util import fail

# The line-up of bot players, cycled: POLICY[:LEVEL].
LINE_UP = ("expert:3", "efficiency", "expert:1", "random")


def _ranking_json(response: Any) -> list[dict[str, Any]]:
    return [
        {
            "rank": row.standing.rank,
            "player_id": row.standing.player_id,
            "name": row.standing.player_name,
            "points": row.standing.points,
            "hands_won": row.standing.hands_won,
            "hands_dealt_in": row.standing.hands_dealt_in,
            "best_match": row.standing.best_match_points,
            "decided_by": row.decided_by,
            "filler": row.filler,
        }
        for row in response.ranking
    ]


def _quality_json(rounds: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "round": r.round_no,
            "tables": len(r.tables),
            "repeat_pairs": r.quality.repeat_pairs,
            "consecutive_repeats": r.quality.consecutive_repeats,
            "max_pair_meetings": r.quality.max_pair_meetings,
            "wind_spread": r.quality.wind_spread,
            "standings_spread": round(r.quality.standings_spread, 2),
        }
        for r in rounds
    ]


@app.command("demo")
def demo_command(
    players: int = typer.Option(16, "--players", help="Bot players (fillers complete tables)."),
    rounds: int = typer.Option(4, "--rounds", help="Rounds of the tournament."),
    hands: int = typer.Option(4, "--hands", help="Hands per match."),
    mode: str = typer.Option("swiss", "--mode", help="Seating: swiss, random, schedule."),
    seed: int = typer.Option(1, "--seed", help="Seed of the seating (walls are always fresh)."),
    processes: int = typer.Option(1, "--processes", help="Bot worker processes."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
) -> None:
    """Run a bot tournament through the matchmaking service on the local stack: ledger, table
    engine, matchmaking and a Celery bot worker as separate processes, on embedded PostgreSQL
    and Redis unless HEBEI_DATABASE_URL / HEBEI_BROKER_URL are set."""
    if not 4 <= players <= 256 or not 1 <= rounds <= 16 or not 1 <= hands <= 64:
        fail("--players must be 4-256, --rounds 1-16 and --hands 1-64")
    if not 1 <= processes <= 16:
        fail("--processes must be 1-16")
    if mode not in ("swiss", "random", "schedule"):
        fail(f"--mode must be swiss, random or schedule, got {mode!r}")
    from hebei.cli.tournament_connection import Connection
    from hebei.cli.tournament_display import follow, quality_table, standings_table
    from hebei.common.client import create_channel
    from hebei.common.seating import every_round
    from hebei.stack.processes import StackError, StackOptions, start_stack
    from hebei.v1 import ledger_pb2, ledger_pb2_grpc, matchmaking_pb2_grpc
    from hebei.v1 import matchmaking_pb2 as mm

    console = Console(stderr=as_json)
    started = time.perf_counter()
    sessions = 4 * (players + 3) // 4 + 8
    options = StackOptions(worker_processes=processes, worker_sessions=sessions)
    try:
        with start_stack(
            options, status=lambda text: console.print(f"[dim]{text}…[/dim]")
        ) as stack:
            channel = create_channel(
                stack.address("matchmaking"), token=stack.operator_token, timeout=60.0
            )
            conn = Connection(
                stack.address("matchmaking"),
                stack.operator_token,
                channel,
                matchmaking_pb2_grpc.MatchmakingServiceStub(channel),
            )
            config = mm.TournamentConfig(
                name=f"hebei demo {seed}", rounds=rounds, seed=seed,
                seating=mm.SeatingMode.Value(f"SEATING_MODE_{mode.upper()}"),
                filler_bot_policy="expert",
            )  # fmt: skip
            config.length.hands = hands
            config.time_control.per_decision.FromSeconds(2)
            tournament = conn.call(
                "CreateTournament", mm.CreateTournamentRequest(config=config)
            ).tournament
            tid = tournament.tournament_id
            console.print(
                f"tournament {tid}: {players} bots, {rounds} {mode} rounds of {hands} hands"
            )
            for number in range(players):
                policy, _, level = LINE_UP[number % len(LINE_UP)].partition(":")
                conn.call(
                    "Register",
                    mm.RegisterRequest(
                        tournament_id=tid,
                        bot=mm.BotEntrant(
                            policy=policy, level=int(level or 0),
                            name=f"{LINE_UP[number % len(LINE_UP)]} #{number + 1}",
                        ),
                    ),
                )  # fmt: skip
            conn.call("StartTournament", mm.StartTournamentRequest(tournament_id=tid))
            last = follow(conn, tid, console, hands_per_match=hands)
            if last is None or last.type != mm.TOURNAMENT_EVENT_TYPE_FINISHED:
                fail("the tournament did not finish", code=1)
            standings = conn.call("GetStandings", mm.GetStandingsRequest(tournament_id=tid))
            seating = every_round(lambda request: conn.call("GetSeating", request), tid)
            ledger_channel = create_channel(
                stack.address("ledger"), token=stack.operator_token, timeout=60.0
            )
            audit = ledger_pb2_grpc.LedgerServiceStub(ledger_channel).Audit(
                ledger_pb2.AuditRequest(tournament_id=tid)
            )
            hands_played = sum(t.hands_played for r in seating for t in r.tables)
            ledger_channel.close()
            channel.close()
    except StackError as exc:
        fail(str(exc), code=1)
    except KeyboardInterrupt:
        console.print("interrupted: the stack was stopped")
        raise typer.Exit(130) from None
    seconds = time.perf_counter() - started
    if as_json:
        print(
            json.dumps(
                {
                    "tournament_id": tid,
                    "players": players,
                    "rounds": rounds,
                    "hands": hands_played,
                    "seconds": round(seconds, 1),
                    "audit_ok": audit.ok,
                    "mismatch": standings.mismatch,
                    "standings": _ranking_json(standings),
                    "seating": _quality_json(seating),
                }
            )
        )
    else:
        console.print(standings_table(standings, f"{tid}: final standings from the ledger"))
        console.print(quality_table(seating))
        verdict = "every entry sums to zero" if audit.ok else "; ".join(audit.problems)
        console.print(
            f"ledger audit: {audit.entries_checked} entries, {verdict}; {hands_played} hands,"
            f" {seconds:.1f} s in all"
        )
        for problem in standings.problems:
            console.print(f"[red]mismatch:[/red] {problem}")
    if not audit.ok or standings.mismatch:
        raise typer.Exit(1)
