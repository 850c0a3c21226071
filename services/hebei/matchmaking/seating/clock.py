"""The seating's clock and random sources: the deadline counted in the seating thread's CPU
time, and the ``random.Random`` seeded for each decision (see "Determinism and time" in
:mod:`hebei.matchmaking.seating`)."""

from __future__ import annotations

import random
import time


class Clock:
    """The safety cut-off: ``expired`` turns true (and stays) once the seating has used the
    deadline's seconds of its thread's CPU time. CPU time, not the wall clock: a machine
    loaded by other work slows a round down but does not cut its budgeted search short, so the
    round stays a function of its inputs; the cut-off still bounds a search that would run
    too long anywhere. ``seconds`` is the wall-clock time taken."""

    def __init__(self, deadline: float) -> None:
        self.start = time.perf_counter()
        self.cpu_start = time.thread_time()
        self.deadline = deadline
        self.hit = False

    def expired(self, share: float = 1.0) -> bool:
        """True once ``share`` of the deadline has passed (the rest is left for finishing)."""
        if not self.hit and time.thread_time() - self.cpu_start > self.deadline * share:
            self.hit = True
        return self.hit

    def seconds(self) -> float:
        return time.perf_counter() - self.start


SEARCH_SHARE = 0.8
"""Searches stop at this share of the deadline, leaving time to seat the winds."""


def seeded_rng(seed: int, label: str, round_no: int) -> random.Random:
    """The random source of one decision: seeded by the seed, a label and the round."""
    return random.Random(f"hebei-seating:{label}:{seed}:{round_no}")


def shuffled(n: int, rng: random.Random) -> list[int]:
    """0..n-1 in a random order."""
    order = list(range(n))
    rng.shuffle(order)
    return order
