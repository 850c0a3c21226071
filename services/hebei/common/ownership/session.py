"""The lock session: one dedicated PostgreSQL connection of a replica (never a pool's), on which
it takes every advisory lock, and the evidence that those locks are still held.

Session advisory locks live exactly as long as the server-side session: PostgreSQL frees them
when the session ends (the process died and its socket closed, the server terminated it, its
keepalives or ``idle_session_timeout`` expired). So a statement that succeeds on this
connection proves every lock it took was still held when the server ran it; the session records
the start of its last successful round trip and :attr:`LockSession.valid_until` is that plus
``Timings.validity_seconds``. Any failed statement (error, server ``statement_timeout``, broken
socket) raises :class:`SessionLost`, after which the session is never used again (the owner
declares its locks lost and closes it; closing frees whatever the server still held).

Both ends are set to notice a dead peer: libpq keepalives and ``tcp_user_timeout`` on the
client; ``tcp_keepalives_*``, ``idle_session_timeout``, ``client_connection_check_interval`` and
``statement_timeout`` on the server (``SET`` per session; a parameter the server does not know,
before PostgreSQL 14, is skipped with a warning).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import select
import socket
import threading
import time
from typing import Any

import psycopg
from psycopg import sql

from hebei.common.db import first_line
from hebei.common.ownership.timings import Timings

__all__ = ["LockSession", "SessionLost"]

log = logging.getLogger(__name__)


class SessionLost(Exception):
    """The lock session failed or may have: every lock taken on it must be taken as lost."""


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


class LockSession:
    """A replica's dedicated connection; statements from several threads are serialised."""

    def __init__(self, url: str, *, timings: Timings, application_name: str) -> None:
        self.timings = timings
        self._lock = threading.Lock()
        self._socket_lock = threading.Lock()  # abort() never shuts down a closed socket's fd
        self._closed = False
        self._dead = False
        self.valid_until = -math.inf
        try:
            self._conn = psycopg.connect(
                url,
                autocommit=True,
                connect_timeout=timings.connect_timeout_seconds,
                application_name=application_name[:63],
                keepalives=1,
                keepalives_idle=timings.keepalive_idle_seconds,
                keepalives_interval=timings.keepalive_interval_seconds,
                keepalives_count=timings.keepalive_count,
                tcp_user_timeout=_ms(timings.validity_seconds),
            )
        except psycopg.Error as error:
            raise SessionLost(f"cannot open the lock session: {first_line(error)}") from error
        settings = {
            "statement_timeout": f"{_ms(timings.statement_timeout_seconds)}ms",
            "idle_session_timeout": f"{_ms(timings.server_idle_timeout_seconds)}ms",
            "idle_in_transaction_session_timeout": f"{_ms(timings.validity_seconds)}ms",
            "tcp_keepalives_idle": str(timings.keepalive_idle_seconds),
            "tcp_keepalives_interval": str(timings.keepalive_interval_seconds),
            "tcp_keepalives_count": str(timings.keepalive_count),
            "client_connection_check_interval": f"{_ms(timings.heartbeat_seconds)}ms",
        }
        try:
            for name, value in settings.items():
                try:
                    self._conn.execute(
                        sql.SQL("SET {} = {}").format(sql.Identifier(name), sql.Literal(value))
                    )
                except psycopg.errors.UndefinedObject:
                    log.warning("PostgreSQL has no %s; the lock session goes without it", name)
            self.backend_pid: int = self._conn.info.backend_pid
        except psycopg.Error as error:
            self._conn.close()
            raise SessionLost(f"cannot set up the lock session: {first_line(error)}") from error

    @property
    def dead(self) -> bool:
        """True once the session failed, was given up or passed its validity."""
        return self._dead or time.monotonic() >= self.valid_until

    def kill(self) -> None:
        """Never trust this session again (its locks are taken as lost from now on)."""
        self._dead = True
        self.valid_until = -math.inf

    def run(self, query: sql.Composable | str, params: Any = None) -> list[tuple[Any, ...]]:
        """Run one statement and return its rows; SessionLost if it fails or the session is
        dead. Success extends :attr:`valid_until` from the moment the statement was sent."""
        with self._lock:
            if self._dead:
                raise SessionLost("the lock session was given up")
            sent = time.monotonic()
            try:
                cursor = self._conn.execute(query, params)
                rows = cursor.fetchall() if cursor.description else []
            except psycopg.Error as error:
                self._dead = True
                raise SessionLost(
                    f"a statement on the lock session failed: {first_line(error)}"
                ) from error
            if not self._dead:
                self.valid_until = max(self.valid_until, sent + self.timings.validity_seconds)
            return rows

    def check_idle(self) -> None:
        """When no statement is running and the socket has something to read (the server ended
        the session, or the socket closed), one round trip says whether the session still
        lives: SessionLost if not. Nothing happens while another thread runs a statement."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self._dead:
                return
            try:
                poller = select.poll()  # not select(): a busy process's fds pass 1024
                poller.register(self._conn.pgconn.socket, select.POLLIN)
                readable = bool(poller.poll(0))
            except (psycopg.Error, OSError, ValueError):
                readable = True
            if not readable:
                return
        finally:
            self._lock.release()
        self.run("SELECT 1")

    def abort(self) -> None:
        """Shut the socket down (from any thread): a statement blocked on it returns at once
        with an error, and the server sees the session end. The connection is closed later by
        :meth:`close`."""
        self.kill()
        with self._socket_lock, contextlib.suppress(psycopg.Error, OSError, ValueError):
            if self._closed:
                return
            duplicate = socket.socket(fileno=os.dup(self._conn.pgconn.socket))
            try:
                duplicate.shutdown(socket.SHUT_RDWR)
            finally:
                duplicate.close()

    def close(self) -> None:
        """Close the connection (the server frees every lock still held); waits for a running
        statement, which :meth:`abort` ends."""
        self.kill()
        with self._lock, self._socket_lock, contextlib.suppress(psycopg.Error):
            self._closed = True
            self._conn.close()
