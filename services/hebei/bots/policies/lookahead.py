"""Determinised Monte-Carlo look-ahead for the expert's close decisions (level 4).

For a few candidate actions of one observation, the rest of the hand is played out many
times on *sampled worlds* and the action with the best mean points for the observing seat
wins:

- a world is what this seat cannot see, drawn from the tiles it has not seen (4 of each
  kind minus its own hand, the discards and the melds): each opponent's concealed hand (its
  tile count is public) and the order of the wall. An opponent the reading
  (:func:`~hebei.bots.policies.reading.ready_probability`) calls ready with probability p
  is dealt a ready hand with probability p (sets and a pair, one tile taken out, not a kind
  it threw itself: a ready player keeps its waits), else a random one; a concealed kong
  hidden from this seat is given a kind whose four copies are all unseen;
- a roll-out plays the hand to its end with a fast greedy player at every seat: take any
  win (discard or self-draw, the waits are the rules' legal waits), keep a drawn tile only
  when it lowers the shanten (then throw the first tile, honors and terminals first, that
  keeps the lower shanten), no claims and no kongs;
- the win is scored by the real rules (:func:`hebei.rules.scoring.win_deltas`): the points
  this seat gains or pays, kong payments aside (they do not depend on the action);
- every candidate is played on the same worlds (common random numbers), so the noise of
  the deal cancels out of the differences; the worlds come from a ``random.Random`` seeded
  by the policy's seed and the observation, so play is deterministic.

What one decision shares, without changing a point of any play-out: the opponents' waits
on each world's deal; on the seat's own turn, the opponents' turns of a world (no claims in
a play-out, so they draw the same tiles whatever the seat throws, and their greedy play
depends on their own hands only), played once for all its candidates; and the seat's
waits, counted once per hand it holds. About 40% less CPU a decision than each play-out
on its own, the same figures (tests/unit/bots/test_expert_lookahead.py).

Pure Python on :mod:`hebei.rules`; main-profile tables only (the caller checks).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from hebei.bots.policies.reading import ready_probability
from hebei.rules.actions import Action, ActionKind
from hebei.rules.hand import Phase
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.scoring import WinContext, WinKind, win_deltas
from hebei.rules.shanten import shanten
from hebei.rules.tiles import N_KINDS
from hebei.rules.views import HIDDEN, Observation
from hebei.rules.wincheck import legal_waits

# The order a greedy player looks for a tile to throw: honors, terminals, then inwards.
THROW_ORDER = (
    *range(27, 34),
    *(0, 8, 9, 17, 18, 26),
    *(1, 7, 10, 16, 19, 25),
    *(2, 6, 11, 15, 20, 24),
    *(3, 5, 12, 14, 21, 23),
    *(4, 13, 22),
)
READY_TRIES = 6  # attempts at building a ready hand before dealing a random one
# An opponent's turn in a play-out: (its self-draw's points or None, the tile it threw, its
# hand after the throw, that hand's shanten and waits).
Step = tuple[float | None, int, Sequence[int], int, frozenset[int]]
# This seat's waits by (its melds, the bytes of its hand), shared by a decision's play-outs.
SeatWaits = dict[tuple[int, bytes], frozenset[int]]


def _ready_waits(hand: list[int], melds: Sequence[Meld], value: int) -> frozenset[int]:
    """The waits of a 3n+1 ``hand`` whose shanten is ``value``: none unless it is ready."""
    return frozenset(legal_waits(hand, melds)) if value == 0 else frozenset()


def _greedy_throw(hand: list[int], melds: int) -> tuple[int, int]:
    """The greedy throw of a 3n+2 ``hand`` (restored) and the shanten it keeps: the first
    kind in :data:`THROW_ORDER` whose throw leaves the lowest shanten."""
    best, best_kind = 99, -1
    for k in THROW_ORDER:
        if hand[k]:
            hand[k] -= 1
            value = shanten(hand, melds)
            hand[k] += 1
            if value < best:
                best, best_kind = value, k
    return best_kind, best


@dataclass(slots=True)
class World:
    """One determinisation: every seat's concealed hand and melds, and the live wall."""

    hands: list[list[int]]
    melds: list[list[Meld]]
    wall: list[int]  # normal draws, in order (only the live ones)
    # Each hand's shanten and waits where already counted (see :func:`candidate_points`).
    shanten: list[int | None] = field(default_factory=lambda: [None] * 4)
    waits: list[frozenset[int] | None] = field(default_factory=lambda: [None] * 4)


