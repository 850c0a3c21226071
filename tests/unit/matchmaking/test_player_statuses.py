"""Players who left (withdrawn, no-show, removed) keep their points and rank after every
active player, or are left out (rank 0, still listed); a pause stops a tournament's clocks
and resuming moves them on by the time paused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hebei.matchmaking.settings import normalise_config
from hebei.matchmaking.store import PlayerRow, TournamentRow
from hebei.matchmaking.tournaments import Tournaments, stop_clocks
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb


def _tournament(inactive: int = 0) -> TournamentRow:
    config = normalise_config(
        mm.TournamentConfig(name="cup", rounds=2, seed=3, inactive_players=inactive)
    )
    return TournamentRow("t-1", config, "running", current_round=1)


def _players() -> list[PlayerRow]:
    rows = []
    for n, status in enumerate(("active", "no_show", "active", "withdrawn", "removed")):
        row = PlayerRow("t-1", f"p-{n}", n, f"P{n}", "person", f"person:P{n}", status=status)
        rows.append(row)
    rows.append(PlayerRow("t-1", "filler-1", 9, "filler 1", "bot", "bot:expert:3", filler=True))
    return rows


LEDGER = [
    pb.Standing(player_id="p-0", points=-5),
    pb.Standing(player_id="p-1", points=40),  # the best points, but a no-show
    pb.Standing(player_id="p-2", points=10),
    pb.Standing(player_id="p-3", points=20),
    pb.Standing(player_id="p-4", points=-70),
    pb.Standing(player_id="filler-1", points=5),
]


def test_players_who_left_rank_after_every_active_player_and_keep_their_points() -> None:
    response = Tournaments.rank(_tournament(), _players(), LEDGER)
    ranked = [(r.standing.player_id, r.standing.rank, r.standing.points) for r in response.ranking]
    assert ranked == [
        ("p-2", 1, 10), ("p-0", 2, -5),  # active
        ("p-1", 3, 40), ("p-3", 4, 20), ("p-4", 5, -70),  # left, by points among themselves
        ("filler-1", 0, 5),
    ]  # fmt: skip
    statuses = [r.status for r in response.ranking[:5]]
    assert statuses == [
        mm.PLAYER_STATUS_ACTIVE, mm.PLAYER_STATUS_ACTIVE, mm.PLAYER_STATUS_NO_SHOW,
        mm.PLAYER_STATUS_WITHDRAWN, mm.PLAYER_STATUS_REMOVED,
    ]  # fmt: skip
    assert [r.decided_by for r in response.ranking[:5]] == ["", "points", "status", "points",
                                                           "points"]  # fmt: skip
    assert [r.withdrawn for r in response.ranking[:5]] == [False, False, True, True, True]
    assert [s.player_id for s in response.standings] == ["p-2", "p-0", "p-1", "p-3", "p-4"]


def test_players_who_left_may_be_left_out_of_the_ranking() -> None:
    row = _tournament(mm.INACTIVE_PLAYERS_LEFT_OUT)
    response = Tournaments.rank(row, _players(), LEDGER)
    ranks = {r.standing.player_id: r.standing.rank for r in response.ranking}
    assert ranks == {"p-2": 1, "p-0": 2, "p-1": 0, "p-3": 0, "p-4": 0, "filler-1": 0}
    assert {s.player_id for s in response.standings} == {"p-0", "p-1", "p-2", "p-3", "p-4"}
    assert all(not r.decided_by for r in response.ranking[2:])


def test_a_pause_stops_the_clocks_and_resuming_moves_them_on() -> None:
    start = datetime(2026, 12, 7, 5, 0, tzinfo=UTC)
    row = _tournament()
    row.next_round_at, row.round_ends_at = start + timedelta(minutes=2), None
    row.status = "paused"
    stop_clocks(row, start)
    assert row.paused_at == start and row.next_round_at == start + timedelta(minutes=2)
    row.status = "running"
    stop_clocks(row, start + timedelta(minutes=10))
    assert row.next_round_at == start + timedelta(minutes=12) and row.paused_at is None
    row.round_ends_at = start + timedelta(minutes=40)
    row.status = "paused"
    stop_clocks(row, start + timedelta(minutes=15))
    row.status = "running"
    stop_clocks(row, start + timedelta(minutes=20))
    assert row.round_ends_at == start + timedelta(minutes=45)
