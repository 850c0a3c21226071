"""The person's tournament without a network: made-up WatchTournament events, Play stream
items, typed lines and a made-up clock in; the screen, the seats opened and the exit code out."""

from __future__ import annotations

import io

import grpc
import pytest
from rich.console import Console

from hebei.play.tournament import (
    EXIT_CANCELLED,
    EXIT_FINISHED,
    EXIT_OUT,
    JOIN_RETRY_SECONDS,
    TournamentFollower,
    duration_text,
    ordinal,
    place_at_table,
)
from hebei.seatclient.stream import CLOSED, MESSAGE, RECONNECTING
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.unit.play.helpers import (
    ME,
    advance,
    match_over,
    observation,
    standings,
    table,
    tournament,
)

KIND = mm.TournamentEventType


class Refused(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, details: str = "") -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


class Port:
    """Records the seats opened and the actions sent; check-in answers as told."""

    def __init__(self) -> None:
        self.opened: list[tuple[str, str, int]] = []
        self.closed = 0
        self.sent: list[pb.Action] = []
        self.check_ins = 0
        self.check_in_error: str | None = None

    def open_seat(self, seating: mm.Seating, generation: int):
        self.opened.append((seating.match_id, seating.seat_token, generation))
        return self.sent.append

    def close_seat(self) -> None:
        self.closed += 1

    def check_in(self) -> str | None:
        self.check_ins += 1
        return self.check_in_error


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Follow:
    """A follower printing into a string."""

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.port = Port()
        self.clock = Clock()
        console = Console(file=self.out, width=160, color_system=None, force_terminal=False)
        self.follower = TournamentFollower(console, ME, self.port, clock=self.clock)
        self._read = 0

    def new_output(self) -> str:
        text = self.out.getvalue()
        new, self._read = text[self._read :], len(text)
        return new

    def event(self, event: mm.WatchTournamentResponse) -> str:
        self.follower.on_event(event)
        return self.new_output()

    def play(self, kind: str, value=None, generation: int | None = None) -> str:
        gen = self.follower.generation if generation is None else generation
        self.follower.on_play(gen, kind, value)
        return self.new_output()

    def tick(self, seconds: float = 0.0) -> str:
        self.clock.now += seconds
        self.follower.on_tick()
        return self.new_output()

    def type(self, line: str) -> str:
        self.follower.on_line(line)
        return self.new_output()


def seating(round_no: int = 1, token: str = "tok-1") -> mm.Seating:
    return mm.Seating(
        table_id=f"Tm{round_no}-0", match_id=f"m{round_no}-0", seat=0, seat_token=token,
        table_endpoint="127.0.0.1:1", round_no=round_no,
    )  # fmt: skip


def event(kind, t: mm.Tournament, round_no: int = 0, **fields) -> mm.WatchTournamentResponse:
    return mm.WatchTournamentResponse(type=kind, tournament=t, round_no=round_no, **fields)


def decision() -> table_pb2.PlayResponse:
    return table_pb2.PlayResponse(observation=observation(advance(3, 0, dealer=0), 0, 11))


# ---------------------------------------------------------------------- helpers


def test_ordinals_durations_and_places() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
    ]  # fmt: skip
    assert duration_text(45) == "45 s" and duration_text(125) == "2 min 5 s"
    assert duration_text(3600 + 180) == "1 h 3 min" and duration_text(-3) == "0 s"
    assert place_at_table([10, 5, 5, -20], 1) == 2 and place_at_table([0, 0, 0, 0], 3) == 1


# ---------------------------------------------------------------------- seats


@pytest.mark.parametrize("kind", [KIND.TOURNAMENT_EVENT_TYPE_ROUND_SEATED,
                                  KIND.TOURNAMENT_EVENT_TYPE_TABLE_OPENED,
                                  KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT])  # fmt: skip
def test_a_seat_is_joined_from_any_event_that_carries_it(kind) -> None:
    f = Follow()
    shown = f.event(event(kind, tournament(), 1, my_seating=seating()))
    assert "Round 1: your seat is seat 0 at table Tm1-0; joining it." in shown
    assert f.port.opened == [("m1-0", "tok-1", 1)]
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_PROGRESS, tournament(), 1, my_seating=seating()))
    assert len(f.port.opened) == 1  # the seat in play is not joined twice


