"""Declared melds: pong and the three kinds of kong (RULES.md §3, §7)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hebei.rules.errors import NotationError
from hebei.rules.tiles import TILE_NAMES, parse_tile


class MeldKind(enum.Enum):
    PONG = "pong"  # 碰: two from hand + a discard
    EXPOSED_KONG = "exposed_kong"  # 明杠/放杠: three from hand + a discard
    ADDED_KONG = "added_kong"  # 加杠: a pong plus the fourth tile drawn
    CONCEALED_KONG = "concealed_kong"  # 暗杠: four from hand

    @property
    def is_kong(self) -> bool:
        return self is not MeldKind.PONG

    @property
    def is_concealed(self) -> bool:
        return self is MeldKind.CONCEALED_KONG


@dataclass(frozen=True, slots=True)
class Meld:
    kind: MeldKind
    tile: int
    from_seat: int | None = None  # who discarded the claimed tile (pong, exposed kong)

    @property
    def is_kong(self) -> bool:
        return self.kind is not MeldKind.PONG

    @property
    def size(self) -> int:
        return 3 if self.kind is MeldKind.PONG else 4

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
        return cls(kind, parse_tile(obj.get("tile")), from_seat)
