"""A person's past matches in the browser (My matches) and the hand-by-hand replayer.

====== ============================================== ===========================================
GET    /api/my/matches                                 the matches this browser played (quick play
                                                       and tournament seats), newest first, with
                                                       their state from the engine
DELETE /api/my/matches                                 forget them (clears the cookie)
GET    /api/tables/{match}/hands/{hand}                an ended match's hand ``hand`` (1-based),
                                                       step by step, every seat's tiles shown
====== ============================================== ===========================================

**Which matches are mine** is kept by the browser, not the gateway: a cookie, ``hebei_matches``
(``HttpOnly``, ``SameSite=Strict``, ``Path=/api``, a year), listing the match id, seat and
tournament of each seat session the gateway opened for this browser (quick play, a seat joined
by token, a tournament's seat through the person's cookie), newest first, at most
:data:`MAX_REMEMBERED`. It holds nothing secret: a match id and a seat number are public (the
lobby lists the matches, the engine the seats), and no seat key or token is in it or in any
URL. A restarted gateway, or another replica, reads it as before.

**The replayer** reads only what the engine shows anyone of an *ended* match: its public state
(``GetMatch``, the seed published once it ended) and its public events (``Spectate``). The seed
gives every wall, so the hidden tiles (deals, draws, concealed kongs, passes) are rebuilt by
playing the public actions again (:mod:`hebei.seatclient.match_feed`), each hand checked against
the settlement the engine published. A match still playing is 409: no tile of a live match is
ever shown that a spectator could not see; a match whose results its tournament hides is
refused as the engine refuses it (403). A finished match never changes, so its hands are kept
(:data:`KEPT_MATCHES`); at most :data:`MAX_REBUILDS` are rebuilt at once (429 beyond).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hebei.common.errors import DomainError, FailedPrecondition, NotFound, PermissionDenied
from hebei.rules.actions import PASS
from hebei.rules.hand import HandState
from hebei.rules.melds import MeldKind
from hebei.rules.profile import get_profile
from hebei.rules.replay import _action_of  # one event to (seat, action, auto), as replays read
from hebei.rules.tiles import TILE_NAMES
from hebei.v1 import table_pb2
from hebei.web.backend import HttpError
from hebei.web.inputs import check_id
from hebei.web.views import match_json

if TYPE_CHECKING:
    from hebei.web.app import Gateway
    from hebei.web.tables import SeatSession

COOKIE = "hebei_matches"
COOKIE_PATH = "/api"
COOKIE_DAYS = 365
MAX_REMEMBERED = 24  # matches a browser's list keeps (the oldest go first) ...
MAX_COOKIE = 3000  # ... within this many characters
KEPT_MATCHES = 16  # ended matches whose rebuilt hands are kept
MAX_REBUILDS = 2  # matches rebuilt at once
HIDDEN = "the results of this match are hidden until the organiser reveals them"
LIVE = "the match is still being played: its tiles are shown once it has ended"


# ------------------------------------------------------------------------------ the list


def read_list(request: Request) -> list[dict[str, Any]]:
    """The browser's matches (``[{match_id, seat, tournament_id}]``, newest first); [] when
    the cookie is absent or not one of ours."""
    raw = request.cookies.get(COOKIE, "")
    if not raw or len(raw) > 2 * MAX_COOKIE:
        return []
    try:
        items = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        return []
    found = []
    for item in items if isinstance(items, list) else ():
        if not (isinstance(item, list) and len(item) == 3):
            continue
        match_id, seat, tournament_id = item
        if (
            isinstance(match_id, str)
            and isinstance(tournament_id, str)
            and seat in (0, 1, 2, 3)
            and 0 < len(match_id) <= 128
            and match_id.isprintable()
            and len(tournament_id) <= 128
            and tournament_id.isprintable()
        ):
            found.append({"match_id": match_id, "seat": seat, "tournament_id": tournament_id})
    return found[:MAX_REMEMBERED]


def _encode(items: list[dict[str, Any]]) -> str:
    while True:
        rows = [[i["match_id"], i["seat"], i["tournament_id"]] for i in items]
        text = json.dumps(rows, separators=(",", ":"), ensure_ascii=False)
        value = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
        if len(value) <= MAX_COOKIE or not items:
            return value
        items = items[:-1]


def remember(
    response: Response, request: Request, session: SeatSession, tournament_id: str = ""
) -> None:
    """Add the session's match to the browser's list (a Set-Cookie on ``response``)."""
    entry = {"match_id": session.match_id, "seat": session.seat, "tournament_id": tournament_id}
    _add(response, request, [entry])


def remember_tables(
    response: Response, request: Request, tables: list[dict[str, Any]], tournament_id: str
) -> None:
    """Add a tournament person's tables (``match_id`` and ``seat`` each, oldest first) to the
    browser's list; nothing when they are all in it already."""
    known = {(i["match_id"], i["seat"]) for i in read_list(request)}
    new: list[dict[str, Any]] = []
    for table in reversed(tables):  # newest first, each once
        key = (table.get("match_id"), table.get("seat"))
        if (
            key[0]
            and key[1] in (0, 1, 2, 3)
            and key not in {(e["match_id"], e["seat"]) for e in new}
        ):
            new.append({"match_id": key[0], "seat": key[1], "tournament_id": tournament_id})
    if any((e["match_id"], e["seat"]) not in known for e in new):
        _add(response, request, new)


