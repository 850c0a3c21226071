"""The scale benchmark's scripted people and options, the parts that need no engine: the
percentiles of the client's samples, the seeded pace, the answer chosen, the kinds of round
trip and the discard's hold taken off, what counts while measuring; the bot workers sized
for the seats, the pace checked against the engine's, the replica list parsed."""

from __future__ import annotations

import random

import pytest

from hebei.bench.scale import check_pace, engine_bot_pace, worker_plan
from hebei.bench.scale_people import (
    CLAIM,
    DISCARD,
    TURN,
    RoundTrips,
    beyond_hold,
    choose,
    kind_of,
    percentile,
    think_seconds,
)
from hebei.cli.bench import parse_replicas
from hebei.v1 import types_pb2 as pb


@pytest.mark.parametrize(
    ("samples", "q", "expected"),
    [
        ([3.0, 1.0, 2.0], 0.5, 2.0),
        ([float(n) for n in range(1, 101)], 0.99, 99.0),
        ([float(n) for n in range(1, 101)], 0.5, 50.0),
        ([float(n) for n in range(1, 1001)], 0.99, 990.0),
        ([5.0], 0.99, 5.0),
        ([1.0, 2.0], 0.0, 1.0),  # the least sample
        ([1.0, 2.0], 1.0, 2.0),
        ([], 0.5, None),
    ],
)
def test_percentile_is_the_nearest_rank(samples, q, expected) -> None:
    assert percentile(samples, q) == expected


def test_percentile_refuses_a_quantile_out_of_range() -> None:
    with pytest.raises(ValueError, match="q must be 0-1"):
        percentile([1.0], 1.5)


def test_think_seconds_stay_within_the_jitter_and_repeat_with_the_seed() -> None:
    first = [think_seconds(2.0, random.Random(7)) for _ in range(3)]
    rng = random.Random(7)
    drawn = [think_seconds(2.0, rng) for _ in range(2000)]
    assert drawn[0] == first[0]  # the same seed, the same pace
    assert 1.5 <= min(drawn) < 1.55 and 2.45 < max(drawn) <= 2.5
    assert sum(drawn) / len(drawn) == pytest.approx(2.0, abs=0.03)


def action(kind: int, tile: int = 0) -> pb.Action:
    return pb.Action(kind=kind, tile=tile)


def test_choose_wins_then_passes_then_discards_the_first_legal_tile() -> None:
    discards = [action(pb.ACTION_KIND_DISCARD, 5), action(pb.ACTION_KIND_DISCARD, 9)]
    kong = action(pb.ACTION_KIND_CONCEALED_KONG, 5)
    assert choose([kong, *discards]) == discards[0]
    assert choose([action(pb.ACTION_KIND_PONG), action(pb.ACTION_KIND_PASS)]).kind == (
        pb.ACTION_KIND_PASS
    )
    assert choose([*discards, action(pb.ACTION_KIND_WIN)]).kind == pb.ACTION_KIND_WIN
    assert choose([kong]) == kong  # nothing else: the first legal action


def test_kinds_of_round_trip() -> None:
    assert kind_of(pb.PHASE_CLAIM, action(pb.ACTION_KIND_PASS)) == CLAIM
    assert kind_of(pb.PHASE_ROB_KONG, action(pb.ACTION_KIND_WIN)) == CLAIM
    assert kind_of(pb.PHASE_TURN, action(pb.ACTION_KIND_DISCARD)) == DISCARD
    assert kind_of(pb.PHASE_TURN, action(pb.ACTION_KIND_ADDED_KONG)) == DISCARD
    assert kind_of(pb.PHASE_TURN, action(pb.ACTION_KIND_WIN)) == TURN
    assert kind_of(pb.PHASE_TURN, action(pb.ACTION_KIND_CONCEALED_KONG)) == TURN


def test_beyond_hold_takes_the_hold_off_the_discards_only() -> None:
    samples = {CLAIM: [0.004], DISCARD: [0.806, 0.8], TURN: [0.01]}
    assert beyond_hold(samples, 0.8) == pytest.approx([0.004, 0.01, 0.006, 0.0])
    assert beyond_hold(samples, 0.8, discards=False) == pytest.approx([0.004, 0.01])


def test_round_trips_count_only_while_measuring() -> None:
    trips = RoundTrips()
    trips.add(CLAIM, 0.5)
    trips.measuring = True
    trips.add(CLAIM, 0.004)
    trips.measuring = False
    trips.add(TURN, 0.5)
    assert trips.samples == {CLAIM: [0.004], DISCARD: [], TURN: []}
    assert trips.errors() == {}
    trips.reconnects, trips.failed = 1, ["m seat 0: UNAUTHENTICATED: wrong seat token"]
    assert trips.errors() == {"people_reconnects": 1, "people_streams_failed": 1}


@pytest.mark.parametrize(
    ("seats", "processes", "expected"),
    [
        (768, 2, (1, 388)),  # 256 tables of one person: 384 a process and 4 spare
        (96, 2, (1, 52)),
        (6144, 2, (4, 772)),  # 2048 tables: more workers once a process would pass 1,020
        (0, 2, (0, 1)),  # four people a table: no worker
    ],
)
def test_worker_plan_gives_every_bot_seat_a_session(seats, processes, expected) -> None:
    workers, sessions = worker_plan(seats, processes, 1024)
    assert (workers, sessions) == expected
    assert sessions <= 1024 and workers * processes * (sessions - 4) >= seats


def test_the_pace_must_leave_the_engines_bot_pace_behind() -> None:
    check_pace(2.0, 0.8)  # answers from 1.5 s
    with pytest.raises(ValueError, match=r"--pace 1 answers as early as 0.75 s.*above 1.07 s"):
        check_pace(1.0, 0.8)
    assert engine_bot_pace({}) == 0.8
    assert engine_bot_pace({"HEBEI_TABLE_BOT_PACE_SECONDS": "0.05"}) == 0.05


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1,2,3", (1, 2, 3)), ("2", (2,)), (" 1, 3 ", (1, 3)), ("8,8", (8, 8))],
)
def test_parse_replicas(text: str, expected: tuple[int, ...]) -> None:
    assert parse_replicas(text) == expected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "numbers separated by commas"),
        ("1,,2", "numbers separated by commas"),
        ("1,x", "numbers separated by commas"),
        ("0", "each must be 1-8, got 0"),
        ("1,9", "each must be 1-8, got 9"),
        ("1,1,1,1,1,1,1,1,1", "at most 8 configurations"),
    ],
)
def test_parse_replicas_refuses(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_replicas(text)
