"""The workspace: one GeoPackage holding scenarios, one layer per record type (QGIS opens it)."""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TypeVar

import filelock
import geopandas as gpd
import numpy as np
import pandas as pd
import pyarrow
import pyarrow.compute as pc
import pyogrio
import shapely
from pandas.api.types import is_numeric_dtype

from geo import _fields as f
from geo import _schema as s
from geo import event_table
from geo._atomic import atomic_path
from geo._collector import pausing
from geo._fields import Spot
from geo.builder import assemble, meta_fields
from geo.errors import ProblemLog, ScenarioNotFoundError, WorkspaceError, WorkspaceLockedError
from geo.event_table import EventTable
from geo.position_table import PositionTable
from geo.records import Position, Scenario
from geo.settings import POSTGIS_SCHEMES

SCENARIO_ID = "scenario_id"
FID = "fid"
"""The feature id column GDAL gives a GeoPackage's layer (and geo.postgis a table)."""
SCENARIOS_LAYER = "scenarios"
CRS = "EPSG:4326"


@dataclass(frozen=True)
class Layer:
    """How one record type is stored: its layer name and geometry type (None: a plain table)."""

    kind: s.Kind
    geometry_type: str | None = None


LAYERS = (
    Layer(s.SOURCES),
    Layer(s.PLACES, "Point"),
    Layer(s.CONVOYS),
    Layer(s.FIGURES),
    Layer(s.ROUTES, "LineString"),
    Layer(s.ZONES, "Unknown"),  # Polygon and MultiPolygon side by side, kept as they were
    Layer(s.EVENTS, "Point"),
)
EVENTS_LAYER = LAYERS[-1]
POINT_KINDS = (s.PLACES, s.EVENTS)
"""Records stored as a Point whose coordinates are the record's latitude and longitude."""
TABLES = (SCENARIOS_LAYER, *(layer.kind.name for layer in LAYERS))
KINDS_BY_NAME = {layer.kind.name: layer.kind for layer in LAYERS}
LOADED_KEPT = 4
"""Scenarios kept as last read (see `Workspace.load`), oldest dropped first."""
_LOADED: dict[tuple[str, tuple[int, int, int] | None, str | None], Scenario] = {}
_LOADED_LOCK = threading.Lock()  # Streamlit serves each session from its own thread
LOCK_SECONDS = 15.0
"""How long a writer waits for another process's transaction before giving up."""


T = TypeVar("T")
REWRITE_AT = 50_000
"""Rows added to a layer at once from which the layer is written anew, when they outnumber
the rows it holds and none was removed (an R-tree filled row by row cost a million events
25 s; GDAL builds a new layer's at once)."""
READ_TRIES = 3
"""Reads of a workspace that failed while it was being written, tried in all."""


@dataclass(frozen=True)
class Window:
    """Rows of a large layer asked for: one scenario's, with the time field from `low`
    (included) to `high` (excluded), both ISO text as the file compares them, and whose point
    lies in `extent` (west, south, east, north); `columns` None for all."""

    layer: str
    scenario_id: str
    field: str
    low: str | None
    high: str | None
    extent: tuple[float, float, float, float] | None
    columns: list[str] | None
    geometry: bool


