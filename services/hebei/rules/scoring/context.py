"""What the scorer needs to know about a win, and its consistency checks."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hebei.rules.errors import NotationError
from hebei.rules.melds import Meld, MeldKind, is_run_base
from hebei.rules.profile import MAIN, RuleProfile, get_profile
from hebei.rules.tiles import COPIES, N_KINDS, TILE_NAMES, check_copies, parse_tile, parse_tiles

SEATS = range(4)
HAND_TILES = 14  # a complete hand, each kong counted as three (§4)


class WinKind(enum.Enum):
    SELF_DRAW = "self_draw"  # 自摸
    DISCARD = "discard"  # 点炮: won on another player's discard
    ROB_KONG = "rob_kong"  # 抢杠胡: won on the tile of another player's added kong


@dataclass(frozen=True, slots=True)
class WinContext:
    """A declared win, as the table engine (or ``hebei score``) describes it."""

    concealed: tuple[int, ...]  # 34 counts of the concealed tiles, winning tile included
    melds: tuple[Meld, ...]  # declared melds (pong / kongs of any kind / chow where allowed)
    win_tile: int
    win: WinKind
    winner: int  # seat 0-3
    dealer: int  # seat 0-3
    discarder: int | None = None  # for DISCARD and ROB_KONG (the konger)
    kong_replacement: bool = False  # self-draw on a kong replacement tile
    last_tile: bool = False  # the win tile is the last normal draw (海底)

    @property
    def is_self_draw(self) -> bool:
        return self.win is WinKind.SELF_DRAW

    def check(self, profile: RuleProfile = MAIN) -> None:
        """Raise :class:`NotationError` when this context cannot happen at a table of
        ``profile`` (a chow meld needs a profile that allows chow)."""
        if len(self.concealed) != N_KINDS or min(self.concealed) < 0:
            raise NotationError("concealed must be 34 tile counts, each 0 or more")
        for meld in self.melds:
            if meld.kind is MeldKind.CHOW and not profile.allow_chow:
                raise NotationError(
                    f"meld type 'chow' is not played in the {profile.name} profile "
                    f"(no chow, RULES.md §3)"
                )
        for name, seat in (("winner", self.winner), ("dealer", self.dealer)):
            _check_seat(name, seat)
        if self.win is WinKind.SELF_DRAW:
            if self.discarder is not None:
                raise NotationError("a self-draw win has no discarder")
        else:
            if self.discarder is None:
                raise NotationError(f"a {self.win.value} win needs the discarder's seat")
            _check_seat("discarder", self.discarder)
            if self.discarder == self.winner:
                raise NotationError(f"the discarder ({self.discarder}) cannot be the winner")
        if len(self.melds) > 4:
            raise NotationError(f"{len(self.melds)} melds: a hand has at most four")
        tiles = sum(self.concealed) + 3 * len(self.melds)
        if tiles != HAND_TILES:
            raise NotationError(
                f"{sum(self.concealed)} concealed tiles beside {len(self.melds)} melds: "
                f"a complete hand has {HAND_TILES - 3 * len(self.melds)} concealed tiles "
                f"(14 minus 3 per meld)"
            )
        if not 0 <= self.win_tile < N_KINDS or not self.concealed[self.win_tile]:
            raise NotationError(f"the winning tile {_name(self.win_tile)} is not in the hand")
        counts = list(self.concealed)
        for meld in self.melds:
            if not 0 <= meld.tile < N_KINDS:
                raise NotationError(f"meld tile {meld.tile!r} is out of range 0..33")
            if meld.kind is MeldKind.CHOW and not is_run_base(meld.tile):
                raise NotationError(
                    f"a chow's tile is its lowest, 1-7 of m, p or s; got {_name(meld.tile)}"
                )
            for k in meld.tiles:
                counts[k] += 1
        if max(counts) > COPIES:
            check_copies(
                (k for k in range(N_KINDS) for _ in range(counts[k])), "the hand and its melds"
            )
        if (
            self.win is WinKind.ROB_KONG
            and self.concealed[self.win_tile]
            + sum(m.tiles.count(self.win_tile) for m in self.melds)
            > 1
        ):
            raise NotationError(
                f"robbing a kong of {_name(self.win_tile)}: the konger holds the other "
                f"{COPIES - 1} copies, so the winner can hold only the robbed one"
            )

    @classmethod
    def from_json(cls, obj: object, profile: RuleProfile = MAIN) -> WinContext:
        """Read the ``hebei score`` input object; raise :class:`NotationError` on bad input.

        ``{"hand": "123m...", "melds": [{"type": "pong", "tile": "7z"}], "win_tile": "5m",
        "win": "self_draw", "winner": 0, "dealer": 0, "discarder": 1,
        "kong_replacement": false, "last_tile": false}``; the context is checked against
        ``profile``. A ``"profile"`` key, when present, must name ``profile`` (read it first
        with :func:`request_profile`).
        """
        if not isinstance(obj, dict):
            raise NotationError(f"the input must be a JSON object, got {type(obj).__name__}")
        unknown = sorted(set(obj) - _KEYS)
        if unknown:
            raise NotationError(f"unknown key {unknown[0]!r}; known keys: {', '.join(_KEYS_ORDER)}")
        named = request_profile(obj, profile.name)
        if named.name != profile.name:
            raise NotationError(
                f"the input names the profile {named.name!r} but is read with {profile.name!r}"
            )
        for key in ("hand", "win_tile", "win", "winner", "dealer"):
            if key not in obj:
                raise NotationError(f"missing key {key!r}")
        melds = obj.get("melds", [])
        if not isinstance(melds, list):
            raise NotationError(f"'melds' must be a list of melds, got {melds!r}")
        for meld in melds:
            if isinstance(meld, dict) and set(meld) - {"type", "tile", "from"}:
                raise NotationError(f"a meld has the keys 'type', 'tile' and 'from', got {meld!r}")
        try:
            win = WinKind(obj["win"])
        except (ValueError, TypeError):
            names = ", ".join(w.value for w in WinKind)
            raise NotationError(f"'win' must be one of {names}, got {obj['win']!r}") from None
        for key in ("kong_replacement", "last_tile"):
            if not isinstance(obj.get(key, False), bool):
                raise NotationError(f"{key!r} must be true or false, got {obj[key]!r}")
        for key in ("winner", "dealer", "discarder"):
            if key in obj and obj[key] is not None:
                _check_seat(key, obj[key])
        ctx = cls(
            concealed=tuple(check_copies(parse_tiles(obj["hand"]), "the hand")),
            melds=tuple(Meld.from_json(m) for m in melds),
            win_tile=parse_tile(obj["win_tile"]),
            win=win,
            winner=obj["winner"],
            dealer=obj["dealer"],
            discarder=obj.get("discarder"),
            kong_replacement=obj.get("kong_replacement", False),
            last_tile=obj.get("last_tile", False),
        )
        ctx.check(profile)
        return ctx


def request_profile(obj: object, default: str = "main") -> RuleProfile:
    """The rule profile a ``hebei score`` input names with its ``"profile"`` key (``default``
    without one); :class:`NotationError` for an unknown name."""
    name = obj.get("profile", default) if isinstance(obj, dict) else default
    if not isinstance(name, str):
        raise NotationError(f"'profile' must be a profile name such as \"classic\", got {name!r}")
    try:
        return get_profile(name)
    except ValueError as exc:
        raise NotationError(str(exc)) from None


_KEYS_ORDER = (
    "hand",
    "melds",
    "win_tile",
    "win",
    "winner",
    "dealer",
    "discarder",
    "kong_replacement",
    "last_tile",
    "profile",
)
_KEYS = frozenset(_KEYS_ORDER)


def _check_seat(name: str, seat: object) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in SEATS:
        raise NotationError(f"{name} must be a seat 0-3, got {seat!r}")


def _name(kind: int) -> str:
    return TILE_NAMES[kind] if 0 <= kind < N_KINDS else repr(kind)
