"""What streamlit-folium returns, read: the convoy a click picked, the overlays switched on."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from shapely.geometry import Point

from geo import timeline
from geo.mapview.view import LAYER_LABELS, MapView, visible_convoys
from geo.records import Scenario


def convoy_near(
    scenario: Scenario,
    view: MapView,
    latitude: float,
    longitude: float,
    *,
    within_km: float = 3.0,
    among: Iterable[str] | None = None,
) -> str | None:
    """The visible convoy (of `among`) whose marker or route is nearest a point, in `within_km`."""
    clicked = Point(longitude, latitude)
    best: tuple[float, str] | None = None
    wanted = None if among is None else set(among)
    for convoy in visible_convoys(scenario, view):
        if wanted is not None and convoy.id not in wanted:
            continue
        item = timeline.convoy_at(scenario, convoy, view.at)
        shapes = [leg.geometry for leg in timeline.legs_of(scenario, convoy.id)]
        if item.position is not None:
            shapes.append(item.position)
        for shape in shapes:
            degrees = shape.distance(clicked)
            if best is None or degrees < best[0]:
                best = (degrees, convoy.id)
    if best is None or best[0] * 111.0 > within_km:
        return None
    return best[1]


def convoy_clicked(
    scenario: Scenario,
    view: MapView,
    latitude: float,
    longitude: float,
    tooltip: str | None,
    zoom: int | None,
) -> str | None:
    """The convoy a click on the map picked, or None when it picked something else.

    A route, a convoy marker and a halted convoy's cross name their convoy in their tooltip
    (`<label> — …`, `<label>: …`); a click on a zone, a place or a figure names no convoy and
    selects none. Where routes carry no tooltip (thousands drawn lean) the nearest convoy within
    about 12 screen pixels is taken.
    """
    if tooltip:
        named = [c.id for c in visible_convoys(scenario, view) if _names_convoy(tooltip, c.label)]
        if len(named) <= 1:
            return named[0] if named else None
        near = convoy_near(scenario, view, latitude, longitude, within_km=math.inf, among=named)
        return near
    metres_per_pixel = 156_543.03 * math.cos(math.radians(latitude)) / 2 ** (zoom or 9)
    return convoy_near(scenario, view, latitude, longitude, within_km=12 * metres_per_pixel / 1000)


def _names_convoy(tooltip: str, label: str) -> bool:
    return tooltip.strip() == label or tooltip.startswith((f"{label} — ", f"{label}: "))


def selected_layers(returned: Iterable[Any] | None) -> frozenset[str] | None:
    """The overlays switched on in the map, from st_folium's `selected_layers`; None if unknown."""
    if returned is None:
        return None
    names = [item.get("name") for item in returned if isinstance(item, dict)]
    picked = [item for item in returned if isinstance(item, dict) and item.get("url") == "corridor"]
    if not picked and names:
        return None
    return frozenset(str(item["name"]) for item in picked if item.get("name") in LAYER_LABELS)


def reported_view(returned: dict[str, Any]) -> dict[str, Any] | None:
    """The view st_folium reports: centre (lat, lon), zoom and bounds [[s, w], [n, e]] (None
    when it cannot be read); None before the map has reported one."""
    center, zoom = returned.get("center"), returned.get("zoom")
    if not center or zoom is None:
        return None
    try:
        where = (float(center["lat"]), float(center["lng"]))
        level = float(zoom)
    except (KeyError, TypeError, ValueError):
        return None
    return {"center": where, "zoom": level, "bounds": _bounds(returned.get("bounds"))}


def _bounds(reported: Any) -> list[list[float]] | None:
    try:
        south_west, north_east = reported["_southWest"], reported["_northEast"]
        return [[float(south_west["lat"]), float(south_west["lng"])],
                [float(north_east["lat"]), float(north_east["lng"])]]  # fmt: skip
    except (KeyError, TypeError, ValueError):
        return None
