"""The round director passes when something changed and rests otherwise: a pass over a
finished tournament finds nothing left to do, so the next full pass waits for a change or the
idle period instead of coming after ``tick_seconds``."""

from __future__ import annotations

import inspect

from hebei.v1 import matchmaking_pb2 as mm
from tests.integration.matchmaking.conftest import Stack


def test_the_director_rests_once_every_match_is_settled_and_the_tournament_finished(
    stack: Stack, start_worker
) -> None:
    start_worker(sessions=4)
    stack.start_matchmaking()
    director = stack.matchmaking.director
    assert director.tick() is False  # nothing to direct yet
    tournament = stack.create(rounds=1, hands=1, seating=mm.SEATING_MODE_RANDOM)
    stack.register_bots(tournament.tournament_id, 4, "efficiency")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tournament.tournament_id))
    finished = stack.wait_finished(tournament.tournament_id)
    assert finished.status == mm.TOURNAMENT_STATUS_FINISHED
    assert director.tick() is False  # nothing open, unsettled or waiting for the ledger
    assert director.follow_opened() is False and not director._opened


def test_the_director_reads_a_tournament_once_per_match_it_opens(
    stack: Stack, start_worker
) -> None:
    """Its settings (the config, written once when it is created) are kept: opening a match
    reads the tournament once (is it cancelled?), and following its matches every second
    reads it no more."""
    start_worker(sessions=4)
    stack.start_matchmaking()
    director = stack.matchmaking.director
    callers: list[str] = []
    read = director.ts._load

    def counted(conn, tournament_id, **options):
        callers.append(inspect.stack()[1].function)
        return read(conn, tournament_id, **options)

    director.ts._load = counted
    tournament = stack.create(rounds=1, hands=2, seating=mm.SEATING_MODE_RANDOM)
    stack.register_bots(tournament.tournament_id, 4, "efficiency")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tournament.tournament_id))
    assert stack.wait_finished(tournament.tournament_id).status == mm.TOURNAMENT_STATUS_FINISHED
    assert callers.count("open_match") == 1  # one match
    assert [c for c in callers if c in ("_settings", "follow", "_filler")] == []
    assert director._settings(tournament.tournament_id).rounds == 1
