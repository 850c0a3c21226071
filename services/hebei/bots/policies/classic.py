"""Playing a rule profile with chow, a one-suit minimum or doubling scoring (RULES.md §9).

The main-rules code of the policies stays as it is; a policy hands an observation whose
profile :func:`plays_classic` to the functions here:

- the distance to a legal win of the profile (:func:`profile_shanten`): the shanten of the
  hand raised to the tiles of one suit still lacking (§9 一色够八张, the lower bound of
  :func:`hebei.rules.shanten.shanten_in`), and a hand "ready" by that count with no legal
  wait (:func:`hebei.rules.wincheck.legal_waits`) counted one step away: a hand that cannot
  reach eight of one suit is not ready;
- its useful tiles (:func:`profile_ukeire`), discards (:func:`discard_choices`) and claims,
  chows included (:func:`claim_choices`: the hand each claim leaves and its best discard);
- ``efficiency`` (:func:`efficiency_choose`, :func:`efficiency_rank`): the fewest steps to a
  legal win, then the most useful tiles; a chow or pong when it lowers the distance;
- ``expert`` (:func:`expert_rank`): the exact distance instead of the bound
  (:func:`hebei.bots.policies.classic_shanten.exact_shanten`: a hand whose sets leave its
  long suit short is counted as far as it is; against three efficiency players it gained
  +0.61 ± 0.43 points a hand over the bound on the tuning walls of seed 5 and +0.09 ± 0.46
  on those of seed 7, 80 seeds each, paired per seed, but -0.10 ± 0.25 on the evaluation
  walls, 240 seeds: no gain in strength shown; kept as the true count, and its decision CPU
  p99 is lower: 2.8 ms against 3.9), and each action priced in expected points,
  ``P(win) x (points of that win + what a win of another seat would cost)`` plus kong
  payments, minus a fixed cost per step from a win (speed first: the measured trade-offs are
  at :data:`STEP_COST`); the win's points exact on a ready hand (every legal wait scored by
  the profile, self-draws and discard wins mixed) and estimated on the way (门清 kept, one
  suit); P(win) counts the useful tiles a claim can bring more often (:func:`reachable`: a
  pair's third from any seat, a run's tile from the previous seat). A chow, or a pong of the
  previous seat's discard, takes the place of the seat's own next draw, so it is charged what
  that draw is worth to the hand held (:func:`draw_forgone`; paired per seed against three
  efficiency players on the tuning walls, seed 5 102 seeds and seed 7 70: +0.24 ± 0.20 points
  a hand). Under §9 every other
  seat pays a win, whoever discarded, so a discard carries no extra danger: no defence.

Claims resolve win > pong/kong > chow at the table; a policy only chooses its own answer.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from hebei.bots.policies.classic_shanten import exact_shanten
from hebei.bots.policies.options import Option
from hebei.bots.policies.speed import win_probability
from hebei.bots.policies.value import SELF_DRAW_SHARE
from hebei.rules.actions import DISCARD, PASS, WIN, Action, ActionKind
from hebei.rules.hand import Phase
from hebei.rules.melds import Meld, MeldKind
from hebei.rules.profile import RuleProfile
from hebei.rules.scoring import WinContext, WinKind, score_win
from hebei.rules.shanten import shanten, shanten_in
from hebei.rules.tiles import N_KINDS
from hebei.rules.views import Observation
from hebei.rules.wincheck import legal_waits

_CACHE_LIMIT = 50_000  # entries per memo table (see hebei.bots.policies.waits)
KONG_TILES = {ActionKind.CONCEALED_KONG: 4, ActionKind.EXPOSED_KONG: 3, ActionKind.ADDED_KONG: 1}
CLAIMS = (ActionKind.PONG, ActionKind.EXPOSED_KONG, ActionKind.CHOW)


def plays_classic(profile: RuleProfile) -> bool:
    """Does ``profile`` need this module (chow, a one-suit minimum or doubling scoring)?"""
    return profile.allow_chow or profile.one_suit_minimum > 0 or profile.scoring != "additive"


# ---------------------------------------------------------------------- distance to a win


@functools.lru_cache(maxsize=4096)
def meld_suits(melds: tuple[Meld, ...]) -> tuple[int, int, int, bool]:
    """Tiles of each suit in the declared ``melds`` (a kong counts four), and whether any
    meld is suited (memoised: a hand's melds change a few times a hand)."""
    per = [0, 0, 0]
    suited = False
    for meld in melds:
        for k in meld.tiles:
            if 0 <= k < 27:
                per[k // 9] += 1
                suited = True
    return per[0], per[1], per[2], suited


def suit_totals(counts: Sequence[int]) -> list[int]:
    """Concealed tiles of each suit."""
    return [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]


def _lacking_of(totals: Sequence[int], in_melds: tuple[int, int, int, bool], minimum: int) -> int:
    """:func:`lacking` from the concealed suit totals and :func:`meld_suits`."""
    m0, m1, m2, suited = in_melds
    t0, t1, t2 = totals
    need = min(max(0, minimum - t0 - m0), max(0, minimum - t1 - m1), max(0, minimum - t2 - m2))
    if not suited:  # 清风: give up every suited tile instead
        need = min(need, t0 + t1 + t2)
    return need


def lacking(counts: Sequence[int], melds: tuple[Meld, ...], minimum: int) -> int:
    """Tiles of one suit still lacking for the profile's minimum (0: enough, or none needed
    on an all-honors hand without a suited meld), as :func:`shanten_in` counts them."""
    return _lacking_of(suit_totals(counts), meld_suits(melds), minimum)


def _lacking_changed(
    totals: list[int], in_melds: tuple[int, int, int, bool], minimum: int, kind: int, by: int
) -> int:
    """:func:`lacking` of the hand of suit ``totals`` with one ``kind`` more (``by`` 1) or
    less (-1); ``totals`` is restored."""
    if kind >= 27:
        return _lacking_of(totals, in_melds, minimum)
    suit = kind // 9
    totals[suit] += by
    try:
        return _lacking_of(totals, in_melds, minimum)
    finally:
        totals[suit] -= by


_shanten_cache: dict[tuple[bytes, tuple[Meld, ...], RuleProfile], int] = {}
_waits_cache: dict[tuple[bytes, tuple[Meld, ...], RuleProfile], tuple[int, ...]] = {}


def _remember(cache: dict, key: object, value: object) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def bound_shanten(
    counts: Sequence[int],
    melds: tuple[Meld, ...],
    profile: RuleProfile,
    short: int | None = None,
    exact: bool = False,
) -> int:
    """:func:`hebei.rules.shanten.shanten_in` (a lower bound, -1 exactly on a legal win), on
    the fast shanten tables when the suit is not what binds. ``short``: the hand's
    :func:`lacking`, when the caller has it. ``exact``: the exact distance instead
    (:func:`hebei.bots.policies.classic_shanten.exact_shanten`)."""
    if exact and profile.one_suit_minimum:
        return exact_shanten(counts, len(melds), meld_suits(melds), profile)
    fast = shanten(counts, len(melds), profile)
    minimum = profile.one_suit_minimum
    if not minimum:
        return fast
    bound = (lacking(counts, melds, minimum) if short is None else short) - 1
    if bound <= fast:
        return fast
    if melds:  # with melds the fast shanten is the standard form's
        return bound
    key = (bytes(counts), melds, profile)
    found = _shanten_cache.get(key)
    if found is None:
        found = shanten_in(counts, melds, profile)
        _remember(_shanten_cache, key, found)
    return found


def waits(counts: list[int], melds: tuple[Meld, ...], profile: RuleProfile) -> tuple[int, ...]:
    """The legal waits of the 3n+1 hand (memoised)."""
    key = (bytes(counts), melds, profile)
    found = _waits_cache.get(key)
    if found is None:
        found = tuple(legal_waits(counts, melds, profile))
        _remember(_waits_cache, key, found)
    return found


def profile_shanten(counts: list[int], melds: tuple[Meld, ...], profile: RuleProfile) -> int:
    """Steps of the 3n+1 hand from a legal win of ``profile``: 0 only with a legal wait."""
    value = bound_shanten(counts, melds, profile)
    if value == 0 and not waits(counts, melds, profile):
        return 1
    return value


def unseen_of(counts: Sequence[int], visible: Sequence[int]) -> list[int]:
    """Copies of each kind neither held nor visible."""
    return [max(0, 4 - c - v) for c, v in zip(counts, visible, strict=True)]


def profile_ukeire(
    counts: list[int],
    melds: tuple[Meld, ...],
    unseen: Sequence[int],
    profile: RuleProfile,
    exact: bool = False,
) -> tuple[int, list[tuple[int, int]]]:
    """``(steps, [(kind, copies unseen), ...])`` of the 3n+1 hand: the draws that bring it
    closer to a legal win (a ready hand's: its legal waits). ``counts`` is restored."""
    steps = bound_shanten(counts, melds, profile, exact=exact)
    if steps == 0:
        found = waits(counts, melds, profile)
        if found:
            return 0, [(k, unseen[k]) for k in found if unseen[k] > 0]
        steps = 1
    useful = []
    minimum = profile.one_suit_minimum
    totals, in_melds = suit_totals(counts), meld_suits(melds)
    for kind in range(N_KINDS):
        if unseen[kind] <= 0 or counts[kind] >= 4:
            continue
        short = _lacking_changed(totals, in_melds, minimum, kind, 1)
        counts[kind] += 1
        try:
            if bound_shanten(counts, melds, profile, short, exact) < steps:
                useful.append((kind, unseen[kind]))
        finally:
            counts[kind] -= 1
    return steps, useful


@dataclass(frozen=True, slots=True)
class Choice:
    """A 3n+1 hand a move leaves: ``counts`` beside ``melds``, ``steps`` from a legal win,
    its useful draws; ``action`` is the discard that left it (None: the hand as held)."""

    action: Action | None
    counts: tuple[int, ...]
    melds: tuple[Meld, ...]
    steps: int
    useful: tuple[tuple[int, int], ...]
    short: int  # tiles of one suit still lacking

    @property
    def total(self) -> int:
        return sum(n for _, n in self.useful)

    @property
    def open(self) -> bool:
        return any(m.kind is not MeldKind.CONCEALED_KONG for m in self.melds)


def held_choice(
    counts: Sequence[int],
    melds: tuple[Meld, ...],
    visible: Sequence[int],
    profile: RuleProfile,
    exact: bool = False,
) -> Choice:
    """The 3n+1 hand as it stands."""
    hand = list(counts)
    steps, useful = profile_ukeire(hand, melds, unseen_of(hand, visible), profile, exact)
    short = lacking(hand, melds, profile.one_suit_minimum)
    return Choice(None, tuple(hand), melds, steps, tuple(useful), short)


def discard_choices(
    counts: Sequence[int],
    melds: tuple[Meld, ...],
    visible: Sequence[int],
    profile: RuleProfile,
    slack: int = 0,
    every: bool = False,
    exact: bool = False,
) -> list[Choice]:
    """The discards of the 3n+2 hand within ``slack`` steps of the best, best first: fewest
    steps, most useful tiles, fewest suit tiles lacking, lowest kind. Unseen copies are
    counted on the 3n+2 hand (the discard is seen once thrown). ``every``: the other
    discards follow, by their steps only (their useful tiles not counted)."""
    hand = list(counts)
    unseen = unseen_of(hand, visible)
    minimum = profile.one_suit_minimum
    totals, in_melds = suit_totals(hand), meld_suits(melds)
    bounds = []
    shorts = {}
    for kind in range(N_KINDS):
        if hand[kind]:
            shorts[kind] = short = _lacking_changed(totals, in_melds, minimum, kind, -1)
            hand[kind] -= 1
            bounds.append((kind, bound_shanten(hand, melds, profile, short, exact)))
            hand[kind] += 1
    best = min(s for _, s in bounds)
    # A bound of 0 may be a hand with no legal wait (one step, then): look one further.
    reach = best + slack + (best == 0)
    near, far = [], []
    for kind, bound in bounds:
        hand[kind] -= 1
        try:
            short = shorts[kind]
            if bound <= reach:
                steps, useful = profile_ukeire(hand, melds, unseen, profile, exact)
                near.append(Choice(DISCARD[kind], tuple(hand), melds, steps, tuple(useful), short))
            else:
                far.append(Choice(DISCARD[kind], tuple(hand), melds, bound, (), short))
        finally:
            hand[kind] += 1
    low = min(c.steps for c in near)
    kept = [c for c in near if c.steps <= low + slack]
    if every:
        far += [c for c in near if c.steps > low + slack]
    else:
        far = []
    order = lambda c: (c.steps, -c.total, c.short, c.action.tile)  # noqa: E731
    return sorted(kept, key=order) + sorted(far, key=order)


def claimed(
    counts: Sequence[int], melds: tuple[Meld, ...], action: Action, tile: int, seat: int
) -> tuple[list[int], tuple[Meld, ...]]:
    """The concealed counts and melds after the claim ``action`` of ``tile`` (a pong, an
    exposed kong or a chow) or a concealed or added kong (``action.tile``)."""
    hand = list(counts)
    kind = action.kind
    if kind is ActionKind.CHOW:
        base = action.tile
        for k in (base, base + 1, base + 2):
            if k != tile:
                hand[k] -= 1
        return hand, (*melds, Meld(MeldKind.CHOW, base, seat))
    if kind is ActionKind.PONG:
        hand[tile] -= 2
        return hand, (*melds, Meld(MeldKind.PONG, tile, seat))
    if kind is ActionKind.EXPOSED_KONG:
        hand[tile] -= 3
        return hand, (*melds, Meld(MeldKind.EXPOSED_KONG, tile, seat))
    if kind is ActionKind.CONCEALED_KONG:
        hand[tile] -= 4
        return hand, (*melds, Meld(MeldKind.CONCEALED_KONG, tile))
    hand[tile] -= 1  # an added kong turns its pong
    turned = tuple(
        Meld(MeldKind.ADDED_KONG, m.tile, m.from_seat)
        if m.kind is MeldKind.PONG and m.tile == tile
        else m
        for m in melds
    )
    return hand, turned


def claim_choices(
    obs: Observation, action: Action, visible: Sequence[int], exact: bool = False
) -> list[Choice]:
    """The hand a pong or chow of the claimed tile leaves after each of its best discards
    (a 3n+2 hand), or, for a kong (no discard follows: a replacement draw), the 3n+1 hand."""
    tile = obs.claim.tile if obs.claim is not None else action.tile
    from_seat = obs.claim.from_seat if obs.claim is not None else None
    counts = obs.counts()
    hand, melds = claimed(counts, obs.seats[obs.seat].melds, action, tile, from_seat)
    seen = list(visible)  # the tiles the meld takes from the hand are on the table now
    for kind, (before, after) in enumerate(zip(counts, hand, strict=True)):
        seen[kind] += before - after
    if action.kind in (ActionKind.PONG, ActionKind.CHOW):
        return discard_choices(hand, melds, seen, obs.profile, exact=exact)
    return [held_choice(hand, melds, seen, obs.profile, exact)]


def own_hand(obs: Observation) -> tuple[list[int], tuple[Meld, ...], list[int]]:
    return obs.counts(), obs.seats[obs.seat].melds, obs.visible()


def _kong_keeps_pace(obs: Observation, action: Action, best_steps: int) -> bool:
    visible = obs.visible()
    after = claim_choices(obs, action, visible)[0]
    return after.steps <= best_steps


def _claim_order(choice: Choice) -> tuple[int, int]:
    return choice.steps, -choice.total


# ---------------------------------------------------------------------- efficiency


def efficiency_choose(obs: Observation) -> Action:
    """The fewest steps to a legal win of the profile, then the most useful tiles; wins
    always; a kong when it keeps the pace; a pong or chow when it lowers the steps."""
    legal = obs.legal_actions
    if len(legal) == 1:
        return legal[0]
    if WIN in legal:
        return WIN
    counts, melds, visible = own_hand(obs)
    if obs.phase is Phase.TURN:
        best = discard_choices(counts, melds, visible, obs.profile)[0]
        for action in legal:
            kong = action.kind in (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG)
            if kong and _kong_keeps_pace(obs, action, best.steps):
                return action
        return best.action
    if obs.claim is None or obs.phase is not Phase.CLAIMS:
        return PASS
    now = held_choice(counts, melds, visible, obs.profile)
    for action in legal:
        if action.kind is ActionKind.EXPOSED_KONG and _kong_keeps_pace(obs, action, now.steps):
            return action
    best_claim, best_after = PASS, None
    for action in legal:
        if action.kind in (ActionKind.PONG, ActionKind.CHOW):
            after = claim_choices(obs, action, visible)[0]
            if after.steps < now.steps and (
                best_after is None or _claim_order(after) < _claim_order(best_after)
            ):
                best_claim, best_after = action, after
    return best_claim


def _option(action: Action, choice: Choice, then: Action | None = None) -> Option:
    return Option(action, choice.steps, choice.useful, then=then)


def efficiency_rank(obs: Observation) -> list[Option]:
    """Every legal action with the steps and useful tiles of the hand it leaves, the choice
    of :func:`efficiency_choose` first (no points: ``value`` None)."""
    if not obs.legal_actions:
        return []
    chosen = efficiency_choose(obs)
    counts, melds, visible = own_hand(obs)
    options = []
    if obs.phase is Phase.TURN and any(a.kind is ActionKind.DISCARD for a in obs.legal_actions):
        for choice in discard_choices(counts, melds, visible, obs.profile, 1, every=True):
            options.append(_option(choice.action, choice))
    for action in obs.legal_actions:
        if action.kind is ActionKind.DISCARD:
            continue
        if action is WIN:
            options.append(Option(WIN, -1))
        elif action is PASS:
            options.append(_option(PASS, held_choice(counts, melds, visible, obs.profile)))
        else:
            after = claim_choices(obs, action, visible)[0]
            options.append(_option(action, after, after.action))
    first = [o for o in options if o.action is chosen]
    return first + [o for o in options if o.action is not chosen]


# ---------------------------------------------------------------------- expert

# What a seat pays, on average, when another seat wins the hand (a point or two); a win of
# one's own saves it.
AVERAGE_LOSS = 1.6
# Speed first: every step from a win costs this much, so the hand value and the useful tiles
# choose among the fastest moves, and only a concealed kong's payment outweighs a step.
# Measured against three efficiency players, who win 39 hands in 40 with cheap chows (points
# a hand, expert minus efficiency): pricing steps by the win chance alone (no step cost)
# -0.40 ± 0.57 in an early check on the first 40 evaluation walls (seed 1; 640 hands), a step
# cost of 5 -0.08 ± 0.70 on the first 24 of them; on the tuning walls (seed 5, 640 hands) a
# cost of 5 +0.06 ± 0.39 and 2 +0.05 ± 0.42; keeping a concealed hand closed unless a claim
# makes it ready -0.61 ± 0.65 (unless it leaves it one step away: -0.11 ± 0.64).
# A second round on the tuning walls (seed 5; these settings +0.12 ± 0.22 there on 160 seeds
# of 32 hands, about +0.1 on the evaluation walls) moved nothing beyond the noise; each figure
# is the change against these settings on the same walls (120-160 seeds, paired per seed):
# claims only when they lower the steps, as efficiency (no claim at equal steps, about 40% of
# the expert's claims) -0.07 ± 0.23; a step cost of 2 with 门清 priced as kept always
# (MEN_QING_KEPT 1) -0.02 ± 0.21; that and a concealed hand opened only by a claim leaving it
# at most one step away (CONCEALED_CLAIM_MAX 1) -0.31 ± 0.32; a discard charged for the claims
# it may feed (a pong by any seat, a chow by the next) -0.17 ± 0.37; a bonus of 2 points on
# every pong or chow (more claims at equal steps) -0.18 ± 0.25; a step cost of 8 with claim
# weights 5 and 2 +0.00 ± 0.10 (nearly the same moves).
# With the exact distance (EXACT_DISTANCE), a third round: a hand one step from ready priced
# by the unseen waits of the ready hands its useful draws lead to (a two-step count, the best
# three such options re-priced relative to their mean; 1-2 ms more at p99) -0.15 ± 0.20
# (seed 5, 48 seeds).
# A fourth round (hebei.bench.classic_oracle: where the expert departs from the efficiency
# player, both played out; most departures are discards at the same exact steps far from
# ready, and there the values often tie exactly over four or five discards, a tie going to
# the lowest tile: manzu first, honours last). Ties broken otherwise, paired per seed with
# these settings against three efficiency players: by the efficiency player's order (the
# bound's useful tiles, then the suit lacking) -0.12 ± 0.33 (seeds 5 and 7, 106 seeds); the
# shortest suit first, honours last +0.07 ± 0.16 (250 seeds): the legal order stays.
# A fifth round: a chow, or a pong of the previous seat's discard, replaces the seat's next
# draw, which was priced nowhere (passing kept the draw's chance of a step, or of a ready
# hand's self-draw); charged as draw_forgone, most of the expert's claims at equal steps far
# from ready turn to passes. Paired per seed, the same process playing both on each wall
# (expert minus efficiency, new minus current): seed 5 +0.16 ± 0.27 (102 seeds), seed 7
# +0.37 ± 0.30 (70), pooled +0.24 ± 0.20 (172, low end +0.04); kept. Evaluation walls (seed 1,
# 240 seeds, run once after the decision): expert - efficiency +0.40 ± 0.20 (low end +0.20;
# before: +0.05 ± 0.18 on the same walls).
STEP_COST = 5.0
EXACT_DISTANCE = True  # the exact distance (classic_shanten), not the lower bound
CONCEALED_CLAIM_MAX = 99  # a concealed hand opens with a claim only this close to a win
MEN_QING_KEPT = 0.5  # a concealed hand not yet ready that wins still concealed
KONG_PAID = 0.97  # kong payments are void in a hand without a win
KONG_POINTS = {
    ActionKind.CONCEALED_KONG: 6.0,  # 2 from each of three (RULES.md §7, kept by §9)
    ActionKind.ADDED_KONG: 3.0,
    ActionKind.EXPOSED_KONG: 3.0,
}
REPLACEMENT_DRAW = 0.3  # a kong draws again at once
ONE_SUIT_PATTERN = 2.0  # 混一色: one suit and honors (2); 青一色 3 or a doubling

_win_cache: dict[tuple, float] = {}


def _paid(
    hand: Sequence[int], melds: tuple[Meld, ...], tile: int, kind: WinKind, seat: int,
    dealer: int, discarder: int | None, profile: RuleProfile,
) -> float:  # fmt: skip
    """What the win of the 3n+1 ``hand`` on ``tile`` pays ``seat`` (0: not a win)."""
    full = list(hand)
    full[tile] += 1
    ctx = WinContext(tuple(full), melds, tile, kind, seat, dealer, discarder)
    scored = score_win(ctx, profile)
    return float(scored.deltas[seat]) if scored is not None else 0.0


def _win_points(
    counts: Sequence[int], melds: tuple[Meld, ...], tile: int, seat: int, dealer: int,
    profile: RuleProfile,
) -> float:  # fmt: skip
    """What the win on ``tile`` pays ``seat``, self-draws and discard wins mixed."""
    key = (bytes(counts), melds, tile, seat == dealer, profile)
    found = _win_cache.get(key)
    if found is None:
        drawn = _paid(counts, melds, tile, WinKind.SELF_DRAW, seat, dealer, None, profile)
        thrown = _paid(counts, melds, tile, WinKind.DISCARD, seat, dealer, (seat + 1) % 4, profile)
        found = SELF_DRAW_SHARE * drawn + (1 - SELF_DRAW_SHARE) * thrown
        _remember(_win_cache, key, found)
    return found


def win_now(obs: Observation) -> float:
    """The points the win on offer pays this seat (a self-draw, a discard or a robbed kong)."""
    hand = obs.counts()
    melds = obs.seats[obs.seat].melds
    claim = obs.claim
    if claim is None:  # a self-draw: the drawn tile completes the rest
        tile = obs.drawn if obs.drawn is not None else obs.hand[-1]
        hand[tile] -= 1
        kind, discarder = WinKind.SELF_DRAW, None
    else:
        tile, discarder = claim.tile, claim.from_seat
        kind = WinKind.ROB_KONG if claim.rob else WinKind.DISCARD
    return _paid(hand, melds, tile, kind, obs.seat, obs.dealer, discarder, obs.profile)


def _pays(dealer: bool) -> float:
    """A pattern's points times what the three payers pay for one point (§9: the dealer
    pays double; a winning dealer is paid double by all)."""
    return 6.0 if dealer else 4.0


def estimated_points(choice: Choice, dealer: bool) -> float:
    """The points a win of the not-yet-ready hand would pay, on average: 屁胡 (1), or the
    one-suit pattern it is heading for, doubled by 门清 when it may stay concealed and by a
    self-draw now and then."""
    counts = choice.counts
    suited = [sum(counts[s : s + 9]) for s in (0, 9, 18)]
    for meld in choice.melds:
        for k in meld.tiles:
            if k < 27:
                suited[k // 9] += 1
    held = sum(counts) + sum(len(m.tiles) for m in choice.melds)
    off = held - max(suited) - sum(counts[27:])
    pattern = ONE_SUIT_PATTERN if off <= 1 else 1.0
    doubling = 1.0 + SELF_DRAW_SHARE
    if not choice.open:
        doubling *= 1.0 + MEN_QING_KEPT
    return pattern * doubling * _pays(dealer)


@dataclass(frozen=True, slots=True)
class Priced:
    value: float
    win_chance: float
    points: float


# Claims make some tiles come more often than the wall brings them (RULES.md §9: a pong of
# any seat's discard, a chow of the previous seat's). Tuned in duplicate play against three
# efficiency players on the tuning walls (seeds 5 and 7, 640 and 960 hands; never the
# evaluation walls): weights 3 and 1 gained +0.24 ± 0.40 and +0.18 ± 0.46 points a hand over
# plain useful tiles, 1.5 and 0.5 +0.02 ± 0.40, 5 and 2 +0.17 ± 0.40.
PON_WEIGHT = 3.0
CHOW_WEIGHT = 1.0


def reachable(choice: Choice) -> float:
    """The useful tiles of a hand not yet ready, each weighted by the ways it may come: a
    draw, or a pong of any seat's discard (a pair held), or a chow of the previous seat's."""
    counts = choice.counts
    total = 0.0
    for kind, copies in choice.useful:
        weight = 1.0
        if counts[kind] >= 2:
            weight += PON_WEIGHT
        if kind < 27:
            rank = kind % 9
            near = [counts[kind + d] if 0 <= rank + d < 9 else 0 for d in (-2, -1, 1, 2)]
            if (near[0] and near[1]) or (near[1] and near[2]) or (near[2] and near[3]):
                weight += CHOW_WEIGHT
        total += copies * weight
    return total


def price(choice: Choice, obs: Observation, with_value: bool) -> Priced:
    """Expected points of the 3n+1 hand ``choice``: P(win) x (its points + the average
    loss a win of one's own saves), minus :data:`STEP_COST` per step from a win."""
    dealer = obs.dealer == obs.seat
    useful = reachable(choice) if choice.steps > 0 else choice.total
    chance = win_probability(min(choice.steps, 5), useful, obs.wall, choice.open, dealer)
    if choice.steps == 0 and choice.total and with_value:
        hand = list(choice.counts)
        points = 0.0
        for kind, copies in choice.useful:
            won = _win_points(hand, choice.melds, kind, obs.seat, obs.dealer, obs.profile)
            points += copies * won
        points /= choice.total
    elif with_value:
        points = estimated_points(choice, dealer)
    else:
        points = _pays(dealer)
    value = chance * (points + AVERAGE_LOSS) - STEP_COST * choice.steps
    return Priced(value, chance, points)


def draws_next(obs: Observation) -> bool:
    """Is the claim on offer a discard of the previous seat, so that passing it, this seat
    draws next (a chow or a pong of it takes the place of that draw)?"""
    claim = obs.claim
    return claim is not None and not claim.rob and (claim.from_seat + 1) % 4 == obs.seat


def draw_forgone(held: Choice, priced: Priced, obs: Observation) -> float:
    """What the draw a chow, or a pong of the previous seat's discard, takes the place of is
    worth to the ``held`` hand (``priced``: its price): the chance that the draw brings the
    hand a step closer times what that step is worth (the price of the hand one step nearer,
    its useful tiles as they are), or on a ready hand the self-draws it may make, each its
    points and the loss it saves. A pong of another seat's discard skips seats and replaces
    no draw of this seat's; a kong draws its replacement."""
    unseen = sum(unseen_of(held.counts, obs.visible()))
    if unseen <= 0 or not held.total:
        return 0.0
    if held.steps == 0:
        hand = list(held.counts)
        gain = 0.0
        for kind, copies in held.useful:
            won = _paid(
                hand, held.melds, kind, WinKind.SELF_DRAW, obs.seat, obs.dealer, None, obs.profile
            )
            gain += copies * max(0.0, won + AVERAGE_LOSS - priced.value)
        return gain / unseen
    dealer = obs.dealer == obs.seat
    useful = reachable(held)
    closer = win_probability(min(held.steps - 1, 5), useful, obs.wall, held.open, dealer)
    step = closer * (priced.points + AVERAGE_LOSS) - STEP_COST * (held.steps - 1)
    return held.total / unseen * max(0.0, step - priced.value)


def _priced_option(
    action: Action, choice: Choice, priced: Priced, extra: float = 0.0, then: Action | None = None
) -> Option:
    return Option(
        action,
        choice.steps,
        choice.useful,
        value=priced.value + extra,
        then=then,
        extras={"win_chance": priced.win_chance, "win_points": priced.points},
    )


def expert_rank(obs: Observation, with_value: bool = True) -> list[Option]:
    """Every legal action priced in expected points, best first (a win first, always;
    ties: the order of the legal actions). ``with_value``: price each win's points (else
    every win counts the same)."""
    counts, melds, visible = own_hand(obs)
    concealed = all(m.kind is MeldKind.CONCEALED_KONG for m in melds)
    options: list[Option] = []
    legal = obs.legal_actions
    forgone = 0.0  # what a chow or pong takes from the draw it replaces
    if draws_next(obs) and any(a.kind in (ActionKind.PONG, ActionKind.CHOW) for a in legal):
        held = held_choice(counts, melds, visible, obs.profile, EXACT_DISTANCE)
        forgone = draw_forgone(held, price(held, obs, with_value), obs)
    if obs.phase is Phase.TURN and any(a.kind is ActionKind.DISCARD for a in legal):
        choices = discard_choices(counts, melds, visible, obs.profile, 1, True, EXACT_DISTANCE)
        for choice in choices:
            options.append(_priced_option(choice.action, choice, price(choice, obs, with_value)))
    for action in legal:
        kind = action.kind
        if kind is ActionKind.DISCARD:
            continue
        if action is WIN:
            points = win_now(obs)
            options.append(Option(WIN, -1, value=points, extras={"win_points": points}))
        elif action is PASS:
            held = held_choice(counts, melds, visible, obs.profile, EXACT_DISTANCE)
            options.append(_priced_option(PASS, held, price(held, obs, with_value)))
        elif kind in KONG_TILES:
            after = claim_choices(obs, action, visible, EXACT_DISTANCE)[0]
            extra = KONG_PAID * KONG_POINTS[kind] + REPLACEMENT_DRAW
            options.append(_priced_option(action, after, price(after, obs, with_value), extra))
        else:  # a pong or a chow, then its best discard
            afters = claim_choices(obs, action, visible, EXACT_DISTANCE)
            priced = [(price(c, obs, with_value), c) for c in afters]
            best, choice = max(priced, key=lambda pc: pc[0].value)
            extra = -forgone
            if concealed and choice.steps > CONCEALED_CLAIM_MAX:
                extra = -2 * STEP_COST
            options.append(_priced_option(action, choice, best, extra, then=choice.action))
    order = {a: i for i, a in enumerate(legal)}
    options.sort(key=lambda o: (o.action is not WIN, -(o.value or 0.0), order[o.action]))
    return options
