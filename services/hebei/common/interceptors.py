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
:class:`AsyncInterceptorChain` runs several asyncio forms as one interceptor: their scopes in
one wrapper, a request stream through one async generator, not one per interceptor.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
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
        respond = self.responder(info) or _nothing
        if info.response_streaming:
            stream_behavior = handler.stream_stream or handler.unary_stream

            def behavior(request: Any, context: grpc.ServicerContext) -> Any:
                with self.scope(request, context, info) as scoped_request:
                    for response in stream_behavior(scoped_request, context):
                        respond()
                        yield response

            copy_pool(stream_behavior, behavior)
        else:
            unary_behavior = handler.stream_unary or handler.unary_unary

            def behavior(request: Any, context: grpc.ServicerContext) -> Any:
                with self.scope(request, context, info) as scoped_request:
                    response = unary_behavior(scoped_request, context)
                respond()
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

    def responder(self, info: RpcInfo) -> Callable[[], None] | None:
        """What each response of one call of ``info`` calls, bound when the call starts:
        :meth:`on_response`, or None when it does nothing. An override binds what
        :meth:`on_response` would look up per message (a metric's labelled child)."""
        if type(self).on_response is HandlerInterceptor.on_response:
            return None
        return functools.partial(self.on_response, info)


class MessageHooks:
    """Stands for a call's request stream while the scopes of an :class:`AsyncInterceptorChain`
    are entered: :func:`each_message` records its ``on_message`` here instead of wrapping the
    stream, and :meth:`wrap` then passes the stream through all of them in one generator."""

    __slots__ = ("callbacks",)

    def __init__(self) -> None:
        self.callbacks: list[Callable[[Any], None]] = []

    def wrap(self, requests: Any) -> Any:
        """``requests`` given message by message to each callback, in the order recorded."""
        if not self.callbacks:
            return requests
        if len(self.callbacks) == 1:
            return _each_async(requests, self.callbacks[0])
        return _each_async_all(requests, tuple(self.callbacks))


def _nothing() -> None:
    pass


def each_message(requests: Any, on_message: Callable[[Any], None]) -> Any:
    """``requests`` (an iterator, or the async iterator of an asyncio call) passed on message
    by message, each first given to ``on_message`` (which may raise to end the call)."""
    if isinstance(requests, MessageHooks):
        requests.callbacks.append(on_message)
        return requests
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


async def _each_async_all(
    requests: Any, callbacks: tuple[Callable[[Any], None], ...]
) -> AsyncIterator[Any]:
    async for message in requests:
        for on_message in callbacks:
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
    :meth:`async_scope`) and calls its :meth:`HandlerInterceptor.responder`. The handlers it
    wraps are coroutine functions or async generator functions (a streaming response written
    with ``context.write`` is a coroutine: its messages are not seen one by one)."""

    scope: Callable[..., contextlib.AbstractContextManager[Any]]
    responder: Callable[[RpcInfo], Callable[[], None] | None]

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        return await intercept_with((self,), continuation, handler_call_details)

    def applies(self, handler: grpc.RpcMethodHandler) -> bool:
        """Whether calls of ``handler`` are wrapped at all (else served as they are)."""
        return True

    def request_deserializer(self, deserializer: Any) -> Any:
        """The deserializer the wrapped handler uses, given the handler's own."""
        return deserializer

    @contextlib.asynccontextmanager
    async def async_scope(self, request: Any, context: Any, info: RpcInfo) -> AsyncIterator[Any]:
        """The call's scope on the asyncio server: the synchronous :meth:`scope` itself."""
        with self.scope(request, context, info) as scoped_request:
            yield scoped_request


class AsyncInterceptorChain(grpc.aio.ServerInterceptor):
    """``interceptors`` (outermost first) as one interceptor: what stacking them does, in one
    wrapper. A call enters each one's :meth:`~AsyncHandlerInterceptor.async_scope` in order
    (an exception of the handler reaches them innermost first); a request stream passes one
    async generator giving each message to every scope's :func:`each_message` callback, in the
    same order; each response calls every :meth:`~HandlerInterceptor.responder`'s callable.
    Stacked, a message of a stream went through one async generator per interceptor."""

    def __init__(self, interceptors: Sequence[AsyncHandlerInterceptor]) -> None:
        self.interceptors = tuple(interceptors)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        return await intercept_with(self.interceptors, continuation, handler_call_details)


async def intercept_with(
    interceptors: Sequence[AsyncHandlerInterceptor],
    continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
    handler_call_details: grpc.HandlerCallDetails,
) -> grpc.RpcMethodHandler | None:
    """The handler ``continuation`` gives, inside the scopes of those ``interceptors`` that
    apply to it (as it is when none does): one interceptor's and a chain's
    ``intercept_service`` alike."""
    handler = await continuation(handler_call_details)
    if handler is None:
        return None
    active = tuple(i for i in interceptors if i.applies(handler))
    if not active:
        return handler
    return wrap_scopes(handler, RpcInfo.of(handler_call_details.method, handler), active)


def wrap_scopes(
    handler: grpc.RpcMethodHandler,
    info: RpcInfo,
    interceptors: tuple[AsyncHandlerInterceptor, ...],
) -> grpc.RpcMethodHandler:
    """``handler`` (async) run inside the scopes of ``interceptors``, outermost first."""
    inner = (
        handler.unary_unary or handler.unary_stream or handler.stream_unary or handler.stream_stream
    )
    # Bound when the call starts (intercept_service runs per call): what each response calls.
    responders = [interceptor.responder(info) for interceptor in interceptors]
    on_responses = tuple(respond for respond in responders if respond is not None)
    if len(interceptors) == 1:
        scopes = interceptors[0].async_scope
    else:

        @contextlib.asynccontextmanager
        async def scopes(request: Any, context: Any, info: RpcInfo) -> AsyncIterator[Any]:
            hooks = MessageHooks() if info.request_streaming else None
            scoped = request if hooks is None else hooks
            async with contextlib.AsyncExitStack() as stack:
                for interceptor in interceptors:
                    scoped = await stack.enter_async_context(
                        interceptor.async_scope(scoped, context, info)
                    )
                if hooks is not None:
                    if scoped is not hooks:
                        raise TypeError(
                            f"{info.full_method}: a chained scope must pass the request stream"
                            " on through each_message"
                        )
                    scoped = hooks.wrap(request)
                yield scoped

    if inspect.isasyncgenfunction(inner):

        async def behavior(request: Any, context: Any) -> Any:
            async with scopes(request, context, info) as scoped_request:
                async for response in inner(scoped_request, context):
                    for respond in on_responses:
                        respond()
                    yield response

    elif inspect.iscoroutinefunction(inner):

        async def behavior(request: Any, context: Any) -> Any:  # type: ignore[misc]
            async with scopes(request, context, info) as scoped_request:
                response = await inner(scoped_request, context)
            if not info.response_streaming:
                for respond in on_responses:
                    respond()
            return response

    else:
        raise TypeError(
            f"{info.full_method}: an asyncio server needs async handlers, got {inner!r}"
        )
    deserializer = handler.request_deserializer
    for interceptor in reversed(interceptors):
        deserializer = interceptor.request_deserializer(deserializer)
    factory = HANDLER_FACTORIES[(info.request_streaming, info.response_streaming)]
    return factory(
        behavior,
        request_deserializer=deserializer,
        response_serializer=handler.response_serializer,
    )