def _add(response: Response, request: Request, entries: list[dict[str, Any]]) -> None:
    """``entries`` (newest first) at the head of the browser's list (a Set-Cookie)."""
    added = {(e["match_id"], e["seat"]) for e in entries}
    items = [i for i in read_list(request) if (i["match_id"], i["seat"]) not in added]
    response.set_cookie(
        COOKIE,
        _encode([*entries, *items][:MAX_REMEMBERED]),
        max_age=COOKIE_DAYS * 86_400,
        path=COOKIE_PATH,
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )


# ------------------------------------------------------------------------------ the replay


def _tiles(counts: list[int]) -> list[str]:
    return [TILE_NAMES[k] for k, c in enumerate(counts) for _ in range(c)]


def _meld(meld: Any) -> dict[str, Any]:
    return {
        "kind": meld.kind.value if isinstance(meld.kind, MeldKind) else str(meld.kind),
        "tiles": [TILE_NAMES[t] for t in meld.tiles],
        "from": meld.from_seat,
    }


def _frame(state: HandState, events: list[dict]) -> dict[str, Any]:
    """Every seat's tiles after a step, and the events of that step."""
    return {
        "events": [_event(e) for e in events],
        "seats": [
            {
                "concealed": _tiles(list(state.hands[seat])),
                "melds": [_meld(m) for m in state.melds[seat]],
                "discards": [TILE_NAMES[t] for t in state.discards[seat]],
            }
            for seat in range(4)
        ],
        "wall": state.wall.live,
    }


def _event(event: dict) -> dict[str, Any]:
    """An event of the full log as the page shows it (the settlement as its totals)."""
    shown = {k: v for k, v in event.items() if k not in ("seed", "dice", "hands", "settlement")}
    if event["type"] == "hand_end":
        settlement = event.get("settlement") or {}
        shown["totals"] = settlement.get("total")
        shown["wins"] = [
            {k: w.get(k) for k in ("winner", "discarder", "fans", "points", "win_tile")}
            for w in settlement.get("wins", ())
            if isinstance(w, dict)
        ]
    return shown


def hand_steps(events: list[dict]) -> dict[str, Any]:
    """One hand's full log as steps: the deal, then one step per action (a pass is folded
    into the step that follows it), each with every seat's tiles after it."""
    start = events[0]
    state = HandState(
        int(start["seed"]),
        int(start["dealer"]),
        int(start["hand_no"]),
        get_profile(start["profile"]),
    )
    frames = [_frame(state, events[: len(state.events)])]
    shown = len(state.events)
    for index, event in enumerate(events):
        if index < len(state.events):
            continue
        seat, action, auto = _action_of(event, index)
        state.apply(seat, action, auto=auto)
        if action is PASS and not state.ended:
            continue
        frames.append(_frame(state, state.events[shown:]))
        shown = len(state.events)
    return {"hand_no": int(start["hand_no"]) + 1, "dealer": int(start["dealer"]), "steps": frames}


