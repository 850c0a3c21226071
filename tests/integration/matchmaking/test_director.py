"""The round director passes when something changed and rests otherwise: a pass over a
finished tournament finds nothing left to do, so the next full pass waits for a change or the
idle period instead of coming after ``tick_seconds``."""

from __future__ import annotations

import inspect
import threading
import time

from hebei.v1 import ledger_pb2
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
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
    reads the tournament once (is it cancelled?) and locks it once (marking the match opened
    and writing TABLE_OPENED), and following its matches every second reads it no more."""
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
    assert callers.count("open_match") == 2  # one match: a read, then its lock
    assert [c for c in callers if c in ("_settings", "follow", "_filler")] == []
    assert director._settings(tournament.tournament_id).rounds == 1


class HeldDrawnHands:
    """Holds back the engine's settlements of hands that moved no points (they fail as if the
    ledger were unreachable, so the outbox retries them) until released."""

    def __init__(self, deliver) -> None:
        self.deliver = deliver
        self.held: set[str] = set()
        self.released = threading.Event()

    def __call__(self, payload: bytes) -> None:
        settlement = ledger_pb2.PostSettlementRequest.FromString(payload).settlement
        if not self.released.is_set() and not any(r.total_delta for r in settlement.results):
            self.held.add(settlement.idempotency_key)
            raise RuntimeError("held back by the test")
        self.deliver(payload)


def _hold_drawn_hands(stack: Stack) -> HeldDrawnHands:
    poster = stack.engine.poster
    gate = HeldDrawnHands(poster.deliverers["settlement"])
    poster.deliverers["settlement"] = gate
    return gate


def _all_ended(tournament: mm.Tournament) -> bool:
    return bool(tournament.tables) and all(
        t.status in (pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_DISSOLVED) for t in tournament.tables
    )


def _start(stack: Stack, hands: int) -> str:
    tournament = stack.create(rounds=1, hands=hands, seating=mm.SEATING_MODE_RANDOM, seed=11)
    # random bots rarely win: their hands are drawn, and a drawn hand moves no points
    stack.register_bots(tournament.tournament_id, 4, "random")
    stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tournament.tournament_id))
    return tournament.tournament_id


def test_a_round_waits_for_the_ledger_to_book_its_drawn_hands_not_only_its_points(
    stack: Stack, start_worker
) -> None:
    """A drawn hand moves no points, so the standings' sums agree while its settlement is
    still in the engine's outbox: the round closes only once the ledger booked every hand
    (else the published standings count a hand too few)."""
    gate = _hold_drawn_hands(stack)
    start_worker(sessions=4)
    stack.start_matchmaking(ledger_grace=60.0)
    tid = _start(stack, hands=4)
    ended = stack.wait_status(tid, _all_ended)
    hands = sum(t.hands_played for t in ended.tables)
    time.sleep(2.0)  # ten director ticks with every match ended and the points agreeing
    assert gate.held, "no drawn hand in this tournament: the test shows nothing"
    waiting = stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert waiting.status == mm.TOURNAMENT_STATUS_RUNNING, waiting.status

    gate.released.set()
    finished = stack.wait_finished(tid, timeout=120)
    assert finished.status == mm.TOURNAMENT_STATUS_FINISHED
    assert not finished.problems, finished.problems
    standings = stack.ledger().GetStandings(
        ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id=tid)
    )
    assert sum(s.hands_played for s in standings.standings) == 4 * hands


def test_a_drawn_hand_the_ledger_never_books_is_reported_after_the_grace(
    stack: Stack, start_worker
) -> None:
    gate = _hold_drawn_hands(stack)
    start_worker(sessions=4)
    stack.start_matchmaking(ledger_grace=1.0)
    tid = _start(stack, hands=4)
    finished = stack.wait_finished(tid, timeout=120)
    assert gate.held
    assert finished.status == mm.TOURNAMENT_STATUS_FINISHED
    hands = 4 * sum(t.hands_played for t in finished.tables)
    booked = hands - 4 * len(gate.held)
    assert finished.problems == [
        f"ledger hands differ from the match results after round 1: "
        f"{booked} seat lines booked for {hands}"
    ]
