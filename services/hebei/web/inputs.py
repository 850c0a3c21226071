"""What a request brings to the gateway, read and checked: its JSON body (bounded), its text,
integer and id fields, the client's address, the acting operator's name, the decision a command
answers and the ``Last-Event-ID`` of a resumed stream; and the JSON error every refusal is.

A state-changing request must come from the gateway's own pages (:func:`check_state_change`).
"""

from __future__ import annotations

import json
import re
import urllib.parse
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

from hebei.common.quota import client_key
from hebei.web.backend import HttpError

MAX_BODY_BYTES = 8 * 1024
MAX_NAME = 32
MAX_REASON = 256
ID = re.compile(r"^[!-~]{1,128}$")  # printable ASCII, no spaces
TOKEN = re.compile(r"^[!-~]{16,256}$")


def client_of(request: Request) -> str:
    """The client address bounds count (an IPv6 client by its /64: see client_key): the
    peer's, or behind a trusted proxy the client it names (see :class:`hebei.web.middleware.ClientAddress`)."""
    return client_key(request.client.host) if request.client else "unknown"


def check_state_change(request: Request) -> None:
    """Every state-changing request of the gateway: from its own pages (Origin,
    Sec-Fetch-Site) and, for a body-carrying method, sent as JSON even with an empty body (a
    form or a ``text/plain`` fetch of another site cannot), else 403 or 415."""
    from hebei.web.people import check_json_type, check_same_origin

    check_same_origin(request)
    if request.method != "DELETE":
        check_json_type(request)


def error_response(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": message, "code": code}, status_code=status)


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object body, at most :data:`MAX_BODY_BYTES` (413 beyond)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
        raise HttpError(413, f"the body must be at most {MAX_BODY_BYTES} bytes")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise HttpError(413, f"the body must be at most {MAX_BODY_BYTES} bytes")
    except ClientDisconnect:  # gone mid-body (or too slow: see hebei.web.server)
        raise HttpError(408, "the body did not arrive in full") from None
    check_state_change(request)  # also keeps other sites' forms from posting here
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested deep
        raise HttpError(400, "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise HttpError(400, "the body must be a JSON object")
    return data


def text_field(data: dict[str, Any], name: str, *, max_length: int, required: bool) -> str:
    value = data.get(name, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise HttpError(400, f"{name} must be a string")
    value = value.strip()
    if required and not value:
        raise HttpError(400, f"{name} is required")
    if len(value) > max_length:
        raise HttpError(400, f"{name} must be at most {max_length} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise HttpError(400, f"{name} must not contain control characters")
    return value


def int_field(data: dict[str, Any], name: str, default: int, lo: int, hi: int) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise HttpError(400, f"{name} must be an integer {lo}-{hi}")
    return value


def check_id(name: str, value: str) -> str:
    if not ID.fullmatch(value) or ":" in value:
        raise HttpError(400, f"{name} must be 1-128 printable characters without spaces or ':'")
    return value


def actor_of(request: Request) -> str:
    """Who acts, as the operator page names them: ``X-Hebei-Actor`` percent-encoded (UTF-8,
    as ``hebei.common.auth.actor_metadata`` sends it: a header carries ASCII only), decoded
    here, at most 64 characters; "" when absent or not printable."""
    raw = request.headers.get("x-hebei-actor", "")[:1024]
    actor = urllib.parse.unquote(raw, errors="replace").strip()[:64]
    return actor if actor.isprintable() and "\ufffd" not in actor else ""


def decision_of(data: dict[str, Any]) -> int | None:
    """The ``decision_id`` a command answers (the page's ``state.decision_id``: a string of
    digits, as JSON numbers lose precision past 2^53; an integer is taken too), None if
    absent."""
    value = data.get("decision_id")
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.isdigit() and len(value) <= 20:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**64:
        raise HttpError(400, "decision_id must be the decision's id (a positive integer)")
    return value


def last_event_id(request: Request) -> int | None:
    raw = request.headers.get("last-event-id") or request.query_params.get("last_event_id")
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 19:
        raise HttpError(400, "Last-Event-ID must be a number")
    return int(raw)
