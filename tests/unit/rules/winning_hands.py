"""Test helpers for scoring: build a WinContext from notation, and hypothesis strategies
that draw random legal wins (standard with melds, seven pairs, thirteen orphans)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from hebei.rules.melds import Meld, MeldKind, is_run_base
from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.scoring import WinContext, WinKind
from hebei.rules.tiles import COPIES, DRAGONS, N_KINDS, ORPHANS, parse_tiles, to_counts


def win(
    hand: str,
    win_tile: str | None = None,
    *,
    melds: tuple[tuple[str, str], ...] = (),
    how: str = "self_draw",
    winner: int = 0,
    dealer: int = 0,
    discarder: int | None = None,
    profile: RuleProfile = MAIN,
    **flags: Any,
) -> WinContext:
    """A checked WinContext: ``win("123m...", "5m", melds=(("pong", "7z"),), how="discard")``.

    The winning tile defaults to the last tile written; a discard or robbed-kong win
    defaults to the discarder after the winner. The context is checked against ``profile``
    (a chow meld, ``("chow", "1m")``, needs the classic one).
    """
    if win_tile is None:
        win_tile = hand[-2] + hand[-1]
    obj: dict[str, Any] = {
        "hand": hand,
        "melds": [{"type": kind, "tile": tile} for kind, tile in melds],
        "win_tile": win_tile,
        "win": how,
        "winner": winner,
        "dealer": dealer,
        **flags,
    }
    if how != "self_draw":
        obj["discarder"] = (winner + 1) % 4 if discarder is None else discarder
    return WinContext.from_json(obj, profile)


def counts_of(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


# The meld kinds of the main rules (no chow): pong and the three kongs.
_MELD_KINDS = tuple(k for k in MeldKind if k is not MeldKind.CHOW)


@st.composite
def standard_hands(
    draw: st.DrawFn, meld_kinds: tuple[MeldKind, ...] = _MELD_KINDS
) -> tuple[list[int], tuple[Meld, ...]]:
    """(concealed counts, melds) of a random standard winning hand, copies respected; the
    melds are of ``meld_kinds`` (the main ones; add ``MeldKind.CHOW`` for the classic rules)."""
    left = [COPIES] * N_KINDS
    n_melds = draw(st.integers(0, 4))
    melds = []
    for _ in range(n_melds):
        kind = draw(st.sampled_from(meld_kinds))
        fits = [k for k in range(N_KINDS) if all(left[t] >= n for t, n in _needs(kind, k))]
        tile = draw(st.sampled_from(fits))
        for t, n in _needs(kind, tile):
            left[t] -= n
        melds.append(Meld(kind, tile, None))
    concealed = [0] * N_KINDS
    for _ in range(4 - n_melds):
        options = [("pung", k) for k in range(N_KINDS) if left[k] >= 3]
        options += [
            ("chow", k)
            for k in range(27)
            if k % 9 <= 6 and min(left[k], left[k + 1], left[k + 2]) >= 1
        ]
        shape, k = draw(st.sampled_from(options))
        for t in (k, k, k) if shape == "pung" else (k, k + 1, k + 2):
            left[t] -= 1
            concealed[t] += 1
    pair = draw(st.sampled_from([k for k in range(N_KINDS) if left[k] >= 2]))
    concealed[pair] += 2
    return concealed, tuple(melds)


def _needs(kind: MeldKind, tile: int) -> list[tuple[int, int]]:
    """The (kind, copies) a meld of ``kind`` on ``tile`` takes; nothing possible: too many."""
    if kind is MeldKind.CHOW:
        if not is_run_base(tile):
            return [(tile, COPIES + 1)]
        return [(tile, 1), (tile + 1, 1), (tile + 2, 1)]
    return [(tile, 3 if kind is MeldKind.PONG else 4)]


@st.composite
def seven_pairs_hands(draw: st.DrawFn) -> tuple[list[int], tuple[Meld, ...]]:
    concealed = [0] * N_KINDS
    for _ in range(7):
        k = draw(st.sampled_from([k for k in range(N_KINDS) if concealed[k] <= 2]))
        concealed[k] += 2
    return concealed, ()


@st.composite
def thirteen_orphans_hands(draw: st.DrawFn) -> tuple[list[int], tuple[Meld, ...]]:
    concealed = [0] * N_KINDS
    for k in ORPHANS:
        concealed[k] = 1
    concealed[draw(st.sampled_from(DRAGONS))] += 1
    return concealed, ()


winning_hands = st.one_of(standard_hands(), seven_pairs_hands(), thirteen_orphans_hands())


@st.composite
def winning_contexts(draw: st.DrawFn) -> WinContext:
    """A random legal, consistent win: tiles, winning tile, how, seats and flags."""
    concealed, melds = draw(winning_hands)
    win_tile = draw(st.sampled_from([k for k in range(N_KINDS) if concealed[k]]))
    robbable = concealed[win_tile] == 1 and all(m.tile != win_tile for m in melds)
    how = draw(st.sampled_from(list(WinKind) if robbable else [WinKind.SELF_DRAW, WinKind.DISCARD]))
    winner = draw(st.integers(0, 3))
    discarder = None
    if how is not WinKind.SELF_DRAW:
        discarder = draw(st.sampled_from([s for s in range(4) if s != winner]))
    return WinContext(
        concealed=tuple(concealed),
        melds=melds,
        win_tile=win_tile,
        win=how,
        winner=winner,
        dealer=draw(st.integers(0, 3)),
        discarder=discarder,
        kong_replacement=draw(st.booleans()),
        last_tile=draw(st.booleans()),
    )
