"""Fixtures of the ledger tests: a Ledger on a schema of its own, and settlement builders."""

from __future__ import annotations

import random
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hebei.common import embedded
from hebei.ledger.journal import Ledger
from hebei.ledger.samples import sample_settlement


@pytest.fixture
def ledger(database_url: str, fresh_schema: str) -> Iterator[Ledger]:
    """A migrated Ledger on a fresh schema."""
    book = Ledger.open(database_url, fresh_schema, max_size=10)
    yield book
    book.close()


@pytest.fixture
def make_settlement() -> Callable[..., dict[str, Any]]:
    """``make_settlement(match_id, hand_no, seed=..., players=..., **fields)``: a seeded valid
    settlement, with any top-level field overridden."""

    def make(
        match_id: str = "m1",
        hand_no: int = 1,
        *,
        seed: int = 0,
        players: list[str] | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        settlement = sample_settlement(
            random.Random(f"{seed}:{match_id}:{hand_no}"),
            match_id=match_id,
            hand_no=hand_no,
            players=players or ["p0", "p1", "p2", "p3"],
        )
        settlement.update(fields)
        return settlement

    return make


@pytest.fixture
def private_postgres() -> Iterator[embedded.EmbeddedPostgres]:
    """A PostgreSQL of this test's own (embedded, even when HEBEI_DATABASE_URL is set), which
    the test may stop and start."""
    folder = Path(tempfile.mkdtemp(prefix="hebei-ledger-pg-"))
    server = embedded.start_postgres(folder)
    yield server
    server.start()  # a test may leave it stopped; close() wants it running
    server.close()
    shutil.rmtree(folder, ignore_errors=True)
