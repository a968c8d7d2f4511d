"""The PostGIS store: the same scenarios as the GeoPackage one, in a PostgreSQL schema.

Every write is one database transaction that also adds one to the workspace's version
(`geo.store.postgis_sql.bump`, which notifies listening dashboards); writers that read, check
and then write (`geo.changes.commit`) hold the workspace's advisory lock, the database-wide
counterpart of the GeoPackage's lock file, so that two machines' edits are applied one after
the other. Every read of one load sees one snapshot of the database.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import geopandas as gpd
import numpy as np
import pandas as pd
import psycopg
import pyarrow as pa
import shapely
from psycopg import sql

from geo import _schema as s
from geo.errors import WorkspaceError, WorkspaceLockedError
from geo.event_table import EventTable
from geo.records import Scenario
from geo.settings import CACHE_DIR
from geo.store import postgis_sql, team
from geo.store.added_columns import Extras
from geo.store.base import (
    LOCK_SECONDS,
    Notifications,
    RecordWriter,
    TableRows,
    Version,
    Workspace,
    batches,
)
from geo.store.frames import event_frame, records_frame, scenario_tables
from geo.store.layout import (
    CRS,
    FID,
    GEOMETRY,
    GEOMETRY_OF,
    KINDS_BY_NAME,
    LAYERS,
    SCENARIO_ID,
    SCENARIOS_LAYER,
    TABLES,
    Layer,
    LayerInfo,
    Window,
    slices,
)
from geo.store.listener import Listener

T = TypeVar("T")


class PostgisWorkspace(Workspace):
    """A workspace in a PostGIS database (the URL's current schema; see `geo.store.postgis_sql`).

    `path` is where this machine keeps the scenario dumps a commit writes (`geo.changes`),
    under `.cache/postgis/` (installed: the user's cache folder).
    """

    def __init__(self, url: str, *, lock_seconds: float = LOCK_SECONDS) -> None:
        self.url = url
        self.lock_seconds = lock_seconds
        self.path = CACHE_DIR / "postgis" / f"{_file_name(url)}.gpkg"
        self._local = threading.local()
        self._signed_in: tuple[str, str] | None = None

    @property
    def label(self) -> str:
        return postgis_sql.shown(self.url)

    @property
    def location(self) -> str:
        return self.url

    @property
    def shared(self) -> bool:
        """A team's database: roles, sign-in and notifications."""
        return True

    def without_login(self) -> str:
        return postgis_sql.without_login(self.url)

    def sign_in(self, role: str, password: str, *, unchecked: bool = False) -> str:
        return team.sign_in(self.url, role, password, unchecked=unchecked)

    def sign_out(self) -> None:
        postgis_sql.forget_kept(self.url)

    def listener(self) -> Notifications | None:
        return Listener(self.url)

    # Connections, the lock and the version ---------------------------------------------------

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """The load's snapshot when one is open in this thread; else, while this thread holds
        the workspace's lock, a transaction on the lock's own connection (so a write cannot
        outlive the lock: a session ended by the server ends both); else a connection and
        transaction of its own."""
        held = getattr(self._local, "snapshot", None)
        if held is not None:
            yield held
            return
        locked = getattr(self._local, "locked", None)
        if locked is not None:
            with postgis_sql.told(self.url), locked.transaction():
                yield locked
            return
        with postgis_sql.connect(self.url) as connection:
            yield connection

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Hold the workspace's advisory lock (re-entrant in a thread); WorkspaceLockedError when
        another writer keeps it longer than `lock_seconds`."""
        depth = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            try:
                yield
            finally:
                self._local.depth = depth
            return
        with postgis_sql.connect(self.url, kept=False) as connection:  # (the lock ends with it)
            connection.execute(f"SET lock_timeout = {max(1, int(self.lock_seconds * 1000))}")
            try:
                connection.execute(
                    "SELECT pg_advisory_lock(hashtext('corridor:' || current_schema()))"
                )
            except psycopg.errors.LockNotAvailable:
                raise WorkspaceLockedError(
                    f"{self.label}: another session or process has held the workspace's lock "
                    f"for more than {self.lock_seconds:g} s; try again, or open the scenario "
                    "read-only"
                ) from None
            connection.commit()  # (the lock is the session's: it holds until it closes)
            self._local.depth, self._local.locked = 1, connection
            try:
                yield
            finally:
                self._local.depth, self._local.locked = 0, None

    def author(self, who: str) -> str:
        role, team_role = self.signed_in()
        return role if team_role in ("viewer", "editor", "admin") else who

    def signed_in(self) -> tuple[str, str]:
        """The database role this workspace is opened as, and its team role ("admin",
        "editor", "viewer"; "owner" for a superuser, "" for none)."""
        found = self._signed_in
        if found is None:
            with self._connection() as connection:
                row = connection.execute(
                    "SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user"
                ).fetchone()
                assert row is not None
                team_role = "owner" if row[1] else team.role_of(connection)
            found = self._signed_in = (str(row[0]), team_role)
        return found

    def holds_lock(self) -> bool:
        return bool(getattr(self._local, "depth", 0))

    def exists(self) -> bool:
        with self._connection() as connection:
            return bool(postgis_sql.layers(connection))

    def modified(self) -> float:
        """The workspace's version."""
        version = self.version()
        return float(version[1]) if version else 0.0

    def version(self) -> Version | None:
        """(0, the workspace's version, 0): one more at every write; None with no workspace."""
        with self._connection() as connection:
            found = postgis_sql.version(connection)
        return None if found is None else (0, found, 0)

    def settled(self, read: Callable[[], T]) -> T:
        """`read()` in one snapshot of the database."""
        if getattr(self._local, "snapshot", None) is not None:
            return read()
        with postgis_sql.connect(self.url, snapshot=True) as connection:
            self._local.snapshot = connection
            try:
                return read()
            finally:
                self._local.snapshot = None

    def layer_names(self) -> set[str]:
        with self._connection() as connection:
            return {info.name for info in postgis_sql.layers(connection)}

    def _cache_key(self) -> str:
        return self.url

    def _spot_file(self, layer: str) -> str:
        return f"{self.label} {layer}"

    # Reads ---------------------------------------------------------------------------------

    def table(self, name: str) -> pd.DataFrame:
        """One layer, every scenario's rows in their order (a GeoDataFrame if it has shapes)."""
        with self._connection() as connection:
            info = _info(connection, name, self.label)
            return _frame_of(postgis_sql.read_layer(connection, info), info)

    def rows_after(self, layer: str, position: int) -> pd.DataFrame:
        with self._connection() as connection:
            if layer not in {info.name for info in postgis_sql.layers(connection)}:
                return pd.DataFrame()
            info = _info(connection, layer, self.label)
            after = sql.SQL("WHERE {} > %s").format(sql.Identifier(FID))
            table = postgis_sql.read_layer(
                connection, info, _columns(connection, layer), after, [position]
            )
        return _frame_of(table, info)

    def added_values(
        self, layer: str, scenario_id: str, ids: Collection[str]
    ) -> dict[str, dict[str, Any]]:
        """The values as text (each put back cast to its type)."""
        if not ids or layer not in KINDS_BY_NAME:
            return {}
        ours = pd.DataFrame(columns=["id", SCENARIO_ID, *s.field_names(KINDS_BY_NAME[layer])])
        with self._connection() as connection:
            held = {info.name for info in postgis_sql.layers(connection)}
            found = Extras.of(connection, layer, scenario_id, ours, held, ids=set(ids))
        names = [name for name, _ in found.columns]
        return {
            str(rid): dict(zip(names, values, strict=True))
            for rid, *values in found.rows
            if any(value is not None for value in values)
        }

    def restore_added(
        self, layer: str, scenario_id: str, values: Mapping[str, Mapping[str, Any]]
    ) -> None:
        if not values:
            return
        with self.transaction(), self._connection() as connection:
            present = postgis_sql.column_types(connection, layer, full=True, settable=True)
            wanted = {name for cells in values.values() for name in cells}
            columns = [(name, kind) for name, kind in present if name in wanted]
            rows = [
                (rid, *(None if cells.get(n) is None else str(cells[n]) for n, _ in columns))
                for rid, cells in values.items()
            ]
            if columns:
                Extras(layer, scenario_id, columns, rows).restore(connection)

    def last_position(self, layer: str) -> int:
        with self._connection() as connection:
            if layer not in {info.name for info in postgis_sql.layers(connection)}:
                return 0
            query = sql.SQL("SELECT coalesce(max({}), 0) FROM {}").format(
                sql.Identifier(FID), sql.Identifier(layer)
            )
            found = connection.execute(query).fetchone()
        return int(found[0]) if found else 0

    def _events_arrow(self, scenario_id: str, columns: list[str]) -> tuple[str, pa.Table]:
        with self._connection() as connection:
            info = _info(connection, s.EVENTS.name, self.label)
            where = sql.SQL("WHERE {} = %s").format(sql.Identifier(SCENARIO_ID))
            table = postgis_sql.read_layer(connection, info, columns, where, [scenario_id])
        return GEOMETRY, table

    def rows_in_window(self, window: Window) -> pd.DataFrame:
        where = [sql.SQL("{} = %s").format(sql.Identifier(SCENARIO_ID))]
        values: list[Any] = [window.scenario_id]
        field = sql.Identifier(window.field)
        if window.low:
            where.append(sql.SQL("{} >= %s").format(field))
            values.append(window.low)
        if window.high:
            where.append(sql.SQL("{} < %s").format(field))
            values.append(window.high)
        if window.extent is not None:
            where.append(
                sql.SQL("{} && ST_MakeEnvelope(%s, %s, %s, %s, 4326)").format(
                    sql.Identifier(GEOMETRY)
                )
            )
            values.extend(window.extent)
        with self._connection() as connection:
            info = _info(connection, window.layer, self.label)
            columns = window.columns or _columns(connection, window.layer)
            if not window.geometry:
                info = LayerInfo(info.name, None)
            condition = sql.SQL("WHERE ") + sql.SQL(" AND ").join(where)
            table = postgis_sql.read_layer(connection, info, columns, condition, values)
        return _frame_of(table, info)

    def export_layers(self) -> list[tuple[LayerInfo, pa.Table]]:
        with postgis_sql.connect(self.url) as connection:
            listed = postgis_sql.layers(connection)
            if not listed:
                raise WorkspaceError(
                    f"{self.label}: holds no Corridor workspace ({postgis_sql.REGISTRY} missing)"
                )
            return [(info, postgis_sql.read_layer(connection, info)) for info in listed]

    # Writes --------------------------------------------------------------------------------

    def append_rows(self, layer: str, frame: pd.DataFrame, geometry_type: str | None) -> None:
        with self.transaction(), self._connection() as connection:
            postgis_sql.ensure_workspace(connection)
            _insert(connection, layer, frame, geometry_type)
            if layer not in postgis_sql.UNTRACKED:
                postgis_sql.bump(connection)

    def save(self, scenario: Scenario, *, append: dict[str, TableRows] | None = None) -> None:
        with self.transaction():
            self._save(scenario, append or {})

    def _save(self, scenario: Scenario, append: dict[str, TableRows]) -> None:
        """The scenario's rows replaced, and `append`'s rows added, in one transaction."""
        fresh = scenario_tables(scenario)
        with self._connection() as connection:
            postgis_sql.ensure_workspace(connection)
            held = {info.name for info in postgis_sql.layers(connection)}
            for name in TABLES:
                kept = Extras.of(connection, name, scenario.id, fresh[name], held)
                if name in held:
                    _delete_scenario(connection, name, scenario.id)
                _insert(connection, name, fresh[name], GEOMETRY_OF.get(name))
                kept.restore(connection)
            for name, rows in append.items():
                for frame in batches(rows):
                    _insert(connection, name, frame, None)
            postgis_sql.bump(connection)

    @contextlib.contextmanager
    def _record_writer(
        self,
        scenario_id: str,
        put: Mapping[str, Sequence[Any]],
        append: Mapping[str, TableRows],
    ) -> Iterator[_RecordWriter | None]:
        """`write_records` in one transaction (committed when the block ends); a schema
        holding no workspace yet is saved whole."""
        with self._connection() as connection:
            held = {info.name for info in postgis_sql.layers(connection)}
            if SCENARIOS_LAYER not in held:
                yield None
                return
            yield _RecordWriter(connection, scenario_id, put, held)

    def import_layers(
        self, layers: list[tuple[LayerInfo, pa.Table]], *, replace: bool = False
    ) -> list[str]:
        with postgis_sql.connect(self.url) as connection:
            held = postgis_sql.layers(connection)
            if held and not replace:
                raise WorkspaceError(
                    f"{self.label}: already holds a workspace ({len(held)} layers); "
                    "expected an empty schema, or --replace to overwrite it"
                )
            for info in held:
                connection.execute(
                    sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(info.name))
                )
            connection.execute(
                sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(postgis_sql.REGISTRY))
            )
            connection.execute("CREATE EXTENSION IF NOT EXISTS postgis")
            postgis_sql.ensure_workspace(connection)  # (the version goes on: reads are stale)
            for position, (info, table) in enumerate(layers):
                postgis_sql.write_layer(connection, info, table, position=position)
            postgis_sql.bump(connection)  # (every dashboard on it reads it again)
        return [f"{info.name}: {table.num_rows} rows" for info, table in layers]


