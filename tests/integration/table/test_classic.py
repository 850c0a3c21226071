"""The classic profile (RULES.md §9) through the table engine: a whole classic match played by
four scripted clients over gRPC (chows on the wire, the ledger books classic points), and the
false win (诈胡) of a person's seat, which a bot's seat and the main rules refuse."""

from __future__ import annotations

from contextlib import contextmanager

from hebei.common import convert
from hebei.rules.melds import MeldKind
from hebei.rules.replay import replay_log, replay_match
from hebei.table.export import export_match_log
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import (
    LOG_KEY,
    OPERATOR,
    SeatClient,
    ledger_audit,
    ledger_entries,
    new_match_request,
    play_clients,
)
from tests.integration.table.helpers import rules_events, stored_events, wait_for


def classic_request(**fields) -> table_pb2.OpenMatchRequest:
    request = new_match_request(**fields)
    request.rule_profile.name = "classic"
    return request


def test_four_clients_play_a_whole_classic_match(engine, ledger, matchmaking) -> None:
    request = classic_request(hands=6, seed=21)
    opened = engine.stub.OpenMatch(request, metadata=OPERATOR)
    assert opened.match.rule_profile.name == "classic"
    clients = play_clients(engine.channel, request.match_id, seed=4)
    for client in clients:
        client.join(120)
        assert client.error is None, client.error
        assert not client.rejections  # every legal classic action is taken
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
    assert info.status == pb.MATCH_STATUS_FINISHED and info.hands_played == 6

    # The stored log replays through the classic rules to the same scores.
    events = stored_events(engine.engine.store, request.match_id)
    replayed = replay_match(rules_events(events))
    assert replayed.profile.name == "classic" and replayed.finished
    assert [info.seats[s].score for s in range(4)] == replayed.scores
    assert sum(replayed.scores) == 0

    # Chows were offered and made, and seen on the wire as chow melds.
    observations = [o for c in clients for o in c.observations]
    assert all(o.rule_profile.name == "classic" for o in observations)
    offered = [a for o in observations for a in o.legal_actions if a.kind == pb.ACTION_KIND_CHOW]
    assert offered and all(a.chow_base for a in offered)
    chow_events = [e for e in events if e["type"] == "chow"]
    assert chow_events
    melds = [m for o in observations for v in o.seats for m in v.melds]
    assert any(m.kind == pb.MELD_KIND_CHOW for m in melds)
    views = [convert.observation_from_proto(o) for o in observations if o.phase > 1]
    assert any(m.kind is MeldKind.CHOW for v in views for s in v.seats for m in s.melds)

    # Every hand was booked with its classic figures; the books balance.
    assert wait_for(lambda: len(ledger_entries(ledger, request.match_id)) == 6)
    entries = ledger_entries(ledger, request.match_id)
    for entry in entries:
        assert entry.settlement.rule_profile == "classic"
        assert sum(p.amount for p in entry.postings) == 0
        for win in entry.settlement.wins:
            assert win.points > 0 and win.bonus == 0
            assert any(not f.doubling for f in win.fans)
    assert any(entry.settlement.wins for entry in entries)
    assert ledger_audit(ledger).ok
    assert wait_for(lambda: request.match_id in matchmaking.servicer.results)
    assert [s.score for s in matchmaking.servicer.results[request.match_id].seats] == (
        replayed.scores
    )


@contextmanager
def false_win_declared(engine, request: table_pb2.OpenMatchRequest):
    """Open ``request`` with four silent clients; the first seat with a decision (the
    dealer) sends a WIN that is not among its legal actions. Yields (that client, the
    observation it answered, every client); the clients are closed afterwards."""
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    clients = [
        SeatClient(engine.channel, request.match_id, seat, stop_after=0).start()
        for seat in range(4)
    ]
    try:
        assert wait_for(
            lambda: any(o.decision_id for c in clients for o in c.observations), timeout=30
        )
        deciding = next(c for c in clients if any(o.decision_id for o in c.observations))
        obs = next(o for o in deciding.observations if o.decision_id)
        assert deciding.seat == obs.dealer  # the dealer's first turn
        assert all(a.kind != pb.ACTION_KIND_WIN for a in obs.legal_actions)  # no dealt win
        deciding.send(pb.Action(kind=pb.ACTION_KIND_WIN, decision_id=obs.decision_id))
        yield deciding, obs, clients
    finally:
        for client in clients:
            client.close()


