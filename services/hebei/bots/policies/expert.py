"""``expert`` (高手陪练, the sparring partner): every legal action priced in expected points.

    value(action) = shape value of the hand it leaves            (speed, measured)
                  + P(win) x (points of that win - an average win) (hand value)
                  + kong payments it brings
                  - defence x expected deal-in cost of the tile it throws

- the shape value (:mod:`hebei.bots.policies.speed`) is the measured worth, in points, of a
  hand's shanten and useful tiles with the live wall: what breaking a ready hand or keeping
  fewer useful tiles costs, on average, by the end of the hand;
- a ready hand is priced exactly (:mod:`hebei.bots.policies.waits`): every live winning tile
  by the fan its win scores, and weighted by how often such a tile comes (honors and
  terminals are what the others throw); a hand not yet ready by the routes still open
  (:mod:`hebei.bots.policies.value`: 门清, flushes, 碰碰胡);
- the deal-in cost (:mod:`hebei.bots.policies.danger`) from reading the opponents
  (:mod:`hebei.bots.policies.reading`).

Wins are always taken (measured: passing a discard win for a later self-draw loses 4.4
points on average here, and more with the wall short). A concealed kong pays 6 and an
exposed or added one 3 (RULES.md §7), void only in an exhaustive draw (2% of hands).

The defence weight was tuned in duplicate play on the tuning walls (never the evaluation
walls, see :mod:`hebei.bench.bots`), level 3 against efficiency players at one table:
weighting the expected deal-in cost 1.6 instead of 1 gained +0.24 ± 0.34 points per hand,
2.3 another +0.10 ± 0.35, 3.2 lost 0.24 ± 0.35 again: level 3 counts it twice. Charging
for opening a concealed hand with a pong (0.5 points) changed nothing measurable.

Levels a person can choose (:data:`LEVELS`): 1 plays for speed and hand value with half the
defence, never folds and now and then plays its second-best option; 2 weights defence
plainly and folds; 3 (the default) weights defence twice. On the evaluation walls a level-2
that slipped on 2% of its decisions lost 0.43 ± 0.27 points per hand to level 3: slips are
expensive, so only level 1 has them.

Level 4 (the strongest, not the default) is level 3 that also prices a hand one step from
ready by the ready hands it gets to (:meth:`ShapePricer.price_ready_hands`): the shape value
counts a one-away hand's useful tiles only, so two discards keeping as many (or one keeping a
few more) rank alike although one's draws lead to two-sided waits and the other's to single
ones. For each one-away discard it takes every improving draw, the best ready hand a discard
then leaves (its live waits weighted by how often they come, what they pay, the danger of
the tile thrown to get there), and moves the discard's value by its chance to get ready
times the difference from the fastest discard level 3 prefers (which keeps its value, so
claims and folding price as before). Screened paired with the level 4 before it on the
tuning walls (expert:4 against three efficiency, every wall under the four rotations): see
``docs/bots-research.md``. A ranking's CPU in self-play (530 decisions, without and with it):
median 0.35 -> 0.40 ms, p99 0.6 -> 2.1 ms.

Level 4 also counts the useful tiles a pong can bring (a held pair's kind) three times
(:data:`PONG_WEIGHT`; :func:`~hebei.bots.policies.pricing.claimable_useful`): here there are
no chows, so a run's missing tile comes only from the seat's own draws, while a pair's third
copy comes from any seat's discard too. The shape value and the win chance were fitted on the
plain count; in efficiency self-play (309,941 discards at one to three steps from ready) the
win chance's likelihood is best with such copies counted 3-3.5 times at one step (the pair's
kinds' share of the useful tiles raises the win's log-odds by 1.3 per unit at the same plain
count), and the weighted count is put back on the plain count's scale. Screened paired with
level 4 without it on 3,200 fresh tuning walls: +0.050 ± 0.047 points a hand
(``docs/bots-research.md``).

Level 4 also plays out close push-or-fold discards (a determinised Monte-Carlo look-ahead,
:mod:`hebei.bots.policies.lookahead`): when an opponent reads ready with at least
:data:`LOOKAHEAD_READY` and up to three discards are within :data:`LOOKAHEAD_MARGIN` points
of the best, each is played out on the same :data:`LOOKAHEAD_SAMPLES` sampled deals (a
folding discard folds on), and the ranking's choice gives way only to a discard better by
:data:`LOOKAHEAD_Z` standard errors of the paired difference (its ranking, which hints and
reviews show, does not play out). Measured on the tuning walls against three level-3
experts, before the ready hands came in, it gained +0.03 ± 0.08 points per hand (200 seeds):
playing out the close calls with a greedy roll-out does not beat the priced model
(pong-or-pass look-ahead, wider margins, always playing out the safest tile: no better).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hebei.bots.policies.classic import expert_rank, plays_classic
from hebei.bots.policies.danger import DangerMap
from hebei.bots.policies.lookahead import better_than_first, candidate_points
from hebei.bots.policies.options import Option, make_option
from hebei.bots.policies.pricing import Holding, Priced, ShapePricer
from hebei.bots.policies.reading import read_table
from hebei.bots.policies.speed import break_cost
from hebei.rules.actions import DISCARD, PASS, WIN, Action, ActionKind
from hebei.rules.hand import Phase
from hebei.rules.scoring import WinContext, WinKind, score_win
from hebei.rules.shanten import discard_options
from hebei.rules.views import Observation

KONG_PAID = 0.97  # kong payments are void in an exhaustive draw (2% of hands)
KONG_POINTS = {
    ActionKind.CONCEALED_KONG: 6.0,  # 2 from each of three (RULES.md §7)
    ActionKind.ADDED_KONG: 3.0,  # 1 from each
    ActionKind.EXPOSED_KONG: 3.0,  # from the discarder
}
REPLACEMENT_DRAW = 0.3  # a kong draws again at once: a free step
FOLD_MARGIN = 0.05  # a slower shape must be this much safer
# Level 4's look-ahead (:mod:`hebei.bots.policies.lookahead`), tuned on the tuning walls.
LOOKAHEAD_SAMPLES = 48  # sampled deals per close decision
LOOKAHEAD_MARGIN = 0.3  # options within this many points of the best are played out
LOOKAHEAD_TOP = 3  # at most this many
LOOKAHEAD_READY = 0.5  # discards only when an opponent reads ready with this chance
LOOKAHEAD_Z = 0.5  # switch from the ranking's choice only on this many standard errors
# Level 4 counts a useful copy of a held pair's kind this many times (any seat's discard
# brings it, by a pong; measured on efficiency self-play: the maximum likelihood of the win
# chance at one step from ready is at 3-3.5).
PONG_WEIGHT = 3.0
LOOKAHEAD_KINDS = (ActionKind.DISCARD, ActionKind.PONG, ActionKind.PASS)


@dataclass(frozen=True, slots=True)
class ExpertLevel:
    """How much of the expert's judgement a level uses."""

    description: str
    value: bool  # price hand value (exact waits, routes)
    defence: float  # weight of the expected deal-in cost (0: never defends)
    noise: float  # chance of playing the second-best option
    fold: bool  # may break its shape to throw a safer tile
    fold_margin: float = FOLD_MARGIN  # points a slower shape must gain in safety
    open_cost: float = 0.0  # points charged for opening a concealed hand (a pong)
    lookahead: int = 0  # sampled worlds per close decision (0: no look-ahead)
    lookahead_margin: float = 0.0  # options this close to the best are played out
    lookahead_top: int = 3  # at most this many of them
    lookahead_ready: float = 0.0  # only when an opponent is ready with at least this chance
    lookahead_z: float = 1.0  # switch only on an advantage of this many standard errors
    lookahead_claims: bool = False  # also play out close pong-or-pass answers
    ready_hands: bool = False  # one-away discards priced by the ready hands they reach
    pong_weight: float = 1.0  # a useful copy a pong can bring counts this many times


