"""Benchmarks behind `hebei bench ...`: plain functions that measure and return dicts.

Each module measures one area (``rules`` for the pure game); the CLI only prints.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def best_time_per_call(fn: Callable[[T], object], items: Iterable[T], repeats: int) -> float:
    """Microseconds per call of ``fn`` over ``items``: the best of ``repeats`` timed passes.

    The garbage collector is off while timing, as in :mod:`timeit`.
    """
    items = list(items)
    best = float("inf")
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(max(1, repeats)):
            start = time.perf_counter()
            for item in items:
                fn(item)
            best = min(best, time.perf_counter() - start)
    finally:
        if was_enabled:
            gc.enable()
    return best / max(1, len(items)) * 1e6