class Workspace:
    """A GeoPackage file of scenarios; every save rewrites it through a temporary copy.

    Writers take the workspace's lock (a ``.lock`` file beside it) for a whole read-change-write
    transaction, so that edits from two browser sessions or processes are applied one after the
    other, each to the other's result; readers never wait (a rename swaps the file whole).
    """

    def __new__(cls, path: Path | str, **options: Any) -> Workspace:
        """A `postgresql://` URL gives the workspace in PostGIS (`geo.postgis_store`)."""
        if cls is Workspace and isinstance(path, str) and path.startswith(POSTGIS_SCHEMES):
            from geo.postgis_store import PostgisWorkspace

            return super().__new__(PostgisWorkspace)
        return super().__new__(cls)

    def __init__(self, path: Path | str, *, lock_seconds: float = LOCK_SECONDS) -> None:
        self.path = Path(path)
        self._lock = filelock.FileLock(str(self.path) + ".lock", timeout=lock_seconds)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Hold the workspace's write lock; WorkspaceLockedError when it stays taken."""
        try:
            with self._lock:
                yield
        except filelock.Timeout:
            raise WorkspaceLockedError(
                f"{self.path}: another session or process has held the workspace's lock "
                f"({self._lock.lock_file}) for more than {self._lock.timeout:g} s; try again, "
                "or open the scenario read-only"
            ) from None

    @property
    def label(self) -> str:
        """The workspace as messages name it."""
        return str(self.path)

    def author(self, who: str) -> str:
        """The name a change is logged under: `who` as given (a PostGIS team member's own
        database role, which the database checks: `geo.team`)."""
        return who

    def holds_lock(self) -> bool:
        """Whether this process holds the workspace's write lock (`transaction`)."""
        return bool(self._lock.is_locked)

    @property
    def location(self) -> Path | str:
        """What `Workspace(...)` opens this workspace again from: a path, or a URL."""
        return self.path

    def exists(self) -> bool:
        return self.path.is_file()

    def _layers(self) -> set[str]:
        """The names of the layers the workspace holds."""
        return layer_names(self.path)

    def _cache_key(self) -> str:
        """What tells this workspace from others in the cache of scenarios last read."""
        return str(self.path.resolve())

    def _spot_file(self, layer: str) -> str:
        """The 'file' a problem found in a layer is told in."""
        return f"{self.path.name}:{layer}"

    def version(self) -> tuple[int, int, int] | None:
        """What changes whenever the workspace is saved (each save replaces the file): its
        inode, modification time and size; None when there is no file."""
        try:
            return _version_of(self.path)
        except FileNotFoundError:
            return None

    def scenario_ids(self) -> list[str]:
        """The ids of the scenarios in the workspace, sorted."""
        return self._settled(self._scenario_ids)

    def _scenario_ids(self) -> list[str]:
        if not self.exists() or SCENARIOS_LAYER not in self._layers():
            return []
        return sorted(str(value) for value in self.table(SCENARIOS_LAYER)[SCENARIO_ID])

    def _settled(self, read: Callable[[], T]) -> T:
        """`read()`, tried again when it failed while another session or process was writing
        the file (a read that met a write half-way: CI saw GDAL miss the GeoPackage's own
        tables once); a failure with no writer about is told at once."""
        for attempt in range(READ_TRIES):
            before = self.version()
            try:
                return read()
            except WorkspaceError:
                if attempt == READ_TRIES - 1 or not self._written_meanwhile(before):
                    raise
                time.sleep(0.1 * (attempt + 1))
        raise AssertionError("unreachable: the last try returns or raises")

    def _written_meanwhile(self, before: tuple[int, int, int] | None) -> bool:
        """Whether the file changed since `before`, or a writer holds its lock now."""
        if self.version() != before:
            return True
        try:
            self._lock.acquire(timeout=0)
        except filelock.Timeout:
            return True
        self._lock.release()
        return False

    def load(self, scenario_id: str | None = None) -> Scenario:
        """One scenario, checked by the same rules as a scenario folder.

        A scenario read from the same file (path, inode, modification time and size: every
        save swaps in a new file) is given again without reading it: records are immutable,
        and a 100,000-event scenario took 4 s to read and check. A commit's `write_records`
        gives the scenario it wrote to the next load of the file it made (its edits were
        checked by the same rules; not when a time it wrote has more than milliseconds).
        """
        key = (self._cache_key(), self.version(), scenario_id)
        with _LOADED_LOCK:
            found = _LOADED.get(key) if key[1] is not None else None
        if found is not None:
            return found
        scenario = self._settled(lambda: self._load(scenario_id))
        if key[1] is not None and self.version() == key[1]:  # not saved meanwhile
            self._remember(scenario, key[1], scenario.id)
            if scenario_id is None:  # (the only scenario: asked for by no id, or by its own)
                self._remember(scenario, key[1], None)
        return scenario

    def _remember(
        self, scenario: Scenario, version: tuple[int, int, int], scenario_id: str | None
    ) -> None:
        """Give `scenario` to the next load of this version of the file (an older version of
        the same file and scenario goes)."""
        key = (self._cache_key(), version, scenario_id)
        with _LOADED_LOCK:
            for stale in [k for k in _LOADED if (k[0], k[2]) == (key[0], key[2])]:
                del _LOADED[stale]
            _LOADED[key] = scenario
            while len(_LOADED) > LOADED_KEPT:
                del _LOADED[next(iter(_LOADED))]

    @pausing
    def _load(self, scenario_id: str | None) -> Scenario:
        scenario_id = self._resolve(scenario_id)
        log = ProblemLog()
        meta = self._meta(scenario_id, log)
        present = self._layers()
        raws = {
            layer.kind: self._raws(layer, scenario_id) if layer.kind.name in present else []
            for layer in LAYERS
            if layer.kind is not s.EVENTS
        }
        sources = raws.pop(s.SOURCES)
        events = None
        if s.EVENTS.name in present:
            events = self._event_table(scenario_id, s.raw_ids(sources))
            if events is None:  # (a cell to refuse: each problem told by row)
                raws[s.EVENTS] = self._raws(EVENTS_LAYER, scenario_id)
        _give_back_memory()  # (what reading the layers freed: the checks below need more)
        scenario = assemble(meta, sources, raws, log)
        log.raise_if_errors(f"{self.label} (scenario {scenario_id!r})")
        assert scenario is not None
        if events is None:  # (read row by row: kept as columns all the same)
            events = EventTable.from_records(scenario.events)
        _give_back_memory()
        return replace(scenario, events=events)

    def _event_table(self, scenario_id: str, sources: set[str]) -> EventTable | None:
        """The scenario's events read as columns and checked a column at a time (100,000
        events as records took 4 s and 336 MB to load); None when a row must be looked at.

        The whole layer is read in its order and the scenario's rows picked here (asking
        GDAL for them went through the time index: 1,000,000 rows took 2.1 s, then 1.0 s to
        put back in order, where the whole layer took 0.4 s)."""
        wanted = [SCENARIO_ID, *s.field_names(s.EVENTS)]
        geometry_name, table = self._events_arrow(
            scenario_id, [n for n in wanted if n not in ("latitude", "longitude")]
        )
        if table.schema.field(SCENARIO_ID).type != pyarrow.string() or any(
            pyarrow.types.is_temporal(field.type) for field in table.schema
        ):  # (a layer written empty, or by another program with typed dates: row by row)
            return None
        if not geometry_name and "wkb_geometry" not in table.column_names:
            return None
        mine = pc.fill_null(pc.equal(table.column(SCENARIO_ID), scenario_id), False)
        if not pc.all(mine).as_py():  # (a row without a scenario id is nobody's)
            table = table.filter(mine)
        geometry = table.column(geometry_name or "wkb_geometry").combine_chunks()
        columns = {name: table.column(name).combine_chunks() for name in table.column_names}
        return event_table.checked(columns, geometry, s.Known(sources=sources))

    def _events_arrow(self, scenario_id: str, columns: list[str]) -> tuple[str, pyarrow.Table]:
        """The events layer's `columns` and geometry (WKB; the scenario's rows at least, in
        the layer's order), and the geometry column's name ("" when GDAL names none)."""
        try:
            found, table = pyogrio.read_arrow(self.path, layer=s.EVENTS.name, columns=columns)
        except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as error:
            raise WorkspaceError(f"{self.path}: cannot read layer 'events' ({error})") from error
        return str(found["geometry_name"] or ""), table

    def rows_in_window(self, window: Window) -> pd.DataFrame:
        """The rows of a large layer in a window (`geo.windows.rows_in` makes it exact)."""
        quoted = window.scenario_id.replace("'", "''")
        where = [f"{SCENARIO_ID} = '{quoted}'"]
        where += [f"\"{window.field}\" >= '{window.low}'"] if window.low else []
        where += [f"\"{window.field}\" < '{window.high}'"] if window.high else []
        try:
            frame: pd.DataFrame = pyogrio.read_dataframe(
                self.path, layer=window.layer, columns=window.columns, where=" AND ".join(where),
                bbox=window.extent, use_arrow=True, read_geometry=window.geometry,
            )  # fmt: skip
        except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as error:
            raise WorkspaceError(
                f"{self.path}: cannot read layer {window.layer!r} ({error})"
            ) from error
        return frame

    def append_rows(self, layer: str, frame: pd.DataFrame, geometry_type: str | None) -> None:
        """Add rows to a layer (made when missing) that is not a scenario table: position
        reports, the geocode cache."""
        with self.transaction():  # not while another writer swaps the file
            present = self.exists() and layer in layer_names(self.path)
            _write(frame, self.path, layer, geometry_type, append=present, arrow=True)
            if not present:
                add_time_indexes(self.path)

    def save(self, scenario: Scenario, *, append: dict[str, pd.DataFrame] | None = None) -> None:
        """Add the scenario, or replace the one with its id, in one all-or-nothing rewrite.

        ``append`` adds rows to other (non-scenario) tables in the same rewrite, such as the
        change log, so that a change and its record are written together or not at all.
        """
        with self.transaction():
            self._save(scenario, append or {})

    def _save(self, scenario: Scenario, append: dict[str, pd.DataFrame]) -> None:
        present = layer_names(self.path) if self.exists() else set()
        tables = {name: self.table(name) if name in present else None for name in TABLES}
        others = self._other_layers()
        for name, rows in append.items():
            kept = others.get(name, (None, None))[0]
            others[name] = (_concat(kept, _numbered_after(kept, rows)), None)
        fresh = _scenario_tables(scenario)
        with atomic_path(self.path) as temporary:
            temporary.unlink()
            for layer in (None, *LAYERS):
                name = layer.kind.name if layer else SCENARIOS_LAYER
                kept = _without(tables[name], scenario.id)
                if kept is not None:  # (a time column without a value reads back without UTC)
                    kept = _typed(kept, _MOMENTS[name])
                mine = (
                    _with_extras(fresh[name], tables[name], scenario.id) if layer else fresh[name]
                )
                added = _added_types(self.path, name, mine, fresh[name]) if layer else {}
                frame, typed = _as_declared(_concat(kept, mine), added)
                _write(frame, temporary, name, layer.geometry_type if layer else None, typed=typed)
            for name, (frame, geometry_type) in others.items():
                _write(frame, temporary, name, geometry_type)
            add_time_indexes(temporary)

    def write_records(
        self,
        scenario: Scenario,
        put: Mapping[str, Sequence[Any]],
        drop: dict[str, set[str]],
        *,
        append: dict[str, pd.DataFrame] | None = None,
    ) -> None:
        """Write only what an edit changed: remove the `drop` ids of the scenario, add the `put`
        records, and add rows to other tables (the change log), in a copy swapped in whole (a
        layer that many new rows outnumber is written anew with them: see REWRITE_AT).

        A copy of the file costs a disk's speed; rewriting every record cost a 300,000-place
        import 20 s. A workspace whose layers lack a field of today's schema is saved whole.
        """
        append = append or {}
        with self.transaction():
            present = layer_names(self.path) if self.exists() else set()
            fields = self._fields(present, put, append)
            if fields is None:
                self._save(scenario, append)
                return
            with atomic_path(self.path) as temporary, _large_cache():
                shutil.copyfile(self.path, temporary)
                removed = _delete(temporary, scenario.id, {k: v for k, v in drop.items() if v})
                for layer in LAYERS:
                    name = layer.kind.name
                    if put.get(name):
                        records = put[name]
                        days = _day_columns(layer.kind)
                        arrow = not days or _days_kept_as_text(temporary, name, days)
                        if isinstance(records, EventTable):
                            frame = _event_frame(records, scenario.id, for_arrow=arrow)
                        else:
                            frame = _frame(tuple(records), layer, scenario.id)
                            frame = _days_as_text(frame, days) if arrow and days else frame
                        frame = _ordered(frame, fields[name])
                        kept = None
                        if (
                            arrow
                            and name not in removed
                            and _outnumbering(temporary, name, len(frame))
                        ):
                            kept = _kept_rows(temporary, name, frame)
                        if kept is not None:  # (the layer written anew: see REWRITE_AT)
                            frame = _concat(kept, frame)
                            _write(frame, temporary, name, layer.geometry_type, arrow=True)
                        else:
                            _write(frame, temporary, name, layer.geometry_type, append=True,
                                   arrow=arrow)  # fmt: skip
                _put_back(temporary, scenario.id, removed)
                for name, rows in append.items():
                    rows = _ordered(rows, fields[name]) if name in fields else rows
                    _write(rows, temporary, name, None, append=name in present, arrow=True)
                add_time_indexes(temporary)  # (a workspace saved before they were made)
                written = _version_of(temporary)  # (a rename keeps inode, time and size)
            if _as_stored(put):  # what reading it back gives: checked edits, times as stored
                self._remember(scenario, written, scenario.id)

    def _fields(
        self,
        present: set[str],
        put: Mapping[str, Sequence[Any]],
        append: dict[str, pd.DataFrame],
    ) -> dict[str, list[str]] | None:
        """The fields of each existing layer to add to, in the file's order (pyogrio appends
        by position, not by name); None when a layer is missing or lacks a field of today's
        schema (a workspace written by an older Corridor is then saved whole, its tables made
        anew)."""
        wanted = {name: set(rows.columns) - {"geometry"} for name, rows in append.items()}
        for layer in LAYERS:
            if put.get(layer.kind.name):
                wanted[layer.kind.name] = {SCENARIO_ID, *s.field_names(layer.kind)}
        found = {}
        for name, fields in wanted.items():
            if name not in present:
                if name in TABLES:
                    return None
                continue
            found[name] = [str(f) for f in pyogrio.read_info(self.path, layer=name)["fields"]]
            if set(found[name]) != fields:
                return None
        return found

    def _other_layers(self) -> dict[str, tuple[pd.DataFrame, str | None]]:
        """Layers the workspace holds besides the scenario tables (kept as they are on a save,
        feature ids included: a change log's position marks where a reader stood)."""
        if not self.exists():
            return {}
        found = {}
        for name, geometry_type in pyogrio.list_layers(self.path):
            if name not in TABLES:
                found[str(name)] = (self._with_fids(str(name)), geometry_type or None)
        return found

    def _with_fids(self, name: str) -> pd.DataFrame:
        """A layer's rows with their feature ids as the column `fid` (GDAL writes them back)."""
        try:
            frame = pyogrio.read_dataframe(self.path, layer=name, fid_as_index=True)
        except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as error:
            raise WorkspaceError(f"{self.path}: cannot read layer {name!r} ({error})") from error
        found: pd.DataFrame = frame.rename_axis(FID).reset_index()
        return found

    def _resolve(self, scenario_id: str | None) -> str:
        ids = self.scenario_ids()
        if scenario_id is None and len(ids) == 1:
            return ids[0]
        if scenario_id in ids:
            return scenario_id
        found = ", ".join(ids) or "none"
        asked = "a scenario id" if scenario_id is None else repr(scenario_id)
        raise ScenarioNotFoundError(
            f"{self.label}: expected {asked} among the workspace's scenarios, found: {found}"
        )

    def table(self, name: str) -> pd.DataFrame:
        """One layer of the workspace, every scenario's rows (a GeoDataFrame if it has shapes)."""
        try:
            frame: pd.DataFrame = pyogrio.read_dataframe(self.path, layer=name)
        except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as error:
            raise WorkspaceError(f"{self.path}: cannot read layer {name!r} ({error})") from error
        return frame

    def rows_after(self, layer: str, position: int) -> pd.DataFrame:
        """The rows of a layer whose feature id is above `position`, in that order (none when
        the layer is missing): what was added to an append-only layer since `last_position`."""
        if not self.exists() or layer not in self._layers():
            return pd.DataFrame()
        try:
            frame: pd.DataFrame = pyogrio.read_dataframe(
                self.path, layer=layer, where=f"fid > {int(position)}", fid_as_index=True
            )
        except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as error:
            raise WorkspaceError(f"{self.path}: cannot read layer {layer!r} ({error})") from error
        return frame.sort_index().reset_index(drop=True)

    def added_values(
        self, layer: str, scenario_id: str, ids: Collection[str]
    ) -> dict[str, dict[str, Any]]:
        """The values of fields another program added to a layer (QGIS, say), of the records
        with these ids that hold any: what an undo of their delete puts back."""
        if not ids or not self.exists() or layer not in KINDS_BY_NAME:
            return {}
        ours = {FID, SCENARIO_ID, "id", *s.field_names(KINDS_BY_NAME[layer])}
        with contextlib.closing(sqlite3.connect(self.path)) as db:
            shapes = "SELECT column_name FROM gpkg_geometry_columns WHERE table_name = ?"
            geometry = {row[0] for row in db.execute(shapes, (layer,))}
            extra = [
                str(row[1])
                for row in db.execute(f'PRAGMA table_info("{layer}")')
                if row[1] not in ours and row[1] not in geometry
            ]
            if not extra:
                return {}
            names = ", ".join(f'"{name}"' for name in extra)
            wanted, rows = list(ids), []
            for start in range(0, len(wanted), 10_000):  # (SQLite takes 32,766 values a query)
                chunk = wanted[start : start + 10_000]
                rows += db.execute(
                    f'SELECT id, {names} FROM "{layer}" WHERE {SCENARIO_ID} = ? '
                    f"AND id IN ({', '.join('?' * len(chunk))})",
                    (scenario_id, *chunk),
                ).fetchall()
        return {
            str(rid): {name: value for name, value in zip(extra, values, strict=True)}
            for rid, *values in rows
            if any(value is not None for value in values)
        }

    def restore_added(
        self, layer: str, scenario_id: str, values: Mapping[str, Mapping[str, Any]]
    ) -> None:
        """Put back `added_values` on the records with these ids (fields no longer in the layer
        are let go)."""
        if not values:
            return
        with self.transaction(), _geopackage(self.path) as db:
            present = {str(row[1]) for row in db.execute(f'PRAGMA table_info("{layer}")')}
            for rid, cells in values.items():
                kept = {name: value for name, value in cells.items() if name in present}
                if kept:
                    sets = ", ".join(f'"{name}" = ?' for name in kept)
                    db.execute(
                        f'UPDATE "{layer}" SET {sets} WHERE {SCENARIO_ID} = ? AND id = ?',
                        (*kept.values(), scenario_id, rid),
                    )

    def last_position(self, layer: str) -> int:
        """The largest feature id of a layer (0 when it is empty or missing)."""
        if not self.exists() or layer not in self._layers():
            return 0
        try:
            with contextlib.closing(
                sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
            ) as db:
                found = db.execute(f'SELECT coalesce(max(fid), 0) FROM "{layer}"').fetchone()
        except sqlite3.Error as error:
            raise WorkspaceError(f"{self.path}: cannot read layer {layer!r} ({error})") from error
        return int(found[0])

    def _meta(self, scenario_id: str, log: ProblemLog) -> dict[str, Any]:
        table = self.table(SCENARIOS_LAYER)
        row = _cells(table[table[SCENARIO_ID] == scenario_id])[0]
        row["id"] = row.pop(SCENARIO_ID)
        spot = Spot(self._spot_file(SCENARIOS_LAYER), f"scenario {scenario_id!r}")
        return f.parse_fields(row, meta_fields(), spot, log) or {}

    def _raws(self, layer: Layer, scenario_id: str) -> list[s.RawRecord]:
        table = self.table(layer.kind.name)
        rows = table[table[SCENARIO_ID] == scenario_id]
        geometries = list(rows.geometry) if layer.geometry_type else [None] * len(rows)
        raws = []
        for cells, geometry in zip(_cells(rows), geometries, strict=True):
            spot = Spot(self._spot_file(layer.kind.name), f"id {cells.get('id')!r}")
            if layer.kind in POINT_KINDS and geometry is not None:
                cells["longitude"], cells["latitude"] = _point_cells(geometry)
                geometry = None
            raws.append(s.RawRecord(spot, cells, geometry))
        return raws


