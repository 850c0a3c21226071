"""The settlement as the ledger sees it: parsed, checked and hashed, in plain Python.

A settlement arrives as a dict in the protobuf JSON mapping of ``hebei.v1.Settlement`` (field
names as in the .proto, enums by name, int64 as a number or a decimal string). The servicer
gets that dict from the request message; tests, the benchmark and tools can build it by hand.
:meth:`Settlement.from_dict` checks every type and :meth:`Settlement.validate` every rule the
ledger relies on, both raising :class:`~hebei.common.errors.InvalidArgument` with the path of
the offending field. :meth:`Settlement.request_hash` is the SHA-256 of the canonical JSON of
the parsed settlement, so two requests with the same meaning hash the same whatever defaults
they spelled out.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hebei.common.errors import InvalidArgument
from hebei.v1 import types_pb2

__all__ = [
    "OUTCOMES",
    "SEATS",
    "WIN_KINDS",
    "Fan",
    "Meld",
    "SeatResult",
    "Settlement",
    "Win",
    "canonical_json",
]

SEATS = (0, 1, 2, 3)
TILES = frozenset(types_pb2.Tile.keys())
MELD_KINDS = frozenset(types_pb2.MeldKind.keys())
WIN_KINDS = frozenset(types_pb2.WinKind.keys())
OUTCOMES = frozenset(types_pb2.HandOutcome.keys())
SELF_DRAW = "WIN_KIND_SELF_DRAW"
WIN = "HAND_OUTCOME_WIN"
EXHAUSTIVE_DRAW = "HAND_OUTCOME_EXHAUSTIVE_DRAW"

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_DECIMAL = re.compile(r"^-?[0-9]+$")


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class _Fields:
    """Typed reads from one JSON object, with the object's path for error messages."""

    def __init__(self, data: Any, path: str, known: tuple[str, ...]) -> None:
        if not isinstance(data, Mapping):
            raise InvalidArgument(f"{path}: expected an object, got {_show(data)}")
        unknown = sorted(str(key) for key in data if key not in known)
        if unknown:
            raise InvalidArgument(f"{path}: unknown field {unknown[0]!r}")
        self.data = data
        self.path = path

    def int(self, name: str, bits: int = 32) -> int:
        return _int(self.data.get(name, 0), f"{self.path}.{name}", bits)

    def optional_int(self, name: str) -> int | None:
        value = self.data.get(name)
        return None if value is None else _int(value, f"{self.path}.{name}", 32)

    def str(self, name: str) -> str:
        value = self.data.get(name, "")
        if not isinstance(value, str):
            raise InvalidArgument(f"{self.path}.{name}: expected a string, got {_show(value)}")
        if "\x00" in value:
            raise InvalidArgument(f"{self.path}.{name}: contains a NUL character")
        return value

    def enum(self, name: str, allowed: frozenset[str]) -> str:
        value = self.data.get(name)
        if value is None:
            return next(item for item in allowed if item.endswith("_UNSPECIFIED"))
        if not isinstance(value, str) or value not in allowed:
            raise InvalidArgument(
                f"{self.path}.{name}: expected one of {', '.join(sorted(allowed))}, "
                f"got {_show(value)}"
            )
        return value

    def list(self, name: str) -> list[Any]:
        value = self.data.get(name, [])
        if not isinstance(value, list):
            raise InvalidArgument(f"{self.path}.{name}: expected a list, got {_show(value)}")
        return value


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(value: Any, path: str, bits: int) -> int:
    low, high = _INT32 if bits == 32 else _INT64
    if isinstance(value, str) and _DECIMAL.match(value):
        number = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    else:
        raise InvalidArgument(f"{path}: expected an integer, got {_show(value)}")
    if not low <= number <= high:
        raise InvalidArgument(f"{path}: {number} is out of range for int{bits}")
    return number


