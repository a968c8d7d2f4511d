"""What a reader sees around the map, in Chromium: names beside their symbols, popups clear of
the panels, a legend that folds, a locator inset on exports."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import folium
import numpy as np
import pytest
from conftest import OfflinePage
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from geo import export, mapview
from geo.mapview import MapView, event_points
from geo.records import Control, Scenario
from geo.scenario import read_scenario

pytestmark = pytest.mark.browser
SHIPPED = Path(__file__).resolve().parent.parent / "data" / "scenarios" / "aleppo-2016-12"
AT = datetime(2016, 12, 15, 13, 0, tzinfo=UTC)
ALEPPO = [36.20124, 37.16117]


@pytest.fixture(scope="module")
def shipped() -> Scenario:
    return read_scenario(SHIPPED)


def open_map(
    offline_page: OfflinePage, tmp_path: Path, html: str, width: int = 1200, height: int = 800
) -> None:
    page = offline_page.page
    page.set_viewport_size({"width": width, "height": height})
    path = tmp_path / "map.html"
    path.write_text(html, encoding="utf-8")
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_function("document.querySelector('[data-corridor-view]') !== null")


def map_name(page: Page) -> str:
    """The folium map's global variable (map_<id>)."""
    return str(page.evaluate("() => Object.keys(window).find(k => /^map_/.test(k))"))


def dashboard_map(shipped: Scenario, language: str = "en") -> str:
    return str(mapview.build_map(shipped, MapView(at=AT, language=language)).get_root().render())


CLASHES = """
() => {
    function box(e) { return e.getBoundingClientRect(); }
    function meet(a, b) {
        return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    }
    function shown(e) { return getComputedStyle(e).visibility !== 'hidden' && box(e).width; }
    const symbols = Array.from(document.querySelectorAll('.corridor-symbol > svg'))
        .filter(shown).map(box);
    const labels = Array.from(document.querySelectorAll('.corridor-label')).filter(shown);
    const towns = Array.from(document.querySelectorAll('.corridor-town')).filter(shown);
    const found = [];
    labels.forEach(function(label, i) {
        symbols.forEach(function(s) {
            if (meet(box(label), s)) { found.push(label.textContent + ' on a symbol'); }
        });
        labels.slice(i + 1).forEach(function(other) {
            if (meet(box(label), box(other))) {
                found.push(label.textContent + ' on ' + other.textContent);
            }
        });
    });
    towns.forEach(function(town) {
        symbols.concat(labels.map(box)).forEach(function(s) {
            if (meet(box(town), s)) { found.push(town.textContent + ' (base) on a place'); }
        });
    });
    return {clashes: found, labels: labels.map(function(l) { return l.textContent; })};
}
"""


@pytest.mark.parametrize("zoom", [None, 9, 12, 14])
def test_no_name_sits_on_a_symbol_or_another_name(
    shipped: Scenario, offline_page: OfflinePage, tmp_path: Path, zoom: int | None
) -> None:
    page_html = export.page_html(export.Snapshot(shipped, MapView(at=AT)))
    open_map(offline_page, tmp_path, page_html, width=1600)
    page = offline_page.page
    if zoom is not None:
        name = map_name(page)
        page.evaluate(f"() => window['{name}'].setView({ALEPPO}, {zoom}, {{animate: false}})")
    found = page.evaluate(CLASHES)
    assert found["clashes"] == []
    assert "Aleppo" in found["labels"]
    assert offline_page.errors == []


def test_the_first_view_names_aleppo_beside_its_square(
    shipped: Scenario, offline_page: OfflinePage, tmp_path: Path
) -> None:
    open_map(offline_page, tmp_path, dashboard_map(shipped))
    page = offline_page.page
    label = page.locator(".corridor-label", has_text="Aleppo").first
    assert label.is_visible()
    base = page.locator(".corridor-town", has_text="Aleppo")
    assert base.count() == 0 or not base.first.is_visible()  # no second, grey "Aleppo" under it


