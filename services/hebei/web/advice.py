"""Hints and reviews for people: the bot service's Suggest and Review, as the pages show them.

The gateway computes neither: it asks the bot service (``HEBEI_WEB_BOTSERVICE_ADDRESS``) over
the contracts, as it asks every other service, so the expert's CPU is spent in a process that
scales by replicas and never on the loop that serves the live tables. Without that address, or
with the bot service down, both answer 503 with a one-line message the page shows.

- A **hint** is for the person's own seat only, from the observation the table engine sent
  that seat (the same message the page draws): the bot service sees what a player at the
  table would and nothing more. It is the expert's ranking of the open decision, the best
  :data:`SHOWN`, each with its reason and figures.
- The **bound**: per seat session, at most ``hints_per_minute`` hints computed a minute with a
  burst of ``hint_burst`` (a token bucket), one at a time; asking again about the same
  decision is answered from memory and costs nothing; the gateway has at most
  ``max_advice_calls`` Suggest or Review calls at the bot service at once. Beyond any of
  these: 429 with how long to wait.
- A **review** is of a finished match (its seed is public once it ends), any seat: the bot
  service replays it and compares that seat's decisions with the expert's. A finished match
  never changes, so reviews are kept (:data:`REVIEWS_KEPT`); a client address waits for at
  most ``max_reviews_per_client`` at once, and reviews together take at most half of
  ``max_advice_calls`` (:func:`review_calls`): the rest is kept for seated people's hints.
  Review calls carry the gateway's service token when it has one (the bot service's own pool
  for services: anonymous clients of the bot service never take the web review page's place).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from hebei.common import convert
from hebei.rules.errors import NotationError
from hebei.seatclient.suggestions import SHOWN, action_label
from hebei.v1 import bot_pb2
from hebei.v1 import types_pb2 as pb
from hebei.web.backend import Backend, HttpError
from hebei.web.config import WebConfig
from hebei.web.hub import Counter
from hebei.web.limits import Bucket
from hebei.web.views import tile, tiles

HINT_POLICY = "expert"
HINT_LEVEL = 0  # the expert's default level (3), as ``hebei play --hints``
REVIEW_LEVEL = 0  # the default level, as ``hebei review``
MAX_REVIEW_ROWS = 1000  # the costliest differences shown (the bot service's own bound)
REVIEWS_KEPT = 64
HINTS_KEPT = 4  # decisions remembered per seat session
REVIEW_SUMMARY = ("seat", "level", "hands", "decisions", "agreed", "auto_played", "truncated")


def suggestion_json(message: bot_pb2.Suggestion) -> dict[str, Any]:
    """One ranked option for the page: the action (its kind and tile match the page's buttons
    and hand), a label, the reason and the figures it was decided on."""
    try:
        action = convert.action_from_proto(message.action)
        label = action_label(action)
    except (NotationError, ValueError):
        label = "?"
    then = None
    if message.HasField("next_discard") and message.next_discard.kind:
        try:
            then = action_label(convert.action_from_proto(message.next_discard))
        except (NotationError, ValueError):
            then = None
    return {
        "rank": message.rank,
        "kind": pb.ActionKind.Name(message.action.kind).removeprefix("ACTION_KIND_").lower(),
        "tile": tile(message.action.tile),
        "label": label,
        "then": then,
        "reason": message.reason,
        "shanten_after": message.shanten_after if message.HasField("shanten_after") else None,
        "useful": [{"tile": tile(t.tile), "count": t.count} for t in message.useful_tiles],
        "useful_unseen": message.useful_unseen,
        "danger": round(message.danger, 3) if message.HasField("danger") else None,
        "expected_value": (
            round(message.expected_value, 3) if message.HasField("expected_value") else None
        ),
    }


def review_json(reply: bot_pb2.ReviewResponse, match_id: str) -> dict[str, Any]:
    """A review for the page: the agreement and one row per decision that differs."""
    rows = []
    for d in reply.differences:
        rows.append(
            {
                "hand": d.hand_no,
                "turn": d.turn,
                "concealed": tiles(d.concealed),
                "claimed": tile(d.claimed_tile),
                "played": _label(d.played),
                "expert": _label(d.expert),
                "reason": d.reason,
                "cost": round(d.cost, 2),
            }
        )
    summary = {name: getattr(reply, name) for name in REVIEW_SUMMARY}
    summary["agreement"] = round(reply.agreement, 4)
    summary["total_cost"] = round(reply.total_cost, 2)
    return {"match_id": match_id, **summary, "differences": rows}


def _label(action: pb.Action) -> str:
    try:
        return action_label(convert.action_from_proto(action))
    except (NotationError, ValueError):
        return "?"


def check_open_decision(obs: pb.Observation | None, seat: int) -> pb.Observation:
    """``obs`` if it is seat ``seat``'s own observation with an open decision the person plays;
    HttpError (409, 403) saying why not otherwise."""
    if obs is None:
        raise HttpError(409, "the table has not sent this seat anything yet")
    if obs.seat != seat:  # never: the engine sends a seat its own observation
        raise HttpError(403, "a hint is only for your own seat")
    if not (obs.decision_id and len(obs.legal_actions) > 0):
        raise HttpError(409, "nothing to decide right now: a hint is for your open decision")
    if obs.seat < len(obs.seats) and obs.seats[obs.seat].auto_played:
        raise HttpError(409, "auto-play (托管) plays your seat: take over (t) for a hint")
    return obs


def review_calls(config: WebConfig) -> int:
    """How many of the advice calls reviews may take at once: half, at least one."""
    return max(1, config.max_advice_calls // 2)


class Advisor:
    """The gateway's hints and reviews, with their bounds (every method runs on the loop)."""

    def __init__(
        self, config: WebConfig, backend: Backend, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.config = config
        self.backend = backend
        self.clock = clock
        self.buckets: dict[str, Bucket] = {}  # seat session key -> its hint bucket
        self.hints: dict[str, OrderedDict[int, dict[str, Any]]] = {}  # key -> decision -> hint
        self.busy: set[str] = set()  # seat sessions with a hint being worked out
        self.calls = 0  # Suggest and Review calls in flight
        self.review_calls = 0  # ... of them Review calls
        self.reviews: OrderedDict[tuple[str, int, int], dict[str, Any]] = OrderedDict()
        self.review_waits = Counter(
            config.max_reviews_per_client, 10_000, what="reviews being worked out"
        )

    def forget(self, keys: set[str]) -> None:
        """Drop what is kept for seat sessions that are gone (the hint route calls it once more
        than twice the gateway's seat sessions are remembered: bounded without a sweep)."""
        for key in [k for k in self.hints.keys() | self.buckets.keys() if k not in keys]:
            self.buckets.pop(key, None)
            self.hints.pop(key, None)

    def stats(self) -> dict[str, Any]:
        """The hint and review bounds, and the calls in flight (the health route)."""
        config = self.config
        return {
            "botservice": config.botservice_address is not None,
            "calls_in_flight": self.calls,
            "reviews_kept": len(self.reviews),
            "limits": {
                "hints_per_minute": config.hints_per_minute,
                "hint_burst": config.hint_burst,
                "max_advice_calls": config.max_advice_calls,
                "max_reviews_per_client": config.max_reviews_per_client,
                "max_review_calls": review_calls(config),
            },
        }

    def _call_slot(self) -> None:
        if self.calls >= self.config.max_advice_calls:
            raise HttpError(
                429, "the bot service is busy with other hints and reviews: try again shortly"
            )

    # ------------------------------------------------------------------------ hints

    async def hint(self, key: str, seat: int, obs: pb.Observation | None) -> dict[str, Any]:
        """The expert's suggestion for the open decision of seat ``seat`` (the session's
        ``key``) from ``obs``, the observation the engine last sent that seat."""
        obs = check_open_decision(obs, seat)
        known = self.hints.setdefault(key, OrderedDict())
        if obs.decision_id in known:
            return {**known[obs.decision_id], "remembered": True}
        if key in self.busy:
            raise HttpError(429, "a hint for this seat is being worked out already")
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = Bucket(
                self.config.hints_per_minute / 60.0, self.config.hint_burst, self.clock
            )
        self._call_slot()
        wait = bucket.take()
        if wait > 0:
            per_minute = f"{self.config.hints_per_minute:g}"
            raise HttpError(
                429,
                f"at most {per_minute} hints a minute for a seat (burst "
                f"{self.config.hint_burst}): the next in {math.ceil(wait)} s",
            )
        self.busy.add(key)
        self.calls += 1
        try:
            reply = await self.backend.call(
                "botservice",
                "Suggest",
                bot_pb2.SuggestRequest(observation=obs, policy=HINT_POLICY, level=HINT_LEVEL),
            )
        finally:
            self.busy.discard(key)
            self.calls -= 1
        found = {
            "decision_id": str(obs.decision_id),
            "seat": seat,
            "policy": reply.policy,
            "level": reply.level,
            "options": len(reply.suggestions),
            "suggestions": [suggestion_json(s) for s in reply.suggestions[:SHOWN]],
        }
        known[obs.decision_id] = found
        while len(known) > HINTS_KEPT:
            known.popitem(last=False)
        return {**found, "remembered": False}

    # ---------------------------------------------------------------------- reviews

    async def review(self, match_id: str, seat: int, client: str) -> dict[str, Any]:
        """The review of ``seat`` in the finished match ``match_id``."""
        cache_key = (match_id, seat, REVIEW_LEVEL)
        kept = self.reviews.get(cache_key)
        if kept is not None:
            self.reviews.move_to_end(cache_key)
            return kept
        release = self.review_waits.acquire(client)
        try:
            self._call_slot()
            if self.review_calls >= review_calls(self.config):
                raise HttpError(
                    429, "the bot service is busy with other reviews: try again shortly"
                )
            self.calls += 1
            self.review_calls += 1
            try:
                reply = await self.backend.call(
                    "botservice",
                    "Review",
                    bot_pb2.ReviewRequest(
                        match_id=match_id,
                        seat=seat,
                        level=REVIEW_LEVEL,
                        max_differences=MAX_REVIEW_ROWS,
                    ),
                    timeout=self.config.review_timeout,
                    token=self.config.service_token,
                )
            finally:
                self.calls -= 1
                self.review_calls -= 1
        finally:
            release()
        found = review_json(reply, match_id)
        self.reviews[cache_key] = found
        while len(self.reviews) > REVIEWS_KEPT:
            self.reviews.popitem(last=False)
        return found
