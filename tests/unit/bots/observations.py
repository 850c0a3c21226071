"""Observations for policy tests: hand-built ones (a seat's view with chosen tiles, melds,
discards) and random ones from seeded hands."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hebei.rules.actions import DISCARD, PASS, PONG, WIN, Action
from hebei.rules.hand import HandState, Phase
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.players import RandomPlayer
from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.tiles import parse_tile, parse_tiles, to_counts
from hebei.rules.views import ClaimView, Observation, SeatView, observe
from hebei.rules.wincheck import is_win


def pongs(tiles: str, from_seat: int = 0) -> tuple[Meld, ...]:
    """Exposed pongs of the given kinds, e.g. ``pongs("5s6p7z")``."""
    return tuple(Meld(MeldKind.PONG, k, from_seat) for k in parse_tiles(tiles))


def seat_views(
    seat: int,
    hand_size: int,
    melds: Sequence[Meld],
    others: dict[int, tuple[Sequence[Meld], str]],
) -> tuple[SeatView, ...]:
    views = []
    for s in range(4):
        if s == seat:
            views.append(SeatView(s, tuple(melds), (), hand_size, 0))
            continue
        their_melds, discards = others.get(s, ((), ""))
        size = 13 - 3 * len(their_melds)
        views.append(
            SeatView(
                s, tuple(their_melds), tuple(parse_tiles(discards) if discards else ()), size, 0
            )
        )
    return tuple(views)


def turn(
    hand: str,
    *,
    melds: Sequence[Meld] = (),
    others: dict[int, tuple[Sequence[Meld], str]] | None = None,
    wall: int = 40,
    seat: int = 0,
    dealer: int = 0,
) -> Observation:
    """Seat ``seat`` on its turn holding ``hand`` (3n+2 tiles): every discard is legal, and a
    win when the hand is complete."""
    kinds = sorted(parse_tiles(hand))
    counts = to_counts(kinds)
    legal: list[Action] = []
    if is_win(counts, len(melds)):
        legal.append(WIN)
    legal += [DISCARD[k] for k in sorted(set(kinds))]
    return Observation(
        seat=seat,
        hand_no=0,
        dealer=dealer,
        phase=Phase.TURN,
        current=seat,
        hand=tuple(kinds),
        drawn=kinds[-1],
        seats=seat_views(seat, len(kinds), melds, others or {}),
        wall=wall,
        claim=None,
        legal_actions=tuple(legal),
    )


def claim(
    hand: str,
    tile: str,
    *,
    from_seat: int = 3,
    melds: Sequence[Meld] = (),
    others: dict[int, tuple[Sequence[Meld], str]] | None = None,
    wall: int = 40,
    seat: int = 0,
) -> Observation:
    """Seat ``seat`` holding ``hand`` (3n+1 tiles) answering ``tile`` discarded by
    ``from_seat``: win if it completes the hand, pong if a pair is held, pass."""
    kinds = sorted(parse_tiles(hand))
    kind = parse_tile(tile)
    counts = to_counts(kinds)
    counts[kind] += 1
    legal: list[Action] = [WIN] if is_win(counts, len(melds)) else []
    if counts[kind] >= 3:
        legal.append(PONG[kind])
    legal.append(PASS)
    others = dict(others or {})
    their_melds, discards = others.get(from_seat, ((), ""))
    others[from_seat] = (their_melds, discards + tile)
    return Observation(
        seat=seat,
        hand_no=0,
        dealer=0,
        phase=Phase.CLAIMS,
        current=from_seat,
        hand=tuple(kinds),
        drawn=None,
        seats=seat_views(seat, len(kinds), melds, others),
        wall=wall,
        claim=ClaimView(kind, from_seat, False),
        legal_actions=tuple(legal),
    )


def random_position(seed: int, steps: int, profile: RuleProfile = MAIN) -> Observation | None:
    """The observation of the first seat to act after ``steps`` random actions of a seeded
    hand of ``profile`` (None when the hand ended first)."""
    state = HandState(seed, seed % 4, profile=profile)
    players = [RandomPlayer(seed + s) for s in range(4)]
    for _ in range(steps):
        seats = state.to_act()
        if state.ended or not seats:
            return None
        seat = seats[0]
        state.apply(seat, players[seat].choose(state, seat, state.legal_actions(seat)))
    if state.ended:
        return None
    return observe(state, state.to_act()[0], (3, -1, 0, -2))


def random_positions(count: int, seed: int = 0) -> list[Observation]:
    """``count`` observations at random points of random hands."""
    rng = random.Random(seed)
    out: list[Observation] = []
    while len(out) < count:
        obs = random_position(rng.randrange(2**40), rng.randrange(0, 140))
        if obs is not None:
            out.append(obs)
    return out
