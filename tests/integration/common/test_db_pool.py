"""The services' connection pools hand out only working connections: a connection whose
backend is gone (terminated, or PostgreSQL restarted) is replaced before use, although a
healthy idle connection is handed out without a round trip of checking."""

from __future__ import annotations

import time

import psycopg

from hebei.common import db


def _terminate(database_url: str, pid: int) -> None:
    with psycopg.connect(database_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        for _ in range(100):  # until the backend is gone
            gone = admin.execute(
                "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = %s", (pid,)
            ).fetchone()[0]
            if gone:
                return
            time.sleep(0.05)


def test_a_terminated_connection_is_replaced_before_it_is_handed_out(database_url: str) -> None:
    for autocommit in (False, True):
        pool = db.create_pool(
            database_url, min_size=1, max_size=1, wait=True, autocommit=autocommit
        )
        try:
            with pool.connection() as conn:
                first = conn.info.backend_pid
                conn.execute("SELECT 1")
            _terminate(database_url, first)
            for _ in range(3):
                with pool.connection() as conn:
                    assert conn.execute("SELECT 1").fetchone() == (1,)
                    assert conn.info.backend_pid != first
        finally:
            pool.close()


def test_an_idle_healthy_connection_is_handed_out_as_it_is(database_url: str) -> None:
    """The same connection comes back use after use (nothing replaced it), and it works."""
    pool = db.create_pool(database_url, min_size=1, max_size=1, wait=True)
    try:
        pids = set()
        for _ in range(5):
            with pool.connection() as conn:
                pids.add(conn.info.backend_pid)
                assert conn.execute("SELECT 1").fetchone() == (1,)
        assert len(pids) == 1
    finally:
        pool.close()
