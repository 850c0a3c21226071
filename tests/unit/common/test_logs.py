"""JSON log lines and the ids taken from requests."""

from __future__ import annotations

import io
import json
import logging
import sys

from hebei.common.logs import JsonFormatter, configure_logging, request_ids
from hebei.v1 import ledger_pb2, table_pb2, types_pb2


def test_json_line_has_service_and_extras() -> None:
    record = logging.LogRecord("hebei.calls", logging.INFO, "f.py", 1, "%s done", ("x",), None)
    record.method = "/hebei.v1.LedgerService/Audit"
    record.duration_ms = 1.5
    line = JsonFormatter("hebei-ledger").format(record)
    payload = json.loads(line)
    assert payload["service"] == "hebei-ledger" and payload["msg"] == "x done"
    assert payload["method"] == "/hebei.v1.LedgerService/Audit" and payload["duration_ms"] == 1.5
    assert "\n" not in line


def test_exception_kept_in_one_line() -> None:
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.LogRecord("x", logging.ERROR, "f.py", 1, "failed", (), sys.exc_info())
    line = JsonFormatter("svc").format(record)
    assert "\n" not in line and "RuntimeError: boom" in json.loads(line)["exc"]


def test_configure_logging_writes_json() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        configure_logging("hebei-table", "INFO", stream)
        logging.getLogger("hebei.test").info("hello", extra={"match_id": "m1"})
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    payload = json.loads(stream.getvalue())
    assert payload == {**payload, "service": "hebei-table", "msg": "hello", "match_id": "m1"}


def test_request_ids_nested_settlement() -> None:
    settlement = types_pb2.Settlement(
        idempotency_key="m1:3", match_id="m1", table_id="t1", hand_no=3, tournament_id="T"
    )
    ids = request_ids(ledger_pb2.PostSettlementRequest(settlement=settlement))
    assert ids == {
        "idempotency_key": "m1:3",
        "match_id": "m1",
        "table_id": "t1",
        "hand_no": 3,
        "tournament_id": "T",
    }


def test_request_ids_join_seat_zero() -> None:
    request = table_pb2.PlayRequest(join=table_pb2.Join(match_id="m2", seat=0, seat_token="s"))
    assert request_ids(request) == {"match_id": "m2", "seat": 0}


def test_request_ids_skip_empty() -> None:
    assert request_ids(ledger_pb2.GetHistoryRequest(page_size=10)) == {}
