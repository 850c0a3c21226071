"""Offline: the wait model of a threatened table, gathered and fitted (not imported by play).

``gather`` plays matches of one expert against three efficiency players on the tuning walls
(``--seed 5`` or ``7``; match numbers from ``--first``, apart from the 0-299 the benchmark
screens on; the evaluation walls are refused) and, at every seat's discard turn where some
opponent reads ready with at least :data:`~hebei.bots.policies.danger.THREAT_READY`,
records for each opponent and each kind the seat holds the features of
:func:`~hebei.bots.policies.danger.threat_features`, the calm model's wait probability, the
opponent's read and true readiness, and whether the kind is among its true waits (the rules
engine's). ``fit`` fits a logistic regression (numpy, only here: install it into the venv
for this script; the policy ships the coefficients as constants) on the rows whose opponent
is truly ready, holding out every fourth match, and prints the held-out ranking and
calibration of both models and the coefficients::

    python -m hebei.bench.waitfit gather --seed 5 --first 1000 --matches 200 --out s5.jsonl
    python -m hebei.bench.waitfit fit s5.jsonl s7.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator, Sequence

from hebei.bench.bots import SEED_STRIDE
from hebei.bench.oracle import EVALUATION_SEED
from hebei.bots.policies import make_policy, parse_policy
from hebei.bots.policies.danger import (
    THREAT_NAMES,
    THREAT_READY,
    DangerMap,
    threat_features,
    wait_probability,
)
from hebei.bots.policies.reading import read_table
from hebei.rules.actions import ActionKind
from hebei.rules.hand import Phase
from hebei.rules.match import Match, MatchLength
from hebei.rules.views import observe
from hebei.rules.wincheck import legal_waits


def _rows(state, seat: int, obs, match_no: int) -> Iterator[dict]:
    table = read_table(obs)
    if max(o.ready for o in table.opponents) < THREAT_READY:
        return
    counts = obs.counts()
    danger = DangerMap(table, counts, obs.visible(), obs.dealer == seat)
    held = [k for k, c in enumerate(counts) if c]
    for opp in table.opponents:
        waits = set(legal_waits(list(state.hands[opp.seat]), state.melds[opp.seat]))
        own_row = table.last_seen[opp.seat]
        for kind in held:
            age = table.passed_by(opp, kind)
            yield {
                "m": match_no,
                "own": kind in opp.discards,
                "f": threat_features(kind, opp, own_row, danger.unseen, age, danger.seen),
                "old": wait_probability(kind, opp, danger.unseen, age, danger.seen),
                "read": opp.ready,
                "ready": bool(waits),
                "y": kind in waits,
                "cost": danger.costs[table.opponents.index(opp)],
            }


def gather(seed: int, first: int, matches: int, expert: str = "expert:3") -> Iterator[dict]:
    """Rows of threatened-table positions (see the module docstring)."""
    if seed == EVALUATION_SEED:
        raise ValueError("tuning walls only: --seed 1 is the evaluation walls")
    name, level = parse_policy(expert)
    for n in range(first, first + matches):
        match_seed = seed * SEED_STRIDE + n
        me = n % 4
        players = [
            make_policy(name, level, seed=match_seed * 16 + s)
            if s == me
            else make_policy("efficiency")
            for s in range(4)
        ]
        match = Match(match_seed, MatchLength(hands=8))
        while not match.finished:
            state = match.next_hand()
            while not state.ended:
                for s in state.to_act():
                    obs = observe(state, s, match.scores)
                    if obs.phase is Phase.TURN and any(
                        a.kind is ActionKind.DISCARD for a in obs.legal_actions
                    ):
                        yield from _rows(state, s, obs, n)
                    state.apply(s, players[s].choose(obs))
            match.finish_hand()


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """The chance a positive outranks a negative (ties count half)."""
    pairs = sorted(zip(scores, labels, strict=True))
    pos = sum(labels)
    neg = len(labels) - pos
    rank_sum, i = 0.0, 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # mean 1-based rank of the tie block
        rank_sum += mid * sum(1 for _, y in pairs[i:j] if y)
        i = j
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def fit(paths: Sequence[str], l2: float = 1.0) -> dict[str, float]:
    """Fit on the truly ready, non-own-discard rows of all but every fourth match; print the
    held-out figures; return the weights by name."""
    import numpy as np

    rows = []
    for path in paths:
        with open(path) as lines:
            rows.extend(json.loads(line) for line in lines)
    index = {name: i for i, name in enumerate(THREAT_NAMES)}

    def matrix(rs):
        x = np.zeros((len(rs), len(THREAT_NAMES)))
        for i, r in enumerate(rs):
            for name, v in r["f"].items():
                x[i, index[name]] = v
        return x

    usable = [r for r in rows if r["ready"] and not r["own"]]
    train = [r for r in usable if r["m"] % 4 != 3]
    test = [r for r in usable if r["m"] % 4 == 3]
    x, y = matrix(train), np.array([r["y"] for r in train], dtype=float)
    w = np.zeros(x.shape[1])
    w[0] = math.log(y.mean() / (1 - y.mean()))
    reg = np.full(x.shape[1], l2)
    reg[0] = 0.0
    for _ in range(30):  # Newton (IRLS) with a light ridge on all but the intercept
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) + reg * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = {name: float(w[i]) for i, name in enumerate(THREAT_NAMES)}
    xt = matrix(test)
    new = 1 / (1 + np.exp(-(xt @ w)))
    yt = [r["y"] for r in test]
    old = [r["old"] for r in test]

    def logloss(ps):
        return -sum(math.log(p if t else 1 - p) for p, t in zip(ps, yt, strict=True)) / len(yt)

    print(f"rows {len(rows)}, truly ready {len(usable)}, train {len(train)}, test {len(test)}")
    print(f"held out: waits {sum(yt) / len(yt):.4f}")
    print(
        f"  old: AUC {auc(old, yt):.3f} mean {sum(old) / len(old):.4f} logloss {logloss(old):.4f}"
    )
    print(f"  new: AUC {auc(list(new), yt):.3f} mean {new.mean():.4f} logloss {logloss(new):.4f}")
    # Deal-in per held kind at the table (every opponent, read readiness x wait), held out.
    held = [r for r in rows if r["m"] % 4 == 3]
    xh = matrix(held)
    ph = 1 / (1 + np.exp(-(xh @ w)))
    pairs_old, pairs_new, truth = {}, {}, {}
    for r, p in zip(held, ph, strict=True):
        key = (r["m"], id(r) // 1)  # per row: one opponent; grouped below by position
        wait_old = 0.0025 if r["own"] else r["old"]
        wait_new = 0.0025 if r["own"] else float(p)
        pairs_old[key] = r["read"] * wait_old
        pairs_new[key] = r["read"] * wait_new
        truth[key] = r["y"]
    n = len(truth)
    print(
        f"per opponent x held kind (held out, {n}): true deal-in {sum(truth.values()) / n:.4f}, "
        f"old {sum(pairs_old.values()) / n:.4f}, new {sum(pairs_new.values()) / n:.4f}; "
        f"AUC old {auc(list(pairs_old.values()), list(truth.values())):.3f}, "
        f"new {auc(list(pairs_new.values()), list(truth.values())):.3f}"
    )
    deciles = sorted(zip(new, yt, strict=True))
    step = len(deciles) // 10
    for d in range(10):
        chunk = deciles[d * step : (d + 1) * step]
        print(
            f"  decile {d}: predicted {sum(p for p, _ in chunk) / len(chunk):.4f} "
            f"true {sum(t for _, t in chunk) / len(chunk):.4f}"
        )
    return weights


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hebei.bench.waitfit", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gather")
    g.add_argument("--seed", type=int, default=5)
    g.add_argument("--first", type=int, default=1000)
    g.add_argument("--matches", type=int, default=100)
    g.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("paths", nargs="+")
    f.add_argument("--l2", type=float, default=1.0)
    args = parser.parse_args(argv)
    if args.command == "gather":
        try:
            with open(args.out, "w") as out:
                for row in gather(args.seed, args.first, args.matches):
                    out.write(json.dumps(row) + "\n")
        except ValueError as exc:
            parser.error(str(exc))
        return 0
    weights = fit(args.paths, args.l2)
    print("W_THREAT = {")
    for name, value in weights.items():
        print(f'    "{name}": {value:.3f},')
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
