"""A small base for server interceptors that wrap the handler of every call.

gRPC's server interceptors only see the method name; to act around the call (timing, status,
errors, auth) they must rebuild the method handler. :class:`HandlerInterceptor` does that once
for all four kinds of RPC on the synchronous server, :class:`AsyncHandlerInterceptor` on the
asyncio server (``grpc.aio``); subclasses write one context manager,
:meth:`HandlerInterceptor.scope`, that holds whatever the call does, and serve both: a scope
wraps a stream of requests with :func:`each_message`, which takes either kind of iterator.
An asyncio form is the synchronous class with :class:`AsyncHandlerInterceptor` mixed in first
(``class AsyncCallLogInterceptor(AsyncHandlerInterceptor, CallLogInterceptor)``); a scope that
must await something (aborting the call) overrides :meth:`AsyncHandlerInterceptor.async_scope`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc

HANDLER_FACTORIES = {
    (False, False): grpc.unary_unary_rpc_method_handler,
    (False, True): grpc.unary_stream_rpc_method_handler,
    (True, False): grpc.stream_unary_rpc_method_handler,
    (True, True): grpc.stream_stream_rpc_method_handler,
}
# Where grpcio looks for a dedicated thread pool of one method's behavior (see copy_pool).
POOL_ATTRIBUTE = "experimental_thread_pool"
RPC_TYPES = {
    (False, False): "unary",
    (False, True): "server_stream",
    (True, False): "client_stream",
    (True, True): "bidi_stream",
}


@dataclass(frozen=True, slots=True)
class RpcInfo:
    """What an interceptor knows about the method being called."""

    full_method: str  # "/hebei.v1.LedgerService/PostSettlement"
    service: str  # "hebei.v1.LedgerService"
    method: str  # "PostSettlement"
    rpc_type: str  # unary | client_stream | server_stream | bidi_stream
    request_streaming: bool
    response_streaming: bool

    @classmethod
    def of(cls, full_method: str, handler: grpc.RpcMethodHandler) -> RpcInfo:
        """Describe ``full_method`` served by ``handler``."""
        service, method = split_method(full_method)
        kind = (bool(handler.request_streaming), bool(handler.response_streaming))
        return cls(full_method, service, method, RPC_TYPES[kind], *kind)


def copy_pool(inner: Callable[..., Any], outer: Callable[..., Any]) -> None:
    """Keep ``inner``'s dedicated thread pool on its wrapper ``outer``.

    grpcio runs a behavior that carries an ``experimental_thread_pool`` attribute on that pool
    instead of the server's workers (the health service uses one, so that health checks are
    answered however busy the workers are); a wrapper must carry it on.
    """
    pool = getattr(inner, POOL_ATTRIBUTE, None)
    if pool is not None:
        setattr(outer, POOL_ATTRIBUTE, pool)


def split_method(full_method: str) -> tuple[str, str]:
    """``"/pkg.Service/Method"`` -> ``("pkg.Service", "Method")``."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service or "unknown", method


