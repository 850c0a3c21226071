"""Benchmarks behind `hebei bench ...`: plain functions that measure and return dicts.

Each module measures one area (``rules`` for the pure game); the CLI only prints.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

Case = tuple[Callable[[Any], object], Iterable[Any], int]  # (fn, items, repeats)


def best_times_per_call(cases: Sequence[Case]) -> list[float]:
    """Microseconds per call of each ``(fn, items, repeats)``: its best timed pass.

    The cases are timed in turns (pass 1 of each, then pass 2 of each, ...), so a
    change in machine load hits all of them alike and their ratios stay fair. The
    garbage collector is off while timing, as in :mod:`timeit`.
    """
    prepared = [(fn, list(items), max(1, repeats)) for fn, items, repeats in cases]
    best = [float("inf")] * len(prepared)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for round_no in range(max(repeats for _, _, repeats in prepared)):
            for i, (fn, items, repeats) in enumerate(prepared):
                if round_no >= repeats:
                    continue
                start = time.perf_counter()
                for item in items:
                    fn(item)
                best[i] = min(best[i], time.perf_counter() - start)
    finally:
        if was_enabled:
            gc.enable()
    return [b / max(1, len(items)) * 1e6 for b, (_, items, _) in zip(best, prepared, strict=True)]


def best_time_per_call(fn: Callable[[Any], object], items: Iterable[Any], repeats: int) -> float:
    """Microseconds per call of ``fn`` over ``items``: the best of ``repeats`` passes."""
    return best_times_per_call([(fn, items, repeats)])[0]
