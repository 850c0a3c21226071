"""An observation is checked before a policy reads it: malformed ones are refused clearly."""

from __future__ import annotations

import dataclasses

import pytest

from hebei.botservice.positions import check_observation
from hebei.common.errors import InvalidArgument
from hebei.rules.actions import CONCEALED_KONG, DISCARD, PASS, PONG, WIN
from hebei.rules.hand import Phase
from hebei.rules.tiles import parse_tile
from tests.unit.bots.observations import claim, turn
from tests.unit.botservice.positions import random_positions


def test_real_positions_pass() -> None:
    for obs in random_positions(60, seed=5):
        check_observation(obs)


def _replace(obs, **changes):
    return dataclasses.replace(obs, **changes)


ON_TURN = turn("123m456p789s11z55z7z")
ON_CLAIM = claim("123m456p789s55z13z", "5z")


@pytest.mark.parametrize(
    ("obs", "message"),
    [
        (_replace(ON_TURN, seat=5), "seat must be a seat 0-3"),
        (_replace(ON_TURN, dealer=-1), "dealer must be a seat 0-3"),
        (_replace(ON_TURN, phase=Phase.ENDED), "nothing to decide"),
        (_replace(ON_TURN, wall=500), "wall_count must be"),
        (_replace(ON_TURN, hand=ON_TURN.hand[:-1]), "holds 13 concealed tiles"),
        (_replace(ON_TURN, drawn=parse_tile("9m")), "drawn tile 9m is not in the hand"),
        (_replace(ON_TURN, legal_actions=()), "no legal actions"),
        (_replace(ON_TURN, legal_actions=(DISCARD[0], DISCARD[0])), "repeat"),
        (_replace(ON_TURN, legal_actions=(DISCARD[parse_tile("9m")],)), "no 9m to throw"),
        (_replace(ON_TURN, legal_actions=(WIN, DISCARD[0])), "not complete"),
        (_replace(ON_TURN, legal_actions=(CONCEALED_KONG[0],)), "needs four 1m"),
        (_replace(ON_TURN, legal_actions=(PASS,)), "only legal on a claim"),
        (_replace(ON_CLAIM, legal_actions=(PONG[parse_tile("1z")], PASS)), "does not fit"),
        (_replace(ON_TURN, hand=(0, 0, 0, 0, 0, *ON_TURN.hand[5:])), "more than four copies"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_malformed_positions_are_refused(obs, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        check_observation(obs)