def _point_cells(geometry: shapely.Geometry) -> tuple[object, object]:
    """A point feature's longitude and latitude; for another shape (a line, an empty point,
    several points: drawn so in QGIS), what it is, which the coordinates' check then refuses
    with the feature's id."""
    if isinstance(geometry, shapely.Point) and not geometry.is_empty:
        return geometry.x, geometry.y
    shape = f"an empty {geometry.geom_type}" if geometry.is_empty else f"a {geometry.geom_type}"
    said = f"the feature's shape: {shape}, not a point"
    return said, said


def _cells(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as plain Python values: missing values None, timestamps timezone-aware datetimes.

    Made a column at a time (a value at a time cost 100,000 events 1.5 s).
    """
    columns = [column for column in frame.columns if column != "geometry"]
    values = [_plain_column(frame[column]) for column in columns]
    return [dict(zip(columns, row, strict=True)) for row in zip(*values, strict=True)]


def _plain_column(column: pd.Series) -> list[Any]:
    if isinstance(column.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(column):
        moments = column if column.dt.tz is not None else column.dt.tz_localize(UTC)
        made = moments.dt.to_pydatetime().tolist()  # (at once: one by one took 1.9 s a million)
        return [None if moment is pd.NaT else moment for moment in made]
    plain: list[Any] = column.astype(object).where(column.notna(), None).tolist()
    if column.dtype == object:  # a column of mixed values may hold timestamps
        plain = [_moment(value) if isinstance(value, pd.Timestamp) else value for value in plain]
    return plain


def _moment(value: pd.Timestamp) -> datetime:
    moment = value.to_pydatetime()
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _scenario_tables(scenario: Scenario) -> dict[str, pd.DataFrame]:
    tables = {SCENARIOS_LAYER: _meta_frame(scenario)}
    for layer in LAYERS:
        records = (
            scenario.sources if layer.kind is s.SOURCES else getattr(scenario, layer.kind.name)
        )
        tables[layer.kind.name] = _frame(records, layer, scenario.id)
    return tables


def _meta_frame(scenario: Scenario) -> pd.DataFrame:
    row: dict[str, object] = {SCENARIO_ID: scenario.id}
    row.update(
        {spec.name: getattr(scenario, spec.name) for spec in meta_fields() if spec.name != "id"}
    )
    row["countries"] = ";".join(scenario.countries)  # (a cell holds text: "SD;TD")
    row["imported_at"] = datetime.now(UTC)
    return _typed(pd.DataFrame([row]), _MOMENTS[SCENARIOS_LAYER])


def _frame(records: Sequence[Any], layer: Layer, scenario_id: str) -> pd.DataFrame:
    if isinstance(records, EventTable):
        return _event_frame(records, scenario_id)
    fields = layer.kind.fields(s.Known())
    names = [SCENARIO_ID, *(spec.name for spec in fields)]
    cells = [s.to_cells(record, layer.kind) for record in records]
    columns = {name: [row[name] for row in cells] for name in names[1:]}  # (column by column:
    columns = {SCENARIO_ID: [scenario_id] * len(cells), **columns}  # rows of dicts took 2x)
    empty = None if cells else object  # (no rows: text fields, as a list of rows would make)
    frame = _typed(pd.DataFrame(columns, columns=names, dtype=empty), _moment_columns(fields))
    if layer.geometry_type is None:
        return frame
    if layer.kind in POINT_KINDS:  # made at once: one by one cost 2 s per 100,000
        longitudes = np.fromiter((r.longitude for r in records), float, len(records))
        points = shapely.points(longitudes, np.fromiter((r.latitude for r in records), float))
        geometry = gpd.GeoSeries(points, crs=CRS)
    else:
        geometry = gpd.GeoSeries([record.geometry for record in records], crs=CRS)
    spatial: pd.DataFrame = gpd.GeoDataFrame(frame, geometry=geometry, crs=CRS)
    return spatial


def _event_frame(events: EventTable, scenario_id: str, *, for_arrow: bool = False) -> pd.DataFrame:
    """The events layer's rows taken from the table's columns, as `_frame` makes them from
    records (sources joined by ';', days as dates, missing precisions None); `for_arrow`: kept
    in Arrow's types, days as ISO text, as `_write` hands them to GDAL (a million events made
    into Python values cost 5 s)."""
    if for_arrow:
        return _arrow_event_frame(events, scenario_id)
    columns: dict[str, Any] = {SCENARIO_ID: [scenario_id] * len(events)}
    for name in event_table.SCHEMA.names:
        column = events.cell_column(name)
        if name in ("geo_precision", "time_precision", "date", "source"):
            columns[name] = pd.Series(column.to_pylist(), dtype=object)
        else:
            columns[name] = column.to_pandas()
    names = [SCENARIO_ID, *s.field_names(s.EVENTS)]
    frame = _typed(pd.DataFrame(columns, columns=names), set())
    points = shapely.points(columns["longitude"].to_numpy(), columns["latitude"].to_numpy())
    spatial: pd.DataFrame = gpd.GeoDataFrame(frame, geometry=gpd.GeoSeries(points, crs=CRS))
    return spatial


def _arrow_event_frame(events: EventTable, scenario_id: str) -> pd.DataFrame:
    """`_event_frame` in Arrow's types: days as ISO text, whole numbers nullable."""
    columns = {
        SCENARIO_ID: pyarrow.repeat(pyarrow.scalar(scenario_id, pyarrow.string()), len(events))
    }
    for name in s.field_names(s.EVENTS):
        column = events.cell_column(name)
        columns[name] = pc.cast(column, pyarrow.string()) if name == "date" else column
    frame = pyarrow.table(columns).to_pandas(types_mapper={pyarrow.int64(): pd.Int64Dtype()}.get)
    latitudes, longitudes = (events.column(name).to_numpy() for name in ("latitude", "longitude"))
    points = gpd.GeoSeries(shapely.points(longitudes, latitudes), crs=CRS)
    spatial: pd.DataFrame = gpd.GeoDataFrame(frame, geometry=points, crs=CRS)
    return spatial


