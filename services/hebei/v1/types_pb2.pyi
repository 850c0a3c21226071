import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Tile(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TILE_UNSPECIFIED: _ClassVar[Tile]
    TILE_1M: _ClassVar[Tile]
    TILE_2M: _ClassVar[Tile]
    TILE_3M: _ClassVar[Tile]
    TILE_4M: _ClassVar[Tile]
    TILE_5M: _ClassVar[Tile]
    TILE_6M: _ClassVar[Tile]
    TILE_7M: _ClassVar[Tile]
    TILE_8M: _ClassVar[Tile]
    TILE_9M: _ClassVar[Tile]
    TILE_1P: _ClassVar[Tile]
    TILE_2P: _ClassVar[Tile]
    TILE_3P: _ClassVar[Tile]
    TILE_4P: _ClassVar[Tile]
    TILE_5P: _ClassVar[Tile]
    TILE_6P: _ClassVar[Tile]
    TILE_7P: _ClassVar[Tile]
    TILE_8P: _ClassVar[Tile]
    TILE_9P: _ClassVar[Tile]
    TILE_1S: _ClassVar[Tile]
    TILE_2S: _ClassVar[Tile]
    TILE_3S: _ClassVar[Tile]
    TILE_4S: _ClassVar[Tile]
    TILE_5S: _ClassVar[Tile]
    TILE_6S: _ClassVar[Tile]
    TILE_7S: _ClassVar[Tile]
    TILE_8S: _ClassVar[Tile]
    TILE_9S: _ClassVar[Tile]
    TILE_EAST: _ClassVar[Tile]
    TILE_SOUTH: _ClassVar[Tile]
    TILE_WEST: _ClassVar[Tile]
    TILE_NORTH: _ClassVar[Tile]
    TILE_WHITE: _ClassVar[Tile]
    TILE_GREEN: _ClassVar[Tile]
    TILE_RED: _ClassVar[Tile]

class MeldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MELD_KIND_UNSPECIFIED: _ClassVar[MeldKind]
    MELD_KIND_PONG: _ClassVar[MeldKind]
    MELD_KIND_EXPOSED_KONG: _ClassVar[MeldKind]
    MELD_KIND_ADDED_KONG: _ClassVar[MeldKind]
    MELD_KIND_CONCEALED_KONG: _ClassVar[MeldKind]
    MELD_KIND_CHOW: _ClassVar[MeldKind]

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_DISCARD: _ClassVar[ActionKind]
    ACTION_KIND_WIN: _ClassVar[ActionKind]
    ACTION_KIND_PONG: _ClassVar[ActionKind]
    ACTION_KIND_EXPOSED_KONG: _ClassVar[ActionKind]
    ACTION_KIND_CONCEALED_KONG: _ClassVar[ActionKind]
    ACTION_KIND_ADDED_KONG: _ClassVar[ActionKind]
    ACTION_KIND_PASS: _ClassVar[ActionKind]
    ACTION_KIND_CHOW: _ClassVar[ActionKind]
    ACTION_KIND_HAND_OVER: _ClassVar[ActionKind]
    ACTION_KIND_TAKE_OVER: _ClassVar[ActionKind]

class WinKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WIN_KIND_UNSPECIFIED: _ClassVar[WinKind]
    WIN_KIND_SELF_DRAW: _ClassVar[WinKind]
    WIN_KIND_DISCARD: _ClassVar[WinKind]
    WIN_KIND_ROB_KONG: _ClassVar[WinKind]

class HandOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_OUTCOME_UNSPECIFIED: _ClassVar[HandOutcome]
    HAND_OUTCOME_WIN: _ClassVar[HandOutcome]
    HAND_OUTCOME_EXHAUSTIVE_DRAW: _ClassVar[HandOutcome]
    HAND_OUTCOME_FALSE_WIN: _ClassVar[HandOutcome]

class SeatKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_KIND_UNSPECIFIED: _ClassVar[SeatKind]
    SEAT_KIND_PERSON: _ClassVar[SeatKind]
    SEAT_KIND_BOT: _ClassVar[SeatKind]

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_UNSPECIFIED: _ClassVar[MatchStatus]
    MATCH_STATUS_WAITING: _ClassVar[MatchStatus]
    MATCH_STATUS_PLAYING: _ClassVar[MatchStatus]
    MATCH_STATUS_FINISHED: _ClassVar[MatchStatus]
    MATCH_STATUS_DISSOLVED: _ClassVar[MatchStatus]

class EventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_TYPE_UNSPECIFIED: _ClassVar[EventType]
    EVENT_TYPE_MATCH_START: _ClassVar[EventType]
    EVENT_TYPE_HAND_START: _ClassVar[EventType]
    EVENT_TYPE_DRAW: _ClassVar[EventType]
    EVENT_TYPE_DISCARD: _ClassVar[EventType]
    EVENT_TYPE_PONG: _ClassVar[EventType]
    EVENT_TYPE_KONG: _ClassVar[EventType]
    EVENT_TYPE_WIN: _ClassVar[EventType]
    EVENT_TYPE_PASS: _ClassVar[EventType]
    EVENT_TYPE_HAND_END: _ClassVar[EventType]
    EVENT_TYPE_MATCH_END: _ClassVar[EventType]
    EVENT_TYPE_SEAT_AUTO: _ClassVar[EventType]
    EVENT_TYPE_SEAT_RESUMED: _ClassVar[EventType]
    EVENT_TYPE_SEAT_CONNECTED: _ClassVar[EventType]
    EVENT_TYPE_SEAT_DISCONNECTED: _ClassVar[EventType]
    EVENT_TYPE_CHOW: _ClassVar[EventType]
    EVENT_TYPE_MATCH_DISSOLVED: _ClassVar[EventType]
    EVENT_TYPE_MATCH_PAUSED: _ClassVar[EventType]
    EVENT_TYPE_MATCH_RESUMED: _ClassVar[EventType]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_WAITING: _ClassVar[Phase]
    PHASE_TURN: _ClassVar[Phase]
    PHASE_CLAIM: _ClassVar[Phase]
    PHASE_ROB_KONG: _ClassVar[Phase]
    PHASE_HAND_END: _ClassVar[Phase]
    PHASE_MATCH_END: _ClassVar[Phase]
TILE_UNSPECIFIED: Tile
TILE_1M: Tile
TILE_2M: Tile
TILE_3M: Tile
TILE_4M: Tile
TILE_5M: Tile
TILE_6M: Tile
TILE_7M: Tile
TILE_8M: Tile
TILE_9M: Tile
TILE_1P: Tile
TILE_2P: Tile
TILE_3P: Tile
TILE_4P: Tile
TILE_5P: Tile
TILE_6P: Tile
TILE_7P: Tile
TILE_8P: Tile
TILE_9P: Tile
TILE_1S: Tile
TILE_2S: Tile
TILE_3S: Tile
TILE_4S: Tile
TILE_5S: Tile
TILE_6S: Tile
TILE_7S: Tile
TILE_8S: Tile
TILE_9S: Tile
TILE_EAST: Tile
TILE_SOUTH: Tile
TILE_WEST: Tile
TILE_NORTH: Tile
TILE_WHITE: Tile
TILE_GREEN: Tile
TILE_RED: Tile
MELD_KIND_UNSPECIFIED: MeldKind
MELD_KIND_PONG: MeldKind
MELD_KIND_EXPOSED_KONG: MeldKind
MELD_KIND_ADDED_KONG: MeldKind
MELD_KIND_CONCEALED_KONG: MeldKind
MELD_KIND_CHOW: MeldKind
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_DISCARD: ActionKind
ACTION_KIND_WIN: ActionKind
ACTION_KIND_PONG: ActionKind
ACTION_KIND_EXPOSED_KONG: ActionKind
ACTION_KIND_CONCEALED_KONG: ActionKind
ACTION_KIND_ADDED_KONG: ActionKind
ACTION_KIND_PASS: ActionKind
ACTION_KIND_CHOW: ActionKind
ACTION_KIND_HAND_OVER: ActionKind
ACTION_KIND_TAKE_OVER: ActionKind
WIN_KIND_UNSPECIFIED: WinKind
WIN_KIND_SELF_DRAW: WinKind
WIN_KIND_DISCARD: WinKind
WIN_KIND_ROB_KONG: WinKind
HAND_OUTCOME_UNSPECIFIED: HandOutcome
HAND_OUTCOME_WIN: HandOutcome
HAND_OUTCOME_EXHAUSTIVE_DRAW: HandOutcome
HAND_OUTCOME_FALSE_WIN: HandOutcome
SEAT_KIND_UNSPECIFIED: SeatKind
SEAT_KIND_PERSON: SeatKind
SEAT_KIND_BOT: SeatKind
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_WAITING: MatchStatus
MATCH_STATUS_PLAYING: MatchStatus
MATCH_STATUS_FINISHED: MatchStatus
MATCH_STATUS_DISSOLVED: MatchStatus
EVENT_TYPE_UNSPECIFIED: EventType
EVENT_TYPE_MATCH_START: EventType
EVENT_TYPE_HAND_START: EventType
EVENT_TYPE_DRAW: EventType
EVENT_TYPE_DISCARD: EventType
EVENT_TYPE_PONG: EventType
EVENT_TYPE_KONG: EventType
EVENT_TYPE_WIN: EventType
EVENT_TYPE_PASS: EventType
EVENT_TYPE_HAND_END: EventType
EVENT_TYPE_MATCH_END: EventType
EVENT_TYPE_SEAT_AUTO: EventType
EVENT_TYPE_SEAT_RESUMED: EventType
EVENT_TYPE_SEAT_CONNECTED: EventType
EVENT_TYPE_SEAT_DISCONNECTED: EventType
EVENT_TYPE_CHOW: EventType
EVENT_TYPE_MATCH_DISSOLVED: EventType
EVENT_TYPE_MATCH_PAUSED: EventType
EVENT_TYPE_MATCH_RESUMED: EventType
PHASE_UNSPECIFIED: Phase
PHASE_WAITING: Phase
PHASE_TURN: Phase
PHASE_CLAIM: Phase
PHASE_ROB_KONG: Phase
PHASE_HAND_END: Phase
PHASE_MATCH_END: Phase

class Meld(_message.Message):
    __slots__ = ("kind", "tile", "from_seat", "tiles")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    FROM_SEAT_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    kind: MeldKind
    tile: Tile
    from_seat: int
    tiles: _containers.RepeatedScalarFieldContainer[Tile]
    def __init__(self, kind: _Optional[_Union[MeldKind, str]] = ..., tile: _Optional[_Union[Tile, str]] = ..., from_seat: _Optional[int] = ..., tiles: _Optional[_Iterable[_Union[Tile, str]]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("kind", "tile", "chow_base", "decision_id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    CHOW_BASE_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    tile: Tile
    chow_base: Tile
    decision_id: int
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., tile: _Optional[_Union[Tile, str]] = ..., chow_base: _Optional[_Union[Tile, str]] = ..., decision_id: _Optional[int] = ...) -> None: ...

class Fan(_message.Message):
    __slots__ = ("id", "name_zh", "fan", "doubling")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_ZH_FIELD_NUMBER: _ClassVar[int]
    FAN_FIELD_NUMBER: _ClassVar[int]
    DOUBLING_FIELD_NUMBER: _ClassVar[int]
    id: str
    name_zh: str
    fan: int
    doubling: bool
    def __init__(self, id: _Optional[str] = ..., name_zh: _Optional[str] = ..., fan: _Optional[int] = ..., doubling: _Optional[bool] = ...) -> None: ...

class Win(_message.Message):
    __slots__ = ("winner", "discarder", "kind", "win_tile", "fans", "bonus", "base", "deltas", "concealed", "melds", "points", "payments")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    DISCARDER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    WIN_TILE_FIELD_NUMBER: _ClassVar[int]
    FANS_FIELD_NUMBER: _ClassVar[int]
    BONUS_FIELD_NUMBER: _ClassVar[int]
    BASE_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    CONCEALED_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    PAYMENTS_FIELD_NUMBER: _ClassVar[int]
    winner: int
    discarder: int
    kind: WinKind
    win_tile: Tile
    fans: _containers.RepeatedCompositeFieldContainer[Fan]
    bonus: int
    base: int
    deltas: _containers.RepeatedScalarFieldContainer[int]
    concealed: _containers.RepeatedScalarFieldContainer[Tile]
    melds: _containers.RepeatedCompositeFieldContainer[Meld]
    points: int
    payments: _containers.RepeatedCompositeFieldContainer[Payment]
    def __init__(self, winner: _Optional[int] = ..., discarder: _Optional[int] = ..., kind: _Optional[_Union[WinKind, str]] = ..., win_tile: _Optional[_Union[Tile, str]] = ..., fans: _Optional[_Iterable[_Union[Fan, _Mapping]]] = ..., bonus: _Optional[int] = ..., base: _Optional[int] = ..., deltas: _Optional[_Iterable[int]] = ..., concealed: _Optional[_Iterable[_Union[Tile, str]]] = ..., melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., points: _Optional[int] = ..., payments: _Optional[_Iterable[_Union[Payment, _Mapping]]] = ...) -> None: ...

class Payment(_message.Message):
    __slots__ = ("payer", "payee", "amount")
    PAYER_FIELD_NUMBER: _ClassVar[int]
    PAYEE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    payer: int
    payee: int
    amount: int
    def __init__(self, payer: _Optional[int] = ..., payee: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "player_id", "hand_delta", "kong_delta", "total_delta")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_DELTA_FIELD_NUMBER: _ClassVar[int]
    KONG_DELTA_FIELD_NUMBER: _ClassVar[int]
    TOTAL_DELTA_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    hand_delta: int
    kong_delta: int
    total_delta: int
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., hand_delta: _Optional[int] = ..., kong_delta: _Optional[int] = ..., total_delta: _Optional[int] = ...) -> None: ...

class Settlement(_message.Message):
    __slots__ = ("idempotency_key", "tournament_id", "round_no", "table_id", "match_id", "hand_no", "dealer", "outcome", "results", "wins", "rule_profile", "ended_at", "false_wins", "false_win_penalties")
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NO_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    RULE_PROFILE_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    FALSE_WINS_FIELD_NUMBER: _ClassVar[int]
    FALSE_WIN_PENALTIES_FIELD_NUMBER: _ClassVar[int]
    idempotency_key: str
    tournament_id: str
    round_no: int
    table_id: str
    match_id: str
    hand_no: int
    dealer: int
    outcome: HandOutcome
    results: _containers.RepeatedCompositeFieldContainer[SeatResult]
    wins: _containers.RepeatedCompositeFieldContainer[Win]
    rule_profile: str
    ended_at: _timestamp_pb2.Timestamp
    false_wins: _containers.RepeatedScalarFieldContainer[int]
    false_win_penalties: _containers.RepeatedCompositeFieldContainer[Payment]
    def __init__(self, idempotency_key: _Optional[str] = ..., tournament_id: _Optional[str] = ..., round_no: _Optional[int] = ..., table_id: _Optional[str] = ..., match_id: _Optional[str] = ..., hand_no: _Optional[int] = ..., dealer: _Optional[int] = ..., outcome: _Optional[_Union[HandOutcome, str]] = ..., results: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., wins: _Optional[_Iterable[_Union[Win, _Mapping]]] = ..., rule_profile: _Optional[str] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., false_wins: _Optional[_Iterable[int]] = ..., false_win_penalties: _Optional[_Iterable[_Union[Payment, _Mapping]]] = ...) -> None: ...

class RuleProfile(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class WindRounds(_message.Message):
    __slots__ = ("rounds", "max_hands")
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    MAX_HANDS_FIELD_NUMBER: _ClassVar[int]
    rounds: int
    max_hands: int
    def __init__(self, rounds: _Optional[int] = ..., max_hands: _Optional[int] = ...) -> None: ...

class MatchLength(_message.Message):
    __slots__ = ("hands", "wind_rounds")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    WIND_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    hands: int
    wind_rounds: WindRounds
    def __init__(self, hands: _Optional[int] = ..., wind_rounds: _Optional[_Union[WindRounds, _Mapping]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("per_decision", "time_bank", "claim_window")
    PER_DECISION_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    CLAIM_WINDOW_FIELD_NUMBER: _ClassVar[int]
    per_decision: _duration_pb2.Duration
    time_bank: _duration_pb2.Duration
    claim_window: _duration_pb2.Duration
    def __init__(self, per_decision: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., time_bank: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., claim_window: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seq", "match_id", "hand_no", "type", "seat", "tile", "meld", "auto_played", "dealer", "win", "settlement", "scores", "seed", "replacement", "time", "reason", "false_win")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NO_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    MELD_FIELD_NUMBER: _ClassVar[int]
    AUTO_PLAYED_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    WIN_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENT_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FALSE_WIN_FIELD_NUMBER: _ClassVar[int]
    seq: int
    match_id: str
    hand_no: int
    type: EventType
    seat: int
    tile: Tile
    meld: Meld
    auto_played: bool
    dealer: int
    win: Win
    settlement: Settlement
    scores: _containers.RepeatedScalarFieldContainer[int]
    seed: int
    replacement: bool
    time: _timestamp_pb2.Timestamp
    reason: str
    false_win: bool
    def __init__(self, seq: _Optional[int] = ..., match_id: _Optional[str] = ..., hand_no: _Optional[int] = ..., type: _Optional[_Union[EventType, str]] = ..., seat: _Optional[int] = ..., tile: _Optional[_Union[Tile, str]] = ..., meld: _Optional[_Union[Meld, _Mapping]] = ..., auto_played: _Optional[bool] = ..., dealer: _Optional[int] = ..., win: _Optional[_Union[Win, _Mapping]] = ..., settlement: _Optional[_Union[Settlement, _Mapping]] = ..., scores: _Optional[_Iterable[int]] = ..., seed: _Optional[int] = ..., replacement: _Optional[bool] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reason: _Optional[str] = ..., false_win: _Optional[bool] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "player_name", "kind", "melds", "discards", "concealed_count", "score", "connected", "auto_played", "seat_wind")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    CONCEALED_COUNT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    AUTO_PLAYED_FIELD_NUMBER: _ClassVar[int]
    SEAT_WIND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_name: str
    kind: SeatKind
    melds: _containers.RepeatedCompositeFieldContainer[Meld]
    discards: _containers.RepeatedScalarFieldContainer[Tile]
    concealed_count: int
    score: int
    connected: bool
    auto_played: bool
    seat_wind: Tile
    def __init__(self, seat: _Optional[int] = ..., player_name: _Optional[str] = ..., kind: _Optional[_Union[SeatKind, str]] = ..., melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., discards: _Optional[_Iterable[_Union[Tile, str]]] = ..., concealed_count: _Optional[int] = ..., score: _Optional[int] = ..., connected: _Optional[bool] = ..., auto_played: _Optional[bool] = ..., seat_wind: _Optional[_Union[Tile, str]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("table_id", "match_id", "hand_no", "seat", "dealer", "prevailing_wind", "concealed", "drawn", "seats", "wall_count", "current_seat", "phase", "last_discard", "last_discarder", "legal_actions", "decision_id", "deadline", "time_bank", "last_event", "settlement", "match_finished", "rule_profile", "length")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NO_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PREVAILING_WIND_FIELD_NUMBER: _ClassVar[int]
    CONCEALED_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    WALL_COUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    LAST_DISCARD_FIELD_NUMBER: _ClassVar[int]
    LAST_DISCARDER_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    MATCH_FINISHED_FIELD_NUMBER: _ClassVar[int]
    RULE_PROFILE_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    match_id: str
    hand_no: int
    seat: int
    dealer: int
    prevailing_wind: Tile
    concealed: _containers.RepeatedScalarFieldContainer[Tile]
    drawn: Tile
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    wall_count: int
    current_seat: int
    phase: Phase
    last_discard: Tile
    last_discarder: int
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    decision_id: int
    deadline: _timestamp_pb2.Timestamp
    time_bank: _duration_pb2.Duration
    last_event: Event
    settlement: Settlement
    match_finished: bool
    rule_profile: RuleProfile
    length: MatchLength
    def __init__(self, table_id: _Optional[str] = ..., match_id: _Optional[str] = ..., hand_no: _Optional[int] = ..., seat: _Optional[int] = ..., dealer: _Optional[int] = ..., prevailing_wind: _Optional[_Union[Tile, str]] = ..., concealed: _Optional[_Iterable[_Union[Tile, str]]] = ..., drawn: _Optional[_Union[Tile, str]] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., wall_count: _Optional[int] = ..., current_seat: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., last_discard: _Optional[_Union[Tile, str]] = ..., last_discarder: _Optional[int] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., decision_id: _Optional[int] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., time_bank: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., last_event: _Optional[_Union[Event, _Mapping]] = ..., settlement: _Optional[_Union[Settlement, _Mapping]] = ..., match_finished: _Optional[bool] = ..., rule_profile: _Optional[_Union[RuleProfile, _Mapping]] = ..., length: _Optional[_Union[MatchLength, _Mapping]] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("rank", "player_id", "player_name", "points", "hands_won", "self_draw_wins", "hands_dealt_in", "best_match_points", "hands_played", "matches_played", "kong_points", "penalty_points", "placement_points", "replacement_points", "award_points", "correction_points")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    HANDS_WON_FIELD_NUMBER: _ClassVar[int]
    SELF_DRAW_WINS_FIELD_NUMBER: _ClassVar[int]
    HANDS_DEALT_IN_FIELD_NUMBER: _ClassVar[int]
    BEST_MATCH_POINTS_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    MATCHES_PLAYED_FIELD_NUMBER: _ClassVar[int]
    KONG_POINTS_FIELD_NUMBER: _ClassVar[int]
    PENALTY_POINTS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_POINTS_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENT_POINTS_FIELD_NUMBER: _ClassVar[int]
    AWARD_POINTS_FIELD_NUMBER: _ClassVar[int]
    CORRECTION_POINTS_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    player_name: str
    points: int
    hands_won: int
    self_draw_wins: int
    hands_dealt_in: int
    best_match_points: int
    hands_played: int
    matches_played: int
    kong_points: int
    penalty_points: int
    placement_points: int
    replacement_points: int
    award_points: int
    correction_points: int
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., player_name: _Optional[str] = ..., points: _Optional[int] = ..., hands_won: _Optional[int] = ..., self_draw_wins: _Optional[int] = ..., hands_dealt_in: _Optional[int] = ..., best_match_points: _Optional[int] = ..., hands_played: _Optional[int] = ..., matches_played: _Optional[int] = ..., kong_points: _Optional[int] = ..., penalty_points: _Optional[int] = ..., placement_points: _Optional[int] = ..., replacement_points: _Optional[int] = ..., award_points: _Optional[int] = ..., correction_points: _Optional[int] = ...) -> None: ...
