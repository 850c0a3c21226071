"""An offline oracle for the classic expert's departures from the efficiency player.

The classic counterpart of :mod:`hebei.bench.oracle` (same reshuffled worlds, same play-out
with the real rules engine and the real policies, the same worlds for every candidate): the
expert plays against three efficiency players at classic tables (RULES.md §9), and wherever
its choice differs from what the efficiency player would do in its seat, both are played out
on ``worlds`` reshuffled walls. The figure is the seat's points for the hand.

Decisions are grouped by what differs (:func:`kind_of`): a claim the efficiency player would
not make (or the other way round), a discard that keeps the same number of steps (by the
exact count) but fewer useful tiles, one that is faster or slower. A positive mean of
"other − expert's choice" for a kind says the expert should play like the efficiency player
there. Tuning walls only (the evaluation walls, ``--seed 1``, are refused)::

    python -m hebei.bench.classic_oracle --seed 5 --matches 8 --worlds 8
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Iterator, Sequence

from hebei.bench.bots import SEED_STRIDE
from hebei.bench.oracle import EVALUATION_SEED, Decision, points_by_candidate, summarise
from hebei.bots.policies import Policy, make_policy, parse_policy
from hebei.bots.policies.options import Option
from hebei.rules.actions import WIN, Action, ActionKind
from hebei.rules.hand import HandState, Phase
from hebei.rules.match import Match, MatchLength
from hebei.rules.melds import MeldKind
from hebei.rules.profile import get_profile
from hebei.rules.views import Observation, observe


def _steps(steps: int | None) -> str:
    return "2+" if steps is None or steps >= 2 else str(steps)


def kind_of(obs: Observation, chosen: Option, other: Option) -> str:
    """The kind of a decision where the expert chose ``chosen`` and the efficiency player
    would play ``other`` (both as the expert's ranking prices them)."""
    a, b = chosen.action.kind, other.action.kind
    melds = obs.seats[obs.seat].melds
    closed = "concealed" if all(m.kind is MeldKind.CONCEALED_KONG for m in melds) else "open"
    if obs.phase is not Phase.TURN:
        if chosen.shanten == other.shanten:
            shape = "same steps"
        else:
            shape = "expert faster" if chosen.shanten < other.shanten else "expert slower"
        return f"claim: {a.name.lower()} or {b.name.lower()}, {shape}, {closed}"
    if a is not ActionKind.DISCARD or b is not ActionKind.DISCARD:
        return f"turn: {a.name.lower()} or {b.name.lower()}"
    if chosen.shanten == other.shanten:
        more = "fewer" if chosen.useful_unseen < other.useful_unseen else "not fewer"
        shape = f"same steps, {more} useful"
    else:
        shape = "expert faster" if chosen.shanten < other.shanten else "expert slower"
    return f"discard, {shape}, {_steps(chosen.shanten)} from ready, {closed}"


def _forced(obs: Observation) -> bool:
    """One legal action, or a win on offer (the policies always take it)."""
    return len(obs.legal_actions) == 1 or WIN in obs.legal_actions


def _seat_decisions(
    match_seed: int, me: int, seated: Callable[[int], list[Policy]]
) -> Iterator[tuple[HandState, list[tuple[int, Action]], tuple[int, ...], Observation, Action]]:
    """Play the classic match of ``match_seed`` (8 hands, the policies of ``seated``) and
    yield, before it is applied, every choice of seat ``me`` that is not forced (more than
    one legal action, no win on offer): the hand, its history, the scores, what the seat
    saw and the action it chose."""
    players = seated(match_seed * 16)
    match = Match(match_seed, MatchLength(hands=8), get_profile("classic"))
    while not match.finished:
        state, history = match.next_hand(), []
        while not state.ended:
            for seat in state.to_act():
                seen = observe(state, seat, match.scores)
                chosen = players[seat].choose(seen)
                if seat == me and not _forced(seen):
                    yield state, history, tuple(match.scores), seen, chosen
                state.apply(seat, chosen)
                history.append((seat, chosen))
        match.finish_hand()


def run(
    seed: int,
    matches: int,
    worlds: int = 8,
    expert: str = "expert",
    first: int = 0,
    on_match: Callable[[int, list[Decision]], None] | None = None,
) -> list[Decision]:
    """Play ``matches`` classic matches (8 hands) of ``expert`` against three efficiency
    players on the walls of ``seed`` (the expert's seat rotates) and play out every decision
    where the expert departs from the efficiency player."""
    if seed == EVALUATION_SEED:
        raise ValueError("the oracle runs on tuning walls only: --seed 1 is the evaluation walls")
    if worlds < 2 or matches < 1:
        raise ValueError("need at least 2 worlds and 1 match")
    name, level = parse_policy(expert)
    efficiency = make_policy("efficiency")
    ranker = make_policy(name, level)  # the expert's ranking is a function of what it sees
    decisions: list[Decision] = []
    for n in range(first, first + matches):
        me = n % 4
        match_seed = seed * SEED_STRIDE + n
        rng = random.Random(match_seed)

        def seated(base: int, me: int = me) -> list[Policy]:
            return [
                make_policy(name, level, seed=base + s) if s == me else make_policy("efficiency")
                for s in range(4)
            ]

        for state, history, scores, obs, action in _seat_decisions(match_seed, me, seated):
            plain = efficiency.choose(obs)
            if plain == action:
                continue
            options = {o.action: o for o in ranker.rank(obs)}
            candidates = [action, plain]
            points = points_by_candidate(
                state, history, me, candidates, seated, scores, worlds, rng
            )
            kind = kind_of(obs, options[action], options[plain])
            decisions.append(Decision(kind, tuple(map(tuple, points))))
        if on_match is not None:
            on_match(n, decisions)
    return decisions


def read_decisions(paths: Sequence[str]) -> list[Decision]:
    """The decisions of ``--out`` files."""
    decisions = []
    for path in paths:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                row = json.loads(line)
                decisions.append(Decision(row["kind"], tuple(map(tuple, row["points"]))))
    return decisions


def table(decisions: Sequence[Decision]) -> str:
    """A Markdown table: per kind, the decisions and the efficiency player's choice's mean
    points for the hand minus the expert's, with its 95% interval."""
    rows = [
        f"| {k} | {n} | {mean:+.2f} ± {half:.2f} |" for k, n, mean, half in summarise(decisions)
    ]
    head = ["| kind | decisions | efficiency's choice − expert's, points |", "|---|---|---|"]
    return "\n".join(head + rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hebei.bench.classic_oracle", description=__doc__
    )
    parser.add_argument("--seed", type=int, default=5, help="wall seed (tuning walls: 5, 7)")
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--first", type=int, default=0, help="first match number")
    parser.add_argument("--worlds", type=int, default=8)
    parser.add_argument("--expert", default="expert")
    parser.add_argument("--out", help="also write each decision (kind, points) as JSON lines")
    parser.add_argument("--read", nargs="+", help="summarise these --out files instead")
    args = parser.parse_args(argv)
    written = 0

    def progress(n: int, decisions: list[Decision]) -> None:
        nonlocal written
        print(f"match {n}: {len(decisions)} decisions", file=sys.stderr)
        if args.out:  # as the matches end: a long run can be read while it goes on
            with open(args.out, "a", encoding="utf-8") as out:
                for d in decisions[written:]:
                    out.write(json.dumps({"kind": d.kind, "points": d.points}) + "\n")
            written = len(decisions)

    if args.read:
        print(table(read_decisions(args.read)))
        return 0
    try:
        decisions = run(args.seed, args.matches, args.worlds, args.expert, args.first, progress)
    except ValueError as exc:
        parser.error(str(exc))
    print(table(decisions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