class History:
    """The routes above, on the gateway's state."""

    def __init__(self, gateway: Gateway) -> None:
        self.g = gateway
        self.kept: OrderedDict[str, tuple[dict[str, Any], list[list[dict]]]] = OrderedDict()
        self.rebuilding = 0

    def routes(self) -> list[Route]:
        return [
            Route("/api/my/matches", self.my_matches, methods=["GET"]),
            Route("/api/my/matches", self.forget, methods=["DELETE"]),
            Route("/api/tables/{match}/hands/{hand}", self.hand, methods=["GET"]),
        ]

    async def my_matches(self, request: Request) -> Response:
        items = read_list(request)
        infos = await asyncio.gather(*(self._info(i["match_id"]) for i in items))
        matches = []
        for item, info in zip(items, infos, strict=True):
            if info is None:  # the engine no longer knows it (or is away): listed bare
                matches.append({**item, "status": "unknown", "match": None})
                continue
            match = match_json(info)
            scores = [s.get("score", 0) for s in match["seats"]]
            mine = scores[item["seat"]] if item["seat"] < len(scores) else 0
            ended = match["status"] in ("finished", "dissolved")
            matches.append(
                {
                    **item,
                    "status": match["status"],
                    "match": match,
                    "score": mine,
                    "place": 1 + sum(1 for s in scores if s > mine) if ended else None,
                    "replay": f"/my-matches.html?match={info.match_id}&seat={item['seat']}",
                    "review": f"/review.html?match={info.match_id}&seat={item['seat']}",
                }
            )
        return JSONResponse({"matches": matches})

    async def _info(self, match_id: str) -> table_pb2.MatchInfo | None:
        try:
            reply = await self.g.backend.call_match(
                match_id, "GetMatch", table_pb2.GetMatchRequest(match_id=match_id)
            )
        except HttpError:
            return None
        return reply.match

    async def forget(self, request: Request) -> Response:
        response = Response(status_code=204)
        response.delete_cookie(
            COOKIE,
            path=COOKIE_PATH,
            secure=request.url.scheme == "https",
            httponly=True,
            samesite="strict",
        )
        return response

    async def hand(self, request: Request) -> Response:
        match_id = check_id("match", request.path_params["match"])
        raw = request.path_params["hand"]
        if not raw.isdigit() or not 1 <= int(raw) <= 64:
            raise HttpError(400, "hand must be 1-64")
        match, hands = await self._rebuilt(match_id)
        number = int(raw)
        if number > len(hands):
            raise HttpError(
                404, f"match {match_id} has {len(hands)} complete hand(s) to replay, not {number}"
            )
        steps = await self.g.backend.run(hand_steps, hands[number - 1])
        return JSONResponse({"match": match, "hands": len(hands), **steps})

    async def _rebuilt(self, match_id: str) -> tuple[dict[str, Any], list[list[dict]]]:
        """The ended match's public state and every complete hand's full log (kept)."""
        kept = self.kept.get(match_id)
        if kept is not None:
            self.kept.move_to_end(match_id)
            return kept
        if self.rebuilding >= MAX_REBUILDS:
            raise HttpError(429, "other replays are being prepared: try again in a moment")
        self.rebuilding += 1
        try:
            found = await self.g.backend.run(self._read, match_id)
        finally:
            self.rebuilding -= 1
        self.kept[match_id] = found
        while len(self.kept) > KEPT_MATCHES:
            self.kept.popitem(last=False)
        return found

    def _read(self, match_id: str) -> tuple[dict[str, Any], list[list[dict]]]:
        """Blocking: the engine's public state and events of the match, its hands rebuilt."""
        from hebei.seatclient.match_feed import TableFeed

        config = self.g.config
        feed = TableFeed(self.g.backend.router, timeout=config.call_timeout)
        try:
            finished = feed.finished_match(match_id)
            return match_json(finished.info), finished.hand_logs()
        except FailedPrecondition:
            raise HttpError(409, LIVE) from None
        except NotFound:
            raise HttpError(404, f"no match {match_id} on the table engine") from None
        except PermissionDenied as error:
            raise HttpError(403, error.message) from None
        except DomainError as error:  # the engine refuses anonymous callers a hidden result
            if "PERMISSION_DENIED" in error.message:
                raise HttpError(403, HIDDEN) from None
            raise HttpError(503, error.message) from None
