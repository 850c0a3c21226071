from hebei.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListPoliciesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PolicyLevel(_message.Message):
    __slots__ = ("level", "description")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    level: int
    description: str
    def __init__(self, level: _Optional[int] = ..., description: _Optional[str] = ...) -> None: ...

class PolicyInfo(_message.Message):
    __slots__ = ("name", "description", "levels", "default_level")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    levels: _containers.RepeatedCompositeFieldContainer[PolicyLevel]
    default_level: int
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., levels: _Optional[_Iterable[_Union[PolicyLevel, _Mapping]]] = ..., default_level: _Optional[int] = ...) -> None: ...

class ListPoliciesResponse(_message.Message):
    __slots__ = ("policies",)
    POLICIES_FIELD_NUMBER: _ClassVar[int]
    policies: _containers.RepeatedCompositeFieldContainer[PolicyInfo]
    def __init__(self, policies: _Optional[_Iterable[_Union[PolicyInfo, _Mapping]]] = ...) -> None: ...

class SuggestRequest(_message.Message):
    __slots__ = ("observation", "policy", "level", "seed")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    observation: _types_pb2.Observation
    policy: str
    level: int
    seed: int
    def __init__(self, observation: _Optional[_Union[_types_pb2.Observation, _Mapping]] = ..., policy: _Optional[str] = ..., level: _Optional[int] = ..., seed: _Optional[int] = ...) -> None: ...

class TileCount(_message.Message):
    __slots__ = ("tile", "count")
    TILE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    tile: _types_pb2.Tile
    count: int
    def __init__(self, tile: _Optional[_Union[_types_pb2.Tile, str]] = ..., count: _Optional[int] = ...) -> None: ...

class Suggestion(_message.Message):
    __slots__ = ("rank", "action", "shanten_after", "useful_tiles", "useful_unseen", "danger", "expected_value", "reason", "next_discard")
    RANK_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SHANTEN_AFTER_FIELD_NUMBER: _ClassVar[int]
    USEFUL_TILES_FIELD_NUMBER: _ClassVar[int]
    USEFUL_UNSEEN_FIELD_NUMBER: _ClassVar[int]
    DANGER_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VALUE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    NEXT_DISCARD_FIELD_NUMBER: _ClassVar[int]
    rank: int
    action: _types_pb2.Action
    shanten_after: int
    useful_tiles: _containers.RepeatedCompositeFieldContainer[TileCount]
    useful_unseen: int
    danger: float
    expected_value: float
    reason: str
    next_discard: _types_pb2.Action
    def __init__(self, rank: _Optional[int] = ..., action: _Optional[_Union[_types_pb2.Action, _Mapping]] = ..., shanten_after: _Optional[int] = ..., useful_tiles: _Optional[_Iterable[_Union[TileCount, _Mapping]]] = ..., useful_unseen: _Optional[int] = ..., danger: _Optional[float] = ..., expected_value: _Optional[float] = ..., reason: _Optional[str] = ..., next_discard: _Optional[_Union[_types_pb2.Action, _Mapping]] = ...) -> None: ...

class SuggestResponse(_message.Message):
    __slots__ = ("policy", "level", "suggestions")
    POLICY_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    SUGGESTIONS_FIELD_NUMBER: _ClassVar[int]
    policy: str
    level: int
    suggestions: _containers.RepeatedCompositeFieldContainer[Suggestion]
    def __init__(self, policy: _Optional[str] = ..., level: _Optional[int] = ..., suggestions: _Optional[_Iterable[_Union[Suggestion, _Mapping]]] = ...) -> None: ...

class ReviewRequest(_message.Message):
    __slots__ = ("log_json", "match_id", "seat", "level", "max_differences")
    LOG_JSON_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    MAX_DIFFERENCES_FIELD_NUMBER: _ClassVar[int]
    log_json: str
    match_id: str
    seat: int
    level: int
    max_differences: int
    def __init__(self, log_json: _Optional[str] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., level: _Optional[int] = ..., max_differences: _Optional[int] = ...) -> None: ...

class ReviewedDecision(_message.Message):
    __slots__ = ("hand_no", "turn", "played", "expert", "reason", "cost", "concealed", "claimed_tile")
    HAND_NO_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    EXPERT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    CONCEALED_FIELD_NUMBER: _ClassVar[int]
    CLAIMED_TILE_FIELD_NUMBER: _ClassVar[int]
    hand_no: int
    turn: int
    played: _types_pb2.Action
    expert: _types_pb2.Action
    reason: str
    cost: float
    concealed: _containers.RepeatedScalarFieldContainer[_types_pb2.Tile]
    claimed_tile: _types_pb2.Tile
    def __init__(self, hand_no: _Optional[int] = ..., turn: _Optional[int] = ..., played: _Optional[_Union[_types_pb2.Action, _Mapping]] = ..., expert: _Optional[_Union[_types_pb2.Action, _Mapping]] = ..., reason: _Optional[str] = ..., cost: _Optional[float] = ..., concealed: _Optional[_Iterable[_Union[_types_pb2.Tile, str]]] = ..., claimed_tile: _Optional[_Union[_types_pb2.Tile, str]] = ...) -> None: ...

class ReviewResponse(_message.Message):
    __slots__ = ("seat", "level", "hands", "decisions", "agreed", "agreement", "total_cost", "auto_played", "differences", "truncated")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    AGREED_FIELD_NUMBER: _ClassVar[int]
    AGREEMENT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COST_FIELD_NUMBER: _ClassVar[int]
    AUTO_PLAYED_FIELD_NUMBER: _ClassVar[int]
    DIFFERENCES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    level: int
    hands: int
    decisions: int
    agreed: int
    agreement: float
    total_cost: float
    auto_played: int
    differences: _containers.RepeatedCompositeFieldContainer[ReviewedDecision]
    truncated: bool
    def __init__(self, seat: _Optional[int] = ..., level: _Optional[int] = ..., hands: _Optional[int] = ..., decisions: _Optional[int] = ..., agreed: _Optional[int] = ..., agreement: _Optional[float] = ..., total_cost: _Optional[float] = ..., auto_played: _Optional[int] = ..., differences: _Optional[_Iterable[_Union[ReviewedDecision, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class SeatTask(_message.Message):
    __slots__ = ("target", "match_id", "seat", "seat_token", "policy", "level", "seed", "pace", "tls", "sent_at")
    TARGET_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    PACE_FIELD_NUMBER: _ClassVar[int]
    TLS_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    target: str
    match_id: str
    seat: int
    seat_token: str
    policy: str
    level: int
    seed: int
    pace: float
    tls: bool
    sent_at: float
    def __init__(self, target: _Optional[str] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., policy: _Optional[str] = ..., level: _Optional[int] = ..., seed: _Optional[int] = ..., pace: _Optional[float] = ..., tls: _Optional[bool] = ..., sent_at: _Optional[float] = ...) -> None: ...
