"""The GeoPackage store: one file holding scenarios, one layer per record type (QGIS opens it)."""

from __future__ import annotations

import contextlib
import itertools
import shutil
import sqlite3
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import filelock
import geopandas as gpd
import pandas as pd
import pyarrow
import pyogrio
from pandas.api.types import is_numeric_dtype

from geo import _fields as f
from geo import _schema as s
from geo._atomic import atomic_path
from geo.errors import WorkspaceError, WorkspaceLockedError
from geo.event_table import EventTable
from geo.records import Scenario
from geo.store import gpkg_file
from geo.store.base import (
    LOCK_SECONDS,
    Notifications,
    RecordWriter,
    TableRows,
    Version,
    Workspace,
    batches,
    whole,
)
from geo.store.frames import (
    MOMENTS,
    event_batches,
    event_frame,
    records_frame,
    scenario_tables,
    typed_frame,
)
from geo.store.gpkg_file import add_time_indexes, layer_names
from geo.store.gpkg_save import (
    added_types,
    as_declared,
    concat,
    numbered_after,
    with_extras,
    without_scenario,
)
from geo.store.layout import (
    CRS,
    FID,
    GEOMETRY,
    KINDS_BY_NAME,
    LAYERS,
    SCENARIO_ID,
    SCENARIOS_LAYER,
    TABLES,
    Layer,
    LayerInfo,
    Window,
)

T = TypeVar("T")
REWRITE_AT = 50_000
"""Rows added to a layer at once from which the layer is written anew, when they outnumber
the rows it holds and none was removed (an R-tree filled row by row cost a million events
25 s; GDAL builds a new layer's at once)."""
READ_TRIES = 3
"""Reads of a workspace that failed while it was being written, tried in all."""