def test_the_round_announced_before_its_table_is_open_waits_for_table_opened() -> None:
    f = Follow()
    shown = f.event(event(KIND.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, tournament(), 1))
    assert "Round 1 of 2 is seated." in shown and "Waiting for your table to open" in shown
    assert not f.port.opened
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_TABLE_OPENED, tournament(), 1, my_seating=seating()))
    assert f.port.opened == [("m1-0", "tok-1", 1)]


def test_a_join_refused_not_found_is_retried_backing_off_within_the_bound() -> None:
    f = Follow()
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, tournament(), 1, my_seating=seating()))
    shown = f.play(CLOSED, Refused(grpc.StatusCode.NOT_FOUND, "no match 'm1-0'"))
    assert "Table Tm1-0 is not open on the engine yet: trying again for up to 1 min" in shown
    assert f.tick(0.4) == "" and len(f.port.opened) == 1
    f.tick(0.2)
    assert [g for _m, _t, g in f.port.opened] == [1, 2]
    # A late item of the first stream is dropped; the retry's refusal waits twice as long.
    assert f.play(CLOSED, Refused(grpc.StatusCode.NOT_FOUND), generation=1) == ""
    assert f.play(CLOSED, Refused(grpc.StatusCode.NOT_FOUND)) == ""  # said once
    f.tick(0.6)
    assert len(f.port.opened) == 2
    f.tick(0.5)
    assert len(f.port.opened) == 3
    # The engine answers: the person plays.
    shown = f.play(MESSAGE, decision())
    assert shown.endswith("[t] auto  [q] quit > ")
    f.type("1")
    assert len(f.port.sent) == 1 and f.port.sent[0].decision_id == 11


def test_a_join_still_refused_after_the_bound_is_told_and_the_person_waits() -> None:
    f = Follow()
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, tournament(), 1, my_seating=seating()))
    shown = ""
    for _ in range(40):
        shown += f.play(CLOSED, Refused(grpc.StatusCode.NOT_FOUND, "no match 'm1-0'"))
        shown += f.tick(10)
    opened = len(f.port.opened)
    assert 2 < opened <= JOIN_RETRY_SECONDS / 8 + 4
    assert "Lost table Tm1-0 (NOT_FOUND: no match 'm1-0'): waiting for the next round" in shown
    assert not f.follower.done and f.follower.attempt is None
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, tournament(2), 2, my_seating=seating(2)))
    assert f.port.opened[-1][0] == "m2-0"


def test_a_revoked_seat_token_is_told_in_one_line_and_not_joined_again() -> None:
    f = Follow()
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT, tournament(), 1, my_seating=seating()))
    f.play(MESSAGE, decision())
    shown = f.play(CLOSED, Refused(grpc.StatusCode.PERMISSION_DENIED, "a bot plays this seat"))
    assert shown.strip().splitlines()[-1] == (
        "Your seat at table Tm1-0 is no longer yours (PERMISSION_DENIED: a bot plays this "
        "seat): waiting for the next round."
    )
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_TABLE_OPENED, tournament(), 1, my_seating=seating()))
    assert len(f.port.opened) == 1
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_TABLE_OPENED, tournament(2), 2, my_seating=seating(2)))
    assert len(f.port.opened) == 2 and not f.follower.done


def test_a_reconnecting_stream_is_told_and_the_decision_comes_anew() -> None:
    f = Follow()
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT, tournament(), 1, my_seating=seating()))
    f.play(MESSAGE, decision())
    shown = f.play(RECONNECTING, "UNAVAILABLE: cannot reach the table engine (gone)")
    assert "joining the table again" in shown
    assert f.play(MESSAGE, decision()).endswith("[q] quit > ")


# ---------------------------------------------------------------------- between rounds


