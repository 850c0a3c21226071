import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from hebei.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TournamentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATUS_UNSPECIFIED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_REGISTRATION: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_RUNNING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_PAUSED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FINISHED: _ClassVar[TournamentStatus]

class TournamentEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_EVENT_TYPE_UNSPECIFIED: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_SNAPSHOT: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_ROUND_SEATED: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_MATCH_FINISHED: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_ROUND_FINISHED: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_PAUSED: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_RESUMED: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_FINISHED: _ClassVar[TournamentEventType]

class QuickPlayStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    QUICK_PLAY_STATUS_UNSPECIFIED: _ClassVar[QuickPlayStatus]
    QUICK_PLAY_STATUS_QUEUED: _ClassVar[QuickPlayStatus]
    QUICK_PLAY_STATUS_SEATED: _ClassVar[QuickPlayStatus]
    QUICK_PLAY_STATUS_STARTED: _ClassVar[QuickPlayStatus]
TOURNAMENT_STATUS_UNSPECIFIED: TournamentStatus
TOURNAMENT_STATUS_REGISTRATION: TournamentStatus
TOURNAMENT_STATUS_RUNNING: TournamentStatus
TOURNAMENT_STATUS_PAUSED: TournamentStatus
TOURNAMENT_STATUS_FINISHED: TournamentStatus
TOURNAMENT_EVENT_TYPE_UNSPECIFIED: TournamentEventType
TOURNAMENT_EVENT_TYPE_SNAPSHOT: TournamentEventType
TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED: TournamentEventType
TOURNAMENT_EVENT_TYPE_ROUND_SEATED: TournamentEventType
TOURNAMENT_EVENT_TYPE_MATCH_FINISHED: TournamentEventType
TOURNAMENT_EVENT_TYPE_ROUND_FINISHED: TournamentEventType
TOURNAMENT_EVENT_TYPE_PAUSED: TournamentEventType
TOURNAMENT_EVENT_TYPE_RESUMED: TournamentEventType
TOURNAMENT_EVENT_TYPE_FINISHED: TournamentEventType
QUICK_PLAY_STATUS_UNSPECIFIED: QuickPlayStatus
QUICK_PLAY_STATUS_QUEUED: QuickPlayStatus
QUICK_PLAY_STATUS_SEATED: QuickPlayStatus
QUICK_PLAY_STATUS_STARTED: QuickPlayStatus

class TournamentConfig(_message.Message):
    __slots__ = ("name", "rule_profile", "length", "time_control", "rounds", "filler_bot_policy", "filler_bot_level", "seed", "max_players")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULE_PROFILE_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    FILLER_BOT_POLICY_FIELD_NUMBER: _ClassVar[int]
    FILLER_BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    rule_profile: _types_pb2.RuleProfile
    length: _types_pb2.MatchLength
    time_control: _types_pb2.TimeControl
    rounds: int
    filler_bot_policy: str
    filler_bot_level: int
    seed: int
    max_players: int
    def __init__(self, name: _Optional[str] = ..., rule_profile: _Optional[_Union[_types_pb2.RuleProfile, _Mapping]] = ..., length: _Optional[_Union[_types_pb2.MatchLength, _Mapping]] = ..., time_control: _Optional[_Union[_types_pb2.TimeControl, _Mapping]] = ..., rounds: _Optional[int] = ..., filler_bot_policy: _Optional[str] = ..., filler_bot_level: _Optional[int] = ..., seed: _Optional[int] = ..., max_players: _Optional[int] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("player_id", "name", "kind", "bot_policy", "bot_level", "removed", "filler")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    BOT_POLICY_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    FILLER_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    name: str
    kind: _types_pb2.SeatKind
    bot_policy: str
    bot_level: int
    removed: bool
    filler: bool
    def __init__(self, player_id: _Optional[str] = ..., name: _Optional[str] = ..., kind: _Optional[_Union[_types_pb2.SeatKind, str]] = ..., bot_policy: _Optional[str] = ..., bot_level: _Optional[int] = ..., removed: _Optional[bool] = ..., filler: _Optional[bool] = ...) -> None: ...

class PublicSeat(_message.Message):
    __slots__ = ("seat", "player_id", "player_name", "kind")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    player_name: str
    kind: _types_pb2.SeatKind
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., player_name: _Optional[str] = ..., kind: _Optional[_Union[_types_pb2.SeatKind, str]] = ...) -> None: ...

class TableAssignment(_message.Message):
    __slots__ = ("round_no", "table_id", "match_id", "seats", "status")
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    round_no: int
    table_id: str
    match_id: str
    seats: _containers.RepeatedCompositeFieldContainer[PublicSeat]
    status: _types_pb2.MatchStatus
    def __init__(self, round_no: _Optional[int] = ..., table_id: _Optional[str] = ..., match_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[PublicSeat, _Mapping]]] = ..., status: _Optional[_Union[_types_pb2.MatchStatus, str]] = ...) -> None: ...

class Seating(_message.Message):
    __slots__ = ("table_id", "match_id", "seat", "seat_token", "table_endpoint")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TABLE_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    match_id: str
    seat: int
    seat_token: str
    table_endpoint: str
    def __init__(self, table_id: _Optional[str] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., table_endpoint: _Optional[str] = ...) -> None: ...

