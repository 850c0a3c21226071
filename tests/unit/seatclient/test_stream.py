"""The seat's Play stream: how a failed stream is told in one line."""

from __future__ import annotations

import grpc

from hebei.seatclient.stream import describe_rpc_error


class Unavailable(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "failed to connect"


def test_describe_rpc_error_explains_an_unreachable_engine() -> None:
    assert describe_rpc_error(Unavailable()) == (
        "UNAVAILABLE: cannot reach the table engine (failed to connect)"
    )
