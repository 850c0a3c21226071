"""Round trips between hebei.rules values and hebei.v1 messages (hebei.common.convert)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from hebei.common import convert
from hebei.rules.actions import _INTERNED, PASS, WIN, Action, ActionKind
from hebei.rules.errors import NotationError
from hebei.rules.hand import HandState
from hebei.rules.match import MatchLength
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.views import HIDDEN, observe, public_event
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.unit.table.greedy import greedy_choice


def greedy_hand(seed: int) -> HandState:
    """Play a hand with seeded greedy players."""
    rng = random.Random(seed)
    state = HandState(seed, dealer=seed % 4, hand_no=seed % 3)
    while not state.ended:
        seat = state.to_act()[0]
        options = state.legal_actions(seat)
        state.apply(seat, greedy_choice(options, state.hands[seat], len(state.melds[seat]), rng))
    return state


@pytest.mark.parametrize("kind", range(34))
def test_tile_round_trip(kind: int) -> None:
    assert convert.tile_to_proto(kind) == kind + 1
    assert convert.tile_from_proto(convert.tile_to_proto(kind)) == kind


def test_no_tile_and_hidden_tile_are_unspecified() -> None:
    assert convert.tile_to_proto(None) == pb.TILE_UNSPECIFIED
    assert convert.tile_to_proto(HIDDEN) == pb.TILE_UNSPECIFIED
    assert convert.tile_from_proto(pb.TILE_UNSPECIFIED) is None
    assert pb.Tile.Name(convert.tile_to_proto(27)) == "TILE_EAST"
    assert pb.Tile.Name(convert.tile_to_proto(33)) == "TILE_RED"


@pytest.mark.parametrize("value", [35, 99, -1])
def test_unknown_tile_is_refused(value: int) -> None:
    with pytest.raises(NotationError, match="unknown tile"):
        convert.tile_from_proto(value)


@pytest.mark.parametrize(
    "meld",
    [
        Meld(MeldKind.PONG, 31, 2),
        Meld(MeldKind.EXPOSED_KONG, 0, 0),
        Meld(MeldKind.ADDED_KONG, 17, 3),
        Meld(MeldKind.CONCEALED_KONG, 26),
        Meld(MeldKind.CONCEALED_KONG, HIDDEN),
    ],
)
def test_meld_round_trip(meld: Meld) -> None:
    assert convert.meld_from_proto(convert.meld_to_proto(meld)) == meld


def test_meld_without_tile_or_kind_is_refused() -> None:
    with pytest.raises(NotationError, match="needs its tile"):
        convert.meld_from_proto(pb.Meld(kind=pb.MELD_KIND_PONG))
    with pytest.raises(NotationError, match="not played"):  # chows: tests/unit/contracts
        convert.meld_from_proto(pb.Meld(kind=pb.MELD_KIND_UNSPECIFIED, tile=pb.TILE_1M))


@pytest.mark.parametrize("action", list(_INTERNED.values()), ids=str)
def test_action_round_trip(action: Action) -> None:
    message = convert.action_to_proto(action, decision_id=7)
    assert message.decision_id == 7
    assert convert.action_from_proto(message) is action


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (pb.Action(kind=pb.ACTION_KIND_HAND_OVER), "seat-control"),
        (pb.Action(kind=pb.ACTION_KIND_CHOW, tile=pb.TILE_1M), "chow"),
        (pb.Action(kind=pb.ACTION_KIND_UNSPECIFIED), "unknown action"),
        (pb.Action(kind=pb.ACTION_KIND_DISCARD), "needs a tile"),
        (pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=77), "unknown tile"),
    ],
)
def test_malformed_action_is_refused(message: pb.Action, reason: str) -> None:
    with pytest.raises(NotationError, match=reason):
        convert.action_from_proto(message)


@pytest.mark.parametrize(
    "length", [MatchLength(hands=1), MatchLength(hands=8), MatchLength(hands=0, cap=12)]
)
def test_length_round_trip(length: MatchLength) -> None:
    assert convert.length_from_proto(convert.length_to_proto(length)) == length


def test_bad_length_is_refused() -> None:
    with pytest.raises(NotationError):
        convert.length_from_proto(pb.MatchLength())
    with pytest.raises(NotationError):
        convert.length_from_proto(pb.MatchLength(hands=0))
    with pytest.raises(NotationError):
        convert.length_from_proto(pb.MatchLength(wind_rounds=pb.WindRounds(rounds=2)))


@pytest.mark.parametrize("seed", range(6))
def test_observation_round_trip_through_a_whole_hand(seed: int) -> None:
    rng = random.Random(seed)
    state = HandState(seed, dealer=seed % 4, hand_no=2)
    scores = (5, -5, 10, -10)
    steps = 0
    while True:
        for seat in range(4):
            obs = observe(state, seat, scores)
            message = convert.observation_to_proto(obs, decision_id=steps + 1, match_id="m")
            assert message.hand_no == 3
            back = convert.observation_from_proto(message)
            assert back == obs
            # Built through the slots' setters: the same instance as the dataclass's own.
            assert hash(back) == hash(obs) and repr(back) == repr(obs)
            assert [hash(v) for v in back.seats] == [hash(v) for v in obs.seats]
        if state.ended:
            break
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        steps += 1


@pytest.mark.parametrize("seed", range(3))
def test_an_observation_built_into_a_response_is_the_same_message(seed: int) -> None:
    """``into``: the engine builds an observation in its response's field (no copy); every
    field as built on its own, byte for byte, whatever the table's extras."""
    rng = random.Random(seed)
    state = HandState(seed, dealer=seed % 4, hand_no=1)
    seats = [convert.SeatPublic(f"P{s}", pb.SEAT_KIND_BOT, s != 2, s == 3) for s in range(4)]
    extras = {
        "table_id": "t",
        "match_id": "m",
        "seats": seats,
        "deadline": 1_700_000_000.25,
        "time_bank": 12.5,
        "last_event": pb.Event(seq=4, match_id="m", type=pb.EVENT_TYPE_DISCARD, tile=5),
        "rule_profile": "main",
        "length": MatchLength(hands=8),
        "wind_round": bool(seed % 2),
    }
    compared = 0
    while not state.ended:
        for seat in range(4):
            for decision in (0, compared + 1):
                obs = observe(state, seat, (1, 2, 3, -6))
                alone = convert.observation_to_proto(obs, decision_id=decision, **extras)
                response = table_pb2.PlayResponse()
                built = convert.observation_to_proto(
                    obs, decision_id=decision, into=response.observation, **extras
                )
                assert built is response.observation
                expected = table_pb2.PlayResponse(observation=alone).SerializeToString()
                assert response.SerializeToString() == expected
                compared += 1
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert compared > 100


