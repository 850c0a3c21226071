"""The board, the hand with its keys, the settlement and the change lines, as printed."""

from __future__ import annotations

import collections
import re

import pytest
from rich.cells import cell_len

from hebei.common import convert
from hebei.play.render import describe_changes, render_board, render_settlement
from hebei.rules.tiles import parse_tile
from hebei.rules.views import observe
from hebei.seatclient.tiles import tile_label
from hebei.v1 import types_pb2 as pb
from tests.unit.play.helpers import NAMES, advance, observation, plain


def tile(name: str) -> int:
    return parse_tile(name) + 1


def tiles(names: str) -> list[int]:
    return [tile(n) for n in names.split()]


def made_up(**fields) -> pb.Observation:
    """Seat 0 on its turn, having drawn 4m; seat 1 ponged 9p, seat 2 holds a concealed kong."""
    obs = pb.Observation(
        hand_no=2,
        seat=0,
        dealer=1,
        phase=pb.PHASE_TURN,
        current_seat=0,
        wall_count=41,
        concealed=tiles("1m 2m 3m 4m 5p 5p 7s 8s 9s 1z 1z 5z 5z 6z"),
        drawn=tile("4m"),
        length=pb.MatchLength(hands=4),
        seats=[
            pb.SeatView(
                seat=0,
                player_name="Ann",
                kind=pb.SEAT_KIND_PERSON,
                concealed_count=14,
                score=12,
                connected=True,
                seat_wind=pb.TILE_NORTH,
                discards=tiles("9m 1s"),
            ),
            pb.SeatView(
                seat=1,
                player_name="Bot 1",
                kind=pb.SEAT_KIND_BOT,
                melds=[pb.Meld(kind=pb.MELD_KIND_PONG, tile=tile("9p"), from_seat=3)],
                concealed_count=10,
                score=-5,
                connected=True,
                auto_played=True,
                seat_wind=pb.TILE_EAST,
                discards=tiles("2z 3p"),
            ),
            pb.SeatView(
                seat=2,
                player_name="Bot 2",
                kind=pb.SEAT_KIND_BOT,
                melds=[pb.Meld(kind=pb.MELD_KIND_CONCEALED_KONG)],
                concealed_count=10,
                score=-7,
                connected=False,
                seat_wind=pb.TILE_SOUTH,
                discards=tiles("7z"),
            ),
            pb.SeatView(
                seat=3,
                player_name="Bot 3",
                kind=pb.SEAT_KIND_BOT,
                concealed_count=13,
                score=0,
                connected=True,
                seat_wind=pb.TILE_WEST,
                discards=tiles("6s 6s"),
            ),
        ],
        **fields,
    )
    return obs


def from_cell(line: str, column: int) -> str:
    """The rest of ``line`` from terminal cell ``column`` (wide characters take two cells)."""
    for i in range(len(line) + 1):
        if cell_len(line[:i]) >= column:
            return line[i:]
    return ""


def row_of(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if f" {name} " in line)


def test_the_hand_is_sorted_with_the_drawn_tile_apart_and_a_key_under_each_tile() -> None:
    text = plain(render_board(made_up()))
    lines = text.splitlines()
    hand_at = next(i for i, line in enumerate(lines) if line.startswith("Your hand"))
    hand, keys = lines[hand_at], lines[hand_at + 1]
    assert hand.split()[2:] == [
        "1m",
        "2m",
        "3m",
        "5p",
        "5p",
        "7s",
        "8s",
        "9s",
        "东",
        "东",
        "白",
        "白",
        "发",
        "4m",
    ]
    assert keys.split() == list("123456789abcde")
    assert "发   4m" in hand  # the drawn tile is set apart
    # Each key sits under the first cell of its tile.
    labels = hand.split()[2:]
    for key, label in zip(keys.split(), labels, strict=True):
        assert from_cell(hand, cell_len(keys[: keys.index(key)])).startswith(label), key


def test_every_seat_has_a_row_with_wind_name_score_count_melds_discards_and_flags() -> None:
    text = plain(render_board(made_up()))
    assert "Hand 2 of 4" in text and "wall 41" in text
    assert "dealer: Seat 1 (Bot 1)" in text and "turn: You" in text
    ann = row_of(text, "Ann")
    assert "北 North" in ann and " 12 " in ann and " 14 " in ann and "9m 1s" in ann
    bot1 = row_of(text, "Bot 1")
    assert "东 East" in bot1 and " -5 " in bot1 and "pong 9p" in bot1 and "[auto]" in bot1
    assert "南 3p" in bot1  # discards: south wind, 3p
    bot2 = row_of(text, "Bot 2")
    assert "暗杠 ??" in bot2 and "[offline]" in bot2 and " -7 " in bot2 and " 10 " in bot2
    bot3 = row_of(text, "Bot 3")
    assert "西 West" in bot3 and "6s 6s" in bot3 and "[auto]" not in bot3


def test_a_discard_on_offer_is_shown() -> None:
    obs = made_up(last_discard=tile("5m"), last_discarder=2)
    obs.phase = pb.PHASE_CLAIM
    obs.ClearField("drawn")
    text = plain(render_board(obs))
    assert "On offer: Seat 2 (Bot 2) discarded 5m" in text
    assert "turn:" not in text
    obs.phase = pb.PHASE_ROB_KONG
    assert "Seat 2 (Bot 2) adds a kong with 5m" in plain(render_board(obs))