LEVELS = {
    1: ExpertLevel(
        "speed and hand value, a light defence, no folding, rare slips", True, 0.5, 0.03, False
    ),
    2: ExpertLevel("adds the full defence and folding, no slips", True, 1.0, 0.0, True),
    3: ExpertLevel("hand value, defence weighted twice, folding, no slips", True, 2.0, 0.0, True),
    4: ExpertLevel(
        "level 3 that counts the useful tiles a pong can bring as any seat's discards bring"
        " them, prices one-away discards by the ready hands they reach and plays out close"
        " push-or-fold discards on sampled deals",
        True,
        2.0,
        0.0,
        True,
        lookahead=LOOKAHEAD_SAMPLES,
        lookahead_margin=LOOKAHEAD_MARGIN,
        lookahead_top=LOOKAHEAD_TOP,
        lookahead_ready=LOOKAHEAD_READY,
        lookahead_z=LOOKAHEAD_Z,
        ready_hands=True,
        pong_weight=PONG_WEIGHT,
    ),
}
DEFAULT_LEVEL = 3


# A discard as rank_discards prices it, before its Option is built: (tile, shanten, useful
# tiles, shown danger, value, extras, slower than the fastest).
_Row = tuple[int, int, list[tuple[int, int]], float | None, float, dict[str, float], bool]