def _tiles(fields: _Fields, name: str) -> tuple[str, ...]:
    items = fields.list(name)
    for index, item in enumerate(items):
        if not isinstance(item, str) or item not in TILES:
            raise InvalidArgument(f"{fields.path}.{name}[{index}]: not a tile: {_show(item)}")
    return tuple(items)


@dataclass(frozen=True)
class Fan:
    """One bonus item of a win."""

    id: str
    name_zh: str
    fan: int

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Fan:
        """Parse a ``hebei.v1.Fan`` JSON object."""
        fields = _Fields(data, path, ("id", "name_zh", "fan"))
        return cls(fields.str("id"), fields.str("name_zh"), fields.int("fan"))

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object."""
        return {"id": self.id, "name_zh": self.name_zh, "fan": self.fan}


@dataclass(frozen=True)
class Meld:
    """A declared meld of the winner (kept for history and audit)."""

    kind: str
    tile: str
    from_seat: int | None
    tiles: tuple[str, ...]

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Meld:
        """Parse a ``hebei.v1.Meld`` JSON object."""
        fields = _Fields(data, path, ("kind", "tile", "from_seat", "tiles"))
        return cls(
            kind=fields.enum("kind", MELD_KINDS),
            tile=fields.enum("tile", TILES),
            from_seat=fields.optional_int("from_seat"),
            tiles=_tiles(fields, "tiles"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object."""
        data: dict[str, Any] = {"kind": self.kind, "tile": self.tile, "tiles": list(self.tiles)}
        if self.from_seat is not None:
            data["from_seat"] = self.from_seat
        return data


