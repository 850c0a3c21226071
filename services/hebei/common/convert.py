"""The one place for conversions between ``hebei.rules`` values and the ``hebei.v1`` protobufs.

Tiles: the protobuf ``Tile`` enum value is the rules tile kind + 1, so ``TILE_UNSPECIFIED`` (0)
means "no tile" or "hidden" (a concealed kong of another seat, another seat's draw).
Hand numbers: the rules count hands from 0, the contracts from 1.

Both directions are here: the table engine turns rules values into messages; clients (bots,
``hebei play``) turn an ``Observation`` message back into a :class:`hebei.rules.views.Observation`
and their chosen rules :class:`~hebei.rules.actions.Action` into an ``Action`` message.
Malformed messages raise :class:`~hebei.rules.errors.NotationError` (gRPC INVALID_ARGUMENT).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from hebei.rules.actions import Action, ActionKind
from hebei.rules.errors import NotationError
from hebei.rules.hand import Phase
from hebei.rules.match import MatchLength
from hebei.rules.melds import Meld, MeldKind, is_run_base
from hebei.rules.profile import MAIN, RuleProfile, get_profile
from hebei.rules.scoring import HandSettlement, ScoredWin, WinKind, false_win_deltas, fans_by_id
from hebei.rules.tiles import N_KINDS, TILE_NAMES, format_tiles, parse_tile
from hebei.rules.views import HIDDEN, ClaimView, Observation, SeatView
from hebei.v1 import types_pb2 as pb

__all__ = [
    "SeatPublic",
    "action_from_proto",
    "action_to_proto",
    "duration_from_seconds",
    "event_to_proto",
    "length_from_proto",
    "length_to_proto",
    "meld_from_proto",
    "meld_to_proto",
    "observation_from_proto",
    "observation_to_proto",
    "set_timestamp",
    "settlement_to_proto",
    "tile_from_proto",
    "tile_to_proto",
    "timestamp_from_seconds",
    "win_to_proto",
]

# ----------------------------------------------------------------------------- tiles


# Tile kind -> enum value and back, for the per-tile loops of observations (a dict lookup
# each; a miss takes the checking path, which raises).
_TILE_TO_PROTO: dict[int | None, int] = {
    None: pb.TILE_UNSPECIFIED,
    HIDDEN: pb.TILE_UNSPECIFIED,
    **{kind: kind + 1 for kind in range(N_KINDS)},
}
_TILE_FROM_PROTO: dict[int, int] = {kind + 1: kind for kind in range(N_KINDS)}


def tile_to_proto(kind: int | None) -> int:
    """The ``Tile`` enum value of a rules tile kind; None or HIDDEN give TILE_UNSPECIFIED."""
    if type(kind) is int and kind in _TILE_TO_PROTO:
        return _TILE_TO_PROTO[kind]
    if kind is None or kind == HIDDEN:
        return pb.TILE_UNSPECIFIED
    if not 0 <= kind < N_KINDS:
        raise NotationError(f"tile kind must be 0-{N_KINDS - 1}, got {kind!r}")
    return kind + 1


def tile_from_proto(value: int) -> int | None:
    """The rules tile kind of a ``Tile`` enum value; TILE_UNSPECIFIED gives None."""
    if value == pb.TILE_UNSPECIFIED:
        return None
    if not 1 <= value <= N_KINDS:
        raise NotationError(f"unknown tile value {value!r}: tiles are 1-{N_KINDS}")
    return value - 1


def _tile_named(name: str | None) -> int:
    """A tile of a rules event (``"5m"``) as its ``Tile`` enum value; None gives 0 (hidden)."""
    return pb.TILE_UNSPECIFIED if name is None else parse_tile(name) + 1


def _tiles_to_proto(kinds: Iterable[int]) -> list[int]:
    try:
        return [_TILE_TO_PROTO[k] for k in kinds]
    except (KeyError, TypeError):
        return [tile_to_proto(k) for k in kinds]  # raises for the bad one


# Tile values as bytes (each fits one): the kinds by one bytes.translate, a hidden or unknown
# value found by deleting the known ones (both in C; a per-tile loop was the observation's
# reading's biggest cost).
_TILE_BYTES = bytes(range(1, N_KINDS + 1))
_KIND_OF_BYTE = bytes((value - 1) % 256 for value in range(256))


def _required_tiles(values: Iterable[int], what: str, *details: object) -> tuple[int, ...]:
    """The kinds of tile values none of which is hidden (``what.format(*details)`` names the
    list in a NotationError)."""
    try:
        raw = bytes(values)  # ValueError for a value beyond a byte
    except (ValueError, TypeError):
        pass  # an unknown tile: the checking path says which
    else:
        if not raw.translate(None, _TILE_BYTES):
            return tuple(raw.translate(_KIND_OF_BYTE))
    kinds = []
    for value in values:
        kind = tile_from_proto(value)
        if kind is None:
            raise NotationError(f"{what.format(*details)} has a hidden tile")
        kinds.append(kind)
    return tuple(kinds)


# ----------------------------------------------------------------------------- melds

_MELD_KINDS = {
    MeldKind.PONG: pb.MELD_KIND_PONG,
    MeldKind.EXPOSED_KONG: pb.MELD_KIND_EXPOSED_KONG,
    MeldKind.ADDED_KONG: pb.MELD_KIND_ADDED_KONG,
    MeldKind.CONCEALED_KONG: pb.MELD_KIND_CONCEALED_KONG,
    MeldKind.CHOW: pb.MELD_KIND_CHOW,
}
_MELD_KINDS_BACK = {v: k for k, v in _MELD_KINDS.items()}


def meld_to_proto(meld: Meld) -> pb.Meld:
    """A rules meld as a ``Meld`` message (a hidden concealed kong has no tile; a chow has
    its lowest tile and its three ``tiles``)."""
    message = pb.Meld(kind=_MELD_KINDS[meld.kind], tile=tile_to_proto(meld.tile))
    if meld.kind is MeldKind.CHOW:
        message.tiles.extend(_tiles_to_proto(meld.tiles))
    if meld.from_seat is not None:
        message.from_seat = meld.from_seat
    return message


# Melds read, by their message's bytes (melds are immutable; bounded as the actions read).
_MELDS_READ: dict[bytes, Meld] = {}
_MELDS_READ_MAX = 4096


def meld_from_proto(message: pb.Meld) -> Meld:
    """A ``Meld`` message as a rules meld; a concealed kong without tile gets HIDDEN. A chow
    is named by its lowest tile (1-7 of a suit); its ``tiles``, when sent, must be that run."""
    key = message.SerializeToString()
    meld = _MELDS_READ.get(key)
    if meld is None:
        meld = _meld_from_proto(message)
        if len(_MELDS_READ) < _MELDS_READ_MAX:
            _MELDS_READ[key] = meld
    return meld


def _meld_from_proto(message: pb.Meld) -> Meld:
    kind = _MELD_KINDS_BACK.get(message.kind)
    if kind is None:
        raise NotationError(f"meld kind {message.kind!r} is not played in these rules")
    tile = tile_from_proto(message.tile)
    if tile is None:
        if kind is not MeldKind.CONCEALED_KONG:
            raise NotationError(f"a {kind.value} meld needs its tile")
        tile = HIDDEN
    if kind is MeldKind.CHOW:
        if not is_run_base(tile):
            raise NotationError(
                f"a chow is named by its run's lowest tile, 1-7 of a suit, got {TILE_NAMES[tile]}"
            )
        run = _tiles_to_proto((tile, tile + 1, tile + 2))
        if message.tiles and list(message.tiles) != run:
            raise NotationError(
                f"a chow's tiles must be its run {format_tiles((tile, tile + 1, tile + 2))}, "
                f"got tile values {list(message.tiles)}"
            )
    from_seat = message.from_seat if message.HasField("from_seat") else None
    if from_seat is not None and from_seat not in (0, 1, 2, 3):
        raise NotationError(f"meld from_seat must be a seat 0-3, got {from_seat}")
    return Meld(kind, tile, from_seat)


# ----------------------------------------------------------------------------- actions

_ACTION_KINDS = {
    ActionKind.DISCARD: pb.ACTION_KIND_DISCARD,
    ActionKind.WIN: pb.ACTION_KIND_WIN,
    ActionKind.PONG: pb.ACTION_KIND_PONG,
    ActionKind.EXPOSED_KONG: pb.ACTION_KIND_EXPOSED_KONG,
    ActionKind.CONCEALED_KONG: pb.ACTION_KIND_CONCEALED_KONG,
    ActionKind.ADDED_KONG: pb.ACTION_KIND_ADDED_KONG,
    ActionKind.PASS: pb.ACTION_KIND_PASS,
    ActionKind.CHOW: pb.ACTION_KIND_CHOW,
}
_ACTION_KINDS_BACK = {v: k for k, v in _ACTION_KINDS.items()}
SEAT_CONTROL_KINDS = frozenset({pb.ACTION_KIND_HAND_OVER, pb.ACTION_KIND_TAKE_OVER})


# Actions are interned (a few hundred): their message fields, and the action of each message
# already read (bounded: the engine reads clients' messages).
_ACTION_FIELDS: dict[Action, dict[str, int]] = {}
_ACTIONS_READ: dict[tuple[int, int, int], Action] = {}
_ACTIONS_READ_MAX = 4096


def _action_fields(action: Action) -> dict[str, int]:
    fields = _ACTION_FIELDS.get(action)
    if fields is None:
        if action.kind is ActionKind.CHOW:
            fields = {"kind": pb.ACTION_KIND_CHOW, "chow_base": tile_to_proto(action.tile)}
        else:
            fields = {"kind": _ACTION_KINDS[action.kind], "tile": tile_to_proto(action.tile)}
        _ACTION_FIELDS[action] = fields
    return fields


def action_to_proto(action: Action, decision_id: int = 0) -> pb.Action:
    """A rules action as an ``Action`` message answering ``decision_id`` (a chow names its run
    by ``chow_base``, the lowest tile)."""
    return pb.Action(**_action_fields(action), decision_id=decision_id)


def action_from_proto(message: pb.Action) -> Action:
    """A game ``Action`` message as a rules action (seat-control kinds are not game actions)."""
    key = (message.kind, message.tile, message.chow_base)
    action = _ACTIONS_READ.get(key)
    if action is None:
        action = _action_from_proto(message)
        if len(_ACTIONS_READ) < _ACTIONS_READ_MAX:
            _ACTIONS_READ[key] = action
    return action


def _action_from_proto(message: pb.Action) -> Action:
    kind = _ACTION_KINDS_BACK.get(message.kind)
    if kind is None:
        if message.kind in SEAT_CONTROL_KINDS:
            raise NotationError("HAND_OVER / TAKE_OVER are seat-control actions, not moves")
        raise NotationError(f"unknown action kind {message.kind!r}")
    if kind is ActionKind.CHOW:
        base = tile_from_proto(message.chow_base)
        if base is None:
            raise NotationError("a chow names its run by chow_base, the run's lowest tile")
        return Action(kind, base)
    tile = tile_from_proto(message.tile)
    if kind in (ActionKind.WIN, ActionKind.PASS):
        return Action(kind)
    if tile is None:
        raise NotationError(f"action {kind.value} needs a tile")
    return Action(kind, tile)


# ----------------------------------------------------------------------------- time


def timestamp_from_seconds(seconds: float) -> timestamp_pb2.Timestamp:
    """A ``Timestamp`` of a ``time.time()`` value."""
    stamp = timestamp_pb2.Timestamp()
    set_timestamp(stamp, seconds)
    return stamp


def set_timestamp(stamp: timestamp_pb2.Timestamp, seconds: float) -> None:
    """Set a message's ``Timestamp`` field in place to a ``time.time()`` value (no message
    built and copied in)."""
    nanos = int(seconds * 1e9)
    stamp.seconds = nanos // 1_000_000_000
    stamp.nanos = nanos % 1_000_000_000


def duration_from_seconds(seconds: float) -> duration_pb2.Duration:
    """A ``Duration`` of a number of seconds."""
    nanos = int(max(0.0, seconds) * 1e9)
    return duration_pb2.Duration(seconds=nanos // 1_000_000_000, nanos=nanos % 1_000_000_000)


def _now() -> float:
    return _dt.datetime.now(_dt.UTC).timestamp()


# ----------------------------------------------------------------------------- match length


def length_to_proto(length: MatchLength) -> pb.MatchLength:
    """A rules match length as a ``MatchLength`` message."""
    if length.wind_round:
        return pb.MatchLength(wind_rounds=pb.WindRounds(rounds=1, max_hands=length.cap))
    return pb.MatchLength(hands=length.hands)


def length_from_proto(message: pb.MatchLength) -> MatchLength:
    """A ``MatchLength`` message as a rules match length (one wind round at most)."""
    which = message.WhichOneof("length")
    if which == "hands":
        if message.hands < 1:
            raise NotationError(f"a match needs at least 1 hand, got {message.hands}")
        return MatchLength(hands=message.hands)
    if which == "wind_rounds":
        rounds = message.wind_rounds
        if rounds.rounds not in (0, 1):
            raise NotationError(f"only one wind round is played, got {rounds.rounds}")
        if rounds.max_hands < 0:
            raise NotationError(f"max_hands must be >= 0, got {rounds.max_hands}")
        return MatchLength(hands=0, cap=rounds.max_hands or 16)
    raise NotationError("the match length needs hands or wind_rounds")


# ----------------------------------------------------------------------------- settlements

_WIN_KINDS = {
    WinKind.SELF_DRAW: pb.WIN_KIND_SELF_DRAW,
    WinKind.DISCARD: pb.WIN_KIND_DISCARD,
    WinKind.ROB_KONG: pb.WIN_KIND_ROB_KONG,
}


def win_to_proto(
    win: ScoredWin, concealed: Sequence[int] = (), melds: Sequence[Meld] = ()
) -> pb.Win:
    """A scored win; ``concealed`` (kinds, without the winning tile) and ``melds`` reveal the
    winner's hand. A win of the doubling scoring (§9) has ``points`` and no bonus nor base.
    Its ``payments`` are its deltas as lines: each seat that lost points paid them to the
    winner."""
    doubling = win.points is not None
    message = pb.Win(
        winner=win.winner,
        kind=_WIN_KINDS[win.win],
        win_tile=tile_to_proto(win.win_tile),
        fans=[pb.Fan(id=f.id, name_zh=f.name_zh, fan=f.fan, doubling=f.doubling) for f in win.fans],
        bonus=0 if doubling else win.bonus,
        base=0 if doubling else max((-d for d in win.base if d < 0), default=0),
        points=win.points or 0,
        deltas=list(win.deltas),
        concealed=_tiles_to_proto(sorted(concealed)),
        melds=[meld_to_proto(m) for m in melds],
        payments=[
            pb.Payment(payer=seat, payee=win.winner, amount=-delta)
            for seat, delta in enumerate(win.deltas)
            if delta < 0
        ],
    )
    if win.discarder is not None:
        message.discarder = win.discarder
    return message


def settlement_to_proto(
    settlement: HandSettlement,
    *,
    match_id: str,
    hand_no: int,
    dealer: int,
    player_ids: Sequence[str],
    table_id: str = "",
    tournament_id: str = "",
    round_no: int = 0,
    rule_profile: str = "main",
    ended_at: float | None = None,
    revealed: Mapping[int, tuple[Sequence[int], Sequence[Meld]]] | None = None,
) -> pb.Settlement:
    """A hand's settlement as posted to the ledger; ``hand_no`` is 1-based and the key is
    ``match_id:hand_no``. ``revealed`` maps a winner to its (concealed kinds, melds). A hand
    ended by false wins only (§9) has the outcome HAND_OUTCOME_FALSE_WIN; each false win's
    penalty (``rule_profile``'s) is in ``false_win_penalties``, one line per seat paid."""
    revealed = revealed or {}
    results = [
        pb.SeatResult(
            seat=seat,
            player_id=player_ids[seat],
            hand_delta=settlement.hand_deltas[seat],
            kong_delta=settlement.kong_deltas[seat],
            total_delta=settlement.total[seat],
        )
        for seat in range(4)
    ]
    return pb.Settlement(
        idempotency_key=f"{match_id}:{hand_no}",
        tournament_id=tournament_id,
        round_no=round_no,
        table_id=table_id,
        match_id=match_id,
        hand_no=hand_no,
        dealer=dealer,
        outcome=_outcome(settlement),
        results=results,
        wins=[win_to_proto(w, *revealed.get(w.winner, ((), ()))) for w in settlement.wins],
        rule_profile=rule_profile,
        false_wins=list(settlement.false_wins),
        false_win_penalties=_false_win_penalties(settlement.false_wins, dealer, rule_profile),
        ended_at=timestamp_from_seconds(_now() if ended_at is None else ended_at),
    )


def _false_win_penalties(seats: Sequence[int], dealer: int, rule_profile: str) -> list[pb.Payment]:
    """What each false winner pays each other seat (§9 诈胡), one line per seat paid."""
    if not seats:
        return []
    profile = get_profile(rule_profile or MAIN.name)
    return [
        pb.Payment(payer=seat, payee=other, amount=amount)
        for seat in seats
        for other, amount in enumerate(false_win_deltas(seat, dealer, profile))
        if other != seat
    ]


def _outcome(settlement: HandSettlement) -> int:
    if settlement.wins:
        return pb.HAND_OUTCOME_WIN
    return pb.HAND_OUTCOME_FALSE_WIN if settlement.false_wins else pb.HAND_OUTCOME_EXHAUSTIVE_DRAW


def fan_names(fan_ids: Iterable[str], profile: RuleProfile = MAIN) -> list[pb.Fan]:
    """Fan messages of ``profile``'s fan ids (names, values and doublings from its scoring
    rules); an id the profile does not score is a NotationError."""
    rules = fans_by_id(profile)
    fan_ids = list(fan_ids)
    unknown = [i for i in fan_ids if i not in rules]
    if unknown:
        raise NotationError(f"the {profile.name} rules have no fan {unknown[0]!r}")
    return [
        pb.Fan(id=i, name_zh=rules[i].name_zh, fan=rules[i].fan, doubling=rules[i].doubling)
        for i in fan_ids
    ]


# ----------------------------------------------------------------------------- events

_EVENT_TYPES = {
    "match_start": pb.EVENT_TYPE_MATCH_START,
    "hand_start": pb.EVENT_TYPE_HAND_START,
    "draw": pb.EVENT_TYPE_DRAW,
    "discard": pb.EVENT_TYPE_DISCARD,
    "pong": pb.EVENT_TYPE_PONG,
    "exposed_kong": pb.EVENT_TYPE_KONG,
    "concealed_kong": pb.EVENT_TYPE_KONG,
    "added_kong": pb.EVENT_TYPE_KONG,
    "win": pb.EVENT_TYPE_WIN,
    "pass": pb.EVENT_TYPE_PASS,
    "chow": pb.EVENT_TYPE_CHOW,
    "hand_end": pb.EVENT_TYPE_HAND_END,
    "match_end": pb.EVENT_TYPE_MATCH_END,
    "seat_auto": pb.EVENT_TYPE_SEAT_AUTO,
    "seat_resumed": pb.EVENT_TYPE_SEAT_RESUMED,
    "seat_connected": pb.EVENT_TYPE_SEAT_CONNECTED,
    "seat_disconnected": pb.EVENT_TYPE_SEAT_DISCONNECTED,
    "match_dissolved": pb.EVENT_TYPE_MATCH_DISSOLVED,
    "match_paused": pb.EVENT_TYPE_MATCH_PAUSED,
    "match_resumed": pb.EVENT_TYPE_MATCH_RESUMED,
}
EVENT_TYPE_NAMES = frozenset(_EVENT_TYPES)


def event_to_proto(
    event: Mapping,
    *,
    seq: int,
    match_id: str,
    hand_no: int,
    time: float | None = None,
    settlement: pb.Settlement | None = None,
) -> pb.Event | None:
    """An ``Event`` message of a rules or table event **as its reader may see it** (pass it
    through :func:`hebei.rules.views.public_event` first); None for events with no message
    (the deal). ``hand_no`` is 1-based; ``settlement`` fills HAND_END and the win of WIN."""
    kind = event["type"]
    event_type = _EVENT_TYPES.get(kind)
    if event_type is None:
        return None
    message = pb.Event(seq=seq, match_id=match_id, hand_no=hand_no, type=event_type)
    if "seat" in event and event["seat"] is not None:
        message.seat = event["seat"]
    if event.get("tile") is not None:
        message.tile = _tile_named(event["tile"])
    if event.get("auto"):
        message.auto_played = True
    if event.get("replacement"):
        message.replacement = True
    if event.get("reason"):
        message.reason = str(event["reason"])
    if event.get("false_win"):
        message.false_win = True
    if kind in ("pong", "exposed_kong", "concealed_kong", "added_kong"):
        meld = pb.Meld(kind=_MELD_KINDS[MeldKind(kind)], tile=message.tile)
        if event.get("from") is not None:
            meld.from_seat = event["from"]
        message.meld.CopyFrom(meld)
    elif kind == "chow":  # the event's tile is the run's lowest; the claimed tile is the tile
        message.meld.CopyFrom(
            meld_to_proto(Meld(MeldKind.CHOW, parse_tile(event["tile"]), event.get("from")))
        )
        message.tile = _tile_named(event.get("claimed"))
    elif kind == "hand_start":
        message.dealer = event["dealer"]
    elif kind == "hand_end" and settlement is not None:
        message.settlement.CopyFrom(settlement)
    elif kind == "win" and settlement is not None:
        for win in settlement.wins:
            if win.winner == event["seat"]:
                message.win.CopyFrom(win)
    elif kind == "match_end":
        message.scores.extend(event.get("scores", ()))
        if event.get("seed") is not None:
            message.seed = int(event["seed"])
    if time is not None:
        set_timestamp(message.time, time)
    return message


# ----------------------------------------------------------------------------- observations

_PHASES = {
    Phase.TURN: pb.PHASE_TURN,
    Phase.CLAIMS: pb.PHASE_CLAIM,
    Phase.ROB: pb.PHASE_ROB_KONG,
    Phase.ENDED: pb.PHASE_HAND_END,
}
_PHASES_BACK = {
    pb.PHASE_TURN: Phase.TURN,
    pb.PHASE_CLAIM: Phase.CLAIMS,
    pb.PHASE_ROB_KONG: Phase.ROB,
    pb.PHASE_HAND_END: Phase.ENDED,
    pb.PHASE_MATCH_END: Phase.ENDED,
}


@dataclass(frozen=True, slots=True)
class SeatPublic:
    """What the table knows of a seat beyond the game: name, kind, connection, auto-play."""

    player_name: str = ""
    kind: int = pb.SEAT_KIND_UNSPECIFIED
    connected: bool = False
    auto_played: bool = False


_NO_PUBLIC = SeatPublic()


def observation_to_proto(
    obs: Observation,
    *,
    table_id: str = "",
    match_id: str = "",
    seats: Sequence[SeatPublic] = (),
    decision_id: int = 0,
    deadline: float | None = None,
    time_bank: float | None = None,
    last_event: pb.Event | None = None,
    settlement: pb.Settlement | None = None,
    match_finished: bool = False,
    rule_profile: str | None = None,
    length: MatchLength | None = None,
    wind_round: bool = False,
    into: pb.Observation | None = None,
) -> pb.Observation:
    """A rules observation plus the table's fields as an ``Observation`` message
    (``rule_profile``: by default the observation's own).

    ``legal_actions`` are sent only with a ``decision_id`` (a seat with nothing to decide
    gets none); ``match_finished`` turns the phase into PHASE_MATCH_END. ``into``: an empty
    message to build it in (the field of a response: no copy of the whole observation).
    """
    header = pb.Observation(
        table_id=table_id,
        match_id=match_id,
        hand_no=obs.hand_no + 1,
        seat=obs.seat,
        dealer=obs.dealer,
        prevailing_wind=pb.TILE_EAST if wind_round else pb.TILE_UNSPECIFIED,
        concealed=_tiles_to_proto(obs.hand),
        drawn=tile_to_proto(obs.drawn),
        wall_count=max(0, obs.wall),
        current_seat=obs.current,
        phase=pb.PHASE_MATCH_END if match_finished else _PHASES[obs.phase],
        match_finished=match_finished,
    )
    if into is None:
        message = header
    else:  # the scalars in one small merge; the nested fields below are built in place
        message = into
        message.MergeFrom(header)
    message.rule_profile.SetInParent()
    message.rule_profile.name = obs.profile.name if rule_profile is None else rule_profile
    add_seat = message.seats.add  # built in place: a message passed in would be copied
    for view in obs.seats:
        public = seats[view.seat] if view.seat < len(seats) else _NO_PUBLIC
        seat = add_seat(
            seat=view.seat,
            player_name=public.player_name,
            kind=public.kind,
            discards=_tiles_to_proto(view.discards),
            concealed_count=view.concealed_count,
            score=view.score,
            connected=public.connected,
            auto_played=public.auto_played,
            seat_wind=pb.TILE_EAST + (view.seat - obs.dealer) % 4,
        )
        for meld in view.melds:
            seat.melds.append(meld_to_proto(meld))
    if obs.claim is not None:
        message.last_discard = tile_to_proto(obs.claim.tile)
        message.last_discarder = obs.claim.from_seat
    if decision_id:
        message.decision_id = decision_id
        add_action = message.legal_actions.add
        for action in obs.legal_actions:
            add_action(**_action_fields(action), decision_id=decision_id)
    if deadline is not None:
        set_timestamp(message.deadline, deadline)
    if time_bank is not None:
        message.time_bank.CopyFrom(duration_from_seconds(time_bank))
    if last_event is not None:
        message.last_event.CopyFrom(last_event)
    if settlement is not None:
        message.settlement.CopyFrom(settlement)
    if length is not None:
        message.length.CopyFrom(length_to_proto(length))
    return message


def _slot_setters(cls: type) -> tuple[Any, ...]:
    """The setters of a frozen slotted dataclass's fields, in their order, for
    :func:`_frozen` (its callers pass every field in that order: the round-trip tests compare
    what they build with the dataclass's own, field by field)."""
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} checks its fields: build it through __init__")
    return tuple(getattr(cls, f.name).__set__ for f in dataclasses.fields(cls))