def test_a_person_may_declare_a_false_win_and_pays_for_it(engine, ledger, matchmaking) -> None:
    request = classic_request(hands=1, seed=5, per_decision=60.0)
    for seat in request.seats:
        seat.kind = pb.SEAT_KIND_PERSON
    with false_win_declared(engine, request) as (deciding, obs, clients):
        assert wait_for(lambda: all(c.finished.is_set() for c in clients), timeout=30), (
            "the match did not end on the false win"
        )
    dealer_seat = obs.dealer
    assert not deciding.rejections
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
    assert info.status == pb.MATCH_STATUS_FINISHED
    scores = [info.seats[s].score for s in range(4)]
    assert scores == [-6 if s == dealer_seat else 2 for s in range(4)]  # the dealer pays 2 each
    events = stored_events(engine.engine.store, request.match_id)
    assert {"type": "win", "seat": dealer_seat, "false_win": True} in events
    last = deciding.observations[-1]
    assert last.settlement.outcome == pb.HAND_OUTCOME_FALSE_WIN
    assert list(last.settlement.false_wins) == [dealer_seat]
    spectated = []
    for response in engine.stub.Spectate(
        table_pb2.SpectateRequest(match_id=request.match_id, from_seq=1), timeout=30
    ):
        spectated.append(response.event)
        if response.event.type == pb.EVENT_TYPE_MATCH_END:
            break
    (win,) = [e for e in spectated if e.type == pb.EVENT_TYPE_WIN]
    assert win.false_win and win.seat == dealer_seat and not win.HasField("win")
    assert wait_for(lambda: len(ledger_entries(ledger, request.match_id)) == 1)
    (entry,) = ledger_entries(ledger, request.match_id)
    assert entry.settlement.outcome == pb.HAND_OUTCOME_FALSE_WIN
    assert [r.total_delta for r in entry.settlement.results] == scores
    assert ledger_audit(ledger).ok


def _refused_false_win(engine, request: table_pb2.OpenMatchRequest) -> str:
    """The refusal of a false win that ``request``'s rules or seat kinds do not allow; the
    hand goes on."""
    with false_win_declared(engine, request) as (deciding, _, _):
        assert wait_for(lambda: bool(deciding.rejections), timeout=30)
        info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
        assert info.status == pb.MATCH_STATUS_PLAYING and info.hands_played == 0
        return deciding.rejections[0].message


def test_a_bot_seat_cannot_declare_a_false_win(engine) -> None:
    message = _refused_false_win(engine, classic_request(hands=1, seed=5, per_decision=60.0))
    assert message == "a bot seat cannot win now"


def test_the_main_rules_refuse_a_false_win_of_a_person(engine) -> None:
    request = new_match_request(hands=1, seed=5, per_decision=60.0)
    for seat in request.seats:
        seat.kind = pb.SEAT_KIND_PERSON
    message = _refused_false_win(engine, request)
    assert "cannot win now" in message and "bot" not in message


def test_a_classic_match_refuses_a_malformed_chow(engine) -> None:
    request = classic_request(hands=1, seed=5, per_decision=60.0)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    client = SeatClient(engine.channel, request.match_id, 0, stop_after=0).start()
    try:
        assert wait_for(lambda: bool(client.observations), timeout=30)
        client.send(pb.Action(kind=pb.ACTION_KIND_CHOW, decision_id=1))
        assert wait_for(lambda: bool(client.rejections), timeout=30)
        assert "chow_base" in client.rejections[0].message
    finally:
        client.close()