@dataclass(frozen=True)
class Win:
    """One win of a hand."""

    winner: int
    discarder: int | None
    kind: str
    win_tile: str
    fans: tuple[Fan, ...]
    bonus: int
    base: int
    deltas: tuple[int, ...]
    concealed: tuple[str, ...]
    melds: tuple[Meld, ...]

    _FIELDS = (
        "winner", "discarder", "kind", "win_tile", "fans", "bonus", "base", "deltas",
        "concealed", "melds",
    )  # fmt: skip

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Win:
        """Parse a ``hebei.v1.Win`` JSON object."""
        fields = _Fields(data, path, cls._FIELDS)
        return cls(
            winner=fields.int("winner"),
            discarder=fields.optional_int("discarder"),
            kind=fields.enum("kind", WIN_KINDS),
            win_tile=fields.enum("win_tile", TILES),
            fans=tuple(
                Fan.from_dict(item, f"{path}.fans[{index}]")
                for index, item in enumerate(fields.list("fans"))
            ),
            bonus=fields.int("bonus"),
            base=fields.int("base"),
            deltas=tuple(
                _int(item, f"{path}.deltas[{index}]", 64)
                for index, item in enumerate(fields.list("deltas"))
            ),
            concealed=_tiles(fields, "concealed"),
            melds=tuple(
                Meld.from_dict(item, f"{path}.melds[{index}]")
                for index, item in enumerate(fields.list("melds"))
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object."""
        data: dict[str, Any] = {
            "winner": self.winner,
            "kind": self.kind,
            "win_tile": self.win_tile,
            "fans": [fan.to_dict() for fan in self.fans],
            "bonus": self.bonus,
            "base": self.base,
            "deltas": list(self.deltas),
            "concealed": list(self.concealed),
            "melds": [meld.to_dict() for meld in self.melds],
        }
        if self.discarder is not None:
            data["discarder"] = self.discarder
        return data

    def validate(self, path: str) -> None:
        """Check the win refers to real seats and its figures add up."""
        if self.winner not in SEATS:
            raise InvalidArgument(f"{path}.winner: unknown seat {self.winner}")
        if self.kind == "WIN_KIND_UNSPECIFIED":
            raise InvalidArgument(f"{path}.kind: missing")
        if self.kind == SELF_DRAW:
            if self.discarder is not None:
                raise InvalidArgument(f"{path}.discarder: a self-draw has no discarder")
        elif self.discarder is None:
            raise InvalidArgument(f"{path}.discarder: missing for {self.kind}")
        elif self.discarder not in SEATS:
            raise InvalidArgument(f"{path}.discarder: unknown seat {self.discarder}")
        elif self.discarder == self.winner:
            raise InvalidArgument(f"{path}.discarder: the winner cannot be the discarder")
        if any(fan.fan < 0 for fan in self.fans):
            raise InvalidArgument(f"{path}.fans: a fan value is negative")
        if self.bonus != sum(fan.fan for fan in self.fans):
            raise InvalidArgument(
                f"{path}.bonus: {self.bonus} is not the sum of its fans "
                f"({sum(fan.fan for fan in self.fans)})"
            )
        if self.deltas:
            if len(self.deltas) != len(SEATS):
                raise InvalidArgument(f"{path}.deltas: expected 4 entries, got {len(self.deltas)}")
            if sum(self.deltas) != 0:
                raise InvalidArgument(f"{path}.deltas: unbalanced, they sum to {sum(self.deltas)}")


@dataclass(frozen=True)
class SeatResult:
    """One seat's result in a settlement."""

    seat: int
    player_id: str
    hand_delta: int
    kong_delta: int
    total_delta: int

    @classmethod
    def from_dict(cls, data: Any, path: str) -> SeatResult:
        """Parse a ``hebei.v1.SeatResult`` JSON object."""
        fields = _Fields(
            data, path, ("seat", "player_id", "hand_delta", "kong_delta", "total_delta")
        )
        return cls(
            seat=fields.int("seat"),
            player_id=fields.str("player_id"),
            hand_delta=fields.int("hand_delta", 64),
            kong_delta=fields.int("kong_delta", 64),
            total_delta=fields.int("total_delta", 64),
        )

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object."""
        return {
            "seat": self.seat,
            "player_id": self.player_id,
            "hand_delta": self.hand_delta,
            "kong_delta": self.kong_delta,
            "total_delta": self.total_delta,
        }


@dataclass(frozen=True)
class Settlement:
    """The settlement of one hand (``hebei.v1.Settlement``)."""

    idempotency_key: str
    tournament_id: str
    round_no: int
    table_id: str
    match_id: str
    hand_no: int
    dealer: int
    outcome: str
    results: tuple[SeatResult, ...]
    wins: tuple[Win, ...]
    rule_profile: str
    ended_at: str

    _FIELDS = (
        "idempotency_key", "tournament_id", "round_no", "table_id", "match_id", "hand_no",
        "dealer", "outcome", "results", "wins", "rule_profile", "ended_at",
    )  # fmt: skip

    @classmethod
    def from_dict(cls, data: Any, path: str = "settlement") -> Settlement:
        """Parse and validate a ``hebei.v1.Settlement`` JSON object; raise InvalidArgument."""
        fields = _Fields(data, path, cls._FIELDS)
        settlement = cls(
            idempotency_key=fields.str("idempotency_key"),
            tournament_id=fields.str("tournament_id"),
            round_no=fields.int("round_no"),
            table_id=fields.str("table_id"),
            match_id=fields.str("match_id"),
            hand_no=fields.int("hand_no"),
            dealer=fields.int("dealer"),
            outcome=fields.enum("outcome", OUTCOMES),
            results=tuple(
                SeatResult.from_dict(item, f"{path}.results[{index}]")
                for index, item in enumerate(fields.list("results"))
            ),
            wins=tuple(
                Win.from_dict(item, f"{path}.wins[{index}]")
                for index, item in enumerate(fields.list("wins"))
            ),
            rule_profile=fields.str("rule_profile"),
            ended_at=fields.str("ended_at"),
        )
        settlement.validate(path)
        return settlement

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object (every field spelled out, int64 as numbers)."""
        data: dict[str, Any] = {
            "idempotency_key": self.idempotency_key,
            "tournament_id": self.tournament_id,
            "round_no": self.round_no,
            "table_id": self.table_id,
            "match_id": self.match_id,
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "outcome": self.outcome,
            "results": [result.to_dict() for result in self.results],
            "wins": [win.to_dict() for win in self.wins],
            "rule_profile": self.rule_profile,
        }
        if self.ended_at:
            data["ended_at"] = self.ended_at
        return data

    def request_hash(self) -> bytes:
        """SHA-256 of the canonical JSON: equal for requests with the same meaning."""
        return hashlib.sha256(canonical_json(self.to_dict()).encode()).digest()

    def validate(self, path: str = "settlement") -> None:
        """Check everything the ledger relies on; raise InvalidArgument naming the field."""
        if not self.idempotency_key:
            raise InvalidArgument(f"{path}.idempotency_key: missing")
        if not self.match_id:
            raise InvalidArgument(f"{path}.match_id: missing")
        if not self.table_id:
            raise InvalidArgument(f"{path}.table_id: missing")
        if self.hand_no < 1:
            raise InvalidArgument(f"{path}.hand_no: must be 1 or more, got {self.hand_no}")
        if self.round_no < 0:
            raise InvalidArgument(f"{path}.round_no: must be 0 or more, got {self.round_no}")
        expected_key = f"{self.match_id}:{self.hand_no}"
        if self.idempotency_key != expected_key:
            raise InvalidArgument(
                f"{path}.idempotency_key: must be match_id:hand_no ({expected_key!r}), "
                f"got {self.idempotency_key!r}"
            )
        if self.dealer not in SEATS:
            raise InvalidArgument(f"{path}.dealer: unknown seat {self.dealer}")
        self._validate_results(path)
        self._validate_wins(path)

    def _validate_results(self, path: str) -> None:
        if len(self.results) != len(SEATS):
            raise InvalidArgument(f"{path}.results: expected 4 seats, got {len(self.results)}")
        seen_seats: set[int] = set()
        seen_players: set[str] = set()
        for index, result in enumerate(self.results):
            where = f"{path}.results[{index}]"
            if result.seat not in SEATS:
                raise InvalidArgument(f"{where}.seat: unknown seat {result.seat}")
            if result.seat in seen_seats:
                raise InvalidArgument(f"{where}.seat: seat {result.seat} appears twice")
            if not result.player_id:
                raise InvalidArgument(f"{where}.player_id: missing")
            if result.player_id in seen_players:
                raise InvalidArgument(f"{where}.player_id: {result.player_id!r} appears twice")
            if result.total_delta != result.hand_delta + result.kong_delta:
                raise InvalidArgument(
                    f"{where}.total_delta: {result.total_delta} is not hand_delta + kong_delta "
                    f"({result.hand_delta + result.kong_delta})"
                )
            seen_seats.add(result.seat)
            seen_players.add(result.player_id)
        for component in ("hand_delta", "kong_delta", "total_delta"):
            total = sum(getattr(result, component) for result in self.results)
            if total != 0:
                raise InvalidArgument(f"{path}.results: unbalanced, {component} sums to {total}")

    def _validate_wins(self, path: str) -> None:
        if self.outcome == WIN and not self.wins:
            raise InvalidArgument(f"{path}.wins: an outcome of {WIN} needs at least one win")
        if self.outcome == EXHAUSTIVE_DRAW and self.wins:
            raise InvalidArgument(f"{path}.wins: an exhaustive draw has no wins")
        if self.outcome not in (WIN, EXHAUSTIVE_DRAW):
            raise InvalidArgument(f"{path}.outcome: missing")
        for index, win in enumerate(self.wins):
            win.validate(f"{path}.wins[{index}]")
        if self.wins and all(win.deltas for win in self.wins):
            for result in self.results:
                from_wins = sum(win.deltas[result.seat] for win in self.wins)
                if from_wins != result.hand_delta:
                    raise InvalidArgument(
                        f"{path}.results: seat {result.seat} hand_delta {result.hand_delta} "
                        f"differs from its wins' deltas ({from_wins})"
                    )
