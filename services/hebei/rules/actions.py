"""What a seat can do (RULES.md §3, chow §9). Actions are interned: compare them with ``==`` or
``is``."""

from __future__ import annotations

import enum

from hebei.rules.errors import NotationError
from hebei.rules.melds import is_run_base
from hebei.rules.tiles import N_KINDS, TILE_NAMES, format_tiles, parse_tile


class ActionKind(enum.Enum):
    DISCARD = "discard"
    WIN = "win"  # self-draw on your turn, or on a discard / robbing an added kong
    PONG = "pong"
    EXPOSED_KONG = "exposed_kong"  # claim a discard holding three
    CONCEALED_KONG = "concealed_kong"
    ADDED_KONG = "added_kong"
    PASS = "pass"
    CHOW = "chow"  # claim the previous seat's discard into a run; the tile is the run's lowest
    # (any tile is an action; only a run's lowest, 1-7 of a suit, can be legal)


TILE_KINDS = frozenset(
    {
        ActionKind.DISCARD,
        ActionKind.PONG,
        ActionKind.EXPOSED_KONG,
        ActionKind.CONCEALED_KONG,
        ActionKind.ADDED_KONG,
        ActionKind.CHOW,
    }
)


class Action:
    """An action, interned: ``Action(kind, tile)`` always returns the one shared instance, so
    actions compare (and hash) by identity, which keeps ``action in legal_actions`` fast."""

    __slots__ = ("kind", "tile")
    kind: ActionKind
    tile: int | None

    def __new__(cls, kind: ActionKind, tile: int | None = None) -> Action:
        try:
            return _INTERNED[kind, tile]
        except KeyError:
            need = "needs a tile 0-33" if kind in TILE_KINDS else "takes no tile"
            raise NotationError(
                f"action {getattr(kind, 'value', kind)} {need}, got tile {tile!r}"
            ) from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("actions are immutable")

    def __reduce__(self) -> tuple:
        return (Action, (self.kind, self.tile))

    def __repr__(self) -> str:
        return (
            f"Action({self.kind.name}{'' if self.tile is None else ', ' + TILE_NAMES[self.tile]})"
        )

    def __str__(self) -> str:
        if self.tile is None:
            return self.kind.value
        if self.kind is ActionKind.CHOW and is_run_base(self.tile):  # "chow 345m": the run
            return f"chow {format_tiles((self.tile, self.tile + 1, self.tile + 2))}"
        return f"{self.kind.value} {TILE_NAMES[self.tile]}"

    def to_json(self) -> dict:
        if self.tile is None:
            return {"type": self.kind.value}
        return {"type": self.kind.value, "tile": TILE_NAMES[self.tile]}

    @classmethod
    def from_json(cls, obj: object) -> Action:
        if not isinstance(obj, dict):
            raise NotationError(
                f"an action is an object like {{'type': 'discard', 'tile': '5m'}}, got {obj!r}"
            )
        try:
            kind = ActionKind(obj.get("type"))
        except ValueError:
            names = ", ".join(k.value for k in ActionKind)
            raise NotationError(f"action type {obj.get('type')!r} is not one of {names}") from None
        if kind in TILE_KINDS:
            return cls(kind, parse_tile(obj.get("tile")))
        if obj.get("tile") is not None:
            raise NotationError(f"action {kind.value} takes no tile, got {obj.get('tile')!r}")
        return cls(kind)


def _make(kind: ActionKind, tile: int | None) -> Action:
    action = object.__new__(Action)
    object.__setattr__(action, "kind", kind)
    object.__setattr__(action, "tile", tile)
    return action


_INTERNED: dict[tuple[ActionKind, int | None], Action] = {}
for _kind in ActionKind:
    for _tile in range(N_KINDS) if _kind in TILE_KINDS else (None,):
        _INTERNED[_kind, _tile] = _make(_kind, _tile)


def act(kind: ActionKind, tile: int | None = None) -> Action:
    """The interned action (same as ``Action(kind, tile)``)."""
    return Action(kind, tile)


WIN = act(ActionKind.WIN)
PASS = act(ActionKind.PASS)
DISCARD = tuple(act(ActionKind.DISCARD, k) for k in range(N_KINDS))
PONG = tuple(act(ActionKind.PONG, k) for k in range(N_KINDS))
EXPOSED_KONG = tuple(act(ActionKind.EXPOSED_KONG, k) for k in range(N_KINDS))
CONCEALED_KONG = tuple(act(ActionKind.CONCEALED_KONG, k) for k in range(N_KINDS))
ADDED_KONG = tuple(act(ActionKind.ADDED_KONG, k) for k in range(N_KINDS))
# Chows by the run's lowest tile: ``CHOW[base]``. Only a base 1-7 of a suit is ever legal.
CHOW = tuple(act(ActionKind.CHOW, k) for k in range(N_KINDS))
