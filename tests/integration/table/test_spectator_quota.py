"""The engine's Spectate pools: anonymous spectators at their bound (16 addresses x 16 streams
filled every slot, and the gateway's table page then got only keepalives, the bot service's
Review by match id RESOURCE_EXHAUSTED) never keep a call carrying a service token (the web
gateway's feeds, the bot service's reads) from spectating: those have a pool of their own."""

from __future__ import annotations

import grpc
import pytest

from hebei.common.auth import bearer_metadata
from hebei.v1 import table_pb2
from tests.integration.table.conftest import OPERATOR, SERVICE_TOKEN, new_match_request
from tests.integration.table.helpers import wait_for

SERVICE = bearer_metadata(SERVICE_TOKEN)


def test_a_full_anonymous_pool_never_keeps_the_services_from_spectating(start_engine) -> None:
    engine = start_engine(max_spectators=2, max_spectators_per_peer=2, ready_seconds=60)
    servicer = engine.engine.servicer
    request = new_match_request()
    engine.stub.OpenMatch(request, metadata=OPERATOR)
    spectate = table_pb2.SpectateRequest(match_id=request.match_id, from_seq=1)
    crowd = [engine.stub.Spectate(spectate) for _ in range(2)]
    assert wait_for(lambda: servicer.spectators.open == 2)
    with pytest.raises(grpc.RpcError) as caught:
        next(engine.stub.Spectate(spectate, timeout=30))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

    # The services' calls take their own pool, whatever the crowd holds.
    services = [engine.stub.Spectate(spectate, metadata=SERVICE) for _ in range(3)]
    assert wait_for(lambda: servicer.service_spectators.open == 3)
    assert servicer.spectators.open == 2
    operator = engine.stub.Spectate(spectate, metadata=OPERATOR)
    assert wait_for(lambda: servicer.service_spectators.open == 4)

    # A wrong token is no way into it.
    with pytest.raises(grpc.RpcError) as wrong:
        next(engine.stub.Spectate(spectate, metadata=bearer_metadata("x" * 32), timeout=30))
    assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED

    # Each pool frees its slots when its streams go.
    for call in [*crowd, *services, operator]:
        call.cancel()
    assert wait_for(lambda: servicer.spectators.open == 0)
    assert wait_for(lambda: servicer.service_spectators.open == 0)
    engine.stub.Dissolve(table_pb2.DissolveRequest(match_id=request.match_id), metadata=OPERATOR)
    events = list(engine.stub.Spectate(spectate, metadata=SERVICE, timeout=30))
    assert events and events[-1].event.type  # the whole match, through the services' pool
