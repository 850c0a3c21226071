"""Tiles, kinds and the compact notation (RULES.md §1).

A tile *kind* is an int in ``range(34)``:

====== ======== =========================================
kinds  notation what
====== ======== =========================================
0-8    1m-9m    万 characters
9-17   1p-9p    筒 dots
18-26  1s-9s    条 bamboo
27-30  1z-4z    winds 东 南 西 北
31-33  5z-7z    dragons 白 发 中
====== ======== =========================================

A hand is either a list of kinds or a 34-long list of *counts*. The wall holds
kinds too: the four copies of a kind are interchangeable, so 136 physical ids
would add nothing but bookkeeping.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hebei.rules.errors import NotationError

N_KINDS = 34
COPIES = 4
N_TILES = N_KINDS * COPIES  # 136
SUIT_LETTERS = "mpsz"

MAN, PIN, SOU, HONOR = 0, 1, 2, 3
EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
WHITE, GREEN, RED = 31, 32, 33
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (WHITE, GREEN, RED)
HONORS = WINDS + DRAGONS
TERMINALS = (0, 8, 9, 17, 18, 26)
ORPHANS = TERMINALS + HONORS  # the thirteen kinds of 十三幺
# The (start, stop) slice of each suit inside a 34-long count list.
SUIT_SLICES = ((0, 9), (9, 18), (18, 27), (27, 34))


def suit_of(kind: int) -> int:
    return kind // 9 if kind < 27 else HONOR


def rank_of(kind: int) -> int:
    """1..9 for suited tiles, 1..7 for honors (as written in the notation)."""
    return kind % 9 + 1 if kind < 27 else kind - 26


def is_honor(kind: int) -> bool:
    return kind >= 27


def is_terminal(kind: int) -> bool:
    return kind < 27 and kind % 9 in (0, 8)


def tile_name(kind: int) -> str:
    """``tile_name(4) == "5m"``."""
    if not 0 <= kind < N_KINDS:
        raise NotationError(f"tile kind {kind!r} is out of range 0..33")
    return f"{rank_of(kind)}{SUIT_LETTERS[suit_of(kind)]}"


TILE_NAMES = tuple(tile_name(k) for k in range(N_KINDS))
_KIND_BY_NAME = {name: k for k, name in enumerate(TILE_NAMES)}


def parse_tile(text: str) -> int:
    """Parse one tile such as ``"5m"`` or ``"7z"`` into its kind."""
    if not isinstance(text, str):
        raise NotationError(f"a tile is a string like '5m', got {text!r}")
    kind = _KIND_BY_NAME.get(text.strip())
    if kind is None:
        raise NotationError(
            f"{text!r} is not a tile: write a digit and a suit letter, like 5m, 9p, 1s or 7z"
        )
    return kind


def parse_tiles(text: str) -> list[int]:
    """Parse compact notation (``"123m456p789s1122z"``) into kinds, in written order.

    Suit runs may come in any order and repeat (``"1m2p3m"``). Raises
    :class:`NotationError` on a bad letter, a 0, an honor above 7, digits with no
    suit letter, or more than four copies of a kind.
    """
    if not isinstance(text, str):
        raise NotationError(f"tiles are written as a string like '123m456p', got {text!r}")
    kinds: list[int] = []
    pending: list[str] = []
    for pos, ch in enumerate(text.replace(" ", "")):
        if ch.isdigit():
            pending.append(ch)
            continue
        if ch not in SUIT_LETTERS:
            raise NotationError(
                f"bad letter {ch!r} at position {pos} in {text!r}: suits are m, p, s and z"
            )
        if not pending:
            raise NotationError(
                f"suit letter {ch!r} at position {pos} in {text!r} has no digits before it"
            )
        suit = SUIT_LETTERS.index(ch)
        for digit in pending:
            rank = int(digit)
            if rank == 0:
                raise NotationError(f"0 is not a tile in {text!r}: there are no red fives, write 5")
            if suit == HONOR and rank > 7:
                raise NotationError(f"{rank}z is not a tile in {text!r}: honors are 1z-7z")
            kinds.append(suit * 9 + rank - 1)
        pending = []
    if pending:
        raise NotationError(
            f"digits {''.join(pending)!r} at the end of {text!r} have no suit letter"
        )
    check_copies(kinds)
    return kinds


def check_copies(kinds: Iterable[int], what: str = "tiles") -> list[int]:
    """Return the counts of ``kinds``; raise if any kind appears more than four times."""
    counts = [0] * N_KINDS
    for k in kinds:
        counts[k] += 1
    for k, c in enumerate(counts):
        if c > COPIES:
            raise NotationError(
                f"{c} copies of {TILE_NAMES[k]} in {what}: there are only four of each tile"
            )
    return counts


def to_counts(kinds: Iterable[int]) -> list[int]:
    counts = [0] * N_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[int]:
    """Sorted kinds from a count list."""
    return [k for k in range(N_KINDS) for _ in range(counts[k])]


def format_tiles(kinds: Iterable[int], *, sort: bool = True) -> str:
    """Compact notation, honors last: ``format_tiles([0, 1, 2, 27]) == "123m1z"``."""
    items = sorted(kinds) if sort else list(kinds)
    out: list[str] = []
    run: list[str] = []
    run_suit = -1
    for k in items:
        s = suit_of(k)
        if s != run_suit and run:
            out.append("".join(run) + SUIT_LETTERS[run_suit])
            run = []
        run_suit = s
        run.append(str(rank_of(k)))
    if run:
        out.append("".join(run) + SUIT_LETTERS[run_suit])
    return "".join(out)


def format_counts(counts: Sequence[int]) -> str:
    return format_tiles(from_counts(counts))