def _day_columns(kind: s.Kind) -> set[str]:
    """A kind's fields of dates (given to GDAL's Arrow path as ISO text: see `_write`)."""
    return {spec.name for spec in kind.fields(s.Known()) if spec.parse is f.day}


def _days_kept_as_text(path: Path, layer: str, days: set[str]) -> bool:
    """Whether the layer keeps these date fields as text, as Corridor writes them (GeoPackage
    dates are 'YYYY-MM-DD' text either way; a field another program declared DATE is left to
    the usual path)."""
    info = pyogrio.read_info(path, layer=layer)
    types = dict(zip(info["fields"], info["dtypes"], strict=True))
    return all(types.get(name) == "object" for name in days)


def _days_as_text(frame: pd.DataFrame, days: set[str]) -> pd.DataFrame:
    """The frame with its dates as the ISO text the usual path stores ('2016-12-15')."""
    frame = frame.copy(deep=False)
    for name in days & set(frame.columns):
        frame[name] = [day.isoformat() if isinstance(day, date) else day for day in frame[name]]
    return frame


def _moment_columns(fields: list[f.Field]) -> set[str]:
    return {spec.name for spec in fields if spec.parse is f.moment}


_MOMENTS = {
    SCENARIOS_LAYER: {"start", "end", "imported_at"},
    **{layer.kind.name: _moment_columns(layer.kind.fields(s.Known())) for layer in LAYERS},
}
"""Each scenario table's time columns."""