class _RecordWriter(RecordWriter):
    """`write_records`' steps in the write's transaction. The frames of the records to add are
    made first: the values of columns another program added are read, from the rows they
    replace, for the columns they lack (`Extras`), and put back once they are written."""

    def __init__(
        self,
        connection: psycopg.Connection[Any],
        scenario_id: str,
        put: Mapping[str, Sequence[Any]],
        held: set[str],
    ) -> None:
        self.connection, self.scenario_id, self.held = connection, scenario_id, held
        self.frames: dict[str, pd.DataFrame] = {}
        for layer in LAYERS:
            name = layer.kind.name
            if put.get(name):
                records = put[name]
                if isinstance(records, EventTable):  # (its columns: made in `add` by batch)
                    self.frames[name] = event_frame(records[:0], scenario_id, for_arrow=True)
                else:
                    self.frames[name] = records_frame(tuple(records), layer, scenario_id)
        self.kept: list[Extras] = []
        self.places: dict[str, dict[str, int]] = {}

    def remove(self, drop: dict[str, set[str]]) -> None:
        connection, scenario_id = self.connection, self.scenario_id
        self.kept = [
            Extras.of(connection, name, scenario_id, self.frames[name], self.held, ids=drop[name])
            for name in self.frames
            if drop.get(name)
        ]
        self.places = {
            name: _delete_ids(connection, name, scenario_id, ids) for name, ids in drop.items()
        }

    def add(self, layer: Layer, records: Sequence[Any]) -> None:
        """(Their frame was made from these records when the write began; an EventTable's
        frames are made and copied in BATCH_ROWS at a time, in the same transaction.)"""
        name = layer.kind.name
        if not isinstance(records, EventTable):
            _insert(self.connection, name, self.frames[name], layer.geometry_type)
            return
        for part in slices(len(records)):
            chunk = EventTable(records.table.slice(part.start, part.stop - part.start))
            frame = event_frame(chunk, self.scenario_id, for_arrow=True)
            _insert(self.connection, name, frame, layer.geometry_type)

    def put_back(self) -> None:
        for name, fids in self.places.items():
            _put_back(self.connection, name, self.scenario_id, fids)
        for extras in self.kept:
            extras.restore(self.connection)

    def append(self, name: str, rows: TableRows) -> None:
        for frame in batches(rows):
            _insert(self.connection, name, frame, None)

    def finish(self) -> Version:
        return (0, postgis_sql.bump(self.connection), 0)


