"""`hebei bench ledger`: settlements booked per second against a plain insert loop.

Both run on the same database in the same run, with the server's fsync and synchronous_commit
as they are (both on by default; the result says what they were):

- the plain loop inserts one row per transaction on one connection and commits each;
- the ledger books seeded sample settlements (one journal entry with 4-8 postings each,
  balance updates and the deferred balance checks) from ``concurrency`` threads sharing one
  Ledger, as the table engine's many tables would; the Ledger's group commit books
  settlements that arrive together in one statement and one commit.

The two are timed in turns (plain, ledger, plain, ledger, ...) and the best pass of each
counts, so a change in machine load hits both alike. Everything lives in a scratch schema
that is dropped at the end. Targets (ARCHITECTURE.md): at least 1,000 settlements/s and at
least 50% of the plain loop's rate.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql

from hebei.common import embedded
from hebei.ledger.journal import Ledger
from hebei.ledger.samples import sample_settlement

__all__ = ["TARGET_RATIO", "TARGET_SETTLEMENTS_PER_SECOND", "run_ledger_bench"]

TARGET_SETTLEMENTS_PER_SECOND = 1000.0
TARGET_RATIO = 0.5


def _settlements(seed: int, count: int, players: int = 64) -> list[dict[str, Any]]:
    """``count`` seeded settlements of 4-player tables drawn from ``players`` players."""
    rng = random.Random(seed)
    names = [f"player{i:03d}" for i in range(players)]
    out: list[dict[str, Any]] = []
    match = 0
    while len(out) < count:
        match += 1
        seated = rng.sample(names, 4)
        for hand_no in range(1, 9):
            out.append(
                sample_settlement(
                    rng, match_id=f"bench-{seed}-{match}", hand_no=hand_no, players=seated,
                    tournament_id="bench", table_id=f"table-{match % 16}",
                )
            )  # fmt: skip
    return out[:count]


def _plain_loop(url: str, schema: str, rows: int) -> float:
    """Rows per second of single-row inserts, one commit each, on one connection."""
    table = sql.Identifier(schema, "plain_rows")
    with psycopg.connect(url) as conn:
        insert = sql.SQL("INSERT INTO {} (value) VALUES (%s)").format(table).as_string(conn)
        started = time.perf_counter()
        for value in range(rows):
            conn.execute(insert, (value,))
            conn.commit()
        return rows / (time.perf_counter() - started)


def _ledger_pass(ledger: Ledger, batch: list[dict[str, Any]], concurrency: int) -> float:
    """Settlements per second booking ``batch`` from ``concurrency`` threads."""
    shares = [batch[i::concurrency] for i in range(concurrency)]
    errors: list[BaseException] = []
    gate = threading.Barrier(concurrency + 1)

    def post(share: list[dict[str, Any]]) -> None:
        gate.wait()
        try:
            for settlement in share:
                ledger.post_settlement(settlement)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=post, args=(share,)) for share in shares]
    for thread in threads:
        thread.start()
    gate.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return len(batch) / elapsed


def run_ledger_bench(
    url: str | None = None,
    *,
    settlements: int = 2000,
    plain_rows: int = 2000,
    concurrency: int = 8,
    rounds: int = 3,
    seed: int = 1,
    on_stage: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Measure and return the figures (see the module docstring) as a dict."""
    stage = on_stage or (lambda _text: None)
    url = url or embedded.database_url()
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    stage("generating settlements")
    batches = [_settlements(seed + r, settlements) for r in range(rounds)]
    with psycopg.connect(url, autocommit=True) as conn:
        fsync = str(conn.execute("SHOW fsync").fetchone()[0])
        synchronous_commit = str(conn.execute("SHOW synchronous_commit").fetchone()[0])
    ledger = Ledger.open(url, schema, min_size=concurrency, max_size=concurrency)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                sql.SQL(
                    "CREATE TABLE {} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                    " value bigint NOT NULL)"
                ).format(sql.Identifier(schema, "plain_rows"))
            )
        plain_rates: list[float] = []
        ledger_rates: list[float] = []
        for round_no, batch in enumerate(batches, start=1):
            stage(f"round {round_no}/{rounds}: plain insert loop")
            plain_rates.append(_plain_loop(url, schema, plain_rows))
            stage(f"round {round_no}/{rounds}: settlements from {concurrency} posters")
            ledger_rates.append(_ledger_pass(ledger, batch, concurrency))
        stage("auditing")
        report = ledger.audit()
    finally:
        ledger.close()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
    best_plain = max(plain_rates)
    best_ledger = max(ledger_rates)
    ratio = best_ledger / best_plain
    return {
        "settlements_per_second": best_ledger,
        "plain_inserts_per_second": best_plain,
        "ratio": ratio,
        "concurrency": concurrency,
        "settlements": settlements,
        "plain_rows": plain_rows,
        "rounds": rounds,
        "seed": seed,
        "fsync": fsync,
        "synchronous_commit": synchronous_commit,
        "settlement_passes": ledger_rates,
        "plain_passes": plain_rates,
        "audit_ok": report.ok,
        "entries_booked": report.entries_checked,
        "meets_targets": (
            best_ledger >= TARGET_SETTLEMENTS_PER_SECOND
            and ratio >= TARGET_RATIO
            and report.ok
            and fsync == "on"
            and synchronous_commit == "on"
        ),
    }