def _take(pool: list[int], kind: int, n: int) -> bool:
    if pool[kind] < n:
        return False
    pool[kind] -= n
    return True


def _ready_hand(pool: list[int], size: int, thrown: frozenset[int], rng: random.Random):
    """A ready hand of ``size`` (3k+1) tiles from ``pool`` (restored on failure), or None."""
    sets = (size - 1) // 3
    for _ in range(READY_TRIES):
        work = list(pool)
        hand = [0] * N_KINDS
        ok = True
        for _ in range(sets):
            for _attempt in range(8):
                if rng.random() < 0.3:
                    kind = rng.randrange(N_KINDS)
                    if _take(work, kind, 3):
                        hand[kind] += 3
                        break
                else:
                    suit = rng.randrange(3)
                    base = suit * 9 + rng.randrange(7)
                    if work[base] and work[base + 1] and work[base + 2]:
                        for k in (base, base + 1, base + 2):
                            work[k] -= 1
                            hand[k] += 1
                        break
            else:
                ok = False
                break
        if not ok:
            continue
        pair = None
        for _attempt in range(8):
            kind = rng.randrange(N_KINDS)
            if work[kind] >= 2:
                pair = kind
                break
        if pair is None:
            continue
        work[pair] -= 2
        hand[pair] += 2
        held = [k for k in range(N_KINDS) if hand[k] and k not in thrown]
        if not held:
            continue
        out = rng.choice(held)
        hand[out] -= 1
        work[out] += 1
        pool[:] = work
        return hand
    return None


def _random_hand(pool: list[int], size: int, rng: random.Random) -> list[int]:
    tiles = [k for k in range(N_KINDS) for _ in range(pool[k])]
    hand = [0] * N_KINDS
    for k in rng.sample(tiles, size):
        hand[k] += 1
        pool[k] -= 1
    return hand


def sample_world(obs: Observation, hand: Sequence[int], rng: random.Random) -> World:
    """The unseen tiles of ``obs`` dealt into the opponents' hands and the wall.

    ``hand`` is the seat's own concealed counts (a claim's tile is still the discarder's).
    """
    seat = obs.seat
    pool = [4 - c for c in hand]
    for k, v in enumerate(obs.visible()):
        pool[k] -= v
    melds: list[list[Meld]] = [[], [], [], []]
    for view in obs.seats:
        for meld in view.melds:
            if meld.tile == HIDDEN:  # a concealed kong this seat may not see
                full = [k for k in range(N_KINDS) if pool[k] == 4]
                kind = rng.choice(full) if full else max(range(N_KINDS), key=pool.__getitem__)
                pool[kind] = max(0, pool[kind] - 4)
                meld = Meld(MeldKind.CONCEALED_KONG, kind)
            melds[view.seat].append(meld)
    hands: list[list[int]] = [[], [], [], []]
    hands[seat] = list(hand)
    for offset in (1, 2, 3):
        s = (seat + offset) % 4
        view = obs.seats[s]
        size = view.concealed_count
        dealt = None
        if size % 3 == 1:
            p = ready_probability(view.discards, len(view.melds), obs.wall)
            if rng.random() < p:
                dealt = _ready_hand(pool, size, frozenset(view.discards), rng)
        if dealt is None:
            dealt = _random_hand(pool, min(size, sum(pool)), rng)
        hands[s] = dealt
    wall = [k for k in range(N_KINDS) for _ in range(pool[k])]
    rng.shuffle(wall)
    return World(hands, melds, wall[: obs.wall])