def _typed(frame: pd.DataFrame, moments: set[str]) -> pd.DataFrame:
    for column in frame.columns:
        if column in moments:
            frame[column] = pd.to_datetime(frame[column], utc=True).astype("datetime64[ms, UTC]")
        elif frame[column].dtype == object or str(frame[column].dtype) == "str":
            frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame


def _without(frame: pd.DataFrame | None, scenario_id: str) -> pd.DataFrame | None:
    if frame is None:
        return None
    return frame[frame[SCENARIO_ID] != scenario_id]


def _with_extras(fresh: pd.DataFrame, old: pd.DataFrame | None, scenario_id: str) -> pd.DataFrame:
    """A scenario's `fresh` rows with the values of columns another program added to the layer
    (QGIS, say), taken from its `old` rows of the same id: a save does not lose them."""
    if old is None or "id" not in fresh.columns:
        return fresh
    extra = [name for name in old.columns if name not in fresh.columns and name != "geometry"]
    if not extra:
        return fresh
    mine = old.loc[old[SCENARIO_ID] == scenario_id, ["id", *extra]].drop_duplicates("id")
    merged = fresh.merge(pd.DataFrame(mine), on="id", how="left")
    if isinstance(fresh, gpd.GeoDataFrame):
        spatial: pd.DataFrame = gpd.GeoDataFrame(merged, geometry="geometry", crs=CRS)
        return spatial
    return merged


