"""PostgreSQL going away and coming back: calls fail UNAVAILABLE meanwhile, nothing is lost or
half-written, and the same Ledger works again afterwards without a restart."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from hebei.common.embedded import EmbeddedPostgres
from hebei.common.errors import Unavailable
from hebei.ledger.journal import Ledger
from hebei.ledger.samples import sample_settlement

POSTERS = 4


def _wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_postgres_restart_during_a_load(private_postgres: EmbeddedPostgres):
    ledger = Ledger.open(private_postgres.url, "ledger", max_size=POSTERS + 1, timeout=1.0)
    acknowledged: list[str] = []
    unavailable: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def poster(index: int) -> None:
        rng = random.Random(index)
        players = [f"p{index}-{seat}" for seat in range(4)]
        hand_no = 0
        while not stop.is_set():
            hand_no += 1
            settlement = sample_settlement(
                rng, match_id=f"load{index}", hand_no=hand_no, players=players
            )
            while not stop.is_set():  # like the table engine: retry the same key until booked
                try:
                    ledger.post_settlement(settlement)
                except Unavailable as error:
                    with lock:
                        unavailable.append(str(error))
                    time.sleep(0.02)
                    continue
                with lock:
                    acknowledged.append(settlement["idempotency_key"])
                break

    threads = [threading.Thread(target=poster, args=(i,)) for i in range(POSTERS)]
    for thread in threads:
        thread.start()
    try:
        _wait_for(lambda: len(acknowledged) >= 40, 30, "a first load")
        private_postgres.stop("immediate")  # a crash: recovery replays the WAL
        _wait_for(lambda: len(unavailable) >= POSTERS, 30, "failures while down")
        started = time.monotonic()
        with pytest.raises(Unavailable, match="database unavailable"):
            ledger.post_settlement(
                sample_settlement(random.Random(9), match_id="down", hand_no=1,
                                  players=["w", "x", "y", "z"])
            )  # fmt: skip
        assert time.monotonic() - started < 5
        booked_while_down = len(acknowledged)
        private_postgres.start()
        _wait_for(lambda: len(acknowledged) >= booked_while_down + 40, 60, "recovery")
    finally:
        stop.set()
        for thread in threads:
            thread.join()

    assert all("database unavailable" in message for message in unavailable)
    history_keys: list[str] = []
    token = ""
    while True:
        page = ledger.history(page_size=500, page_token=token)
        history_keys += [entry.idempotency_key for entry in page.entries]
        token = page.next_page_token
        if not token:
            break
    # every acknowledged settlement is there, exactly once; nothing else was booked
    assert sorted(history_keys) == sorted(acknowledged)
    report = ledger.audit()
    assert report.ok, report.problems
    assert report.entries_checked == len(acknowledged)
    ledger.close()


def test_a_post_waiting_while_postgres_is_down_is_booked_soon_after_it_is_back(
    private_postgres: EmbeddedPostgres,
):
    """A post that started during the outage is booked within moments of PostgreSQL's
    return, not when its connection wait (the pool timeout, 30 s here) runs out."""
    ledger = Ledger.open(private_postgres.url, "ledger", max_size=4, timeout=30.0)
    players = ["w", "x", "y", "z"]
    rng = random.Random(3)
    outcome: dict[str, Any] = {}

    def post() -> None:
        settlement = sample_settlement(rng, match_id="m", hand_no=2, players=players)
        try:
            outcome["result"] = ledger.post_settlement(settlement)
        except Exception as error:  # asserted below
            outcome["error"] = error
        outcome["done"] = time.monotonic()

    try:
        ledger.post_settlement(sample_settlement(rng, match_id="m", hand_no=1, players=players))
        private_postgres.stop("immediate")
        waiting = threading.Thread(target=post)
        waiting.start()
        time.sleep(3)  # the post has found the pool's connections broken and waits for one
        assert waiting.is_alive(), outcome
        private_postgres.start()
        back = time.monotonic()
        waiting.join(timeout=60)
        assert "result" in outcome, outcome
        assert outcome["done"] - back < 10  # it was sitting out 30 s before
        assert ledger.audit().entries_checked == 2
    finally:
        ledger.close()