def test_a_classic_match_resumes_after_a_restart_and_its_log_replays_signed(
    start_engine, ledger
) -> None:
    first = start_engine(ready_seconds=0.2, rejoin_seconds=30.0)
    request = classic_request(hands=3, seed=33)
    first.stub.OpenMatch(request, metadata=OPERATOR)
    clients = play_clients(first.channel, request.match_id, seed=2)

    def chowed() -> bool:
        events = stored_events(first.engine.store, request.match_id)
        return any(e["type"] == "chow" for e in events)

    assert wait_for(chowed, timeout=60), "no chow in the first hands"
    first.close()  # mid-match, after a chow: the streams break
    for client in clients:
        client.join(30)
    second = start_engine(ready_seconds=0.2, rejoin_seconds=30.0)
    before = stored_events(second.engine.store, request.match_id)
    assert sum(e["type"] == "hand_end" for e in before) < 3  # the match was cut short
    clients = play_clients(second.channel, request.match_id, seed=3)
    for client in clients:
        client.join(120)
        assert client.error is None, client.error
    info = second.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
    assert info.status == pb.MATCH_STATUS_FINISHED and info.rule_profile.name == "classic"
    replayed = replay_log(export_match_log(second.engine.store, request.match_id), LOG_KEY)
    assert replayed.check.verified
    assert replayed.match.profile.name == "classic"
    assert [info.seats[s].score for s in range(4)] == replayed.match.scores
    assert wait_for(lambda: len(ledger_entries(ledger, request.match_id)) == 3)
    keys = [e.idempotency_key for e in ledger_entries(ledger, request.match_id)]
    assert sorted(keys) == [f"{request.match_id}:{n}" for n in (1, 2, 3)]  # each once
    assert ledger_audit(ledger).ok


class IllegalFirstClient(SeatClient):
    """A scripted seat that answers each decision with two illegal actions (chows, pongs,
    kongs, discards and wins it may not make), then the greedy legal one."""

    sent_illegal = 0

    def _answer(self, obs: pb.Observation) -> None:
        view = convert.observation_from_proto(obs)
        kinds = (
            pb.ACTION_KIND_CHOW,
            pb.ACTION_KIND_PONG,
            pb.ACTION_KIND_EXPOSED_KONG,
            pb.ACTION_KIND_DISCARD,
            pb.ACTION_KIND_WIN,
            pb.ACTION_KIND_PASS,
        )
        illegal = []
        while len(illegal) < 2:
            kind, tile = self._rng.choice(kinds), self._rng.randrange(1, 35)
            message = pb.Action(kind=kind, decision_id=obs.decision_id)
            if kind == pb.ACTION_KIND_CHOW:
                message.chow_base = tile
            elif kind not in (pb.ACTION_KIND_WIN, pb.ACTION_KIND_PASS):
                message.tile = tile
            if convert.action_from_proto(message) not in view.legal_actions:
                illegal.append(message)
        for message in illegal:
            self.send(message)
        self.sent_illegal += len(illegal)
        super()._answer(obs)


def test_illegal_actions_at_a_classic_table_are_refused_and_change_nothing(engine, ledger) -> None:
    request = classic_request(hands=2, seed=41)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    clients = [
        IllegalFirstClient(engine.channel, request.match_id, s, seed=5).start() for s in range(4)
    ]
    for client in clients:
        client.join(120)
        assert client.error is None, client.error
        # Every illegal action was refused, on the decision it was sent for.
        assert len(client.rejections) == client.sent_illegal > 0
        assert {r.code for r in client.rejections} == {"FAILED_PRECONDITION"}
    # The log holds the legal game only: it replays, and nothing was auto-played.
    events = stored_events(engine.engine.store, request.match_id)
    replayed = replay_match(rules_events(events))
    assert replayed.finished and replayed.profile.name == "classic"
    assert not any(e.get("auto") for e in events)
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
    assert [info.seats[s].score for s in range(4)] == replayed.scores
    assert sum(replayed.scores) == 0
