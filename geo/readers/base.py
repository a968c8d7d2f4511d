"""What every reader answers: the layers, `Table`, `Reader`, and features placed in layers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, MultiLineString
from shapely.geometry.base import BaseGeometry

from geo._fields import Spot
from geo._schema import RawRecord
from geo.errors import ProblemLog
from geo.readers.safezip import ZipLimits

LAYERS = ("places", "convoys", "figures", "routes", "zones", "events")

POINT, LINE, POLYGON = "a Point", "a LineString", "a Polygon or MultiPolygon"
GEOMETRY_KIND = {
    "Point": POINT,
    "LineString": LINE,
    "MultiLineString": LINE,
    "Polygon": POLYGON,
    "MultiPolygon": POLYGON,
}
LAYER_GEOMETRY: dict[str, str | None] = {
    "places": POINT,
    "events": POINT,
    "routes": LINE,
    "zones": POLYGON,
    "convoys": None,
    "figures": None,
}
GUESS = {POINT: "places", LINE: "routes", POLYGON: "zones"}


@dataclass(frozen=True)
class Table:
    """Raw rows of one layer, and the part of the file they came from."""

    layer: str
    rows: list[RawRecord]
    source_layer: str = ""
    """The GeoPackage layer, Shapefile, KML folder or GPX part ("tracks"…) read, if any."""


Reader = Callable[[Path, str, str | None, ProblemLog, ZipLimits], list[Table]]
"""A format's reader: (path, the file's name as the user knows it, the layer to read every row
as or None to guess, the log every problem goes to, a zip's limits) -> its tables."""


def suffix_of(name: str) -> str:
    """A file name's suffix in lower case, by which its format is told (".csv"; "" for none)."""
    return PurePosixPath(name).suffix.lower()


def row_spot(file: str, where: str, cells: dict[str, Any]) -> Spot:
    """Where a row or feature is, with its id when it has one ("row 3 (id 'P1')")."""
    label = cells.get("id")
    label = label.strip() if isinstance(label, str) else label
    return Spot(file, where + (f" (id {label!r})" if label not in (None, "") else ""))


def tables(
    pairs: Iterable[tuple[str, RawRecord]], layer: str | None, log: ProblemLog
) -> list[Table]:
    """Raw records grouped by layer (given, or guessed from each geometry) and source layer,
    each placed as its layer keeps it; what fits no layer is logged, not kept."""
    grouped: dict[tuple[str, str], list[RawRecord]] = {}
    for source, raw in pairs:
        placed = _placed(raw, layer, log)
        if placed:
            grouped.setdefault((placed[0], source), []).append(placed[1])
    found = [Table(name, rows, source) for (name, source), rows in grouped.items()]
    return sorted(found, key=lambda table: LAYERS.index(table.layer))


def _placed(raw: RawRecord, layer: str | None, log: ProblemLog) -> tuple[str, RawRecord] | None:
    """(layer, record) with its geometry as that layer keeps it; None (logged) when it fits none."""
    spot = raw.spot
    geometry = None if raw.geometry is None else shapely.force_2d(raw.geometry)
    if geometry is not None and (geometry.is_empty or not _finite(geometry)):
        found = f"an empty {geometry.geom_type}" if geometry.is_empty else "infinite coordinates"
        log.error(spot.file, spot.where, "geometry", "a non-empty geometry", found)
        return None
    kind = GEOMETRY_KIND.get(geometry.geom_type) if geometry is not None else None
    target = layer or GUESS.get(kind or "")
    actual = geometry.geom_type if geometry is not None else None
    if target is None:
        log.error(spot.file, spot.where, "geometry", "a Point, LineString or Polygon", actual)
        return None
    wanted = LAYER_GEOMETRY[target]
    if kind != wanted and not (kind is None and wanted == POINT):
        expected = f"{wanted or 'no geometry'} (for the {target} layer)"
        log.error(spot.file, spot.where, "geometry", expected, actual)
        return None
    kept = _kept(raw, geometry, log)
    return (target, kept) if kept else None


def _finite(geometry: BaseGeometry) -> bool:
    return bool(np.isfinite(shapely.get_coordinates(geometry)).all())


def _kept(raw: RawRecord, geometry: BaseGeometry | None, log: ProblemLog) -> RawRecord | None:
    if geometry is None:
        return RawRecord(raw.spot, raw.cells, None)
    if geometry.geom_type == "Point":
        cells = {**raw.cells, "latitude": geometry.y, "longitude": geometry.x}
        return RawRecord(raw.spot, cells, None)
    if isinstance(geometry, MultiLineString):
        merged = shapely.line_merge(geometry)
        geometry = merged if isinstance(merged, LineString) else geometry
    elif not geometry.is_valid and geometry.geom_type in ("Polygon", "MultiPolygon"):
        repaired = _repaired(geometry, raw.spot, log)
        if repaired is None:
            return None
        geometry = repaired
    return RawRecord(raw.spot, raw.cells, geometry)


def _repaired(geometry: BaseGeometry, spot: Spot, log: ProblemLog) -> BaseGeometry | None:
    """The polygonal part of `make_valid(geometry)`, with a warning saying what was wrong."""
    reason = shapely.is_valid_reason(geometry)
    parts = [
        part
        for part in shapely.get_parts(shapely.make_valid(geometry))
        if part.geom_type in ("Polygon", "MultiPolygon")
    ]
    if not parts:
        log.error(spot.file, spot.where, "geometry", "a polygon with an area", reason)
        return None
    expected = "a valid polygon (repaired: only the polygonal part of make_valid is kept)"
    log.warn(spot.file, spot.where, "geometry", expected, reason)
    polygonal: BaseGeometry = shapely.unary_union(parts)
    return polygonal