def test_a_popup_opens_clear_of_the_title_and_without_its_tooltip(
    shipped: Scenario, offline_page: OfflinePage, tmp_path: Path
) -> None:
    open_map(offline_page, tmp_path, dashboard_map(shipped))
    page = offline_page.page
    name = map_name(page)
    # put Aleppo just under the title's box, where its popup would open behind the title
    spot = page.evaluate(
        f"""() => {{
            const map = window['{name}'];
            const title = document.querySelector('.corridor-title').getBoundingClientRect();
            const box = map.getContainer().getBoundingClientRect();
            const target = L.point(title.left - box.left + 60, title.bottom - box.top + 12);
            const now = map.latLngToContainerPoint({ALEPPO});
            map.panBy(now.subtract(target), {{animate: false}});
            const p = map.latLngToContainerPoint({ALEPPO});
            return [box.left + p.x, box.top + p.y];
        }}"""
    )
    page.mouse.move(spot[0], spot[1])
    page.locator(".leaflet-tooltip").first.wait_for()
    page.mouse.click(spot[0], spot[1])
    popup = page.locator(".leaflet-popup")
    popup.wait_for()
    page.mouse.move(spot[0] + 1, spot[1] + 1)  # a sticky tooltip would follow the pointer
    page.wait_for_timeout(300)
    assert page.locator(".leaflet-tooltip").all_inner_texts() == []  # nor another layer's
    overlaps = page.evaluate(
        """() => {
            const p = document.querySelector('.leaflet-popup').getBoundingClientRect();
            return Array.from(document.querySelectorAll('.leaflet-control')).filter(c => {
                const r = c.getBoundingClientRect();
                return r.width && r.left < p.right && p.left < r.right && r.top < p.bottom
                    && p.top < r.bottom;
            }).map(c => c.className);
        }"""
    )
    assert overlaps == []
    assert "Source" in popup.inner_text()


def test_a_clicked_zone_shows_no_focus_box(
    shipped: Scenario, offline_page: OfflinePage, tmp_path: Path
) -> None:
    open_map(offline_page, tmp_path, dashboard_map(shipped))
    page = offline_page.page
    colour = mapview.ZONE_COLOURS[Control.GOVERNMENT]
    zone = page.locator(f"path.leaflet-interactive[stroke='{colour}']")
    box = zone.bounding_box()
    assert box is not None
    # in the zone's part inside the window (the story frame may cut the zone off)
    left, top = max(box["x"], 0), max(box["y"], 0)
    right, bottom = min(box["x"] + box["width"], 1200), min(box["y"] + box["height"], 800)
    page.mouse.click(left + (right - left) * 0.8, top + (bottom - top) * 0.5)
    page.locator(".leaflet-popup").wait_for()
    outline = page.evaluate(
        "() => [document.activeElement.tagName, getComputedStyle(document.activeElement)"
        ".outlineStyle]"
    )
    assert outline == ["path", "none"]  # Chromium drew a 5 px focus ring round the whole zone


def test_the_legend_folds_to_its_heading_and_opens_again(
    shipped: Scenario, offline_page: OfflinePage, tmp_path: Path
) -> None:
    open_map(offline_page, tmp_path, dashboard_map(shipped))
    page = offline_page.page
    fold = page.get_by_role("button", name="Legend")
    body = page.locator(".corridor-legend-body")
    assert body.is_visible()
    tall = page.locator(".corridor-legend").bounding_box()
    fold.click()
    assert not body.is_visible()
    assert fold.get_attribute("aria-expanded") == "false"
    short = page.locator(".corridor-legend").bounding_box()
    assert tall is not None
    assert short is not None
    assert short["height"] < 40 < tall["height"]
    fold.click()
    assert body.is_visible()


