"""Drawing a zone or a route: leaflet.draw served offline, only the shapes asked for, read back."""

from __future__ import annotations

import base64
import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import folium
import pytest
import streamlit_folium
from conftest import OfflinePage
from shapely.geometry import LineString, MultiPolygon, Polygon

from geo.errors import ValidationError
from geo.mapview import MapView, assets, drawing
from geo.records import Scenario
from geo.scenario import read_scenario

AT = datetime(2016, 12, 15, 13, tzinfo=UTC)
NEVER = ("marker", "circle", "circlemarker")
REMOTE_TAG = re.compile(
    r"<(?:script|link)\b[^>]*\b(?:src|href)\s*=\s*['\"]?\s*(?:https?:)?//", re.I
)
DRAW_OPTIONS = re.compile(r"draw: (\{.*\}),\n\s*edit: (\{.*\}),")


@pytest.fixture(scope="module")
def tiny() -> Scenario:
    return read_scenario(Path(__file__).parent / "data" / "scenarios" / "tiny")


def render(folium_map: folium.Map) -> str:
    return str(folium_map.get_root().render())


def loaded(html: str) -> list[str]:
    """The src of every script and the href of every stylesheet link, in page order."""
    tags = re.findall(r"<(?:script|link)\b[^>]*>", html)
    found = (re.search(r'\b(?:src|href)\s*=\s*"([^"]*)"', tag) for tag in tags)
    return [match[1] for match in found if match]


def decoded(source: str) -> str:
    return base64.b64decode(source.partition(";base64,")[2]).decode("utf-8")


