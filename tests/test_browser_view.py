"""The map holds the view its user chose: drag, wheel, permalinks and selections, watched for
seconds in the system Chromium (the view once flipped between two centres for ever)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import STORES, dashboard_page, shipped_served
from playwright.sync_api import Browser, Frame, Page
from playwright.sync_api import Error as PlaywrightError
from test_browser import MAP_FRAME, url_param, wait_until

from geo import mapview, tables, timeline
from geo.scenario import read_scenario
from geo.settings import Settings

pytestmark = pytest.mark.browser

ALEPPO = (36.20124, 37.16117)
WINDOW = {"width": 1500, "height": 1000}
View = tuple[float, float, float]


@pytest.fixture(scope="module", params=STORES)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with shipped_served(request, tmp_path_factory.mktemp("view")) as url:
        yield url


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with dashboard_page(browser, request, **WINDOW) as opened:
        yield opened


def map_frame(page: Page) -> Frame | None:
    """The map's frame (the newest, while a redraw replaces it), None while there is none."""
    try:
        frames = page.locator(MAP_FRAME)
        if frames.count() == 0:
            return None
        handle = frames.last.element_handle(timeout=1_000)
        return handle.content_frame() if handle else None
    except PlaywrightError:
        return None


def evaluate(page: Page, script: str, *args: Any) -> Any:
    frame = map_frame(page)
    if frame is None:
        return None
    try:
        return frame.evaluate(script, *args)
    except PlaywrightError:  # the frame went away with a redraw
        return None


def map_view(page: Page) -> View | None:
    """The centre and zoom the map shows now (rounded to about a metre)."""
    found = evaluate(
        page,
        "() => window.map ? [map.getCenter().lat, map.getCenter().lng, map.getZoom()] : null",
    )
    return None if found is None else (round(found[0], 5), round(found[1], 5), found[2])


def pixels_between(page: Page, a: tuple[float, float], b: tuple[float, float]) -> float:
    """How far apart two points are on the map as it is drawn now, in CSS pixels (waiting up
    to 20 s for a map while a redraw replaces its frame)."""
    script = "([a, b]) => map.latLngToContainerPoint(a).distanceTo(map.latLngToContainerPoint(b))"
    deadline = time.monotonic() + 20
    found = evaluate(page, script, [list(a), list(b)])
    while found is None and time.monotonic() < deadline:
        page.wait_for_timeout(200)
        found = evaluate(page, script, [list(a), list(b)])
    assert found is not None, "no map to measure on"
    return float(found)


def watch(page: Page, seconds: float) -> list[View]:
    """Every view the map shows for `seconds`, one entry per change (redraws skipped)."""
    seen: list[View] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = map_view(page)
        if view is not None and (not seen or seen[-1] != view):
            seen.append(view)
        page.wait_for_timeout(100)
    return seen


def settled(page: Page, before: View) -> View | None:
    """The map's view once it has moved from `before` and then held for half a second
    (Leaflet lets a quick drag glide on after the button is released)."""
    view = map_view(page)
    if view is None or view == before:
        return None
    page.wait_for_timeout(500)
    return view if map_view(page) == view else None


def open_dashboard(page: Page, server: str, query: str = "") -> View:
    """The dashboard, once its map has drawn and its view has reached the URL."""
    page.goto(f"{server}/{query}", wait_until="domcontentloaded")
    page.get_by_text("Disclaimer:").wait_for(timeout=60_000)
    wait_until(page, lambda: url_param(page, "center"), "the map's view in the URL", 60)
    return wait_until(page, lambda: map_view(page), "the map", 30)


def url_view(page: Page) -> tuple[float, float, float] | None:
    center, zoom = url_param(page, "center"), url_param(page, "zoom")
    if not center or not zoom:
        return None
    lat, lon = (float(part) for part in center.split(","))
    return lat, lon, float(zoom)


def map_box(page: Page) -> dict[str, float]:
    box = page.locator(MAP_FRAME).last.bounding_box()
    assert box is not None
    return box


@pytest.mark.store_free
def test_a_dragged_map_stays_where_it_was_dragged(server: str, page: Page) -> None:
    first = open_dashboard(page, server)
    box = map_box(page)
    x, y = box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.6
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 11):
        page.mouse.move(x + 30 * step, y, steps=2)
    page.mouse.up()
    dragged = wait_until(page, lambda: settled(page, first), "the drag (and its glide) to end")
    wait_until(
        page,
        lambda: (found := url_view(page)) and abs(found[1] - dragged[1]) < 1e-4,
        "the dragged centre in the URL",
    )
    seen = watch(page, 8)
    assert len(seen) <= 2, f"the view kept changing after the drag: {seen}"
    assert pixels_between(page, first[:2], seen[-1][:2]) >= 280  # 300 px, and any glide

    page.get_by_role("slider").first.focus()  # a new moment redraws the map: the view stays
    page.keyboard.press("ArrowRight")
    wait_until(page, lambda: url_param(page, "at") == "2016-12-15T13:15Z", "the next moment")
    wait_until(
        page,
        lambda: evaluate(page, "() => !!document.querySelector('.corridor-title-sub')"
                         " && document.querySelector('.corridor-title-sub').textContent"
                         ".includes('13:15 UTC')"),
        "the map drawn again for 13:15",
    )  # fmt: skip
    after = watch(page, 4)
    assert after, "no map after the redraw"
    assert all(pixels_between(page, view[:2], seen[-1][:2]) < 2 for view in after), after
    assert {view[2] for view in after} == {seen[-1][2]}


