import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from hebei.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InactivePlayers(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INACTIVE_PLAYERS_UNSPECIFIED: _ClassVar[InactivePlayers]
    INACTIVE_PLAYERS_RANKED_LAST: _ClassVar[InactivePlayers]
    INACTIVE_PLAYERS_LEFT_OUT: _ClassVar[InactivePlayers]

class PlayerStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLAYER_STATUS_UNSPECIFIED: _ClassVar[PlayerStatus]
    PLAYER_STATUS_ACTIVE: _ClassVar[PlayerStatus]
    PLAYER_STATUS_WITHDRAWN: _ClassVar[PlayerStatus]
    PLAYER_STATUS_NO_SHOW: _ClassVar[PlayerStatus]
    PLAYER_STATUS_REMOVED: _ClassVar[PlayerStatus]

class SeatingMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEATING_MODE_UNSPECIFIED: _ClassVar[SeatingMode]
    SEATING_MODE_SWISS: _ClassVar[SeatingMode]
    SEATING_MODE_RANDOM: _ClassVar[SeatingMode]
    SEATING_MODE_SCHEDULE: _ClassVar[SeatingMode]
    SEATING_MODE_DUPLICATE: _ClassVar[SeatingMode]

class ReplacedMatchCounting(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPLACED_MATCH_COUNTING_UNSPECIFIED: _ClassVar[ReplacedMatchCounting]
    REPLACED_MATCH_COUNTING_AS_PLAYED: _ClassVar[ReplacedMatchCounting]
    REPLACED_MATCH_COUNTING_FIXED: _ClassVar[ReplacedMatchCounting]

class TieBreak(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIE_BREAK_UNSPECIFIED: _ClassVar[TieBreak]
    TIE_BREAK_HANDS_WON: _ClassVar[TieBreak]
    TIE_BREAK_BEST_MATCH: _ClassVar[TieBreak]
    TIE_BREAK_FEWER_DEALT_IN: _ClassVar[TieBreak]
    TIE_BREAK_SELF_DRAWS: _ClassVar[TieBreak]
    TIE_BREAK_SEED_DRAW: _ClassVar[TieBreak]

class TournamentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATUS_UNSPECIFIED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_REGISTRATION: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_RUNNING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_PAUSED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FINISHED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_CANCELLED: _ClassVar[TournamentStatus]

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
    TOURNAMENT_EVENT_TYPE_CANCELLED: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_PROGRESS: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_OPERATOR_ACTION: _ClassVar[TournamentEventType]
    TOURNAMENT_EVENT_TYPE_TABLE_OPENED: _ClassVar[TournamentEventType]

class QuickPlayStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    QUICK_PLAY_STATUS_UNSPECIFIED: _ClassVar[QuickPlayStatus]
    QUICK_PLAY_STATUS_QUEUED: _ClassVar[QuickPlayStatus]
    QUICK_PLAY_STATUS_SEATED: _ClassVar[QuickPlayStatus]
    QUICK_PLAY_STATUS_STARTED: _ClassVar[QuickPlayStatus]
INACTIVE_PLAYERS_UNSPECIFIED: InactivePlayers
INACTIVE_PLAYERS_RANKED_LAST: InactivePlayers
INACTIVE_PLAYERS_LEFT_OUT: InactivePlayers
PLAYER_STATUS_UNSPECIFIED: PlayerStatus
PLAYER_STATUS_ACTIVE: PlayerStatus
PLAYER_STATUS_WITHDRAWN: PlayerStatus
PLAYER_STATUS_NO_SHOW: PlayerStatus
PLAYER_STATUS_REMOVED: PlayerStatus
SEATING_MODE_UNSPECIFIED: SeatingMode
SEATING_MODE_SWISS: SeatingMode
SEATING_MODE_RANDOM: SeatingMode
SEATING_MODE_SCHEDULE: SeatingMode
SEATING_MODE_DUPLICATE: SeatingMode
REPLACED_MATCH_COUNTING_UNSPECIFIED: ReplacedMatchCounting
REPLACED_MATCH_COUNTING_AS_PLAYED: ReplacedMatchCounting
REPLACED_MATCH_COUNTING_FIXED: ReplacedMatchCounting
TIE_BREAK_UNSPECIFIED: TieBreak
TIE_BREAK_HANDS_WON: TieBreak
TIE_BREAK_BEST_MATCH: TieBreak
TIE_BREAK_FEWER_DEALT_IN: TieBreak
TIE_BREAK_SELF_DRAWS: TieBreak
TIE_BREAK_SEED_DRAW: TieBreak
TOURNAMENT_STATUS_UNSPECIFIED: TournamentStatus
TOURNAMENT_STATUS_REGISTRATION: TournamentStatus
TOURNAMENT_STATUS_RUNNING: TournamentStatus
TOURNAMENT_STATUS_PAUSED: TournamentStatus
TOURNAMENT_STATUS_FINISHED: TournamentStatus
TOURNAMENT_STATUS_CANCELLED: TournamentStatus
TOURNAMENT_EVENT_TYPE_UNSPECIFIED: TournamentEventType
TOURNAMENT_EVENT_TYPE_SNAPSHOT: TournamentEventType
TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED: TournamentEventType
TOURNAMENT_EVENT_TYPE_ROUND_SEATED: TournamentEventType
TOURNAMENT_EVENT_TYPE_MATCH_FINISHED: TournamentEventType
TOURNAMENT_EVENT_TYPE_ROUND_FINISHED: TournamentEventType
TOURNAMENT_EVENT_TYPE_PAUSED: TournamentEventType
TOURNAMENT_EVENT_TYPE_RESUMED: TournamentEventType
TOURNAMENT_EVENT_TYPE_FINISHED: TournamentEventType
TOURNAMENT_EVENT_TYPE_CANCELLED: TournamentEventType
TOURNAMENT_EVENT_TYPE_PROGRESS: TournamentEventType
TOURNAMENT_EVENT_TYPE_OPERATOR_ACTION: TournamentEventType
TOURNAMENT_EVENT_TYPE_TABLE_OPENED: TournamentEventType
QUICK_PLAY_STATUS_UNSPECIFIED: QuickPlayStatus
QUICK_PLAY_STATUS_QUEUED: QuickPlayStatus
QUICK_PLAY_STATUS_SEATED: QuickPlayStatus
QUICK_PLAY_STATUS_STARTED: QuickPlayStatus

class TournamentConfig(_message.Message):
    __slots__ = ("name", "rule_profile", "length", "time_control", "rounds", "filler_bot_policy", "filler_bot_level", "seed", "max_players", "seating", "last_registration_round", "replaced_match", "replaced_match_points", "hide_round_results", "tie_breaks", "placement_points", "stall_timeout", "replace_absent_after", "registration_code", "scheduled_start", "check_in_window", "round_break", "round_time_limit", "no_show_limit", "inactive_players", "hide_last_rounds")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULE_PROFILE_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    FILLER_BOT_POLICY_FIELD_NUMBER: _ClassVar[int]
    FILLER_BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEATING_FIELD_NUMBER: _ClassVar[int]
    LAST_REGISTRATION_ROUND_FIELD_NUMBER: _ClassVar[int]
    REPLACED_MATCH_FIELD_NUMBER: _ClassVar[int]
    REPLACED_MATCH_POINTS_FIELD_NUMBER: _ClassVar[int]
    HIDE_ROUND_RESULTS_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAKS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_POINTS_FIELD_NUMBER: _ClassVar[int]
    STALL_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    REPLACE_ABSENT_AFTER_FIELD_NUMBER: _ClassVar[int]
    REGISTRATION_CODE_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_START_FIELD_NUMBER: _ClassVar[int]
    CHECK_IN_WINDOW_FIELD_NUMBER: _ClassVar[int]
    ROUND_BREAK_FIELD_NUMBER: _ClassVar[int]
    ROUND_TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    NO_SHOW_LIMIT_FIELD_NUMBER: _ClassVar[int]
    INACTIVE_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HIDE_LAST_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    rule_profile: _types_pb2.RuleProfile
    length: _types_pb2.MatchLength
    time_control: _types_pb2.TimeControl
    rounds: int
    filler_bot_policy: str
    filler_bot_level: int
    seed: int
    max_players: int
    seating: SeatingMode
    last_registration_round: int
    replaced_match: ReplacedMatchCounting
    replaced_match_points: int
    hide_round_results: bool
    tie_breaks: _containers.RepeatedScalarFieldContainer[TieBreak]
    placement_points: _containers.RepeatedScalarFieldContainer[int]
    stall_timeout: _duration_pb2.Duration
    replace_absent_after: _duration_pb2.Duration
    registration_code: str
    scheduled_start: _timestamp_pb2.Timestamp
    check_in_window: _duration_pb2.Duration
    round_break: _duration_pb2.Duration
    round_time_limit: _duration_pb2.Duration
    no_show_limit: int
    inactive_players: InactivePlayers
    hide_last_rounds: int
    def __init__(self, name: _Optional[str] = ..., rule_profile: _Optional[_Union[_types_pb2.RuleProfile, _Mapping]] = ..., length: _Optional[_Union[_types_pb2.MatchLength, _Mapping]] = ..., time_control: _Optional[_Union[_types_pb2.TimeControl, _Mapping]] = ..., rounds: _Optional[int] = ..., filler_bot_policy: _Optional[str] = ..., filler_bot_level: _Optional[int] = ..., seed: _Optional[int] = ..., max_players: _Optional[int] = ..., seating: _Optional[_Union[SeatingMode, str]] = ..., last_registration_round: _Optional[int] = ..., replaced_match: _Optional[_Union[ReplacedMatchCounting, str]] = ..., replaced_match_points: _Optional[int] = ..., hide_round_results: _Optional[bool] = ..., tie_breaks: _Optional[_Iterable[_Union[TieBreak, str]]] = ..., placement_points: _Optional[_Iterable[int]] = ..., stall_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., replace_absent_after: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., registration_code: _Optional[str] = ..., scheduled_start: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., check_in_window: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., round_break: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., round_time_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., no_show_limit: _Optional[int] = ..., inactive_players: _Optional[_Union[InactivePlayers, str]] = ..., hide_last_rounds: _Optional[int] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("player_id", "name", "kind", "bot_policy", "bot_level", "removed", "filler", "rating_id", "withdrawn", "first_round", "replaced_by", "status", "status_reason", "missed_rounds", "checked_in")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    BOT_POLICY_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    FILLER_FIELD_NUMBER: _ClassVar[int]
    RATING_ID_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWN_FIELD_NUMBER: _ClassVar[int]
    FIRST_ROUND_FIELD_NUMBER: _ClassVar[int]
    REPLACED_BY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STATUS_REASON_FIELD_NUMBER: _ClassVar[int]
    MISSED_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    CHECKED_IN_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    name: str
    kind: _types_pb2.SeatKind
    bot_policy: str
    bot_level: int
    removed: bool
    filler: bool
    rating_id: str
    withdrawn: bool
    first_round: int
    replaced_by: str
    status: PlayerStatus
    status_reason: str
    missed_rounds: _containers.RepeatedScalarFieldContainer[int]
    checked_in: bool
    def __init__(self, player_id: _Optional[str] = ..., name: _Optional[str] = ..., kind: _Optional[_Union[_types_pb2.SeatKind, str]] = ..., bot_policy: _Optional[str] = ..., bot_level: _Optional[int] = ..., removed: _Optional[bool] = ..., filler: _Optional[bool] = ..., rating_id: _Optional[str] = ..., withdrawn: _Optional[bool] = ..., first_round: _Optional[int] = ..., replaced_by: _Optional[str] = ..., status: _Optional[_Union[PlayerStatus, str]] = ..., status_reason: _Optional[str] = ..., missed_rounds: _Optional[_Iterable[int]] = ..., checked_in: _Optional[bool] = ...) -> None: ...

class PublicSeat(_message.Message):
    __slots__ = ("seat", "player_id", "player_name", "kind", "played_by")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PLAYED_BY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    player_name: str
    kind: _types_pb2.SeatKind
    played_by: str
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., player_name: _Optional[str] = ..., kind: _Optional[_Union[_types_pb2.SeatKind, str]] = ..., played_by: _Optional[str] = ...) -> None: ...

class TableAssignment(_message.Message):
    __slots__ = ("round_no", "table_id", "match_id", "seats", "status", "duplicate_group", "hands_played", "dissolved_reason")
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_GROUP_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    DISSOLVED_REASON_FIELD_NUMBER: _ClassVar[int]
    round_no: int
    table_id: str
    match_id: str
    seats: _containers.RepeatedCompositeFieldContainer[PublicSeat]
    status: _types_pb2.MatchStatus
    duplicate_group: int
    hands_played: int
    dissolved_reason: str
    def __init__(self, round_no: _Optional[int] = ..., table_id: _Optional[str] = ..., match_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[PublicSeat, _Mapping]]] = ..., status: _Optional[_Union[_types_pb2.MatchStatus, str]] = ..., duplicate_group: _Optional[int] = ..., hands_played: _Optional[int] = ..., dissolved_reason: _Optional[str] = ...) -> None: ...

class SeatingQuality(_message.Message):
    __slots__ = ("repeat_pairs", "consecutive_repeats", "max_pair_meetings", "wind_spread", "standings_spread", "deadline_hit", "seconds")
    REPEAT_PAIRS_FIELD_NUMBER: _ClassVar[int]
    CONSECUTIVE_REPEATS_FIELD_NUMBER: _ClassVar[int]
    MAX_PAIR_MEETINGS_FIELD_NUMBER: _ClassVar[int]
    WIND_SPREAD_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_SPREAD_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_HIT_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    repeat_pairs: int
    consecutive_repeats: int
    max_pair_meetings: int
    wind_spread: int
    standings_spread: float
    deadline_hit: bool
    seconds: float
    def __init__(self, repeat_pairs: _Optional[int] = ..., consecutive_repeats: _Optional[int] = ..., max_pair_meetings: _Optional[int] = ..., wind_spread: _Optional[int] = ..., standings_spread: _Optional[float] = ..., deadline_hit: _Optional[bool] = ..., seconds: _Optional[float] = ...) -> None: ...

class RoundSeating(_message.Message):
    __slots__ = ("round_no", "tables", "quality", "finished")
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    QUALITY_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    round_no: int
    tables: _containers.RepeatedCompositeFieldContainer[TableAssignment]
    quality: SeatingQuality
    finished: bool
    def __init__(self, round_no: _Optional[int] = ..., tables: _Optional[_Iterable[_Union[TableAssignment, _Mapping]]] = ..., quality: _Optional[_Union[SeatingQuality, _Mapping]] = ..., finished: _Optional[bool] = ...) -> None: ...

class Seating(_message.Message):
    __slots__ = ("table_id", "match_id", "seat", "seat_token", "table_endpoint", "round_no")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TABLE_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    match_id: str
    seat: int
    seat_token: str
    table_endpoint: str
    round_no: int
    def __init__(self, table_id: _Optional[str] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., table_endpoint: _Optional[str] = ..., round_no: _Optional[int] = ...) -> None: ...

class Tournament(_message.Message):
    __slots__ = ("tournament_id", "config", "status", "current_round", "players", "tables", "created_at", "started_at", "finished_at", "rounds", "problems", "status_reason", "registration_code_required", "next_round_at", "round_ends_at", "check_in_opens_at", "check_in_closes_at", "hidden_rounds")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_ROUND_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    STATUS_REASON_FIELD_NUMBER: _ClassVar[int]
    REGISTRATION_CODE_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    NEXT_ROUND_AT_FIELD_NUMBER: _ClassVar[int]
    ROUND_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    CHECK_IN_OPENS_AT_FIELD_NUMBER: _ClassVar[int]
    CHECK_IN_CLOSES_AT_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    config: TournamentConfig
    status: TournamentStatus
    current_round: int
    players: _containers.RepeatedCompositeFieldContainer[Player]
    tables: _containers.RepeatedCompositeFieldContainer[TableAssignment]
    created_at: _timestamp_pb2.Timestamp
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    rounds: _containers.RepeatedCompositeFieldContainer[RoundSeating]
    problems: _containers.RepeatedScalarFieldContainer[str]
    status_reason: str
    registration_code_required: bool
    next_round_at: _timestamp_pb2.Timestamp
    round_ends_at: _timestamp_pb2.Timestamp
    check_in_opens_at: _timestamp_pb2.Timestamp
    check_in_closes_at: _timestamp_pb2.Timestamp
    hidden_rounds: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, tournament_id: _Optional[str] = ..., config: _Optional[_Union[TournamentConfig, _Mapping]] = ..., status: _Optional[_Union[TournamentStatus, str]] = ..., current_round: _Optional[int] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., tables: _Optional[_Iterable[_Union[TableAssignment, _Mapping]]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rounds: _Optional[_Iterable[_Union[RoundSeating, _Mapping]]] = ..., problems: _Optional[_Iterable[str]] = ..., status_reason: _Optional[str] = ..., registration_code_required: _Optional[bool] = ..., next_round_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., round_ends_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., check_in_opens_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., check_in_closes_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., hidden_rounds: _Optional[_Iterable[int]] = ...) -> None: ...

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
    __slots__ = ("name", "rating_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RATING_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    rating_id: str
    def __init__(self, name: _Optional[str] = ..., rating_id: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("tournament_id", "person", "bot", "registration_code")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PERSON_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    REGISTRATION_CODE_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    person: PersonEntrant
    bot: BotEntrant
    registration_code: str
    def __init__(self, tournament_id: _Optional[str] = ..., person: _Optional[_Union[PersonEntrant, _Mapping]] = ..., bot: _Optional[_Union[BotEntrant, _Mapping]] = ..., registration_code: _Optional[str] = ...) -> None: ...

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

class CheckInRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id", "player_secret")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SECRET_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    player_secret: str
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., player_secret: _Optional[str] = ...) -> None: ...

class CheckInResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: Player
    def __init__(self, player: _Optional[_Union[Player, _Mapping]] = ...) -> None: ...

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

class TournamentStanding(_message.Message):
    __slots__ = ("standing", "decided_by", "penalty_points", "placement_points", "filler", "withdrawn", "status")
    STANDING_FIELD_NUMBER: _ClassVar[int]
    DECIDED_BY_FIELD_NUMBER: _ClassVar[int]
    PENALTY_POINTS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_POINTS_FIELD_NUMBER: _ClassVar[int]
    FILLER_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    standing: _types_pb2.Standing
    decided_by: str
    penalty_points: int
    placement_points: int
    filler: bool
    withdrawn: bool
    status: PlayerStatus
    def __init__(self, standing: _Optional[_Union[_types_pb2.Standing, _Mapping]] = ..., decided_by: _Optional[str] = ..., penalty_points: _Optional[int] = ..., placement_points: _Optional[int] = ..., filler: _Optional[bool] = ..., withdrawn: _Optional[bool] = ..., status: _Optional[_Union[PlayerStatus, str]] = ...) -> None: ...

class GetStandingsResponse(_message.Message):
    __slots__ = ("standings", "round_no", "ranking", "mismatch", "problems")
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    MISMATCH_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    standings: _containers.RepeatedCompositeFieldContainer[_types_pb2.Standing]
    round_no: int
    ranking: _containers.RepeatedCompositeFieldContainer[TournamentStanding]
    mismatch: bool
    problems: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, standings: _Optional[_Iterable[_Union[_types_pb2.Standing, _Mapping]]] = ..., round_no: _Optional[int] = ..., ranking: _Optional[_Iterable[_Union[TournamentStanding, _Mapping]]] = ..., mismatch: _Optional[bool] = ..., problems: _Optional[_Iterable[str]] = ...) -> None: ...

class WatchTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id", "player_secret", "from_seq")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SECRET_FIELD_NUMBER: _ClassVar[int]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    player_secret: str
    from_seq: int
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., player_secret: _Optional[str] = ..., from_seq: _Optional[int] = ...) -> None: ...

