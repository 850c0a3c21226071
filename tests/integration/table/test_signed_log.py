"""The engine's event log is chained and signed as it is written: the exported log of a real
match verifies with the operator's key, an edit in the database is named, a restart (after
SIGKILL too) continues the chain, a log that no longer verifies does not resume, and rows from
before signing are reported as unsigned."""

from __future__ import annotations

import logging
import secrets
import threading

import grpc
import psycopg
import pytest
from psycopg import sql

from hebei.common.config import ConfigError, EnvReader
from hebei.common.errors import NotFound
from hebei.rules.chain import RECORD, link, open_log
from hebei.rules.errors import ReplayError
from hebei.rules.replay import replay_log
from hebei.table.eventlog import TABLE_EVENTS
from hebei.table.export import export_from_database, export_match_log
from hebei.table.logkey import KEY_FILE, local_log_key, log_key_from_env
from hebei.table.service import TableConfig
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import (
    LOG_KEY,
    OPERATOR,
    SeatClient,
    new_match_request,
    play_clients,
)
from tests.integration.table.helpers import EngineProcess, engine_env, wait_for
from tests.integration.table.test_restart import ResilientClient

OTHER_KEY = b"another-operator-key-0123456789abcdef"


def _finished(engine, match_id: str) -> bool:
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=5).match
    return info.status == pb.MATCH_STATUS_FINISHED


def _play(engine, hands: int = 1, seed: int = 21) -> str:
    request = new_match_request(hands=hands, seed=seed)
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    for client in play_clients(engine.channel, request.match_id):
        client.join(90)
        assert client.error is None
    assert wait_for(lambda: _finished(engine, request.match_id), timeout=30)
    store = engine.engine.store
    assert wait_for(lambda: store.durable_seq(request.match_id) == _logged(engine, request))
    return request.match_id


def _logged(engine, request) -> int:
    return len(engine.engine.host.get(request.match_id).log)


def _sql(config, statement: str, params: tuple) -> None:
    with psycopg.connect(config.database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(config.schema)))
        conn.execute(statement, params)


def test_a_played_match_exports_a_log_signed_by_the_engine(engine) -> None:
    match_id = _play(engine, hands=2)
    rows = engine.engine.store.load_match(match_id).events
    for row in rows:  # rules events carry their link and signature; table events none
        chained = row.event["type"] not in TABLE_EVENTS
        assert (row.chain is not None, row.mac is not None) == (chained, chained)
    exported = export_match_log(engine.engine.store, match_id)
    assert all(RECORD in event for event in exported)
    replayed = replay_log(exported, LOG_KEY)
    assert replayed.check.verified and replayed.check.match_id == match_id
    info = engine.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id)).match
    assert replayed.match.scores == [s.score for s in info.seats]
    with pytest.raises(ReplayError, match="no signature verifies with this key"):
        replay_log(exported, OTHER_KEY)


def test_an_edit_in_the_database_is_named_by_the_exported_log(engine, table_config) -> None:
    match_id = _play(engine, seed=22)
    rows = engine.engine.store.load_match(match_id).events
    rules = [r for r in rows if r.event["type"] not in TABLE_EVENTS]
    index = next(i for i, r in enumerate(rules) if r.event["type"] == "discard" and i > 8)
    seq = rules[index].seq
    tile = "7z" if rules[index].event["tile"] != "7z" else "6z"
    _sql(
        table_config,
        "UPDATE events SET event = jsonb_set(event, '{tile}', to_jsonb(%s::text))"
        " WHERE match_id = %s AND seq = %s",
        (tile, match_id, seq),
    )
    exported = export_match_log(engine.engine.store, match_id)
    with pytest.raises(
        ReplayError, match=rf"event #{index} \(discard of seat \d {tile}\) was edited"
    ):
        replay_log(exported)
    # The hashes recomputed in the database too (anyone can): only the key tells.
    head = rules[index - 1].chain
    for row in engine.engine.store.load_match(match_id).events[seq - 1 :]:
        if row.event["type"] in TABLE_EVENTS:
            continue
        head = link(head, row.event)
        _sql(table_config, "UPDATE events SET chain = %s WHERE match_id = %s AND seq = %s",
             (head, match_id, row.seq))  # fmt: skip
    rechained = export_match_log(engine.engine.store, match_id)
    assert open_log(rechained)[1].chained  # the chain alone is intact again
    with pytest.raises(ReplayError, match=rf"event #{index} \(discard .*not what the engine"):
        replay_log(rechained, LOG_KEY)


def test_rows_logged_before_signing_are_reported_unsigned(engine, table_config) -> None:
    match_id = _play(engine, seed=23)
    _sql(table_config, "UPDATE events SET chain = NULL, mac = NULL WHERE match_id = %s",
         (match_id,))  # fmt: skip
    exported = export_match_log(engine.engine.store, match_id)
    check = replay_log(exported).check
    assert check.chained and check.signatures == 0 and not check.verified
    with pytest.raises(ReplayError, match=r"event #0 \(match_start\) is not signed"):
        replay_log(exported, LOG_KEY)


