"""The command language of a seat: typed lines to commands, and the prompt that says which keys
do what. ``hebei play`` reads them from the keyboard; the web page's buttons type the same keys.

One line is one command: a position key (``1``-``9``, ``a``-``e``) or a tile name (``5m``,
``7z`` or ``中``) discards; ``h`` wins (胡), ``p`` pongs, ``k`` kongs (``k1``/``k2`` or
``k 5m`` when there are several), ``ch`` chows (classic profile: ``ch1``/``ch2`` or
``ch 345m`` when there are several), an empty line, ``x`` or ``pass`` passes; ``h!`` declares a win the
hand does not have where the profile allows it (诈胡, a penalty); ``t`` hands the
seat over to auto-play (托管) and takes it back; ``s`` shows the expert's suggestion (with
``--hints``); ``r`` redraws the board, ``?`` shows help and ``q`` leaves. Anything else is an :data:`CommandKind.INVALID` command with a one-line message.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hebei.rules.actions import DISCARD, PASS, WIN, Action, ActionKind
from hebei.rules.errors import NotationError
from hebei.rules.tiles import format_tiles, parse_tile, parse_tiles
from hebei.rules.views import Observation
from hebei.seatclient.tiles import HONOR_LABELS, POSITION_KEYS, hand_order, tile_label

KONG_KINDS = (ActionKind.EXPOSED_KONG, ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG)
KONG_NAMES = {
    ActionKind.EXPOSED_KONG: "kong",
    ActionKind.CONCEALED_KONG: "concealed kong",
    ActionKind.ADDED_KONG: "added kong",
}

HELP_TEXT = (
    "Keys (type one, then Enter): 1-9 a-e discard the tile at that position (the drawn tile is "
    "last), or type its name: 5m 9p 1s, honors 1z-7z or 东南西北白发中 · h win (胡) · p pong · "
    "k kong (k1/k2 or k 5m to choose) · ch chow (ch1/ch2 or ch 345m; classic rules) · "
    "Enter, x or pass: pass · h! declare a win you do not have (classic rules: 诈胡, a "
    "penalty) · t auto-play (托管) on/off · s the expert's suggestion (hebei play --hints) · "
    "r redraw the board · q leave the table"
)


class CommandKind(enum.Enum):
    ACT = "act"  # send ``action``
    TOGGLE_AUTO = "toggle_auto"  # hand over to auto-play, or take over again
    QUIT = "quit"
    REDRAW = "redraw"
    HELP = "help"
    HINT = "hint"  # show the expert's suggestion for the open decision
    INVALID = "invalid"  # ``message`` says why


@dataclass(frozen=True, slots=True)
class Command:
    """What a typed line asks for."""

    kind: CommandKind
    action: Action | None = None
    message: str = ""


def invalid(message: str) -> Command:
    return Command(CommandKind.INVALID, message=message)


def act(action: Action) -> Command:
    return Command(CommandKind.ACT, action)


_WORDS = {
    "q": CommandKind.QUIT,
    "quit": CommandKind.QUIT,
    "exit": CommandKind.QUIT,
    "t": CommandKind.TOGGLE_AUTO,
    "auto": CommandKind.TOGGLE_AUTO,
    "托管": CommandKind.TOGGLE_AUTO,
    "r": CommandKind.REDRAW,
    "redraw": CommandKind.REDRAW,
    "?": CommandKind.HELP,
    "help": CommandKind.HELP,
    "s": CommandKind.HINT,
    "hint": CommandKind.HINT,
    "提示": CommandKind.HINT,
}
_PASS_WORDS = frozenset({"", "x", "pass", "过"})
_WIN_WORDS = frozenset({"h", "hu", "win", "胡"})
_PONG_WORDS = frozenset({"p", "pong", "碰"})
_FALSE_WIN_WORDS = frozenset({"h!", "hu!", "win!", "胡!"})


def chow_options(legal: Sequence[Action]) -> list[Action]:
    """The chows among ``legal`` by their run's lowest tile (the keys ``ch1``, ``ch2``...)."""
    return sorted((a for a in legal if a.kind is ActionKind.CHOW), key=lambda a: a.tile)


