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

class EntryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENTRY_KIND_UNSPECIFIED: _ClassVar[EntryKind]
    ENTRY_KIND_SETTLEMENT: _ClassVar[EntryKind]
    ENTRY_KIND_REVERSAL: _ClassVar[EntryKind]
    ENTRY_KIND_CORRECTION: _ClassVar[EntryKind]
    ENTRY_KIND_ADJUSTMENT: _ClassVar[EntryKind]

class AdjustmentKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ADJUSTMENT_KIND_UNSPECIFIED: _ClassVar[AdjustmentKind]
    ADJUSTMENT_KIND_PENALTY: _ClassVar[AdjustmentKind]
    ADJUSTMENT_KIND_PLACEMENT: _ClassVar[AdjustmentKind]
    ADJUSTMENT_KIND_REPLACEMENT: _ClassVar[AdjustmentKind]
    ADJUSTMENT_KIND_AWARD: _ClassVar[AdjustmentKind]
    ADJUSTMENT_KIND_CORRECTION: _ClassVar[AdjustmentKind]
ENTRY_KIND_UNSPECIFIED: EntryKind
ENTRY_KIND_SETTLEMENT: EntryKind
ENTRY_KIND_REVERSAL: EntryKind
ENTRY_KIND_CORRECTION: EntryKind
ENTRY_KIND_ADJUSTMENT: EntryKind
ADJUSTMENT_KIND_UNSPECIFIED: AdjustmentKind
ADJUSTMENT_KIND_PENALTY: AdjustmentKind
ADJUSTMENT_KIND_PLACEMENT: AdjustmentKind
ADJUSTMENT_KIND_REPLACEMENT: AdjustmentKind
ADJUSTMENT_KIND_AWARD: AdjustmentKind
ADJUSTMENT_KIND_CORRECTION: AdjustmentKind

class AdjustmentLine(_message.Message):
    __slots__ = ("player_id", "amount")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    amount: int
    def __init__(self, player_id: _Optional[str] = ..., amount: _Optional[int] = ...) -> None: ...

class Adjustment(_message.Message):
    __slots__ = ("idempotency_key", "tournament_id", "round_no", "match_id", "kind", "lines", "reason", "assigned_by")
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_NO_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ASSIGNED_BY_FIELD_NUMBER: _ClassVar[int]
    idempotency_key: str
    tournament_id: str
    round_no: int
    match_id: str
    kind: AdjustmentKind
    lines: _containers.RepeatedCompositeFieldContainer[AdjustmentLine]
    reason: str
    assigned_by: str
    def __init__(self, idempotency_key: _Optional[str] = ..., tournament_id: _Optional[str] = ..., round_no: _Optional[int] = ..., match_id: _Optional[str] = ..., kind: _Optional[_Union[AdjustmentKind, str]] = ..., lines: _Optional[_Iterable[_Union[AdjustmentLine, _Mapping]]] = ..., reason: _Optional[str] = ..., assigned_by: _Optional[str] = ...) -> None: ...

class Posting(_message.Message):
    __slots__ = ("player_id", "seat", "amount", "component")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    seat: int
    amount: int
    component: str
    def __init__(self, player_id: _Optional[str] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ..., component: _Optional[str] = ...) -> None: ...

class LedgerEntry(_message.Message):
    __slots__ = ("entry_id", "kind", "idempotency_key", "settlement", "postings", "reverses_entry_id", "reversed_by_entry_id", "reason", "booked_at", "adjustment")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    POSTINGS_FIELD_NUMBER: _ClassVar[int]
    REVERSES_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    REVERSED_BY_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BOOKED_AT_FIELD_NUMBER: _ClassVar[int]
    ADJUSTMENT_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    kind: EntryKind
    idempotency_key: str
    settlement: _types_pb2.Settlement
    postings: _containers.RepeatedCompositeFieldContainer[Posting]
    reverses_entry_id: str
    reversed_by_entry_id: str
    reason: str
    booked_at: _timestamp_pb2.Timestamp
    adjustment: Adjustment
    def __init__(self, entry_id: _Optional[str] = ..., kind: _Optional[_Union[EntryKind, str]] = ..., idempotency_key: _Optional[str] = ..., settlement: _Optional[_Union[_types_pb2.Settlement, _Mapping]] = ..., postings: _Optional[_Iterable[_Union[Posting, _Mapping]]] = ..., reverses_entry_id: _Optional[str] = ..., reversed_by_entry_id: _Optional[str] = ..., reason: _Optional[str] = ..., booked_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., adjustment: _Optional[_Union[Adjustment, _Mapping]] = ...) -> None: ...

class PostSettlementRequest(_message.Message):
    __slots__ = ("settlement",)
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    settlement: _types_pb2.Settlement
    def __init__(self, settlement: _Optional[_Union[_types_pb2.Settlement, _Mapping]] = ...) -> None: ...

