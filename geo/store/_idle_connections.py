"""PostgreSQL connections kept open between transactions, so that a read does not log in again.

Opening a connection costs a login (6.5 ms on this machine's own server, tens of milliseconds
across a network with TLS) where a query costs a fraction of one, and a dashboard rerun on a
PostGIS workspace reads several times. psycopg_pool was weighed and not taken: it opens
connections in its own threads, so a database that is down or refuses a password is told as
"couldn't get a connection after N sec" once its timeout has passed, where Corridor must say at
once why PostgreSQL refused (`geo.store.postgis_sql.connect`). What is kept here is small: per
process and URL, the connections a transaction ended cleanly on, handed out again most recent
first; closed once unused for `IDLE_SECONDS` (a thread looks every `REAP_SECONDS`), once
`LIFETIME_SECONDS` old (a login is checked again: a password changed or a role made NOLOGIN
takes effect), and beyond `MOST_KEPT` in all. A kept connection the server has ended since (a
restart) fails its first statement and is replaced by a new one.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

import psycopg

IDLE_SECONDS = 60.0
"""How long a connection may wait unused before it is closed."""
LIFETIME_SECONDS = 300.0
"""How long a connection is handed out again after its login, however busy."""
REAP_SECONDS = 5.0
"""How often a thread closes what waited too long (in a process that reads no more)."""
MOST_KEPT = 8
"""At most this many idle connections per process, all URLs together (oldest closed first)."""


@dataclass(frozen=True)
class _Kept:
    url: str
    connection: psycopg.Connection[Any]
    born: float
    idle_since: float


_kept: list[_Kept] = []
_lock = threading.Lock()
_born: dict[int, float] = {}  # (id of a connection handed out → when it logged in)
_reaper: list[threading.Thread] = []


def take(url: str) -> psycopg.Connection[Any] | None:
    """An idle connection to `url` that this process kept, or None."""
    with _lock:
        _close_stale()
        for index in range(len(_kept) - 1, -1, -1):
            if _kept[index].url == url:
                found = _kept.pop(index)
                _born[id(found.connection)] = found.born
                return found.connection
    return None


def give_back(url: str, connection: psycopg.Connection[Any]) -> None:
    """Keep an idle connection to hand out again (one in a transaction, or closed, is closed)."""
    now = time.monotonic()
    with _lock:
        born = _born.pop(id(connection), now)
    if connection.closed or connection.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        connection.close()
        return
    with _lock:
        _kept.append(_Kept(url, connection, born, now))
        _close_stale()
        _start_reaper()


def discard(connection: psycopg.Connection[Any]) -> None:
    """Close a connection that will not be given back (its transaction failed)."""
    with _lock:
        _born.pop(id(connection), None)
    connection.close()


def forget(url: str | None = None) -> None:
    """Close the kept connections to `url` (all, when None): signed out, or the process ends."""
    with _lock:
        closing = [k for k in _kept if url in (None, k.url)]
        _kept[:] = [k for k in _kept if k not in closing]
    for kept in closing:
        kept.connection.close()


def _close_stale() -> None:
    """Close what waited or lived too long and what exceeds MOST_KEPT (under the lock)."""
    now = time.monotonic()
    fresh = [
        k for k in _kept if now - k.idle_since < IDLE_SECONDS and now - k.born < LIFETIME_SECONDS
    ]
    over = max(0, len(fresh) - MOST_KEPT)
    closing = [k for k in _kept if k not in fresh] + fresh[:over]
    _kept[:] = fresh[over:]
    for kept in closing:
        kept.connection.close()


def _start_reaper() -> None:
    """The thread that closes idle connections in a process that reads no more (under the
    lock; one per process)."""
    if _reaper and _reaper[0].is_alive():
        return
    _reaper[:] = [threading.Thread(target=_reap, name="corridor-idle-connections", daemon=True)]
    _reaper[0].start()


def _reap() -> None:
    while True:
        time.sleep(REAP_SECONDS)
        with _lock:
            _close_stale()
            if not _kept:
                _reaper.clear()
                return


def _after_fork() -> None:
    """A forked child starts with nothing kept: its parent's connections are the parent's
    sockets (dropped, not closed: closing would end the parent's sessions), and a lock held by
    another of the parent's threads would never be released."""
    global _lock
    _lock = threading.Lock()
    _kept.clear()
    _born.clear()
    _reaper.clear()


os.register_at_fork(after_in_child=_after_fork)
atexit.register(forget)  # (closed as the process ends, not left to the garbage collector)
