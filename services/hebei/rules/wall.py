"""The wall (RULES.md §2): seeded shuffle, dice, break point, deal, draws and the reserve."""

from __future__ import annotations

import random

from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.tiles import COPIES, N_KINDS, N_TILES

STACKS = N_TILES // 2  # 68 stacks (墩) of two
STACKS_PER_SIDE = STACKS // 4  # 17 in front of each player
_FULL_SET = [k for k in range(N_KINDS) for _ in range(COPIES)]


class Wall:
    """136 tiles in drawing order: normal draws from the head, replacements from the tail.

    ``tiles[head:tail]`` is what is left. The reserve (留牌) is the tiles at the tail that are
    never drawn normally: ``reserve_tiles + reserve_tiles_per_kong * kongs`` plus
    ``reserve_odd_kong_extra`` while ``kongs`` is odd (the lone tile left on the tail stack
    is not a stack). Main: ``12 + kongs % 2``; classic (six stacks, one more per kong):
    ``12 + 2 * kongs + kongs % 2``.
    """

    __slots__ = (
        "_per_kong",
        "_reserve",
        "_reserve_odd",
        "dice",
        "head",
        "kongs",
        "tail",
        "tiles",
    )

    def __init__(
        self,
        tiles: list[int],
        dice: tuple[int, int],
        profile: RuleProfile = MAIN,
        *,
        broken: bool = False,
    ):
        if len(tiles) != N_TILES or sorted(tiles) != _FULL_SET:
            raise ValueError(f"a wall holds the {N_TILES} tiles, four of each kind")
        self.dice = dice
        self.tiles = list(tiles) if broken else _break(tiles, dice)
        self.head = 0
        self.tail = N_TILES
        self.kongs = 0
        self._reserve = profile.reserve_tiles
        self._reserve_odd = profile.reserve_odd_kong_extra
        self._per_kong = profile.reserve_tiles_per_kong

    @classmethod
    def shuffled(cls, rng: random.Random, profile: RuleProfile = MAIN) -> Wall:
        tiles = list(_FULL_SET)
        rng.shuffle(tiles)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        return cls(tiles, dice, profile)

    @property
    def remaining(self) -> int:
        return self.tail - self.head

    @property
    def reserve(self) -> int:
        kongs = self.kongs
        return self._reserve + self._per_kong * kongs + (self._reserve_odd if kongs & 1 else 0)

    @property
    def live(self) -> int:
        """Tiles still available to normal draws (never below zero)."""
        kongs = self.kongs
        live = (
            self.tail
            - self.head
            - self._reserve
            - self._per_kong * kongs
            - (self._reserve_odd if kongs & 1 else 0)
        )
        return live if live > 0 else 0

    def deal(self, dealer: int) -> list[list[int]]:
        """Deal 13 tiles to each seat and a 14th to the dealer, in the table's order:
        three rounds of four, then one each, then the dealer's extra tile."""
        hands: list[list[int]] = [[], [], [], []]
        order = [(dealer + i) % 4 for i in range(4)]
        for _ in range(3):
            for seat in order:
                hands[seat].extend(self.tiles[self.head : self.head + 4])
                self.head += 4
        for seat in order:
            hands[seat].append(self.tiles[self.head])
            self.head += 1
        hands[dealer].append(self.tiles[self.head])
        self.head += 1
        return hands

    def draw(self) -> int:
        """A normal draw from the head; the caller checks :attr:`live` first."""
        tile = self.tiles[self.head]
        self.head += 1
        return tile

    def draw_replacement(self) -> int:
        """A kong replacement tile (补牌) from the tail."""
        self.tail -= 1
        self.kongs += 1
        return self.tiles[self.tail]

    def counts(self) -> list[int]:
        """Counts of the tiles still in the wall (reserve included)."""
        counts = [0] * N_KINDS
        for k in self.tiles[self.head : self.tail]:
            counts[k] += 1
        return counts


def _break(tiles: list[int], dice: tuple[int, int]) -> list[int]:
    """Break the wall where the dice say: the sum picks the side (counting the dealer's
    side as 1, counter-clockwise) and then how many stacks from its right end."""
    total = dice[0] + dice[1]
    side = (total - 1) % 4
    stack = side * STACKS_PER_SIDE + total
    start = 2 * (stack % STACKS)
    return tiles[start:] + tiles[:start]
