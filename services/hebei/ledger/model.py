"""What the ledger books, as it sees it: parsed, checked and hashed, in plain Python.

A settlement or an adjustment arrives as a dict in the protobuf JSON mapping of
``hebei.v1.Settlement`` or ``hebei.v1.Adjustment`` (field names as in the .proto, enums by
name, int64 as a number or a decimal string). The servicer gets that dict from the request
message; tests, the benchmark and tools can build it by hand. ``from_dict`` checks every type
and limit, ``validate`` every rule the ledger relies on, both raising
:class:`~hebei.common.errors.InvalidArgument` with the path of the offending field.
``request_hash`` is the SHA-256 of the canonical JSON of the parsed value, so two requests with
the same meaning hash the same whatever defaults they spelled out.

A settlement is checked against itself, never against the rules (this module imports nothing
from ``hebei.rules``: the engine that played the hand scored it): each seat's total is its hand
and kong points, every component sums to zero over the seats, a win's payment lines go from
other seats (its discarder among them) to its winner and add up to its deltas, false-win
penalties are paid by the seats that declared a false win, and the seats' hand points are the
wins' deltas plus the penalties. Payment and penalty lines are optional (engines older than
them sent none): a part without them is checked as far as what it carries goes. Fans, bonus,
points and the rule profile's name are kept as sent.

Every argument of every ledger call is checked here, before any work (:func:`check_text`,
:func:`check_entry_id`, :func:`parse_entry_id`): strings hold no NUL (PostgreSQL text cannot)
and stay within :data:`MAX_ID_LENGTH`, :data:`MAX_KEY_LENGTH`, :data:`MAX_NAME_LENGTH` or
:data:`MAX_REASON_LENGTH` characters; entry ids are ASCII decimal numbers that fit a bigint;
every amount is within ±:data:`MAX_AMOUNT`, so that no sum the ledger keeps can leave int64
before some nine million maximal postings. Error messages quote values through ``show``
(hebei.common.validation.shown), never whole.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import timestamp_pb2

from hebei.common.errors import InvalidArgument
from hebei.common.validation import shown as show
from hebei.ledger import RESERVED_PREFIX, TOURNAMENT_ACCOUNT
from hebei.v1 import ledger_pb2, types_pb2

__all__ = [
    "ADJUSTMENT_COMPONENTS",
    "ADJUSTMENT_KINDS",
    "AWARD",
    "CORRECTION",
    "MAX_AMOUNT",
    "MAX_ENTRY_ID",
    "MAX_ID_LENGTH",
    "MAX_KEY_LENGTH",
    "MAX_NAME_LENGTH",
    "MAX_REASON_LENGTH",
    "OUTCOMES",
    "PENALTY",
    "PLACEMENT",
    "REPLACEMENT",
    "SEATS",
    "WIN_KINDS",
    "Adjustment",
    "AdjustmentLine",
    "Fan",
    "Meld",
    "Payment",
    "SeatResult",
    "Settlement",
    "Win",
    "canonical_json",
    "check_entry_id",
    "check_text",
    "parse_entry_id",
    "show",
]

SEATS = (0, 1, 2, 3)
TILES = frozenset(types_pb2.Tile.keys())
MELD_KINDS = frozenset(types_pb2.MeldKind.keys())
WIN_KINDS = frozenset(types_pb2.WinKind.keys())
OUTCOMES = frozenset(types_pb2.HandOutcome.keys())
SELF_DRAW = "WIN_KIND_SELF_DRAW"
WIN = "HAND_OUTCOME_WIN"
EXHAUSTIVE_DRAW = "HAND_OUTCOME_EXHAUSTIVE_DRAW"
FALSE_WIN = "HAND_OUTCOME_FALSE_WIN"  # §9 诈胡: false wins only, no real win
_NO_WIN = {EXHAUSTIVE_DRAW: "an exhaustive draw", FALSE_WIN: "a hand ended by a false win"}

ADJUSTMENT_KINDS = frozenset(ledger_pb2.AdjustmentKind.keys())
PENALTY = "ADJUSTMENT_KIND_PENALTY"
PLACEMENT = "ADJUSTMENT_KIND_PLACEMENT"
REPLACEMENT = "ADJUSTMENT_KIND_REPLACEMENT"
AWARD = "ADJUSTMENT_KIND_AWARD"
CORRECTION = "ADJUSTMENT_KIND_CORRECTION"
# The posting component of each kind of adjustment (settlements post "hand" and "kong").
ADJUSTMENT_COMPONENTS = {
    PENALTY: "penalty",
    PLACEMENT: "placement",
    REPLACEMENT: "replacement",
    AWARD: "award",
    CORRECTION: "correction",
}
# Kinds that need no match: the organiser's penalties and awards never count in a match.
_WITHOUT_MATCH = frozenset({PENALTY, AWARD})
# Kinds among the players of one match only, without the tournament account.
_AMONG_PLAYERS = frozenset({PLACEMENT, CORRECTION})

# The limits of ledger.proto's service comment.
MAX_ID_LENGTH = 128  # tournament, table, match and player ids
MAX_KEY_LENGTH = 160  # idempotency keys: "match_id:hand_no" always fits
MAX_NAME_LENGTH = 128  # rule profile, fan ids and names, assigned_by
MAX_REASON_LENGTH = 256
MAX_AMOUNT = 10**12  # every amount, in absolute value
MAX_ENTRY_ID = 2**63 - 1  # entry ids are bigint
_MAX_WINS = 3  # a discard pays at most the three other seats
_MAX_PAYMENTS = 3  # a win is paid by at most the three other seats
_MAX_PENALTY_LINES = 12  # each of four false winners pays at most the three other seats
_MAX_FANS = 64
_MAX_CONCEALED = 14
_MAX_MELDS = 4
_MAX_MELD_TILES = 4
_ADJUSTMENT_LINES = (2, 8)
_PLACEMENT_LINES = 4  # the players of one match
_TIMESTAMP_LENGTH = 40
# The ledger's own idempotency keys are "<prefix>:..." (journal.py). A settlement's key is
# "match_id:hand_no", so a match id whose first ":"-separated part is one of these is refused:
# its settlements could take such a key.
KEY_PREFIXES = frozenset({"reverse", "correct", "adjustment", "cancel"})

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_DECIMAL = re.compile(r"-?[0-9]+")  # fullmatch: ASCII digits only, no trailing newline
_ENTRY_ID = re.compile(r"[0-9]{1,19}")


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check_text(value: Any, path: str, limit: int, *, required: bool = False) -> str:
    """``value`` if it is a string PostgreSQL can store (no NUL, no lone surrogate) of at most
    ``limit`` characters, and not empty when ``required``; else raise InvalidArgument."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{path}: expected a string, got {show(value)}")
    if len(value) > limit:
        raise InvalidArgument(f"{path}: at most {limit} characters, got {len(value)}")
    if "\x00" in value:
        raise InvalidArgument(f"{path}: contains a NUL character")
    try:
        value.encode()
    except UnicodeEncodeError:
        raise InvalidArgument(f"{path}: not valid Unicode text: {show(value)}") from None
    if required and not value.strip():
        raise InvalidArgument(f"{path}: missing")
    return value


