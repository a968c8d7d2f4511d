"""GeoJSON files (a FeatureCollection, a Feature or a bare geometry) read feature by feature."""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from geo._fields import Spot
from geo._geojson import read_features
from geo._schema import RawRecord
from geo.errors import ProblemLog
from geo.readers.base import Table, tables
from geo.readers.safezip import ZipLimits
from geo.readers.text import replay

SUFFIXES = {".geojson": "geojson", ".json": "geojson"}
"""The names this module reads, and the format each is."""

GEOMETRY_TYPES = frozenset({
    "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon",
    "GeometryCollection",
})  # fmt: skip


def read(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    """A GeoJSON file's features as tables by layer (each guessed from its geometry when
    `layer` is None); `limits` is not used."""
    try:
        document = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        log.error(file, "", "", "a readable GeoJSON file", str(error))
        return []
    except RecursionError:
        log.error(file, "", "", "GeoJSON nested as geometries are", "arrays nested past any depth")
        return []
    collection = _as_collection(document)
    if collection is None:
        kind = document.get("type") if isinstance(document, dict) else type(document).__name__
        log.error(file, "", "type", "a GeoJSON FeatureCollection, Feature or geometry", kind)
        return []
    inner = ProblemLog()
    with tempfile.TemporaryDirectory(prefix="corridor-") as folder:
        copy = Path(folder) / "features.geojson"
        copy.write_text(json.dumps(collection), encoding="utf-8")
        features = read_features(copy, inner)
    replay((replace(problem, file=file) for problem in inner), log)
    pairs = [
        ("", RawRecord(Spot(file, feature.spot.where), feature.properties, feature.geometry))
        for feature in features
        if feature.geometry is not None  # read_features logged why it has none
    ]
    return tables(pairs, layer, log)


def _as_collection(document: object) -> dict[str, Any] | None:
    """A FeatureCollection as it is; a single Feature or a bare geometry wrapped in one."""
    if not isinstance(document, dict):
        return None
    kind = document.get("type")
    crs = {"crs": document["crs"]} if "crs" in document else {}
    if kind == "FeatureCollection":
        return document
    if kind == "Feature":
        return {"type": "FeatureCollection", **crs, "features": [document]}
    if isinstance(kind, str) and kind in GEOMETRY_TYPES:  # a list or object is no type name
        geometry = {key: value for key, value in document.items() if key != "crs"}
        feature = {"type": "Feature", "properties": {}, "geometry": geometry}
        return {"type": "FeatureCollection", **crs, "features": [feature]}
    return None
