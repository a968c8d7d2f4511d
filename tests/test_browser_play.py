"""Play, in the system Chromium: 20 moments in a row, the map drawn in every animation frame.

A hand takes the time slider to its start (Home), folds the legend and presses Play; the
page is watched at every animation frame until 20 further moments have been drawn. The map
is never blank, never mounted again, never moves on the page, and the legend stays folded.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import dashboard_page, shipped_served
from playwright.sync_api import Browser, Page
from test_browser import MAP_FRAME, wait_until
from test_browser_view import open_dashboard

pytestmark = pytest.mark.browser

FRAMES = 20
SIDEBAR = "[data-testid='stSidebar']"

WATCH = """frame => {
    // one sample per animation frame, from the page: it outlives any map frame it watches
    window.corridorSamples = [];
    function sample() {
        var frames = document.querySelectorAll(frame), map = frames[frames.length - 1];
        var seen = {maps: frames.length};
        var page = map && map.contentDocument;
        if (page) {
            var box = map.getBoundingClientRect();
            seen.top = Math.round(box.top);
            seen.height = Math.round(box.height);
            if (!map.contentWindow.corridorMounted) {
                map.contentWindow.corridorMounted = window.corridorSamples.length + 1;
            }
            seen.mounted = map.contentWindow.corridorMounted;
            seen.base = page.querySelectorAll('.leaflet-overlay-pane path').length;
            var title = page.querySelector('.corridor-title-sub');
            seen.title = title ? title.textContent : '';
            var legend = page.querySelector('.corridor-legend');
            seen.folded = !!legend && legend.classList.contains('corridor-folded');
            var sent = map.contentWindow.feature_group;  // streamlit-folium's moment layers
            seen.layers = Array.isArray(sent) ? sent.length : -1;
        }
        window.corridorSamples.push(seen);
        requestAnimationFrame(sample);
    }
    requestAnimationFrame(sample);
}"""


@pytest.fixture(scope="module", params=["geopackage"])  # (the store plays no part in this)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with shipped_served(request, tmp_path_factory.mktemp("play")) as url:
        yield url


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with dashboard_page(browser, request, width=1440, height=900) as opened:
        yield opened


def moments_drawn(samples: list[dict[str, Any]]) -> list[str]:
    """The map titles' moments in the order they were drawn, each once."""
    drawn: list[str] = []
    for seen in samples:
        if seen.get("title") and (not drawn or drawn[-1] != seen["title"]):
            drawn.append(seen["title"])
    return drawn


def map_title(page: Page) -> str:
    return str(page.frame_locator(MAP_FRAME).locator(".corridor-title-sub").text_content())


def test_play_draws_every_moment_without_a_blank_map(server: str, page: Page) -> None:
    open_dashboard(page, server)
    slider = page.locator(SIDEBAR).get_by_role("slider").first
    slider.focus()
    page.keyboard.press("Home")
    wait_until(page, lambda: "14 Dec 2016 06:00" in map_title(page), "the first moment drawn")
    page.frame_locator(MAP_FRAME).locator(".corridor-fold").click()
    page.evaluate(WATCH, MAP_FRAME)
    page.locator(SIDEBAR).get_by_role("button", name="Play").click()

    def played() -> list[str] | None:
        drawn = moments_drawn(page.evaluate("window.corridorSamples"))
        return drawn if len(drawn) > FRAMES else None

    drawn = wait_until(page, played, f"{FRAMES} moments played", seconds=90)
    page.locator(SIDEBAR).get_by_role("button", name="Pause").click()
    samples: list[dict[str, Any]] = page.evaluate("window.corridorSamples")

    assert drawn[0].startswith("As of 14 Dec 2016 06:00")
    assert drawn[FRAMES].startswith("As of 14 Dec 2016 11:00")  # 20 steps of 15 minutes
    blank = [seen for seen in samples if not seen.get("base") or not seen.get("title")]
    assert not blank, f"{len(blank)} of {len(samples)} frames without a drawn map: {blank[:3]}"
    assert {seen["maps"] for seen in samples} == {1}
    assert len({seen["mounted"] for seen in samples}) == 1, "the map was mounted again"
    assert len({(seen["top"], seen["height"]) for seen in samples}) == 1, "the map moved"
    assert all(seen["folded"] for seen in samples), "the legend unfolded at a new moment"
    assert len(samples) > 10 * FRAMES  # watched for seconds, not one frame a moment
    # the moment layers taken off the map are let go (geo.mapview.moment.Released): one held,
    # two for the instant between the new one's coming and the old one's release
    layers = [seen["layers"] for seen in samples if "layers" in seen]
    assert layers[-1] == 1, layers[-5:]
    assert max(layers) <= 2, f"moment layers kept: up to {max(layers)} after {len(drawn)} moments"