def _file_name(url: str) -> str:
    """A file name for a workspace URL (its host, database and options), without the password."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", postgis_sql.shown(url).split("://", 1)[-1]).strip("_")


def _info(connection: psycopg.Connection[Any], name: str, label: str) -> LayerInfo:
    for info in postgis_sql.layers(connection):
        if info.name == name:
            return info
    raise WorkspaceError(f"{label}: cannot read layer {name!r} (the workspace has no such layer)")


def _columns(connection: psycopg.Connection[Any], layer: str) -> list[str]:
    """A table's columns in order, but for its feature id and geometry."""
    return [n for n, _ in postgis_sql.column_types(connection, layer) if n not in (FID, GEOMETRY)]


def _frame_of(table: pa.Table, info: LayerInfo) -> pd.DataFrame:
    """A layer's rows as pyogrio reads a GeoPackage's: a GeoDataFrame with "geometry" when
    the layer has shapes; missing text None."""
    names = [name for name in table.column_names if name not in (FID, GEOMETRY)]
    frame: pd.DataFrame = table.select(names).to_pandas()
    for name in names:
        if pa.types.is_string(table.schema.field(name).type):
            column = frame[name].astype(object)
            frame[name] = column.where(column.notna(), None)
    if info.geometry_type is None:
        return frame
    blobs = table.column(GEOMETRY).to_numpy(zero_copy_only=False)
    geometry = gpd.GeoSeries(shapely.from_wkb(blobs), crs=CRS)
    spatial: pd.DataFrame = gpd.GeoDataFrame(frame, geometry=geometry, crs=CRS)
    return spatial


