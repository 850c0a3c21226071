"""A small base for server interceptors that wrap the handler of every call.

gRPC's synchronous server interceptors only see the method name; to act around the call
(timing, status, errors, auth) they must rebuild the method handler. :class:`HandlerInterceptor`
does that once for all four kinds of RPC; subclasses write one context manager,
:meth:`HandlerInterceptor.scope`, that holds whatever the call does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
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


def final_code(context: grpc.ServicerContext, raised: bool) -> grpc.StatusCode:
    """The status a finished call ends with, as far as the server can tell."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code
    if raised:
        return grpc.StatusCode.UNKNOWN
    if not context.is_active():
        return grpc.StatusCode.CANCELLED
    return grpc.StatusCode.OK


@contextlib.contextmanager
def on_finish(
    context: grpc.ServicerContext, callback: Callable[[grpc.StatusCode], None]
) -> Iterator[None]:
    """Call ``callback`` with the call's final status code when the block ends, however."""
    raised = True
    try:
        yield
        raised = False
    except GeneratorExit:
        raised = False  # the client went away from a stream: CANCELLED
        raise
    finally:
        callback(final_code(context, raised))