class WatchTournamentResponse(_message.Message):
    __slots__ = ("type", "tournament", "round_no", "tables", "standings", "my_seating", "seq", "quality", "action")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    MY_SEATING_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    QUALITY_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    type: TournamentEventType
    tournament: Tournament
    round_no: int
    tables: _containers.RepeatedCompositeFieldContainer[TableAssignment]
    standings: _containers.RepeatedCompositeFieldContainer[_types_pb2.Standing]
    my_seating: Seating
    seq: int
    quality: SeatingQuality
    action: OperatorAction
    def __init__(self, type: _Optional[_Union[TournamentEventType, str]] = ..., tournament: _Optional[_Union[Tournament, _Mapping]] = ..., round_no: _Optional[int] = ..., tables: _Optional[_Iterable[_Union[TableAssignment, _Mapping]]] = ..., standings: _Optional[_Iterable[_Union[_types_pb2.Standing, _Mapping]]] = ..., my_seating: _Optional[_Union[Seating, _Mapping]] = ..., seq: _Optional[int] = ..., quality: _Optional[_Union[SeatingQuality, _Mapping]] = ..., action: _Optional[_Union[OperatorAction, _Mapping]] = ...) -> None: ...

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

class CancelTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CancelTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class PreviewRoundRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class PreviewRoundResponse(_message.Message):
    __slots__ = ("round",)
    ROUND_FIELD_NUMBER: _ClassVar[int]
    round: RoundSeating
    def __init__(self, round: _Optional[_Union[RoundSeating, _Mapping]] = ...) -> None: ...