def _arrow_rows(frame: pd.DataFrame) -> pa.Table:
    """A frame's rows as Arrow (dates as ISO text, as the GeoPackage keeps them; a column of
    mixed values as text) with the geometry as WKB in `geom`."""
    plain = pd.DataFrame(frame.drop(columns="geometry")) if "geometry" in frame.columns else frame
    arrays = {}
    for name in plain.columns:
        column = plain[name]
        try:
            array = pa.array(column, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            array = pa.array([None if _missing(v) else str(v) for v in column], pa.string())
        if pa.types.is_date(array.type):
            array = array.cast(pa.string())
        if pa.types.is_timestamp(array.type):
            array = array.cast(pa.timestamp("ms", tz="UTC" if array.type.tz else None))
        elif not len(plain):  # (no rows tell the type: text, as a GeoPackage's empty layer)
            array = array.cast(pa.string())
        arrays[str(name)] = array
    table = pa.table(arrays) if arrays else pa.table({})
    if "geometry" in frame.columns:
        blobs = shapely.to_wkb(np.asarray(frame["geometry"].values))
        table = table.append_column(GEOMETRY, pa.array(list(blobs), pa.binary()))
    return table


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA


def _insert(
    connection: psycopg.Connection[Any],
    layer: str,
    frame: pd.DataFrame,
    geometry_type: str | None,
) -> None:
    """Add rows to a layer, made (typed by the rows) when missing; a column the layer lacks
    is added, and a value its column cannot hold turns that column into text."""
    table = _arrow_rows(frame)
    held = {info.name: info for info in postgis_sql.layers(connection)}
    if layer not in held:
        kind = geometry_type if "geometry" in frame.columns else None
        postgis_sql.write_layer(connection, LayerInfo(layer, kind), table)
        return
    info = held[layer]
    kinds = dict(postgis_sql.column_types(connection, layer))
    columns = []
    for field in table.schema:
        if field.name == GEOMETRY:
            continue
        if field.name not in kinds:
            kind = postgis_sql.sql_type(info, pa.field(field.name, _plain(field.type)))
            connection.execute(
                sql.SQL("ALTER TABLE {} ADD COLUMN {} {}").format(
                    sql.Identifier(layer), sql.Identifier(field.name), sql.SQL(kind)
                )
            )
            kinds[field.name] = kind
        target = postgis_sql.read_as(kinds[field.name])
        try:
            array = table.column(field.name).cast(target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            connection.execute(
                sql.SQL("ALTER TABLE {} ALTER COLUMN {} TYPE text USING {}::text").format(
                    sql.Identifier(layer), sql.Identifier(field.name), sql.Identifier(field.name)
                )
            )
            kinds[field.name] = "text"
            array = table.column(field.name).cast(pa.string())
        table = table.set_column(table.schema.get_field_index(field.name), field.name, array)
        columns.append(table.schema.field(field.name))
    postgis_sql.copy_in(connection, info, table, columns)


def _plain(kind: pa.DataType) -> pa.DataType:
    return pa.string() if pa.types.is_null(kind) else kind


def _delete_scenario(connection: psycopg.Connection[Any], layer: str, scenario_id: str) -> None:
    connection.execute(
        sql.SQL("DELETE FROM {} WHERE {} = %s").format(
            sql.Identifier(layer), sql.Identifier(SCENARIO_ID)
        ),
        [scenario_id],
    )


def _delete_ids(
    connection: psycopg.Connection[Any], layer: str, scenario_id: str, ids: set[str]
) -> dict[str, int]:
    """Remove records by id; the feature id each had."""
    rows = connection.execute(
        sql.SQL("DELETE FROM {} WHERE {} = %s AND id = ANY(%s) RETURNING id, {}").format(
            sql.Identifier(layer), sql.Identifier(SCENARIO_ID), sql.Identifier(FID)
        ),
        [scenario_id, list(ids)],
    ).fetchall()
    return {str(record_id): int(fid) for record_id, fid in rows}


def _put_back(
    connection: psycopg.Connection[Any], layer: str, scenario_id: str, fids: dict[str, int]
) -> None:
    """Records written again (updated) take back the feature ids they had, so that the layer
    reads back in the order it was edited in."""
    if not fids:
        return
    connection.execute(
        sql.SQL(
            "UPDATE {table} SET {fid} = old.fid FROM unnest(%s::text[], %s::bigint[]) "
            "AS old(id, fid) WHERE {table}.{scenario} = %s AND {table}.id = old.id"
        ).format(
            table=sql.Identifier(layer),
            fid=sql.Identifier(FID),
            scenario=sql.Identifier(SCENARIO_ID),
        ),
        [list(fids), list(fids.values()), scenario_id],
    )
