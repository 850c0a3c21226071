import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from hebei.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SeatAssignment(_message.Message):
    __slots__ = ("seat", "player_id", "player_name", "kind", "seat_token", "bot_policy", "bot_level")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_POLICY_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    player_name: str
    kind: _types_pb2.SeatKind
    seat_token: str
    bot_policy: str
    bot_level: int
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., player_name: _Optional[str] = ..., kind: _Optional[_Union[_types_pb2.SeatKind, str]] = ..., seat_token: _Optional[str] = ..., bot_policy: _Optional[str] = ..., bot_level: _Optional[int] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "player_id", "player_name", "kind", "connected", "auto_played", "score", "played_by", "person_joined")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    AUTO_PLAYED_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    PLAYED_BY_FIELD_NUMBER: _ClassVar[int]
    PERSON_JOINED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    player_name: str
    kind: _types_pb2.SeatKind
    connected: bool
    auto_played: bool
    score: int
    played_by: str
    person_joined: bool
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., player_name: _Optional[str] = ..., kind: _Optional[_Union[_types_pb2.SeatKind, str]] = ..., connected: _Optional[bool] = ..., auto_played: _Optional[bool] = ..., score: _Optional[int] = ..., played_by: _Optional[str] = ..., person_joined: _Optional[bool] = ...) -> None: ...

