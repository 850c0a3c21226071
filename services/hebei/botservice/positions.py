"""Is an observation a legal position? Checked before any policy reads it.

The policies trust their observation (the table engine builds it from the game); an
observation from anyone else is checked here first, so a bad one is refused with a message
naming the problem (INVALID_ARGUMENT), never a crash inside a policy.
"""

from __future__ import annotations

from hebei.common.errors import InvalidArgument
from hebei.rules.actions import DISCARD, PASS, Action, ActionKind
from hebei.rules.hand import Phase, chows
from hebei.rules.melds import MeldKind
from hebei.rules.tiles import N_KINDS, TILE_NAMES
from hebei.rules.views import HIDDEN, Observation
from hebei.rules.wincheck import is_win

MAX_LEGAL_ACTIONS = 64
MAX_DISCARDS = 40  # per seat: 71 draws shared by four seats, and a few kongs
MAX_WALL = 136
SEATS = range(4)


def _seat(value: int, what: str) -> None:
    if value not in SEATS:
        raise InvalidArgument(f"{what} must be a seat 0-3, got {value}")


def _census(obs: Observation) -> list[int]:
    """Copies of each kind the seat sees: its hand, every discard and every open meld."""
    seen = [0] * N_KINDS
    for kind in obs.hand:
        seen[kind] += 1
    for view in obs.seats:
        for kind in view.discards:
            seen[kind] += 1
        for meld in view.melds:
            if meld.tile != HIDDEN:
                seen[meld.tile] += meld.size
    if obs.claim is not None and obs.claim.rob:
        # a discard on offer is in its discarder's pile; an added kong's tile is in its hand
        seen[obs.claim.tile] += 1
    return seen


def _check_sizes(obs: Observation) -> None:
    own = obs.seats[obs.seat]
    n_melds = len(own.melds)
    if n_melds > 4:
        raise InvalidArgument(f"seat {obs.seat} has {n_melds} melds; a hand has at most 4")
    size = len(obs.hand)
    expected = 13 - 3 * n_melds
    on_turn = obs.phase is Phase.TURN and obs.current == obs.seat
    if on_turn:
        expected += 1
    if size != expected:
        when = "on its turn" if on_turn else "between turns"
        raise InvalidArgument(
            f"seat {obs.seat} holds {size} concealed tiles with {n_melds} melds {when}; "
            f"expected {expected}"
        )
    for view in obs.seats:
        if len(view.discards) > MAX_DISCARDS:
            raise InvalidArgument(f"seat {view.seat} has {len(view.discards)} discards")
        if len(view.melds) > 4:
            raise InvalidArgument(f"seat {view.seat} has {len(view.melds)} melds")


def _check_action(obs: Observation, action: Action, counts: list[int]) -> None:
    kind = action.kind
    tile = action.tile
    phase = obs.phase
    claim = obs.claim
    own_turn = phase is Phase.TURN and obs.current == obs.seat
    name = str(action)
    if kind is ActionKind.DISCARD:
        if not own_turn or not counts[tile]:
            raise InvalidArgument(
                f"legal action {name} does not fit: no {TILE_NAMES[tile]} to throw"
            )
    elif kind in (ActionKind.PONG, ActionKind.EXPOSED_KONG):
        need = 2 if kind is ActionKind.PONG else 3
        if phase is not Phase.CLAIMS or claim is None or claim.tile != tile or counts[tile] < need:
            raise InvalidArgument(f"legal action {name} does not fit the hand and the discard")
    elif kind is ActionKind.CONCEALED_KONG:
        if not own_turn or counts[tile] != 4:
            raise InvalidArgument(f"legal action {name} needs four {TILE_NAMES[tile]} in hand")
    elif kind is ActionKind.ADDED_KONG:
        pongs = [m for m in obs.seats[obs.seat].melds if m.kind is MeldKind.PONG]
        if not own_turn or not counts[tile] or all(m.tile != tile for m in pongs):
            raise InvalidArgument(
                f"legal action {name} needs a pong of {TILE_NAMES[tile]} and one in hand"
            )
    elif kind is ActionKind.CHOW:
        if not obs.profile.allow_chow:
            raise InvalidArgument(f"legal action {name}: the {obs.profile.name} rules have no chow")
        if (
            phase is not Phase.CLAIMS
            or claim is None
            or claim.rob
            or claim.from_seat != (obs.seat - 1) % 4
            or action not in chows(counts, claim.tile)
        ):
            raise InvalidArgument(
                f"legal action {name} does not fit: a chow takes the previous seat's discard"
                " into a run with two tiles of the hand"
            )
    elif kind is ActionKind.PASS:
        if phase not in (Phase.CLAIMS, Phase.ROB):
            raise InvalidArgument("pass is only legal on a claim")
    elif kind is ActionKind.WIN:
        full = list(counts)
        if claim is not None:
            full[claim.tile] += 1
        elif not own_turn:
            raise InvalidArgument("win is only legal on the seat's turn or on a claim")
        if max(full) > 4 or not is_win(full, len(obs.seats[obs.seat].melds)):
            raise InvalidArgument("legal action win does not fit: the hand is not complete")


def check_observation(obs: Observation) -> None:
    """Raise :class:`InvalidArgument` unless ``obs`` is a position a policy can rank."""
    _seat(obs.seat, "seat")
    _seat(obs.dealer, "dealer")
    _seat(obs.current, "current_seat")
    if obs.phase not in (Phase.TURN, Phase.CLAIMS, Phase.ROB):
        raise InvalidArgument(f"there is nothing to decide in phase {obs.phase.value}")
    if obs.claim is not None:
        _seat(obs.claim.from_seat, "last_discarder")
        if obs.claim.from_seat == obs.seat:
            raise InvalidArgument("a seat does not answer its own discard")
    if not 0 <= obs.wall <= MAX_WALL:
        raise InvalidArgument(f"wall_count must be 0-{MAX_WALL}, got {obs.wall}")
    _check_sizes(obs)
    if obs.drawn is not None and obs.drawn not in obs.hand:
        raise InvalidArgument(f"the drawn tile {TILE_NAMES[obs.drawn]} is not in the hand")
    over = [TILE_NAMES[k] for k, n in enumerate(_census(obs)) if n > 4]
    if over:
        raise InvalidArgument(f"more than four copies in sight of {', '.join(over)}")
    legal = obs.legal_actions
    if not legal:
        raise InvalidArgument("the observation has no legal actions: nothing to decide")
    if len(legal) > MAX_LEGAL_ACTIONS:
        raise InvalidArgument(f"at most {MAX_LEGAL_ACTIONS} legal actions, got {len(legal)}")
    if len(set(legal)) != len(legal):
        raise InvalidArgument("the legal actions repeat an action")
    counts = obs.counts()
    for action in legal:
        _check_action(obs, action, counts)
    _check_complete(obs, counts)


def _check_complete(obs: Observation, counts: list[int]) -> None:
    """The legal actions leave out none the rules always give: on its turn a seat may throw
    any tile it holds, and a claim may always be passed (the policies rank every such one)."""
    legal = set(obs.legal_actions)
    if obs.phase is Phase.TURN:
        missing = [TILE_NAMES[k] for k, n in enumerate(counts) if n and DISCARD[k] not in legal]
        if missing:
            raise InvalidArgument(
                "the legal actions leave out discarding "
                f"{', '.join(missing)}: on its turn a seat may throw any tile it holds"
            )
    elif PASS not in legal:
        raise InvalidArgument("the legal actions leave out pass: a claim may always be passed")
