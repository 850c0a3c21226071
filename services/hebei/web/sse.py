"""A live feed (:class:`hebei.web.feeds.Feed`) as Server-Sent Events.

``event: snapshot`` (``{seq, state}``), ``event: delta`` (``{seq, patch, ...}``), ``event:
end`` (``{reason}``); every snapshot and delta has ``id: seq``. A browser reconnecting with
``Last-Event-ID`` (or ``?last_event_id=``) gets the deltas after it. One response lasts at most
``HEBEI_WEB_STREAM_SECONDS``; the browser then resumes where it was. A client that goes away
gives its stream's slot back at once, not at the next keepalive.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from hebei.web.feeds import Feed
from hebei.web.inputs import last_event_id

KEEPALIVE_SECONDS = 15.0
RETRY_MS = 500  # how soon a browser comes back after a response ends
FIRST_STATE_SECONDS = 20.0


def sse_response(
    request: Request,
    feed: Feed,
    release: Callable[[], None],
    stream_seconds: float,
    stopping: asyncio.Event,
) -> Response:
    """A feed as an SSE response (see the module doc) that lasts at most ``stream_seconds``
    and ends when ``stopping`` is set; ``release`` gives the stream's slot back, once."""
    resume = last_event_id(request)
    feed.attach()

    def finish() -> None:
        if release.__dict__.get("done"):
            return
        release.__dict__["done"] = True
        feed.detach()
        release()

    async def body() -> AsyncIterator[str]:
        gone = asyncio.Event()  # set when the client's connection closes
        watcher = asyncio.ensure_future(until_disconnected(request, gone))
        try:
            yield f"retry: {RETRY_MS}\n\n"
            deadline = time.monotonic() + stream_seconds
            first = time.monotonic() + FIRST_STATE_SECONDS
            while feed.state is None and feed.ended is None and not stopping.is_set():
                if gone.is_set():
                    return
                if not await wait_any((feed.signal(), stopping, gone), 1.0):
                    yield ": waiting for the table\n\n"
                    if time.monotonic() > first:
                        yield frame("end", None, {"reason": "no state arrived in time"})
                        return
            resumable = resume is not None and feed.deltas_after(resume) is not None
            cursor = resume if resumable else None
            while True:
                signal = feed.signal()  # before reading: a change while we send sets it
                deltas = None if cursor is None else feed.deltas_after(cursor)
                if deltas is None and feed.state is not None:
                    seq, text = feed.snapshot()
                    yield f"event: snapshot\nid: {seq}\ndata: {text}\n\n"
                    cursor = seq
                for seq, text in deltas or ():
                    yield f"event: delta\nid: {seq}\ndata: {text}\n\n"
                    cursor = seq
                if feed.ended is not None and cursor is not None and cursor >= feed.seq:
                    yield frame("end", None, {"reason": feed.ended})
                    return
                left = deadline - time.monotonic()
                if left <= 0:
                    return  # the browser comes back with Last-Event-ID
                woken = await wait_any((signal, stopping, gone), min(KEEPALIVE_SECONDS, left))
                if gone.is_set():
                    return  # its slot is given back now, not at the next keepalive
                if stopping.is_set() or time.monotonic() >= deadline:
                    return  # the browser comes back with Last-Event-ID
                if not woken:
                    yield ": keepalive\n\n"
        finally:
            watcher.cancel()
            finish()

    return StreamingResponse(
        body(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        background=BackgroundTask(finish),
    )


async def until_disconnected(request: Request, gone: asyncio.Event) -> None:
    """Set ``gone`` once the client's connection closes (``http.disconnect`` on the ASGI receive
    channel), so that a stream's slot is given back at once rather than at its next write."""
    try:
        while (await request.receive())["type"] != "http.disconnect":
            pass
    except Exception:  # the channel is done with (the response ended): nothing to watch
        return
    gone.set()


async def wait_any(events: tuple[asyncio.Event, ...], timeout: float) -> bool:
    """Wait until one of ``events`` is set (True) or ``timeout`` seconds pass (False)."""
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when="FIRST_COMPLETED")
    finally:
        for waiter in waiters:
            waiter.cancel()
    return bool(done)


def frame(event: str, seq: int | None, data: Any) -> str:
    head = f"event: {event}\n" + (f"id: {seq}\n" if seq is not None else "")
    return f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n"
