"""Hostile input: injection strings stay inert on pages; arbitrary files give records or errors."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import OfflinePage
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from geo import export, importing
from geo.errors import ValidationError
from geo.geocoding import OfflineGeocoder
from geo.importing import Options
from geo.mapview import MapView
from geo.records import Scenario
from geo.scenario import read_scenario
from geo.store import open_workspace

ROOT = Path(__file__).resolve().parent.parent
TINY = Path(__file__).parent / "data" / "scenarios" / "tiny"
PAYLOADS = [
    "<script>window.__pwned='script'</script>",
    "</script><script>window.__pwned='close'</script>",
    "<img src=x onerror=\"window.__pwned='img'\">",
    "<svg onload=window.__pwned='svg'>",
    '" onmouseover="window.__pwned=\'attr\'" x="',
    "' onfocus='window.__pwned=1' autofocus='",
    "javascript:window.__pwned='url'",
    "{{ cycler.__init__.__globals__.os.getcwd() }}",
    "${window.__pwned='template'}",
    "`;window.__pwned='backquote';`",
]
MARKUP = [
    "<script>window",
    "<img src=x",
    "<svg onload",
    'onmouseover="window',
    "${window",
    "`;window",
    "onfocus='window",
]
"""What must never reach a page as written (escaped forms are fine)."""


def hostile_files(folder: Path) -> list[tuple[Path, str, dict[str, str]]]:
    """Places, convoys, zones and events whose every text field carries an injection string."""
    places = ["id,name,aliases,kind,latitude,longitude,country_code,quote"]
    for number, payload in enumerate(PAYLOADS):
        text = '"' + payload.replace('"', '""') + '"'  # a CSV cell in double quotes
        places.append(f"p{number},{text},{text},town,36.{number + 1},37.1,SY,{text}")
    convoys = ["id,label,origin,destination,depart,arrive,status,people,organisation,quote"]
    for number, payload in enumerate(PAYLOADS):
        text = '"' + payload.replace('"', '""') + '"'
        convoys.append(
            f"x{number},{text},p{number},idlib,2016-12-15T13:00Z,2016-12-15T15:00Z,"
            f"arrived,12,{text},{text}"
        )
    zones = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"id": f"hz{n}", "name": p, "holder": p, "quote": p},
                "geometry": {
                    "type": "Polygon",
                    "coordinates": [[[37.0, 36.0], [37.05, 36.0], [37.05, 36.05], [37.0, 36.0]]],
                },
            }
            for n, p in enumerate(PAYLOADS)
        ],
    }
    header = (
        "event_id_cnty,event_date,event_type,sub_event_type,actor1,actor2,location,"
        "latitude,longitude,fatalities,notes,source"
    )
    events = [header]
    for number, payload in enumerate(PAYLOADS):
        text = '"' + payload.replace('"', '""') + '"'
        events.append(
            f"E{number},2016-12-14,{text},{text},{text},{text},{text},36.1,37.1,1,{text},{text}"
        )
    written = []
    for name, body in [
        ("places.csv", "\n".join(places)),
        ("convoys.csv", "\n".join(convoys)),
        ("zones.geojson", json.dumps(zones)),
        ("events.csv", "\n".join(events)),
    ]:
        path = folder / name
        path.write_text(body + "\n", encoding="utf-8")
        written.append(path)
    zone_facts = {"control": "opposition", "valid_from": "2016-12-14T00:00Z"}
    layers = {"places.csv": {}, "convoys.csv": {}, "zones.geojson": zone_facts, "events.csv": {}}
    return [
        (path, "<img src=x onerror=alert(1)>" + path.name, layers[path.name]) for path in written
    ]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Scenario, str]:
    """The tiny scenario with every hostile file imported, and its HTML export."""
    folder = tmp_path_factory.mktemp("hostile")
    workspace = open_workspace(folder / "workspace.gpkg")
    workspace.save(read_scenario(TINY))
    for path, name, defaults in hostile_files(folder):
        layer = "events" if path.name == "events.csv" else None
        prepared = importing.prepare(
            path, workspace.load("tiny"), name=name, options=Options(layer, defaults)
        )
        assert not prepared.rejected, prepared.problems
        importing.commit_import(workspace, "tiny", prepared, who="<b>mallory</b>")
    scenario = workspace.load("tiny")
    view = MapView(at=scenario.end - timedelta(minutes=1))
    return scenario, export.render(export.Snapshot(scenario, view), "html").decode("utf-8")


def test_every_hostile_record_was_imported(hostile: tuple[Scenario, str]) -> None:
    scenario, _ = hostile
    assert len([p for p in scenario.places if p.id.startswith("p")]) == len(PAYLOADS)
    assert {c.label for c in scenario.convoys} >= set(PAYLOADS)
    assert {e.notes for e in scenario.events} == set(PAYLOADS)
    assert any("<img src=x onerror=alert(1)>" in s.title for s in scenario.sources)


@pytest.mark.parametrize("markup", MARKUP)
def test_no_injection_survives_as_markup_in_the_html_export(
    hostile: tuple[Scenario, str], markup: str
) -> None:
    _, page = hostile
    assert markup not in page


def test_no_template_ran_on_the_server(hostile: tuple[Scenario, str]) -> None:
    _, page = hostile
    assert os.getcwd() not in page
    assert str(ROOT) not in page


@pytest.mark.browser
def test_opening_every_popup_and_tooltip_runs_nothing(
    hostile: tuple[Scenario, str], tmp_path: Path, offline_page: OfflinePage
) -> None:
    _, html = hostile
    path = tmp_path / "hostile.html"
    path.write_text(html, encoding="utf-8")
    page = offline_page.page
    page.goto(path.as_uri(), wait_until="load")
    page.locator(".folium-map").wait_for(timeout=15_000)
    opened = page.evaluate(OPEN_EVERYTHING)
    page.wait_for_timeout(500)
    pwned = page.evaluate("window.__pwned")
    planted = page.evaluate(
        "document.querySelectorAll('img[src=\"x\"], svg[onload], [onmouseover], [onfocus]').length"
    )
    assert opened > 3 * len(PAYLOADS)
    assert (pwned, planted, offline_page.dialogs, offline_page.errors) == (None, 0, [], [])
    assert offline_page.blocked == []


OPEN_EVERYTHING = """() => {
    const maps = Object.values(window).filter((v) => v instanceof L.Map);
    let opened = 0;
    for (const map of maps) {
        map.eachLayer((layer) => {
            for (const method of ['openPopup', 'openTooltip']) {
                const bound = method === 'openPopup' ? layer.getPopup : layer.getTooltip;
                if (bound && bound.call(layer)) {
                    try { layer[method](); opened += 1; } catch (e) { /* no position */ }
                }
            }
        });
    }
    return opened;
}"""


def test_a_javascript_address_is_refused_as_a_source_url(tiny_copy: Path) -> None:
    toml = tiny_copy / "scenario.toml"
    text = toml.read_text(encoding="utf-8").replace(
        'url = "https://example.org/"', 'url = "javascript:alert(1)"'
    )
    toml.write_text(text, encoding="utf-8")
    with pytest.raises(ValidationError, match=r"'url': expected a web address starting with http"):
        read_scenario(tiny_copy)


def test_the_problem_report_keeps_spreadsheet_formulas_inert(tmp_path: Path) -> None:
    path = tmp_path / "places.csv"
    path.write_text(
        'id,name,kind,latitude,longitude,country_code\nx,X,town,"=HYPERLINK(""http://e"")",37,SY\n'
    )
    report = importing.prepare(path, read_scenario(TINY)).report_csv()
    assert "'=HYPERLINK" in report
    assert ",=" not in report


# --- arbitrary input: records or a ValidationError, never another exception -----------------

GEOCODER = OfflineGeocoder(country_bias="SY")
CELLS = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "36.2",
            "37.1",
            "-999",
            "nan",
            "inf",
            "1e400",
            "SY",
            "town",
            "exact",
            "2016-12-15T14:30+02:00",
            "about 200",
            "report",
            "aleppo",
            "",
            " ",
        ]
    ),
)
COLUMNS = [
    "id",
    "name",
    "kind",
    "latitude",
    "longitude",
    "lat",
    "lon",
    "country_code",
    "precision",
    "source",
    "destination",
    "status",
    "count",
    "what",
    "event_id_cnty",
    "event_type",
    "fatalities",
    "event_date",
]


@st.composite
def csv_text(draw: st.DrawFn) -> str:
    """CSV-like text: a header of real and odd column names, rows of odd and plausible cells."""
    header = draw(
        st.lists(st.one_of(st.sampled_from(COLUMNS), st.text(max_size=8)), min_size=1, max_size=8)
    )
    rows = draw(st.lists(st.lists(CELLS, min_size=0, max_size=len(header) + 1), max_size=5))
    quote = '"'

    def cell(value: str) -> str:
        return quote + value.replace(quote, quote * 2) + quote

    return "\n".join(",".join(cell(value) for value in row) for row in [header, *rows])


JSON = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["type", "features", "geometry", "coordinates", "properties", "crs", "id", "name"]
            )
            | st.text(max_size=5),
            children,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@st.composite
def geojson_text(draw: st.DrawFn) -> str:
    """GeoJSON-like documents: FeatureCollections with odd features, or any JSON at all."""
    feature = st.fixed_dictionaries(
        {
            "type": st.sampled_from(["Feature", "feature", 3]),
            "properties": JSON,
            "geometry": st.one_of(
                JSON,
                st.fixed_dictionaries(
                    {
                        "type": st.sampled_from(
                            ["Polygon", "Point", "LineString", "MultiPolygon", "x"]
                        ),
                        "coordinates": JSON,
                    }
                ),
            ),
        }
    )
    document = draw(
        st.one_of(
            JSON,
            st.fixed_dictionaries(
                {"type": st.just("FeatureCollection"), "features": st.lists(feature, max_size=4)}
            ),
        )
    )
    return json.dumps(document) if draw(st.booleans()) else json.dumps(document)[:-1]


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _prepare_text(text: str, suffix: str) -> importing.Prepared:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return importing.prepare(path, read_scenario(TINY, geocode=False), geocoder=GEOCODER)


def _scenario_with(name: str, text: str) -> Any:
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(shutil.copytree(TINY, Path(folder) / "tiny"))
        (copy / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            return read_scenario(copy)
        except ValidationError as error:
            return error


@FUZZ
@given(csv_text() | st.text(max_size=200))
def test_any_csv_gives_records_or_problems(text: str) -> None:
    prepared = _prepare_text(text, ".csv")
    assert prepared.rows >= prepared.accepted
    assert isinstance(_scenario_with("places.csv", text), Scenario | ValidationError)


@FUZZ
@given(geojson_text() | st.text(max_size=200))
@example('{"type": []}')  # found by Hypothesis: a list where a type name belongs
def test_any_geojson_gives_records_or_problems(text: str) -> None:
    prepared = _prepare_text(text, ".geojson")
    assert prepared.rows >= prepared.accepted
    assert isinstance(_scenario_with("zones.geojson", text), Scenario | ValidationError)


def kml_text() -> st.SearchStrategy[str]:
    """KML documents with arbitrary geometry elements, coordinates and data."""
    tag = st.sampled_from([
        "Point", "LineString", "Polygon", "MultiGeometry", "gx:Track", "gx:MultiTrack",
        "LinearRing", "MultiPolygon", "outerBoundaryIs",
    ])  # fmt: skip
    inner = st.text(alphabet="0123456789.,- \n<>/abcdefgxyz:", max_size=60)
    element = st.builds(lambda t, body: f"<{t}><coordinates>{body}</coordinates></{t}>", tag, inner)
    coord = st.builds(lambda body: f"<gx:coord>{body}</gx:coord>", inner)
    placemark = st.builds(
        lambda name, parts: f"<Placemark><name>{name}</name>{''.join(parts)}</Placemark>",
        st.text(alphabet="abc <&>", max_size=10),
        st.lists(element | coord, max_size=3),
    )
    return st.builds(
        lambda marks: '<kml xmlns="http://www.opengis.net/kml/2.2" '
        'xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>'
        + "".join(marks) + "</Document></kml>",
        st.lists(placemark, max_size=3),
    )  # fmt: skip


@FUZZ
@given(kml_text() | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_any_kml_gives_records_or_problems(text: str) -> None:
    prepared = _prepare_text(text, ".kml")
    assert prepared.rows >= prepared.accepted


def test_a_marked_report_escapes_every_character_and_skips_overlapping_marks() -> None:
    from geo.safe_html import marked_text

    text = 'Buses left <script>alert(1)</script> Aleppo\nfor "Idlib"'
    aleppo = text.index("Aleppo")
    place, figure = (
        (aleppo, aleppo + 6, "place", 'Aleppo "city"'),
        (aleppo + 2, aleppo + 9, "figure", "x"),
    )
    page = marked_text(text, [place, figure])
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert '<mark class="place" title="Aleppo &quot;city&quot;">Aleppo</mark>' in page
    assert 'class="figure"' not in page  # overlaps the place: left out
    assert "<br>for &quot;Idlib&quot;" in page