class Rollout:
    """One play-out of a world from a decision of ``seat`` (the state is copied)."""

    __slots__ = (
        "danger",
        "dealer",
        "draws",
        "hands",
        "melds",
        "seat",
        "seat_waits",
        "shanten",
        "steps",
        "waits",
        "wall",
    )

    def __init__(
        self,
        world: World,
        seat: int,
        dealer: int,
        danger: Sequence[float] | None = None,
        steps: dict[int, Step] | None = None,
        seat_waits: SeatWaits | None = None,
    ) -> None:
        self.hands = [list(h) for h in world.hands]
        self.melds = [list(m) for m in world.melds]
        self.wall = world.wall
        self.draws = 0
        self.seat = seat
        self.dealer = dealer
        self.danger = danger  # set: ``seat`` folds, throwing its least dangerous tile
        self.shanten = list(world.shanten)
        self.waits = list(world.waits)
        # The opponents' turns by draw number, shared by the play-outs of one world whose
        # turns come in the same order (see :func:`candidate_points`), else None.
        self.steps = steps
        # This seat's waits by its melds and hand, shared by all the play-outs of a decision
        # (its hand after each candidate is the same in every world), else None.
        self.seat_waits = seat_waits

    # -- one seat's hand

    def _shanten(self, s: int) -> int:
        value = self.shanten[s]
        if value is None:
            value = self.shanten[s] = shanten(self.hands[s], len(self.melds[s]))
        return value

    def _waits(self, s: int) -> frozenset[int]:
        waits = self.waits[s]
        if waits is None:
            if s == self.seat and self.seat_waits is not None:
                key = (len(self.melds[s]), bytes(self.hands[s]))
                waits = self.seat_waits.get(key)
                if waits is None:
                    waits = self.seat_waits[key] = self._count_waits(s)
            else:
                waits = self._count_waits(s)
            self.waits[s] = waits
        return waits

    def _count_waits(self, s: int) -> frozenset[int]:
        return _ready_waits(self.hands[s], self.melds[s], self._shanten(s))

    def _changed(self, s: int) -> None:
        self.shanten[s] = None
        self.waits[s] = None

    def _score(self, s: int, tile: int, kind: WinKind, discarder: int | None) -> float:
        concealed = list(self.hands[s])
        concealed[tile] += 1
        ctx = WinContext(
            tuple(concealed),
            tuple(self.melds[s]),
            tile,
            kind,
            s,
            self.dealer,
            discarder,
            last_tile=kind is WinKind.SELF_DRAW and self.draws == len(self.wall),
        )
        deltas = win_deltas(ctx)
        return 0.0 if deltas is None else float(deltas[self.seat])

    # -- play

    def discard(self, s: int, tile: int, changed: bool = True) -> float | None:
        """``s`` throws ``tile``; the points if someone wins on it, else None."""
        self.hands[s][tile] -= 1
        if changed:
            self._changed(s)
        return self._win_on(s, tile)

    def _win_on(self, s: int, tile: int) -> float | None:
        """The points if another seat wins on ``s``'s thrown ``tile``, else None."""
        total = None
        for offset in (1, 2, 3):
            other = (s + offset) % 4
            if self.hands[other][tile] < 4 and tile in self._waits(other):
                total = (total or 0.0) + self._score(other, tile, WinKind.DISCARD, s)
        return total

    def pong(self, s: int, tile: int, discarder: int) -> None:
        self.hands[s][tile] -= 2
        self.melds[s].append(Meld(MeldKind.PONG, tile, discarder))
        self._changed(s)

    def choose_throw(self, s: int) -> int:
        """The greedy throw of ``s``'s 3n+2 hand: keep the lowest shanten."""
        return _greedy_throw(self.hands[s], len(self.melds[s]))[0]

    def turn(self, s: int) -> float | None:
        """``s`` draws and throws; the points if the hand ends, else None."""
        if self.draws >= len(self.wall):
            return 0.0  # exhaustive draw
        tile = self.wall[self.draws]
        self.draws += 1
        if s != self.seat and self.steps is not None:
            step = self.steps.get(self.draws)
            if step is None:
                step = self.steps[self.draws] = self._step(s, tile)
            won, throw, hand, value, waits = step
            if won is not None:
                return won
            self.hands[s] = list(hand)
            self.shanten[s] = value
            self.waits[s] = waits
            return self._win_on(s, throw)
        hand = self.hands[s]
        if hand[tile] < 4 and tile in self._waits(s):
            return self._score(s, tile, WinKind.SELF_DRAW, None)
        if s == self.seat and self.danger is not None:
            hand[tile] += 1
            danger = self.danger
            throw = min((k for k in range(N_KINDS) if hand[k]), key=danger.__getitem__)
            return self.discard(s, throw)
        now = self._shanten(s)
        hand[tile] += 1
        # Keep the draw only if it lowers the shanten; else the hand, its shanten and its
        # waits stay as they were.
        throw = self.choose_throw(s) if shanten(hand, len(self.melds[s])) < now else tile
        return self.discard(s, throw, changed=throw != tile)

    def _step(self, s: int, tile: int) -> Step:
        """Opponent ``s``'s greedy turn on drawing ``tile``, as :meth:`turn` plays it:
        (its self-draw's points or None, the tile thrown, the hand left, its shanten and
        waits). It depends on that seat's hand and the wall only, never on this seat's
        play, so the play-outs of one world share it."""
        hand = self.hands[s]
        if hand[tile] < 4 and tile in self._waits(s):
            return self._score(s, tile, WinKind.SELF_DRAW, None), -1, (), 0, frozenset()
        now = self._shanten(s)
        melds = self.melds[s]
        after = list(hand)
        after[tile] += 1
        if shanten(after, len(melds)) >= now:  # throws what it drew: the hand as it was
            return None, tile, tuple(hand), now, self._waits(s)
        throw, value = _greedy_throw(after, len(melds))
        after[throw] -= 1
        return None, throw, after, value, _ready_waits(after, melds, value)

    def play_from(self, s: int) -> float:
        """Play on from ``s``'s draw to the end of the hand."""
        while True:
            ended = self.turn(s)
            if ended is not None:
                return ended
            s = (s + 1) % 4