def control_options(html: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The `draw` and `edit` options the page gives L.Control.Draw."""
    found = DRAW_OPTIONS.search(html)
    assert found, "no draw control in the page"
    return json.loads(found[1]), json.loads(found[2])


# --- the map: leaflet.draw inlined, nothing from a CDN -------------------------------------


def test_the_drawing_map_loads_nothing_from_the_network(tiny: Scenario) -> None:
    html = render(drawing.drawing_map(tiny, MapView(at=AT)))
    assert not REMOTE_TAG.search(html)
    assert "cdnjs" not in html
    assert "@import" not in html
    sources = loaded(html)
    assert len(sources) == 2  # one script bundle and one stylesheet bundle
    assert sources[0].startswith("data:text/javascript;base64,")
    assert sources[1].startswith("data:text/css;base64,")
    script, style = decoded(sources[0]), decoded(sources[1])
    assert script.index("Leaflet 1.9") < script.index("Leaflet.draw 1.0.4")
    assert "L.Control.Draw" in script
    assert "new L.Control.Draw" in html
    assert style.index(".leaflet-container") < style.index(".leaflet-draw-toolbar")


def test_the_toolbar_sprites_are_inlined(tiny: Scenario) -> None:
    style = decoded(loaded(render(drawing.drawing_map(tiny, MapView(at=AT))))[1])
    draw_css = style[style.index(".leaflet-draw-section") :]
    assert "images/spritesheet" not in draw_css
    assert not re.search(r"""url\(\s*['"]?\s*(?:https?:)?//""", style)
    assert "url('data:image/svg+xml;base64," in draw_css
    assert "url('data:image/png;base64," in draw_css


def test_a_plain_folium_map_with_a_draw_control_is_offline() -> None:
    folium_map = folium.Map(location=[36.2, 37.1], zoom_start=9, tiles=None)
    control = drawing.add_draw_control(folium_map)
    assert (control.default_js, control.default_css) == ([], [])
    html = render(folium_map)
    assert not REMOTE_TAG.search(html)
    assert [source.partition(";")[0] for source in loaded(html)] == [
        "data:text/javascript",
        "data:text/css",
    ]
    assert "L.Control.Draw" in decoded(loaded(html)[0])


def test_with_an_asset_url_the_published_bundles_carry_leaflet_draw(
    tiny: Scenario, tmp_path: Path
) -> None:
    base = "../../app/static/vendor"
    html = render(drawing.drawing_map(tiny, MapView(at=AT), asset_url=base))
    assert loaded(html) == [f"{base}/{assets.BUNDLE_JS}", f"{base}/{assets.BUNDLE_CSS}"]
    assets.publish(tmp_path)
    script = (tmp_path / assets.BUNDLE_JS).read_text(encoding="utf-8")
    style = (tmp_path / assets.BUNDLE_CSS).read_text(encoding="utf-8")
    assert "L.Control.Draw" in script
    assert ".leaflet-draw-toolbar" in style
    assert "images/spritesheet" not in style


# --- the toolbar: only the shapes asked for ------------------------------------------------


@pytest.mark.parametrize(
    "shapes",
    [drawing.SHAPES, ("polygon", "rectangle"), ("polyline",)],
    ids=["default", "zones", "routes"],
)
def test_the_toolbar_offers_only_the_requested_shapes(
    tiny: Scenario, shapes: tuple[str, ...]
) -> None:
    html = render(drawing.drawing_map(tiny, MapView(at=AT), shapes=shapes))
    options, _ = control_options(html)
    assert {tool for tool, allowed in options.items() if allowed is not False} == set(shapes)
    assert all(options[tool] is False for tool in NEVER)
    assert "id='export'" not in html  # no export button
    assert "alert(coords)" not in html  # no alert when a drawn shape is clicked


def test_drawn_polygons_may_not_cross_themselves(tiny: Scenario) -> None:
    html = render(drawing.drawing_map(tiny, MapView(at=AT)))
    draw, edit = control_options(html)
    assert draw["polygon"]["allowIntersection"] is False
    assert edit == {"poly": {"allowIntersection": False}}


@pytest.mark.parametrize("shapes", [(), ("polygon", "circle"), ("marker",)])
def test_other_shapes_are_refused(shapes: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match=r"shapes must be some of \('polygon'"):
        drawing.add_draw_control(folium.Map(tiles=None), shapes=shapes)


def test_streamlit_folium_finds_the_drawn_items(tiny: Scenario) -> None:
    """st_folium reads `all_drawings` from a global `drawnItems`: it renames folium's variable
    (private API, checked here so an upgrade that breaks it fails loudly)."""
    folium_map = drawing.drawing_map(tiny, MapView(at=AT), asset_url="vendor")
    script = streamlit_folium._get_map_string(folium_map)
    assert re.search(r"\bvar drawnItems\s*=", script)
    assert "drawnItems_" not in script


# --- reading a drawing back ----------------------------------------------------------------

# As streamlit-folium returns them (layer.toGeoJSON() in leaflet.draw, drawn in Chromium).
RECTANGLE = {
    "type": "Feature",
    "properties": {},
    "geometry": {
        "type": "Polygon",
        "coordinates": [
            [
                [36.831665, 36.050209],
                [36.831665, 36.105705],
                [36.968994, 36.105705],
                [36.968994, 36.050209],
                [36.831665, 36.050209],
            ]
        ],
    },
}
POLYGON = {
    "type": "Feature",
    "properties": {},
    "geometry": {
        "type": "Polygon",
        "coordinates": [
            [
                [37.037659, 36.161162],
                [37.106323, 36.133438],
                [37.071991, 36.077962],
                [37.037659, 36.161162],
            ]
        ],
    },
}
POLYLINE = {
    "type": "Feature",
    "properties": {},
    "geometry": {
        "type": "LineString",
        "coordinates": [[36.763, 35.994674], [36.831665, 35.966892], [36.90033, 35.983563]],
    },
}


def feature(kind: str, coordinates: Any) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": {},
        "geometry": {"type": kind, "coordinates": coordinates},
    }


def ring(*points: tuple[float, float]) -> list[list[list[float]]]:
    return [[list(point) for point in (*points, points[0])]]


def test_a_rectangle_becomes_a_polygon() -> None:
    shape = drawing.drawn_shape(RECTANGLE)
    assert isinstance(shape, Polygon)
    assert shape.is_valid
    assert shape.bounds == pytest.approx((36.831665, 36.050209, 36.968994, 36.105705))


def test_a_polygon_becomes_a_polygon() -> None:
    shape = drawing.drawn_shape(POLYGON)
    assert isinstance(shape, Polygon)
    assert list(shape.exterior.coords) == [tuple(p) for p in POLYGON["geometry"]["coordinates"][0]]


def test_a_polyline_becomes_a_line() -> None:
    shape = drawing.drawn_shape(POLYLINE)
    assert isinstance(shape, LineString)
    assert list(shape.coords) == [tuple(p) for p in POLYLINE["geometry"]["coordinates"]]


def test_an_unclosed_ring_and_an_altitude_are_accepted() -> None:
    coordinates = [[[36.0, 36.0, 0.0], [36.1, 36.0, 0.0], [36.1, 36.1, 0.0]]]
    shape = drawing.drawn_shape(feature("Polygon", coordinates))
    assert isinstance(shape, Polygon)
    assert not shape.has_z
    assert shape.area == pytest.approx(0.005)


def test_a_bow_tie_is_split_into_its_two_halves() -> None:
    bow_tie = ring((36.0, 36.0), (36.1, 36.1), (36.1, 36.0), (36.0, 36.1))
    shape = drawing.drawn_shape(feature("Polygon", bow_tie))
    assert isinstance(shape, MultiPolygon)
    assert shape.is_valid
    assert len(shape.geoms) == 2
    assert shape.area == pytest.approx(0.005)


# A square with a spike: shapely.make_valid would keep the spike as a loose line.
SPIKE = ring((36.0, 36.0), (36.1, 36.0), (36.1, 36.1), (36.1, 36.2), (36.1, 36.1), (36.0, 36.1))
OUT_OF_RANGE = r"expected \[longitude, latitude\] in degrees, longitude -180 to 180"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, r"the feature, field 'geometry': expected a GeoJSON Feature .*, got nothing"),
        ([RECTANGLE], r"expected a GeoJSON Feature \(a dict with a 'geometry'\), got \[\{"),
        ("Polygon", r"expected a GeoJSON Feature .*, got 'Polygon'"),
        ({"type": "Feature", "properties": {}}, r"expected a GeoJSON geometry object, got nothing"),
        (
            feature("Point", [36.1, 36.2]),
            r"expected a polygon, rectangle or line \(GeoJSON Polygon or LineString\), got 'Point'",
        ),
        (
            feature("MultiPolygon", [ring((36.0, 36.0), (36.1, 36.0), (36.1, 36.1))]),
            r"got 'MultiPolygon'",
        ),
        (
            {"type": "Feature", "properties": {"radius": 500}, "geometry": {"type": "Circle"}},
            r"got 'Circle'",
        ),
        (feature("Polygon", "36,36 37,37"), r"expected a list of rings of .*, got '36,36 37,37'"),
        (feature("Polygon", []), r"the polygon, field 'geometry': expected a list of rings"),
        (
            feature("Polygon", ring((36.0, 36.0), (36.1, 36.0), (36.0, 36.0))),
            r"the polygon, field 'geometry': expected at least 3 distinct points, got '2 distinct'",
        ),
        (
            feature("LineString", [[36.0, 36.0], [36.0, 36.0]]),
            r"the line, field 'geometry': expected at least 2 distinct points, got '1 distinct'",
        ),
        (
            feature("LineString", [[36.0, 36.0]]),
            r"expected at least 2 distinct points, got '1 distinct'",
        ),
        (feature("LineString", None), r"the line, field 'geometry': expected a list of \["),
        (
            feature("LineString", [[36.0, 36.0], [200.0, 36.0]]),
            rf"the line, point 2, field 'geometry': {OUT_OF_RANGE}.*, got \[200\.0, 36\.0\]",
        ),
        (
            feature("Polygon", ring((36.0, 36.0), (36.1, 95.0), (36.2, 36.0))),
            rf"the polygon, point 2, field 'geometry': {OUT_OF_RANGE}",
        ),
        (feature("LineString", [[36.0, 36.0], ["36.1", "36.2"]]), rf"point 2, .*{OUT_OF_RANGE}"),
        (feature("LineString", [[True, 36.0], [36.1, 36.2]]), rf"point 1, .*{OUT_OF_RANGE}"),
        (feature("LineString", [[36.0, math.nan], [36.1, 36.2]]), rf"point 1, .*{OUT_OF_RANGE}"),
        (feature("LineString", [[36.0], [36.1, 36.2]]), rf"point 1, .*{OUT_OF_RANGE}"),
        (
            feature("Polygon", ring((36.0, 36.0), (36.1, 36.1), (36.2, 36.2))),
            r"expected a polygon with an area \(points not all on one line\)",
        ),
        (
            feature("Polygon", SPIKE),
            r"expected a polygon whose edges do not cross .*, got 'Ring Self-intersection",
        ),
    ],
    ids=[
        "none",
        "a-list",
        "a-string",
        "no-geometry",
        "marker",
        "multipolygon",
        "circle",
        "rings-not-a-list",
        "no-rings",
        "polygon-2-points",
        "line-1-point-twice",
        "line-1-point",
        "line-no-coordinates",
        "longitude-200",
        "latitude-95",
        "text-position",
        "boolean-position",
        "nan-position",
        "short-position",
        "collinear-polygon",
        "spike",
    ],
)
def test_bad_drawings_are_refused(value: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message) as caught:
        drawing.drawn_shape(value)
    assert str(caught.value).startswith("the drawn shape: 1 problem\n  - map drawing, the ")
    assert all(problem.file == "map drawing" for problem in caught.value.problems)
    assert all(problem.field == "geometry" for problem in caught.value.problems)


