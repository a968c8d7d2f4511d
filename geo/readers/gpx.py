"""GPX files: waypoints, tracks and routes as raw records (a track's segments one line)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from shapely.geometry import LineString, Point

from geo._fields import Spot
from geo._schema import RawRecord
from geo.errors import ProblemLog
from geo.readers.base import Table, tables
from geo.readers.safezip import ZipLimits
from geo.readers.text import xml_root

SUFFIXES = {".gpx": "gpx"}
"""The names this module reads, and the format each is."""
WAYPOINTS, TRACKS, ROUTES = "waypoints", "tracks", "routes"


@dataclass(frozen=True)
class _Vertex:
    lon: float
    lat: float
    time: str


def read(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    """A GPX file (1.1, 1.0 or no namespace) as tables by layer; elevations are not read, the
    maps being two-dimensional, and `limits` is not used."""
    root = xml_root(path, file, "gpx", log)
    return [] if root is None else tables(items(root, file, log), layer, log)


def items(root: Element, file: str, log: ProblemLog) -> list[tuple[str, RawRecord]]:
    """(WAYPOINTS, TRACKS or ROUTES, raw record) for every wpt, trk and rte, in that order."""
    found: list[tuple[str, RawRecord]] = []
    for number, waypoint in enumerate(root.iterfind("wpt"), start=1):
        spot = _spot(file, "waypoint", number, waypoint)
        vertex = _vertex(waypoint, spot, "", log)
        if vertex:
            cells = {**_texts(waypoint), "time": vertex.time} if vertex.time else _texts(waypoint)
            found.append((WAYPOINTS, RawRecord(spot, cells, Point(vertex.lon, vertex.lat))))
    for source, lines in ((TRACKS, _tracks(root, file)), (ROUTES, _routes(root, file))):
        for spot, element, points in lines:
            raw = _line(element, points, spot, log)
            if raw:
                found.append((source, raw))
    return found


def tracks(root: Element) -> Iterator[tuple[int, Element, list[Element]]]:
    """Each <trk>: its number (from 1), the element, and the points of all its segments."""
    for number, track in enumerate(root.iterfind("trk"), start=1):
        yield number, track, track.findall("trkseg/trkpt")


def _tracks(root: Element, file: str) -> Iterator[tuple[Spot, Element, list[Element]]]:
    for number, track, points in tracks(root):
        yield _spot(file, "track", number, track), track, points


def _routes(root: Element, file: str) -> Iterator[tuple[Spot, Element, list[Element]]]:
    for number, route in enumerate(root.iterfind("rte"), start=1):
        yield _spot(file, "route", number, route), route, route.findall("rtept")


def point_cells(point: Element) -> dict[str, Any]:
    """A point's cells as written: latitude, longitude, time and its description as note."""
    return {
        "latitude": point.get("lat"),
        "longitude": point.get("lon"),
        "time": child_text(point, "time"),
        "note": child_text(point, "desc"),
    }


def _spot(file: str, noun: str, number: int, element: Element) -> Spot:
    name = child_text(element, "name")
    return Spot(file, f"{noun} #{number}" + (f" {name!r}" if name else ""))


def child_text(element: Element, tag: str) -> str:
    """The stripped text of an element's first child with this tag; "" when there is none."""
    child = element.find(tag)
    return (child.text or "").strip() if child is not None else ""


def _texts(element: Element) -> dict[str, Any]:
    cells: dict[str, Any] = {"name": child_text(element, "name")}
    if description := child_text(element, "desc"):
        cells["quote"] = description
    return cells


def _line(element: Element, points: list[Element], spot: Spot, log: ProblemLog) -> RawRecord | None:
    vertices = []
    for number, point in enumerate(points, start=1):
        vertex = _vertex(point, spot, f"point #{number} ", log)
        if vertex:
            vertices.append(vertex)
    if len(vertices) < 2:
        log.error(spot.file, spot.where, "geometry", "at least 2 points", f"{len(vertices)}")
        return None
    line = LineString([(vertex.lon, vertex.lat) for vertex in vertices])
    return RawRecord(spot, _line_cells(element, vertices), line)


def _line_cells(element: Element, vertices: list[_Vertex]) -> dict[str, Any]:
    cells = {**_texts(element), "points": len(vertices)}
    if vertices[0].time:
        cells["started"] = vertices[0].time
    if vertices[-1].time:
        cells["ended"] = vertices[-1].time
    return cells


def _vertex(point: Element, spot: Spot, prefix: str, log: ProblemLog) -> _Vertex | None:
    cells = point_cells(point)
    try:
        lat, lon = float(cells["latitude"] or ""), float(cells["longitude"] or "")
    except ValueError:
        actual = f"lat={cells['latitude']!r}, lon={cells['longitude']!r}"
        log.error(spot.file, spot.where, prefix + "lat/lon", "numbers in degrees", actual)
        return None
    if not (-90 <= lat <= 90 and -180 <= lon <= 180) or math.isnan(lat + lon):
        actual = f"lat={lat:g}, lon={lon:g}"
        expected = "a latitude from -90 to 90 and a longitude from -180 to 180"
        log.error(spot.file, spot.where, prefix + "lat/lon", expected, actual)
        return None
    return _Vertex(lon, lat, _iso(cells["time"]))


def _iso(value: str) -> str:
    """A GPX time (ISO 8601, often ending in Z) as ISO text with its offset; other text as is."""
    try:
        return datetime.fromisoformat(value).isoformat()
    except ValueError:
        return value