@pytest.mark.parametrize("language", ["en", "ar"])
def test_the_legend_covers_at_most_six_percent_of_the_dashboards_map(
    shipped: Scenario, offline_page: OfflinePage, tmp_path: Path, language: str
) -> None:
    """The dashboard's map is 980 x 620 px in a 1440 x 900 window; its legend, open, covered
    13% of it in English (248 x 324 px) before its symbols were set on wrapping lines."""
    open_map(offline_page, tmp_path, dashboard_map(shipped, language), width=980, height=620)
    page = offline_page.page
    legend = page.locator(".corridor-legend")
    assert page.locator(".corridor-legend-body").is_visible()
    box, frame = legend.bounding_box(), page.locator(".folium-map").bounding_box()
    assert box is not None
    assert frame is not None
    assert frame["width"] == 980
    assert box["width"] * box["height"] <= 0.06 * frame["width"] * frame["height"], box
    assert legend.locator("> div").get_attribute("dir") == ("rtl" if language == "ar" else "ltr")
    fold = legend.locator(".corridor-fold").bounding_box()
    assert fold is not None
    left = fold["x"] - box["x"] < box["x"] + box["width"] - fold["x"] - fold["width"]
    assert left == (language == "ar")  # the heading at the line's end: the left in Arabic


def test_an_export_has_a_locator_with_the_maps_extent(
    shipped: Scenario, offline_page: OfflinePage, tmp_path: Path
) -> None:
    page_html = export.page_html(export.Snapshot(shipped, MapView(at=AT)), still=True)
    open_map(offline_page, tmp_path, page_html, width=1600)
    page = offline_page.page
    inset = page.get_by_label("Locator map: the extent of this map in Syria")
    assert inset.is_visible()
    extent = inset.locator("path[stroke='#D55E00']").first
    box, frame = extent.bounding_box(), inset.bounding_box()
    assert box is not None
    assert frame is not None
    assert 3 < box["width"] < frame["width"] / 2  # Aleppo to Idlib: a small box in Syria
    assert page.locator(".corridor-fold").count() == 0  # a picture's legend has no button
    assert "Locator map" not in dashboard_map(shipped)  # the dashboard's map has none


POPUP_TARGETS = """
(name) => {
    const map = window[name];
    const found = [];
    map.eachLayer(function(layer) {
        if (!layer.getPopup || !layer.getPopup() || !(layer.getLatLng || layer.getLatLngs)) {
            return;
        }
        let spot = layer.getLatLng ? layer.getLatLng() : null;
        if (!spot) {
            let points = layer.getLatLngs();
            while (Array.isArray(points[0])) { points = points[0]; }
            spot = points[Math.floor(points.length / 2)];
        }
        found.push([spot.lat, spot.lng]);
    });
    return found;
}
"""
BRING = """
([name, spot]) => {  // the spot to the map's middle, and where it then is on the page
    const map = window[name];
    window.__popupBox = null;  // (POPUP_SETTLED compares a popup with itself, not the last)
    map.closePopup();
    map.panTo(spot, {animate: false});
    const box = map.getContainer().getBoundingClientRect();
    const p = map.latLngToContainerPoint(spot);
    return [box.left + p.x, box.top + p.y];
}
"""
NO_POPUP = """(name) =>
    window[name].getContainer().querySelectorAll('.leaflet-popup').length === 0"""
POPUP_SETTLED = """
(name) => {  // one popup open, faded in, no pan under way, and still since the last frame
    const map = window[name];
    const open = Array.from(map.getContainer().querySelectorAll('.leaflet-popup'))
        .filter(e => e.style.opacity !== '0');
    if (open.length !== 1 || getComputedStyle(open[0]).opacity !== '1'
        || (map._panAnim && map._panAnim._inProgress)) {
        window.__popupBox = null;
        return false;
    }
    const r = open[0].getBoundingClientRect();
    const box = [r.left, r.top, r.width, r.height].join();
    const still = window.__popupBox === box;
    window.__popupBox = box;
    return still;
}
"""
MEASURE = """
(name) => {
    const container = window[name].getContainer();
    const box = container.getBoundingClientRect();
    const open = Array.from(container.querySelectorAll('.leaflet-popup'))
        .filter(e => e.style.opacity !== '0');  // (a closed one fades out for 200 ms)
    if (open.length !== 1) { return {popups: open.length}; }
    const p = open[0].getBoundingClientRect();
    const under = Array.from(container.querySelectorAll('.leaflet-control')).filter(c => {
        const r = c.getBoundingClientRect();
        return r.width && p.left < r.right && r.left < p.right && p.top < r.bottom
            && r.top < p.bottom;
    }).map(c => c.className);
    return {popups: 1, text: open[0].textContent.slice(0, 40), under: under,
            inside: p.left >= box.left && p.right <= box.right && p.top >= box.top
                && p.bottom <= box.bottom,
            tooltips: container.querySelectorAll('.leaflet-tooltip').length};
}
"""


