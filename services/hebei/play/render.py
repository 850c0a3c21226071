"""An ``Observation`` message as rich renderables: the board, the own hand with its keys, the
settlement of a hand, and one line per thing that changed between two observations.

Everything shown comes from the observation the engine sent this seat, so another seat's
concealed tiles can only appear once the engine reveals them (a winner's hand at hand end).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from hebei.common.convert import tile_from_proto
from hebei.rules.tiles import N_KINDS
from hebei.seatclient.observations import AUTO, MELD, MELD_NAMES, Change, seat_name, what_changed
from hebei.seatclient.tiles import POSITION_KEYS, WIND_NAMES, hand_order, tile_label
from hebei.v1 import types_pb2 as pb

CELL = 3  # terminal cells per tile in the hand row (a label is 2 cells wide)

WIN_KIND_NAMES = {
    pb.WIN_KIND_SELF_DRAW: "self-draw 自摸",
    pb.WIN_KIND_DISCARD: "discard 点炮",
    pb.WIN_KIND_ROB_KONG: "robbing a kong 抢杠胡",
}
CHANGE_STYLES = {MELD: "magenta", AUTO: "yellow"}


def tile_style(kind: int | None) -> str:
    """The rich style of a tile: a colour per suit, honors bold."""
    if kind is None or not 0 <= kind < N_KINDS:
        return "dim"
    if kind >= 27:
        return ("bold", "bold", "bold", "bold", "bold white", "bold green", "bold red")[kind - 27]
    return ("red", "blue", "green")[kind // 9]


def tile_text(value: int) -> Text:
    """One tile of a message (a ``Tile`` enum value) as styled text."""
    kind = tile_from_proto(value)
    return Text(tile_label(kind), style=tile_style(kind))


def tiles_text(values: Sequence[int]) -> Text:
    """Tiles (``Tile`` enum values) separated by spaces."""
    return Text(" ").join(tile_text(v) for v in values)


def meld_text(meld: pb.Meld) -> Text:
    """A declared meld, e.g. ``pong 5m`` or ``chow 3m 4m 5m``; another seat's concealed kong
    shows ``暗杠 ??``."""
    text = Text(MELD_NAMES.get(meld.kind, "meld") + " ", style="dim")
    if meld.kind == pb.MELD_KIND_CHOW and meld.tiles:
        text.append_text(tiles_text(meld.tiles))
    else:
        text.append_text(tile_text(meld.tile))
    return text


def wind_name(view: pb.SeatView) -> str:
    """The seat wind of this hand, e.g. ``"东 East"``."""
    if not view.seat_wind:
        return ""
    index = (view.seat_wind - pb.TILE_EAST) % 4
    return f"{tile_label(27 + index)} {WIND_NAMES[index]}"


def header(obs: pb.Observation) -> Text:
    """Hand number, wall count, dealer and whose turn."""
    parts = [f"Hand {obs.hand_no}"]
    if obs.length.WhichOneof("length") == "hands":
        parts[0] += f" of {obs.length.hands}"
    parts.append(f"wall {obs.wall_count}")
    parts.append(f"dealer: {seat_name(obs, obs.dealer)}")
    if obs.phase == pb.PHASE_TURN:
        parts.append(f"turn: {seat_name(obs, obs.current_seat)}")
    return Text(" · ".join(parts), style="bold")


def seats_table(obs: pb.Observation) -> Table:
    """A row per seat: wind, name, score, concealed count, flags, melds and discards."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    for column in ("", "Seat", "Wind", "Player", "Score", "Tiles", "Melds", "Discards"):
        table.add_column(column, overflow="fold")
    for view in obs.seats:
        turn = obs.phase == pb.PHASE_TURN and view.seat == obs.current_seat
        player = Text(view.player_name or f"Seat {view.seat}")
        if view.seat == obs.seat and view.player_name != "You":
            player.append(" (you)", style="bold cyan")
        if view.kind == pb.SEAT_KIND_BOT:
            player.append(" bot", style="dim")
        if view.auto_played:
            player.append(" [auto]", style="yellow")
        if not view.connected:
            player.append(" [offline]", style="red")
        table.add_row(
            Text("▶", style="bold yellow") if turn else Text(""),
            str(view.seat),
            wind_name(view),
            player,
            str(view.score),
            str(view.concealed_count),
            Text(" ").join(meld_text(m) for m in view.melds),
            tiles_text(view.discards),
        )
    return table


def hand_rows(obs: pb.Observation) -> Text:
    """The own hand sorted, the drawn tile set apart, and the key of each position under it."""
    drawn = tile_from_proto(obs.drawn)
    tiles = hand_order([tile_from_proto(t) for t in obs.concealed], drawn)
    top, keys = Text("Your hand  "), Text("           ", style="dim")
    for i, kind in enumerate(tiles):
        if drawn is not None and i == len(tiles) - 1:
            top.append("  ")
            keys.append("  ")
        label = tile_label(kind)
        top.append(label, style=tile_style(kind))
        top.append(" " * (CELL - cell_len(label)))
        key = POSITION_KEYS[i] if i < len(POSITION_KEYS) else " "
        keys.append(key.ljust(CELL), style="bold dim")
    return Text("\n").join([top.rstrip() or top, keys])


