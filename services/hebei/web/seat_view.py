"""The person's table: each ``Observation`` of a seat's Play stream as the page's table view.

The same shape as the spectators' (:mod:`hebei.web.public_table`), with the seat's own hand,
its keys, the buttons of an open decision and the prompt. The hand, the keys and the prompt
come from :mod:`hebei.seatclient` (the reading of an observation the terminal client shares),
so the page and ``hebei play`` agree on what a key does.
"""

from __future__ import annotations

from typing import Any

from hebei.common import convert
from hebei.rules.actions import ActionKind
from hebei.rules.errors import NotationError
from hebei.rules.tiles import TILE_NAMES
from hebei.seatclient.commands import (
    KONG_NAMES,
    chow_label,
    chow_options,
    discard_keys,
    kong_options,
    prompt_text,
)
from hebei.seatclient.observations import seat_name, what_changed
from hebei.seatclient.tiles import POSITION_KEYS, hand_order
from hebei.v1 import types_pb2 as pb
from hebei.web.views import (
    SEAT_KINDS,
    event_json,
    length_hands,
    meld_json,
    millis,
    settlement_json,
    tile,
    tiles,
)

PHASES = {
    pb.PHASE_WAITING: "waiting",
    pb.PHASE_TURN: "turn",
    pb.PHASE_CLAIM: "claim",
    pb.PHASE_ROB_KONG: "rob_kong",
    pb.PHASE_HAND_END: "hand_end",
    pb.PHASE_MATCH_END: "match_end",
}

OPTION_LABELS = {
    ActionKind.WIN: ("h", "胡 Win"),
    ActionKind.PONG: ("p", "碰 Pong"),
    ActionKind.PASS: ("x", "过 Pass"),
}


def _seat_json(view: pb.SeatView) -> dict[str, Any]:
    return {
        "seat": view.seat,
        "name": view.player_name or f"Seat {view.seat}",
        "kind": SEAT_KINDS.get(view.kind, "unknown"),
        "melds": [meld_json(m) for m in view.melds],
        "discards": tiles(view.discards),
        "concealed": view.concealed_count,
        "score": view.score,
        "connected": view.connected,
        "auto": view.auto_played,
        "wind": tile(view.seat_wind),
    }


def _options(obs: pb.Observation) -> tuple[list[dict[str, Any]], str]:
    """The buttons of an open decision (key, label, the command the key types) and the
    terminal client's prompt for it."""
    if not (obs.decision_id and obs.legal_actions):
        return [], ""
    try:
        view = convert.observation_from_proto(obs)
    except NotationError:
        return [], ""
    legal = view.legal_actions
    options = []
    for kind in (ActionKind.WIN, ActionKind.PONG):
        if any(a.kind is kind for a in legal):
            key, label = OPTION_LABELS[kind]
            options.append({"key": key, "label": label, "command": key, "kind": kind.value})
    kongs = kong_options(legal)
    for number, kong in enumerate(kongs, 1):
        key = "k" if len(kongs) == 1 else f"k{number}"
        label = f"杠 {KONG_NAMES[kong.kind].capitalize()} {TILE_NAMES[kong.tile]}"
        options.append(
            {
                "key": key,
                "label": label,
                "command": key,
                "kind": kong.kind.value,
                "tile": TILE_NAMES[kong.tile],
            }
        )
    chows = chow_options(legal)  # §9 classic profile
    for number, chow in enumerate(chows, 1):
        key = "ch" if len(chows) == 1 else f"ch{number}"
        label = f"吃 Chow {chow_label(chow)}"
        options.append({"key": key, "label": label, "command": key, "kind": "chow"})
    if any(a.kind is ActionKind.PASS for a in legal):
        key, label = OPTION_LABELS[ActionKind.PASS]
        options.append({"key": key, "label": label, "command": key, "kind": "pass"})
    names = [seat_name(obs, s) for s in range(len(obs.seats))]
    prompt = prompt_text(view, names).removesuffix(" > ").replace("  [q] quit", "")
    return options, prompt


def observation_view(obs: pb.Observation) -> dict[str, Any]:
    """The person's table: an ``Observation`` as the page's table view."""
    discardable = {
        a.tile for a in obs.legal_actions if a.kind == pb.ACTION_KIND_DISCARD and obs.decision_id
    }
    drawn = convert.tile_from_proto(obs.drawn) if obs.drawn else None
    kinds = [k for k in (convert.tile_from_proto(t) for t in obs.concealed) if k is not None]
    ordered = hand_order(kinds, drawn)
    hand = []
    for index, kind in enumerate(ordered):
        hand.append(
            {
                "tile": TILE_NAMES[kind],
                "key": POSITION_KEYS[index] if index < len(POSITION_KEYS) else "",
                "drawn": drawn is not None and index == len(ordered) - 1,
                "discard": (kind + 1) in discardable,
            }
        )
    options, prompt = _options(obs)
    viewer = obs.seat if obs.seat < len(obs.seats) else 0
    return {
        "mode": "seat",
        "match_id": obs.match_id,
        "table_id": obs.table_id,
        "hand_no": obs.hand_no,
        "hands": length_hands(obs.length),
        "dealer": obs.dealer,
        "prevailing_wind": tile(obs.prevailing_wind),
        "phase": PHASES.get(obs.phase, "unknown"),
        "current_seat": obs.current_seat,
        "wall": obs.wall_count,
        "viewer": obs.seat,
        "seats": [_seat_json(v) for v in obs.seats],
        "offer": (
            {"tile": tile(obs.last_discard), "from": obs.last_discarder}
            if obs.last_discard and obs.HasField("last_discarder")
            else None
        ),
        "hand": hand,
        "keys": discard_keys(len(hand)) if discardable else "",
        "options": options,
        "prompt": prompt,
        "decision_id": str(obs.decision_id) if obs.legal_actions else "",
        "deadline_ms": millis(obs.deadline) if obs.legal_actions else None,
        "time_bank_ms": (
            obs.time_bank.seconds * 1000 + obs.time_bank.nanos // 1_000_000
            if obs.HasField("time_bank")
            else None
        ),
        "settlement": settlement_json(obs.settlement) if obs.HasField("settlement") else None,
        "finished": obs.match_finished,
        "auto": bool(obs.seats) and obs.seats[viewer].auto_played,
        "status": "finished" if obs.match_finished else "playing",
        "paused": False,
        "seed": None,
        "last_event": event_json(obs.last_event) if obs.HasField("last_event") else None,
    }


def change_lines(prev: pb.Observation | None, cur: pb.Observation) -> list[str]:
    """What happened between two observations of a seat, in the terminal client's words."""
    return [change.plain for change in what_changed(prev, cur)]