def test_a_restart_continues_the_chain_and_a_changed_key_does_not_resume(
    start_engine, table_config, caplog
) -> None:
    first = start_engine(ready_seconds=0.2, rejoin_seconds=0.5)
    kept, moved = (
        new_match_request(hands=1, seed=24 + i, kind=pb.SEAT_KIND_PERSON) for i in range(2)
    )
    for request in (kept, moved):
        first.stub.OpenMatch(request, metadata=OPERATOR)
    quiet = [SeatClient(first.channel, r.match_id, 0, stop_after=3).start() for r in (kept, moved)]
    assert wait_for(lambda: all(c.answers == 3 for c in quiet), timeout=30)
    first.close()
    # The same key: the match resumes, its chain goes on from the stored head.
    second = start_engine(ready_seconds=0.2, rejoin_seconds=0.5)
    player = SeatClient(second.channel, kept.match_id, 0).start()
    player.join(60)
    assert player.error is None and player.observations[-1].match_finished
    assert wait_for(lambda: _finished(second, kept.match_id))
    assert wait_for(lambda: second.engine.store.durable_seq(kept.match_id) == _logged(second, kept))
    assert replay_log(export_match_log(second.engine.store, kept.match_id), LOG_KEY).check.verified
    second.close()
    # Another key: the stored signatures do not verify, so the match is not played on (its
    # events would be signed as if they were the engine's): dissolved, loudly.
    with caplog.at_level(logging.ERROR, logger="hebei.table.host"):
        third = start_engine(ready_seconds=0.2, rejoin_seconds=0.5, log_key=OTHER_KEY)
    reasons = [r.getMessage() for r in caplog.records if moved.match_id in r.getMessage()]
    assert any("HEBEI_TABLE_LOG_KEY changed" in r for r in reasons), reasons
    info = third.stub.GetMatch(table_pb2.GetMatchRequest(match_id=moved.match_id)).match
    assert info.status == pb.MATCH_STATUS_DISSOLVED


@pytest.mark.slow
def test_sigkill_mid_hand_then_restart_keeps_the_log_signed(
    database_url, fresh_schema, ledger, matchmaking, tmp_path
) -> None:
    env = engine_env(
        database_url,
        fresh_schema,
        ledger=ledger.address,
        matchmaking=matchmaking.address,
        HEBEI_TABLE_LOG_KEY=LOG_KEY.decode(),
    )
    engine = EngineProcess(env, tmp_path / "engine.log")
    engine.start()
    try:
        channel = grpc.insecure_channel(engine.address)
        stub = table_pb2_grpc.TableServiceStub(channel)
        request = new_match_request(hands=2, seed=25, per_decision=3.0)
        stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
        clients = [
            ResilientClient(engine.address, request.match_id, seat, delay=0.004).start()
            for seat in range(4)
        ]

        def info() -> table_pb2.MatchInfo:
            return stub.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match

        def mid_second_hand() -> bool:
            current = info()
            return current.hands_played >= 1 and current.status == pb.MATCH_STATUS_PLAYING

        assert wait_for(mid_second_hand, timeout=60, step=0.05)
        engine.kill()
        channel.close()
        engine.start()
        for client in clients:
            client.join(120)
        channel = grpc.insecure_channel(engine.address)
        stub = table_pb2_grpc.TableServiceStub(channel)
        assert wait_for(lambda: info().status == pb.MATCH_STATUS_FINISHED, timeout=60)
        channel.close()
    finally:
        engine.stop()
    exported = export_from_database(database_url, fresh_schema, request.match_id)
    replayed = replay_log(exported, LOG_KEY)
    assert replayed.check.verified and replayed.match.finished
    with pytest.raises(NotFound, match="no match 'nope'"):
        export_from_database(database_url, fresh_schema, "nope")
    with pytest.raises(NotFound, match="no table engine schema 'no_such_schema'"):
        export_from_database(database_url, "no_such_schema", request.match_id)


# ---------------------------------------------------------------------- the key


def test_beyond_loopback_the_log_key_is_required() -> None:
    env = {
        "HEBEI_OPERATOR_TOKEN": secrets.token_urlsafe(24),
        "HEBEI_SERVICE_TOKEN": secrets.token_urlsafe(24),
        "HEBEI_HOST": "0.0.0.0",
    }
    with pytest.raises(ConfigError, match="HEBEI_TABLE_LOG_KEY is required when listening on"):
        TableConfig.from_env(env)
    with pytest.raises(ConfigError, match=r"HEBEI_TABLE_LOG_KEY refused .* too easy to guess"):
        TableConfig.from_env({**env, "HEBEI_TABLE_LOG_KEY": "short"})
    # The example of the docs (deploy/.env.example, k8s/secrets.env.example) is refused.
    example = "change-me-openssl-rand-hex-32-characters-at-least"
    with pytest.raises(ConfigError, match=r"HEBEI_TABLE_LOG_KEY refused .* placeholder"):
        TableConfig.from_env({**env, "HEBEI_TABLE_LOG_KEY": example})
    strong = secrets.token_hex(32)
    config = TableConfig.from_env({**env, "HEBEI_TABLE_LOG_KEY": f"  {strong}\n"})
    assert config.log_key == strong.encode()
    # On loopback the tests' own key (a readable phrase) is accepted.
    local = TableConfig.from_env(
        {**env, "HEBEI_HOST": "127.0.0.1", "HEBEI_TABLE_LOG_KEY": LOG_KEY.decode()}
    )
    assert local.log_key == LOG_KEY
    assert log_key_from_env(EnvReader("table", {}), "127.0.0.1") is None  # the data dir's


def test_on_loopback_the_key_is_kept_in_the_data_dir_once(tmp_path) -> None:
    keys: list[bytes] = []
    threads = [
        threading.Thread(target=lambda: keys.append(local_log_key("127.0.0.1", tmp_path)))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(keys)) == 1 and len(keys[0]) == 64  # every start reads the same key
    path = tmp_path / KEY_FILE
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert sorted(p.name for p in tmp_path.iterdir()) == [KEY_FILE]  # no temporary left
    assert local_log_key("localhost", tmp_path) == keys[0]
    path.write_text("short\n")
    with pytest.raises(ConfigError, match=f"key file {path} is unusable"):
        local_log_key("127.0.0.1", tmp_path)
    with pytest.raises(ConfigError, match=r"required when listening on 10\.0\.0\.5"):
        local_log_key("10.0.0.5", tmp_path)