def test_every_bad_position_is_reported_at_once() -> None:
    line = feature("LineString", [[181.0, 36.0], [36.0, 36.0], [36.0, -91.0], "here"])
    with pytest.raises(ValidationError, match=r"the drawn shape: 3 problems") as caught:
        drawing.drawn_shape(line)
    assert [problem.where for problem in caught.value.problems] == [
        "the line, point 1",
        "the line, point 3",
        "the line, point 4",
    ]


def test_a_bad_hole_is_named() -> None:
    outline = ring((36.0, 36.0), (36.3, 36.0), (36.3, 36.3), (36.0, 36.3))[0]
    hole = [[36.1, 36.1], [36.2, 36.1], [36.1, 36.1]]
    with pytest.raises(ValidationError, match=r"the polygon, hole 1, field 'geometry'"):
        drawing.drawn_shape(feature("Polygon", [outline, hole]))


# --- in Chromium, with the network blocked -------------------------------------------------

READ_DRAWINGS = """
() => {
    const name = Object.keys(window).find((key) => key.startsWith('drawnItems_'));
    return window[name].toGeoJSON().features;
}
"""


@pytest.mark.browser
def test_drawing_in_chromium_offline(
    tiny: Scenario, offline_page: OfflinePage, tmp_path: Path
) -> None:
    page_file = tmp_path / "drawing.html"
    folium_map = drawing.drawing_map(tiny, MapView(at=AT, layers=frozenset()))
    page_file.write_text(render(folium_map), encoding="utf-8")
    page = offline_page.page
    page.goto(page_file.as_uri(), wait_until="load")
    page.wait_for_selector(".leaflet-draw-toolbar", timeout=15_000)
    tools = page.locator(".leaflet-draw-draw-polyline, .leaflet-draw-draw-polygon")
    assert tools.count() == 2
    assert page.locator(".leaflet-draw-draw-rectangle").count() == 1
    for tool in NEVER:
        assert page.locator(f".leaflet-draw-draw-{tool}").count() == 0
    sprite = page.locator(".leaflet-draw-draw-polygon").evaluate(
        "(a) => getComputedStyle(a).backgroundImage"
    )
    assert "data:image/" in sprite

    page.click(".leaflet-draw-draw-rectangle")
    page.mouse.move(500, 300)
    page.mouse.down()
    page.mouse.move(600, 350, steps=5)
    page.mouse.move(700, 400, steps=5)
    page.mouse.up()
    page.click(".leaflet-draw-draw-polyline")
    for x, y in [(400, 500), (500, 550), (600, 520), (600, 520)]:  # last click finishes
        page.mouse.click(x, y)
        page.wait_for_timeout(100)
    page.click(".leaflet-draw-draw-polygon")
    for x, y in [(800, 250), (900, 300), (850, 400), (800, 250)]:  # first point closes
        page.mouse.click(x, y)
        page.wait_for_timeout(100)

    shapes = [drawing.drawn_shape(f) for f in page.evaluate(READ_DRAWINGS)]
    assert [shape.geom_type for shape in shapes] == ["Polygon", "LineString", "Polygon"]
    assert len(shapes[0].exterior.coords) == 5  # the rectangle
    assert len(shapes[1].coords) == 3
    assert len(shapes[2].exterior.coords) == 4
    assert all(shape.is_valid for shape in shapes)
    assert offline_page.errors == []
    assert offline_page.blocked == []


def test_a_drawn_shape_becomes_an_edit_citing_the_editors_source_first(tiny: Scenario) -> None:
    sources = drawing.source_choices(tiny)
    assert sorted(sources) == sorted(source.id for source in tiny.sources)
    square = Polygon([(36.0, 35.0), (36.1, 35.0), (36.1, 35.1), (36.0, 35.0)])
    zone = drawing.zone_edit(square, {"name": "North <pocket>", "control": "besieged",
                                      "valid_to": "", "source": sources[0]})  # fmt: skip
    assert (zone.action, zone.layer) == ("add", "zones")
    assert zone.record_id.startswith("north-pocket-")
    assert zone.cells["valid_to"] is None
    assert zone.cells["precision"] == "approximate"
    assert zone.cells["geometry"] is square
    line = LineString([(36.0, 35.0), (36.2, 35.1)])
    leg = drawing.route_edit(line, {"convoy": "c1", "leg": "2", "from": "a", "to": "b"})
    assert (leg.layer, leg.record_id[:9]) == ("routes", "c1-leg-2-")
    assert leg.cells["geometry"] is line