class GeoPackageWorkspace(Workspace):
    """A GeoPackage file of scenarios; every save rewrites it through a temporary copy.

    Writers take the workspace's lock (a ``.lock`` file beside it) for a whole read-change-write
    transaction, so that edits from two browser sessions or processes are applied one after the
    other, each to the other's result; readers never wait (a rename swaps the file whole).
    """

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

    @property
    def shared(self) -> bool:
        """A file: no roles, no notifications."""
        return False

    def without_login(self) -> str:
        return str(self.path)

    def signed_in(self) -> tuple[str, str]:
        return "", ""

    def sign_in(self, role: str, password: str, *, unchecked: bool = False) -> str:
        raise WorkspaceError(f"{self.label}: a GeoPackage workspace has no roles to sign in as")

    def sign_out(self) -> None:
        """Nothing is kept for a file."""

    def listener(self) -> Notifications | None:
        return None

    def author(self, who: str) -> str:
        """`who` as given (a PostGIS team member's is its own database role: `geo.store.team`)."""
        return who

    def holds_lock(self) -> bool:
        """Whether this process holds the workspace's write lock (`transaction`)."""
        return bool(self._lock.is_locked)

    @property
    def location(self) -> Path:
        return self.path

    def exists(self) -> bool:
        return self.path.is_file()

    def modified(self) -> float:
        """The file's modification time."""
        return self.path.stat().st_mtime if self.path.exists() else 0.0

    def layer_names(self) -> set[str]:
        return layer_names(self.path)

    def _cache_key(self) -> str:
        """What tells this workspace from others in the cache of scenarios last read."""
        return str(self.path.resolve())

    def _spot_file(self, layer: str) -> str:
        """The 'file' a problem found in a layer is told in."""
        return f"{self.path.name}:{layer}"

    def version(self) -> Version | None:
        """What changes whenever the workspace is saved (each save replaces the file): its
        inode, modification time and size; None when there is no file."""
        try:
            return gpkg_file.version_of(self.path)
        except FileNotFoundError:
            return None

    def settled(self, read: Callable[[], T]) -> T:
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

    def _written_meanwhile(self, before: Version | None) -> bool:
        """Whether the file changed since `before`, or a writer holds its lock now."""
        if self.version() != before:
            return True
        try:
            self._lock.acquire(timeout=0)
        except filelock.Timeout:
            return True
        self._lock.release()
        return False

    def _events_arrow(self, scenario_id: str, columns: list[str]) -> tuple[str, pyarrow.Table]:
        """The events layer's `columns` and geometry (WKB; the scenario's rows at least, in
        the layer's order), and the geometry column's name ("" when GDAL names none)."""
        try:
            found, table = pyogrio.read_arrow(self.path, layer=s.EVENTS.name, columns=columns)
        except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as error:
            raise WorkspaceError(f"{self.path}: cannot read layer 'events' ({error})") from error
        return str(found["geometry_name"] or ""), table

    def rows_in_window(self, window: Window) -> pd.DataFrame:
        """The rows of a large layer in a window (`geo.store.windows.rows_in` makes it exact)."""
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

    def save(self, scenario: Scenario, *, append: dict[str, TableRows] | None = None) -> None:
        """Add the scenario, or replace the one with its id, in one all-or-nothing rewrite.

        ``append`` adds rows to other (non-scenario) tables in the same rewrite, such as the
        change log, so that a change and its record are written together or not at all.
        """
        with self.transaction():
            self._save(scenario, append or {})

    def _save(self, scenario: Scenario, append: dict[str, TableRows]) -> None:
        present = layer_names(self.path) if self.exists() else set()
        tables = {name: self.table(name) if name in present else None for name in TABLES}
        others = self._other_layers()
        for name, rows in append.items():
            kept = others.get(name, (None, None))[0]
            others[name] = (concat(kept, numbered_after(kept, whole(rows))), None)
        fresh = scenario_tables(scenario)
        with atomic_path(self.path) as temporary:
            temporary.unlink()
            for layer in (None, *LAYERS):
                name = layer.kind.name if layer else SCENARIOS_LAYER
                kept = without_scenario(tables[name], scenario.id)
                if kept is not None:  # (a time column without a value reads back without UTC)
                    kept = typed_frame(kept, MOMENTS[name])
                mine = with_extras(fresh[name], tables[name], scenario.id) if layer else fresh[name]
                added = added_types(self.path, name, mine, fresh[name]) if layer else {}
                frame, typed = as_declared(concat(kept, mine), added)
                _write(frame, temporary, name, layer.geometry_type if layer else None, typed=typed)
            for name, (frame, geometry_type) in others.items():
                _write(frame, temporary, name, geometry_type)
            add_time_indexes(temporary)

    @contextlib.contextmanager
    def _record_writer(
        self,
        scenario_id: str,
        put: Mapping[str, Sequence[Any]],
        append: Mapping[str, TableRows],
    ) -> Iterator[_RecordWriter | None]:
        """`write_records` on a copy of the file swapped in whole (a layer that many new rows
        outnumber is written anew with them: see REWRITE_AT).

        A copy of the file costs a disk's speed; rewriting every record cost a 300,000-place
        import 20 s. A workspace whose layers lack a field of today's schema is saved whole.
        """
        present = layer_names(self.path) if self.exists() else set()
        fields = self._fields(present, put, append)
        if fields is None:
            yield None
            return
        with atomic_path(self.path) as temporary, gpkg_file.large_cache():
            shutil.copyfile(self.path, temporary)
            yield _RecordWriter(temporary, scenario_id, fields, present)

    def export_layers(self) -> list[tuple[LayerInfo, pyarrow.Table]]:
        if not self.path.is_file():
            raise WorkspaceError(f"{self.path}: no such GeoPackage workspace")
        try:
            return [_arrow_layer(self.path, str(name), kind) for name, kind in _listed(self.path)]
        except pyogrio.errors.DataSourceError as error:
            raise WorkspaceError(f"{self.path}: not a readable GeoPackage ({error})") from error

    def import_layers(
        self, layers: list[tuple[LayerInfo, pyarrow.Table]], *, replace: bool = False
    ) -> list[str]:
        if self.path.exists() and not replace:
            raise WorkspaceError(f"{self.path}: already exists; expected a new file, or --replace")
        with atomic_path(self.path) as temporary:
            temporary.unlink()  # (GDAL makes the file)
            for number, (info, table) in enumerate(layers):
                spatial = info.geometry_type is not None
                pyogrio.write_arrow(
                    table, temporary, layer=info.name, driver="GPKG", append=number > 0,
                    geometry_name=GEOMETRY if spatial else None,
                    geometry_type=info.geometry_type if spatial else None,
                    crs=CRS if spatial else None,
                )  # fmt: skip
            add_time_indexes(temporary)
        return [f"{info.name}: {table.num_rows} rows" for info, table in layers]

    def _fields(
        self,
        present: set[str],
        put: Mapping[str, Sequence[Any]],
        append: Mapping[str, TableRows],
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
        if not self.exists() or layer not in self.layer_names():
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
        with self.transaction(), gpkg_file.opened(self.path) as db:
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
        if not self.exists() or layer not in self.layer_names():
            return 0
        try:
            with contextlib.closing(
                sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
            ) as db:
                found = db.execute(f'SELECT coalesce(max(fid), 0) FROM "{layer}"').fetchone()
        except sqlite3.Error as error:
            raise WorkspaceError(f"{self.path}: cannot read layer {layer!r} ({error})") from error
        return int(found[0])


class _RecordWriter(RecordWriter):
    """`write_records`' steps on the copy of the file (`path`) that is swapped in once done."""

    def __init__(
        self, path: Path, scenario_id: str, fields: dict[str, list[str]], present: set[str]
    ) -> None:
        self.path, self.scenario_id = path, scenario_id
        self.fields, self.present = fields, present  # (see `_fields`; the layers held)
        self.removed: dict[str, gpkg_file.Rows] = {}

    def remove(self, drop: dict[str, set[str]]) -> None:
        self.removed = gpkg_file.delete_ids(self.path, self.scenario_id, drop)

    def add(self, layer: Layer, records: Sequence[Any]) -> None:
        name = layer.kind.name
        days = _day_columns(layer.kind)
        arrow = not days or _days_kept_as_text(self.path, name, days)
        if isinstance(records, EventTable) and arrow:
            self._add_events(layer, records)
            return
        if isinstance(records, EventTable):
            frame = event_frame(records, self.scenario_id, for_arrow=arrow)
        else:
            frame = records_frame(tuple(records), layer, self.scenario_id)
            frame = _days_as_text(frame, days) if arrow and days else frame
        frame = _ordered(frame, self.fields[name])
        kept = None
        if arrow and name not in self.removed and _outnumbering(self.path, name, len(frame)):
            kept = _kept_rows(self.path, name, frame)
        if kept is not None:  # (the layer written anew: see REWRITE_AT)
            _write(concat(kept, frame), self.path, name, layer.geometry_type, arrow=True)
        else:
            _write(frame, self.path, name, layer.geometry_type, append=True, arrow=arrow)

    def _add_events(self, layer: Layer, events: EventTable) -> None:
        """New events handed to GDAL BATCH_ROWS at a time in one write (one frame of a million
        took 390 MB, GDAL's copy of it 370 MB more); the layer written anew with them when they
        outnumber it (REWRITE_AT), its rows first, so that GDAL builds its R-tree at once."""
        name = layer.kind.name
        made = event_batches(events, self.scenario_id, self.fields[name])
        first = next(made)
        kept = None
        if name not in self.removed and _outnumbering(self.path, name, len(events)):
            kept = _kept_arrow(self.path, name, first.schema)
        failed: list[Exception] = []

        def told() -> Iterator[pyarrow.RecordBatch]:  # (GDAL tells only that a batch failed)
            try:
                yield from itertools.chain(kept or [], [first], made)
            except Exception as error:
                failed.append(error)
                raise

        stream = pyarrow.RecordBatchReader.from_batches(first.schema, told())
        try:
            _write_arrow(stream, self.path, name, layer.geometry_type, append=kept is None)
        except Exception:
            if failed:
                raise failed[0] from None
            raise

    def put_back(self) -> None:
        gpkg_file.put_back(self.path, self.scenario_id, self.removed)

    def append(self, name: str, rows: TableRows) -> None:
        present = name in self.present
        for frame in batches(rows):
            frame = _ordered(frame, self.fields[name]) if name in self.fields else frame
            _write(frame, self.path, name, None, append=present, arrow=True)
            present = True

    def finish(self) -> Version:
        add_time_indexes(self.path)  # (a workspace saved before they were made)
        return gpkg_file.version_of(self.path)  # (a rename keeps inode, time and size)


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


def _write_arrow(
    stream: pyarrow.RecordBatchReader,
    path: Path,
    layer: str,
    geometry_type: str | None,
    *,
    append: bool,
) -> None:
    """Write a stream of Arrow batches as a layer (its geometry WKB in `geometry`), or add them
    to the layer (`append`), as `_write` hands GDAL a frame's rows through Arrow."""
    spatial = "geometry" in stream.schema.names
    try:
        pyogrio.write_arrow(
            stream, path, layer=layer, driver="GPKG", append=append,
            geometry_name="geometry" if spatial else None,
            geometry_type=geometry_type if spatial else None, crs=CRS if spatial else None,
        )  # fmt: skip
    except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError, OSError) as error:
        raise WorkspaceError(f"{path}: cannot write layer {layer!r} ({error})") from error