def test_between_rounds_the_result_the_tables_left_the_standings_and_the_next_round() -> None:
    f = Follow()
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, tournament(), 1, my_seating=seating()))
    f.play(MESSAGE, decision())
    shown = f.play(MESSAGE, match_over((-4, 12, -4, -4)))
    assert "Match over. Final scores:" in shown
    assert "Round 1 result: you placed 2nd at your table with -4." in shown
    assert "Round 2 is seated when the other tables finish: 1 of 2 still playing." in shown
    assert f.port.closed >= 1 and f.follower.session is None
    # Keys between rounds.
    assert "Nothing to decide now" in f.type("1")
    finished = tournament(statuses=(pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_FINISHED))
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_MATCH_FINISHED, finished, 1))
    rows = standings(("b1", 30), ("b2", 20), ("b3", 10), ("b4", 5), ("p-mei", -4), ("b5", -9))
    removed = finished.players[2]  # b2
    removed.status, removed.status_reason = mm.PLAYER_STATUS_REMOVED, "cheating"
    finished.next_round_at.FromSeconds(int(f.clock.now) + 125)
    shown = f.event(event(KIND.TOURNAMENT_EVENT_TYPE_ROUND_FINISHED, finished, 1, standings=rows))
    assert "Round 1 of 2 is over." in shown and "Standings after round 1:" in shown
    assert "   1. b1: 30 points" in shown and "   3. b3: 10 points" in shown
    assert "b4" not in shown and "   ...\n" in shown
    assert "   5. p-mei: -4 points, 0 hand(s) won  <- you" in shown
    assert "   2. b2 (removed): 20 points" in shown and "... 6 ranked" in shown
    assert "Round 2 starts at " in shown and "(in 2 min 5 s)" in shown
    # The countdown is said again at its marks.
    assert f.tick(1) == ""
    assert f.tick(5).strip() == "The next round starts in 1 min 59 s."
    assert f.tick(30) == ""
    assert f.tick(30).strip() == "The next round starts in 59 s."
    assert f.type("s").startswith("Standings:\n   1. b1: 30 points")


def test_the_tables_still_playing_are_counted_down_from_the_feed() -> None:
    f = Follow()
    t = tournament(statuses=(pb.MATCH_STATUS_PLAYING, pb.MATCH_STATUS_PLAYING))
    t.tables.append(table(1, "m1-2", ["c1", "c2", "c3", "c4"]))
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_TABLE_OPENED, t, 1, my_seating=seating()))
    shown = f.play(MESSAGE, match_over())
    assert "you placed 1st" in shown and "2 of 3 still playing" in shown
    t.tables[1].status = pb.MATCH_STATUS_FINISHED
    assert "1 of 3 table(s) still playing." in f.event(
        event(KIND.TOURNAMENT_EVENT_TYPE_MATCH_FINISHED, t, 1)
    )
    assert f.event(event(KIND.TOURNAMENT_EVENT_TYPE_PROGRESS, t, 1)) == ""


def test_the_round_time_limit_is_shown_when_set() -> None:
    f = Follow()
    t = tournament()
    t.round_ends_at.FromSeconds(int(f.clock.now) + 1800)
    shown = f.event(event(KIND.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, t, 1))
    assert "The round's time limit: matches end after the hand in play at" in shown
    assert "(in 30 min)" in shown


def test_before_the_start_the_schedule_and_the_check_in() -> None:
    f = Follow()
    t = tournament(0, mm.TOURNAMENT_STATUS_REGISTRATION)
    now = int(f.clock.now)
    t.config.scheduled_start.FromSeconds(now + 3600)
    t.check_in_opens_at.FromSeconds(now + 60)
    t.check_in_closes_at.FromSeconds(now + 3600)
    shown = f.event(event(KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT, t))
    assert "Cup: 2 round(s), 8 registered." in shown
    assert "It starts at " in shown and "(in 1 h)" in shown
    assert "Check-in: from " in shown and "(in 1 min) until " in shown and "(in 1 h)" in shown
    assert f.port.check_ins == 0
    f.port.check_in_error = "UNAVAILABLE: gone"
    assert "Check-in failed: UNAVAILABLE: gone; trying again in 5 s." in f.tick(61)
    assert f.tick(4) == "" and f.port.check_ins == 1
    f.port.check_in_error = None
    assert "You are checked in." in f.tick(1)
    assert f.tick(30) == "" and f.port.check_ins == 2


# ---------------------------------------------------------------------- the end


def with_status(status: int, reason: str = "") -> mm.Tournament:
    return tournament(me=mm.Player(player_id=ME, name="Mei", status=status, status_reason=reason))


