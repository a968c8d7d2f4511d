"""What a map export frames: the story at its moment (the map's first view), or a view: the one
on screen in the dashboard, or one asked for on the command line.

Only the map's frame changes with the extent (HTML, PNG, PDF). The data exports (GeoJSON,
GeoPackage, CSV) keep what is shown at the moment after the filters, wherever it lies: a
record just outside the frame is still part of the story, and a table cut at a window's edge
would lose convoys whose route leaves it.
"""

from __future__ import annotations

import math
from typing import Any

from geo.errors import Problem, ValidationError
from geo.mapview.viewport import Bounds, ViewRequest

VIEW_TOKEN = "view"
"""The token of an exported view (the page's map says it in data-corridor-view)."""
STORY_NOTE = "Extent: the story frame"
SCREEN_NOTE = "Extent: the view on screen"
ASKED_NOTE = "Extent: the view asked for"
CHOICES = {"view": "The view on screen", "story": "The story frame"}
"""The dashboard's choice of extent, as it names them (in its language, through messages)."""
MIN_ZOOM, MAX_ZOOM = 4.0, 18.0
"""The zoom levels the map allows (geo.mapview.build_map)."""
SAME_ZOOM = 0.25
"""Zooms closer than this are the same view (a picture snaps to quarter levels)."""


def on_screen(reported: dict[str, Any] | None) -> ViewRequest | None:
    """The view the browser reported (geo.mapview.reported_view) as a frame to export: its
    centre and zoom, so that a page of another size shows the same place at the same scale;
    None before the map has reported one."""
    if not reported or reported.get("center") is None or reported.get("zoom") is None:
        return None
    lat, lon = reported["center"]
    return ViewRequest(
        VIEW_TOKEN,
        bounds=reported.get("bounds"),
        center=(float(lat), float(lon)),
        zoom=float(reported["zoom"]),
    )


def holds(reported: dict[str, Any] | None, bounds: Bounds | None) -> bool:
    """Whether the reported view has all of `bounds` inside it (a frame fitted to them does)."""
    shown = (reported or {}).get("bounds")
    if not shown or not bounds:
        return False
    (south, west), (north, east) = ((float(v) for v in corner) for corner in shown)
    (inner_south, inner_west), (inner_north, inner_east) = bounds
    slack = 1e-4
    return (
        south - slack <= inner_south
        and west - slack <= inner_west
        and inner_north <= north + slack
        and inner_east <= east + slack
    )


def shows_story(
    request: ViewRequest,
    story: ViewRequest,
    reported: dict[str, Any] | None,
    fitted: dict[str, Any] | None,
) -> bool:
    """Whether the map on screen shows the story frame: it was asked for the story's bounds
    (no centre or zoom of its own), it still holds them, and it is at the zoom it was fitted
    at (`fitted`, the first view it reported holding them). Before any report it does."""
    if reported is None:
        return True
    asked_story = request.center is None and request.zoom is None
    asked_story = asked_story and _rounded(request.bounds) == _rounded(story.bounds)
    if not asked_story or not holds(reported, story.bounds):
        return False
    return fitted is None or abs(float(reported["zoom"]) - float(fitted["zoom"])) < SAME_ZOOM


def default_choice(
    request: ViewRequest,
    story: ViewRequest,
    reported: dict[str, Any] | None,
    fitted: dict[str, Any] | None,
) -> str:
    """The extent an export panel offers first: "view" once the user has moved the map away
    from the story frame, else "story" (keys of CHOICES)."""
    return "story" if shows_story(request, story, reported, fitted) else "view"


def _rounded(bounds: Bounds | None) -> list[list[float]] | None:
    return None if bounds is None else [[round(v, 6) for v in corner] for corner in bounds]


# --- the command line's extent ----------------------------------------------------------------


def asked(
    *, bbox: str | None, center: str | None, zoom: str | None, story: Bounds
) -> ViewRequest | None:
    """The frame `--bbox`, `--center` and `--zoom` ask for, None when none is given (the story).

    `--bbox SOUTH,WEST,NORTH,EAST` is fitted; `--center LAT,LON` and `--zoom Z` are then set
    (what they leave out comes from the bbox, else from the story's bounds). Every malformed
    value is listed in one ValidationError naming its option, what was expected and what came.
    """
    if bbox is None and center is None and zoom is None:
        return None
    problems: list[Problem] = []
    bounds = _bbox(bbox, problems) if bbox is not None else None
    where = _center(center, problems) if center is not None else None
    level = _zoom(zoom, problems) if zoom is not None else None
    if problems:
        raise ValidationError(problems, subject="the map's extent")
    return ViewRequest(VIEW_TOKEN, bounds=bounds or story, center=where, zoom=level)


BBOX_EXPECTED = (
    "SOUTH,WEST,NORTH,EAST in degrees (south < north within -90..90, west < east within -180..180)"
)
CENTER_EXPECTED = "LAT,LON in degrees (latitude -90 to 90, longitude -180 to 180)"
ZOOM_EXPECTED = f"a zoom level from {MIN_ZOOM:g} to {MAX_ZOOM:g}"


def _numbers(text: str, count: int) -> list[float] | None:
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != count:
        return None
    try:
        values = [float(part) for part in parts]
    except ValueError:
        return None
    return values if all(math.isfinite(value) for value in values) else None


def _bbox(text: str, problems: list[Problem]) -> Bounds | None:
    values = _numbers(text, 4)
    if values is None:
        problems.append(Problem("--bbox", "", "", BBOX_EXPECTED, text))
        return None
    south, west, north, east = values
    inside = _latitude(south) and _latitude(north) and _longitude(west) and _longitude(east)
    if not (inside and south < north and west < east):
        problems.append(Problem("--bbox", "", "", BBOX_EXPECTED, text))
        return None
    return [[south, west], [north, east]]


def _center(text: str, problems: list[Problem]) -> tuple[float, float] | None:
    values = _numbers(text, 2)
    if values is None or not (_latitude(values[0]) and _longitude(values[1])):
        problems.append(Problem("--center", "", "", CENTER_EXPECTED, text))
        return None
    return values[0], values[1]


def _zoom(text: str, problems: list[Problem]) -> float | None:
    values = _numbers(text, 1)
    if values is None or not MIN_ZOOM <= values[0] <= MAX_ZOOM:
        problems.append(Problem("--zoom", "", "", ZOOM_EXPECTED, text))
        return None
    return values[0]


def _latitude(value: float) -> bool:
    return -90.0 <= value <= 90.0


def _longitude(value: float) -> bool:
    return -180.0 <= value <= 180.0
