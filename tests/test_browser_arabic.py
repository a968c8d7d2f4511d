"""The Arabic interface in the system Chromium: a link opens it right to left with Arabic names
on the map; a click on the sidebar's switch brings English back, and the choice holds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import STORES, shipped_served
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from test_browser import MAP_FRAME, url_param, wait_until

pytestmark = pytest.mark.browser

SIDEBAR = "[data-testid='stSidebar']"
NAVIGATION = "[data-testid='stSidebarNav'] a"


@pytest.fixture(scope="module", params=STORES)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with shipped_served(request, tmp_path_factory.mktemp("arabic")) as url:
        yield url


def sidebar_direction(page: Page) -> str:
    return str(page.locator(SIDEBAR).evaluate("e => getComputedStyle(e).direction"))


def page_names(page: Page) -> list[str]:
    """The names of the pages in the sidebar's navigation, in order."""
    return [name.strip() for name in page.locator(NAVIGATION).all_inner_texts()]


def map_labels(page: Page) -> list[str]:
    labels = page.frame_locator(MAP_FRAME).locator(".corridor-label")
    try:
        return labels.all_inner_texts()
    except PlaywrightError:  # the frame is being replaced by a redraw
        return []


@pytest.mark.store_free
def test_an_arabic_link_opens_right_to_left_and_english_comes_back_with_one_click(
    server: str, page: Page
) -> None:
    page.goto(f"{server}/?lang=ar&labels=both", wait_until="domcontentloaded")
    page.locator(SIDEBAR).get_by_text("الطبقات").wait_for(timeout=60_000)
    wait_until(page, lambda: sidebar_direction(page) == "rtl", "the sidebar right to left")
    wait_until(page, lambda: "Aleppo\nحلب" in map_labels(page), "Aleppo and حلب on the map")
    wait_until(page, lambda: page_names(page)[:2] == ["الخريطة", "من تقرير"], "pages in Arabic")

    page.locator(SIDEBAR).get_by_text("English", exact=True).click()
    page.locator(SIDEBAR).get_by_text("Layers", exact=True).wait_for(timeout=30_000)
    wait_until(page, lambda: page_names(page)[:2] == ["Map", "From a report"], "pages in English")
    wait_until(page, lambda: url_param(page, "lang") is None, "the URL to drop lang=ar")
    wait_until(page, lambda: sidebar_direction(page) == "ltr", "the sidebar left to right")
    for _ in range(12):  # watched for three seconds: the choice holds, the names stay
        assert sidebar_direction(page) == "ltr"
        assert url_param(page, "lang") is None
        assert url_param(page, "labels") == "both"
        page.wait_for_timeout(250)
    wait_until(page, lambda: "Aleppo\nحلب" in map_labels(page), "both names still on the map")


@pytest.mark.store_free
def test_place_names_switch_to_arabic_on_the_map_and_in_the_url(server: str, page: Page) -> None:
    page.goto(server, wait_until="domcontentloaded")
    wait_until(page, lambda: "Aleppo" in map_labels(page), "the English names on the map")
    page.locator(SIDEBAR).get_by_text("Arabic", exact=True).click()
    wait_until(page, lambda: "حلب" in map_labels(page), "حلب on the map")
    wait_until(page, lambda: url_param(page, "labels") == "ar", "labels=ar in the URL")
    page.reload(wait_until="domcontentloaded")
    wait_until(page, lambda: "حلب" in map_labels(page), "حلب again after a reload")
    assert url_param(page, "labels") == "ar"
