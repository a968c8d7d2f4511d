"""A GeoPackage file at the SQLite level: layer names, indexes, deletes by id and row numbers."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyogrio
import shapely

from geo.errors import WorkspaceError
from geo.store.layout import SCENARIO_ID, TIME_FIELDS


def layer_names(path: Path) -> set[str]:
    """The names of the layers and tables a GeoPackage holds."""
    try:
        return {str(name) for name, _ in pyogrio.list_layers(path)}
    except pyogrio.errors.DataSourceError as error:
        raise WorkspaceError(f"{path}: not a readable GeoPackage ({error})") from error


def add_time_indexes(path: Path) -> None:
    """Index each large layer of a GeoPackage on (scenario, time), where missing (a window of
    1,000,000 events is then read in milliseconds: `bench/events_store.py`)."""
    present = layer_names(path)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        for layer, field in TIME_FIELDS.items():
            if layer in present:
                db.execute(
                    f'CREATE INDEX IF NOT EXISTS "{layer}_{SCENARIO_ID}_{field}" '
                    f'ON "{layer}" ({SCENARIO_ID}, "{field}")'
                )


def version_of(path: Path) -> tuple[int, int, int]:
    """A file's inode, modification time and size: what every save (a new file) changes."""
    found = path.stat()
    return found.st_ino, found.st_mtime_ns, found.st_size


@contextlib.contextmanager
def large_cache() -> Iterator[None]:
    """SQLite's page cache at 512 MB while records are appended (its R-tree kept in memory:
    300,000 places went in 2.5 s faster), as it was once no writer needs it (GDAL's setting
    is the process's: the last of overlapping writers puts it back)."""
    global _WRITERS, _CACHE_BEFORE
    with _CACHE_LOCK:
        if _WRITERS == 0:
            _CACHE_BEFORE = pyogrio.get_gdal_config_option(SQLITE_CACHE)
            pyogrio.set_gdal_config_options({SQLITE_CACHE: "512"})
        _WRITERS += 1
    try:
        yield
    finally:
        with _CACHE_LOCK:
            _WRITERS -= 1
            if _WRITERS == 0:
                pyogrio.set_gdal_config_options({SQLITE_CACHE: _CACHE_BEFORE})


def delete_ids(path: Path, scenario_id: str, drop: dict[str, set[str]]) -> dict[str, Rows]:
    """Remove records by id from layers of a GeoPackage (its triggers keep the spatial index
    and feature counts), one pass over each layer; returns the row number (fid) each had."""
    places: dict[str, Rows] = {}
    with opened(path) as db:
        db.execute("CREATE TEMP TABLE gone (id TEXT PRIMARY KEY)")
        for layer, ids in drop.items():
            db.execute("DELETE FROM gone")
            db.executemany("INSERT OR IGNORE INTO gone VALUES (?)", ((i,) for i in ids))
            where = f'FROM "{layer}" WHERE {SCENARIO_ID} = ? AND id IN (SELECT id FROM gone)'
            fids = dict(db.execute(f"SELECT id, fid {where}", (scenario_id,)).fetchall())
            db.execute(f"DELETE {where}", (scenario_id,))
            last = db.execute(f'SELECT coalesce(max(fid), 0) FROM "{layer}"').fetchone()[0]
            places[layer] = Rows(fids, last)
    return places


@dataclass(frozen=True)
class Rows:
    fids: dict[str, int]
    """The row number each removed record had."""
    last: int
    """The layer's last row number once they were removed: rows written after it are new."""


def put_back(path: Path, scenario_id: str, places: dict[str, Rows]) -> None:
    """Give records written again (updated) the row numbers they had, so that a workspace
    reads back in the order it was edited in."""
    with opened(path) as db:
        for layer, rows in places.items():
            written = db.execute(
                f'SELECT id, fid FROM "{layer}" WHERE fid > ? AND {SCENARIO_ID} = ?',
                (rows.last, scenario_id),
            ).fetchall()
            moved = [(rows.fids[rid], fid) for rid, fid in written if rid in rows.fids]
            # through negative numbers: a new row may hold the number another one had
            db.executemany(f'UPDATE "{layer}" SET fid = -? WHERE fid = ?', moved)
            db.executemany(
                f'UPDATE "{layer}" SET fid = ? WHERE fid = -?', ((f, f) for f, _ in moved)
            )


@contextlib.contextmanager
def opened(path: Path) -> Iterator[sqlite3.Connection]:
    """A transaction on a GeoPackage file, with the SQL functions its spatial-index triggers
    call (GDAL registers them for its own connections: ST_IsEmpty, ST_MinX …)."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.create_function("ST_IsEmpty", 1, lambda blob: _blob_geometry(blob).is_empty)
        for name, index in (("ST_MinX", 0), ("ST_MinY", 1), ("ST_MaxX", 2), ("ST_MaxY", 3)):
            db.create_function(name, 1, lambda blob, i=index: float(_blob_geometry(blob).bounds[i]))
        yield db


def _blob_geometry(blob: bytes) -> shapely.Geometry:
    """The geometry in a GeoPackage geometry blob: a header ('GP', version, flags, SRS id,
    an envelope of 0, 32, 48 or 64 bytes) and then well-known binary."""
    flags = blob[3]
    envelope = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}[(flags >> 1) & 0b111]
    return shapely.from_wkb(bytes(blob[8 + envelope :]))


_CACHE_LOCK = threading.Lock()
_WRITERS = 0
_CACHE_BEFORE: Any = None
SQLITE_CACHE = "OGR_SQLITE_CACHE"