class PostSettlementResponse(_message.Message):
    __slots__ = ("entry_id", "duplicate")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    duplicate: bool
    def __init__(self, entry_id: _Optional[str] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class ReverseEntryRequest(_message.Message):
    __slots__ = ("entry_id", "reason", "corrected")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CORRECTED_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    reason: str
    corrected: _types_pb2.Settlement
    def __init__(self, entry_id: _Optional[str] = ..., reason: _Optional[str] = ..., corrected: _Optional[_Union[_types_pb2.Settlement, _Mapping]] = ...) -> None: ...

class ReverseEntryResponse(_message.Message):
    __slots__ = ("reversal_entry_id", "correction_entry_id")
    REVERSAL_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    CORRECTION_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    reversal_entry_id: str
    correction_entry_id: str
    def __init__(self, reversal_entry_id: _Optional[str] = ..., correction_entry_id: _Optional[str] = ...) -> None: ...

class PostAdjustmentRequest(_message.Message):
    __slots__ = ("adjustment",)
    ADJUSTMENT_FIELD_NUMBER: _ClassVar[int]
    adjustment: Adjustment
    def __init__(self, adjustment: _Optional[_Union[Adjustment, _Mapping]] = ...) -> None: ...

class PostAdjustmentResponse(_message.Message):
    __slots__ = ("entry_id", "duplicate")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    duplicate: bool
    def __init__(self, entry_id: _Optional[str] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class CancelAdjustmentRequest(_message.Message):
    __slots__ = ("entry_id", "reason", "idempotency_key")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    reason: str
    idempotency_key: str
    def __init__(self, entry_id: _Optional[str] = ..., reason: _Optional[str] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class CancelAdjustmentResponse(_message.Message):
    __slots__ = ("reversal_entry_id", "duplicate")
    REVERSAL_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    reversal_entry_id: str
    duplicate: bool
    def __init__(self, reversal_entry_id: _Optional[str] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class LedgerServiceGetStandingsRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class LedgerServiceGetStandingsResponse(_message.Message):
    __slots__ = ("standings",)
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    standings: _containers.RepeatedCompositeFieldContainer[_types_pb2.Standing]
    def __init__(self, standings: _Optional[_Iterable[_Union[_types_pb2.Standing, _Mapping]]] = ...) -> None: ...

class GetHistoryRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "player_id", "table_id", "tournament_id", "match_id")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    player_id: str
    table_id: str
    tournament_id: str
    match_id: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., player_id: _Optional[str] = ..., table_id: _Optional[str] = ..., tournament_id: _Optional[str] = ..., match_id: _Optional[str] = ...) -> None: ...

class GetHistoryResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LedgerEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[LedgerEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class AuditRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class TournamentSum(_message.Message):
    __slots__ = ("tournament_id", "entries", "total")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    entries: int
    total: int
    def __init__(self, tournament_id: _Optional[str] = ..., entries: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...

class AuditResponse(_message.Message):
    __slots__ = ("entries_checked", "postings_checked", "unbalanced_entries", "balance_mismatches", "tournaments", "ok", "problems", "tournaments_checked")
    ENTRIES_CHECKED_FIELD_NUMBER: _ClassVar[int]
    POSTINGS_CHECKED_FIELD_NUMBER: _ClassVar[int]
    UNBALANCED_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    BALANCE_MISMATCHES_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENTS_CHECKED_FIELD_NUMBER: _ClassVar[int]
    entries_checked: int
    postings_checked: int
    unbalanced_entries: int
    balance_mismatches: int
    tournaments: _containers.RepeatedCompositeFieldContainer[TournamentSum]
    ok: bool
    problems: _containers.RepeatedScalarFieldContainer[str]
    tournaments_checked: int
    def __init__(self, entries_checked: _Optional[int] = ..., postings_checked: _Optional[int] = ..., unbalanced_entries: _Optional[int] = ..., balance_mismatches: _Optional[int] = ..., tournaments: _Optional[_Iterable[_Union[TournamentSum, _Mapping]]] = ..., ok: _Optional[bool] = ..., problems: _Optional[_Iterable[str]] = ..., tournaments_checked: _Optional[int] = ...) -> None: ...

class SetResultsHiddenRequest(_message.Message):
    __slots__ = ("tournament_id", "hidden")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    hidden: bool
    def __init__(self, tournament_id: _Optional[str] = ..., hidden: _Optional[bool] = ...) -> None: ...

class SetResultsHiddenResponse(_message.Message):
    __slots__ = ("hidden",)
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    hidden: bool
    def __init__(self, hidden: _Optional[bool] = ...) -> None: ...