# A frozen dataclass built through its slots' setters: the same instance as its __init__
# makes from every field in order, without an object.__setattr__ per field.
_SEAT_VIEW_SETTERS = _slot_setters(SeatView)
_OBSERVATION_SETTERS = _slot_setters(Observation)


def _frozen(cls: type, setters: tuple[Any, ...], *values: Any) -> Any:
    instance = object.__new__(cls)
    for setter, value in zip(setters, values, strict=True):
        setter(instance, value)
    return instance


def _seat_view_from_proto(message: pb.SeatView) -> SeatView:
    seat, melds = message.seat, message.melds
    return _frozen(
        SeatView,
        _SEAT_VIEW_SETTERS,
        seat,
        tuple([meld_from_proto(m) for m in melds]) if melds else (),
        _required_tiles(message.discards[:], "seat {}'s discards", seat),
        message.concealed_count,
        message.score,
    )


def observation_from_proto(message: pb.Observation) -> Observation:
    """An ``Observation`` message as the rules view a bot policy reads (with its rule
    profile, so a policy can play the table's rules).

    PHASE_HAND_END and PHASE_MATCH_END both give ``Phase.ENDED``; a waiting table has no
    rules view (NotationError).
    """
    phase = _PHASES_BACK.get(message.phase)
    if phase is None:
        raise NotationError(f"an observation in phase {message.phase!r} has no rules view")
    seat_messages = message.seats[:]
    if len(seat_messages) != 4 or any(s.seat != i for i, s in enumerate(seat_messages)):
        raise NotationError("an observation needs the four seats 0-3 in order")
    seats = tuple([_seat_view_from_proto(s) for s in seat_messages])
    claim = None
    if phase is Phase.CLAIMS or phase is Phase.ROB:
        tile = tile_from_proto(message.last_discard)
        if tile is None or not message.HasField("last_discarder"):
            raise NotationError("a claim observation needs last_discard and last_discarder")
        claim = ClaimView(tile, message.last_discarder, phase is Phase.ROB)
    read = _ACTIONS_READ.get
    legal = tuple(
        [read((a.kind, a.tile, a.chow_base)) or action_from_proto(a) for a in message.legal_actions]
    )
    try:
        profile = get_profile(message.rule_profile.name or MAIN.name)
    except ValueError as exc:
        raise NotationError(f"rule_profile: {exc}") from None
    return _frozen(
        Observation,
        _OBSERVATION_SETTERS,
        message.seat,
        max(0, message.hand_no - 1),
        message.dealer,
        phase,
        message.current_seat,
        tuple(sorted(_required_tiles(message.concealed[:], "the hand"))),
        tile_from_proto(message.drawn),
        seats,
        message.wall_count,
        claim,
        legal,
        profile,
    )