_NULLABLE: dict[tuple[str, str], Any] = {
    ("OFTInteger", "OFSTBoolean"): pd.BooleanDtype(),
    ("OFTInteger", "OFSTInt16"): pd.Int16Dtype(),
    ("OFTInteger", "OFSTNone"): pd.Int32Dtype(),
    ("OFTInteger64", "OFSTNone"): pd.Int64Dtype(),
}
"""The pandas types that write back as GDAL read a field (pandas reads a whole number or a
yes/no beside an empty cell as a float, which would be written back as REAL)."""


def _added_types(
    path: Path, layer: str, written: pd.DataFrame, fresh: pd.DataFrame
) -> dict[str, Any]:
    """The fields another program added to a layer that the rows `written` carry (those not in
    `fresh`) and that hold whole numbers or yes/no, each with the pandas type that writes it
    back as declared (the layer's field list is read only when there are such columns)."""
    extra = set(written.columns) - set(fresh.columns)
    if not extra:
        return {}
    info = pyogrio.read_info(path, layer=layer)
    fields = zip(info["fields"], info["ogr_types"], info["ogr_subtypes"], strict=True)
    return {
        str(name): _NULLABLE[(kind, subtype)]
        for name, kind, subtype in fields
        if name in extra and (kind, subtype) in _NULLABLE
    }


def _as_declared(frame: pd.DataFrame, types: dict[str, Any]) -> tuple[pd.DataFrame, set[str]]:
    """The frame with each column of `types` in its type where its values allow (where not,
    the column stays as read: a save is not refused for it), and the columns typed."""
    typed = set()
    for name, kind in types.items():
        try:
            frame[name] = frame[name].astype(kind)
        except (TypeError, ValueError, OverflowError):
            continue
        typed.add(name)
    return frame, typed


