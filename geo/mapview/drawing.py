"""Drawing a zone or a route on the map with leaflet.draw (served offline) and reading it back."""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from typing import Any, TypeAlias

import folium
import folium.plugins
import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon

from geo import mapview
from geo.changes import Edit
from geo.errors import Problem, ValidationError
from geo.importing import slug
from geo.mapview import MapView
from geo.mapview.assets import make_tree_offline
from geo.mapview.event_points import Served
from geo.records import Scenario

SHAPES = ("polygon", "rectangle", "polyline")
"""The leaflet.draw tools Corridor offers: zones are polygons or rectangles, routes are lines."""
FILE = "map drawing"
SUBJECT = "the drawn shape"
FIELD = "geometry"
POSITION = "[longitude, latitude] in degrees, longitude -180 to 180 and latitude -90 to 90"

Drawn: TypeAlias = Polygon | MultiPolygon | LineString

_NEVER = ("marker", "circle", "circlemarker")  # a point or a radius is neither a zone nor a route
_TOOL_OPTIONS: dict[str, dict[str, Any]] = {
    # Crossing edges are refused while drawing; drawn_shape still checks what comes back.
    "polygon": {"allowIntersection": False, "showArea": False},
    # showArea calls leaflet.draw 1.0.4's readableArea, which assigns an undeclared `type`
    # (Leaflet.draw issues #898, #1026): a stray global here, a ReferenceError in strict mode.
    "rectangle": {"showArea": False},
    "polyline": {},
}


def add_draw_control(
    folium_map: folium.Map,
    *,
    shapes: Sequence[str] = SHAPES,
    asset_url: str | None = None,
    position: str = "topleft",
) -> folium.plugins.Draw:
    """Add a leaflet.draw toolbar that draws only `shapes`, then make the map offline again.

    The toolbar never offers markers, circles or circle markers and has no export button.
    folium's Draw would load leaflet.draw from a CDN, so the whole tree is passed through
    geo.mapview.assets.make_tree_offline once more: give the `asset_url` the map was built with
    (None inlines everything the map needs). streamlit-folium returns what is drawn as GeoJSON
    features (`last_active_drawing`, `all_drawings`); read them with `drawn_shape`.
    """
    unknown = [shape for shape in shapes if shape not in _TOOL_OPTIONS]
    if unknown or not shapes:
        raise ValueError(f"shapes must be some of {SHAPES}, got {tuple(shapes)!r}")
    draw_options: dict[str, Any] = {key: False for key in _NEVER}
    for tool, options in _TOOL_OPTIONS.items():
        draw_options[tool] = dict(options) if tool in shapes else False
    draw: Any = folium.plugins.Draw  # folium's constructors are not annotated
    control: folium.plugins.Draw = draw(
        export=False,
        position=position,
        show_geometry_on_click=False,
        draw_options=draw_options,
        edit_options={"poly": {"allowIntersection": False}},
    )
    control.add_to(folium_map)
    make_tree_offline(folium_map, asset_url)
    return control


def drawing_map(
    scenario: Scenario,
    view: MapView,
    *,
    asset_url: str | None = None,
    served: Served | None = None,
    shapes: Sequence[str] = SHAPES,
    height: str = "100%",
) -> folium.Map:
    """The scenario's map (geo.mapview.build_map) with a drawing toolbar; nothing from a CDN
    (many events from a file published beside it when `served`)."""
    folium_map = mapview.build_map(
        scenario, view, height=height, asset_url=asset_url, served=served
    )
    add_draw_control(folium_map, shapes=shapes, asset_url=asset_url)
    return folium_map


def drawn_shape(feature: object) -> Drawn:
    """The shapely geometry of one drawing as streamlit-folium returns it (a GeoJSON Feature).

    A polygon or rectangle becomes a Polygon, a polyline a LineString, in EPSG:4326. A polygon
    whose edges cross is repaired with shapely.make_valid when that yields polygons only (a
    bow tie becomes a MultiPolygon of its two halves, as zones allow); when the repair would
    drop part of the outline (a spike, a collapsed loop) it is refused instead.

    Raises
    ------
    ValidationError
        Listing every problem: not a Feature, no geometry, a type other than Polygon or
        LineString, a position that is not [longitude, latitude] in range, too few distinct
        points, a polygon without area, or crossing edges that cannot be repaired.
    """
    geometry = _geometry_of(feature)
    kind = geometry.get("type")
    if kind == "Polygon":
        return _polygon(geometry.get("coordinates"))
    if kind == "LineString":
        return _line(geometry.get("coordinates"))
    expected = "a polygon, rectangle or line (GeoJSON Polygon or LineString)"
    raise _invalid("the feature", expected, kind)


