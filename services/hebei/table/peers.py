"""What one engine replica asks of the others (issue 46): today only RevealMatchResults.

A tournament round's matches are spread over every replica. The replica that receives
RevealMatchResults reveals the stored rows of all of them (one UPDATE: a match resumed or read
back later, anywhere, is revealed) and its own tables in memory, then asks every other live
replica (:meth:`hebei.table.ownership.MatchOwnership.peers`) to reveal its tables in memory:
the same call with the metadata :data:`LOCAL_REVEAL`, which a replica answers from memory only
(its count: its tables revealed). A replica that cannot be asked makes the call fail with
UNAVAILABLE naming it, after the rows were revealed: the caller's retry is harmless (revealing
is idempotent; a retry counts 0 stored rows). A replica that died meanwhile needs nothing: its
matches resume elsewhere from the revealed rows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import grpc

from hebei.common.errors import Unavailable
from hebei.table.ownership import MatchOwnership
from hebei.v1 import table_pb2, table_pb2_grpc

__all__ = ["LOCAL_REVEAL", "PEER_TIMEOUT_SECONDS", "Peers", "is_local_reveal"]

log = logging.getLogger(__name__)

LOCAL_REVEAL = ("hebei-reveal-scope", "replica")  # reveal your tables in memory only
PEER_TIMEOUT_SECONDS = 5.0


def is_local_reveal(context: Any) -> bool:
    """Whether a RevealMatchResults call comes from another replica (:data:`LOCAL_REVEAL`)."""
    return tuple(LOCAL_REVEAL) in {
        (item[0], item[1]) for item in (context.invocation_metadata() or ())
    }


class Peers:
    """Calls to the other live replicas, each on a channel made by ``channel_for(address)``
    (the engine's: its service token and client TLS settings) and closed after the call."""

    def __init__(
        self, ownership: MatchOwnership, channel_for: Callable[[str], grpc.Channel]
    ) -> None:
        self.ownership = ownership
        self.channel_for = channel_for

    def reveal(self, request: table_pb2.RevealMatchResultsRequest) -> int:
        """Ask every other live replica to reveal its tables of the request's round; how many
        they revealed. :class:`Unavailable` naming those that could not be asked."""
        revealed, failed = 0, []
        for peer in self.ownership.peers():
            channel = self.channel_for(peer.address)
            try:
                answer = table_pb2_grpc.TableServiceStub(channel).RevealMatchResults(
                    request, metadata=[LOCAL_REVEAL], timeout=PEER_TIMEOUT_SECONDS
                )
                revealed += answer.revealed
            except grpc.RpcError as error:
                log.warning("replica %s could not reveal its tables: %s", peer.replica_id, error)
                failed.append(f"{peer.replica_id} at {peer.address}")
            finally:
                channel.close()
        if failed:
            raise Unavailable(
                "the results were revealed in the store, but not yet on table replica(s) "
                f"{', '.join(failed)}: try again"
            )
        return revealed
