"""Export what is on screen, in the system Chromium (issue 43, item 6): zoom the dashboard's map
over Aleppo with the wheel, download the HTML export and open it, and find it at that view and
saying so; then choose the story frame and find that export on the story."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import dashboard_page, made_picture, shipped_served
from PIL import Image
from playwright.sync_api import Browser, Locator, Page, Route
from test_browser import url_param, wait_until
from test_browser_view import WINDOW, View, evaluate, map_box, map_view, open_dashboard, url_view

from geo import mapview, timeline
from geo.mapview import MapView
from geo.scenario import read_scenario
from geo.settings import Settings

pytestmark = pytest.mark.browser

ALEPPO = (36.20124, 37.16117)
HTML_BUTTON = "HTML (interactive, offline)"
EXPORTED_VIEW = """() => {
    var key = Object.keys(window).find(function(name) {
        return name.indexOf('map_') === 0 && window[name] instanceof L.Map;
    });
    if (!key) { return null; }
    var map = window[key], centre = map.getCenter(), box = map.getBounds();
    return {lat: centre.lat, lng: centre.lng, zoom: map.getZoom(),
            bounds: [[box.getSouth(), box.getWest()], [box.getNorth(), box.getEast()]]};
}"""
"""The exported page's map: its centre, zoom and bounds (folium names it map_<id>)."""


@pytest.fixture(scope="module", params=["geopackage"])  # (the store plays no part in this)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with shipped_served(request, tmp_path_factory.mktemp("export-view")) as url:
        yield url


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with dashboard_page(browser, request, **WINDOW) as opened:
        yield opened