def chow_label(action: Action) -> str:
    """A chow's run, e.g. ``345m``."""
    return format_tiles((action.tile, action.tile + 1, action.tile + 2))


def kong_options(legal: Sequence[Action]) -> list[Action]:
    """The kongs among ``legal``, in a stable order (the keys ``k1``, ``k2``... follow it)."""
    return sorted((a for a in legal if a.kind in KONG_KINDS), key=lambda a: (a.tile, a.kind.value))


def discard_keys(size: int) -> str:
    """The position keys of a hand of ``size`` tiles, e.g. ``1-9 a-e`` or ``1-8``."""
    if size <= 0:
        return ""
    last = POSITION_KEYS[min(size, len(POSITION_KEYS)) - 1]
    return f"1-{last}" if size <= 9 else f"1-9 a-{last}" if size > 10 else "1-9 a"


def parse_tile_text(text: str) -> int | None:
    """A tile typed as ``5m`` / ``7z`` or an honor character; None if it is not a tile."""
    if text in HONOR_LABELS:
        return 27 + HONOR_LABELS.index(text)
    try:
        return parse_tile(text)
    except NotationError:
        return None


def _by_number(
    rest: str, options: Sequence[Action], key: str, what: str, describe: Callable[[Action], str]
) -> Command | None:
    """The option an empty ``rest`` (the only one) or its number picks; None when ``rest``
    names one otherwise."""
    if not rest:
        if len(options) == 1:
            return act(options[0])
        choices = ", ".join(f"[{key}{i}] {describe(a)}" for i, a in enumerate(options, 1))
        return invalid(f"Which {what}? {choices}")
    if rest.isdigit():
        number = int(rest)
        if 1 <= number <= len(options):
            return act(options[number - 1])
        return invalid(
            f"There are {len(options)} {what}s to choose from: {key}1-{key}{len(options)}."
        )
    return None


def _choose_kong(rest: str, legal: Sequence[Action]) -> Command:
    options = kong_options(legal)
    if not options:
        return invalid("There is no kong to declare now.")
    picked = _by_number(
        rest, options, "k", "kong", lambda a: f"{KONG_NAMES[a.kind]} {tile_label(a.tile)}"
    )
    if picked is not None:
        return picked
    tile = parse_tile_text(rest)
    for option in options:
        if option.tile == tile:
            return act(option)
    return invalid(f"No kong of {rest!r}: choose k1-k{len(options)}.")


def _choose_chow(rest: str, legal: Sequence[Action]) -> Command:
    options = chow_options(legal)
    if not options:
        return invalid("There is no chow on offer.")
    picked = _by_number(rest, options, "ch", "chow", lambda a: f"chow {chow_label(a)}")
    if picked is not None:
        return picked
    try:
        run = tuple(parse_tiles(rest))
    except NotationError:
        run = ()
    for option in options:
        if run == (option.tile, option.tile + 1, option.tile + 2):
            return act(option)
    return invalid(
        f"No chow {rest!r}: choose ch1-ch{len(options)} or the run, "
        f"e.g. ch {chow_label(options[0])}."
    )


def _discard(tile: int, view: Observation) -> Command:
    if not any(a.kind is ActionKind.DISCARD for a in view.legal_actions):
        return invalid("You cannot discard now: answer the tile on offer (see the prompt).")
    if DISCARD[tile] in view.legal_actions:
        return act(DISCARD[tile])
    return invalid(f"You have no {tile_label(tile)} to discard.")


