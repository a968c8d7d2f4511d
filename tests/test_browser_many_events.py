"""Many events in the real dashboard: more than fit in the map's HTML come from a file served
beside it, are drawn, and stay drawn while the user drags the map and steps through time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import STORES, streamlit_app, workspace_in
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Response
from test_browser import MAP_FRAME, url_param, wait_until

from geo import mapview, synthetic
from geo.mapview import event_points
from geo.records import Scenario
from geo.timeline import opening_step

pytestmark = pytest.mark.browser

EVENTS = 80_000
"""Spread over 37 days: about 15,000 in the dashboard's opening week and 13,000 in the last
six days, both above INLINE_LIMIT."""


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return synthetic.generate(events=EVENTS, convoys=20, zones=6, seed=11)


@pytest.fixture(scope="module", params=STORES)
def server(
    scenario: Scenario, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("many-events")
    with workspace_in(request.param, folder, scenario) as location, streamlit_app(location) as url:
        yield url


def events_drawn(page: Page) -> int:
    """How many clusters and single events the map says it drew (0 while it is redrawn)."""
    found = page.frame_locator(MAP_FRAME).locator(".leaflet-container[data-corridor-events]")
    try:
        if found.count() != 1:
            return 0
        return int(found.get_attribute("data-corridor-events", timeout=1_000) or 0)
    except PlaywrightError:  # the frame is being replaced by a redraw
        return 0


def test_many_events_come_from_a_served_file_and_stay_drawn(
    scenario: Scenario, server: str, page: Page
) -> None:
    opening = mapview.MapView(at=opening_step(scenario), event_days=7)
    assert len(mapview.shown(scenario, opening).events) > event_points.INLINE_LIMIT
    fetched: list[tuple[str, int]] = []

    def note(response: Response) -> None:
        if "/app/static/events/" in response.url:
            fetched.append((response.url, response.status))

    page.on("response", note)
    page.goto(server, wait_until="domcontentloaded")
    wait_until(page, lambda: events_drawn(page) > 0, "the events drawn", seconds=120)
    assert fetched, "the events were not fetched from the served folder"
    assert {status for _, status in fetched} == {200}
    frame = page.frame_locator(MAP_FRAME)
    assert frame.locator(".corridor-cluster").count() > 0
    assert frame.locator("[data-corridor-events-error]").count() == 0

    box = page.locator(MAP_FRAME).last.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.6
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 9):
        page.mouse.move(x + 25 * step, y + 10 * step, steps=2)
    page.mouse.up()
    for _ in range(12):  # watched for three seconds: the events stay on the map
        page.wait_for_timeout(250)
        assert frame.locator("[data-corridor-events-error]").count() == 0
    wait_until(page, lambda: events_drawn(page) > 0, "the events still drawn after the drag")

    page.get_by_role("slider").first.focus()  # the last moment: another week's events
    before = len({url for url, _ in fetched})
    page.keyboard.press("End")
    wait_until(page, lambda: url_param(page, "at") is not None, "the new moment in the URL")
    wait_until(
        page, lambda: len({url for url, _ in fetched}) > before, "the last week's events fetched"
    )
    wait_until(page, lambda: events_drawn(page) > 0, "the last week's events drawn")
    last = mapview.MapView(at=scenario.end, event_days=7)
    assert len(mapview.shown(scenario, last).events) > event_points.INLINE_LIMIT
    assert {status for _, status in fetched} == {200}
