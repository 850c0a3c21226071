"""`hebei bench rules`: speed of the pure game against the targets of ARCHITECTURE.md.

Every hand comes from a fixed seed: random 14-tile hands drawn from a shuffled
136-tile wall (never a fifth copy). Our shanten, the PyPI ``mahjong`` library's
shanten, the win check, ukeire and discard options all run on the same hands;
self-play with random-legal players gives hands per second, under each rule profile
(the main rules and the classic ones, with chow).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from hebei.bench import best_time_per_call, best_times_per_call
from hebei.rules import shanten as shanten_module
from hebei.rules.profile import CLASSIC
from hebei.rules.simulate import simulate
from hebei.rules.tiles import N_KINDS, to_counts
from hebei.rules.wincheck import is_win
from hebei.rules.wincheck import warm_up as warm_up_wincheck

WALL = tuple(k for k in range(N_KINDS) for _ in range(4))


@dataclass(frozen=True)
class Target:
    """A target of ARCHITECTURE.md: ``value <= bound`` (at_most) or ``value >= bound``."""

    bound: float
    at_most: bool

    def __str__(self) -> str:
        return f"{'≤' if self.at_most else '≥'} {self.bound:g}"

    def ratio(self, value: float) -> float:
        """How far the value is on the good side: >= 1 meets the target."""
        if self.at_most:
            return self.bound / value if value else float("inf")
        return value / self.bound


TARGETS: dict[str, Target] = {
    "shanten_us": Target(3.0, at_most=True),
    "shanten_speedup_vs_mahjong": Target(20.0, at_most=False),
    # The expert bot's whole decision has a median budget of 1 ms.
    "discard_options_us": Target(1000.0, at_most=True),
    "random_hands_per_second": Target(500.0, at_most=False),
    "classic_random_hands_per_second": Target(500.0, at_most=False),
}


def random_hands(n: int, seed: int) -> list[list[int]]:
    """``n`` hands of 14 kinds each, in draw order, from a shuffled wall per hand."""
    rng = random.Random(seed)
    return [rng.sample(WALL, 14) for _ in range(n)]


def _mahjong_shanten() -> Callable[[list[int]], int] | None:
    try:
        from mahjong.shanten import Shanten
    except ImportError:  # a dev dependency; production installs may lack it
        return None
    return Shanten().calculate_shanten


def run_rules_bench(
    hands: int = 100_000,
    seed: int = 20240601,
    repeats: int = 3,
    lib_repeats: int = 2,
    ukeire_hands: int = 20_000,
    discard_hands: int = 5_000,
    simulated_hands: int = 1_000,
    on_stage: Callable[[str], None] | None = None,
) -> dict[str, object]:
    """Measure the rules and return one flat dict of numbers (see the module doc).

    ``*_us`` are microseconds per call, best of ``repeats`` passes (``lib_repeats``
    for the slower ``mahjong`` library). Ukeire runs on the first 13 tiles of the
    first ``ukeire_hands`` hands, discard options on the first ``discard_hands``
    14-tile hands. ``on_stage`` is told what runs next (for a progress display).
    """
    if hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")

    def stage(text: str) -> None:
        if on_stage is not None:
            on_stage(text)

    stage(f"drawing {hands:,} random hands")
    drawn = random_hands(hands, seed)
    full = [to_counts(kinds) for kinds in drawn]
    short = [to_counts(kinds[:13]) for kinds in drawn[:ukeire_hands]]
    result: dict[str, object] = {"hands": hands, "seed": seed, "repeats": repeats}

    stage("shanten, first pass (fills the tables for new suit patterns)")
    shanten = shanten_module.shanten
    result["shanten_first_pass_us"] = best_time_per_call(shanten, full, 1)
    lib = _mahjong_shanten()
    if lib is None:
        stage("shanten")
        result["shanten_us"] = best_time_per_call(shanten, full, repeats)
        result["mahjong_lib_shanten_us"] = None
        result["shanten_speedup_vs_mahjong"] = None
    else:
        stage("shanten, ours and the mahjong library's in turns (slow)")
        ours, theirs = best_times_per_call([(shanten, full, repeats), (lib, full, lib_repeats)])
        result["shanten_us"] = ours
        result["mahjong_lib_shanten_us"] = theirs
        result["shanten_speedup_vs_mahjong"] = theirs / ours

    stage("win check")
    warm_up_wincheck()
    result["win_check_us"] = best_time_per_call(is_win, full, repeats)

    stage(f"ukeire on {len(short):,} 13-tile hands")
    result["ukeire_hands"] = len(short)
    best_time_per_call(shanten_module.ukeire, short, 1)  # fills the tables
    result["ukeire_us"] = best_time_per_call(shanten_module.ukeire, short, repeats)

    some = full[:discard_hands]
    stage(f"discard options on {len(some):,} 14-tile hands")
    result["discard_options_hands"] = len(some)
    result["discard_options_first_pass_us"] = best_time_per_call(
        shanten_module.discard_options, some, 1
    )
    result["discard_options_us"] = best_time_per_call(shanten_module.discard_options, some, repeats)

    stage(f"self-play: {simulated_hands:,} hands with random-legal players")
    summary = simulate(simulated_hands, seed, "random")
    result["random_hands"] = summary.hands
    result["random_hands_per_second"] = summary.hands_per_second

    stage(f"self-play, classic rules: {simulated_hands:,} hands with random-legal players")
    summary = simulate(simulated_hands, seed, "random", CLASSIC)
    result["classic_random_hands"] = summary.hands
    result["classic_random_hands_per_second"] = summary.hands_per_second
    return result