def _numbered_after(kept: pd.DataFrame | None, rows: pd.DataFrame) -> pd.DataFrame:
    """Rows to add after `kept`, with the feature ids that follow its own (when it has them)."""
    if kept is None or FID not in kept.columns or kept.empty:
        return rows
    first = int(kept[FID].max()) + 1
    return rows.assign(**{FID: range(first, first + len(rows))})


def _concat(kept: pd.DataFrame | None, fresh: pd.DataFrame) -> pd.DataFrame:
    if kept is None or kept.empty:
        return fresh
    combined = pd.concat([kept, fresh], ignore_index=True)
    if isinstance(fresh, gpd.GeoDataFrame):
        spatial: pd.DataFrame = gpd.GeoDataFrame(combined, geometry="geometry", crs=CRS)
        return spatial
    return combined


def _write(
    frame: pd.DataFrame,
    path: Path,
    layer: str,
    geometry_type: str | None,
    *,
    append: bool = False,
    arrow: bool = False,
    typed: Collection[str] = (),
) -> None:
    """Write a frame as a layer, or add its rows to the layer (`append`).

    `arrow` hands the rows to GDAL through Arrow (300,000 change-log rows: 5.0 s → 1.0 s, the
    same text stored); never with date objects, which GDAL's Arrow path writes as '2026/12/03'
    (dates go as ISO text: `_days_as_text`). Values Arrow cannot type (a column of text and numbers)
    go the usual way.
    """
    options: dict[str, Any] = {"driver": "GPKG", "layer": layer, "append": append}
    if geometry_type:
        options.update(geometry_type=geometry_type, promote_to_multi=False)
    try:
        if arrow:
            try:
                pyogrio.write_dataframe(frame, path, use_arrow=True, **options)
                return
            except (pyarrow.ArrowInvalid, pyarrow.ArrowTypeError):
                pass  # (raised while the frame is converted, before anything is written)
        pyogrio.write_dataframe(_missing_as_none(frame, keep=typed), path, **options)
    except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError, OSError) as error:
        raise WorkspaceError(f"{path}: cannot write layer {layer!r} ({error})") from error


def _missing_as_none(frame: pd.DataFrame, keep: Collection[str]) -> pd.DataFrame:
    """The frame with pandas' nullable numbers as plain values and None (pyogrio's usual path
    writes pandas' NA as the text '<NA>'), but for the columns to `keep` typed (pyogrio writes
    a nullable whole number or yes/no as such, NA as NULL)."""
    nullable = [
        name
        for name in frame.columns
        if name != "geometry" and name not in keep
        and isinstance(frame[name].dtype, pd.api.extensions.ExtensionDtype)
        and is_numeric_dtype(frame[name].dtype)
    ]  # fmt: skip
    if not nullable:
        return frame
    frame = frame.copy(deep=False)
    for name in nullable:
        frame[name] = frame[name].astype(object).where(frame[name].notna(), None)
    return frame


def _outnumbering(path: Path, layer: str, added: int) -> bool:
    """Whether rows added to a layer are many and more than those it holds (see REWRITE_AT)."""
    if added < REWRITE_AT:
        return False
    with contextlib.closing(sqlite3.connect(path)) as db:
        held = db.execute(f'SELECT count(*) FROM "{layer}"').fetchone()[0]
    return bool(held < added)


def _kept_rows(path: Path, layer: str, like: pd.DataFrame) -> pd.DataFrame | None:
    """A layer's rows (every scenario's), in their order, each column of `like`'s type, to be
    written with it (a whole number the layer holds as text, or as a float beside a missing
    one, is a whole number again); None when a value cannot take that type."""
    kept = pyogrio.read_dataframe(path, layer=layer, use_arrow=True)
    if isinstance(kept, gpd.GeoDataFrame) and kept.geometry.name != "geometry":
        kept = kept.rename_geometry("geometry")
    for column in like.columns:
        target = like[column].dtype
        if column == "geometry" or kept[column].dtype == target:
            continue
        try:
            values = pd.to_numeric(kept[column]) if is_numeric_dtype(target) else kept[column]
            kept[column] = values.astype(target)
        except (ValueError, TypeError):
            return None
    rows: pd.DataFrame = kept[list(like.columns)]
    return rows


def _as_stored(put: Mapping[str, Sequence[Any]]) -> bool:
    """Whether the records put hold their times as the file does (to the millisecond)."""
    for layer in LAYERS:
        moments = [spec.key for spec in layer.kind.fields(s.Known()) if spec.parse is f.moment]
        for record in put.get(layer.kind.name, ()) if moments else ():
            for key in moments:
                value = getattr(record, key)
                if isinstance(value, datetime) and value.microsecond % 1000:
                    return False
    return True


def _give_back_memory() -> None:
    """Hand back to the system the memory a load freed (Arrow's pool and C's heap keep it for
    later use otherwise): loading 100,000 events peaked at 388 MB and held 370 MB after, now
    331 and 279 MB (the dashboard server's peak: 404 -> 348 MB)."""
    pyarrow.default_memory_pool().release_unused()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> Any:
    """glibc, for malloc_trim; None elsewhere (another C library, another system)."""
    try:
        found = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    return found if hasattr(found, "malloc_trim") else None


_LIBC = _libc()


def _version_of(path: Path) -> tuple[int, int, int]:
    found = path.stat()
    return found.st_ino, found.st_mtime_ns, found.st_size


@contextlib.contextmanager
def _large_cache() -> Iterator[None]:
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


_CACHE_LOCK = threading.Lock()
_WRITERS = 0
_CACHE_BEFORE: Any = None
SQLITE_CACHE = "OGR_SQLITE_CACHE"


def _ordered(frame: pd.DataFrame, fields: list[str]) -> pd.DataFrame:
    """The frame's columns in a layer's order (the geometry last, as pyogrio writes it)."""
    geometry = ["geometry"] if "geometry" in frame.columns else []
    ordered: pd.DataFrame = frame[[*fields, *geometry]]
    return ordered