def test_a_waiting_table_says_who_is_connected() -> None:
    obs = pb.Observation(
        phase=pb.PHASE_WAITING,
        seats=[pb.SeatView(seat=0, player_name="Ann", connected=True), pb.SeatView(seat=1)],
    )
    assert "Waiting for the seats to join (connected: Ann)" in plain(render_board(obs))


def win_settlement() -> pb.Settlement:
    win = pb.Win(
        winner=3,
        discarder=0,
        kind=pb.WIN_KIND_DISCARD,
        win_tile=tile("5m"),
        fans=convert.fan_names(["men_qing", "peng_peng_hu"]),
        bonus=5,
        base=2,
        deltas=[-7, 0, 0, 7],
        concealed=tiles("2m 2m 2m 5m 7p 7p 7p 9s 9s 9s 1z 1z 1z"),
    )
    return pb.Settlement(
        hand_no=2,
        outcome=pb.HAND_OUTCOME_WIN,
        wins=[win],
        results=[
            pb.SeatResult(seat=0, hand_delta=-7, kong_delta=-2, total_delta=-9),
            pb.SeatResult(seat=1, hand_delta=0, kong_delta=-2, total_delta=-2),
            pb.SeatResult(seat=2, hand_delta=0, kong_delta=6, total_delta=6),
            pb.SeatResult(seat=3, hand_delta=7, kong_delta=-2, total_delta=5),
        ],
    )


def test_the_settlement_lists_each_win_with_its_fans_and_the_deltas() -> None:
    obs = made_up()
    text = plain(render_settlement(win_settlement(), obs))
    assert "Hand 2 settlement" in text
    assert "Seat 3 (Bot 3) won by discard 点炮 from You on 5m · base 2 + bonus 5" in text
    assert re.search(r"men_qing\s+门清\s+2 fan", text)
    assert re.search(r"peng_peng_hu\s+碰碰胡\s+3 fan", text)
    assert "hand: 2m 2m 2m 5m 7p 7p 7p 9s 9s 9s 东 东 东" in text
    assert re.search(r"0\s+You\s+-7\s+-2\s+-9\s+12", text)
    assert re.search(r"2\s+Seat 2 \(Bot 2\)\s+\+0\s+\+6\s+\+6\s+-7", text)
    assert re.search(r"3\s+Seat 3 \(Bot 3\)\s+\+7\s+-2\s+\+5\s+0", text)


def test_an_exhaustive_draw_says_so_and_the_board_carries_the_settlement() -> None:
    settlement = pb.Settlement(
        hand_no=2,
        outcome=pb.HAND_OUTCOME_EXHAUSTIVE_DRAW,
        results=[pb.SeatResult(seat=s) for s in range(4)],
    )
    obs = made_up(settlement=settlement)
    obs.phase = pb.PHASE_HAND_END
    text = plain(render_board(obs))
    assert "Hand 2 settlement" in text and "荒庄 exhaustive draw" in text
    assert "won by" not in text


SUITED = re.compile(r"(?<![\w.])([1-9][mps])(?![\w])")


@pytest.mark.parametrize("seed", range(12))
def test_the_board_never_shows_more_of_a_tile_than_the_seat_may_see(seed: int) -> None:
    """Across real hands: each suited tile printed at most as often as it is in the own hand,
    the discards, the melds and the offer - never another seat's concealed tiles."""
    for steps in (0, 9, 25, 47, 80):
        state = advance(seed, steps, dealer=seed % 4)
        for seat in range(4):
            view = observe(state, seat)
            text = plain(render_board(observation(state, seat)), width=300)
            allowed = collections.Counter(view.hand) + collections.Counter(
                {k: c for k, c in enumerate(view.visible()) if c}
            )
            if view.claim is not None:
                allowed[view.claim.tile] += 1
            shown = collections.Counter(parse_tile(m) for m in SUITED.findall(text))
            for kind, count in shown.items():
                assert count <= allowed[kind], (seed, steps, seat, kind, text)
            others = [s for s in range(4) if s != seat]
            for other in others:  # concealed counts are numbers, never tiles
                assert str(sum(state.hands[other])) in row_of(
                    text, observation(state, seat).seats[other].player_name
                )


def test_the_change_lines_tell_discards_melds_and_auto_play() -> None:
    before = made_up()
    after = made_up()
    after.seats[3].discards.append(tile("5m"))
    after.seats[1].melds[0].kind = pb.MELD_KIND_ADDED_KONG
    after.seats[2].melds.append(pb.Meld(kind=pb.MELD_KIND_PONG, tile=tile("6s"), from_seat=3))
    after.seats[1].auto_played = False
    after.seats[3].auto_played = True
    lines = [line.plain for line in describe_changes(before, after)]
    assert lines == [
        "Seat 1 (Bot 1) declares kong+ 9p",
        "Seat 1 (Bot 1) plays again",
        "Seat 2 (Bot 2) pongs 6s",
        "Seat 3 (Bot 3) discarded 5m",
        "Seat 3 (Bot 3) is now auto-played (托管)",
    ]
    assert describe_changes(after, after) == []
    nxt = made_up()
    nxt.hand_no = 3
    assert [line.plain for line in describe_changes(after, nxt)] == [
        "Hand 3 begins; dealer: Seat 1 (Bot 1)"
    ]


def test_change_lines_follow_a_real_hand() -> None:
    state = advance(5, 0)
    first = observation(state, 2)
    seat = state.current
    discard = next(a for a in state.legal_actions(seat) if a.tile is not None)
    state.apply(seat, discard)
    lines = [line.plain for line in describe_changes(first, observation(state, 2))]
    assert lines == [f"Seat {seat} ({NAMES[seat]}) discarded {tile_label(discard.tile)}"]