def parse_command(line: str, view: Observation | None, *, false_win: bool = False) -> Command:
    """The command of one typed ``line``; ``view`` is the seat's open decision (None when
    there is nothing to decide, so only t, r, ? and q mean something). ``false_win``: the
    profile lets a person declare a win it does not have (§9 诈胡), with ``h!``."""
    text = line.strip()
    low = text.lower()
    if low in _WORDS:
        return Command(_WORDS[low])
    if view is None or not view.legal_actions:
        if not low:
            return invalid("Nothing to decide right now.")
        return invalid("Nothing to decide right now: wait for your turn ([t] auto, [q] quit).")
    legal = view.legal_actions
    if low in _PASS_WORDS:
        if PASS in legal:
            return act(PASS)
        return invalid("Nothing to pass on: discard a tile (a position key or its name).")
    if low in _WIN_WORDS or low in _FALSE_WIN_WORDS:
        if WIN in legal or (false_win and low in _FALSE_WIN_WORDS):
            return act(WIN)
        if false_win:
            return invalid(
                "You have no winning hand (胡). h! declares it anyway: a false win (诈胡) "
                "ends the hand and you pay every other seat."
            )
        return invalid("You cannot win (胡) now.")
    if low in _PONG_WORDS:
        pongs = [a for a in legal if a.kind is ActionKind.PONG]
        return act(pongs[0]) if pongs else invalid("There is no pong on offer.")
    for prefix in ("kong", "杠", "k"):
        if low.startswith(prefix) and parse_tile_text(low) is None:
            return _choose_kong(low[len(prefix) :].strip(), legal)
    for prefix in ("chow", "吃", "ch"):  # not "c": a position key
        if low.startswith(prefix):
            return _choose_chow(low[len(prefix) :].strip(), legal)
    if len(low) == 1 and low in POSITION_KEYS:
        tiles = hand_order(view.hand, view.drawn)
        index = POSITION_KEYS.index(low)
        if index >= len(tiles):
            return invalid(
                f"No tile at position {low}: your hand has {len(tiles)} tiles "
                f"(keys {discard_keys(len(tiles))})."
            )
        return _discard(tiles[index], view)
    tile = parse_tile_text(text if text in HONOR_LABELS else low)
    if tile is not None:
        return _discard(tile, view)
    return invalid(f"Unknown key {text!r}: type ? for help.")


def prompt_text(view: Observation, names: Sequence[str] = (), hints: bool = False) -> str:
    """The prompt of an open decision: what is on offer and the keys that answer it, e.g.
    ``Seat 2 (Bot 2) discarded 5m: [h] win  [p] pong  [x] pass  [t] auto  [q] quit > ``."""
    legal = view.legal_actions
    if view.claim is not None:
        who = names[view.claim.from_seat] if view.claim.from_seat < len(names) else ""
        who = who or f"Seat {view.claim.from_seat}"
        verb = "adds a kong with" if view.claim.rob else "discarded"
        head = f"{who} {verb} {tile_label(view.claim.tile)}:"
    else:
        head = "Your turn:"
    options = []
    if any(a.kind is ActionKind.DISCARD for a in legal):
        options.append(f"discard [{discard_keys(len(view.hand))}] or a tile name")
    if WIN in legal:
        options.append("[h] win 胡")
    if any(a.kind is ActionKind.PONG for a in legal):
        options.append("[p] pong")
    chows = chow_options(legal)
    for i, chow in enumerate(chows, 1):
        options.append(f"[{'ch' if len(chows) == 1 else f'ch{i}'}] chow {chow_label(chow)}")
    kongs = kong_options(legal)
    for i, kong in enumerate(kongs, 1):
        key = "k" if len(kongs) == 1 else f"k{i}"
        options.append(f"[{key}] {KONG_NAMES[kong.kind]} {tile_label(kong.tile)}")
    if PASS in legal:
        options.append("[x] pass")
    if hints:
        options.append("[s] hint")
    options.extend(("[t] auto", "[q] quit"))
    return f"{head} {'  '.join(options)} > "
