"""KML files: placemarks as raw records (name, description, extended data, geometry) by folder."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

import shapely
from shapely.geometry import LineString, MultiLineString, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry

from geo._fields import Spot
from geo._schema import RawRecord
from geo.errors import ProblemLog
from geo.readers.base import Table, tables
from geo.readers.safezip import ZipLimits
from geo.readers.text import xml_root

SUFFIXES = {".kml": "kml"}
"""The names this module reads, and the format each is (a .kmz is a zip: see `zipped`)."""
COMMA = re.compile(r"\s*,\s*")
ANY_GEOMETRY = "a Point, LineString, Polygon, MultiGeometry or gx:Track"
GEOMETRIES = ("Point", "LineString", "LinearRing", "Polygon", "MultiGeometry", "Track",
              "MultiTrack")  # fmt: skip


class KmlGeometryError(ValueError):
    """A KML geometry that cannot be read: what was expected and what was found."""

    def __init__(self, expected: str, actual: object) -> None:
        super().__init__(expected)
        self.expected = expected
        self.actual = actual


def read(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    """A KML file's placemarks as tables by layer (parsed with defusedxml, the namespace
    `{http://www.opengis.net/kml/2.2}` stripped, or none found); `limits` is not used."""
    root = xml_root(path, file, "kml", log)
    return [] if root is None else tables(placemarks(root, file, log), layer, log)


def placemarks(root: Element, file: str, log: ProblemLog) -> list[tuple[str, RawRecord]]:
    """(folder name, raw record) for every Placemark, in document order; problems go to `log`."""
    found: list[tuple[str, RawRecord]] = []
    for link in root.iter("NetworkLink"):
        href = _child_text(link, "Link/href") or _child_text(link, "Url/href")
        expected = "placemarks in the file (a NetworkLink is not followed: nothing is fetched)"
        log.warn(file, "", "NetworkLink", expected, href or _child_text(link, "name"))
    for number, (folder, placemark) in enumerate(_walk(root, ""), start=1):
        label = _child_text(placemark, "name")
        spot = Spot(file, f"placemark #{number}" + (f" {label!r}" if label else ""))
        try:
            geometry = _placemark_geometry(placemark)
        except KmlGeometryError as error:
            log.error(file, spot.where, "geometry", error.expected, error.actual)
            continue
        found.append((folder, RawRecord(spot, _cells(placemark), geometry)))
    return found


def _walk(element: Element, folder: str) -> Iterator[tuple[str, Element]]:
    for child in element:
        if child.tag == "Placemark":
            yield folder, child
        elif child.tag in ("Folder", "Document", "kml"):
            inner = _child_text(child, "name") if child.tag == "Folder" else ""
            yield from _walk(child, inner or folder)


def _child_text(element: Element, tag: str) -> str:
    child = element.find(tag)
    return (child.text or "").strip() if child is not None else ""


def _cells(placemark: Element) -> dict[str, Any]:
    cells: dict[str, Any] = {"name": _child_text(placemark, "name")}
    description = _child_text(placemark, "description")
    if description:
        cells["quote"] = description
    for data in placemark.iterfind("ExtendedData/Data"):
        cells[data.get("name", "")] = _child_text(data, "value")
    for data in placemark.iterfind("ExtendedData/SchemaData/SimpleData"):
        cells[data.get("name", "")] = (data.text or "").strip()
    cells.pop("", None)
    return cells


def _placemark_geometry(placemark: Element) -> BaseGeometry:
    elements = [child for child in placemark if child.tag in GEOMETRIES]
    if not elements:
        others = [child.tag for child in placemark if child.tag not in _NOT_GEOMETRY]
        raise KmlGeometryError(ANY_GEOMETRY, ", ".join(others) or None)
    return _geometry(elements[0])


_NOT_GEOMETRY = {"name", "description", "ExtendedData", "styleUrl", "Style", "StyleMap",
                 "visibility", "open", "address", "Snippet", "TimeStamp", "TimeSpan",
                 "LookAt", "Camera", "Region", "atom", "author", "link", "phoneNumber"}  # fmt: skip
"""Placemark children that are no geometry (so an unknown shape's tag is what is named)."""


def _geometry(element: Element) -> BaseGeometry:
    if element.tag == "Point":
        return Point(_coordinates(element, minimum=1)[0])
    if element.tag in ("LineString", "LinearRing"):
        return LineString(_coordinates(element, minimum=2))
    if element.tag == "Polygon":
        return _polygon(element)
    if element.tag == "MultiGeometry":
        return _multi([_geometry(child) for child in element if child.tag in GEOMETRIES])
    if element.tag == "Track":
        return _track(element)
    if element.tag == "MultiTrack":
        return _multi([_track(child) for child in element if child.tag == "Track"])
    raise KmlGeometryError(ANY_GEOMETRY, element.tag)


def _track(element: Element) -> BaseGeometry:
    """A gx:Track: its gx:coord points ('lon lat [alt]', space-separated) as a line."""
    points = []
    for coord in element.iter("coord"):
        parts = (coord.text or "").split()
        try:
            points.append((float(parts[0]), float(parts[1])))
        except (IndexError, ValueError):
            expected = "gx:coord as 'longitude latitude [altitude]'"
            raise KmlGeometryError(expected, coord.text) from None
    if len(points) == 1:
        return Point(points[0])
    if not points:
        raise KmlGeometryError("a gx:Track with gx:coord points", None)
    return LineString(points)


def _polygon(element: Element) -> Polygon:
    outer = element.find("outerBoundaryIs/LinearRing")
    if outer is None:
        raise KmlGeometryError("a Polygon with an outerBoundaryIs LinearRing", None)
    holes = [
        _coordinates(ring, minimum=4) for ring in element.iterfind("innerBoundaryIs/LinearRing")
    ]
    return Polygon(_coordinates(outer, minimum=4), holes)


def _multi(members: list[BaseGeometry]) -> BaseGeometry:
    """Polygons as one (Multi)Polygon, lines as one MultiLineString (the reader merges it)."""
    parts = list(shapely.get_parts(members))
    kinds = {part.geom_type for part in parts}
    if len(parts) == 1:
        return parts[0]
    if kinds == {"Polygon"}:
        return MultiPolygon(parts)
    if kinds == {"LineString"}:
        return MultiLineString(parts)
    actual = ", ".join(sorted(kinds))
    raise KmlGeometryError("a MultiGeometry of polygons only or of lines only", actual)


def _coordinates(element: Element, *, minimum: int) -> list[tuple[float, float]]:
    """The lon,lat[,alt] tuples of an element's <coordinates> as (lon, lat) in degrees."""
    raw = _child_text(element, "coordinates")
    points = []
    for item in COMMA.sub(",", raw).split():
        parts = item.split(",")
        try:
            lon, lat = float(parts[0]), float(parts[1])
        except (IndexError, ValueError):
            raise KmlGeometryError("coordinates as lon,lat[,alt]", item) from None
        if not (-180 <= lon <= 180 and -90 <= lat <= 90):
            raise KmlGeometryError("longitude,latitude in degrees", item)
        points.append((lon, lat))
    if len(points) < minimum:
        noun = "coordinate" if minimum == 1 else "coordinates"
        raise KmlGeometryError(f"at least {minimum} {noun} in a {element.tag}", len(points))
    return points