def _geometry_of(feature: object) -> dict[str, Any]:
    if not isinstance(feature, dict):
        raise _invalid("the feature", "a GeoJSON Feature (a dict with a 'geometry')", feature)
    geometry = feature.get("geometry")
    if not isinstance(geometry, dict):
        raise _invalid("the feature", "a GeoJSON geometry object", geometry)
    return geometry


def _polygon(coordinates: object) -> Polygon | MultiPolygon:
    if not isinstance(coordinates, list) or not coordinates:
        expected = "a list of rings of [longitude, latitude] positions"
        raise _invalid("the polygon", expected, coordinates)
    problems: list[Problem] = []
    rings = []
    for number, raw in enumerate(coordinates):
        where = "the polygon" if number == 0 else f"the polygon, hole {number}"
        rings.append(_positions(raw, where, minimum=3, problems=problems))
    if problems:
        raise ValidationError(problems, subject=SUBJECT)
    polygon = Polygon(rings[0], rings[1:])
    if polygon.convex_hull.area == 0:  # not polygon.area: a bow tie's two halves cancel out
        expected = "a polygon with an area (points not all on one line)"
        raise _invalid("the polygon", expected, "every point on one line")
    return _repaired(polygon)


def _repaired(polygon: Polygon) -> Polygon | MultiPolygon:
    """The polygon, or its make_valid repair when that is polygons only."""
    if polygon.is_valid:
        return polygon
    repaired = shapely.make_valid(polygon)
    if isinstance(repaired, Polygon | MultiPolygon) and not repaired.is_empty:
        return repaired
    expected = "a polygon whose edges do not cross (or that splits cleanly into polygons)"
    raise _invalid("the polygon", expected, shapely.is_valid_reason(polygon))


def _line(coordinates: object) -> LineString:
    problems: list[Problem] = []
    points = _positions(coordinates, "the line", minimum=2, problems=problems)
    if problems:
        raise ValidationError(problems, subject=SUBJECT)
    return LineString(points)


def _positions(
    raw: object, where: str, *, minimum: int, problems: list[Problem]
) -> list[tuple[float, float]]:
    """The [longitude, latitude] positions of a line or ring; problems go to `problems`."""
    if not isinstance(raw, list):
        problems.append(Problem(FILE, where, FIELD, "a list of [longitude, latitude]", raw))
        return []
    points: list[tuple[float, float]] = []
    before = len(problems)
    for number, position in enumerate(raw, start=1):
        point = _position(position)
        if point is None:
            problems.append(Problem(FILE, f"{where}, point {number}", FIELD, POSITION, position))
        else:
            points.append(point)
    distinct = len(set(points))
    if len(problems) == before and distinct < minimum:
        expected = f"at least {minimum} distinct points"
        problems.append(Problem(FILE, where, FIELD, expected, f"{distinct} distinct"))
    return points


def _position(position: object) -> tuple[float, float] | None:
    """(longitude, latitude) when `position` is a GeoJSON position in range, else None."""
    if not isinstance(position, list | tuple) or len(position) not in (2, 3):
        return None
    if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in position):
        return None
    longitude, latitude = float(position[0]), float(position[1])
    if not (math.isfinite(longitude) and math.isfinite(latitude)):
        return None
    if not (-180 <= longitude <= 180 and -90 <= latitude <= 90):
        return None
    return longitude, latitude


def _invalid(where: str, expected: str, actual: object) -> ValidationError:
    return ValidationError([Problem(FILE, where, FIELD, expected, actual)], subject=SUBJECT)


def source_choices(scenario: Scenario) -> list[str]:
    """The scenario's source ids to cite for a drawn shape, the editors' own first."""
    ids = [source.id for source in scenario.sources]
    return sorted(ids, key=lambda sid: "editor" not in sid)


def zone_edit(shape: Any, cells: dict[str, Any]) -> Edit:
    """A drawn zone to add, approximate, with a new id from its name (`cells`: the form's
    name, control, holder, valid_from, valid_to, source and quote)."""
    name = str(cells.get("name") or "")
    record_id = slug(name or "zone") + f"-{uuid.uuid4().hex[:4]}"
    values = {**cells, "valid_to": cells.get("valid_to") or None, "precision": "approximate"}
    return Edit("add", "zones", record_id, {**values, "geometry": shape})


def route_edit(shape: Any, cells: dict[str, Any]) -> Edit:
    """A drawn route leg to add, with a new id from its convoy and leg (`cells`: the form's
    convoy, leg, from, to, precision, source and quote)."""
    record_id = f"{cells['convoy']}-leg-{cells['leg']}-{uuid.uuid4().hex[:4]}"
    return Edit("add", "routes", record_id, {**cells, "geometry": shape})