class SwapSeatsRequest(_message.Message):
    __slots__ = ("tournament_id", "player_a", "player_b", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_A_FIELD_NUMBER: _ClassVar[int]
    PLAYER_B_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_a: str
    player_b: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., player_a: _Optional[str] = ..., player_b: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class SwapSeatsResponse(_message.Message):
    __slots__ = ("round",)
    ROUND_FIELD_NUMBER: _ClassVar[int]
    round: RoundSeating
    def __init__(self, round: _Optional[_Union[RoundSeating, _Mapping]] = ...) -> None: ...

class GetSeatingRequest(_message.Message):
    __slots__ = ("tournament_id", "round_no", "from_round")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    FROM_ROUND_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    round_no: int
    from_round: int
    def __init__(self, tournament_id: _Optional[str] = ..., round_no: _Optional[int] = ..., from_round: _Optional[int] = ...) -> None: ...

class GetSeatingResponse(_message.Message):
    __slots__ = ("rounds", "next_round")
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_ROUND_FIELD_NUMBER: _ClassVar[int]
    rounds: _containers.RepeatedCompositeFieldContainer[RoundSeating]
    next_round: int
    def __init__(self, rounds: _Optional[_Iterable[_Union[RoundSeating, _Mapping]]] = ..., next_round: _Optional[int] = ...) -> None: ...

class Penalty(_message.Message):
    __slots__ = ("penalty_id", "tournament_id", "player_id", "points", "reason", "assigned_by", "assigned_at", "cancelled", "cancel_reason", "entry_id")
    PENALTY_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ASSIGNED_BY_FIELD_NUMBER: _ClassVar[int]
    ASSIGNED_AT_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    CANCEL_REASON_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    penalty_id: str
    tournament_id: str
    player_id: str
    points: int
    reason: str
    assigned_by: str
    assigned_at: _timestamp_pb2.Timestamp
    cancelled: bool
    cancel_reason: str
    entry_id: str
    def __init__(self, penalty_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., points: _Optional[int] = ..., reason: _Optional[str] = ..., assigned_by: _Optional[str] = ..., assigned_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., cancelled: _Optional[bool] = ..., cancel_reason: _Optional[str] = ..., entry_id: _Optional[str] = ...) -> None: ...

class AssignPenaltyRequest(_message.Message):
    __slots__ = ("tournament_id", "player_id", "points", "reason", "assigned_by", "request_id")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ASSIGNED_BY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player_id: str
    points: int
    reason: str
    assigned_by: str
    request_id: str
    def __init__(self, tournament_id: _Optional[str] = ..., player_id: _Optional[str] = ..., points: _Optional[int] = ..., reason: _Optional[str] = ..., assigned_by: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class AssignPenaltyResponse(_message.Message):
    __slots__ = ("penalty",)
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    penalty: Penalty
    def __init__(self, penalty: _Optional[_Union[Penalty, _Mapping]] = ...) -> None: ...

class CancelPenaltyRequest(_message.Message):
    __slots__ = ("tournament_id", "penalty_id", "reason", "cancelled_by")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PENALTY_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_BY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    penalty_id: str
    reason: str
    cancelled_by: str
    def __init__(self, tournament_id: _Optional[str] = ..., penalty_id: _Optional[str] = ..., reason: _Optional[str] = ..., cancelled_by: _Optional[str] = ...) -> None: ...

class CancelPenaltyResponse(_message.Message):
    __slots__ = ("penalty",)
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    penalty: Penalty
    def __init__(self, penalty: _Optional[_Union[Penalty, _Mapping]] = ...) -> None: ...

class DissolveTableRequest(_message.Message):
    __slots__ = ("tournament_id", "match_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    match_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., match_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DissolveTableResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: TableAssignment
    def __init__(self, table: _Optional[_Union[TableAssignment, _Mapping]] = ...) -> None: ...

class OperatorAction(_message.Message):
    __slots__ = ("seq", "tournament_id", "action", "actor", "at", "detail", "player_id")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    seq: int
    tournament_id: str
    action: str
    actor: str
    at: _timestamp_pb2.Timestamp
    detail: str
    player_id: str
    def __init__(self, seq: _Optional[int] = ..., tournament_id: _Optional[str] = ..., action: _Optional[str] = ..., actor: _Optional[str] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., detail: _Optional[str] = ..., player_id: _Optional[str] = ...) -> None: ...

class ListOperatorActionsRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class ListOperatorActionsResponse(_message.Message):
    __slots__ = ("actions", "penalties", "corrections")
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    CORRECTIONS_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[OperatorAction]
    penalties: _containers.RepeatedCompositeFieldContainer[Penalty]
    corrections: _containers.RepeatedCompositeFieldContainer[MatchCorrection]
    def __init__(self, actions: _Optional[_Iterable[_Union[OperatorAction, _Mapping]]] = ..., penalties: _Optional[_Iterable[_Union[Penalty, _Mapping]]] = ..., corrections: _Optional[_Iterable[_Union[MatchCorrection, _Mapping]]] = ...) -> None: ...

class Rating(_message.Message):
    __slots__ = ("rating_id", "name", "mu", "sigma", "ordinal", "matches", "rank")
    RATING_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    rating_id: str
    name: str
    mu: float
    sigma: float
    ordinal: float
    matches: int
    rank: int
    def __init__(self, rating_id: _Optional[str] = ..., name: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ..., matches: _Optional[int] = ..., rank: _Optional[int] = ...) -> None: ...

class GetRatingsRequest(_message.Message):
    __slots__ = ("rating_ids", "page_size", "page_token")
    RATING_IDS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    rating_ids: _containers.RepeatedScalarFieldContainer[str]
    page_size: int
    page_token: str
    def __init__(self, rating_ids: _Optional[_Iterable[str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetRatingsResponse(_message.Message):
    __slots__ = ("ratings", "next_page_token")
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]
    next_page_token: str
    def __init__(self, ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class BotSeat(_message.Message):
    __slots__ = ("seat", "seat_token", "policy", "level")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    policy: str
    level: int
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., policy: _Optional[str] = ..., level: _Optional[int] = ...) -> None: ...

class RequestBotsRequest(_message.Message):
    __slots__ = ("match_id", "seats")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seats: _containers.RepeatedCompositeFieldContainer[BotSeat]
    def __init__(self, match_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[BotSeat, _Mapping]]] = ...) -> None: ...

class RequestBotsResponse(_message.Message):
    __slots__ = ("queued",)
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    queued: int
    def __init__(self, queued: _Optional[int] = ...) -> None: ...

class RevealResultsRequest(_message.Message):
    __slots__ = ("tournament_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RevealResultsResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class MatchCorrection(_message.Message):
    __slots__ = ("correction_id", "tournament_id", "match_id", "round_no", "seat_deltas", "player_ids", "reason", "ruled_by", "corrected_at", "entry_id", "undone", "undo_reason")
    CORRECTION_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    SEAT_DELTAS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RULED_BY_FIELD_NUMBER: _ClassVar[int]
    CORRECTED_AT_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    UNDONE_FIELD_NUMBER: _ClassVar[int]
    UNDO_REASON_FIELD_NUMBER: _ClassVar[int]
    correction_id: str
    tournament_id: str
    match_id: str
    round_no: int
    seat_deltas: _containers.RepeatedScalarFieldContainer[int]
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    reason: str
    ruled_by: str
    corrected_at: _timestamp_pb2.Timestamp
    entry_id: str
    undone: bool
    undo_reason: str
    def __init__(self, correction_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., match_id: _Optional[str] = ..., round_no: _Optional[int] = ..., seat_deltas: _Optional[_Iterable[int]] = ..., player_ids: _Optional[_Iterable[str]] = ..., reason: _Optional[str] = ..., ruled_by: _Optional[str] = ..., corrected_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., entry_id: _Optional[str] = ..., undone: _Optional[bool] = ..., undo_reason: _Optional[str] = ...) -> None: ...

class CorrectMatchResultRequest(_message.Message):
    __slots__ = ("tournament_id", "match_id", "seat_deltas", "reason", "ruled_by", "request_id")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_DELTAS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RULED_BY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    match_id: str
    seat_deltas: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    ruled_by: str
    request_id: str
    def __init__(self, tournament_id: _Optional[str] = ..., match_id: _Optional[str] = ..., seat_deltas: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., ruled_by: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class CorrectMatchResultResponse(_message.Message):
    __slots__ = ("correction",)
    CORRECTION_FIELD_NUMBER: _ClassVar[int]
    correction: MatchCorrection
    def __init__(self, correction: _Optional[_Union[MatchCorrection, _Mapping]] = ...) -> None: ...

class UndoCorrectionRequest(_message.Message):
    __slots__ = ("tournament_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class UndoCorrectionResponse(_message.Message):
    __slots__ = ("correction", "penalty")
    CORRECTION_FIELD_NUMBER: _ClassVar[int]
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    correction: MatchCorrection
    penalty: Penalty
    def __init__(self, correction: _Optional[_Union[MatchCorrection, _Mapping]] = ..., penalty: _Optional[_Union[Penalty, _Mapping]] = ...) -> None: ...

class RepairRoundRequest(_message.Message):
    __slots__ = ("tournament_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RepairRoundResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...
