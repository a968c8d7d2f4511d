"""The workspace: one GeoPackage holding scenarios, one layer per record type (QGIS opens it)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import filelock
import geopandas as gpd
import pandas as pd
import pyogrio
import shapely

from geo import _fields as f
from geo import _schema as s
from geo._atomic import atomic_path
from geo._fields import Spot
from geo.errors import ProblemLog, ScenarioNotFoundError, WorkspaceError, WorkspaceLockedError
from geo.records import Event, Place, Scenario
from geo.scenario import assemble, meta_fields

SCENARIO_ID = "scenario_id"
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
POINT_KINDS = (s.PLACES, s.EVENTS)
"""Records stored as a Point whose coordinates are the record's latitude and longitude."""
TABLES = (SCENARIOS_LAYER, *(layer.kind.name for layer in LAYERS))
LOCK_SECONDS = 15.0
"""How long a writer waits for another process's transaction before giving up."""


class Workspace:
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

    def exists(self) -> bool:
        return self.path.is_file()

    def version(self) -> tuple[int, int, int] | None:
        """What changes whenever the workspace is saved (each save replaces the file): its
        inode, modification time and size; None when there is no file."""
        try:
            found = self.path.stat()
        except FileNotFoundError:
            return None
        return found.st_ino, found.st_mtime_ns, found.st_size

    def scenario_ids(self) -> list[str]:
        """The ids of the scenarios in the workspace, sorted."""
        if not self.exists() or SCENARIOS_LAYER not in _layer_names(self.path):
            return []
        return sorted(str(value) for value in self.table(SCENARIOS_LAYER)[SCENARIO_ID])

    def load(self, scenario_id: str | None = None) -> Scenario:
        """One scenario, checked by the same rules as a scenario folder."""
        scenario_id = self._resolve(scenario_id)
        log = ProblemLog()
        meta = self._meta(scenario_id, log)
        present = _layer_names(self.path)
        raws = {
            layer.kind: self._raws(layer, scenario_id) if layer.kind.name in present else []
            for layer in LAYERS
        }
        sources = raws.pop(s.SOURCES)
        scenario = assemble(meta, sources, raws, log)
        log.raise_if_errors(f"{self.path} (scenario {scenario_id!r})")
        assert scenario is not None
        return scenario

    def save(self, scenario: Scenario, *, append: dict[str, pd.DataFrame] | None = None) -> None:
        """Add the scenario, or replace the one with its id, in one all-or-nothing rewrite.

        ``append`` adds rows to other (non-scenario) tables in the same rewrite, such as the
        change log, so that a change and its record are written together or not at all.
        """
        with self.transaction():
            self._save(scenario, append or {})

    def _save(self, scenario: Scenario, append: dict[str, pd.DataFrame]) -> None:
        present = _layer_names(self.path) if self.exists() else set()
        tables = {name: self.table(name) if name in present else None for name in TABLES}
        others = self._other_layers()
        for name, rows in append.items():
            kept = others.get(name, (None, None))[0]
            others[name] = (_concat(kept, rows), None)
        fresh = _scenario_tables(scenario)
        with atomic_path(self.path) as temporary:
            temporary.unlink()
            for layer in (None, *LAYERS):
                name = layer.kind.name if layer else SCENARIOS_LAYER
                kept = _without(tables[name], scenario.id)
                frame = _concat(kept, fresh[name])
                _write(frame, temporary, name, layer.geometry_type if layer else None)
            for name, (frame, geometry_type) in others.items():
                _write(frame, temporary, name, geometry_type)

    def _other_layers(self) -> dict[str, tuple[pd.DataFrame, str | None]]:
        """Layers the workspace holds besides the scenario tables (kept as they are on a save)."""
        if not self.exists():
            return {}
        found = {}
        for name, geometry_type in pyogrio.list_layers(self.path):
            if name not in TABLES:
                found[str(name)] = (self.table(str(name)), geometry_type or None)
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
            f"{self.path}: expected {asked} among the workspace's scenarios, found: {found}"
        )

    def table(self, name: str) -> pd.DataFrame:
        """One layer of the workspace, every scenario's rows (a GeoDataFrame if it has shapes)."""
        try:
            frame: pd.DataFrame = pyogrio.read_dataframe(self.path, layer=name)
        except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as error:
            raise WorkspaceError(f"{self.path}: cannot read layer {name!r} ({error})") from error
        return frame

    def _meta(self, scenario_id: str, log: ProblemLog) -> dict[str, Any]:
        table = self.table(SCENARIOS_LAYER)
        row = _cells(table[table[SCENARIO_ID] == scenario_id])[0]
        row["id"] = row.pop(SCENARIO_ID)
        spot = Spot(f"{self.path.name}:{SCENARIOS_LAYER}", f"scenario {scenario_id!r}")
        return f.parse_fields(row, meta_fields(), spot, log) or {}

    def _raws(self, layer: Layer, scenario_id: str) -> list[s.RawRecord]:
        table = self.table(layer.kind.name)
        rows = table[table[SCENARIO_ID] == scenario_id]
        geometries = list(rows.geometry) if layer.geometry_type else [None] * len(rows)
        raws = []
        for cells, geometry in zip(_cells(rows), geometries, strict=True):
            spot = Spot(f"{self.path.name}:{layer.kind.name}", f"id {cells.get('id')!r}")
            if layer.kind in POINT_KINDS and geometry is not None:
                cells["longitude"], cells["latitude"] = geometry.x, geometry.y
                geometry = None
            raws.append(s.RawRecord(spot, cells, geometry))
        return raws


