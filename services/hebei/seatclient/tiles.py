"""Tiles as a person sees and types them, at the terminal and on the web page alike: labels,
the winds' names, the hand's display order and its position keys."""

from __future__ import annotations

from collections.abc import Sequence

from hebei.rules.tiles import N_KINDS, TILE_NAMES

# The seven honors as printed on the tiles: winds 东南西北, dragons 白发中.
HONOR_LABELS = ("东", "南", "西", "北", "白", "发", "中")
WIND_NAMES = ("East", "South", "West", "North")
# One key per position of the concealed hand (at most 14 tiles), left to right.
POSITION_KEYS = "123456789abcde"


def tile_label(kind: int | None) -> str:
    """``"5m"`` for suited tiles, the Chinese character for honors, ``"??"`` when hidden."""
    if kind is None or not 0 <= kind < N_KINDS:
        return "??"
    return HONOR_LABELS[kind - 27] if kind >= 27 else TILE_NAMES[kind]


def hand_order(concealed: Sequence[int], drawn: int | None) -> list[int]:
    """The concealed tiles in display order: sorted, with the just-drawn tile set apart last."""
    tiles = sorted(concealed)
    if drawn is not None and drawn in tiles:
        tiles.remove(drawn)
        tiles.append(drawn)
    return tiles