def _delete(path: Path, scenario_id: str, drop: dict[str, set[str]]) -> dict[str, _Rows]:
    """Remove records by id from layers of a GeoPackage (its triggers keep the spatial index
    and feature counts), one pass over each layer; returns the row number (fid) each had."""
    places: dict[str, _Rows] = {}
    with _geopackage(path) as db:
        db.execute("CREATE TEMP TABLE gone (id TEXT PRIMARY KEY)")
        for layer, ids in drop.items():
            db.execute("DELETE FROM gone")
            db.executemany("INSERT OR IGNORE INTO gone VALUES (?)", ((i,) for i in ids))
            where = f'FROM "{layer}" WHERE {SCENARIO_ID} = ? AND id IN (SELECT id FROM gone)'
            fids = dict(db.execute(f"SELECT id, fid {where}", (scenario_id,)).fetchall())
            db.execute(f"DELETE {where}", (scenario_id,))
            last = db.execute(f'SELECT coalesce(max(fid), 0) FROM "{layer}"').fetchone()[0]
            places[layer] = _Rows(fids, last)
    return places


@dataclass(frozen=True)
class _Rows:
    fids: dict[str, int]
    """The row number each removed record had."""
    last: int
    """The layer's last row number once they were removed: rows written after it are new."""


def _put_back(path: Path, scenario_id: str, places: dict[str, _Rows]) -> None:
    """Give records written again (updated) the row numbers they had, so that a workspace
    reads back in the order it was edited in."""
    with _geopackage(path) as db:
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
def _geopackage(path: Path) -> Iterator[sqlite3.Connection]:
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


POSITIONS_LAYER = "positions"
POSITION_FIELDS = (SCENARIO_ID, "convoy", "time", "latitude", "longitude", "speed_kmh", "note")
"""The positions layer's fields, in the order they are written."""
TIME_FIELDS = {s.EVENTS.name: "date", POSITIONS_LAYER: "time"}
"""The large layers read by time window (`geo.windows`), and each one's time field."""


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


def add_positions(workspace: Workspace, scenario_id: str, positions: Sequence[Position]) -> int:
    """Append position reports (records or a `PositionTable`) to the workspace's positions
    layer; how many were added."""
    table = PositionTable.of(positions)
    if not len(table):
        return 0
    frame = pd.DataFrame(
        {
            SCENARIO_ID: np.full(len(table), scenario_id, dtype=object),
            "convoy": table.convoy_names(),
            "time": pd.to_datetime(table.ns, utc=True).astype("datetime64[ms, UTC]"),
            "latitude": table.latitude,
            "longitude": table.longitude,
            "speed_kmh": table.speed_kmh,  # (NaN where none: read back as None)
            "note": table.note.to_numpy(zero_copy_only=False),
        },
        columns=list(POSITION_FIELDS),
    )
    points = gpd.points_from_xy(frame["longitude"], frame["latitude"], crs=CRS)
    spatial = gpd.GeoDataFrame(frame, geometry=points, crs=CRS)
    workspace.append_rows(POSITIONS_LAYER, spatial, "Point")  # (through Arrow: a million
    return len(table)  # reports written 34.9 s → 13.2 s)


def positions(
    workspace: Workspace,
    scenario_id: str,
    *,
    start: datetime | None = None,
    end: datetime | None = None,
) -> PositionTable:
    """The scenario's position reports kept in the workspace, oldest first (from `start` to
    `end` when given), as columns; only those rows are read (`geo.windows.rows_in`, by the
    layer's (scenario, time) index), a column at a time."""
    from geo.windows import rows_in  # (windows reads through this module)

    wanted = [name for name in POSITION_FIELDS if name != SCENARIO_ID]
    frame = workspace._settled(
        lambda: rows_in(
            workspace,
            POSITIONS_LAYER,
            scenario_id,
            start=start,
            end=end,
            columns=wanted,
            geometry=False,
        )
    )
    return PositionTable.from_columns(*(frame[name] for name in wanted))


assert list(POSITION_FIELDS[1:]) == [field.name for field in dataclasses.fields(Position)]


GEOCODE_CACHE_LAYER = "geocode_cache"


class GeocodeCache(MutableMapping[str, dict[str, Any] | None]):
    """Online geocoder answers kept in the workspace, so each name is asked only once.

    A key is ``provider:normalised name``; a value is the answer's Location.raw, or None for
    "the service knows no such place". Every new answer is appended to the layer at once.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._answers: dict[str, dict[str, Any] | None] = {}
        if workspace.exists() and GEOCODE_CACHE_LAYER in workspace._layers():
            for row in _cells(workspace.table(GEOCODE_CACHE_LAYER)):
                self._answers[str(row["key"])] = (
                    json.loads(row["answer"]) if row["answer"] else None
                )

    def __getitem__(self, key: str) -> dict[str, Any] | None:
        return self._answers[key]

    def __setitem__(self, key: str, value: dict[str, Any] | None) -> None:
        row = {
            "key": key,
            "answer": json.dumps(value) if value else "",
            "asked_at": datetime.now(UTC),
        }
        frame = _typed(pd.DataFrame([row]), {"asked_at"})
        self.workspace.append_rows(GEOCODE_CACHE_LAYER, frame, None)
        self._answers[key] = value

    def __delitem__(self, key: str) -> None:
        raise WorkspaceError(f"{self.workspace.label}: the geocode cache only grows")

    def __iter__(self) -> Iterator[str]:
        return iter(self._answers)

    def __len__(self) -> int:
        return len(self._answers)


def layer_names(path: Path) -> set[str]:
    """The names of the layers and tables a GeoPackage holds."""
    try:
        return {str(name) for name, _ in pyogrio.list_layers(path)}
    except pyogrio.errors.DataSourceError as error:
        raise WorkspaceError(f"{path}: not a readable GeoPackage ({error})") from error
