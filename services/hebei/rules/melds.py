"""Declared melds: pong, the three kinds of kong (RULES.md §3, §7) and, in a profile that
allows it, chow (§9)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hebei.rules.errors import NotationError
from hebei.rules.tiles import TILE_NAMES, parse_tile, rank_of


class MeldKind(enum.Enum):
    PONG = "pong"  # 碰: two from hand + a discard
    EXPOSED_KONG = "exposed_kong"  # 明杠/放杠: three from hand + a discard
    ADDED_KONG = "added_kong"  # 加杠: a pong plus the fourth tile drawn
    CONCEALED_KONG = "concealed_kong"  # 暗杠: four from hand
    CHOW = "chow"  # 吃: a run, two from hand + the previous seat's discard (§9 only)

    @property
    def is_kong(self) -> bool:
        return self in _KONGS

    @property
    def is_concealed(self) -> bool:
        return self is MeldKind.CONCEALED_KONG


_KONGS = frozenset({MeldKind.EXPOSED_KONG, MeldKind.ADDED_KONG, MeldKind.CONCEALED_KONG})


def is_run_base(tile: int) -> bool:
    """Can ``tile`` be the lowest tile of a run (1-7 of a suit)?"""
    return 0 <= tile < 27 and rank_of(tile) <= 7


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared meld; ``tile`` is its tile, or a chow's lowest tile."""

    kind: MeldKind
    tile: int
    from_seat: int | None = None  # who discarded the claimed tile (pong, exposed kong, chow)

    @property
    def is_kong(self) -> bool:
        return self.kind in _KONGS

    @property
    def size(self) -> int:
        return 4 if self.kind in _KONGS else 3

    @property
    def tiles(self) -> tuple[int, ...]:
        """Every tile of the meld: ``(t, t + 1, t + 2)`` for a chow, else ``size`` times ``t``."""
        t = self.tile
        if self.kind is MeldKind.CHOW:
            return (t, t + 1, t + 2)
        return (t,) * (4 if self.kind in _KONGS else 3)

    def to_json(self) -> dict:
        out = {"type": self.kind.value, "tile": TILE_NAMES[self.tile]}
        if self.from_seat is not None:
            out["from"] = self.from_seat
        return out

    @classmethod
    def from_json(cls, obj: object) -> Meld:
        if not isinstance(obj, dict):
            raise NotationError(
                f"a meld is an object like {{'type': 'pong', 'tile': '7z'}}, got {obj!r}"
            )
        try:
            kind = MeldKind(obj.get("type"))
        except ValueError:
            names = ", ".join(m.value for m in MeldKind)
            raise NotationError(f"meld type {obj.get('type')!r} is not one of {names}") from None
        from_seat = obj.get("from")
        if from_seat is not None and from_seat not in (0, 1, 2, 3):
            raise NotationError(f"meld 'from' must be a seat 0-3, got {from_seat!r}")
        tile = parse_tile(obj.get("tile"))
        if kind is MeldKind.CHOW and not is_run_base(tile):
            raise NotationError(
                f"a chow is written with its lowest tile, 1-7 of m, p or s; got {TILE_NAMES[tile]}"
            )
        return cls(kind, tile, from_seat)