class ReplaceSeatRequest(_message.Message):
    __slots__ = ("match_id", "seat", "seat_token", "played_by", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYED_BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    seat_token: str
    played_by: str
    reason: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., played_by: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReplaceSeatResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: MatchInfo
    def __init__(self, match: _Optional[_Union[MatchInfo, _Mapping]] = ...) -> None: ...

class ConcludeMatchRequest(_message.Message):
    __slots__ = ("match_id", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    reason: str
    def __init__(self, match_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ConcludeMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: MatchInfo
    def __init__(self, match: _Optional[_Union[MatchInfo, _Mapping]] = ...) -> None: ...

class MatchInfo(_message.Message):
    __slots__ = ("table_id", "match_id", "tournament_id", "round_no", "status", "hand_no", "hands_played", "seats", "rule_profile", "length", "time_control", "opened_at", "ended_at", "seed", "event_count", "evaluation", "paused", "ready_deadline", "concluding", "results_hidden")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    HAND_NO_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RULE_PROFILE_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    OPENED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    EVENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    EVALUATION_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    READY_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    CONCLUDING_FIELD_NUMBER: _ClassVar[int]
    RESULTS_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    match_id: str
    tournament_id: str
    round_no: int
    status: _types_pb2.MatchStatus
    hand_no: int
    hands_played: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    rule_profile: _types_pb2.RuleProfile
    length: _types_pb2.MatchLength
    time_control: _types_pb2.TimeControl
    opened_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    seed: int
    event_count: int
    evaluation: bool
    paused: bool
    ready_deadline: _timestamp_pb2.Timestamp
    concluding: bool
    results_hidden: bool
    def __init__(self, table_id: _Optional[str] = ..., match_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., round_no: _Optional[int] = ..., status: _Optional[_Union[_types_pb2.MatchStatus, str]] = ..., hand_no: _Optional[int] = ..., hands_played: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., rule_profile: _Optional[_Union[_types_pb2.RuleProfile, _Mapping]] = ..., length: _Optional[_Union[_types_pb2.MatchLength, _Mapping]] = ..., time_control: _Optional[_Union[_types_pb2.TimeControl, _Mapping]] = ..., opened_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., seed: _Optional[int] = ..., event_count: _Optional[int] = ..., evaluation: _Optional[bool] = ..., paused: _Optional[bool] = ..., ready_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., concluding: _Optional[bool] = ..., results_hidden: _Optional[bool] = ...) -> None: ...

class OpenMatchRequest(_message.Message):
    __slots__ = ("table_id", "match_id", "tournament_id", "round_no", "rule_profile", "length", "seats", "time_control", "seed", "evaluation", "results_hidden")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    RULE_PROFILE_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    EVALUATION_FIELD_NUMBER: _ClassVar[int]
    RESULTS_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    match_id: str
    tournament_id: str
    round_no: int
    rule_profile: _types_pb2.RuleProfile
    length: _types_pb2.MatchLength
    seats: _containers.RepeatedCompositeFieldContainer[SeatAssignment]
    time_control: _types_pb2.TimeControl
    seed: int
    evaluation: bool
    results_hidden: bool
    def __init__(self, table_id: _Optional[str] = ..., match_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., round_no: _Optional[int] = ..., rule_profile: _Optional[_Union[_types_pb2.RuleProfile, _Mapping]] = ..., length: _Optional[_Union[_types_pb2.MatchLength, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatAssignment, _Mapping]]] = ..., time_control: _Optional[_Union[_types_pb2.TimeControl, _Mapping]] = ..., seed: _Optional[int] = ..., evaluation: _Optional[bool] = ..., results_hidden: _Optional[bool] = ...) -> None: ...

class OpenMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: MatchInfo
    def __init__(self, match: _Optional[_Union[MatchInfo, _Mapping]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: MatchInfo
    def __init__(self, match: _Optional[_Union[MatchInfo, _Mapping]] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ("tournament_id", "status", "page_size", "page_token")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    status: _types_pb2.MatchStatus
    page_size: int
    page_token: str
    def __init__(self, tournament_id: _Optional[str] = ..., status: _Optional[_Union[_types_pb2.MatchStatus, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchInfo]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchInfo, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class Join(_message.Message):
    __slots__ = ("match_id", "seat", "seat_token", "client_name", "decisions_only", "bot")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_ONLY_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    seat_token: str
    client_name: str
    decisions_only: bool
    bot: bool
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., client_name: _Optional[str] = ..., decisions_only: _Optional[bool] = ..., bot: _Optional[bool] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("join", "action")
    JOIN_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    join: Join
    action: _types_pb2.Action
    def __init__(self, join: _Optional[_Union[Join, _Mapping]] = ..., action: _Optional[_Union[_types_pb2.Action, _Mapping]] = ...) -> None: ...

class ActionRejected(_message.Message):
    __slots__ = ("decision_id", "code", "message")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    code: str
    message: str
    def __init__(self, decision_id: _Optional[int] = ..., code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("observation", "rejected")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    observation: _types_pb2.Observation
    rejected: ActionRejected
    def __init__(self, observation: _Optional[_Union[_types_pb2.Observation, _Mapping]] = ..., rejected: _Optional[_Union[ActionRejected, _Mapping]] = ...) -> None: ...

class SpectateRequest(_message.Message):
    __slots__ = ("match_id", "from_seq")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    from_seq: int
    def __init__(self, match_id: _Optional[str] = ..., from_seq: _Optional[int] = ...) -> None: ...

class SpectateResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _types_pb2.Event
    def __init__(self, event: _Optional[_Union[_types_pb2.Event, _Mapping]] = ...) -> None: ...

class DissolveRequest(_message.Message):
    __slots__ = ("match_id", "reason", "only_if_no_person_joined")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ONLY_IF_NO_PERSON_JOINED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    reason: str
    only_if_no_person_joined: bool
    def __init__(self, match_id: _Optional[str] = ..., reason: _Optional[str] = ..., only_if_no_person_joined: _Optional[bool] = ...) -> None: ...

class DissolveResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: MatchInfo
    def __init__(self, match: _Optional[_Union[MatchInfo, _Mapping]] = ...) -> None: ...

class RevealMatchResultsRequest(_message.Message):
    __slots__ = ("tournament_id", "round_no")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    round_no: int
    def __init__(self, tournament_id: _Optional[str] = ..., round_no: _Optional[int] = ...) -> None: ...

class RevealMatchResultsResponse(_message.Message):
    __slots__ = ("revealed",)
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    revealed: int
    def __init__(self, revealed: _Optional[int] = ...) -> None: ...
