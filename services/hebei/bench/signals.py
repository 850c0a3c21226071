"""Signal handlers set for the length of a block, and put back after it: how a benchmark run
stops on Ctrl-C or SIGTERM (its worker processes ignore Ctrl-C, its parent answers both).

Here rather than in :mod:`hebei.common`, the services' bootstrap: the bots' benchmark imports
nothing of the services (tests/unit/bots/test_policies.py)."""

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


def ctrl_c_ignored() -> contextlib.AbstractContextManager[None]:
    """SIGINT ignored in the block: processes started in it keep it ignored across ``exec``,
    and Python then installs no ``KeyboardInterrupt`` handler in them."""
    return handled({signal.SIGINT: signal.SIG_IGN})


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def sigterm_as_ctrl_c() -> contextlib.AbstractContextManager[None]:
    """In the block SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does, so a run stopped
    either way ends the same: its worker processes stopped, one line, exit 130 (without it,
    SIGTERM ends the process where it stands and its pool's semaphores leak)."""
    return handled({signal.SIGTERM: _interrupt})
