"""PostgreSQL connections kept open between transactions, so that a read does not log in again.

Opening a connection costs a login (6.5 ms on this machine's own server, tens of milliseconds
across a network with TLS) where a query costs a fraction of one, and a dashboard rerun on a
PostGIS workspace reads several times. psycopg_pool was weighed and not taken: it opens
connections in its own threads, so a database that is down or refuses a password is told as
"couldn't get a connection after N sec" once its timeout has passed, where Corridor must say at
once why PostgreSQL refused (`geo.postgis.connect`). What is kept here is small: per process and
URL, the connections a transaction ended cleanly on, handed out again most recent first, closed
once unused for `IDLE_SECONDS` or beyond `MOST_KEPT` in all. A kept connection the server has
ended since (a restart) fails its first statement and is replaced by a new one.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from typing import Any

import psycopg

IDLE_SECONDS = 60.0
"""How long a connection may wait unused before it is closed."""
MOST_KEPT = 8
"""At most this many idle connections per process, all URLs together (oldest closed first)."""

_kept: list[tuple[float, int, str, psycopg.Connection[Any]]] = []
_lock = threading.Lock()


def take(url: str) -> psycopg.Connection[Any] | None:
    """An idle connection to `url` that this process kept, or None."""
    pid = os.getpid()
    with _lock:
        _close_stale()
        for index in range(len(_kept) - 1, -1, -1):
            _, owner, kept_url, connection = _kept[index]
            if owner == pid and kept_url == url:
                del _kept[index]
                return connection
    return None


def give_back(url: str, connection: psycopg.Connection[Any]) -> None:
    """Keep an idle connection to hand out again (one in a transaction, or closed, is closed)."""
    if connection.closed or connection.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        connection.close()
        return
    with _lock:
        _kept.append((time.monotonic(), os.getpid(), url, connection))
        _close_stale()


def forget(url: str | None = None) -> None:
    """Close the kept connections to `url` (all, when None) that this process kept."""
    pid = os.getpid()
    with _lock:
        closing = [c for _, owner, u, c in _kept if owner == pid and url in (None, u)]
        _kept[:] = [k for k in _kept if k[3] not in closing]
    for connection in closing:
        connection.close()


def _close_stale() -> None:
    """Close what waited too long, what exceeds MOST_KEPT, and what another process kept
    (a fork's copy of its parent's: the parent's socket, which the child must not use)."""
    now, pid = time.monotonic(), os.getpid()
    fresh = [k for k in _kept if k[1] == pid and now - k[0] < IDLE_SECONDS]
    over = max(0, len(fresh) - MOST_KEPT)
    closing = [k for k in _kept if k not in fresh] + fresh[:over]
    _kept[:] = fresh[over:]
    for _, owner, _, connection in closing:
        if owner == pid:
            connection.close()


atexit.register(forget)  # (closed as the process ends, not left to the garbage collector)
