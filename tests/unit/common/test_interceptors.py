"""AsyncInterceptorChain: several asyncio interceptors run as one, as stacking them would (the
scopes in order, a request stream's messages given to every scope's callback in the same
order, an exception reaching the scopes innermost first, each response counted), with one
async generator per request stream instead of one per interceptor."""

from __future__ import annotations

import asyncio
import contextlib
import types
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest

from hebei.common.errors import AsyncDecodeInterceptor, InvalidArgument, Undecodable
from hebei.common.interceptors import (
    AsyncHandlerInterceptor,
    AsyncInterceptorChain,
    HandlerInterceptor,
    RpcInfo,
    each_message,
)

METHOD = "/hebei.v1.TableService/Play"


class Recording(HandlerInterceptor):
    """Records its scope's entry and exit, each request message and each response."""

    def __init__(self, name: str, log: list[str], *, per_message: bool = True) -> None:
        self.name, self.log, self.per_message = name, log, per_message

    @contextlib.contextmanager
    def scope(self, request: Any, context: Any, info: RpcInfo) -> Iterator[Any]:
        self.log.append(f"enter {self.name}")
        try:
            if info.request_streaming and self.per_message:
                yield each_message(request, lambda m: self.log.append(f"{self.name} got {m}"))
            else:
                yield request
        except Exception as exc:
            self.log.append(f"{self.name} saw {exc}")
            raise
        finally:
            self.log.append(f"exit {self.name}")


class AsyncRecording(AsyncHandlerInterceptor, Recording):
    pass


class Counting(AsyncRecording):
    def on_response(self, info: RpcInfo) -> None:
        self.log.append(f"{self.name} sent")


class Swallowing(AsyncRecording):
    """A scope that hands the handler something else than the stream (not chainable)."""

    @contextlib.contextmanager
    def scope(self, request: Any, context: Any, info: RpcInfo) -> Iterator[Any]:
        yield iter(())


async def _messages(*items: Any) -> AsyncIterator[Any]:
    for item in items:
        yield item


def _intercepted(chain: AsyncInterceptorChain, handler: grpc.RpcMethodHandler) -> Any:
    async def continuation(_details: Any) -> grpc.RpcMethodHandler:
        return handler

    details = types.SimpleNamespace(method=METHOD, invocation_metadata=())
    return asyncio.run(chain.intercept_service(continuation, details))


def _play(chain: AsyncInterceptorChain, inner: Any, requests: Any, **handler: Any) -> list[Any]:
    wrapped = _intercepted(
        chain, grpc.stream_stream_rpc_method_handler(inner, request_deserializer=bytes, **handler)
    )

    async def run() -> list[Any]:
        return [response async for response in wrapped.stream_stream(requests, None)]

    return asyncio.run(run())


def test_messages_pass_every_scope_in_order_through_one_generator() -> None:
    log: list[str] = []
    seen: list[Any] = []
    requests = _messages("a", "b")

    async def echo(request_iterator: Any, _context: Any) -> AsyncIterator[str]:
        seen.append(request_iterator.ag_frame.f_locals["requests"])  # what it reads from
        async for message in request_iterator:
            log.append(f"handler got {message}")
            yield message.upper()

    chain = AsyncInterceptorChain(
        [Counting("outer", log), AsyncRecording("middle", log, per_message=False),
         AsyncRecording("inner", log)]
    )  # fmt: skip
    assert _play(chain, echo, requests) == ["A", "B"]
    assert log == [
        "enter outer", "enter middle", "enter inner",
        "outer got a", "inner got a", "handler got a", "outer sent",
        "outer got b", "inner got b", "handler got b", "outer sent",
        "exit inner", "exit middle", "exit outer",
    ]  # fmt: skip
    # One generator between the call's stream and the handler, not one per interceptor.
    assert seen == [requests]


def test_an_exception_reaches_the_scopes_innermost_first() -> None:
    log: list[str] = []

    async def failing(request_iterator: Any, _context: Any) -> AsyncIterator[str]:
        async for _message in request_iterator:
            raise ValueError("boom")
        yield "never"

    chain = AsyncInterceptorChain([AsyncRecording("outer", log), AsyncRecording("inner", log)])
    with pytest.raises(ValueError, match="boom"):
        _play(chain, failing, _messages("a"))
    assert log == [
        "enter outer", "enter inner", "outer got a", "inner got a",
        "inner saw boom", "exit inner", "outer saw boom", "exit outer",
    ]  # fmt: skip


def test_decoding_is_chained_innermost_and_stops_an_undecodable_message() -> None:
    log: list[str] = []

    async def echo(request_iterator: Any, _context: Any) -> AsyncIterator[Any]:
        async for message in request_iterator:
            yield message

    chain = AsyncInterceptorChain([AsyncRecording("outer", log), AsyncDecodeInterceptor()])
    wrapped = _intercepted(
        chain, grpc.stream_stream_rpc_method_handler(echo, request_deserializer=bytes.decode)
    )
    # The decoder's safe deserializer is the one the call uses: bad bytes are not an error yet.
    assert wrapped.request_deserializer(b"ok") == "ok"
    assert isinstance(wrapped.request_deserializer(b"\xff"), Undecodable)
    bad = Undecodable(1, "UnicodeDecodeError")
    with pytest.raises(InvalidArgument, match="not a valid message"):
        _play(chain, echo, _messages("ok", bad))
    assert log[:2] == ["enter outer", "outer got ok"]
    assert log[-3:] == [f"outer got {bad}", f"outer saw {bad.problem()}", "exit outer"]


def test_a_handler_without_deserializer_is_not_decoded() -> None:
    async def echo(request_iterator: Any, _context: Any) -> AsyncIterator[Any]:
        yield "x"

    handler = grpc.stream_stream_rpc_method_handler(echo)
    assert _intercepted(AsyncInterceptorChain([AsyncDecodeInterceptor()]), handler) is handler


def test_a_scope_that_does_not_pass_the_stream_on_is_refused() -> None:
    async def echo(request_iterator: Any, _context: Any) -> AsyncIterator[Any]:
        yield "x"

    chain = AsyncInterceptorChain([Swallowing("a", []), Swallowing("b", [])])
    with pytest.raises(TypeError, match="each_message"):
        _play(chain, echo, _messages("a"))


def test_a_unary_call_counts_its_response_once() -> None:
    log: list[str] = []

    async def answer(request: Any, _context: Any) -> str:
        log.append(f"handler got {request}")
        return "yes"

    chain = AsyncInterceptorChain([Counting("outer", log), AsyncRecording("inner", log)])
    wrapped = _intercepted(chain, grpc.unary_unary_rpc_method_handler(answer))
    assert asyncio.run(wrapped.unary_unary("q", None)) == "yes"
    assert log == [
        "enter outer", "enter inner", "handler got q", "exit inner", "exit outer", "outer sent"
    ]  # fmt: skip