def offer_line(obs: pb.Observation) -> Text | None:
    """The discard (or added-kong tile) on offer, if any."""
    if obs.phase not in (pb.PHASE_CLAIM, pb.PHASE_ROB_KONG) or not obs.last_discard:
        return None
    what = "adds a kong with" if obs.phase == pb.PHASE_ROB_KONG else "discarded"
    line = Text(f"On offer: {seat_name(obs, obs.last_discarder)} {what} ", style="bold")
    line.append_text(tile_text(obs.last_discard))
    return line


def render_board(obs: pb.Observation) -> RenderableType:
    """The whole screen for one observation (and the settlement once the hand has ended)."""
    if obs.phase == pb.PHASE_WAITING:
        names = ", ".join(v.player_name for v in obs.seats if v.connected)
        return Text(f"Waiting for the seats to join (connected: {names or 'nobody yet'})")
    parts: list[RenderableType] = [header(obs), seats_table(obs)]
    offer = offer_line(obs)
    if offer is not None:
        parts.append(offer)
    if obs.concealed:
        parts.append(hand_rows(obs))
    if obs.HasField("settlement"):
        parts.append(render_settlement(obs.settlement, obs))
    return Group(*parts)


def _win_lines(win: pb.Win, obs: pb.Observation) -> list[RenderableType]:
    how = WIN_KIND_NAMES.get(win.kind, "win")
    line = Text(f"{seat_name(obs, win.winner)} won by {how}", style="bold green")
    if win.HasField("discarder"):
        line.append(f" from {seat_name(obs, win.discarder)}")
    line.append(" on ")
    line.append_text(tile_text(win.win_tile))
    if win.points:  # classic (§9): a pattern's points, doubled
        line.append(f" · {win.points} points")
    else:
        line.append(f" · base {win.base} + bonus {win.bonus}")
    hand = Text("  hand: ")
    hand.append_text(tiles_text(win.concealed))
    if win.melds:
        hand.append("  ")
        hand.append_text(Text(" ").join(meld_text(m) for m in win.melds))
    fans = Table(box=None, show_header=False, padding=(0, 1, 0, 4))
    for column in ("id", "name", "fan"):
        fans.add_column(column, justify="right" if column == "fan" else "left")
    for fan in win.fans:
        value = f"×{fan.fan}" if fan.doubling else f"{fan.fan} points" if win.points else None
        fans.add_row(fan.id, fan.name_zh, value or f"{fan.fan} fan")
    if not win.fans:
        fans.add_row("(no bonus items)", "", "")
    return [line, hand, fans]


def render_settlement(settlement: pb.Settlement, obs: pb.Observation) -> RenderableType:
    """A hand's settlement: each win with its fans (id, Chinese name, fan) and the deltas."""
    parts: list[RenderableType] = [Text(f"Hand {settlement.hand_no} settlement", style="bold")]
    if settlement.outcome == pb.HAND_OUTCOME_EXHAUSTIVE_DRAW:
        parts.append(Text("荒庄 exhaustive draw: nobody won; kong payments are void."))
    for seat in settlement.false_wins:
        parts.append(
            Text(
                f"诈胡 false win: {seat_name(obs, seat)} declared a win without a winning hand "
                "and pays every other seat.",
                style="bold red",
            )
        )
    if settlement.outcome == pb.HAND_OUTCOME_FALSE_WIN:
        parts.append(Text("Nobody else won; kong payments are void."))
    for win in settlement.wins:
        parts.extend(_win_lines(win, obs))
    deltas = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in ("Seat", "Player", "Hand", "Kong", "Total", "Score"):
        deltas.add_column(column, justify="left" if column in ("Seat", "Player") else "right")
    for result in settlement.results:
        view = obs.seats[result.seat] if result.seat < len(obs.seats) else pb.SeatView()
        deltas.add_row(
            str(result.seat),
            seat_name(obs, result.seat),
            f"{result.hand_delta:+d}",
            f"{result.kong_delta:+d}",
            Text(f"{result.total_delta:+d}", style="bold"),
            str(view.score),
        )
    parts.append(deltas)
    return Group(*parts)


def change_text(change: Change) -> Text:
    """One change line, styled: melds magenta, auto-play yellow, a kong's name dim."""
    text = Text(change.words, style=CHANGE_STYLES.get(change.kind, ""))
    if change.meld_name:
        text.append(change.meld_name + " ", style="dim")
    if change.tiles:
        text.append_text(tiles_text(change.tiles))
    return text


def describe_changes(prev: pb.Observation | None, cur: pb.Observation) -> list[Text]:
    """One line per thing that happened between two observations of the same seat
    (:func:`hebei.seatclient.observations.what_changed`), styled for the terminal."""
    return [change_text(change) for change in what_changed(prev, cur)]