@dataclass(slots=True)
class Position:
    """What every option of one observation shares."""

    obs: Observation
    holding: Holding
    visible: list[int]
    dealer: bool
    danger: DangerMap | None


class ExpertPolicy:
    """Expected-points play with value and defence; ``level`` 1-3."""

    name = "expert"
    description = "prices every action in expected points: speed, hand value and defence"

    def __init__(self, level: int = DEFAULT_LEVEL, seed: int = 0) -> None:
        if level not in LEVELS:
            raise ValueError(f"expert level must be one of {sorted(LEVELS)}, got {level!r}")
        self.level = level
        self.config = LEVELS[level]
        self.level_description = self.config.description
        self.pricer = ShapePricer(self.config.value, self.config.pong_weight)
        self.seed = seed
        self._rng = random.Random(seed)
        self.lookaheads = 0  # decisions played out on sampled deals (level 4)

    # ------------------------------------------------------------------ interface

    def choose(self, obs: Observation) -> Action:
        """The legal action with the best expected points (a level may slip)."""
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]
        if WIN in legal:
            return WIN
        if self.config.lookahead and not plays_classic(obs.profile):
            pos = self._position(obs)  # built once: the ranking and the look-ahead share it
            return self._look_ahead(pos, self._rank(pos))
        options = self.rank(obs)
        if len(options) > 1 and self.config.noise and self._rng.random() < self.config.noise:
            return options[1].action
        return options[0].action

    def rank(self, obs: Observation) -> list[Option]:
        """Every legal action priced, best first (a win always first: see the module
        docstring; ties: the order of the legal actions)."""
        if plays_classic(obs.profile):  # chow, one suit of eight, doublings (RULES.md §9)
            return expert_rank(obs, self.config.value)
        return self._rank(self._position(obs))

    def _rank(self, pos: Position) -> list[Option]:
        obs = pos.obs
        options: list[Option] = []
        for action in obs.legal_actions:
            if action.kind is not ActionKind.DISCARD:
                options.append(self._price(pos, action))
        if obs.phase is Phase.TURN and any(a.kind is ActionKind.DISCARD for a in obs.legal_actions):
            options.extend(self._discard_options(pos))
        order = {a: i for i, a in enumerate(obs.legal_actions)}
        options.sort(key=lambda o: (o.action is not WIN, -(o.value or 0.0), order[o.action]))
        return options

    def _look_ahead(self, pos: Position, options: list[Option]) -> Action:
        """The best of the close options by their mean points over sampled deals (see
        :mod:`hebei.bots.policies.lookahead`); the ranking's first when none is close."""
        obs = pos.obs
        best = options[0]
        config = self.config
        if best.action.kind not in LOOKAHEAD_KINDS or best.value is None:
            return best.action
        close = [
            o
            for o in options[: config.lookahead_top]
            if o.action.kind in LOOKAHEAD_KINDS
            and o.value is not None
            and best.value - o.value <= config.lookahead_margin
        ]
        if len(close) < 2:
            return best.action
        if obs.phase is not Phase.TURN and not config.lookahead_claims:
            return best.action
        if config.lookahead_ready > 0 and obs.phase is Phase.TURN:  # push or fold
            table = pos.danger.table if pos.danger is not None else read_table(obs)
            ready = max(opp.ready for opp in table.opponents)
            if ready < config.lookahead_ready:
                return best.action
        key = (
            self.seed,
            obs.seat,
            obs.hand,
            obs.wall,
            obs.claim.tile if obs.claim is not None else -1,
            tuple(v.discards for v in obs.seats),
        )
        rng = random.Random(hash(key))
        self.lookaheads += 1
        fastest = min((o.shanten for o in options if o.shanten is not None), default=0)
        plays = [
            (
                o.action,
                o.then.tile if o.then is not None else None,
                o.action.kind is ActionKind.DISCARD and o.shanten > fastest,  # folds on
            )
            for o in close
        ]
        danger = None
        if any(fold for _, _, fold in plays):
            if pos.danger is not None:
                danger = [pos.danger.cost(k) for k in range(34)]
            else:
                plays = [(a, t, False) for a, t, _ in plays]
        points = candidate_points(obs, plays, config.lookahead, rng, danger)
        return close[better_than_first(points, config.lookahead_z)].action

    # ------------------------------------------------------------------ the position

    def _position(self, obs: Observation) -> Position:
        holding = Holding(tuple(obs.counts()), obs.seats[obs.seat].melds)
        visible = obs.visible()
        dealer = obs.dealer == obs.seat
        danger = None
        if self.config.defence:
            danger = DangerMap(read_table(obs), holding.counts, visible, dealer)
        return Position(obs, holding, visible, dealer, danger)

    def _price(self, pos: Position, action: Action) -> Option:
        kind = action.kind
        if kind is ActionKind.WIN:
            return self._win(pos)
        if kind is ActionKind.PASS:
            return self._pass(pos)
        if kind is ActionKind.PONG:
            return self._pong(pos, action)
        return self._kong(pos, action)

    # ------------------------------------------------------------------ options

    def rank_discards(self, pos: Position, holding: Holding, turn: bool = False) -> list[Option]:
        """Every discard of the 3n+2 ``holding``, priced (unsorted).

        The fastest shapes (lowest shanten) are priced by shape, value and danger. A slower
        one is priced as the best fastest shape minus the measured cost of the step it gives
        up (:func:`~hebei.bots.policies.speed.break_cost`) minus its danger: folding, which
        only pays against a likely wait late in the hand. Levels without folding rank those
        below every fastest shape.
        """
        options = discard_options(list(holding.counts), holding.n_melds, pos.visible)
        fastest = options[0].shanten
        unseen = holding.unseen(pos.visible)  # as counted on the 14 tiles: the discard is seen
        wall, dealer = pos.obs.wall, pos.dealer
        config = self.config
        defence = config.defence
        danger_map = pos.danger
        price = self.pricer.price
        # Priced first, each Option built once at the end (make_option: every field given).
        rows: list[_Row] = []
        anchor = None  # the best shape value among the fastest discards
        floor = None  # the least value among them
        for option in options:
            tile = option.kind
            if danger_map is None:
                danger, shown = 0.0, None
            else:
                danger = shown = danger_map.cost(tile)
            if option.shanten == fastest:
                left = holding.without(tile)
                priced = price(left, fastest, option.tiles, unseen, wall, dealer)
                anchor = priced.value if anchor is None else max(anchor, priced.value)
                extras = {"win_chance": priced.win_chance, "win_points": priced.points}
                value = priced.value - defence * danger
                if floor is None or value < floor:  # min(): the first of equal ones
                    floor = value
                rows.append((tile, fastest, option.tiles, shown, value, extras, False))
                continue
            value = -break_cost(fastest, option.shanten, wall) - defence * danger
            extras = {"break_cost": -value - defence * danger}
            rows.append((tile, option.shanten, option.tiles, shown, value, extras, True))
        if config.ready_hands and fastest == 1 and turn:
            rows = self._price_ready_hands(pos, holding, rows, unseen)
        margin = config.fold_margin
        fold = config.fold
        out = []
        for tile, shanten, useful, shown, value, extras, slower in rows:
            if slower:  # put on the scale of the fastest ones
                value = anchor + value - margin
                if not fold:
                    value = min(value, floor - margin)
            out.append(
                make_option(DISCARD[tile], shanten, tuple(useful), shown, value, "", None, extras)
            )
        return out

    def _win(self, pos: Position) -> Option:
        points = self._win_points(pos)
        return Option(WIN, shanten=-1, value=points, extras={"win_points": points})

    def _win_points(self, pos: Position) -> float:
        """The points this win pays this seat (its hand payments, kongs aside)."""
        obs = pos.obs
        concealed = list(pos.holding.counts)
        if obs.claim is not None:
            tile = obs.claim.tile
            concealed[tile] += 1
            kind = WinKind.ROB_KONG if obs.claim.rob else WinKind.DISCARD
            discarder = obs.claim.from_seat
        else:
            tile = obs.drawn if obs.drawn is not None else obs.hand[-1]
            kind, discarder = WinKind.SELF_DRAW, None
        melds = pos.holding.melds
        ctx = WinContext(tuple(concealed), melds, tile, kind, obs.seat, obs.dealer, discarder)
        scored = score_win(ctx)
        return float(scored.deltas[obs.seat]) if scored is not None else 0.0

    def _held(self, pos: Position) -> Priced:
        """The 3n+1 hand as it stands (claims: before answering)."""
        return self.pricer.price_held(pos.holding, pos.visible, pos.obs.wall, pos.dealer)

    def _least_danger(self, pos: Position) -> float:
        """The danger a later discard from this hand will carry at best."""
        if pos.danger is None:
            return 0.0
        return min(pos.danger.cost(k) for k, c in enumerate(pos.holding.counts) if c)

    def _pass(self, pos: Position) -> Option:
        held = self._held(pos)
        value = held.value - self.config.defence * self._least_danger(pos)
        return Option(
            PASS,
            shanten=held.shanten,
            useful=held.useful,
            value=value,
            extras={"win_chance": held.win_chance, "win_points": held.points},
        )

    def _pong(self, pos: Position, action: Action) -> Option:
        discards = self.rank_discards(pos, pos.holding.after_pong(action.tile))
        best = max(discards, key=lambda o: o.value or 0.0)
        value = best.value or 0.0
        if pos.holding.concealed:
            value -= self.config.open_cost
        return Option(
            action,
            shanten=best.shanten,
            useful=best.useful,
            danger=best.danger,
            value=value,
            then=best.action,
            extras=best.extras,
        )

    def _kong(self, pos: Position, action: Action) -> Option:
        kind, tile = action.kind, action.tile
        holding = pos.holding.after_kong(action)
        priced = self.pricer.price_held(holding, pos.visible, pos.obs.wall, pos.dealer)
        value = priced.value + KONG_PAID * KONG_POINTS[kind] + REPLACEMENT_DRAW
        danger = None
        if kind is ActionKind.ADDED_KONG and pos.danger is not None:
            danger = pos.danger.cost(tile)  # another seat may rob it
            value -= self.config.defence * danger
        if kind is ActionKind.EXPOSED_KONG:
            value -= self.config.defence * self._least_danger(pos)
        return Option(
            action,
            shanten=priced.shanten,
            useful=priced.useful,
            danger=danger,
            value=value,
            extras={"win_chance": priced.win_chance, "win_points": priced.points},
        )

    def _discard_options(self, pos: Position) -> list[Option]:
        return self.rank_discards(pos, pos.holding, turn=True)

    def _price_ready_hands(
        self, pos: Position, holding: Holding, rows: list[_Row], unseen: list[int]
    ) -> list[_Row]:
        """The one-away discards' values moved by the ready hands they get to (level 4): the
        shape value counts useful tiles alone, so of two discards with as many, the one whose
        draws reach more waits, or waits that pay more or come more often, or get there
        throwing safer tiles, is worth more. Each moves by its chance to get ready times the
        difference between the mean value of its ready hands and that of the fastest discard
        level 3 prefers, which keeps its value (so folding and claims price as before).
        ``unseen``: every kind's copies unseen, counted on the 14 tiles."""
        fast = [row for row in rows if not row[6]]
        if len(fast) < 2:
            return rows
        danger, defence = pos.danger, self.config.defence
        throw_cost = None if danger is None else (lambda kind: defence * danger.cost(kind))
        reached = {}
        for tile, _, useful, _, _, _, _ in fast:
            priced = self.pricer.price_ready_hands(
                holding.without(tile), useful, unseen, pos.obs.wall, pos.dealer, throw_cost
            )
            if priced is not None:
                reached[tile] = priced
        preferred = max(fast, key=lambda row: row[4])[0]
        if len(reached) < 2 or preferred not in reached:
            return rows
        anchor = reached[preferred][1]
        out = []
        for row in rows:
            found = reached.get(row[0])
            if found is not None and not row[6]:
                chance, mean = found
                move = chance * (mean - anchor)
                extras = {**row[5], "ready_hands": move}
                row = (row[0], row[1], row[2], row[3], row[4] + move, extras, row[6])
            out.append(row)
        return out
