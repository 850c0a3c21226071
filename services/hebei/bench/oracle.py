"""An offline oracle for the expert's decisions: what each candidate action was worth.

For a decision of one seat, the hand is rebuilt ``worlds`` times with the tiles nobody has
drawn yet reshuffled (the hand's actions replayed on a wall whose drawn part is unchanged),
and every candidate action is played from each world to the end of the hand with the real
rules engine and the real policies (the seat's own and the others'), the same worlds for
every candidate (common random numbers). The figure is the seat's points for the hand, hand
and kong payments.

The other seats' hands are the true ones: one decision's figures use what the seat could not
know, but the mean over many decisions of one kind estimates without bias what a fixed rule
for that kind (play the other candidate instead) would gain. Two ways to pick candidates:

- ``close``: the expert's best and the others within :data:`CLOSE_MARGIN` points (at most
  three): are its close calls right?
- ``efficiency``: the expert's choice and the efficiency player's, where they differ: which
  of the expert's departures from plain speed pay?
- ``change``: the expert's choice and that of the same level with some of its settings
  changed (``--change defence=1.5,fold_margin=0.1``: fields of
  :class:`~hebei.bots.policies.expert.ExpertLevel`), where they differ: what would the change
  gain at the decisions it changes, and how often does it depart? (The seat plays the level
  unchanged, play-outs too.)

Tuning walls only (README, bots: the evaluation walls, ``--seed 1``, are refused). About a
second of CPU a decision with 16 worlds::

    python -m hebei.bench.oracle --seed 5 --matches 8 --mode efficiency
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hebei.bench.bots import SEED_STRIDE
from hebei.bots.policies import Policy, make_policy, parse_policy
from hebei.bots.policies.expert import ExpertPolicy
from hebei.bots.policies.reading import read_table
from hebei.rules.actions import WIN, Action, ActionKind
from hebei.rules.hand import HandState, Phase
from hebei.rules.match import Match, MatchLength
from hebei.rules.views import observe
from hebei.rules.wall import Wall

EVALUATION_SEED = 1  # the walls the figures are reported on: never used for choices
CLOSE_MARGIN = 1.5
CLOSE_TOP = 3
MODES = ("close", "efficiency", "change")


def reshuffled(state: HandState, history: Sequence[tuple[int, Action]], rng) -> HandState:
    """``state`` rebuilt with its undrawn tiles in a new order: a new hand on a wall whose
    drawn tiles (normal and replacement) are where they were, ``history`` replayed on it."""
    wall = state.wall
    tiles = list(wall.tiles)
    rest = tiles[wall.head : wall.tail]
    rng.shuffle(rest)
    tiles[wall.head : wall.tail] = rest
    new_wall = Wall(tiles, wall.dice, state.profile, broken=True)
    world = HandState(state.seed, state.dealer, state.hand_no, state.profile, wall=new_wall)
    for seat, action in history:
        world.apply(seat, action)
    return world


def play_out(
    state: HandState, seat: int, action: Action, players: Sequence[Policy], scores: Sequence[int]
) -> int:
    """``seat`` plays ``action``, every seat its policy to the end; ``seat``'s points."""
    state.apply(seat, action)
    while not state.ended:
        for s in state.to_act():
            state.apply(s, players[s].choose(observe(state, s, scores)))
    return state.result.settlement.total[seat]


def points_by_candidate(
    state: HandState,
    history: Sequence[tuple[int, Action]],
    seat: int,
    candidates: Sequence[Action],
    players: Callable[[int], list[Policy]],
    scores: Sequence[int],
    worlds: int,
    rng: random.Random,
) -> list[list[int]]:
    """The seat's points for each candidate on each of ``worlds`` reshuffled worlds (the same
    worlds, in order, for every candidate); ``players(seed)`` seats fresh policies."""
    points: list[list[int]] = [[] for _ in candidates]
    for _ in range(worlds):
        order = rng.getrandbits(64)
        seed = rng.getrandbits(30)
        for i, action in enumerate(candidates):
            world = reshuffled(state, history, random.Random(order))
            points[i].append(play_out(world, seat, action, players(seed), scores))
    return points


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision played out: its kind and each candidate's points (the first: the
    expert's choice)."""

    kind: str
    points: tuple[tuple[int, ...], ...]

    def differences(self) -> list[float]:
        """Each other candidate's mean points minus the expert's choice's."""
        first = self.points[0]
        n = len(first)
        return [sum(a - b for a, b in zip(p, first, strict=True)) / n for p in self.points[1:]]


def _threat(obs) -> str:
    ready = max(o.ready for o in read_table(obs).opponents)
    return "< 0.5" if ready < 0.5 else ">= 0.5"


def kind_of(obs, chosen, other) -> str:
    """The kind of a decision, as the findings group them."""
    if obs.phase is not Phase.TURN:
        return f"claim: {chosen.action.kind.name.lower()} or {other.action.kind.name.lower()}"
    if chosen.action.kind is not ActionKind.DISCARD or other.action.kind is not ActionKind.DISCARD:
        return f"turn: {chosen.action.kind.name.lower()} or {other.action.kind.name.lower()}"
    if other.shanten == chosen.shanten:
        shape = "same shanten"
    else:
        shape = "expert slower" if chosen.shanten > other.shanten else "expert faster"
    away = "2+" if chosen.shanten >= 2 else str(chosen.shanten)
    return f"discard, {shape}, {away} from ready, threat {_threat(obs)}"


