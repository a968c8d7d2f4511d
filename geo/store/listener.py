"""Notifications of writes to a PostGIS workspace, counted for a dashboard to redraw."""

from __future__ import annotations

import threading

import psycopg
from psycopg import sql

from geo.store import postgis_sql


class Listener:
    """Notifications of writes to one PostGIS workspace, counted as they come (LISTEN on
    `geo.store.postgis_sql.CHANNEL`, in a thread of its own): a dashboard redraws when `count`
    moves.

    A dropped connection is made again (every `RETRY_SECONDS`); `count` then moves as well,
    since writes may have been missed meanwhile, and `problem` says what happened until the
    connection is back.
    """

    RETRY_SECONDS = 2.0
    WAIT_SECONDS = 1.0

    def __init__(self, url: str) -> None:
        self.url = url
        self.count = 0
        self.problem = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="corridor-listen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def offer(self, url: str) -> None:
        """Another session's login, listened with from the next try when this one's fails (the
        role it was first given dropped since, its password changed): one session signed in
        anew keeps every page on the server live. One that fails too is replaced by the next
        session's offer in turn (no query here: every page offers every WATCH_SECONDS)."""
        if self.problem and url != self.url:
            self.url = url

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._listen()
            except Exception as error:  # noqa: BLE001 (any: the thread lives on, says why)
                self.problem = f"{postgis_sql.without_login(self.url)}: {postgis_sql.reason(error)}"
                self._stop.wait(self.RETRY_SECONDS)

    def _listen(self) -> None:
        with psycopg.connect(postgis_sql.linked(self.url), autocommit=True) as connection:
            row = connection.execute("SELECT current_schema()").fetchone()
            schema = str(row[0]) if row else ""
            connection.execute(sql.SQL("LISTEN {}").format(sql.Identifier(postgis_sql.CHANNEL)))
            if self.problem:
                self.count += 1  # (back: what was written meanwhile is read again)
                self.problem = ""
            while not self._stop.is_set():
                for notice in connection.notifies(timeout=self.WAIT_SECONDS):
                    if notice.payload == schema:
                        self.count += 1