class HandlerInterceptor(grpc.ServerInterceptor):
    """Runs every call inside :meth:`scope`; :meth:`on_response` sees each response sent."""

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        info = RpcInfo.of(handler_call_details.method, handler)
        return self._wrap(handler, info)

    def _wrap(self, handler: grpc.RpcMethodHandler, info: RpcInfo) -> grpc.RpcMethodHandler:
        if info.response_streaming:
            stream_behavior = handler.stream_stream or handler.unary_stream

            def behavior(request: Any, context: grpc.ServicerContext) -> Any:
                with self.scope(request, context, info) as scoped_request:
                    for response in stream_behavior(scoped_request, context):
                        self.on_response(info)
                        yield response

            copy_pool(stream_behavior, behavior)
        else:
            unary_behavior = handler.stream_unary or handler.unary_unary

            def behavior(request: Any, context: grpc.ServicerContext) -> Any:
                with self.scope(request, context, info) as scoped_request:
                    response = unary_behavior(scoped_request, context)
                self.on_response(info)
                return response

            copy_pool(unary_behavior, behavior)
        factory = HANDLER_FACTORIES[(info.request_streaming, info.response_streaming)]
        return factory(
            behavior,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    @contextlib.contextmanager
    def scope(self, request: Any, context: grpc.ServicerContext, info: RpcInfo) -> Iterator[Any]:
        """Wrap one call; yields the request (or request iterator) the handler will get.

        An exception of the handler is thrown in at the ``yield``; a client that goes away
        from a streaming response shows up as GeneratorExit.
        """
        yield request

    def on_response(self, info: RpcInfo) -> None:
        """Called for each response message the handler produced."""


def each_message(requests: Any, on_message: Callable[[Any], None]) -> Any:
    """``requests`` (an iterator, or the async iterator of an asyncio call) passed on message
    by message, each first given to ``on_message`` (which may raise to end the call)."""
    if hasattr(requests, "__aiter__"):
        return _each_async(requests, on_message)
    return _each(requests, on_message)


def _each(requests: Any, on_message: Callable[[Any], None]) -> Iterator[Any]:
    for message in requests:
        on_message(message)
        yield message


async def _each_async(requests: Any, on_message: Callable[[Any], None]) -> AsyncIterator[Any]:
    async for message in requests:
        on_message(message)
        yield message


def _active(context: Any) -> bool:
    is_active = getattr(context, "is_active", None)  # the asyncio context has none
    return is_active() if is_active is not None else not context.cancelled()


def final_code(
    context: grpc.ServicerContext, raised: bool, cancelled: bool = False
) -> grpc.StatusCode:
    """The status a finished call ends with, as far as the server can tell (``cancelled``:
    its task was cancelled)."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code
    if cancelled:
        return grpc.StatusCode.CANCELLED
    if raised:
        return grpc.StatusCode.UNKNOWN
    if not _active(context):
        return grpc.StatusCode.CANCELLED
    return grpc.StatusCode.OK


@contextlib.contextmanager
def on_finish(
    context: grpc.ServicerContext, callback: Callable[[grpc.StatusCode], None]
) -> Iterator[None]:
    """Call ``callback`` with the call's final status code when the block ends, however."""
    raised = cancelled = False
    try:
        yield
    except GeneratorExit:
        raise  # the client went away from a stream (synchronous server): CANCELLED
    except asyncio.CancelledError:
        cancelled = True  # the asyncio server cancels the call's task: the client went away
        raise
    except BaseException:
        raised = True
        raise
    finally:
        callback(final_code(context, raised, cancelled))


class AsyncHandlerInterceptor(grpc.aio.ServerInterceptor):
    """The asyncio server's form of :class:`HandlerInterceptor`: mixed in before a synchronous
    subclass, it runs every call inside that class's :meth:`HandlerInterceptor.scope` (through
    :meth:`async_scope`) and calls its :meth:`HandlerInterceptor.on_response`. The handlers it
    wraps are coroutine functions or async generator functions (a streaming response written
    with ``context.write`` is a coroutine: its messages are not seen one by one)."""

    scope: Callable[..., contextlib.AbstractContextManager[Any]]
    on_response: Callable[[RpcInfo], None]

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        info = RpcInfo.of(handler_call_details.method, handler)
        return self.wrap_async(handler, info)

    def request_deserializer(self, handler: grpc.RpcMethodHandler) -> Any:
        """The deserializer the wrapped handler uses (the handler's own)."""
        return handler.request_deserializer

    def wrap_async(self, handler: grpc.RpcMethodHandler, info: RpcInfo) -> grpc.RpcMethodHandler:
        inner = (
            handler.unary_unary
            or handler.unary_stream
            or handler.stream_unary
            or handler.stream_stream
        )
        if inspect.isasyncgenfunction(inner):

            async def behavior(request: Any, context: Any) -> Any:
                async with self.async_scope(request, context, info) as scoped_request:
                    async for response in inner(scoped_request, context):
                        self.on_response(info)
                        yield response

        elif inspect.iscoroutinefunction(inner):

            async def behavior(request: Any, context: Any) -> Any:  # type: ignore[misc]
                async with self.async_scope(request, context, info) as scoped_request:
                    response = await inner(scoped_request, context)
                if not info.response_streaming:
                    self.on_response(info)
                return response

        else:
            raise TypeError(
                f"{info.full_method}: an asyncio server needs async handlers, got {inner!r}"
            )
        factory = HANDLER_FACTORIES[(info.request_streaming, info.response_streaming)]
        return factory(
            behavior,
            request_deserializer=self.request_deserializer(handler),
            response_serializer=handler.response_serializer,
        )

    @contextlib.asynccontextmanager
    async def async_scope(self, request: Any, context: Any, info: RpcInfo) -> AsyncIterator[Any]:
        """The call's scope on the asyncio server: the synchronous :meth:`scope` itself."""
        with self.scope(request, context, info) as scoped_request:
            yield scoped_request