def test_removed_or_no_show_stops_with_one_line_and_exit_3() -> None:
    f = Follow()
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT, tournament(), 1, my_seating=seating()))
    shown = f.event(event(KIND.TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED,
                          with_status(mm.PLAYER_STATUS_REMOVED, "abuse"), 1))  # fmt: skip
    assert shown.strip() == "You were removed (abuse): you are out of the tournament."
    assert f.follower.exit_code == EXIT_OUT and f.port.closed
    g = Follow()
    shown = g.event(event(KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT,
                          with_status(mm.PLAYER_STATUS_NO_SHOW, "missed 2 rounds"), 1))  # fmt: skip
    assert "You were marked no-show (missed 2 rounds)" in shown
    assert g.follower.exit_code == EXIT_OUT


def test_an_older_server_s_removed_flag_counts_too() -> None:
    f = Follow()
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT,
                  tournament(me=mm.Player(player_id=ME, removed=True)), 1))  # fmt: skip
    assert f.follower.exit_code == EXIT_OUT


def test_a_withdrawn_person_finishes_the_match_in_play_then_stops() -> None:
    f = Follow()
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT, tournament(), 1, my_seating=seating()))
    f.play(MESSAGE, decision())
    shown = f.event(event(KIND.TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED,
                          with_status(mm.PLAYER_STATUS_WITHDRAWN), 1))  # fmt: skip
    assert "You withdrew from the tournament" in shown and "Finish this match" in shown
    assert not f.follower.done
    f.type("1")
    assert len(f.port.sent) == 1
    shown = f.play(MESSAGE, match_over())
    assert "Round 1 result" in shown and f.follower.exit_code == EXIT_FINISHED


def test_finished_says_the_place_and_cancelled_exits_4() -> None:
    f = Follow()
    rows = standings(("b1", 30), ("p-mei", 20))
    done = tournament(2, mm.TOURNAMENT_STATUS_FINISHED)
    shown = f.event(event(KIND.TOURNAMENT_EVENT_TYPE_FINISHED, done, 2, standings=rows))
    assert "The tournament is over. You finished 2nd of 2 with 20 points." in shown
    assert f.follower.exit_code == EXIT_FINISHED
    g = Follow()
    cancelled = tournament(1, mm.TOURNAMENT_STATUS_CANCELLED)
    cancelled.status_reason = "storm"
    assert "cancelled: storm" in g.event(event(KIND.TOURNAMENT_EVENT_TYPE_CANCELLED, cancelled))
    assert g.follower.exit_code == EXIT_CANCELLED


def test_q_or_the_end_of_input_leaves_the_tournament() -> None:
    f = Follow()
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT, tournament(), 1, my_seating=seating()))
    f.play(MESSAGE, decision())
    shown = f.type("q")
    assert "You left the table." in shown and "You left the tournament" in shown
    assert f.follower.exit_code == EXIT_FINISHED
    g = Follow()
    g.event(event(KIND.TOURNAMENT_EVENT_TYPE_ROUND_SEATED, tournament(), 1))
    g.follower.on_eof()
    assert "Input closed: you left the tournament." in g.new_output()
    assert g.follower.exit_code == EXIT_FINISHED


def test_a_snapshot_after_the_own_match_waits_for_the_next_round() -> None:
    f = Follow()
    t = tournament(statuses=(pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_PLAYING))
    shown = f.event(event(KIND.TOURNAMENT_EVENT_TYPE_SNAPSHOT, t, 1))
    assert "Your match of this round is over; waiting for the next round." in shown
    assert "1 of 2 still playing" in shown and not f.port.opened


def test_a_resumed_feed_replaying_a_played_seat_does_not_join_it_again() -> None:
    f = Follow()
    opened = event(KIND.TOURNAMENT_EVENT_TYPE_TABLE_OPENED, tournament(), 1, my_seating=seating())
    f.event(opened)
    f.play(MESSAGE, match_over())
    replayed = f.event(opened)  # the feed resumed from an earlier sequence number
    assert "joining it" not in replayed and len(f.port.opened) == 1
    f.event(event(KIND.TOURNAMENT_EVENT_TYPE_TABLE_OPENED, tournament(2), 2, my_seating=seating(2)))
    assert [m for m, _t, _g in f.port.opened] == ["m1-0", "m2-0"]