def candidate_points(
    obs: Observation,
    actions: Sequence[tuple[Action, int | None, bool]],
    samples: int,
    rng: random.Random,
    danger: Sequence[float] | None = None,
) -> list[list[float]]:
    """The points of this seat on each of ``samples`` worlds for each ``(action, then,
    fold)`` (the same worlds for every action, in order). With ``fold`` the seat goes on
    throwing its least dangerous tile by ``danger`` (expected deal-in cost per kind).

    ``action`` is a discard on the seat's turn, or a pong (``then``: the discard after it)
    or a pass when answering a discard.
    """
    seat = obs.seat
    hand = obs.counts()
    claim = obs.claim
    points: list[list[float]] = [[] for _ in actions]
    # On the seat's turn every play-out of a world goes on from the next seat, so the
    # opponents draw the same tiles in the same order whatever this seat throws: their
    # turns are played once per world and shared (an answer to a discard changes the order).
    turn = obs.phase is Phase.TURN
    seat_waits: SeatWaits = {}
    for _ in range(samples):
        world = sample_world(obs, hand, rng)
        steps: dict[int, Step] | None = {} if turn else None
        _count_opponents(world, seat)
        for i, (action, then, fold) in enumerate(actions):
            fold_by = danger if fold else None
            play = Rollout(world, seat, obs.dealer, fold_by, steps, seat_waits)
            points[i].append(play_candidate(play, obs, action, then, claim))
    return points


def _count_opponents(world: World, seat: int) -> None:
    """Count the opponents' shanten and waits on the world's deal once for all its play-outs
    (each play-out asks for them at the first discard)."""
    for offset in (1, 2, 3):
        other = (seat + offset) % 4
        hand, melds = world.hands[other], world.melds[other]
        value = world.shanten[other] = shanten(hand, len(melds))
        world.waits[other] = _ready_waits(hand, melds, value)


def better_than_first(points: Sequence[Sequence[float]], z: float) -> int:
    """The index of the action to play: the one with the best mean whose paired advantage
    over the first (the static ranking's choice) is more than ``z`` standard errors, else 0."""
    first = points[0]
    n = len(first)
    best, best_mean = 0, 0.0
    for i in range(1, len(points)):
        diffs = [a - b for a, b in zip(points[i], first, strict=True)]
        mean = sum(diffs) / n
        if n < 2 or mean <= best_mean:
            continue
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if mean > z * math.sqrt(var / n):
            best, best_mean = i, mean
    return best


def play_candidate(play: Rollout, obs: Observation, action: Action, then, claim) -> float:
    """The points of this seat playing ``action`` (then throwing ``then`` after a pong) in
    ``play``, from the observation's decision to the end of the hand."""
    seat = obs.seat
    kind = action.kind
    if obs.phase is Phase.TURN:
        ended = play.discard(seat, action.tile)
        return ended if ended is not None else play.play_from((seat + 1) % 4)
    tile, discarder = claim.tile, claim.from_seat
    # Another seat may win on the discard whatever this seat answers.
    play.hands[discarder][tile] += 1  # the discard is the discarder's again, to re-throw
    for offset in (1, 2, 3):
        other = (discarder + offset) % 4
        if other == seat:
            continue
        if play.hands[other][tile] < 4 and tile in play._waits(other):
            ended = play.discard(discarder, tile)
            return 0.0 if ended is None else ended
    play.hands[discarder][tile] -= 1
    if kind is ActionKind.PONG:
        play.pong(seat, tile, discarder)
        throw = then if then is not None else play.choose_throw(seat)
        ended = play.discard(seat, throw)
        return ended if ended is not None else play.play_from((seat + 1) % 4)
    return play.play_from((discarder + 1) % 4)