class Tournament(_message.Message):
    __slots__ = ("tournament_id", "config", "status", "current_round", "players", "tables", "created_at", "started_at", "finished_at")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_ROUND_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    config: TournamentConfig
    status: TournamentStatus
    current_round: int
    players: _containers.RepeatedCompositeFieldContainer[Player]
    tables: _containers.RepeatedCompositeFieldContainer[TableAssignment]
    created_at: _timestamp_pb2.Timestamp
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    def __init__(self, tournament_id: _Optional[str] = ..., config: _Optional[_Union[TournamentConfig, _Mapping]] = ..., status: _Optional[_Union[TournamentStatus, str]] = ..., current_round: _Optional[int] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., tables: _Optional[_Iterable[_Union[TableAssignment, _Mapping]]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("config", "request_id")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    config: TournamentConfig
    request_id: str
    def __init__(self, config: _Optional[_Union[TournamentConfig, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class CreateTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class PersonEntrant(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class BotEntrant(_message.Message):
    __slots__ = ("policy", "level", "name")
    POLICY_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    policy: str
    level: int
    name: str
    def __init__(self, policy: _Optional[str] = ..., level: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class RegisterRequest(_message.Message):
    __slots__ = ("tournament_id", "person", "bot")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PERSON_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    person: PersonEntrant
    bot: BotEntrant
    def __init__(self, tournament_id: _Optional[str] = ..., person: _Optional[_Union[PersonEntrant, _Mapping]] = ..., bot: _Optional[_Union[BotEntrant, _Mapping]] = ...) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ("player", "player_secret")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SECRET_FIELD_NUMBER: _ClassVar[int]
    player: Player
    player_secret: str
    def __init__(self, player: _Optional[_Union[Player, _Mapping]] = ..., player_secret: _Optional[str] = ...) -> None: ...

class UnregisterRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id", "player_secret")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SECRET_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    player_secret: str
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., player_secret: _Optional[str] = ...) -> None: ...

class UnregisterResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class StartTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class StartTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class GetTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class GetStandingsRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class GetStandingsResponse(_message.Message):
    __slots__ = ("standings", "round_no")
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    standings: _containers.RepeatedCompositeFieldContainer[_types_pb2.Standing]
    round_no: int
    def __init__(self, standings: _Optional[_Iterable[_Union[_types_pb2.Standing, _Mapping]]] = ..., round_no: _Optional[int] = ...) -> None: ...

class WatchTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id", "player_secret")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SECRET_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    player_secret: str
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., player_secret: _Optional[str] = ...) -> None: ...

class WatchTournamentResponse(_message.Message):
    __slots__ = ("type", "tournament", "round_no", "tables", "standings", "my_seating")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    MY_SEATING_FIELD_NUMBER: _ClassVar[int]
    type: TournamentEventType
    tournament: Tournament
    round_no: int
    tables: _containers.RepeatedCompositeFieldContainer[TableAssignment]
    standings: _containers.RepeatedCompositeFieldContainer[_types_pb2.Standing]
    my_seating: Seating
    def __init__(self, type: _Optional[_Union[TournamentEventType, str]] = ..., tournament: _Optional[_Union[Tournament, _Mapping]] = ..., round_no: _Optional[int] = ..., tables: _Optional[_Iterable[_Union[TableAssignment, _Mapping]]] = ..., standings: _Optional[_Iterable[_Union[_types_pb2.Standing, _Mapping]]] = ..., my_seating: _Optional[_Union[Seating, _Mapping]] = ...) -> None: ...

class QuickPlayRequest(_message.Message):
    __slots__ = ("name", "rule_profile", "length", "bot_policy", "bot_level")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULE_PROFILE_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    BOT_POLICY_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    name: str
    rule_profile: _types_pb2.RuleProfile
    length: _types_pb2.MatchLength
    bot_policy: str
    bot_level: int
    def __init__(self, name: _Optional[str] = ..., rule_profile: _Optional[_Union[_types_pb2.RuleProfile, _Mapping]] = ..., length: _Optional[_Union[_types_pb2.MatchLength, _Mapping]] = ..., bot_policy: _Optional[str] = ..., bot_level: _Optional[int] = ...) -> None: ...

class QuickPlayResponse(_message.Message):
    __slots__ = ("status", "player_id", "seating", "ready_deadline", "seats")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEATING_FIELD_NUMBER: _ClassVar[int]
    READY_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    status: QuickPlayStatus
    player_id: str
    seating: Seating
    ready_deadline: _timestamp_pb2.Timestamp
    seats: _containers.RepeatedCompositeFieldContainer[PublicSeat]
    def __init__(self, status: _Optional[_Union[QuickPlayStatus, str]] = ..., player_id: _Optional[str] = ..., seating: _Optional[_Union[Seating, _Mapping]] = ..., ready_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[PublicSeat, _Mapping]]] = ...) -> None: ...

class PauseRequest(_message.Message):
    __slots__ = ("tournament_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class PauseResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class ResumeRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class ResumeResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class RemovePlayerRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RemovePlayerResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class MatchSeatResult(_message.Message):
    __slots__ = ("seat", "player_id", "score")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    score: int
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., score: _Optional[int] = ...) -> None: ...

class ReportMatchResultRequest(_message.Message):
    __slots__ = ("match_id", "table_id", "tournament_id", "round_no", "status", "hands_played", "seats", "reason", "ended_at")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    table_id: str
    tournament_id: str
    round_no: int
    status: _types_pb2.MatchStatus
    hands_played: int
    seats: _containers.RepeatedCompositeFieldContainer[MatchSeatResult]
    reason: str
    ended_at: _timestamp_pb2.Timestamp
    def __init__(self, match_id: _Optional[str] = ..., table_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., round_no: _Optional[int] = ..., status: _Optional[_Union[_types_pb2.MatchStatus, str]] = ..., hands_played: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[MatchSeatResult, _Mapping]]] = ..., reason: _Optional[str] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ReportMatchResultResponse(_message.Message):
    __slots__ = ("duplicate",)
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    duplicate: bool
    def __init__(self, duplicate: _Optional[bool] = ...) -> None: ...