def check_entry_id(value: Any, path: str = "entry_id") -> int:
    """``value`` if it is an int that can be an entry id (1 to 2^63 - 1); else InvalidArgument."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ENTRY_ID:
        raise InvalidArgument(f"{path}: expected an entry id, got {show(value)}")
    return value


def parse_entry_id(text: Any, path: str = "entry_id") -> int:
    """An entry id (or page token) from its text: ASCII decimal digits only (``int`` would
    also read other scripts' digits), 1 to 2^63 - 1; else InvalidArgument."""
    if not isinstance(text, str) or not _ENTRY_ID.fullmatch(text):
        raise InvalidArgument(f"{path}: expected an entry id, got {show(text)}")
    if not 1 <= int(text) <= MAX_ENTRY_ID:
        raise InvalidArgument(f"{path}: expected an entry id, got {show(text)}")
    return int(text)


def _check_player(player_id: Any, path: str, *, allow: frozenset[str] = frozenset()) -> str:
    """A player id: required, bounded, and not one of the ledger's reserved accounts (except
    those in ``allow``)."""
    check_text(player_id, path, MAX_ID_LENGTH, required=True)
    if player_id.startswith(RESERVED_PREFIX) and player_id not in allow:
        raise InvalidArgument(
            f"{path}: player ids starting with {RESERVED_PREFIX!r} are reserved for the "
            f"ledger's own accounts, got {show(player_id)}"
        )
    return player_id


class _Fields:
    """Typed reads from one JSON object, with the object's path for error messages."""

    def __init__(self, data: Any, path: str, known: tuple[str, ...]) -> None:
        if not isinstance(data, Mapping):
            raise InvalidArgument(f"{path}: expected an object, got {show(data)}")
        unknown = sorted(str(key) for key in data if key not in known)
        if unknown:
            raise InvalidArgument(f"{path}: unknown field {show(unknown[0])}")
        self.data = data
        self.path = path

    def int(self, name: str, bits: int = 32) -> int:
        return _int(self.data.get(name, 0), f"{self.path}.{name}", bits)

    def amount(self, name: str) -> int:
        return _amount(self.data.get(name, 0), f"{self.path}.{name}")

    def bool(self, name: str) -> bool:
        value = self.data.get(name, False)
        if not isinstance(value, bool):
            raise InvalidArgument(f"{self.path}.{name}: expected true or false, got {show(value)}")
        return value

    def optional_int(self, name: str) -> int | None:
        value = self.data.get(name)
        return None if value is None else _int(value, f"{self.path}.{name}", 32)

    def str(self, name: str, limit: int = MAX_ID_LENGTH) -> str:
        return check_text(self.data.get(name, ""), f"{self.path}.{name}", limit)

    def timestamp(self, name: str) -> str:
        """An RFC 3339 timestamp in protobuf's range, in its canonical spelling ("" if unset)."""
        value = self.str(name, _TIMESTAMP_LENGTH)
        if not value:
            return ""
        message = timestamp_pb2.Timestamp()
        try:
            if not value.isascii():  # strptime would read other scripts' digits
                raise ValueError(value)
            message.FromJsonString(value)
            return message.ToJsonString()
        except (ValueError, OverflowError):
            raise InvalidArgument(
                f"{self.path}.{name}: expected an RFC 3339 timestamp between 0001-01-01 and "
                f"9999-12-31, got {show(value)}"
            ) from None

    def enum(self, name: str, allowed: frozenset[str]) -> str:
        value = self.data.get(name)
        if value is None:
            return next(item for item in allowed if item.endswith("_UNSPECIFIED"))
        if not isinstance(value, str) or value not in allowed:
            raise InvalidArgument(
                f"{self.path}.{name}: expected one of {', '.join(sorted(allowed))}, "
                f"got {show(value)}"
            )
        return value

    def list(self, name: str, limit: int) -> list[Any]:
        value = self.data.get(name, [])
        if not isinstance(value, list):
            raise InvalidArgument(f"{self.path}.{name}: expected a list, got {show(value)}")
        if len(value) > limit:
            raise InvalidArgument(f"{self.path}.{name}: at most {limit} entries, got {len(value)}")
        return value


def _int(value: Any, path: str, bits: int) -> int:
    low, high = _INT32 if bits == 32 else _INT64
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        number = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    else:
        raise InvalidArgument(f"{path}: expected an integer, got {show(value)}")
    if not low <= number <= high:
        raise InvalidArgument(f"{path}: {show(number)} is out of range for int{bits}")
    return number


def _amount(value: Any, path: str) -> int:
    """An int64 of at most MAX_AMOUNT in absolute value (bounded, no sum can overflow)."""
    number = _int(value, path, 64)
    if abs(number) > MAX_AMOUNT:
        raise InvalidArgument(
            f"{path}: {show(number)} is out of range: an amount is at most 10^12 in absolute value"
        )
    return number


def _tiles(fields: _Fields, name: str, limit: int) -> tuple[str, ...]:
    items = fields.list(name, limit)
    for index, item in enumerate(items):
        if not isinstance(item, str) or item not in TILES:
            raise InvalidArgument(f"{fields.path}.{name}[{index}]: not a tile: {show(item)}")
    return tuple(items)


@dataclass(frozen=True)
class Fan:
    """One bonus item of a win: fan (main), points of a pattern or a doubling's factor (§9)."""

    id: str
    name_zh: str
    fan: int
    doubling: bool = False

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Fan:
        """Parse a ``hebei.v1.Fan`` JSON object."""
        fields = _Fields(data, path, ("id", "name_zh", "fan", "doubling"))
        return cls(
            fields.str("id", MAX_NAME_LENGTH),
            fields.str("name_zh", MAX_NAME_LENGTH),
            fields.int("fan"),
            fields.bool("doubling"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object (``doubling`` only when set)."""
        data: dict[str, Any] = {"id": self.id, "name_zh": self.name_zh, "fan": self.fan}
        if self.doubling:
            data["doubling"] = True
        return data


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
            tiles=_tiles(fields, "tiles", _MAX_MELD_TILES),
        )

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object."""
        data: dict[str, Any] = {"kind": self.kind, "tile": self.tile, "tiles": list(self.tiles)}
        if self.from_seat is not None:
            data["from_seat"] = self.from_seat
        return data


@dataclass(frozen=True)
class Payment:
    """One payment of a hand (``hebei.v1.Payment``): ``payer`` pays ``amount`` to ``payee``."""

    payer: int
    payee: int
    amount: int

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Payment:
        """Parse a ``hebei.v1.Payment`` JSON object."""
        fields = _Fields(data, path, ("payer", "payee", "amount"))
        return cls(fields.int("payer"), fields.int("payee"), fields.amount("amount"))

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object."""
        return {"payer": self.payer, "payee": self.payee, "amount": self.amount}

    def validate(self, path: str) -> None:
        """Real seats, two of them, and points that move."""
        for name in ("payer", "payee"):
            if getattr(self, name) not in SEATS:
                raise InvalidArgument(f"{path}.{name}: unknown seat {getattr(self, name)}")
        if self.payer == self.payee:
            raise InvalidArgument(f"{path}: seat {self.payer} cannot pay itself")
        if self.amount <= 0:
            raise InvalidArgument(f"{path}.amount: must be more than 0, got {self.amount}")


def _payments(fields: _Fields, name: str, limit: int) -> tuple[Payment, ...]:
    """The payment lines of ``name``, in (payer, payee) order: the order they were sent in
    does not change the request hash."""
    lines = [
        Payment.from_dict(item, f"{fields.path}.{name}[{index}]")
        for index, item in enumerate(fields.list(name, limit))
    ]
    return tuple(sorted(lines, key=lambda line: (line.payer, line.payee)))


def _check_payments(lines: tuple[Payment, ...], path: str) -> list[int]:
    """Check each line and that no two name the same payer and payee; the net by seat."""
    seen: set[tuple[int, int]] = set()
    for index, line in enumerate(lines):
        where = f"{path}[{index}]"
        line.validate(where)
        if (line.payer, line.payee) in seen:
            raise InvalidArgument(f"{where}: seat {line.payer} pays seat {line.payee} in two lines")
        seen.add((line.payer, line.payee))
    return _net(lines)


def _net(lines: tuple[Payment, ...]) -> list[int]:
    """What payment lines add up to by seat."""
    net = [0, 0, 0, 0]
    for line in lines:
        net[line.payer] -= line.amount
        net[line.payee] += line.amount
    return net


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
    points: int = 0  # §9 (a profile scored in points): pattern points x each doubling
    payments: tuple[Payment, ...] = ()  # each paying seat's line (none from older engines)

    _FIELDS = (
        "winner", "discarder", "kind", "win_tile", "fans", "bonus", "base", "deltas",
        "concealed", "melds", "points", "payments",
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
                for index, item in enumerate(fields.list("fans", _MAX_FANS))
            ),
            bonus=fields.int("bonus"),
            base=fields.int("base"),
            deltas=tuple(
                _amount(item, f"{path}.deltas[{index}]")
                for index, item in enumerate(fields.list("deltas", len(SEATS)))
            ),
            concealed=_tiles(fields, "concealed", _MAX_CONCEALED),
            melds=tuple(
                Meld.from_dict(item, f"{path}.melds[{index}]")
                for index, item in enumerate(fields.list("melds", _MAX_MELDS))
            ),
            points=fields.int("points"),
            payments=_payments(fields, "payments", _MAX_PAYMENTS),
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
        if self.points:
            data["points"] = self.points
        if self.payments:
            data["payments"] = [line.to_dict() for line in self.payments]
        return data

    def validate(self, path: str) -> None:
        """Check the win refers to real seats and its money adds up: its deltas are four and
        sum to zero, its payments each go from another seat to the winner (the discarder
        among the payers) and add up to its deltas. Fans, bonus and points are the engine's
        scoring and are kept as sent."""
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
        if self.deltas:
            if len(self.deltas) != len(SEATS):
                raise InvalidArgument(f"{path}.deltas: expected 4 entries, got {len(self.deltas)}")
            if sum(self.deltas) != 0:
                raise InvalidArgument(f"{path}.deltas: unbalanced, they sum to {sum(self.deltas)}")
        if self.payments:
            self._validate_payments(path)

    def _validate_payments(self, path: str) -> None:
        net = _check_payments(self.payments, f"{path}.payments")
        for index, line in enumerate(self.payments):
            if line.payee != self.winner:
                raise InvalidArgument(
                    f"{path}.payments[{index}].payee: a win pays its winner (seat "
                    f"{self.winner}), got seat {line.payee}"
                )
        payers = {line.payer for line in self.payments}
        if self.discarder is not None and self.discarder not in payers:
            raise InvalidArgument(
                f"{path}.payments: the discarder (seat {self.discarder}) pays no line"
            )
        if self.deltas and list(self.deltas) != net:
            raise InvalidArgument(
                f"{path}.payments: they add up to {net}, not to the win's deltas "
                f"{list(self.deltas)}"
            )

    def seat_deltas(self) -> tuple[int, ...]:
        """The win's points by seat: its deltas, else what its payments add up to, else ()
        (a win sent with neither)."""
        if self.deltas or not self.payments:
            return self.deltas
        return tuple(_net(self.payments))


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
            hand_delta=fields.amount("hand_delta"),
            kong_delta=fields.amount("kong_delta"),
            total_delta=fields.amount("total_delta"),
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
    false_wins: tuple[int, ...] = ()  # §9 诈胡: seats that declared a win they did not have
    false_win_penalties: tuple[Payment, ...] = ()  # what they paid (none from older engines)

    _FIELDS = (
        "idempotency_key", "tournament_id", "round_no", "table_id", "match_id", "hand_no",
        "dealer", "outcome", "results", "wins", "rule_profile", "ended_at", "false_wins",
        "false_win_penalties",
    )  # fmt: skip

    @classmethod
    def parse(cls, value: Settlement | Mapping[str, Any], path: str = "settlement") -> Settlement:
        """Parse and validate a JSON object, or check an instance the same way (every limit
        included, not only :meth:`validate`'s rules)."""
        return cls.from_dict(value.to_dict() if isinstance(value, Settlement) else value, path)

    @classmethod
    def from_dict(cls, data: Any, path: str = "settlement") -> Settlement:
        """Parse and validate a ``hebei.v1.Settlement`` JSON object; raise InvalidArgument."""
        fields = _Fields(data, path, cls._FIELDS)
        settlement = cls(
            idempotency_key=fields.str("idempotency_key", MAX_KEY_LENGTH),
            tournament_id=fields.str("tournament_id"),
            round_no=fields.int("round_no"),
            table_id=fields.str("table_id"),
            match_id=fields.str("match_id"),
            hand_no=fields.int("hand_no"),
            dealer=fields.int("dealer"),
            outcome=fields.enum("outcome", OUTCOMES),
            results=tuple(
                SeatResult.from_dict(item, f"{path}.results[{index}]")
                for index, item in enumerate(fields.list("results", len(SEATS)))
            ),
            wins=tuple(
                Win.from_dict(item, f"{path}.wins[{index}]")
                for index, item in enumerate(fields.list("wins", _MAX_WINS))
            ),
            rule_profile=fields.str("rule_profile", MAX_NAME_LENGTH),
            ended_at=fields.timestamp("ended_at"),
            false_wins=tuple(
                _int(item, f"{path}.false_wins[{index}]", 32)
                for index, item in enumerate(fields.list("false_wins", len(SEATS)))
            ),
            false_win_penalties=_payments(fields, "false_win_penalties", _MAX_PENALTY_LINES),
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
        if self.false_wins:
            data["false_wins"] = list(self.false_wins)
        if self.false_win_penalties:
            data["false_win_penalties"] = [line.to_dict() for line in self.false_win_penalties]
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
        prefix = self.match_id.split(":", 1)[0]
        if prefix in KEY_PREFIXES:
            raise InvalidArgument(
                f"{path}.match_id: must not start with {prefix!r}, which starts the ledger's "
                "own keys"
            )
        if not self.table_id:
            raise InvalidArgument(f"{path}.table_id: missing")
        if self.hand_no < 1:
            raise InvalidArgument(f"{path}.hand_no: must be 1 or more, got {self.hand_no}")
        if self.round_no < 0:
            raise InvalidArgument(f"{path}.round_no: must be 0 or more, got {self.round_no}")
        expected_key = f"{self.match_id}:{self.hand_no}"
        if self.idempotency_key != expected_key:
            raise InvalidArgument(
                f"{path}.idempotency_key: must be match_id:hand_no ({show(expected_key)}), "
                f"got {show(self.idempotency_key)}"
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
            _check_player(result.player_id, f"{where}.player_id")
            if result.player_id in seen_players:
                raise InvalidArgument(f"{where}.player_id: {show(result.player_id)} appears twice")
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
        if self.outcome in _NO_WIN and self.wins:
            raise InvalidArgument(f"{path}.wins: {_NO_WIN[self.outcome]} has no wins")
        if self.outcome not in (WIN, EXHAUSTIVE_DRAW, FALSE_WIN):
            raise InvalidArgument(f"{path}.outcome: missing")
        if self.outcome == EXHAUSTIVE_DRAW and self.false_wins:
            raise InvalidArgument(
                f"{path}.false_wins: a hand with a false win has the outcome {FALSE_WIN}"
            )
        if self.outcome == FALSE_WIN and not self.false_wins:
            raise InvalidArgument(f"{path}.false_wins: an outcome of {FALSE_WIN} names its seats")
        penalties = self._false_win_penalties(path)
        if self.outcome in _NO_WIN:
            for index, result in enumerate(self.results):
                if result.kong_delta or (
                    penalties is not None and result.hand_delta != penalties[result.seat]
                ):
                    # without penalty lines, what the false wins paid is not known
                    expected = result.hand_delta if penalties is None else penalties[result.seat]
                    pays = "nothing" if self.outcome == EXHAUSTIVE_DRAW else "only its penalties"
                    raise InvalidArgument(
                        f"{path}.results[{index}]: {_NO_WIN[self.outcome]} pays {pays} (kong "
                        f"payments are void): hand_delta {expected} and "
                        f"kong_delta 0, got hand_delta {result.hand_delta} and "
                        f"kong_delta {result.kong_delta}"
                    )
        for index, win in enumerate(self.wins):
            win.validate(f"{path}.wins[{index}]")
        wins = [win.seat_deltas() for win in self.wins]
        if self.wins and all(wins) and penalties is not None:
            for result in self.results:
                expected = sum(deltas[result.seat] for deltas in wins) + penalties[result.seat]
                if expected != result.hand_delta:
                    raise InvalidArgument(
                        f"{path}.results: seat {result.seat} hand_delta {result.hand_delta} "
                        f"differs from its wins' deltas and false-win penalties ({expected})"
                    )

    def _false_win_penalties(self, path: str) -> list[int] | None:
        """What the false wins paid by seat (§9 诈胡), after checking their seats and lines;
        None when the hand has false wins but no penalty lines (an older engine's settlement:
        what they paid is not known)."""
        winners = {win.winner for win in self.wins}
        for index, seat in enumerate(self.false_wins):
            where = f"{path}.false_wins[{index}]"
            if seat not in SEATS:
                raise InvalidArgument(f"{where}: unknown seat {seat}")
            if seat in winners or self.false_wins.index(seat) != index:
                raise InvalidArgument(f"{where}: seat {seat} declares at most one win")
        where = f"{path}.false_win_penalties"
        net = _check_payments(self.false_win_penalties, where)
        payers = {line.payer for line in self.false_win_penalties}
        for index, line in enumerate(self.false_win_penalties):
            if line.payer not in self.false_wins:
                raise InvalidArgument(
                    f"{where}[{index}].payer: seat {line.payer} declared no false win"
                )
        if self.false_wins and not self.false_win_penalties:
            return None
        for seat in self.false_wins:
            if seat not in payers:
                raise InvalidArgument(f"{where}: seat {seat}'s false win pays no penalty")
        return net


@dataclass(frozen=True)
class AdjustmentLine:
    """One line of an adjustment: points to (or from) an account."""

    player_id: str
    amount: int

    @classmethod
    def from_dict(cls, data: Any, path: str) -> AdjustmentLine:
        """Parse a ``hebei.v1.AdjustmentLine`` JSON object."""
        fields = _Fields(data, path, ("player_id", "amount"))
        return cls(player_id=fields.str("player_id"), amount=fields.amount("amount"))

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object."""
        return {"player_id": self.player_id, "amount": self.amount}


@dataclass(frozen=True)
class Adjustment:
    """Points booked outside hand settlements (``hebei.v1.Adjustment``): a penalty, placement
    points of a match, or the fixed total of a replaced player's match. Its lines are kept in
    player order, so the order they were sent in does not change the request hash."""

    idempotency_key: str
    tournament_id: str
    round_no: int
    match_id: str
    kind: str
    lines: tuple[AdjustmentLine, ...]
    reason: str
    assigned_by: str

    _FIELDS = (
        "idempotency_key", "tournament_id", "round_no", "match_id", "kind", "lines", "reason",
        "assigned_by",
    )  # fmt: skip

    @classmethod
    def parse(cls, value: Adjustment | Mapping[str, Any], path: str = "adjustment") -> Adjustment:
        """Parse and validate a JSON object, or check an instance the same way."""
        return cls.from_dict(value.to_dict() if isinstance(value, Adjustment) else value, path)

    @classmethod
    def from_dict(cls, data: Any, path: str = "adjustment") -> Adjustment:
        """Parse and validate a ``hebei.v1.Adjustment`` JSON object; raise InvalidArgument."""
        fields = _Fields(data, path, cls._FIELDS)
        lines = [
            AdjustmentLine.from_dict(item, f"{path}.lines[{index}]")
            for index, item in enumerate(fields.list("lines", _ADJUSTMENT_LINES[1]))
        ]
        adjustment = cls(
            idempotency_key=fields.str("idempotency_key", MAX_KEY_LENGTH),
            tournament_id=fields.str("tournament_id"),
            round_no=fields.int("round_no"),
            match_id=fields.str("match_id"),
            kind=fields.enum("kind", ADJUSTMENT_KINDS),
            lines=tuple(lines),
            reason=fields.str("reason", MAX_REASON_LENGTH),
            assigned_by=fields.str("assigned_by", MAX_NAME_LENGTH),
        )
        adjustment.validate(path)
        return dataclasses.replace(
            adjustment, lines=tuple(sorted(lines, key=lambda line: line.player_id))
        )

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON object (every field spelled out, int64 as numbers)."""
        return {
            "idempotency_key": self.idempotency_key,
            "tournament_id": self.tournament_id,
            "round_no": self.round_no,
            "match_id": self.match_id,
            "kind": self.kind,
            "lines": [line.to_dict() for line in self.lines],
            "reason": self.reason,
            "assigned_by": self.assigned_by,
        }

    def request_hash(self) -> bytes:
        """SHA-256 of the canonical JSON: equal for requests with the same meaning."""
        return hashlib.sha256(canonical_json(self.to_dict()).encode()).digest()

    @property
    def component(self) -> str:
        """The component of its postings: "penalty", "placement" or "replacement"."""
        return ADJUSTMENT_COMPONENTS[self.kind]

    def validate(self, path: str = "adjustment") -> None:
        """Check everything the ledger relies on; raise InvalidArgument naming the field."""
        if not self.idempotency_key:
            raise InvalidArgument(f"{path}.idempotency_key: missing")
        if not self.tournament_id:
            raise InvalidArgument(f"{path}.tournament_id: missing")
        if self.round_no < 0:
            raise InvalidArgument(f"{path}.round_no: must be 0 or more, got {self.round_no}")
        if self.kind not in ADJUSTMENT_COMPONENTS:
            raise InvalidArgument(f"{path}.kind: missing")
        if self.kind not in _WITHOUT_MATCH and not self.match_id:
            raise InvalidArgument(f"{path}.match_id: missing, a {self.kind} belongs to a match")
        low, high = _ADJUSTMENT_LINES
        if not low <= len(self.lines) <= high:
            raise InvalidArgument(f"{path}.lines: expected {low}-{high}, got {len(self.lines)}")
        seen: set[str] = set()
        for index, line in enumerate(self.lines):
            where = f"{path}.lines[{index}]"
            _check_player(line.player_id, f"{where}.player_id", allow=_ADJUSTMENT_ACCOUNTS)
            if line.player_id in seen:
                raise InvalidArgument(f"{where}.player_id: {show(line.player_id)} appears twice")
            seen.add(line.player_id)
            if line.amount == 0:
                raise InvalidArgument(f"{where}.amount: must not be zero")
        total = sum(line.amount for line in self.lines)
        if total != 0:
            raise InvalidArgument(f"{path}.lines: unbalanced, the amounts sum to {total}")
        self._validate_shape(path)

    def _validate_shape(self, path: str) -> None:
        """The lines each kind takes (see hebei.v1.AdjustmentKind)."""
        players = [line for line in self.lines if line.player_id != TOURNAMENT_ACCOUNT]
        with_tournament = len(players) < len(self.lines)
        what = "placement points" if self.kind == PLACEMENT else "a correction's points"
        if self.kind in _AMONG_PLAYERS:
            if with_tournament:
                raise InvalidArgument(
                    f"{path}.lines: {what} are shared among the players of the "
                    f"match, without {TOURNAMENT_ACCOUNT!r}"
                )
            if len(self.lines) > _PLACEMENT_LINES:
                raise InvalidArgument(
                    f"{path}.lines: at most {_PLACEMENT_LINES} players share {what}, "
                    f"got {len(self.lines)}"
                )
            return
        if not with_tournament:
            raise InvalidArgument(
                f"{path}.lines: a {self.kind} is booked against {TOURNAMENT_ACCOUNT!r}, which "
                "has no line"
            )
        if self.kind == PENALTY:
            for index, line in enumerate(self.lines):
                if line.player_id != TOURNAMENT_ACCOUNT and line.amount > 0:
                    raise InvalidArgument(
                        f"{path}.lines[{index}].amount: a penalty takes points, got "
                        f"{line.amount} for {show(line.player_id)}"
                    )
        if self.kind == AWARD:
            for index, line in enumerate(self.lines):
                if line.player_id != TOURNAMENT_ACCOUNT and line.amount < 0:
                    raise InvalidArgument(
                        f"{path}.lines[{index}].amount: an award gives points, got "
                        f"{line.amount} for {show(line.player_id)}"
                    )


_ADJUSTMENT_ACCOUNTS = frozenset({TOURNAMENT_ACCOUNT})
