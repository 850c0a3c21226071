"""Hidden information: across a whole match, no observation sent to a seat and no spectate
message shows another seat's concealed tiles, the wall or the seed (until the match ends)."""

from __future__ import annotations

import threading

import grpc

from hebei.common import convert
from hebei.rules.replay import replay_match
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import OPERATOR, new_match_request, play_clients
from tests.integration.table.helpers import rules_events, stored_events

SEED = 0x5EED_0BAD_CAFE  # a distinctive seed, easy to look for
HAND_OVER_PHASES = (pb.PHASE_HAND_END, pb.PHASE_MATCH_END)


def check_event(event: pb.Event, viewer: int | None) -> None:
    """What a viewer (a seat, or None for a spectator) may see of one event, before the end."""
    if event.type != pb.EVENT_TYPE_MATCH_END:
        assert event.seed == 0, event
    if event.type not in (pb.EVENT_TYPE_HAND_END, pb.EVENT_TYPE_WIN):
        assert not event.HasField("settlement") and not event.HasField("win"), event
    own = viewer is not None and event.HasField("seat") and event.seat == viewer
    if event.type == pb.EVENT_TYPE_DRAW and not own:
        assert event.tile == pb.TILE_UNSPECIFIED, event
    concealed_kong = event.meld.kind == pb.MELD_KIND_CONCEALED_KONG
    if event.type == pb.EVENT_TYPE_KONG and concealed_kong and not own:
        assert event.tile == pb.TILE_UNSPECIFIED and event.meld.tile == 0, event
    if event.type == pb.EVENT_TYPE_PASS:
        assert own, event  # a pass would tell the others what a seat could have claimed


def check_observation(obs: pb.Observation, viewer: int) -> None:
    assert obs.seat == viewer
    assert str(SEED) not in str(obs)
    if obs.HasField("last_event"):
        check_event(obs.last_event, viewer)
    if obs.phase not in HAND_OVER_PHASES:
        assert not obs.HasField("settlement"), obs
    assert len(obs.concealed) == obs.seats[viewer].concealed_count
    for view in obs.seats:
        assert not hasattr(view, "concealed")  # a seat view has no tiles of a hand
        if view.seat != viewer:
            for meld in view.melds:
                if meld.kind == pb.MELD_KIND_CONCEALED_KONG:
                    assert meld.tile == pb.TILE_UNSPECIFIED
    if obs.drawn:
        assert obs.current_seat == viewer and obs.drawn in obs.concealed


def test_no_hidden_information_leaks_across_a_match(engine) -> None:
    request = new_match_request(hands=4, seed=SEED)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    spectated: list[pb.Event] = []

    def watch() -> None:
        try:
            for message in engine.stub.Spectate(
                table_pb2.SpectateRequest(match_id=request.match_id, from_seq=1)
            ):
                spectated.append(message.event)
        except grpc.RpcError:
            pass

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    clients = play_clients(engine.channel, request.match_id, seed=3)
    for client in clients:
        client.join(60)
        assert client.error is None
    watcher.join(20)
    replayed = replay_match(rules_events(stored_events(engine.engine.store, request.match_id)))

    hidden_draws = own_draws = 0
    for client in clients:
        hand_ends = []
        for obs in client.observations:
            if obs.match_finished:  # the last hand's end comes with the match's end
                hand_ends += [obs] if obs.HasField("settlement") else []
                continue
            check_observation(obs, client.seat)
            event = obs.last_event
            if event.type == pb.EVENT_TYPE_DRAW:
                if event.seat == client.seat:
                    own_draws += event.tile != pb.TILE_UNSPECIFIED
                else:
                    hidden_draws += 1
            if obs.phase == pb.PHASE_HAND_END:
                hand_ends.append(obs)
        # Each seat's own hand is the true one (checked at every hand end against the replay).
        assert len(hand_ends) == 4
        for obs, hand_log in zip(hand_ends, replayed.hand_logs, strict=True):
            truth = _final_hand(hand_log, client.seat)
            assert [convert.tile_from_proto(t) for t in obs.concealed] == truth
    assert hidden_draws > 50 and own_draws > 20  # the checks above really ran

    assert spectated[-1].type == pb.EVENT_TYPE_MATCH_END and spectated[-1].seed == SEED
    for event in spectated[:-1]:
        check_event(event, None)
        assert str(SEED) not in str(event)
    assert not any(e.type == pb.EVENT_TYPE_PASS for e in spectated)
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
    assert info.seed == SEED  # published for audit once the match has ended


def test_the_seed_is_not_published_while_playing(engine) -> None:
    request = new_match_request(hands=1, seed=SEED)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
    assert info.seed == 0
    listed = engine.stub.ListTables(table_pb2.ListTablesRequest()).matches
    assert all(m.seed == 0 for m in listed if m.match_id == request.match_id)


def _final_hand(hand_log: list[dict], seat: int) -> list[int]:
    from hebei.rules.replay import replay_hand

    state = replay_hand(hand_log)
    return [k for k, c in enumerate(state.hands[seat]) for _ in range(c)]
