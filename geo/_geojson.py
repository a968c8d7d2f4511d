"""Reading GeoJSON FeatureCollections feature by feature, with CRS handling and geometry checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyproj
import shapely
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

from geo._fields import Spot
from geo.errors import ProblemLog

WGS84 = pyproj.CRS.from_epsg(4326)
PROJECTED_HINT = (
    "longitude/latitude in degrees (EPSG:4326), or a 'crs' member naming the projection "
    "these coordinates are in"
)


@dataclass(frozen=True)
class RawFeature:
    """One feature as read: where it is, its properties and its geometry in EPSG:4326."""

    spot: Spot
    properties: dict[str, Any]
    geometry: BaseGeometry | None


def read_features(path: Path, log: ProblemLog) -> list[RawFeature]:
    """Every feature of a FeatureCollection; problems with the file or a feature go to `log`."""
    name = path.name
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        log.error(name, "", "", "a readable GeoJSON FeatureCollection", str(error))
        return []
    except RecursionError:
        log.error(name, "", "", "GeoJSON nested as geometries are", "arrays nested past any depth")
        return []
    if not isinstance(document, dict) or document.get("type") != "FeatureCollection":
        kind = document.get("type") if isinstance(document, dict) else type(document).__name__
        log.error(name, "", "type", "a GeoJSON FeatureCollection", kind)
        return []
    transformer = _transformer(document.get("crs"), name, log)
    if transformer is False:
        return []
    projection = None if transformer is True else transformer
    features = document.get("features")
    if not isinstance(features, list):
        log.error(name, "", "features", "a list of features", features)
        return []
    return list(_each_feature(features, name, projection, log))


def _each_feature(
    features: list[Any], name: str, transformer: pyproj.Transformer | None, log: ProblemLog
) -> Iterator[RawFeature]:
    for number, feature in enumerate(features, start=1):
        if not isinstance(feature, dict) or feature.get("type") != "Feature":
            log.error(name, f"feature #{number}", "type", "a GeoJSON Feature", feature)
            continue
        properties = feature.get("properties") or {}
        label = properties.get("id") if isinstance(properties, dict) else None
        spot = Spot(name, f"feature #{number}" + (f" (id {label!r})" if label else ""))
        if not isinstance(properties, dict):
            log.error(name, spot.where, "properties", "an object of properties", properties)
            continue
        geometry = _geometry(feature.get("geometry"), spot, transformer, log)
        yield RawFeature(spot, properties, geometry)


def _geometry(
    raw: object, spot: Spot, transformer: pyproj.Transformer | None, log: ProblemLog
) -> BaseGeometry | None:
    if raw is None:
        log.error(spot.file, spot.where, "geometry", "a geometry", None)
        return None
    try:
        geometry = shape(raw)
    except Exception as error:  # noqa: BLE001 - shapely raises many kinds on malformed input
        actual = f"{raw!r:.80} ({error})"
        log.error(spot.file, spot.where, "geometry", "a valid GeoJSON geometry", actual)
        return None
    if geometry.is_empty:
        log.error(spot.file, spot.where, "geometry", "a non-empty geometry", "an empty one")
        return None
    if transformer is not None:
        return shapely.transform(geometry, _projector(transformer))
    if not _in_degrees(geometry):
        x, y, *_ = shapely.get_coordinates(geometry)[0]
        log.error(spot.file, spot.where, "geometry", PROJECTED_HINT, f"x={x:g}, y={y:g}")
        return None
    return geometry


def _projector(transformer: pyproj.Transformer) -> Any:
    def project(coords: Any) -> Any:
        x, y = transformer.transform(coords[:, 0], coords[:, 1])
        coords[:, 0], coords[:, 1] = x, y
        return coords

    return project


def _in_degrees(geometry: BaseGeometry) -> bool:
    minx, miny, maxx, maxy = geometry.bounds
    return bool(-180 <= minx <= maxx <= 180 and -90 <= miny <= maxy <= 90)


def _transformer(crs: object, name: str, log: ProblemLog) -> pyproj.Transformer | bool:
    """True when the file is in EPSG:4326, a Transformer to it otherwise, False on a bad crs."""
    if crs is None:
        return True
    try:
        crs_name = crs["properties"]["name"]  # type: ignore[index]
        source = pyproj.CRS.from_user_input(crs_name)
    except (KeyError, TypeError, pyproj.exceptions.CRSError):
        log.error(
            name,
            "",
            "crs",
            "a crs member such as {'type': 'name', 'properties': {'name': 'EPSG:3857'}}",
            crs,
        )
        return False
    if source.equals(WGS84, ignore_axis_order=True):
        return True
    return pyproj.Transformer.from_crs(source, WGS84, always_xy=True)


def geometry_problem(geometry: BaseGeometry, allowed: tuple[str, ...]) -> tuple[str, str] | None:
    """(expected, actual) when a geometry has the wrong type or is invalid, else None."""
    if geometry.geom_type not in allowed:
        return " or ".join(allowed), geometry.geom_type
    if not geometry.is_valid:
        return f"a valid {geometry.geom_type}", shapely.is_valid_reason(geometry)
    return None


def feature_collection(features: list[dict[str, Any]]) -> str:
    """A FeatureCollection as stable, readable JSON text (one feature per line)."""
    lines = ",\n".join(json.dumps(feature, ensure_ascii=False) for feature in features)
    return '{"type": "FeatureCollection", "features": [\n' + lines + "\n]}\n"


EXPORT_DECIMALS = 6
"""Coordinates in exported GeoJSON: 6 decimals, about 0.1 m (RFC 7946, section 11.2)."""


def rfc7946(geometry: BaseGeometry, decimals: int | None = EXPORT_DECIMALS) -> dict[str, Any]:
    """A geometry as RFC 7946 wants it: exterior rings anticlockwise, holes clockwise (section
    3.1.6), coordinates rounded to `decimals` (None: as they are)."""
    oriented = shapely.orient_polygons(geometry)
    if decimals is not None:
        oriented = shapely.transform(oriented, lambda xy: np.round(xy, decimals))
    return dict(mapping(oriented))


def feature(properties: dict[str, Any], geometry: BaseGeometry) -> dict[str, Any]:
    return {"type": "Feature", "properties": properties, "geometry": mapping(geometry)}
