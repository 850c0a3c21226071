"""Signal handlers set for the length of a block, and put back after it."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

Handler = Callable[[int, Any], Any] | int | signal.Handlers


@contextlib.contextmanager
def handled(handlers: Mapping[int, Handler]) -> Iterator[None]:
    """Each signal of ``handlers`` handled so in the block (``signal.SIG_IGN`` to ignore it),
    the previous handlers back after it. Python sets handlers in the main thread only:
    elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum, handler in handlers.items()}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
