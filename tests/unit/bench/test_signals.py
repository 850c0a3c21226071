"""``hebei.bench.signals.handled``: handlers for the length of a block, put back after it."""

from __future__ import annotations

import signal
import threading

import pytest

from hebei.bench.signals import handled, starting_workers


def _mine(signum, frame) -> None:
    raise LookupError(signum)


def test_the_handlers_hold_in_the_block_and_the_previous_ones_come_back() -> None:
    before = signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGUSR2)
    with handled({signal.SIGUSR1: _mine, signal.SIGUSR2: signal.SIG_IGN}):
        assert signal.getsignal(signal.SIGUSR1) is _mine
        assert signal.getsignal(signal.SIGUSR2) == signal.SIG_IGN
        signal.raise_signal(signal.SIGUSR2)  # ignored: nothing happens
        with pytest.raises(LookupError):
            signal.raise_signal(signal.SIGUSR1)
    assert (signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGUSR2)) == before


def test_the_previous_handlers_come_back_when_the_block_raises() -> None:
    before = signal.getsignal(signal.SIGUSR1)
    with pytest.raises(RuntimeError), handled({signal.SIGUSR1: _mine}):
        raise RuntimeError
    assert signal.getsignal(signal.SIGUSR1) == before


def test_outside_the_main_thread_nothing_changes() -> None:
    seen = []

    def other() -> None:
        with handled({signal.SIGUSR1: _mine}):  # signal.signal would raise ValueError here
            seen.append(signal.getsignal(signal.SIGUSR1))

    before = signal.getsignal(signal.SIGUSR1)
    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen == [before]


def test_while_workers_start_ctrl_c_is_ignored_and_sigterm_comes_at_the_end() -> None:
    got: list[int] = []

    def record(signum, frame) -> None:
        got.append(signum)

    with handled({signal.SIGTERM: record, signal.SIGINT: record}):
        with starting_workers():
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # what workers inherit
            signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGINT)
            assert got == []  # SIGTERM not yet
        assert got == [signal.SIGTERM]  # once, at the end; the Ctrl-C ignored
        assert signal.getsignal(signal.SIGINT) is record