def test_observation_without_decision_has_no_legal_actions() -> None:
    state = HandState(1, dealer=0)
    message = convert.observation_to_proto(observe(state, 0))
    assert not message.legal_actions and message.decision_id == 0
    assert message.phase == pb.PHASE_TURN
    assert message.seats[0].seat_wind == pb.TILE_EAST
    assert message.seats[3].seat_wind == pb.TILE_NORTH


def test_settlement_of_won_hands() -> None:
    won = 0
    for seed in range(12):
        state = greedy_hand(seed)
        message = convert.settlement_to_proto(
            state.result.settlement,
            match_id="m1",
            hand_no=state.hand_no + 1,
            dealer=state.dealer,
            player_ids=["a", "b", "c", "d"],
        )
        assert message.idempotency_key == f"m1:{state.hand_no + 1}"
        assert sum(r.total_delta for r in message.results) == 0
        assert [r.total_delta for r in message.results] == list(state.result.settlement.total)
        for win, scored in zip(message.wins, state.result.settlement.wins, strict=True):
            won += 1
            assert win.bonus == sum(f.fan for f in win.fans) == scored.bonus
            assert all(f.name_zh for f in win.fans)
            assert sum(win.deltas) == 0 and win.deltas[win.winner] > 0
            assert convert.tile_from_proto(win.win_tile) == scored.win_tile
        if not state.result.settlement.wins:
            assert message.outcome == pb.HAND_OUTCOME_EXHAUSTIVE_DRAW
    assert won > 5  # the greedy players win often enough for this test to mean something