def metres(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The distance between two points (haversine, in metres)."""
    (lat1, lon1), (lat2, lon2) = (map(math.radians, point) for point in (a, b))
    h = math.sin((lat2 - lat1) / 2) ** 2
    h += math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6_371_000 * math.asin(math.sqrt(h))


def zoom_over_aleppo(page: Page, first: View) -> View:
    """Zoom in with the mouse wheel over Aleppo; the view once it has reached the server."""
    script = "(p) => { var c = map.latLngToContainerPoint(p); return [c.x, c.y]; }"
    point = wait_until(page, lambda: evaluate(page, script, list(ALEPPO)), "Aleppo on the map")
    box = map_box(page)
    page.mouse.move(box["x"] + point[0], box["y"] + point[1])
    page.mouse.wheel(0, -240)
    zoomed = wait_until(
        page, lambda: (view := map_view(page)) and view[2] > first[2] and view, "the wheel zoom"
    )
    wait_until(
        page,
        lambda: (found := url_view(page)) and found[2] == zoomed[2] and found[:2] != first[:2],
        "the zoomed view in the URL",
    )
    return wait_until(page, lambda: map_view(page), "the zoomed map")


def extent_group(page: Page) -> Locator:
    """The export panel's choice of extent."""
    return page.locator("[data-testid='stRadio']").filter(has_text="The story frame")


def extent_checked(page: Page, index: int) -> bool:
    group = extent_group(page)
    script = "g => Array.from(g.querySelectorAll('input[type=radio]')).findIndex(i => i.checked)"
    return bool(group.count() == 1 and group.evaluate(script) == index)


def download_html(page: Page, folder: Path, ending: str) -> Path:
    """The HTML export downloaded by its button, once it is named `…{ending}` (a click while
    the page reruns for a new choice may still get the last run's file)."""
    button = page.get_by_role("button", name=HTML_BUTTON)
    button.scroll_into_view_if_needed(timeout=30_000)
    for _ in range(5):
        with page.expect_download(timeout=60_000) as started:
            button.click()
        download = started.value
        if download.suggested_filename.endswith(ending):
            target = folder / download.suggested_filename
            download.save_as(target)
            return target
        page.wait_for_function("() => true", timeout=1_000)  # (a round trip to the page)
    raise AssertionError(f"no HTML export named …{ending}: last {download.suggested_filename}")


def opened_export(browser: Browser, path: Path) -> dict[str, Any]:
    """The downloaded page opened from disk; its map's view and its text, once it has drawn."""
    exported = browser.new_page(viewport=WINDOW)

    def only_file(route: Route) -> None:
        if route.request.url.startswith(("file:", "data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    try:
        exported.route("**/*", only_file)
        exported.goto(path.as_uri(), wait_until="load")
        exported.wait_for_function("window.corridorReady === true", timeout=30_000)
        exported.locator(".folium-map[data-corridor-view]").wait_for(timeout=30_000)
        found: dict[str, Any] = exported.evaluate(EXPORTED_VIEW)
        found["token"] = exported.locator(".folium-map").get_attribute("data-corridor-view")
        found["extent"] = exported.locator(".sheet-extent").inner_text()
        return found
    finally:
        exported.close()


def test_the_html_export_opens_at_the_view_on_screen_or_on_the_story(
    server: str, page: Page, browser: Browser, tmp_path: Path
) -> None:
    first = open_dashboard(page, server)
    page.get_by_text("Export snapshot").click()
    wait_until(page, lambda: extent_checked(page, 1), "the story frame offered first")
    zoomed = zoom_over_aleppo(page, first)
    wait_until(page, lambda: extent_checked(page, 0), "the view on screen offered first")

    view_file = download_html(page, tmp_path, "_all_view.html")
    shown = opened_export(browser, view_file)
    assert shown["token"] == "view"
    assert shown["extent"] == "Extent: the view on screen"
    assert abs(shown["zoom"] - zoomed[2]) <= 0.5, (shown, zoomed)
    assert metres((shown["lat"], shown["lng"]), zoomed[:2]) < 300, (shown, zoomed)

    extent_group(page).get_by_text("The story frame", exact=True).click()
    wait_until(page, lambda: extent_checked(page, 1), "the story frame chosen")
    story_file = download_html(page, tmp_path, "_all.html")
    told = opened_export(browser, story_file)
    assert told["token"] == "story"
    assert told["extent"] == "Extent: the story frame"
    scenario = read_scenario(Settings.from_environment().default_scenario_dir)
    at = timeline.opening_step(scenario)
    assert url_param(page, "at") == f"{at:%Y-%m-%dT%H:%M}Z"  # (the moment was not touched)
    (south, west), (north, east) = mapview.story_frame(scenario, MapView(at=at)).bounds or []
    (s, w), (n, e) = told["bounds"]
    inside = [s <= south, w <= west, north <= n, east <= e]
    assert all(inside), f"the story {south, west, north, east} is not all in {told['bounds']}"
    assert told["zoom"] < zoomed[2] - 1


def made_png(page: Page, ending: str) -> bytes:
    """A PNG made and downloaded by the panel's buttons, once it is named `…{ending}`."""
    for _ in range(5):
        button = made_picture(page, "PNG")
        with page.expect_download(timeout=60_000) as started:
            button.click()
        download = started.value
        if download.suggested_filename.endswith(ending):
            return Path(download.path()).read_bytes()
    raise AssertionError(f"no PNG named …{ending}: last {download.suggested_filename}")


def test_a_png_after_zooming_is_not_the_story_frame(server: str, page: Page) -> None:
    first = open_dashboard(page, server)
    zoom_over_aleppo(page, first)
    page.get_by_text("Export snapshot").click()
    wait_until(page, lambda: extent_checked(page, 0), "the view on screen offered first")
    view_png = made_png(page, "_all_view.png")
    extent_group(page).get_by_text("The story frame", exact=True).click()
    wait_until(page, lambda: extent_checked(page, 1), "the story frame chosen")
    story_png = made_png(page, "_all.png")
    assert view_png[:8] == story_png[:8] == b"\x89PNG\r\n\x1a\n"
    view, story = (Image.open(io.BytesIO(data)).convert("RGB") for data in (view_png, story_png))
    assert view.size == story.size == (1600, 1000)
    difference = np.abs(np.asarray(view, dtype=np.int16) - np.asarray(story, dtype=np.int16))
    assert difference.mean() > 5, "the PNG of the zoomed view looks like the story frame's"