def run(
    seed: int,
    matches: int,
    mode: str = "efficiency",
    worlds: int = 16,
    expert: str = "expert:3",
    first: int = 0,
    on_match: Callable[[int, int], None] | None = None,
    change: dict[str, float] | None = None,
) -> list[Decision]:
    """Play ``matches`` matches (8 hands) of ``expert`` against three efficiency players on
    the walls of ``seed`` (the expert's seat rotates) and play out its decisions."""
    if seed == EVALUATION_SEED:
        raise ValueError("the oracle runs on tuning walls only: --seed 1 is the evaluation walls")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if worlds < 2 or matches < 1:
        raise ValueError("need at least 2 worlds and 1 match")
    name, level = parse_policy(expert)
    efficiency = make_policy("efficiency")
    if (mode == "change") != bool(change):
        raise ValueError("the change mode, and only it, takes settings to change")
    decisions: list[Decision] = []
    for n in range(first, first + matches):
        match_seed = seed * SEED_STRIDE + n
        me = n % 4

        def seated(base: int, me: int = me) -> list[Policy]:
            return [
                make_policy(name, level, seed=base + s) if s == me else make_policy("efficiency")
                for s in range(4)
            ]

        candidate = changed(make_policy(name, level), change) if change else None

        players = seated(match_seed * 16)
        match = Match(match_seed, MatchLength(hands=8))
        rng = random.Random(match_seed)
        while not match.finished:
            state = match.next_hand()
            history: list[tuple[int, Action]] = []
            while not state.ended:
                for s in state.to_act():
                    obs = observe(state, s, match.scores)
                    action = players[s].choose(obs)
                    if s == me and len(obs.legal_actions) > 1 and WIN not in obs.legal_actions:
                        options = players[s].rank(obs)
                        chosen = options[0]
                        if mode == "close":
                            others = [
                                o
                                for o in options[1:CLOSE_TOP]
                                if chosen.value - o.value <= CLOSE_MARGIN
                            ]
                        else:
                            judge = candidate if candidate is not None else efficiency
                            plain = judge.choose(obs)
                            others = [o for o in options if o.action == plain != chosen.action]
                        if others:
                            points = points_by_candidate(
                                state,
                                history,
                                s,
                                [chosen.action] + [o.action for o in others],
                                seated,
                                tuple(match.scores),
                                worlds,
                                rng,
                            )
                            kind = kind_of(obs, chosen, others[0])
                            decisions.append(Decision(kind, tuple(map(tuple, points))))
                    state.apply(s, action)
                    history.append((s, action))
            match.finish_hand()
        if on_match is not None:
            on_match(n, len(decisions))
    return decisions


def changed(policy: Policy, change: dict[str, float]) -> Policy:
    """``policy`` (an expert) with the settings of its level in ``change`` replaced."""
    if not isinstance(policy, ExpertPolicy):
        raise ValueError("the change mode changes an expert level's settings")
    config = policy.config
    unknown = set(change) - {f.name for f in dataclasses.fields(config)}
    if unknown:
        raise ValueError(f"an expert level has no setting {', '.join(sorted(unknown))}")
    values = {k: type(getattr(config, k))(v) for k, v in change.items()}
    policy.config = dataclasses.replace(config, **values)
    return policy


def parse_change(text: str) -> dict[str, float]:
    """``"defence=1.5,fold=0"`` as ``{"defence": 1.5, "fold": 0.0}``."""
    out = {}
    for part in filter(None, text.split(",")):
        key, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"a change is name=value, got {part!r}")
        out[key.strip()] = float(value)
    return out


def summarise(decisions: Sequence[Decision]) -> list[tuple[str, int, float, float]]:
    """Per kind (and ``all``): alternatives, mean of other − expert's choice, 95% half-width."""
    by_kind: dict[str, list[float]] = defaultdict(list)
    for d in decisions:
        diffs = d.differences()
        by_kind[d.kind].extend(diffs)
        by_kind["all"].extend(diffs)
    rows = []
    for kind in sorted(by_kind):
        xs = by_kind[kind]
        n = len(xs)
        mean = sum(xs) / n
        half = 1.96 * math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1) / n) if n > 1 else 0.0
        rows.append((kind, n, mean, half))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hebei.bench.oracle", description=__doc__)
    parser.add_argument("--seed", type=int, default=5, help="wall seed (tuning walls: 5, 7)")
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--first", type=int, default=0, help="first match number")
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--mode", choices=MODES, default="efficiency")
    parser.add_argument("--expert", default="expert:3")
    parser.add_argument("--change", default="", help="change mode: name=value,... (ExpertLevel)")
    args = parser.parse_args(argv)
    try:
        decisions = run(
            args.seed,
            args.matches,
            args.mode,
            args.worlds,
            args.expert,
            args.first,
            on_match=lambda n, k: print(f"match {n}: {k} decisions", file=sys.stderr),
            change=parse_change(args.change),
        )
    except ValueError as exc:
        parser.error(str(exc))
    print("| kind | alternatives | other − expert's choice, points |")
    print("|---|---|---|")
    for kind, n, mean, half in summarise(decisions):
        print(f"| {kind} | {n} | {mean:+.2f} ± {half:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
