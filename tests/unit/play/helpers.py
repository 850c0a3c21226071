"""Observations for the play tests: real hands advanced by random players, and plain text."""

from __future__ import annotations

import io
import random

from rich.console import Console, RenderableType

from hebei.common import convert
from hebei.rules.hand import HandState
from hebei.rules.views import observe
from hebei.v1 import types_pb2 as pb

NAMES = ("Ann", "Bot 1", "Bot 2", "Bot 3")
PUBLICS = [
    convert.SeatPublic(name, pb.SEAT_KIND_PERSON if i == 0 else pb.SEAT_KIND_BOT, True, False)
    for i, name in enumerate(NAMES)
]


def plain(renderable: RenderableType, width: int = 200) -> str:
    """What a renderable prints on a wide terminal without colours."""
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, force_terminal=False).print(renderable)
    return out.getvalue()


def advance(seed: int, steps: int, dealer: int = 0) -> HandState:
    """A hand dealt from ``seed`` after up to ``steps`` random legal actions."""
    state = HandState(seed, dealer)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.ended:
            break
        seat = state.to_act()[0]
        options = state.legal_actions(seat)
        state.apply(seat, options[rng.randrange(len(options))])
    return state


def observation(
    state: HandState, seat: int, decision_id: int = 7, scores=(0, 0, 0, 0)
) -> pb.Observation:
    """``seat``'s observation message, with a decision when the seat must act."""
    view = observe(state, seat, scores)
    return convert.observation_to_proto(
        view,
        table_id="t",
        match_id="m",
        seats=PUBLICS,
        decision_id=decision_id if view.legal_actions else 0,
        length=None,
    )
