"""Observations hold only what a player may see (RULES.md §3; ARCHITECTURE service boundaries)."""

import json

from hebei.rules.actions import CONCEALED_KONG, DISCARD
from hebei.rules.hand import HandState
from hebei.rules.players import RandomPlayer
from hebei.rules.tiles import parse_tile
from hebei.rules.views import HIDDEN, observe, public_event
from tests.unit.rules.rigging import rigged_hand


def _tiles_in(obj) -> str:
    return json.dumps(obj)


def test_observation_holds_own_hand_public_info_and_own_legal_actions():
    state = HandState(42, 1)
    obs = observe(state, 1, scores=(5, -5, 0, 0))
    assert sorted(obs.hand) == list(obs.hand) and len(obs.hand) == 14
    assert obs.legal_actions == state.legal_actions(1)
    assert obs.wall == state.wall.live and obs.seats[0].score == 5
    assert [v.concealed_count for v in obs.seats] == [13, 14, 13, 13]
    other = observe(state, 2)
    assert other.legal_actions == () and other.drawn is None


def test_observation_never_contains_the_wall_the_seed_or_another_hand():
    state = HandState(987_654_321_987, 0)
    players = [RandomPlayer(s) for s in range(4)]
    while not state.ended:
        for seat in range(4):
            body = observe(state, seat).to_json()
            assert set(body) == {
                "seat",
                "hand_no",
                "dealer",
                "phase",
                "current",
                "hand",
                "drawn",
                "seats",
                "wall",
                "claim",
                "legal_actions",
            }
            assert str(state.seed) not in _tiles_in(body)
            assert all(
                set(s) == {"seat", "melds", "discards", "concealed_count", "score"}
                for s in body["seats"]
            )
        seat = state.to_act()[0]
        state.apply(seat, players[seat].choose(state, seat, state.legal_actions(seat)))


def test_concealed_kong_is_face_down_to_the_others():
    state = rigged_hand(
        ["1111m47p147s34567z", "258m258p258s1234z", "369m369p369s1234z", "258m369p258s5677z"]
    )
    state.apply(0, CONCEALED_KONG[parse_tile("1m")])
    assert observe(state, 0).seats[0].melds[0].tile == parse_tile("1m")
    assert observe(state, 2).seats[0].melds[0].tile == HIDDEN
    assert observe(state, 2).to_json()["seats"][0]["melds"] == [{"type": "concealed_kong"}]
    assert observe(state, 2).visible()[parse_tile("1m")] == 0


def test_public_events_hide_seed_dice_draws_deals_and_passes():
    state = rigged_hand(
        ["147m147p147s34567z", "258m258p258s1234z", "369m369p369s1234z", "258m369p147s5667z"]
    )
    start, deal = state.events[0], state.events[1]
    assert "seed" not in public_event(start) and "dice" not in public_event(start)
    assert public_event(deal) == {"type": "deal"}
    assert public_event(deal, 2) == {"type": "deal", "hand": deal["hands"][2]}
    state.apply(0, DISCARD[parse_tile("1m")])
    draw = next(e for e in state.events if e["type"] == "draw")
    assert "tile" not in public_event(draw, (draw["seat"] + 1) % 4)
    assert public_event(draw, draw["seat"]) == draw
    assert public_event({"type": "pass", "seat": 1}, 2) is None
    assert public_event({"type": "pass", "seat": 1}, 1) == {"type": "pass", "seat": 1}


def test_visible_counts_discards_and_melds():
    state = HandState(5, 0)
    tile = state.auto_action(0).tile
    state.apply(0, DISCARD[tile])
    obs = observe(state, 2)
    assert obs.visible()[tile] >= 1