@pytest.mark.store_free
def test_a_wheel_zoom_holds(server: str, page: Page) -> None:
    first = open_dashboard(page, server)
    box = map_box(page)
    page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.6)
    page.mouse.wheel(0, -240)
    zoomed = wait_until(
        page, lambda: (view := map_view(page)) and view[2] > first[2] and view, "the wheel zoom"
    )
    wait_until(
        page, lambda: (found := url_view(page)) and found[2] >= zoomed[2], "the zoom in the URL"
    )
    seen = watch(page, 8)
    assert len(seen) <= 2, f"the view kept changing after a wheel zoom: {seen}"
    assert seen[-1][2] > first[2]


@pytest.mark.store_free
def test_a_permalink_opens_at_its_view_and_stays(server: str, page: Page) -> None:
    opened = open_dashboard(page, server, "?center=36.17,37.02&zoom=11")
    assert abs(opened[2] - 11) <= 1
    assert pixels_between(page, opened[:2], (36.17, 37.02)) < 3
    seen = watch(page, 6)
    assert len(seen) == 1, f"the permalink's view did not hold: {seen}"
    assert url_view(page) == pytest.approx((36.17, 37.02, 11), abs=2e-4)


def convoy_1_in_view(page: Page) -> bool:
    """The convoy-1 route's ends both inside the map, drawn closer than the first view."""
    inside = evaluate(
        page,
        """(ends) => ends.every(function(end) {
            var p = map.latLngToContainerPoint(end), size = map.getSize();
            return p.x > 0 && p.y > 0 && p.x < size.x && p.y < size.y;
        }) && map.getZoom() >= 12""",
        [[36.18328, 37.14953], [36.185, 37.03]],  # east Aleppo and the point west of the city
    )
    return bool(inside)


@pytest.mark.store_free
def test_a_convoy_ticked_in_the_table_is_zoomed_to_and_stays(server: str, page: Page) -> None:
    open_dashboard(page, server)
    scenario = read_scenario(Settings.from_environment().default_scenario_dir)
    at = timeline.nearest_step(timeline.steps(scenario), timeline.opening_moment(scenario))
    ids = tables.convoys_table(scenario, at)["id"].tolist()
    row = ids.index("convoy-1")
    grid = page.locator("[data-testid='stDataFrame']").first
    grid.scroll_into_view_if_needed(timeout=30_000)
    for _ in range(5):  # a rerun may redraw the grid just as it is clicked: click again
        box = grid.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 15, box["y"] + ROW_PX * (row + 1) + ROW_PX / 2)
        try:
            wait_until(page, lambda: url_param(page, "convoy") == "convoy-1", "selection", 5)
            break
        except AssertionError:
            continue
    wait_until(page, lambda: convoy_1_in_view(page), "the map to frame convoy-1")
    seen = watch(page, 8)
    assert len(seen) == 1, f"the view did not hold on the selected convoy: {seen}"
    assert convoy_1_in_view(page)
    assert url_param(page, "convoy") == "convoy-1"


ROW_PX = 35
"""The height of a row of Streamlit's data grid (and of its header), in CSS pixels."""


@pytest.mark.store_free
def test_a_convoy_clicked_on_the_map_is_selected_zoomed_to_and_stays(
    server: str, page: Page
) -> None:
    open_dashboard(page, server)
    marker = wait_until(
        page,
        lambda: evaluate(
            page,
            """() => { var found = null;
                map.eachLayer(function(layer) {
                    if (layer instanceof L.Marker && layer.getTooltip() &&
                        /^First convoy/.test(layer.getTooltip().getContent())) {
                        found = map.latLngToContainerPoint(layer.getLatLng());
                    }
                });
                return found && [found.x, found.y]; }""",
        ),
        "convoy-1's marker",
    )
    box = map_box(page)
    page.mouse.click(box["x"] + marker[0], box["y"] + marker[1])
    wait_until(page, lambda: url_param(page, "convoy") == "convoy-1", "the click to select it")
    wait_until(page, lambda: convoy_1_in_view(page), "the map to frame convoy-1")
    seen = watch(page, 8)
    assert len(seen) == 1, f"the view did not hold on the clicked convoy: {seen}"
    assert convoy_1_in_view(page)
    popup = evaluate(page, "() => (document.querySelector('.leaflet-popup') || {}).textContent")
    assert str(popup).startswith("First convoy"), "the clicked marker's popup closed"


def test_the_first_view_shows_aleppo_clear_of_every_control(server: str, page: Page) -> None:
    open_dashboard(page, server)
    wait_until(page, lambda: evaluate(page, "() => map.getZoom() > 9"), "the story's frame")
    overlaps = evaluate(
        page,
        """(aleppo) => {
            var box = map.getContainer().getBoundingClientRect();
            var p = map.latLngToContainerPoint(aleppo);
            var x = box.left + p.x, y = box.top + p.y;
            if (p.x < 0 || p.y < 0 || p.x > box.width || p.y > box.height) { return ['outside']; }
            return Array.prototype.filter.call(
                document.querySelectorAll('.leaflet-control'), function(c) {
                    var r = c.getBoundingClientRect();
                    return r.width && x >= r.left - 10 && x <= r.right + 10
                        && y >= r.top - 10 && y <= r.bottom + 10;
                }).map(function(c) { return c.className; });
        }""",
        list(ALEPPO),
    )
    assert overlaps == [], f"Aleppo is {overlaps}"
    assert evaluate(page, "() => !document.querySelector('.leaflet-control-layers-expanded')")
    scenario = read_scenario(Settings.from_environment().default_scenario_dir)
    at = timeline.nearest_step(timeline.steps(scenario), timeline.opening_moment(scenario))
    story = mapview.story_frame(scenario, mapview.MapView(at=at))
    assert story.bounds is not None
    assert evaluate(page, "(b) => map.getBounds().contains(b)", story.bounds), (
        "the first view leaves part of the story out"
    )
