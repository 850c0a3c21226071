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


class Held:
    """A handler that keeps the signals it gets, to be delivered later (:meth:`deliver`)."""

    def __init__(self) -> None:
        self.signals: list[int] = []

    def __call__(self, signum: int, frame: object) -> None:
        self.signals.append(signum)

    def deliver(self) -> None:
        """Raise each kept signal again, now to whatever handles it."""
        signals, self.signals = self.signals, []
        for signum in signals:
            signal.raise_signal(signum)


@contextlib.contextmanager
def starting_workers() -> Iterator[None]:
    """While worker processes start (``spawn``):

    - SIGINT is ignored, which the workers keep across ``exec``: Python then installs no
      ``KeyboardInterrupt`` handler in them, so they never answer the Ctrl-C a terminal sends
      to the whole process group, and only this process does. The ignoring is process-wide,
      so a Ctrl-C pressed during the start itself (milliseconds) is lost. (Blocking it instead
      does not serve: spawned workers do not keep the blocked mask, and the kernel gives the
      signal to any thread of this process that does not block it.)
    - SIGTERM is held by a handler (the workers get the default back at ``exec``, so their
      pool can still stop them) and raised again once the start is over: a start cut short
      leaves a worker reading half its preparation data, which prints a traceback.

    Outside the main thread nothing changes."""
    held = Held()
    try:
        with handled({signal.SIGINT: signal.SIG_IGN, signal.SIGTERM: held}):
            yield
    finally:
        held.deliver()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def sigterm_as_ctrl_c() -> contextlib.AbstractContextManager[None]:
    """In the block SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does, so a run stopped
    either way ends the same: its worker processes stopped, one line, exit 130 (without it,
    SIGTERM ends the process where it stands and its pool's semaphores leak)."""
    return handled({signal.SIGTERM: _interrupt})