def _cells(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as plain Python values: missing values None, timestamps timezone-aware datetimes."""
    columns = [column for column in frame.columns if column != "geometry"]
    rows = []
    for values in frame[columns].itertuples(index=False, name=None):
        rows.append({column: _plain(value) for column, value in zip(columns, values, strict=True)})
    return rows


def _plain(value: object) -> object:
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):  # type: ignore[call-overload]
        return None
    if isinstance(value, pd.Timestamp):
        moment = value.to_pydatetime()
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return value


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
    row["imported_at"] = datetime.now(UTC)
    return _typed(pd.DataFrame([row]), {"start", "end", "imported_at"})


def _frame(records: tuple[Any, ...], layer: Layer, scenario_id: str) -> pd.DataFrame:
    fields = layer.kind.fields(s.Known())
    names = [SCENARIO_ID, *(spec.name for spec in fields)]
    rows = [{SCENARIO_ID: scenario_id, **s.to_cells(record, layer.kind)} for record in records]
    frame = _typed(pd.DataFrame(rows, columns=names), _moment_columns(fields))
    if layer.geometry_type is None:
        return frame
    geometry = gpd.GeoSeries([_geometry(record) for record in records], crs=CRS)
    spatial: pd.DataFrame = gpd.GeoDataFrame(frame, geometry=geometry, crs=CRS)
    return spatial


def _moment_columns(fields: list[f.Field]) -> set[str]:
    return {spec.name for spec in fields if spec.parse is f.moment}


def _typed(frame: pd.DataFrame, moments: set[str]) -> pd.DataFrame:
    for column in frame.columns:
        if column in moments:
            frame[column] = pd.to_datetime(frame[column], utc=True).astype("datetime64[ms, UTC]")
        elif frame[column].dtype == object or str(frame[column].dtype) == "str":
            frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame


def _geometry(record: Any) -> shapely.Geometry:
    if isinstance(record, Place | Event):
        return shapely.Point(record.longitude, record.latitude)
    return record.geometry


def _without(frame: pd.DataFrame | None, scenario_id: str) -> pd.DataFrame | None:
    if frame is None:
        return None
    return frame[frame[SCENARIO_ID] != scenario_id]


def _concat(kept: pd.DataFrame | None, fresh: pd.DataFrame) -> pd.DataFrame:
    if kept is None or kept.empty:
        return fresh
    combined = pd.concat([kept, fresh], ignore_index=True)
    if isinstance(fresh, gpd.GeoDataFrame):
        spatial: pd.DataFrame = gpd.GeoDataFrame(combined, geometry="geometry", crs=CRS)
        return spatial
    return combined


def _write(frame: pd.DataFrame, path: Path, layer: str, geometry_type: str | None) -> None:
    options: dict[str, Any] = {"driver": "GPKG", "layer": layer}
    if geometry_type:
        options.update(geometry_type=geometry_type, promote_to_multi=False)
    try:
        pyogrio.write_dataframe(frame, path, **options)
    except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError, OSError) as error:
        raise WorkspaceError(f"{path}: cannot write layer {layer!r} ({error})") from error


POSITIONS_LAYER = "positions"


def add_positions(workspace: Workspace, scenario_id: str, positions: list[Any]) -> int:
    """Append position reports (geo.tracking.Position) to the workspace's positions layer."""
    if not positions:
        return 0
    rows = [
        {SCENARIO_ID: scenario_id, "convoy": p.convoy, "time": p.time, "latitude": p.latitude,
         "longitude": p.longitude, "speed_kmh": p.speed_kmh, "note": p.note}
        for p in positions
    ]  # fmt: skip
    frame = _typed(pd.DataFrame(rows), {"time"})
    points = gpd.points_from_xy(frame["longitude"], frame["latitude"], crs=CRS)
    spatial = gpd.GeoDataFrame(frame, geometry=points, crs=CRS)
    with workspace.transaction():  # not while another writer swaps the file
        present = POSITIONS_LAYER in _layer_names(workspace.path)
        pyogrio.write_dataframe(spatial, workspace.path, layer=POSITIONS_LAYER, driver="GPKG",
                                geometry_type="Point", append=present)  # fmt: skip
    return len(rows)


def positions(workspace: Workspace, scenario_id: str) -> list[Any]:
    """The scenario's position reports kept in the workspace, oldest first."""
    from geo.tracking import Position

    if not workspace.exists() or POSITIONS_LAYER not in _layer_names(workspace.path):
        return []
    table = workspace.table(POSITIONS_LAYER)
    table = table[table[SCENARIO_ID] == scenario_id]
    found = [
        Position(str(row["convoy"]), row["time"], float(row["latitude"]), float(row["longitude"]),
                 row["speed_kmh"], str(row["note"] or ""))
        for row in _cells(table)
    ]  # fmt: skip
    return sorted(found, key=lambda position: position.time)


GEOCODE_CACHE_LAYER = "geocode_cache"


class GeocodeCache(MutableMapping[str, dict[str, Any] | None]):
    """Online geocoder answers kept in the workspace, so each name is asked only once.

    A key is ``provider:normalised name``; a value is the answer's Location.raw, or None for
    "the service knows no such place". Every new answer is appended to the layer at once.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._answers: dict[str, dict[str, Any] | None] = {}
        if workspace.exists() and GEOCODE_CACHE_LAYER in _layer_names(workspace.path):
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
        with self.workspace.transaction():  # not while another writer swaps the file
            pyogrio.write_dataframe(
                frame, self.workspace.path, layer=GEOCODE_CACHE_LAYER, driver="GPKG", append=True
            )
        self._answers[key] = value

    def __delitem__(self, key: str) -> None:
        raise WorkspaceError(f"{self.workspace.path}: the geocode cache only grows")

    def __iter__(self) -> Iterator[str]:
        return iter(self._answers)

    def __len__(self) -> int:
        return len(self._answers)


def _layer_names(path: Path) -> set[str]:
    try:
        return {str(name) for name, _ in pyogrio.list_layers(path)}
    except pyogrio.errors.DataSourceError as error:
        raise WorkspaceError(f"{path}: not a readable GeoPackage ({error})") from error