@pytest.mark.parametrize(("width", "height"), [(1200, 800), (1000, 620)])
def test_every_popup_opens_whole_inside_the_map_and_clear_of_its_panels(
    shipped: Scenario, offline_page: OfflinePage, tmp_path: Path, width: int, height: int
) -> None:
    """Click every symbol that has a popup, as a hand does (the dashboard's map is 620 px
    tall at 1440 x 900): each popup opens whole inside the map, clear of the title, legend and
    controls, alone, and without a tooltip beside it."""
    open_map(offline_page, tmp_path, dashboard_map(shipped), width=width)
    page = offline_page.page
    page.set_viewport_size({"width": width, "height": height})
    name = map_name(page)
    targets = page.evaluate(POPUP_TARGETS, name)
    assert len(targets) >= 10  # zones, routes, convoys, places, figures
    wrong = []
    for spot in targets:
        x, y = page.evaluate(BRING, [name, spot])
        try:
            page.wait_for_function(NO_POPUP, arg=name, timeout=5_000)  # (a fading one took clicks)
            page.mouse.move(x, y)
            page.mouse.click(x, y)
            page.wait_for_function(POPUP_SETTLED, arg=name, timeout=5_000)
        except PlaywrightTimeout:
            wrong.append({"no popup at": spot, **page.evaluate(MEASURE, name)})
            continue
        found = page.evaluate(MEASURE, name)
        if found["popups"] != 1 or not found["inside"] or found["under"] or found["tooltips"]:
            wrong.append(found)
    assert wrong == []
    assert offline_page.errors == []


def test_events_that_cannot_be_loaded_say_so_in_one_note_however_many_moments(
    shipped: Scenario, offline_page: OfflinePage, tmp_path: Path
) -> None:
    """During Play every moment's events layer asks for its file; where none comes, the map
    keeps one note (the latest moment's), not one more a step; a moment that loads clears it."""
    open_map(offline_page, tmp_path, dashboard_map(shipped))
    page = offline_page.page
    name = map_name(page)

    def moment(data: dict[str, object]) -> None:  # an events layer as a new moment brings it
        standing = folium.Map()
        group = folium.FeatureGroup().add_to(standing)
        layer = event_points.EventPoints(data)
        layer.add_to(group)
        page.evaluate(
            f"() => {{ window['{standing.get_name()}'] = window['{name}'];"
            f"window['{group.get_name()}'] = L.featureGroup().addTo(window['{name}']);"
            f"(0, eval)({json.dumps(layer.make_script())}); }}"
        )
        page.wait_for_function("window.corridorWaits === 0")

    for step in range(3):
        moment({"n": 10 + step, "url": f"missing-{step}.json"})
    notes = page.locator(".leaflet-bottom .corridor-card")
    assert notes.all_inner_texts() == [notes.first.inner_text()]  # one note, not three
    assert notes.first.inner_text().startswith("The 12 events could not be loaded")
    assert page.locator("[data-corridor-events-error]").count() == 1
    moment(event_points.payload(shipped, np.array([], dtype=np.intp)))  # (none, but loaded)
    assert notes.count() == 0
    assert page.locator("[data-corridor-events-error]").count() == 0
