"""The state machine of one hand (局), RULES.md §2-§3 (and §9 with the classic profile).

:class:`HandState` is built from a seed, a dealer and a rule profile. Seats act
through :meth:`HandState.apply`; :meth:`HandState.legal_actions` lists what each
seat may do now. Draws, the claim window after a discard, robbing an added kong
and the end of the hand happen by themselves. Every step appends a
JSON-serialisable event to :attr:`HandState.events`; the first one carries the
seed, so :func:`hebei.rules.replay.replay_hand` rebuilds the hand exactly.

An illegal action raises :class:`IllegalActionError` with the reason and leaves
the state untouched (every check happens before the first mutation).

Chow (§9, ``allow_chow``): the seat after the discarder is offered every run its hand
completes with the discard (``CHOW[lowest tile]``); claims resolve win > pong/kong > chow.

False win (§9 诈胡, ``false_win_penalty``): a seat with a decision to make may send WIN
although :meth:`HandState.legal_actions` does not list it (only people do: bots choose
among the legal actions). :meth:`HandState.accepts_false_win` says when. The seat pays
the penalty and the hand ends (after the claim window it was sent in, whose real wins
are settled too); the log marks the win event ``"false_win": true``.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Sequence
from dataclasses import dataclass

from hebei.rules.actions import (
    ADDED_KONG,
    CHOW,
    CONCEALED_KONG,
    DISCARD,
    EXPOSED_KONG,
    PASS,
    PONG,
    WIN,
    Action,
    ActionKind,
)
from hebei.rules.errors import IllegalActionError
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import MAIN, RuleProfile
from hebei.rules.scoring import (
    HandSettlement,
    KongRecord,
    ScoredWin,
    WinContext,
    WinKind,
    score_win,
    settle_hand,
)
from hebei.rules.tiles import N_KINDS, TILE_NAMES, format_counts, rank_of, to_counts
from hebei.rules.wall import Wall
from hebei.rules.wincheck import checker

SEATS = (0, 1, 2, 3)


class Phase(enum.Enum):
    TURN = "turn"  # the current seat wins, kongs or discards
    CLAIMS = "claims"  # other seats answer a discard: win, pong, kong, chow or pass
    ROB = "rob"  # other seats may rob an added kong
    ENDED = "ended"


class Outcome(enum.Enum):
    WIN = "win"
    EXHAUSTIVE_DRAW = "exhaustive_draw"
    FALSE_WIN = "false_win"  # §9: the hand ended on a false win, and no real one


@dataclass(frozen=True, slots=True)
class HandResult:
    outcome: Outcome
    winners: tuple[int, ...]
    settlement: HandSettlement


class HandState:
    """One hand from the deal to a win or an exhaustive draw."""

    def __init__(
        self,
        seed: int,
        dealer: int,
        hand_no: int = 0,
        profile: RuleProfile = MAIN,
        *,
        wall: Wall | None = None,
    ) -> None:
        """Deal a hand from ``seed``. ``wall`` replaces the shuffled wall (tests only:
        such a hand does not replay from its seed)."""
        if dealer not in SEATS:
            raise ValueError(f"dealer must be a seat 0-3, got {dealer!r}")
        self.seed = seed
        self.dealer = dealer
        self.hand_no = hand_no
        self.profile = profile
        wins = checker(profile)
        self._is_win = wins.wins  # (concealed counts, melds): the profile's legal win
        self._may_be_ready = wins.may_be_ready
        self.wall = Wall.shuffled(random.Random(seed), profile) if wall is None else wall
        dealt = self.wall.deal(dealer)
        self.hands: list[list[int]] = [to_counts(h) for h in dealt]
        # The dealer's 14th tile stands for the drawn tile if the dealer wins at once.
        self._dealer_extra = dealt[dealer][-1]
        self.melds: list[list[Meld]] = [[], [], [], []]
        self.discards: list[list[int]] = [[], [], [], []]
        self.kongs: list[KongRecord] = []
        self.phase = Phase.TURN
        self.current = dealer
        self.drawn: int | None = None  # the tile the current seat drew this turn
        self.replacement = False  # ... from the tail, after a kong
        self.last_draw = False  # ... and it was the last normal draw (海底)
        self.after_claim = False  # a turn after a pong or chow: discard only
        self.claim_tile: int | None = None  # the discard (or added-kong tile) being answered
        self.claim_from: int | None = None
        self.pending: dict[int, tuple[Action, ...]] = {}
        self.responses: dict[int, tuple[Action, bool]] = {}
        self._false_wins: list[int] = []  # seats whose win declared in this window is false
        self.result: HandResult | None = None
        self._turn_actions: tuple[Action, ...] | None = None
        # May each seat's 3n+1 hand be ready (听)? Only a ready hand can win on the next tile,
        # so the win checks of claims and self-draws skip the others. None = not known yet.
        self._ready: list[bool | None] = [None, None, None, None]
        self._drawn_ready = True  # was the current seat ready before its draw
        self.events: list[dict] = [
            {
                "type": "hand_start",
                "seed": seed,
                "hand_no": hand_no,
                "dealer": dealer,
                "profile": profile.name,
                "dice": list(self.wall.dice),
            },
            {"type": "deal", "hands": [format_counts(h) for h in self.hands]},
        ]

    # ------------------------------------------------------------------ queries

    @property
    def ended(self) -> bool:
        return self.phase is Phase.ENDED

    def can_kong(self) -> bool:
        """A kong needs a live tile for its replacement (RULES.md §2)."""
        return self.wall.live >= 1

    def _is_ready(self, seat: int) -> bool:
        """Whether ``seat``'s hand (3n+1 tiles) may be one tile from a win (a cheap necessary
        condition, see :meth:`WinChecker.may_be_ready`); cached until the hand changes."""
        ready = self._ready[seat]
        if ready is None:
            ready = self._ready[seat] = self._may_be_ready(self.hands[seat], len(self.melds[seat]))
        return ready

    def to_act(self) -> tuple[int, ...]:
        """Seats that have a decision to make now."""
        if self.phase is Phase.TURN:
            return (self.current,)
        if self.phase is Phase.ENDED:
            return ()
        return tuple(s for s in self.pending if s not in self.responses)

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        phase = self.phase
        if phase is Phase.TURN:
            if seat != self.current:
                return ()
            if self._turn_actions is None:
                self._turn_actions = self._compute_turn_actions()
            return self._turn_actions
        if phase is Phase.ENDED or seat in self.responses:
            return ()
        return self.pending.get(seat, ())

    def accepts_false_win(self, seat: int) -> bool:
        """Would :meth:`apply` take WIN from ``seat`` as a false win (§9 诈胡)? Only in a
        profile with a false-win penalty, from a seat with a decision to make now, when a
        win is not among its legal actions."""
        return (
            self.profile.false_win_penalty > 0
            and seat in self.to_act()
            and WIN not in self.legal_actions(seat)
        )

    def _compute_turn_actions(self) -> tuple[Action, ...]:
        seat = self.current
        hand = self.hands[seat]
        acts: list[Action] = []
        if not self.after_claim:
            may_win = self.drawn is None or self.replacement or self._drawn_ready
            if may_win and self._is_win(hand, self.melds[seat]):
                acts.append(WIN)
            if self.can_kong():
                if 4 in hand:
                    acts.extend(CONCEALED_KONG[k] for k in range(N_KINDS) if hand[k] == 4)
                for meld in self.melds[seat]:
                    if meld.kind is MeldKind.PONG and hand[meld.tile]:
                        acts.append(ADDED_KONG[meld.tile])
        acts += [DISCARD[k] for k, c in enumerate(hand) if c]
        return tuple(acts)

    def auto_action(self, seat: int) -> Action:
        """What the system plays for a seat that timed out, left or handed over (§3):
        any win it can; else discard the tile just drawn, or (no draw this turn) the last
        tile of its sorted hand; never pong, kong or chow (nor a false win)."""
        options = self.legal_actions(seat)
        if not options:
            raise IllegalActionError(self._why_not(seat, None))
        if WIN in options:
            return WIN
        if self.phase is not Phase.TURN:
            return PASS
        hand = self.hands[seat]
        if self.drawn is not None and hand[self.drawn]:
            return DISCARD[self.drawn]
        return DISCARD[max(k for k in range(N_KINDS) if hand[k])]

    def tile_census(self) -> list[int]:
        """How many of each kind are in hands, melds, discards and the wall (always 4 each)."""
        counts = self.wall.counts()
        for seat in SEATS:
            for k, c in enumerate(self.hands[seat]):
                counts[k] += c
            for meld in self.melds[seat]:
                for k in meld.tiles:
                    counts[k] += 1
            for k in self.discards[seat]:
                counts[k] += 1
        return counts

    # ------------------------------------------------------------------ acting

    def apply(self, seat: int, action: Action, *, auto: bool = False) -> None:
        """Apply ``action`` for ``seat``; raise :class:`IllegalActionError` if it is not legal
        (a WIN that :meth:`accepts_false_win` is taken as a false win instead)."""
        false_win = False
        if action not in self.legal_actions(seat):
            if action is not WIN or not self.accepts_false_win(seat):
                raise IllegalActionError(self._why_not(seat, action))
            false_win = True
        if self.phase is Phase.TURN:
            if false_win:
                self._log(seat, action, auto, false_win=True)
                self._end((), (seat,))
                return
            self._turn_action(seat, action, auto)
        else:
            self.responses[seat] = (action, auto)
            if action is PASS:
                extra = {}
            elif action.kind is ActionKind.CHOW:  # the action's tile is the run's lowest
                extra = {"from": self.claim_from, "claimed": TILE_NAMES[self.claim_tile]}
            else:
                extra = {"tile": TILE_NAMES[self.claim_tile], "from": self.claim_from}
            if false_win:
                self._false_wins.append(seat)
                extra["false_win"] = True
            self._log(seat, action, auto, **extra)
            if len(self.responses) == len(self.pending):
                if self.phase is Phase.CLAIMS:
                    self._resolve_claims()
                else:
                    self._resolve_rob()

    def _why_not(self, seat: int, action: Action | None) -> str:
        what = "act" if action is None else str(action)
        if seat not in SEATS:
            return f"seat {seat!r} does not exist: seats are 0-3"
        if self.phase is Phase.ENDED:
            return f"seat {seat} cannot {what}: the hand has ended"
        if self.phase is Phase.TURN and seat != self.current:
            return f"seat {seat} cannot {what}: it is seat {self.current}'s turn"
        if self.phase is not Phase.TURN:
            if seat in self.responses:
                return f"seat {seat} cannot {what}: it has already answered this {self.phase.value}"
            if seat not in self.pending:
                return (
                    f"seat {seat} cannot {what}: it has no claim on {TILE_NAMES[self.claim_tile]}"
                )
        options = ", ".join(str(a) for a in self.legal_actions(seat))
        if action is not None and action.kind is ActionKind.CHOW:
            if not self.profile.allow_chow:
                return f"seat {seat} cannot {what}: the {self.profile.name} rules have no chow"
            if self.phase is Phase.CLAIMS and seat != (self.claim_from + 1) % 4:
                return (
                    f"seat {seat} cannot {what}: only seat {(self.claim_from + 1) % 4}, next "
                    f"after the discarder, may chow (legal: {options})"
                )
        elif action is not None and action.tile is not None and not self.hands[seat][action.tile]:
            return f"seat {seat} cannot {what}: it holds no {TILE_NAMES[action.tile]} (legal: {options})"
        return f"seat {seat} cannot {what} now (legal: {options})"

    def _log(self, seat: int, action: Action, auto: bool, **extra) -> None:
        event = {"type": action.kind.value, "seat": seat}
        if action.tile is not None:
            event["tile"] = TILE_NAMES[action.tile]
        event.update(extra)
        if auto:
            event["auto"] = True
        self.events.append(event)

    def _turn_action(self, seat: int, action: Action, auto: bool) -> None:
        kind = action.kind
        hand = self.hands[seat]
        self._turn_actions = None
        if kind is ActionKind.DISCARD:
            tile = action.tile
            hand[tile] -= 1
            self._ready[seat] = None
            self.discards[seat].append(tile)
            self._log(seat, action, auto)
            self._open_claims(seat, tile)
        elif kind is ActionKind.WIN:
            tile = self._dealer_extra if self.drawn is None else self.drawn
            self._log(seat, action, auto, tile=TILE_NAMES[tile])
            win = self._score(seat, tile, WinKind.SELF_DRAW, None, hand)
            self._end((win,))
        elif kind is ActionKind.CONCEALED_KONG:
            hand[action.tile] -= 4
            self._ready[seat] = None
            self.melds[seat].append(Meld(MeldKind.CONCEALED_KONG, action.tile))
            self.kongs.append(KongRecord(seat, MeldKind.CONCEALED_KONG, None))
            self._log(seat, action, auto)
            self._draw(seat, replacement=True)
        elif kind is ActionKind.ADDED_KONG:
            self._log(seat, action, auto)
            self._open_rob(seat, action.tile)

    # -- claims after a discard

    def _open_claims(self, discarder: int, tile: int) -> None:
        pending: dict[int, tuple[Action, ...]] = {}
        kong_ok = self.can_kong()
        for offset in (1, 2, 3):
            seat = (discarder + offset) % 4
            hand = self.hands[seat]
            held = hand[tile]
            opts: list[Action] = []
            if held < 4 and self._is_ready(seat):
                hand[tile] = held + 1
                if self._is_win(hand, self.melds[seat]):
                    opts.append(WIN)
                hand[tile] = held
            if held >= 2:
                opts.append(PONG[tile])
                if held == 3 and kong_ok:
                    opts.append(EXPOSED_KONG[tile])
            if offset == 1 and self.profile.allow_chow:
                opts.extend(chows(hand, tile))
            if opts:
                opts.append(PASS)
                pending[seat] = tuple(opts)
        if not pending:
            self._draw((discarder + 1) % 4)
            return
        self.phase = Phase.CLAIMS
        self.claim_tile = tile
        self.claim_from = discarder
        self.pending = pending
        self.responses = {}

    def _answers(self) -> list[tuple[int, Action]]:
        """The answers of the claim window, in seat order after the claimed seat."""
        order = ((self.claim_from + offset) % 4 for offset in (1, 2, 3))
        return [(seat, self.responses[seat][0]) for seat in order if seat in self.responses]

    def _close_window(self) -> None:
        self.pending = {}
        self.responses = {}
        self.claim_tile = None
        self.claim_from = None
        self._false_wins = []

    def _resolve_claims(self) -> None:
        tile, discarder = self.claim_tile, self.claim_from
        answers = self._answers()
        false_wins = tuple(s for s, _ in answers if s in self._false_wins)
        winners = [s for s, action in answers if action is WIN and s not in false_wins]
        # Priority (§3, §9): win > pong/kong > chow; only the next seat can chow.
        claim = next(
            ((s, a) for s, a in answers if a.kind in (ActionKind.PONG, ActionKind.EXPOSED_KONG)),
            None,
        ) or next(((s, a) for s, a in answers if a.kind is ActionKind.CHOW), None)
        self._close_window()
        if winners or false_wins:
            wins = tuple(self._score_claimed(s, tile, WinKind.DISCARD, discarder) for s in winners)
            self._end(wins, false_wins)
        elif claim is not None:
            seat, action = claim
            self.discards[discarder].pop()
            hand = self.hands[seat]
            self._ready[seat] = None
            if action.kind is ActionKind.PONG:
                hand[tile] -= 2
                self.melds[seat].append(Meld(MeldKind.PONG, tile, discarder))
                self._start_turn(seat, None, after_claim=True)
            elif action.kind is ActionKind.CHOW:
                base = action.tile
                for k in (base, base + 1, base + 2):
                    if k != tile:
                        hand[k] -= 1
                self.melds[seat].append(Meld(MeldKind.CHOW, base, discarder))
                self._start_turn(seat, None, after_claim=True)
            else:
                hand[tile] -= 3
                self.melds[seat].append(Meld(MeldKind.EXPOSED_KONG, tile, discarder))
                self.kongs.append(KongRecord(seat, MeldKind.EXPOSED_KONG, discarder))
                self._draw(seat, replacement=True)
        else:
            self._draw((discarder + 1) % 4)

    # -- robbing an added kong

    def _open_rob(self, konger: int, tile: int) -> None:
        pending: dict[int, tuple[Action, ...]] = {}
        for offset in (1, 2, 3):
            seat = (konger + offset) % 4
            hand = self.hands[seat]
            if hand[tile] >= 4 or not self._is_ready(seat):
                continue
            hand[tile] += 1
            if self._is_win(hand, self.melds[seat]):
                pending[seat] = (WIN, PASS)
            hand[tile] -= 1
        self.claim_tile = tile
        self.claim_from = konger
        if not pending:
            self._complete_added_kong()
            return
        self.phase = Phase.ROB
        self.pending = pending
        self.responses = {}

    def _complete_added_kong(self) -> None:
        konger, tile = self.claim_from, self.claim_tile
        self._close_window()
        self.hands[konger][tile] -= 1
        self._ready[konger] = None
        melds = self.melds[konger]
        i = next(i for i, m in enumerate(melds) if m.kind is MeldKind.PONG and m.tile == tile)
        melds[i] = Meld(MeldKind.ADDED_KONG, tile, melds[i].from_seat)
        self.kongs.append(KongRecord(konger, MeldKind.ADDED_KONG, None))
        self._draw(konger, replacement=True)

    def _resolve_rob(self) -> None:
        answers = self._answers()
        winners = [seat for seat, action in answers if action is WIN]
        if not winners:
            self._complete_added_kong()
            return
        konger, tile = self.claim_from, self.claim_tile
        self._close_window()
        # The robbed tile leaves the konger's hand as if discarded; the kong is not made.
        self.hands[konger][tile] -= 1
        self._ready[konger] = None
        self.discards[konger].append(tile)
        wins = tuple(self._score_claimed(s, tile, WinKind.ROB_KONG, konger) for s in winners)
        self._end(wins)

    # -- draws, turns, the end

    def _start_turn(
        self,
        seat: int,
        drawn: int | None,
        *,
        after_claim: bool = False,
        replacement: bool = False,
        last_draw: bool = False,
    ) -> None:
        self.phase = Phase.TURN
        self.current = seat
        self.drawn = drawn
        self.after_claim = after_claim
        self.replacement = replacement
        self.last_draw = last_draw
        self._turn_actions = None

    def _draw(self, seat: int, replacement: bool = False) -> None:
        wall = self.wall
        if replacement:
            tile = wall.draw_replacement()
            self.events.append(
                {"type": "draw", "seat": seat, "tile": TILE_NAMES[tile], "replacement": True}
            )
            self._ready[seat] = None
            self.hands[seat][tile] += 1
            self._start_turn(seat, tile, replacement=True)
            return
        live = wall.live
        if live <= 0:
            self._end(())
            return
        tile = wall.draw()
        self.events.append({"type": "draw", "seat": seat, "tile": TILE_NAMES[tile]})
        self._drawn_ready = self._is_ready(seat)
        self._ready[seat] = None
        self.hands[seat][tile] += 1
        self._start_turn(seat, tile, last_draw=live == 1)

    def _score_claimed(self, seat: int, tile: int, win: WinKind, discarder: int) -> ScoredWin:
        hand = list(self.hands[seat])
        hand[tile] += 1
        return self._score(seat, tile, win, discarder, hand)

    def _score(
        self, seat: int, tile: int, win: WinKind, discarder: int | None, concealed: Sequence[int]
    ) -> ScoredWin:
        ctx = WinContext(
            concealed=tuple(concealed),
            melds=tuple(self.melds[seat]),
            win_tile=tile,
            win=win,
            winner=seat,
            dealer=self.dealer,
            discarder=discarder,
            kong_replacement=win is WinKind.SELF_DRAW and self.replacement,
            last_tile=win is WinKind.SELF_DRAW and self.last_draw,
        )
        scored = score_win(ctx, self.profile)
        if scored is None:  # the fast check and the full reading disagree: a bug, not a user error
            raise AssertionError(f"seat {seat} was offered a win the scorer rejects: {ctx}")
        return scored

    def _end(self, wins: tuple[ScoredWin, ...], false_wins: tuple[int, ...] = ()) -> None:
        settlement = settle_hand(
            wins, self.kongs, self.profile, false_wins=false_wins, dealer=self.dealer
        )
        if wins:
            outcome = Outcome.WIN
        else:
            outcome = Outcome.FALSE_WIN if false_wins else Outcome.EXHAUSTIVE_DRAW
        self.result = HandResult(outcome, tuple(w.winner for w in wins), settlement)
        self.phase = Phase.ENDED
        self._turn_actions = None
        self.events.append(
            {"type": "hand_end", "outcome": outcome.value, "settlement": settlement.to_json()}
        )


def _runs_through(tile: int) -> tuple[tuple[Action, int, int], ...]:
    """Each run through ``tile`` within its suit: (its chow, the two other tiles)."""
    if tile >= 27:
        return ()
    suit_start = tile - (rank_of(tile) - 1)
    return tuple(
        (CHOW[base], *(k for k in (base, base + 1, base + 2) if k != tile))
        for base in range(max(suit_start, tile - 2), min(tile, suit_start + 6) + 1)
    )


_RUNS_THROUGH = tuple(_runs_through(k) for k in range(N_KINDS))


def chows(hand: Sequence[int], tile: int) -> list[Action]:
    """The chows of ``tile`` the concealed ``hand`` can make: every run through ``tile``
    whose two other tiles it holds (no honors), as ``CHOW[lowest tile]``."""
    return [chow for chow, a, b in _RUNS_THROUGH[tile] if hand[a] and hand[b]]
