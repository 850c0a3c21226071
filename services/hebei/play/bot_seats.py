"""Bot seats played in-process over the Play stream (for ``hebei play`` on a local table).

Each :class:`BotSeat` is a thread with its own :class:`~hebei.play.session.PlayStream`: it
turns every new decision into a rules observation, asks its policy and sends the answer.
"""

from __future__ import annotations

import logging
import queue
import threading

import grpc

from hebei.bots.policies import Policy
from hebei.common import convert
from hebei.play.session import CLOSED, MESSAGE, PlayStream
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)


class BotSeat:
    """One bot seat: joins with its token and answers each decision with ``policy``."""

    def __init__(
        self, channel: grpc.Channel, match_id: str, seat: int, token: str, policy: Policy
    ) -> None:
        self.seat = seat
        self.policy = policy
        self.answers = 0
        self.error: grpc.RpcError | None = None
        self.finished = threading.Event()
        self._inbox: queue.Queue = queue.Queue()
        join = table_pb2.Join(
            match_id=match_id, seat=seat, seat_token=token, client_name="hebei-play-bot"
        )
        self._stream = PlayStream(channel, join, self._inbox)
        self._thread = threading.Thread(target=self._run, name=f"bot-seat-{seat}", daemon=True)
        self._answered = 0

    def start(self) -> BotSeat:
        self._stream.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        """Leave the table (the engine auto-plays the seat from then on)."""
        self._stream.close()
        self._thread.join(5)

    def _run(self) -> None:
        while True:
            kind, value = self._inbox.get()
            if kind == CLOSED:
                self.error = value
                break
            if kind == MESSAGE and value.HasField("observation"):
                if value.observation.match_finished:
                    break
                self._decide(value.observation)
        self.finished.set()

    def _decide(self, obs: pb.Observation) -> None:
        if not obs.decision_id or not obs.legal_actions or obs.decision_id == self._answered:
            return
        self._answered = obs.decision_id
        try:
            action = self.policy.choose(convert.observation_from_proto(obs))
        except Exception:  # a policy bug must not stall the table
            log.exception(
                "bot seat %d: the policy failed; playing the first legal action", self.seat
            )
            action = convert.action_from_proto(obs.legal_actions[0])
        self.answers += 1
        self._stream.send(convert.action_to_proto(action, obs.decision_id))
