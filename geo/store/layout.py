"""The workspace's layer layout: layer names, their geometry types, id and time fields."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from geo import _schema as s
from geo.records import Position

SCENARIO_ID = "scenario_id"
FID = "fid"
"""The feature id column GDAL gives a GeoPackage's layer (and PostGIS a table)."""
SCENARIOS_LAYER = "scenarios"
CRS = "EPSG:4326"
BATCH_ROWS = 65_536
"""Rows written at once when a write streams (the events a commit adds, its change-log rows):
1,000,000 events made one frame, and their log one JSON text, took 1 GB more at the write."""


def slices(size: int) -> list[slice]:
    """The slices that cut `size` rows into batches of BATCH_ROWS (one, empty, when none)."""
    return [slice(i, min(i + BATCH_ROWS, size)) for i in range(0, max(size, 1), BATCH_ROWS)]


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
GEOMETRY_OF = {layer.kind.name: layer.geometry_type for layer in LAYERS}
"""Each scenario layer's geometry type (None: a plain table)."""

POSITIONS_LAYER = "positions"
POSITION_FIELDS = (SCENARIO_ID, "convoy", "time", "latitude", "longitude", "speed_kmh", "note")
"""The positions layer's fields, in the order they are written."""
TIME_FIELDS = {s.EVENTS.name: "date", POSITIONS_LAYER: "time"}
"""The large layers read by time window (`geo.store.windows`), and each one's time field."""
GEOCODE_CACHE_LAYER = "geocode_cache"
GEOMETRY = "geom"
"""The geometry column (WKB) of a PostGIS table and of a layer as copied (`export_layers`)."""

assert list(POSITION_FIELDS[1:]) == [field.name for field in dataclasses.fields(Position)]


@dataclass(frozen=True)
class LayerInfo:
    """What a layer is besides its rows: its geometry type (OGR's name), or None for a table."""

    name: str
    geometry_type: str | None


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
