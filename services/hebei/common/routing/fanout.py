"""Calls that span matches (ListTables, RevealMatchResults) over every table replica: they
name no match, so no owner routes them; each of a router's entry addresses is asked at once
and the answers are gathered.

The entries must therefore name every replica for these calls (``hebei up`` lists each one; on
Kubernetes, the headless service's pod addresses). A replica that does not answer is left out
while at least one answers: every replica reads its matches from the shared store, so one
answer already holds them all; the others add the live state of the matches they own (see
:func:`merge_matches`).

- :func:`ask_every_entry`: ``fn(channel, timeout)`` at each entry, in parallel; the answers in
  the entries' order, or the failure when none answered.
- :func:`merge_matches`: the matches of several answers, each once (by match id, the most
  advanced view: the one with the most events), in match id order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc

from hebei.common.routing.router import MatchRouter

__all__ = ["MAX_PARALLEL", "ask_every_entry", "merge_matches"]

T = TypeVar("T")
M = TypeVar("M")
MAX_PARALLEL = 16  # entries asked at once


def ask_every_entry(
    router: MatchRouter, fn: Callable[[grpc.Channel, float], T], timeout: float
) -> list[T]:
    """``fn(channel, timeout)`` at every entry of ``router`` (at once); the answers of those
    that answered, in the entries' order. When none answered: the first failure that is not
    UNAVAILABLE (the call's own answer, e.g. PERMISSION_DENIED), else the first failure."""
    entries = router.entries
    channels = [router.channels.get(address) for address in entries]
    if len(channels) == 1:
        return [fn(channels[0], timeout)]
    answers: list[T] = []
    failures: list[grpc.RpcError] = []
    with ThreadPoolExecutor(min(len(channels), MAX_PARALLEL), "hebei-fanout") as pool:
        futures = [pool.submit(fn, channel, timeout) for channel in channels]
        for future in futures:
            try:
                answers.append(future.result())
            except grpc.RpcError as error:
                failures.append(error)
    if answers:
        return answers
    own = [f for f in failures if _code(f) != grpc.StatusCode.UNAVAILABLE]
    raise (own or failures)[0]


def _code(error: grpc.RpcError) -> Any:
    code = getattr(error, "code", None)
    return code() if callable(code) else None


def merge_matches(answers: Iterable[Iterable[M]]) -> list[M]:
    """Each match once (by ``match_id``), in match id order: of the views the answers give,
    the one with the most events (``event_count``: the owner's live view over a stored row
    another replica read); the first of equals."""
    best: dict[str, M] = {}
    for answer in answers:
        for match in answer:
            key = match.match_id  # type: ignore[attr-defined]
            kept = best.get(key)
            if kept is None or match.event_count > kept.event_count:  # type: ignore[attr-defined]
                best[key] = match
    return [best[key] for key in sorted(best)]
