"""PostSettlement is idempotent by key, also under concurrent duplicate posts."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from hebei.common.errors import AlreadyExists
from hebei.ledger import metrics
from hebei.ledger.journal import Ledger

Make = Callable[..., dict[str, Any]]


def _count(ledger: Ledger, table: str) -> int:
    with ledger.pool.connection() as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _balances(ledger: Ledger) -> dict[str, int]:
    with ledger.pool.connection() as conn:
        rows = conn.execute("SELECT player_id, balance FROM accounts").fetchall()
    return {player: balance for player, balance in rows}


def test_same_key_same_body_returns_the_original_entry(ledger: Ledger, make_settlement: Make):
    first = ledger.post_settlement(make_settlement("m1", 1))
    again = ledger.post_settlement(make_settlement("m1", 1))
    assert not first.duplicate
    assert again.duplicate
    assert again.entry_id == first.entry_id
    assert _count(ledger, "journal_entries") == 1


def test_same_meaning_spelled_differently_is_a_duplicate(ledger: Ledger, make_settlement: Make):
    settlement = make_settlement("m1", 1)
    first = ledger.post_settlement(settlement)
    # int64 as decimal strings and defaults left out, as the protobuf JSON mapping allows
    respelled = dict(settlement, rule_profile="main")
    respelled["results"] = [
        {key: str(value) if key.endswith("delta") else value for key, value in result.items()}
        for result in settlement["results"]
    ]
    assert ledger.post_settlement(respelled) == type(first)(first.entry_id, duplicate=True)


def test_same_key_different_body_is_refused_and_writes_nothing(
    ledger: Ledger, make_settlement: Make
):
    original = make_settlement("m1", 1, seed=1)
    ledger.post_settlement(original)
    before = (_count(ledger, "journal_entries"), _count(ledger, "postings"), _balances(ledger))
    changed = make_settlement("m1", 1, seed=1, players=["p0", "p1", "p2", "intruder"])
    with pytest.raises(AlreadyExists, match="'m1:1' is already booked as entry"):
        ledger.post_settlement(changed)
    after = (_count(ledger, "journal_entries"), _count(ledger, "postings"), _balances(ledger))
    assert after[:2] == before[:2]
    assert {p: b for p, b in after[2].items() if p != "intruder"} == before[2]
    assert after[2].get("intruder", 0) == 0


def test_concurrent_duplicates_from_8_posters_book_each_key_once(
    ledger: Ledger, make_settlement: Make
):
    rng = random.Random(5)
    players = [f"player{i}" for i in range(10)]
    settlements = []
    for match in range(6):
        seated = rng.sample(players, 4)
        for hand in range(1, 9):
            settlements.append(make_settlement(f"match{match}", hand, seed=match, players=seated))
    # each settlement posted 1-5 times, spread over 8 posters in random order
    posts = [s for s in settlements for _ in range(rng.randint(1, 5))]
    rng.shuffle(posts)
    queues = [posts[i::8] for i in range(8)]
    results: list[tuple[str, int, bool]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(8)
    posted_before = metrics.SETTLEMENTS.labels("posted")._value.get()
    deduplicated_before = metrics.SETTLEMENTS.labels("deduplicated")._value.get()

    def poster(queue: list[dict[str, Any]]) -> None:
        start.wait()
        for settlement in queue:
            try:
                result = ledger.post_settlement(settlement)
            except BaseException as error:  # collected and asserted below
                with lock:
                    errors.append(error)
                continue
            with lock:
                results.append((settlement["idempotency_key"], result.entry_id, result.duplicate))

    threads = [threading.Thread(target=poster, args=(queue,)) for queue in queues]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(results) == len(posts)
    entry_of: dict[str, set[int]] = {}
    for key, entry_id, _ in results:
        entry_of.setdefault(key, set()).add(entry_id)
    assert all(len(ids) == 1 for ids in entry_of.values())  # every post got the same entry
    fresh = Counter(key for key, _, duplicate in results if not duplicate)
    assert fresh == Counter({s["idempotency_key"]: 1 for s in settlements})
    assert _count(ledger, "journal_entries") == len(settlements)

    expected: Counter[str] = Counter()
    for settlement in settlements:
        for result in settlement["results"]:
            expected[result["player_id"]] += result["total_delta"]
    assert _balances(ledger) == {player: expected[player] for player in _balances(ledger)}
    assert metrics.SETTLEMENTS.labels("posted")._value.get() - posted_before == len(settlements)
    assert metrics.SETTLEMENTS.labels("deduplicated")._value.get() - deduplicated_before == len(
        posts
    ) - len(settlements)
    report = ledger.audit()
    assert report.ok, report.problems
    assert report.entries_checked == len(settlements)


def test_unique_key_is_enforced_by_the_database(ledger: Ledger, make_settlement: Make):
    ledger.post_settlement(make_settlement("m1", 1))
    with ledger.pool.connection() as conn, pytest.raises(psycopg.errors.UniqueViolation):
        conn.execute(
            "INSERT INTO journal_entries (idempotency_key, request_hash, kind, tournament_id,"
            " round_no, table_id, match_id, hand_no, outcome, settlement)"
            " VALUES ('m1:1', '\\x00', 'settlement', 't', 1, 't', 'm1', 1, 'x', '{}')"
        )
