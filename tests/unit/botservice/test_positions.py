"""An observation is checked before a policy reads it: malformed ones are refused clearly."""

from __future__ import annotations

import dataclasses

import pytest

from hebei.botservice.positions import check_observation
from hebei.common.errors import InvalidArgument
from hebei.rules.actions import CHOW, CONCEALED_KONG, DISCARD, PASS, PONG, WIN
from hebei.rules.hand import Phase
from hebei.rules.profile import CLASSIC
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
ON_CHOW = claim("123m456p789s55z13z", "4m", from_seat=3)  # seat 3 is seat 0's previous seat


def test_a_chow_that_fits_passes_at_a_classic_table() -> None:
    check_observation(
        _replace(ON_CHOW, profile=CLASSIC, legal_actions=(CHOW[parse_tile("2m")], PASS))
    )


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
        # the rules always offer these, and the policies rank them: a list without them is
        # not a position (the expert crashed on a turn offering only some discards)
        (_replace(ON_TURN, legal_actions=(DISCARD[0],)), "leave out discarding 2m, 3m, 4p"),
        (_replace(ON_CLAIM, legal_actions=(PONG[parse_tile("5z")],)), "leave out pass"),
        # a chow where the rules have none, or one that does not fit (it crashed the expert)
        (
            _replace(ON_CHOW, legal_actions=(CHOW[parse_tile("2m")], PASS)),
            "main rules have no chow",
        ),
        (
            _replace(ON_CHOW, profile=CLASSIC, legal_actions=(CHOW[parse_tile("3m")], PASS)),
            "a chow takes the previous seat's discard",
        ),
        (
            _replace(
                ON_CHOW,
                profile=CLASSIC,
                claim=dataclasses.replace(ON_CHOW.claim, from_seat=2),
                legal_actions=(CHOW[parse_tile("2m")], PASS),
            ),
            "a chow takes the previous seat's discard",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_malformed_positions_are_refused(obs, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        check_observation(obs)