def test_events_as_a_spectator_and_as_a_seat() -> None:
    state = greedy_hand(3)
    types = set()
    for event in state.events:
        for viewer in (None, 0, 1):
            seen = public_event(event, viewer)
            if seen is None:
                assert event["type"] == "pass" and event["seat"] != viewer
                continue
            message = convert.event_to_proto(seen, seq=1, match_id="m", hand_no=1)
            if event["type"] == "deal":
                assert message is None
                continue
            types.add(message.type)
            assert message.seed == 0
            if event["type"] == "draw":
                hidden = viewer != event["seat"]
                assert (message.tile == pb.TILE_UNSPECIFIED) == hidden
    assert {pb.EVENT_TYPE_HAND_START, pb.EVENT_TYPE_DRAW, pb.EVENT_TYPE_DISCARD} <= types


def test_match_end_event_carries_seed_and_scores() -> None:
    event = {"type": "match_end", "hands": 4, "scores": [1, 2, -1, -2], "seed": 2**63 + 5}
    message = convert.event_to_proto(event, seq=9, match_id="m", hand_no=0, time=1.5)
    assert message.type == pb.EVENT_TYPE_MATCH_END
    assert list(message.scores) == [1, 2, -1, -2] and message.seed == 2**63 + 5
    assert message.time.ToNanoseconds() == 1_500_000_000


def test_pass_and_win_actions_carry_no_tile() -> None:
    assert convert.action_to_proto(PASS).tile == pb.TILE_UNSPECIFIED
    assert convert.action_to_proto(WIN).tile == pb.TILE_UNSPECIFIED


def test_a_bad_tile_in_a_list_is_refused_as_one_alone_is() -> None:
    with pytest.raises(NotationError, match="tile kind must be"):
        convert.observation_to_proto(
            dataclasses.replace(observe(greedy_hand(1), 0), hand=(0, 1, 34))
        )
    message = convert.observation_to_proto(observe(greedy_hand(1), 0))
    message.concealed.append(pb.TILE_UNSPECIFIED)
    with pytest.raises(NotationError, match="the hand has a hidden tile"):
        convert.observation_from_proto(message)
    message.concealed[-1] = 99
    with pytest.raises(NotationError, match="unknown tile"):
        convert.observation_from_proto(message)


def test_actions_read_again_are_the_same_and_the_remembered_ones_are_bounded() -> None:
    for value in range(1, 35):
        message = pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=value, decision_id=value)
        assert convert.action_from_proto(message) is Action(ActionKind.DISCARD, value - 1)
        assert convert.action_from_proto(message) is Action(ActionKind.DISCARD, value - 1)
    for value in range(3 * convert._ACTIONS_READ_MAX):  # junk in a field a discard ignores
        message = pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=1, chow_base=value)
        assert convert.action_from_proto(message) is Action(ActionKind.DISCARD, 0)
    assert len(convert._ACTIONS_READ) <= convert._ACTIONS_READ_MAX
    with pytest.raises(NotationError, match="unknown tile"):  # refused however often it comes
        convert.action_from_proto(pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=99))
    with pytest.raises(NotationError, match="unknown tile"):
        convert.action_from_proto(pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=99))


def test_an_observation_with_seats_missing_or_out_of_order_is_refused() -> None:
    message = convert.observation_to_proto(observe(greedy_hand(1), 0))
    shuffled = pb.Observation()
    shuffled.CopyFrom(message)
    shuffled.seats[0].seat, shuffled.seats[1].seat = 1, 0
    with pytest.raises(NotationError, match="four seats 0-3 in order"):
        convert.observation_from_proto(shuffled)
    del message.seats[3]
    with pytest.raises(NotationError, match="four seats 0-3 in order"):
        convert.observation_from_proto(message)


def test_only_a_dataclass_without_checks_is_built_through_its_slots() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        value: int

        def __post_init__(self) -> None:
            raise ValueError

    @dataclasses.dataclass(frozen=True, slots=True)
    class Pair:
        first: int
        second: int

    with pytest.raises(TypeError, match="through __init__"):
        convert._slot_setters(Checked)
    # Every field, in its order (a missing one is refused).
    setters = convert._slot_setters(Pair)
    assert convert._frozen(Pair, setters, 1, 2) == Pair(1, 2)
    with pytest.raises(ValueError):
        convert._frozen(Pair, setters, 1)
