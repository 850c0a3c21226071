"""Observations for the play tests: real hands advanced by random players, and plain text."""

from __future__ import annotations

import io
import random

from rich.console import Console, RenderableType

from hebei.common import convert
from hebei.rules.hand import HandState
from hebei.rules.views import observe
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import table_pb2
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


# ---------------------------------------------------------------------- tournaments

ME = "p-mei"


def table(round_no: int, match_id: str, players: list[str], status=pb.MATCH_STATUS_PLAYING):
    seats = [mm.PublicSeat(seat=i, player_id=p, player_name=p) for i, p in enumerate(players)]
    return mm.TableAssignment(
        round_no=round_no, table_id=f"T{match_id}", match_id=match_id, seats=seats, status=status
    )


TABLES_R1 = [["p-mei", "b1", "b2", "b3"], ["b4", "b5", "b6", "b7"]]


def tournament(
    round_no: int = 1,
    status=mm.TOURNAMENT_STATUS_RUNNING,
    statuses: tuple = (pb.MATCH_STATUS_PLAYING, pb.MATCH_STATUS_PLAYING),
    me: mm.Player | None = None,
) -> mm.Tournament:
    t = mm.Tournament(tournament_id="t-1", status=status, current_round=round_no)
    t.config.name, t.config.rounds = "Cup", 2
    t.players.append(me or mm.Player(player_id=ME, name="Mei", status=mm.PLAYER_STATUS_ACTIVE))
    for i in range(1, 8):
        t.players.append(mm.Player(player_id=f"b{i}", name=f"b{i}"))
    if status != mm.TOURNAMENT_STATUS_REGISTRATION:
        for n, (players, state) in enumerate(zip(TABLES_R1, statuses, strict=True)):
            t.tables.append(table(round_no, f"m{round_no}-{n}", players, state))
    return t


def match_over(scores=(12, -4, -4, -4)) -> table_pb2.PlayResponse:
    obs = observation(advance(3, 0, dealer=0), 0, 0, scores=scores)
    obs.match_finished = True
    for view, score in zip(obs.seats, scores, strict=True):
        view.score = score
    del obs.legal_actions[:]
    return table_pb2.PlayResponse(observation=obs)


def standings(*rows: tuple[str, int]) -> list[pb.Standing]:
    return [
        pb.Standing(rank=i, player_id=p, player_name=p, points=pts)
        for i, (p, pts) in enumerate(rows, 1)
    ]