def _kept_arrow(path: Path, layer: str, schema: pyarrow.Schema) -> list[pyarrow.RecordBatch] | None:
    """A layer's rows (every scenario's), in their order, as Arrow of `schema` (the geometry as
    WKB in `geometry`), to be written before new ones; None when a value cannot take its
    column's type (a whole number the layer holds as text, or as a float, is one again)."""
    meta, table = pyogrio.read_arrow(path, layer=layer)
    found = str(meta["geometry_name"] or "")
    if found and found != "geometry":
        table = table.rename_columns(["geometry" if n == found else n for n in table.column_names])
    try:
        columns = [table.column(field.name).cast(field.type) for field in schema]
    except (KeyError, pyarrow.ArrowInvalid, pyarrow.ArrowNotImplementedError):
        return None
    kept: list[pyarrow.RecordBatch] = pyarrow.table(columns, schema=schema).to_batches()
    return kept


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


def _ordered(frame: pd.DataFrame, fields: list[str]) -> pd.DataFrame:
    """The frame's columns in a layer's order (the geometry last, as pyogrio writes it)."""
    geometry = ["geometry"] if "geometry" in frame.columns else []
    ordered: pd.DataFrame = frame[[*fields, *geometry]]
    return ordered


def _outnumbering(path: Path, layer: str, added: int) -> bool:
    """Whether rows added to a layer are many and more than those it holds (see REWRITE_AT)."""
    if added < REWRITE_AT:
        return False
    with contextlib.closing(sqlite3.connect(path)) as db:
        held = db.execute(f'SELECT count(*) FROM "{layer}"').fetchone()[0]
    return bool(held < added)


def _listed(path: Path) -> list[tuple[str, str | None]]:
    """A GeoPackage's layers and their geometry types (None for a table), in order."""
    return [
        (str(name), None if kind is None else str(kind)) for name, kind in pyogrio.list_layers(path)
    ]


def _arrow_layer(path: Path, name: str, kind: str | None) -> tuple[LayerInfo, pyarrow.Table]:
    """One layer as Arrow with its feature ids, its geometry named `GEOMETRY`."""
    meta, table = pyogrio.read_arrow(path, layer=name, return_fids=True)
    if meta["geometry_name"] and meta["geometry_name"] != GEOMETRY:
        table = table.rename_columns(
            [GEOMETRY if n == meta["geometry_name"] else n for n in table.schema.names]
        )
    return LayerInfo(name, kind), table.replace_schema_metadata(None)
