"""The workspace on PostGIS: `Workspace("postgresql://…")` gives a `PostgisWorkspace`, which
reads and writes the same scenarios through the same interface as the GeoPackage one.

Every write is one database transaction that also adds one to the workspace's version
(`geo.postgis.bump`, which notifies listening dashboards); writers that read, check and then
write (`geo.changes.commit`) hold the workspace's advisory lock, the database-wide counterpart
of the GeoPackage's lock file, so that two machines' edits are applied one after the other.
Every read of one load sees one snapshot of the database.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import psycopg
import pyarrow as pa
import shapely
from psycopg import sql

from geo import _schema as s
from geo import postgis
from geo.errors import WorkspaceError, WorkspaceLockedError
from geo.event_table import EventTable
from geo.postgis import GEOMETRY, LayerInfo
from geo.records import Scenario
from geo.settings import CACHE_DIR
from geo.workspace import (
    CRS,
    FID,
    KINDS_BY_NAME,
    LAYERS,
    LOCK_SECONDS,
    SCENARIO_ID,
    SCENARIOS_LAYER,
    TABLES,
    Window,
    Workspace,
    _as_stored,
    _event_frame,
    _frame,
    _scenario_tables,
)

_GEOMETRY_OF = {layer.kind.name: layer.geometry_type for layer in LAYERS}


class PostgisWorkspace(Workspace):
    """A workspace in a PostGIS database (the URL's current schema; see `geo.postgis`).

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
        return postgis.shown(self.url)

    @property
    def location(self) -> str:
        return self.url

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
            with postgis.told(self.url), locked.transaction():
                yield locked
            return
        with postgis.connect(self.url) as connection:
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
        with postgis.connect(self.url, kept=False) as connection:  # (the lock ends with it)
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
            from geo import team

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
            return bool(postgis.layers(connection))

    def version(self) -> tuple[int, int, int] | None:
        """(0, the workspace's version, 0): one more at every write; None with no workspace."""
        with self._connection() as connection:
            found = postgis.version(connection)
        return None if found is None else (0, found, 0)

    def _written_meanwhile(self, before: tuple[int, int, int] | None) -> bool:
        return False  # (a load reads one snapshot: a failed read is not a write half-seen)

    def _settled(self, read: Any) -> Any:
        """`read()` in one snapshot of the database."""
        if getattr(self._local, "snapshot", None) is not None:
            return read()
        with postgis.connect(self.url, snapshot=True) as connection:
            self._local.snapshot = connection
            try:
                return read()
            finally:
                self._local.snapshot = None

    def _layers(self) -> set[str]:
        with self._connection() as connection:
            return {info.name for info in postgis.layers(connection)}

    def _cache_key(self) -> str:
        return self.url

    def _spot_file(self, layer: str) -> str:
        return f"{self.label} {layer}"

    # Reads ---------------------------------------------------------------------------------

    def table(self, name: str) -> pd.DataFrame:
        """One layer, every scenario's rows in their order (a GeoDataFrame if it has shapes)."""
        with self._connection() as connection:
            info = _info(connection, name, self.label)
            return _frame_of(postgis.read_layer(connection, info), info)

    def rows_after(self, layer: str, position: int) -> pd.DataFrame:
        with self._connection() as connection:
            if layer not in {info.name for info in postgis.layers(connection)}:
                return pd.DataFrame()
            info = _info(connection, layer, self.label)
            after = sql.SQL("WHERE {} > %s").format(sql.Identifier(FID))
            table = postgis.read_layer(
                connection, info, _columns(connection, layer), after, [position]
            )
        return _frame_of(table, info)

    def added_values(
        self, layer: str, scenario_id: str, ids: Collection[str]
    ) -> dict[str, dict[str, Any]]:
        """As `Workspace.added_values`; the values as text (each put back cast to its type)."""
        if not ids or layer not in KINDS_BY_NAME:
            return {}
        ours = pd.DataFrame(columns=["id", SCENARIO_ID, *s.field_names(KINDS_BY_NAME[layer])])
        with self._connection() as connection:
            held = {info.name for info in postgis.layers(connection)}
            found = _Extras.of(connection, layer, scenario_id, ours, held, ids=set(ids))
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
            present = postgis.column_types(connection, layer, full=True, settable=True)
            wanted = {name for cells in values.values() for name in cells}
            columns = [(name, kind) for name, kind in present if name in wanted]
            rows = [
                (rid, *(None if cells.get(n) is None else str(cells[n]) for n, _ in columns))
                for rid, cells in values.items()
            ]
            if columns:
                _Extras(layer, scenario_id, columns, rows).restore(connection)

    def last_position(self, layer: str) -> int:
        with self._connection() as connection:
            if layer not in {info.name for info in postgis.layers(connection)}:
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
            table = postgis.read_layer(connection, info, columns, where, [scenario_id])
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
            table = postgis.read_layer(connection, info, columns, condition, values)
        return _frame_of(table, info)

    # Writes --------------------------------------------------------------------------------

    def append_rows(self, layer: str, frame: pd.DataFrame, geometry_type: str | None) -> None:
        with self.transaction(), self._connection() as connection:
            postgis.ensure_workspace(connection)
            _insert(connection, layer, frame, geometry_type)
            if layer not in postgis.UNTRACKED:
                postgis.bump(connection)

    def save(self, scenario: Scenario, *, append: dict[str, pd.DataFrame] | None = None) -> None:
        with self.transaction():
            self._save(scenario, append or {})

    def _save(self, scenario: Scenario, append: dict[str, pd.DataFrame]) -> None:
        """The scenario's rows replaced, and `append`'s rows added, in one transaction."""
        fresh = _scenario_tables(scenario)
        with self._connection() as connection:
            postgis.ensure_workspace(connection)
            held = {info.name for info in postgis.layers(connection)}
            for name in TABLES:
                kept = _Extras.of(connection, name, scenario.id, fresh[name], held)
                if name in held:
                    _delete_scenario(connection, name, scenario.id)
                _insert(connection, name, fresh[name], _GEOMETRY_OF.get(name))
                kept.restore(connection)
            for name, rows in append.items():
                _insert(connection, name, rows, None)
            postgis.bump(connection)

    def write_records(
        self,
        scenario: Scenario,
        put: Mapping[str, Sequence[Any]],
        drop: dict[str, set[str]],
        *,
        append: dict[str, pd.DataFrame] | None = None,
    ) -> None:
        """Remove the `drop` ids, add the `put` records (an updated record keeps its place in
        the layer's order) and the `append` rows, in one transaction."""
        with self.transaction(), self._connection() as connection:
            if SCENARIOS_LAYER not in {i.name for i in postgis.layers(connection)}:
                self._save(scenario, append or {})
                return
            frames = {}
            for layer in LAYERS:
                name = layer.kind.name
                if put.get(name):
                    records = put[name]
                    if isinstance(records, EventTable):
                        frames[name] = _event_frame(records, scenario.id, for_arrow=True)
                    else:
                        frames[name] = _frame(tuple(records), layer, scenario.id)
            held = {info.name for info in postgis.layers(connection)}
            kept = [
                _Extras.of(connection, name, scenario.id, frames[name], held, ids=drop[name])
                for name in frames
                if drop.get(name)
            ]
            places = {
                name: _delete_ids(connection, name, scenario.id, ids)
                for name, ids in drop.items()
                if ids
            }
            for layer in LAYERS:
                name = layer.kind.name
                if name in frames:
                    _insert(connection, name, frames[name], layer.geometry_type)
            for name, fids in places.items():
                _put_back(connection, name, scenario.id, fids)
            for extras in kept:
                extras.restore(connection)
            for name, rows in (append or {}).items():
                _insert(connection, name, rows, None)
            written = postgis.bump(connection)
        if _as_stored(put):
            self._remember(scenario, (0, written, 0), scenario.id)


@dataclass(frozen=True)
class _Extras:
    """The values of columns another program added to a layer (QGIS, say), read as text from
    the rows a write replaces, to be put back on the rows written in their place (generated
    columns, which the database fills itself, are left to it)."""

    layer: str
    scenario_id: str
    columns: list[tuple[str, str]]  # (name, full type)
    rows: list[tuple[Any, ...]]  # (id, value as text, ...)

    @classmethod
    def of(
        cls,
        connection: psycopg.Connection[Any],
        layer: str,
        scenario_id: str,
        written: pd.DataFrame,
        held: set[str],
        ids: set[str] | None = None,
    ) -> _Extras:
        if layer not in held or "id" not in written.columns:
            return cls(layer, scenario_id, [], [])
        columns = [
            (name, kind)
            for name, kind in postgis.column_types(connection, layer, full=True, settable=True)
            if name not in written.columns and name not in (FID, GEOMETRY)
        ]
        if not columns:
            return cls(layer, scenario_id, [], [])
        query = sql.SQL(
            "SELECT id, {} FROM {} WHERE {} = %s AND (%s::text[] IS NULL OR id = ANY(%s))"
        )
        values = sql.SQL(", ").join(
            sql.SQL("{}::text").format(sql.Identifier(n)) for n, _ in columns
        )
        chosen = None if ids is None else list(ids)
        found = connection.execute(
            query.format(values, sql.Identifier(layer), sql.Identifier(SCENARIO_ID)),
            [scenario_id, chosen, chosen],
        ).fetchall()
        return cls(layer, scenario_id, columns, [tuple(row) for row in found])

    def restore(self, connection: psycopg.Connection[Any]) -> None:
        """Every row's values put back by one statement (a join on the id: one pass, however
        many rows, and one change of the workspace's version)."""
        if not self.rows:
            return
        names = [sql.Identifier(f"c{number}") for number in range(len(self.columns))]
        update = sql.SQL(
            "UPDATE {layer} AS t SET {sets} FROM unnest({arrays}) AS v(id, {names}) "
            "WHERE t.{scenario} = %s AND t.id = v.id"
        ).format(
            layer=sql.Identifier(self.layer),
            sets=sql.SQL(", ").join(
                sql.SQL("{} = v.{}::{}").format(sql.Identifier(name), alias, sql.SQL(kind))
                for (name, kind), alias in zip(self.columns, names, strict=True)
            ),
            arrays=sql.SQL(", ").join([sql.SQL("%s::text[]")] * (len(names) + 1)),
            names=sql.SQL(", ").join(names),
            scenario=sql.Identifier(SCENARIO_ID),
        )
        arrays = [list(values) for values in zip(*self.rows, strict=True)]
        connection.execute(update, [*arrays, self.scenario_id])


def _file_name(url: str) -> str:
    """A file name for a workspace URL (its host, database and options), without the password."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", postgis.shown(url).split("://", 1)[-1]).strip("_")


def _info(connection: psycopg.Connection[Any], name: str, label: str) -> LayerInfo:
    for info in postgis.layers(connection):
        if info.name == name:
            return info
    raise WorkspaceError(f"{label}: cannot read layer {name!r} (the workspace has no such layer)")


def _columns(connection: psycopg.Connection[Any], layer: str) -> list[str]:
    """A table's columns in order, but for its feature id and geometry."""
    return [n for n, _ in postgis.column_types(connection, layer) if n not in (FID, GEOMETRY)]


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
    held = {info.name: info for info in postgis.layers(connection)}
    if layer not in held:
        kind = geometry_type if "geometry" in frame.columns else None
        postgis.write_layer(connection, LayerInfo(layer, kind), table)
        return
    info = held[layer]
    kinds = dict(postgis.column_types(connection, layer))
    columns = []
    for field in table.schema:
        if field.name == GEOMETRY:
            continue
        if field.name not in kinds:
            kind = postgis.sql_type(info, pa.field(field.name, _plain(field.type)))
            connection.execute(
                sql.SQL("ALTER TABLE {} ADD COLUMN {} {}").format(
                    sql.Identifier(layer), sql.Identifier(field.name), sql.SQL(kind)
                )
            )
            kinds[field.name] = kind
        target = postgis.read_as(kinds[field.name])
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
    postgis.copy_in(connection, info, table, columns)


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


class Listener:
    """Notifications of writes to one PostGIS workspace, counted as they come (LISTEN on
    `geo.postgis.CHANNEL`, in a thread of its own): a dashboard redraws when `count` moves.

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
                self.problem = f"{postgis.without_login(self.url)}: {postgis.reason(error)}"
                self._stop.wait(self.RETRY_SECONDS)

    def _listen(self) -> None:
        with psycopg.connect(postgis.linked(self.url), autocommit=True) as connection:
            row = connection.execute("SELECT current_schema()").fetchone()
            schema = str(row[0]) if row else ""
            connection.execute(sql.SQL("LISTEN {}").format(sql.Identifier(postgis.CHANNEL)))
            if self.problem:
                self.count += 1  # (back: what was written meanwhile is read again)
                self.problem = ""
            while not self._stop.is_set():
                for notice in connection.notifies(timeout=self.WAIT_SECONDS):
                    if notice.payload == schema:
                        self.count += 1
