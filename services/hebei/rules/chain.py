"""Logs that can be trusted: a hash chain over the events, each link signed with a key (HMAC).

Every rules event of a match (``match_start``, each hand's events, ``match_end``) is encoded
canonically (:func:`canonical`: JSON with sorted keys, no spaces, UTF-8) and chained::

    hash[0] = sha256(genesis(match_id) || canonical(event[0]))    # genesis: sha256 of the id
    hash[i] = sha256(hash[i-1] || canonical(event[i]))
    mac[i]  = HMAC-SHA256(key, "hebei-log/1\\n" || hash[i])

so each hash covers its event and, through the previous hash, everything before it, and each
event's signature (``mac``) covers the same. An exported event carries its link as a
``"chain"`` record: ``{"prev": hash[i-1], "hash": hash[i], "mac": mac[i]}`` (the first event
of a match log also names its ``match_id``).

Signing every event rather than only each hand's last one costs one HMAC of 32 bytes an
event (about a microsecond) and buys two things: the first event that differs from what the
engine logged is named even when whoever edited the log recomputed the hashes, and the events
of a hand still being played are signed as they are written.

:func:`open_log` checks a log and returns its plain events with a :class:`LogCheck` saying
what was proven. With the key: every event is exactly what the engine logged, in its order
(an edit, a removed, inserted or moved event is named). Without it: only that the chain is
intact, which anyone can recompute after an edit. A log without chain records (exported before
logs were signed, or stripped) proves nothing about who wrote it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hebei.rules.errors import ReplayError

FORMAT = "hebei-log/1"
RECORD = "chain"  # the key of an exported event's chain record
MIN_KEY_CHARS = 32
_HEX = frozenset("0123456789abcdef")


def parse_key(text: str) -> bytes:
    """The signing key from its text form (surrounding whitespace ignored): at least
    :data:`MIN_KEY_CHARS` characters, e.g. ``openssl rand -hex 32``. ValueError otherwise."""
    key = text.strip()
    if len(key) < MIN_KEY_CHARS:
        raise ValueError(
            f"a log key must be at least {MIN_KEY_CHARS} characters (e.g. openssl rand -hex 32),"
            f" got {len(key)}"
        )
    return key.encode("utf-8")


def canonical(event: Mapping) -> bytes:
    """The one byte encoding of an event that its hash covers: JSON with sorted keys, no
    spaces, UTF-8; a round trip through JSON (a file, PostgreSQL's jsonb) keeps it."""
    try:
        text = json.dumps(
            event, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise ReplayError(f"an event that is not plain JSON: {exc}") from None
    return text.encode("utf-8")


def genesis(match_id: str) -> str:
    """The hash a match's chain starts from: its first event is bound to its match id."""
    return hashlib.sha256(f"{FORMAT}\n{match_id}".encode()).hexdigest()


def link(prev: str, event: Mapping) -> str:
    """The hash of ``event`` following the hash ``prev`` (hex)."""
    return hashlib.sha256(bytes.fromhex(prev) + canonical(event)).hexdigest()


def sign(key: bytes, digest: str) -> str:
    """The signature of a link's hash with the operator's key."""
    return hmac.new(key, f"{FORMAT}\n".encode() + bytes.fromhex(digest), hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class Link:
    """One event's place in the chain."""

    prev: str
    hash: str
    mac: str | None = None

    def record(self, match_id: str | None = None) -> dict:
        """The ``"chain"`` record of an exported event."""
        record = {"prev": self.prev, "hash": self.hash}
        if self.mac is not None:
            record["mac"] = self.mac
        if match_id is not None:
            record["match_id"] = match_id
        return record


class Chain:
    """The running chain of one match: :meth:`append` links (and signs) the next event."""

    __slots__ = ("head", "key", "match_id")

    def __init__(self, match_id: str, key: bytes | None = None, head: str | None = None) -> None:
        self.match_id = match_id
        self.key = key
        self.head = genesis(match_id) if head is None else head

    def append(self, event: Mapping) -> Link:
        prev, digest = self.head, link(self.head, event)
        self.head = digest
        return Link(prev, digest, None if self.key is None else sign(self.key, digest))

    def rewind(self, head: str | None) -> None:
        """Go back to ``head`` (None: the start), e.g. when events were dropped unwritten."""
        self.head = genesis(self.match_id) if head is None else head


def seal(events: Sequence[Mapping], match_id: str, key: bytes | None) -> list[dict]:
    """``events`` (a match log from its match_start) as exported: each with its chain record."""
    chain = Chain(match_id, key)
    return [
        {**event, RECORD: chain.append(event).record(match_id if i == 0 else None)}
        for i, event in enumerate(events)
    ]


# ---------------------------------------------------------------------- checking a log


@dataclass(frozen=True, slots=True)
class LogCheck:
    """What checking a log's chain proved (the rules are checked separately)."""

    events: int
    chained: bool  # every event carries a chain record and the chain is intact
    signatures: int  # events carrying a signature
    verified: bool  # a key was given and every event's signature verified with it
    match_id: str | None = None  # a match log's (bound to its chain)

    def summary(self) -> str:
        """One line: what was proven and what was not."""
        if self.verified:
            whose = f" of match {self.match_id}" if self.match_id else ""
            return (
                f"signed by the engine: all {self.events} events{whose} are exactly as the "
                "engine logged them, in their order (every signature verified with the key)"
            )
        if self.chained:
            unsigned = "" if self.signatures else "; the log carries no signatures"
            return (
                "chain intact: no event was edited, removed or moved without recomputing the "
                "hashes, which anyone can do; not proven: that the engine wrote it (give "
                f"--key-file to check the signatures){unsigned}"
            )
        return (
            "UNSIGNED: the log has no hash chain (exported before logs were signed, or "
            "stripped): it is a legal game, but nothing shows the engine played it nor that it "
            "was not edited into another legal game"
        )


def _describe(index: int, event: Mapping) -> str:
    kind = event.get("type", "?")
    seat = event.get("seat")
    tile = event.get("tile")
    parts = [f"event #{index} ({kind}"]
    if seat is not None:
        parts.append(f" of seat {seat}")
    if tile:
        parts.append(f" {tile}")
    return "".join(parts) + ")"


def _record(index: int, event: Mapping, record: object) -> tuple[str, str, str | None]:
    """(prev, hash, mac) of a well-formed chain record."""
    if not isinstance(record, dict):
        raise ReplayError(f"{_describe(index, event)} has a malformed chain record")
    values = []
    for field in ("prev", "hash", "mac"):
        value = record.get(field)
        if value is None and field == "mac":
            values.append(None)
            continue
        if not isinstance(value, str) or len(value) != 64 or not set(value) <= _HEX:
            raise ReplayError(
                f"{_describe(index, event)} has a malformed chain record: {field} is not a hash"
            )
        values.append(value)
    return values[0], values[1], values[2]


def open_log(log: Sequence, key: bytes | None = None) -> tuple[list[dict], LogCheck]:
    """Check ``log``'s chain (and, with ``key``, every signature); return its plain events and
    what was proven. ReplayError names the first event that does not match; with a key, a log
    without signatures is refused (it cannot be verified)."""
    if not isinstance(log, Sequence) or isinstance(log, str | bytes):
        raise ReplayError("a log is a list of events")
    for index, event in enumerate(log):
        if not isinstance(event, dict):
            raise ReplayError(f"event #{index} is not an object: {event!r}")
    records = [event.get(RECORD) for event in log]
    plain = [{k: v for k, v in event.items() if k != RECORD} for event in log]
    if all(record is None for record in records):
        if key is not None:
            raise ReplayError(
                "the log is not signed (no hash chain: exported before logs were signed, or "
                "stripped), so the key cannot verify it"
            )
        return plain, LogCheck(len(log), chained=False, signatures=0, verified=False)
    match_id = _match_id(plain, records)
    links: list[tuple[str, str, str | None]] = []
    for index, (event, record) in enumerate(zip(plain, records, strict=True)):
        if record is None:
            raise ReplayError(
                f"{_describe(index, event)} has no chain record while the others have one: "
                "it was inserted or edited"
            )
        prev, digest, mac = _record(index, event, record)
        if links and prev != links[-1][1]:
            raise ReplayError(
                f"{_describe(index, event)} does not follow event #{index - 1} in the chain: "
                "events were removed, inserted or reordered"
            )
        if link(prev, event) != digest:
            raise ReplayError(
                f"{_describe(index, event)} was edited: it does not hash to its chain record"
            )
        links.append((prev, digest, mac))
    signatures = sum(mac is not None for _prev, _digest, mac in links)
    if key is not None:
        _verify_signatures(plain, links, key)
    return plain, LogCheck(len(log), True, signatures, key is not None, match_id)


def _match_id(plain: list[dict], records: list) -> str | None:
    """A match log's id, checked against where its chain starts; None for a hand log."""
    if not plain or plain[0].get("type") != "match_start":
        return None
    record = records[0]
    match_id = record.get("match_id") if isinstance(record, dict) else None
    if not isinstance(match_id, str) or not match_id:
        raise ReplayError("event #0 (match_start) has no match_id in its chain record")
    if record.get("prev") != genesis(match_id):
        raise ReplayError(f"event #0 (match_start) does not start the chain of match {match_id}")
    return match_id


def _verify_signatures(
    plain: list[dict], links: list[tuple[str, str, str | None]], key: bytes
) -> None:
    good = [
        mac is not None and hmac.compare_digest(sign(key, digest), mac)
        for _prev, digest, mac in links
    ]
    if all(good):
        return
    first = good.index(False)
    event = plain[first]
    if links[first][2] is None:
        raise ReplayError(f"{_describe(first, event)} is not signed")
    if not any(good):
        raise ReplayError(
            "no signature verifies with this key: the log was signed with another key, or "
            f"changed from its first event on ({_describe(first, event)})"
        )
    raise ReplayError(
        f"{_describe(first, event)} is not what the engine logged: its signature does not "
        "verify (the event was changed and the hashes recomputed)"
    )
